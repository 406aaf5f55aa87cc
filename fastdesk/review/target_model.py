"""What the target shows, block by block, for one document in one language (Qt-free).

The one owner of the target: every view (the raw Markdown pane, the rendered pane, the review
margin and summary, sync scroll, the export) derives from :class:`TargetModel` and keeps no copy
of its own. Per block it knows the source (id and text), the machine answer (final, or streaming
while in flight), the reviewer's text and state (through its :class:`Review`), the flags, and
whether the block is waiting, in flight or failed.

It knows no revisions: the session that owns it (fastdesk.review.session.DocumentSession) drops
the engine's stale events before they come here; here only events for a block the current
document no longer holds are dropped.

Segments: a block's text as a QTextDocument holds it (``\\n`` line ends, UTF-16 length). The
model keeps one per block and remakes only those of blocks that changed, handing the others on
as the same objects, so that a pane's diff skips them by identity (a delivery at 7,000 blocks costs
what its changed blocks cost, not what the document costs).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from fastdesk.document.blocks import Document
from fastdesk.document.target import TargetView
from fastdesk.document.text_ends import common_prefix, common_suffix
from fastdesk.review.model import STATE_STYLES, STATES, Review, Snapshot, StateStyle
from fastdesk.review.quality import Marks, Underline
from fastdesk.translate.events import (
    BlockDelta,
    BlockDone,
    BlockFailed,
    BlockStarted,
    EngineEvent,
)
from fastdesk.translate.mqm import QualityReview


@dataclass(frozen=True)
class Segment:
    key: str  # the source block's id ("" for text outside any block)
    text: str  # with "\n" line ends
    qlen: int  # length in UTF-16 code units


def normalize(text: str) -> str:
    """Line ends as a QTextDocument stores them (it turns CRLF and CR into one block break)."""
    if "\r" not in text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


def qt_len(text: str) -> int:
    """Length in UTF-16 code units: characters outside the BMP (emoji) count two."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le")) // 2


def segment(key: str, text: str) -> Segment:
    text = normalize(text)
    return Segment(key, text, qt_len(text))


_BLOCK_EVENTS = (BlockStarted, BlockDelta, BlockDone, BlockFailed)
# The one vocabulary of block states (TargetModel.state_of): the review's nine, and the engine's
# "failed" (the last request failed) and "retrying" (in flight again after a failure).
BLOCK_STATES = (*STATES, "failed", "retrying")
# How each looks in the target's margin: a failed block as a flagged one (the review flags it
# "failed"), a retrying one as any block in flight.
BLOCK_STYLES: dict[str, StateStyle] = {
    **STATE_STYLES,
    "failed": STATE_STYLES["flagged"],
    "retrying": STATE_STYLES["in_flight"],
}
KEPT_STATES = frozenset({"stale_edit", "approved", "edited"})  # a reviewer's text stands
# status_of → what an export of the block would be (finished blocks are not named)
_UNFINISHED = {
    "waiting": "waiting",
    "in_flight": "waiting",
    "failed": "failed",
    "retrying": "failed",
}


