"""The reviewer model's verdicts on what the target shows, block by block (Qt-free).

The engine sends a BlockReviewed (fastdesk.translate.quality) after a block's translation; the
verdict holds for the machine answer it judged. So a verdict is kept with that answer's text and
shown only while the block still shows it: a block the editor corrected shows none (it is not
judged again unless its source changes and the engine translates it anew), an approved one keeps
its score. The target panes underline the errors' spans, the margin colours the block by its
score, the problems list lists the errors, the status bar shows the document's score.
"""

from __future__ import annotations

from collections.abc import Container, Iterable
from dataclasses import dataclass

from fastdesk.review.model import Review
from fastdesk.translate.events import BlockReviewed, EngineEvent
from fastdesk.translate.mqm import QualityReview, ReviewError, document_score

__all__ = ["FAIR_SCORE", "GOOD_SCORE", "Marks", "Underline", "score_colour", "score_label"]

GOOD_SCORE = 95.0  # at or above: green (at most a minor error per 20 words)
FAIR_SCORE = 80.0  # at or above: amber; below: red
_COLOURS = {"good": "#1a7f37", "fair": "#bf8700", "poor": "#cf222e"}
_EDITED = frozenset({"edited", "stale_edit"})


@dataclass(frozen=True, slots=True)
class Underline:
    """An error's span in a block's text as the target pane holds it (UTF-16 offsets from the
    block's start): [start, end), and what the hover says."""

    start: int
    end: int
    error: ReviewError

    @property
    def tooltip(self) -> str:
        e = self.error
        return f"{e.category} ({e.severity}): {e.explanation}"


def score_label(score: float) -> str:
    """good | fair | poor."""
    return "good" if score >= GOOD_SCORE else "fair" if score >= FAIR_SCORE else "poor"


def score_colour(score: float) -> str:
    return _COLOURS[score_label(score)]


class Marks:
    """Each block's verdict with the machine text it judged (see the module docstring)."""

    def __init__(self) -> None:
        self._by_block: dict[str, tuple[str, QualityReview]] = {}

    def apply(self, events: Iterable[EngineEvent], review: Review) -> set[str]:
        """Keep the verdicts among ``events`` for the answers they judged; the blocks they
        change."""
        changed = set()
        for event in events:
            if not isinstance(event, BlockReviewed):
                continue
            machine = review.info(event.block_id).machine
            if machine is not None:
                self._by_block[event.block_id] = (machine, event.review)
                changed.add(event.block_id)
        return changed

    def clear(self) -> None:
        self._by_block.clear()

    def of(self, block_id: str, review: Review) -> QualityReview | None:
        """The verdict on what the block shows, or None (none yet, or corrected since)."""
        entry = self._by_block.get(block_id)
        if entry is None:
            return None
        info = review.info(block_id)
        if info.state in _EDITED or info.machine != entry[0]:
            return None
        return entry[1]

    def spans(self, block_id: str, review: Review) -> list[tuple[int, int, ReviewError]]:
        """The errors of the block's verdict as [start, end) in the block's text (the machine
        answer with its lead and trail: each span is found from its start in the answer on,
        which the lead only moves further)."""
        verdict = self.of(block_id, review)
        if verdict is None:
            return []
        machine = self._by_block[block_id][0]
        out = []
        for error in verdict.errors:
            at = machine.find(error.span, error.start)
            if at >= 0:
                out.append((at, at + len(error.span), error))
        return out

    def judged(self) -> list[str]:
        """The blocks with a verdict kept (shown or not)."""
        return list(self._by_block)

    def machine_text(self, block_id: str) -> str:
        return self._by_block[block_id][0] if block_id in self._by_block else ""

    def document_score(self, review: Review, block_ids: Container[str]) -> float | None:
        """The score of the verdicts of the document's blocks (``block_ids``) together (None:
        no block judged). Asked at each change of the review: it looks at the judged blocks
        only, not at every block."""
        verdicts = [v for bid in self._by_block if bid in block_ids and (v := self.of(bid, review))]
        return document_score(verdicts)
