"""Aligning a review with a new revision of its source, and attributing an edit of the shown
target to blocks (pure Python; fastdesk.review.model's Review uses both)."""

from __future__ import annotations

import bisect
import dataclasses
import difflib
import re
from collections.abc import Mapping
from functools import lru_cache

from fastdesk.document.blocks import Document
from fastdesk.document.target import TargetView
from fastdesk.document.text_ends import common_prefix, common_suffix
from fastdesk.review.records import Kept

# ---- alignment --------------------------------------------------------------------------------

SIMILAR = 0.5  # below this, a changed block is not "the same paragraph, edited"
_WINDOW = 8  # candidates considered on each side of the expected position in a changed region
_TOKENS = 200  # words compared per block (similarity is about "the same paragraph", not detail)
_WORD = re.compile(r"\w+|[^\w\s]")


def carry(
    old: Document | None, new: Document, kept: Mapping[str, Kept]
) -> tuple[dict[str, Kept], dict[str, Kept], list[str]]:
    """Reviewer's texts on ``new``'s ids, those whose block vanished (by old id), and the new
    ids of those that just became stale."""
    if not kept:
        return {}, {}, []
    new_ids = [b.id for b in new.blocks]
    if old is None:
        present = set(new_ids)
        on_new = {bid: k for bid, k in kept.items() if bid in present}
        return on_new, {bid: k for bid, k in kept.items() if bid not in present}, []
    old_ids = [b.id for b in old.blocks]
    moved: dict[str, Kept] = {}
    old_set = set(old_ids)
    lost = {bid: k for bid, k in kept.items() if bid not in old_set}  # not on the old doc
    newly_stale: list[str] = []
    matcher = difflib.SequenceMatcher(
        None, [_digest(b) for b in old_ids], [_digest(b) for b in new_ids], autojunk=False
    )
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for k in range(i2 - i1):
                if old_ids[i1 + k] in kept:
                    moved[new_ids[j1 + k]] = kept[old_ids[i1 + k]]
            continue
        vanished = [i for i in range(i1, i2) if old_ids[i] in kept]
        if not vanished:
            continue
        pairs = _pair(old, new, vanished, i1, i2, j1, j2)
        for i in vanished:
            record = kept[old_ids[i]]
            if i in pairs:
                target = new.blocks[pairs[i]]
                stale = target.text != record.base
                moved[target.id] = dataclasses.replace(record, stale=stale)
                if stale and not record.stale:
                    newly_stale.append(target.id)
            else:
                lost[old_ids[i]] = record
    return moved, lost, newly_stale


def _digest(block_id: str) -> str:
    """The content hash without the duplicate counter: equal digests mean equal blocks."""
    return block_id.split("-", 1)[0]


def _pair(
    old: Document, new: Document, vanished: list[int], i1: int, i2: int, j1: int, j2: int
) -> dict[int, int]:
    """Old index → new index for reviewer's texts in a changed region: by position when the
    region kept its number of blocks, else by similarity (order preserved)."""
    if i2 - i1 == j2 - j1:
        return {i: j1 + (i - i1) for i in vanished}
    scored: list[tuple[float, int, int, int]] = []
    for i in vanished:
        expected = j1 + round((i - i1) * (j2 - j1) / max(1, i2 - i1))
        lo, hi = max(j1, expected - _WINDOW), min(j2, expected + _WINDOW + 1)
        for j in range(lo, hi):
            score = _similarity(old.blocks[i].text, new.blocks[j].text)
            if score >= SIMILAR:
                scored.append((score, -abs(j - expected), i, j))
    scored.sort(reverse=True)
    pairs: dict[int, int] = {}
    for _score, _near, i, j in scored:
        if i in pairs or j in pairs.values():
            continue
        if all((i < a) == (j < b) for a, b in pairs.items()):
            pairs[i] = j
    return pairs


def _similarity(a: str, b: str) -> float:
    """Dice coefficient of the blocks' word sets: 1 for the same words, 0 for none in common.
    Cheap (set operations), which matters when a whole document was rewritten on disk."""
    wa, wb = _words(a), _words(b)
    if not wa or not wb:
        return 1.0 if wa == wb else 0.0
    return 2 * len(wa & wb) / (len(wa) + len(wb))


@lru_cache(maxsize=4096)
def _words(text: str) -> frozenset[str]:
    return frozenset(w.casefold() for w in _WORD.findall(text, 0, 8 * _TOKENS)[:_TOKENS])


# ---- attributing a target edit to blocks ------------------------------------------------------


def diff_target_edit(
    view: TargetView, new_text: str, at: int | None = None
) -> list[tuple[str, str]]:
    """The blocks a user's edit of the target pane touched, with their new texts.

    ``view`` is what the pane showed before the edit (e.g. :meth:`Review.view`), ``new_text``
    the pane's text after it, both with the same line ends. ``at`` (optional) is where the
    change began (Qt's contentsChange position, as a Python index): it settles the ambiguous
    cases, such as typing a character equal to its neighbour. Joining the returned texts in
    place of the old ones gives ``new_text`` exactly; blocks swallowed whole come back as "".
    """
    old = view.text
    if old == new_text or not view.spans:
        return []
    limit = min(len(old), len(new_text))
    p = common_prefix(old, new_text, limit)
    if at is not None:
        p = max(0, min(p, at))
    s = common_suffix(old, new_text, limit - p)
    old_end, new_end = len(old) - s, len(new_text) - s
    first = _span_index(view, p)
    last = _span_index(view, old_end - 1) if old_end > p else first
    out: list[tuple[str, str]] = []
    for k in range(first, last + 1):
        bid, start, end = view.spans[k]
        head = old[start:p] if k == first else ""
        tail = old[old_end:end] if k == last else ""
        middle = new_text[p:new_end] if k == first else ""
        out.append((bid, head + middle + tail))
    return out


def _span_index(view: TargetView, offset: int) -> int:
    """The span holding ``offset``; an insertion at the very end belongs to the last block."""
    starts = [s for _bid, s, _e in view.spans]
    return max(0, min(bisect.bisect_right(starts, offset) - 1, len(view.spans) - 1))
