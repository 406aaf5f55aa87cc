"""Assembling the target document from per-block answers (pure; the window renders the result).

While a changed block is still being translated, its position keeps the previous translation
(the last good translation stays on screen) or, for a new block, its source text.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from fastdesk.document.blocks import Document


@dataclass(frozen=True)
class TargetView:
    text: str
    spans: tuple[tuple[str, int, int], ...]  # (block id, start, end) in text, one per source block
    pending: frozenset[str]  # blocks whose shown text is not the answer for their current source

    def span_of(self, block_id: str) -> tuple[int, int] | None:
        for bid, start, end in self.spans:
            if bid == block_id:
                return start, end
        return None


EMPTY = TargetView("", (), frozenset())


def compose(
    doc: Document, done: Mapping[str, str], previous: TargetView | None = None
) -> TargetView:
    """The target for `doc`: answers where known, else what stood at that position before."""
    old_texts: list[str] = []
    if previous is not None:
        old_texts = [previous.text[s:e] for _bid, s, e in previous.spans]
    old_ids = [bid for bid, _s, _e in previous.spans] if previous is not None else []
    old_by_id = dict(zip(old_ids, old_texts, strict=True))
    parts: list[str] = []
    spans: list[tuple[str, int, int]] = []
    pending: set[str] = set()
    pos = 0
    for i, block in enumerate(doc.blocks):
        text = done.get(block.id)
        if text is None:
            pending.add(block.id)
            text = _fallback(block.id, i, old_by_id, old_texts, block.text, len(doc.blocks))
        parts.append(text)
        spans.append((block.id, pos, pos + len(text)))
        pos += len(text)
    return TargetView("".join(parts), tuple(spans), frozenset(pending))


def _fallback(
    block_id: str,
    index: int,
    old_by_id: dict[str, str],
    old_texts: list[str],
    source: str,
    count: int,
) -> str:
    """Previous text of this block, or of the block at the same position when the counts match."""
    if block_id in old_by_id:
        return old_by_id[block_id]
    if len(old_texts) == count and index < len(old_texts):
        return old_texts[index]
    return source
