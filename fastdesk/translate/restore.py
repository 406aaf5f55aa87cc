"""Put back what a translation must not change: the source's link targets (with bare URLs,
reference labels and footnote marks), code spans or placeholders, in place of those the answer
changed.

Why a separate pass and not a retry: the model got the prose right and one name wrong; the editor
wants that name back, one click, without losing the rest. The items are found in the raw text
(the checks' parse has no positions), paired with the source's in order, and only those that
differ are replaced. Nothing is guessed: when the items found do not agree with the checks'
parse, when the two texts hold different numbers of them, or when the result would still fail
the check, :func:`restore` returns None and the text stays the editor's to fix.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

from markdown_it.common.utils import unescapeAll

from fastdesk.translate.checks import (
    _FOOTNOTE,
    _PLACEHOLDER,
    _REF_LINK,
    _TAG,
    Facts,
    _norm_placeholder,
    bare_url_spans,
    facts,
    normalize_link,
)

__all__ = ["RESTORABLE", "restore"]


@dataclass(frozen=True, slots=True)
class _Item:
    start: int
    end: int
    key: str  # what the check compares
    raw: str  # as written


# A code span: a run of backticks, the shortest text, the same run again (CommonMark 6.1).
_CODE = re.compile(r"(?<![`\\])(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)
_AUTOLINK = re.compile(r"<([A-Za-z][A-Za-z0-9.+-]{1,31}:[^<>\x00-\x20]*)>")
_DEFINITION = re.compile(r"\[[^\[\]]*\]: ")  # a definition's key in the checks' facts
_EMAIL = re.compile(
    r"<([a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?"
    r"(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*)>"
)


def _code_spans(text: str) -> list[_Item]:
    items = []
    for m in _CODE.finditer(text):
        content = m.group(2).replace("\n", " ")
        if content.startswith(" ") and content.endswith(" ") and content.strip():
            content = content[1:-1]
        items.append(_Item(m.start(), m.end(), content, m.group(0)))
    return items


def _destinations(text: str, taken: list[tuple[int, int]]) -> list[_Item]:
    """Inline link and image destinations: ``](dest`` up to a space or the closing paren."""
    items = []
    for m in re.finditer(r"\]\([ \t]*\n?[ \t]*", text):
        start = m.end()
        if _inside(start, taken):
            continue
        if text.startswith("<", start):
            end = text.find(">", start)
            if end < 0 or "\n" in text[start:end]:
                continue
            raw, dest = text[start : end + 1], text[start + 1 : end]
        else:
            end, depth = start, 0
            while end < len(text) and not text[end].isspace() and ord(text[end]) > 0x1F:
                ch = text[end]
                if ch == "\\" and end + 1 < len(text):
                    end += 2
                    continue
                if ch == "(":
                    depth += 1
                elif ch == ")":
                    if depth == 0:
                        break
                    depth -= 1
                end += 1
            raw = dest = text[start:end]
        items.append(_Item(start, start + len(raw), normalize_link(unescapeAll(dest)), raw))
    return items


def _references(text: str, code: list[_Item]) -> list[_Item]:
    """Reference labels (``[text][label]``: the label; ``[label][]``: all of it, the text being
    the label) and footnote marks (``[^1]``), outside code spans."""
    masked = list(text)
    for item in code:
        masked[item.start : item.end] = "\x00" * (item.end - item.start)
    flat = "".join(masked)
    items = []
    for m in _REF_LINK.finditer(flat):
        label = m.group(2) or m.group(1)
        key = f"[{' '.join(label.split()).casefold()}]"
        start, end = (m.start(2), m.end(2)) if m.group(2) else (m.start(), m.end())
        items.append(_Item(start, end, key, text[start:end]))
    items += [
        _Item(m.start(), m.end(), f"[^{m.group(1)}]", m.group(0)) for m in _FOOTNOTE.finditer(flat)
    ]
    return items


def _targets(text: str) -> list[_Item] | None:
    """Link targets, autolinks, bare URLs, reference labels and footnote marks, in order
    (reference definitions are not placed: they are blocks of their own)."""
    code = _code_spans(text)
    taken = [(i.start, i.end) for i in code]
    items = _destinations(text, taken) + _references(text, code)
    for pattern, prefix in ((_AUTOLINK, ""), (_EMAIL, "mailto:")):
        for m in pattern.finditer(text):
            if not _inside(m.start(), taken):
                url = m.group(1)
                items.append(_Item(m.start(1), m.end(1), normalize_link(prefix + url), url))
    taken += [(i.start, i.end) for i in items]
    for start, end, url in bare_url_spans(text):
        if not _inside(start, taken):
            items.append(_Item(start, end, normalize_link(url), url))
    items.sort(key=lambda i: i.start)
    known = Counter(k for k in facts(text).targets.elements() if not _DEFINITION.match(k))
    return items if Counter(i.key for i in items) == known else None


def _placeholders(text: str) -> list[_Item] | None:
    """Placeholders in the prose: code, link targets, URLs and HTML tags masked out first."""
    masked = list(text)
    for item in _code_spans(text) + (_targets(text) or []):
        masked[item.start : item.end] = " " * (item.end - item.start)
    prose = _TAG.sub(lambda m: " " * len(m.group(0)), "".join(masked))
    items = [
        _Item(m.start(), m.end(), _norm_placeholder(m.group(0)), m.group(0))
        for m in _PLACEHOLDER.finditer(prose)
    ]
    return items if Counter(i.key for i in items) == facts(text).placeholders else None


def _checked_code(text: str) -> list[_Item] | None:
    items = _code_spans(text)
    return items if Counter(i.key for i in items) == facts(text).inline_code else None


_Locate = Callable[[str], list[_Item] | None]
_KINDS: dict[str, tuple[_Locate, Callable[[Facts], Counter[str]]]] = {
    "links": (_targets, lambda f: f.targets),
    "inline_code": (_checked_code, lambda f: f.inline_code),
    "placeholders": (_placeholders, lambda f: f.placeholders),
}
RESTORABLE = frozenset(_KINDS)
"""The checks whose flag :func:`restore` can answer (by the check names the flags carry)."""


@lru_cache(maxsize=1024)
def restore(source: str, target: str, check: str) -> str | None:
    """``target`` with the source's items of ``check`` (links, inline_code, placeholders) put
    back where it changed them; None when that cannot be done with certainty (see module)."""
    kind = _KINDS.get(check)
    if kind is None:
        return None
    locate, fact = kind
    theirs, ours = locate(source), locate(target)
    if theirs is None or ours is None:
        return None
    edits: list[tuple[int, int, str]] = []
    matcher = difflib.SequenceMatcher(
        None, [i.key for i in theirs], [i.key for i in ours], autojunk=False
    )
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if tag == "replace" and i2 - i1 == j2 - j1:
            edits += [
                (b.start, b.end, a.raw) for a, b in zip(theirs[i1:i2], ours[j1:j2], strict=True)
            ]
        elif tag == "delete" and check == "inline_code":
            found = _unwrapped(target, theirs[i1:i2], ours, j1)
            if found is None:
                return None
            edits += found
        else:
            return None
    if not edits:
        return None
    out = target
    for start, end, raw in sorted(edits, reverse=True):
        out = out[:start] + raw + out[end:]
    return out if fact(facts(out)) == fact(facts(source)) else None


def _unwrapped(
    target: str, lost: Iterable[_Item], ours: list[_Item], j: int
) -> list[tuple[int, int, str]] | None:
    """Code spans whose backticks the answer dropped: their text, found once between the spans
    around them, is wrapped again."""
    lo = ours[j - 1].end if j > 0 else 0
    hi = ours[j].start if j < len(ours) else len(target)
    edits = []
    for item in lost:
        where = [m.start() for m in re.finditer(re.escape(item.key), target[lo:hi])]
        if len(where) != 1:
            return None
        start = lo + where[0]
        edits.append((start, start + len(item.key), item.raw))
        lo = start + len(item.key)
    return edits


def _inside(position: int, spans: list[tuple[int, int]]) -> bool:
    return any(start <= position < end for start, end in spans)
