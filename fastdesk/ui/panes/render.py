"""What the target panes show, computed without Qt: block segments, their diff, their HTML.

Why Qt-free: the diff is the heart of "update only what changed", which deserves plain unit
tests. The segments themselves come from fastdesk.review.target_model.TargetModel.

A *segment* is one source block's piece of the target text, normalised to ``\\n`` line ends (what
a QTextDocument holds) and measured in UTF-16 code units (what QTextCursor positions count).
Segments are contiguous: joining their texts gives the whole target as the editor shows it.
"""

from __future__ import annotations

import difflib
import html
import itertools
import operator
import re
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache

from fastdesk.config.paths import resource
from fastdesk.document.html import NO_CONTEXT, Context, render

# What a pane shows is the target model's (re-exported for the panes):
from fastdesk.review.target_model import Segment as Segment
from fastdesk.review.target_model import normalize as normalize
from fastdesk.review.target_model import qt_len as qt_len
from fastdesk.review.target_model import segment as segment

Op = tuple[int, int, int, int]  # old[i1:i2] becomes new[j1:j2]


def diff(old: Sequence[Segment], new: Sequence[Segment]) -> list[Op]:
    """Smallest-ish list of ascending, non-overlapping replacements turning ``old`` into ``new``.

    Compares texts only: a block whose id changed but whose target text did not (the previous
    translation kept on screen) needs no edit. Equal-length middles are compared pairwise
    (the streaming case: same blocks, some texts grew), and so is a middle whose blocks start
    (or end) the other's, the rest inserted or removed (a first fill that streams as it grows);
    otherwise difflib aligns them (~1 ms at 500 blocks: too slow for every render slice).
    """
    n, m = len(old), len(new)
    p = _first_difference(old, new)
    s = _first_difference(old[p:][::-1], new[p:][::-1])
    o1, o2, n1, n2 = p, n - s, p, m - s
    if o2 - o1 == n2 - n1:
        return _pairwise(old, new, o1, n1, o2 - o1)
    common = min(o2 - o1, n2 - n1)
    if _same_keys(old, new, o1, n1, common):
        tail = (o1 + common, o2, n1 + common, n2)  # an insertion or a removal
        return [*_pairwise(old, new, o1, n1, common), tail]
    matcher = difflib.SequenceMatcher(
        None, [x.text for x in old[o1:o2]], [x.text for x in new[n1:n2]], autojunk=False
    )
    ops: list[Op] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if tag == "replace" and i2 - i1 == j2 - j1:
            ops.extend(_pairwise(old, new, o1 + i1, n1 + j1, i2 - i1))
        else:
            ops.append((o1 + i1, o1 + i2, n1 + j1, n1 + j2))
    return ops


# The scans below run over every shown block on every render slice. Pairs that are the same
# object (the target model hands unchanged blocks on as the objects shown before) are skipped in C;
# only the others reach Python: as generator expressions over every pair, these scans were most
# of the GUI thread's time in a long document's first fill (docs/performance.md).


def not_same_object(old: Sequence[Segment], new: Sequence[Segment]) -> Iterator[int]:
    """Indices (in zip's range) where ``old`` and ``new`` hold different objects, found in C."""
    return itertools.compress(itertools.count(), map(operator.is_not, old, new))


def differing(old: Sequence[Segment], new: Sequence[Segment]) -> Iterator[int]:
    """Indices (in zip's range) where ``old`` and ``new`` hold different texts, in order."""
    return (k for k in not_same_object(old, new) if old[k].text != new[k].text)


def _first_difference(old: Sequence[Segment], new: Sequence[Segment]) -> int:
    """How many segments ``old`` and ``new`` share (by text) at the start."""
    return next(differing(old, new), min(len(old), len(new)))


def _pairwise(
    old: Sequence[Segment], new: Sequence[Segment], i: int, j: int, count: int
) -> list[Op]:
    return [
        (i + k, i + k + 1, j + k, j + k + 1)
        for k in differing(old[i : i + count], new[j : j + count])
    ]


def _same_keys(old: Sequence[Segment], new: Sequence[Segment], i: int, j: int, count: int) -> bool:
    a, b = old[i : i + count], new[j : j + count]
    return all(a[k].key == b[k].key for k in not_same_object(a, b))


def same_texts(old: Sequence[Segment], new: Sequence[Segment]) -> bool:
    """True when showing ``new`` instead of ``old`` needs no edit (``diff`` would be empty)."""
    return len(old) == len(new) and next(differing(old, new), None) is None


def join(parts: Iterable[Segment]) -> str:
    return "".join(p.text for p in parts)


# ---- Markdown → HTML ----------------------------------------------------------------------


def block_html(text: str, context: Context = NO_CONTEXT) -> str:
    """HTML for one block's Markdown in its document's context (the core's renderer, cached).

    Without the final line break: Qt's rich text would keep it as a space after the last element.
    Task list boxes as ☐/☑: Qt's rich text draws no <input>.
    """
    out = render(text, context).rstrip("\n")
    return _CHECKBOX.sub(_box, out) if "task-list-item-checkbox" in out else out


_CHECKBOX = re.compile(r'<input class="task-list-item-checkbox"[^>]*>')


def _box(match: re.Match[str]) -> str:
    return "\u2611" if "checked" in match.group(0) else "\u2610"


def generated_html(text: str, label: str) -> str:
    """An elaboration written by the model, marked as such (not part of the translation)."""
    return (
        f'<div class="generated"><p class="generated-label">{html.escape(label)}</p>'
        f"{block_html(text)}</div>"
    )


# ---- stylesheet -----------------------------------------------------------------------------

LIGHT = {
    "text": "#1f2328",
    "muted": "#59636e",
    "link": "#0969da",
    "code-bg": "#f3f4f6",
    "border": "#d0d7de",
    "quote": "#59636e",
    "generated-bg": "#fff8e1",
    "generated-border": "#d4a72c",
}
DARK = {
    "text": "#e6edf3",
    "muted": "#9198a1",
    "link": "#4493f8",
    "code-bg": "#262c36",
    "border": "#3d444d",
    "quote": "#9198a1",
    "generated-bg": "#2e2a1a",
    "generated-border": "#bb8009",
}
_VAR = re.compile(r"var\(--([a-z-]+)\)")


def stylesheet(dark: bool) -> str:
    """resources/preview.css with its ``var(--name)`` colours filled in for a light or dark palette.

    Qt's rich text supports a CSS subset without custom properties, so we substitute them here.
    """
    colours = DARK if dark else LIGHT
    css = _stylesheet_source()
    return _VAR.sub(lambda m: colours.get(m.group(1), "inherit"), css)


@lru_cache(maxsize=1)
def _stylesheet_source() -> str:
    return resource("preview.css").read_text(encoding="utf-8")