class TargetModel:
    """See the module docstring."""

    def __init__(self, review: Review) -> None:
        self.review = review
        self.doc: Document | None = None
        self._streaming: dict[str, str] = {}  # block id → answer so far (in flight)
        self._fallback: dict[str, str] = {}  # block id → last good text while it has no answer
        self._segments: list[Segment] = []
        self._index: dict[str, int] = {}
        self._dirty: set[str] = set()
        self._all_dirty = False
        self._seen = review.generation  # the review's generation the segments were made for
        self._frozen: tuple[Segment, ...] = ()
        self._frozen_ok = True
        self._pending: frozenset[str] = frozenset()
        self._pending_of: tuple[object, ...] = ()
        self.marks = Marks()  # the reviewer model's verdicts (fastdesk.review.quality)

    # ---- inputs -----------------------------------------------------------------------------

    def set_review(self, review: Review) -> None:
        """Another review becomes active (language or mode switched, a file opened)."""
        self.review = review
        self.marks.clear()  # verdicts on the other review's answers
        self._streaming.clear()
        if self.doc is not None and review.doc is not self.doc:
            review.realign(self.doc)
        self._all_dirty = True

    def reset(self, review: Review) -> None:
        """A new document: nothing shown until its first revision is parsed."""
        self.doc = None
        self._fallback.clear()
        self._segments, self._index = [], {}
        self.set_review(review)

    def set_doc(self, doc: Document) -> list[str]:
        """A new revision of the source. A block with no answer yet keeps the text it showed
        (by id, else the block at its position when the block count is unchanged: an edited
        paragraph keeps its last good translation), else shows its source. Returns the blocks
        whose reviewer's text went stale."""
        if doc is self.doc:
            return []
        if self.doc is not None:
            self.segments()  # what the previous revision showed, up to date
        before = self._segments
        same_count = len(before) == len(doc.blocks)
        stale = self.review.realign(doc) if self.review.doc is not doc else []
        self.doc = doc
        self._index = present = {b.id: i for i, b in enumerate(doc.blocks)}
        self._streaming = {k: v for k, v in self._streaming.items() if k in present}
        # An edit changes a few blocks: those before and after them keep their segments (at
        # 7,000 blocks remaking every one cost the GUI thread ~20 ms an edit).
        old_ids = [seg.key for seg in before]
        new_ids = list(present)
        head = common_prefix(old_ids, new_ids)
        tail = common_suffix(old_ids, new_ids, min(len(old_ids), len(new_ids)) - head)
        middle = range(head, len(new_ids) - tail)
        old = {seg.key: seg for seg in before[head : len(before) - tail]}
        fallback = self._fallback = {
            k: v for k, v in self._fallback.items() if k in present and k not in old
        }
        made: list[Segment] = []
        for i in middle:
            block = doc.blocks[i]
            bid = block.id
            fallback.pop(bid, None)
            if self.review.shown_text(bid) is None and bid not in self._streaming:
                prev = old.get(bid)
                if prev is None and same_count:
                    prev = before[i]
                if prev is not None and prev.text != normalize(block.text):
                    fallback[bid] = prev.text
            made.append(self._make(bid, old.get(bid)))
        self._segments = [*before[:head], *made, *before[len(before) - tail :]]
        self._frozen_ok = False
        self._dirty.clear()
        self._all_dirty = False
        self._seen = self.review.generation
        return stale

    def apply(self, events: Iterable[EngineEvent]) -> bool:
        """The engine's events of the current review (the session dropped stale ones); True
        when a block's state or text changed."""
        review = self.review
        changed = False
        mine = self.review.generation == self._seen
        events = list(events)
        if self.marks.apply(events, review):  # the reviewer model's verdicts: news too
            changed = True
        for event in events:
            if not isinstance(event, _BLOCK_EVENTS):
                continue
            bid = event.block_id
            if bid not in self._index:
                continue  # a block the document no longer holds
            if isinstance(event, BlockDelta):
                if review.is_kept(bid) or self._streaming.get(bid) == event.text:
                    continue
                self._streaming[bid] = event.text
                self._dirty.add(bid)
                continue
            if isinstance(event, BlockDone) and self._repeats(event):
                self._streaming.pop(bid, None)
                self._dirty.add(bid)
                continue
            if isinstance(event, BlockDone | BlockFailed):
                self._streaming.pop(bid, None)
                self._dirty.add(bid)
            changed |= review.apply_event(event)
            if isinstance(event, BlockDone):
                self._fallback.pop(bid, None)
        if mine:
            self._seen = review.generation
        return changed

    def idle(self) -> bool:
        """The session has nothing in flight: partial answers left (cancelled work) go. True
        when there were any (blocks in flight or streaming forgotten)."""
        before = self.review.generation
        self.review.clear_in_flight()
        forgot = bool(self._streaming) or self.review.generation != before
        if self._streaming:
            self._dirty.update(self._streaming)
            self._streaming.clear()
        return forgot

    def touch(self, block_ids: Iterable[str] = ()) -> None:
        """The review changed outside the engine's events (a reviewer's action)."""
        self._dirty.update(block_ids)

    def reviewed(self, before: int, block_ids: Iterable[str]) -> None:
        """The reviewer changed these blocks alone since the review's generation ``before``:
        when the model had seen the review up to then, only they are looked at again (an edit
        or an undo at 7,000 blocks costs its blocks, not the document)."""
        self.touch(block_ids)
        if self._seen == before:
            self._seen = self.review.generation

    def restore(self, snapshot: Snapshot) -> list[str]:
        """Undo or redo of the reviewer's: their records of ``snapshot`` put back (see
        Review.restore); returns the blocks whose text or state changed."""
        before = self.review.generation
        changed = self.review.restore(snapshot)
        self.reviewed(before, changed)
        return changed

    # ---- outputs ----------------------------------------------------------------------------

    def segments(self) -> tuple[Segment, ...]:
        """What the target panes show, one segment per block (the same tuple while unchanged)."""
        if self.review.generation != self._seen:  # the reviewer did something: look at all
            self._all_dirty = True
            self._seen = self.review.generation
        if self._all_dirty:
            self._dirty = set(self._index)
            self._all_dirty = False
        if self._dirty:
            index, segs = self._index, self._segments
            for bid in self._dirty:
                i = index.get(bid)
                if i is not None:
                    new = self._make(bid, segs[i])
                    if new is not segs[i]:
                        segs[i] = new
                        self._frozen_ok = False
            self._dirty.clear()
        if not self._frozen_ok:
            self._frozen = tuple(self._segments)
            self._frozen_ok = True
        return self._frozen

    def text_of(self, block_id: str, *, final: bool = False) -> str:
        """The block's shown text: the reviewer's, else the streaming answer (unless
        ``final``), else the machine's, else its last good text, else its source."""
        review = self.review
        if not final and block_id in self._streaming and not review.is_kept(block_id):
            return self._streaming[block_id]
        text = review.shown_text(block_id)
        if text is not None:
            return text
        if block_id in self._fallback:
            return self._fallback[block_id]
        assert self.doc is not None
        return self.doc.by_id(block_id).text

    def export_text(self) -> str:
        """The whole target as exported: what each block shows, partial answers left out."""
        if self.doc is None:
            return ""
        return "".join(normalize(self.text_of(b.id, final=True)) for b in self.doc.blocks)

    def view(self) -> TargetView:
        """The shown target as a TargetView (for attributing a reviewer's edit to blocks)."""
        spans: list[tuple[str, int, int]] = []
        pos = 0
        segs = self.segments()
        for seg in segs:
            spans.append((seg.key, pos, pos + len(seg.text)))
            pos += len(seg.text)
        return TargetView("".join(s.text for s in segs), tuple(spans), self.pending)

    @property
    def pending(self) -> frozenset[str]:
        """Blocks with no answer yet (waiting or in flight); worked out again only when the
        review or the document changed (~1.4 ms at 7,000 blocks, and the window asks often)."""
        if self.doc is None:
            return frozenset()
        token = (self.review.generation, id(self.review), self.doc)
        if token != self._pending_of:
            keys = self._index.keys()
            self._pending = frozenset(keys - self.review.answered(keys))
            self._pending_of = token
        return self._pending

    @property
    def streaming(self) -> frozenset[str]:
        return frozenset(self._streaming)

    def in_flight(self, block_id: str) -> bool:
        """The block is being translated: its answer streams in, or the review says it was
        asked (the one test of "in flight": the problems list and the states ask it)."""
        return block_id in self._streaming or self.review.state_of(block_id) == "in_flight"

    def _failed(self, block_id: str) -> bool:
        return any(f.check == "failed" for f in self.review.flags_of(block_id))

    def state_of(self, block_id: str) -> str:
        """The block's state in one vocabulary (BLOCK_STATES): the review's (Review.state_of)
        where a reviewer's text stands (stale_edit, approved, edited), else the engine's side
        where it says more (in_flight, retrying: in flight again after a failure, failed: the
        last request failed), else the review's (pending, flagged, memory, copy, machine)."""
        state = self.review.state_of(block_id)
        if state in KEPT_STATES:
            return state
        failed = self._failed(block_id)
        if self.in_flight(block_id):
            return "retrying" if failed else "in_flight"
        return "failed" if failed else state

    def status_of(self, block_id: str) -> str:
        """waiting | in_flight | retrying | failed | done: the engine's side of a block (what
        an export would call it), a reviewer's text or not."""
        failed = self._failed(block_id)
        if self.in_flight(block_id):
            return "retrying" if failed else "in_flight"
        if failed:
            return "failed"
        return "waiting" if self.review.state_of(block_id) == "pending" else "done"

    def failed(self) -> list[str]:
        """Blocks whose last request failed and that show no reviewer's text, in document
        order: what Retry Failed Blocks sends again."""
        return [bid for bid in self._index if self.state_of(bid) == "failed"]

    def unfinished(self) -> tuple[int, int, int]:
        """(waiting, failed, flagged) block counts: what an export would write unfinished.
        Waiting: no answer yet; failed: the last request failed (a retry in flight included);
        flagged: an answer that failed a check. A block showing a reviewer's text is finished."""
        review = self.review
        counts = {"waiting": 0, "failed": 0, "flagged": 0}
        for bid in self._index:
            if review.is_kept(bid):
                continue
            kind = _UNFINISHED.get(self.status_of(bid))
            if kind is None and review.state_of(bid) == "flagged":
                kind = "flagged"
            if kind is not None:
                counts[kind] += 1
        return counts["waiting"], counts["failed"], counts["flagged"]

    def index_of(self, block_id: str) -> int | None:
        return self._index.get(block_id)

    # ---- the reviewer model's verdicts (fastdesk.review.quality) ----------------------------

    def quality_of(self, block_id: str) -> QualityReview | None:
        """The verdict on what the block shows (None: none, or the editor corrected it)."""
        return self.marks.of(block_id, self.review)

    def underlines(self, block_id: str) -> list[Underline]:
        """The block's errors as spans of its text in the target pane (UTF-16 offsets)."""
        spans = self.marks.spans(block_id, self.review)
        if not spans:
            return []
        text = self.marks.machine_text(block_id)
        return [
            Underline(qt_len(normalize(text[:a])), qt_len(normalize(text[:b])), error)
            for a, b, error in spans
        ]

    def judged_underlines(self) -> dict[str, tuple[str, list[Underline]]]:
        """Per block of the document with errors on show: (its text as the pane holds it, the
        underlines), so that a pane marks a block only while it shows that text."""
        out = {}
        for bid in self.marks.judged():
            lines = self.underlines(bid) if bid in self._index else []
            if lines:
                out[bid] = (normalize(self.marks.machine_text(bid)), lines)
        return out

    def document_score(self) -> float | None:
        """The document's score: its shown blocks' verdicts together (None: none judged)."""
        return self.marks.document_score(self.review, self._index)

    def block_ids(self, first: int, last: int) -> list[str]:
        """Ids of the blocks ``first``..``last`` (inclusive, clamped)."""
        if self.doc is None:
            return []
        blocks = self.doc.blocks
        return [b.id for b in blocks[max(0, first) : max(0, last + 1)]]

    # ---- internals --------------------------------------------------------------------------

    def _make(self, bid: str, old: Segment | None) -> Segment:
        text = normalize(self.text_of(bid))
        if old is not None and old.key == bid and old.text == text:
            return old
        return Segment(bid, text, qt_len(text))

    def _repeats(self, event: BlockDone) -> bool:
        """The memory giving back the answer the review already has (a reopened document):
        kept as it was, so that reopening restores the review exactly."""
        if event.origin != "memory":
            return False
        info = self.review.info(event.block_id)
        return (
            info.state != "in_flight" and info.machine == event.text and info.flags == event.flags
        )


def joined(parts: Sequence[Segment]) -> str:
    return "".join(p.text for p in parts)
