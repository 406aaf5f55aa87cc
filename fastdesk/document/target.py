"""A target text with the span of each source block in it (pure data).

What the window shows is composed by fastdesk.review.target_model.TargetModel; a TargetView is
that text with its block spans, for attributing a reviewer's edit to blocks and for exports.
"""

from __future__ import annotations

from dataclasses import dataclass


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
