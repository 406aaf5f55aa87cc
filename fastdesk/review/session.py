"""The open document's session in one language (Qt-free): the one owner of its state.

What it owns, and why here:

* the revision counter (:class:`Revisions`): every source sent to the engine gets the next
  number; the engine's threads carry the number they were given back with their events, and
  the comparison (stale or current) is made here and only here: an event older than the last
  mode or language change is dropped, a document older than the last one opened is ignored, and
  only events of the newest revision speak for the document's busy state and status;
* the target model (fastdesk.review.target_model.TargetModel) over the active Review: what the
  target shows, block by block, the in-flight set and the one vocabulary of block states;
* the retry schedule of failed blocks (:class:`RetrySchedule`): when, the backoff, cancelled by
  an edit; its countdown goes out in the stream (a Qt timer only wakes it up,
  fastdesk.ui.document.heal.Healer);
* the backlog (fastdesk.review.backlog.Backlog): the blocks queued for a slot ("queued, about
  12 s") and the pace of a rate-limited document ("138 to come, about 9 min");
* one stream of what changed (:class:`Change`, declared effects) that the views subscribe to:
  the target panes, the margin, the review bar, the problems list, the status bar and the
  window. A delivery of the engine worker's is read once, here.

The window's widgets are views of it; the undo stack and the second target pane talk to it, not
to the widget that shows the document.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from fastdesk.clock import Clock, SystemClock, duration
from fastdesk.document.blocks import Document
from fastdesk.review.backlog import Backlog
from fastdesk.review.model import Review
from fastdesk.review.target_model import TargetModel
from fastdesk.translate.events import (
    BlockDelta,
    BlockDone,
    BlockFailed,
    BlockReviewed,
    BlockStarted,
    EngineEvent,
    RequestDone,
    RevisionDone,
)

__all__ = [
    "BACKOFF_S",
    "Change",
    "DocumentSession",
    "RetrySchedule",
    "Revisions",
    "duration",
    "failed_blocks",
]

BACKOFF_S = (30.0, 60.0, 120.0)  # the last one repeats
# a block's own news (a reviewer model's verdict too: the panes mark its errors)
_BLOCK_EVENTS = (BlockStarted, BlockDelta, BlockDone, BlockFailed, BlockReviewed)


class Revisions:
    """A document's revision counter, shared by its sessions (the second target pane's too):
    every source sent to the engine gets the next number."""

    def __init__(self) -> None:
        self.current = 0

    def next(self) -> int:
        self.current += 1
        return self.current


@dataclass(frozen=True)
class Change:
    """What changed, as declared effects (a subscriber repaints what they name, no more).

    ``blocks``: blocks whose state, text or "queued" mark changed (None: any may have).
    ``review``: states, marks or counts changed (the margin, the review bar, the problems list).
    ``target``: what the target panes show may differ. ``busy``: the newest revision's work is
    in flight or not (None: not said). ``stale_edits``: blocks whose source just changed under a
    reviewer's text. ``failed``: blocks of the current revision that just failed.
    ``revision_done``: the newest revision settled. ``news``: the engine's word on requests,
    errors and waits (the status bar's). ``retry``: the pending retry of failed blocks, counting
    down ("4 failed blocks: retrying in 25 s"; "": none any more; None: not said)."""

    blocks: frozenset[str] | None = frozenset()
    review: bool = False
    target: bool = False
    busy: bool | None = None
    stale_edits: tuple[str, ...] = ()
    failed: int = 0
    revision_done: RevisionDone | None = None
    news: tuple[EngineEvent, ...] = field(default=())
    retry: str | None = None


Subscriber = Callable[[Change], None]


class RetrySchedule:
    """One pending retry of a document's failed blocks: retried once their provider is usable
    again (what the core says: health cooldowns, retry-afters, the rate limiter's windows), and
    no sooner than a backoff that grows with each automatic retry that failed again (30 s, 60 s,
    then 120 s; a success starts it over). An edit cancels it (it sends the failed blocks
    anyway). ``clock`` is the window's one clock (fastdesk.clock), injectable so that tests
    move time by hand; a Qt timer wakes :meth:`poll` up."""

    def __init__(self, clock: Clock | None = None, backoff_s: Sequence[float] = BACKOFF_S) -> None:
        self.clock: Clock = clock or SystemClock()
        self.backoff_s = tuple(backoff_s)
        self.due_at: float | None = None  # clock time of the pending retry
        self.count = 0
        self.level = 0  # automatic retries in a row that failed again
        self.text = ""  # what the status bar shows ("": nothing pending)

    def arm(self, failed: int, usable_in_s: float | None) -> None:
        """``failed`` blocks failed, and their provider may be asked again in ``usable_in_s``
        (None: unknown, taken as now; ``math.inf``: not by itself, e.g. a refused key)."""
        self.count = failed
        wait = max(usable_in_s or 0.0, self.backoff_s[min(self.level, len(self.backoff_s) - 1)])
        if math.isinf(wait):
            self.due_at = None
            self.text = (
                f"{failed_blocks(failed)}: not retried by themselves until the provider is fixed"
            )
            return
        self.due_at = self.clock.monotonic() + wait

    def succeeded(self) -> None:
        """A request succeeded: the next failure waits the first step of the backoff again."""
        self.level = 0

    def cancel(self) -> None:
        self.due_at = None
        self.text = ""

    @property
    def pending(self) -> bool:
        """A retry is pending, or the failed blocks wait for the provider to be fixed."""
        return self.due_at is not None or bool(self.text)

    def seconds_left(self) -> int | None:
        """Whole seconds until the retry (rounded up), None when none is pending."""
        if self.due_at is None:
            return None
        return math.ceil(max(self.due_at - self.clock.monotonic(), 0.0))

    def poll(self) -> float | None:
        """Where the schedule stands now: None when nothing is pending, 0 when the retry is due
        (it is taken: the backoff steps up), else the seconds left (the text counts down)."""
        if self.due_at is None:
            return None
        left = self.due_at - self.clock.monotonic()
        if left <= 0:
            self.due_at = None
            self.level += 1
            self.text = ""
            return 0.0
        self.text = f"{failed_blocks(self.count)}: retrying in {duration(left)}"
        return left


class DocumentSession:
    """See the module docstring. ``revisions``: the document's counter (a second pane's session
    shares its first's); ``clock``: the retry schedule's, the window's one clock."""

    def __init__(
        self, review: Review, revisions: Revisions | None = None, *, clock: Clock | None = None
    ) -> None:
        self.revisions = revisions if revisions is not None else Revisions()
        self.model = TargetModel(review)
        self.retry = RetrySchedule(clock)
        self.backlog = Backlog(self.retry.clock)  # blocks queued for a slot, the pace (backlog.py)
        self.floor = 0  # events of older revisions are dropped (the previous mode or language)
        self.doc_floor = 0  # documents of older revisions are ignored (the previous file)
        self._subscribers: list[Subscriber] = []
        self._retry_said = ""  # the retry text last published
        self._told: tuple[Review, int] | None = None  # the review and generation last published
        self._settled = False  # the last delivery taken found the engine idle, nothing forgotten

    # ---- the stream ----------------------------------------------------------------------------

    def subscribe(self, subscriber: Subscriber) -> Callable[[], None]:
        """Call ``subscriber`` with each Change; returns what unsubscribes it."""
        self._subscribers.append(subscriber)
        return lambda: self._subscribers.remove(subscriber)

    def publish(self, change: Change) -> None:
        self._told = (self.review, self.review.generation)
        for subscriber in tuple(self._subscribers):
            subscriber(change)

    # ---- the retry schedule's countdown -------------------------------------------------------

    def poll_retry(self) -> float | None:
        """The schedule woken up (by a timer, or after it was armed or cancelled): where it
        stands (RetrySchedule.poll), and its text, when that changed, into the stream."""
        left = self.retry.poll()
        self._say_retry()
        return left

    def cancel_retry(self) -> None:
        """An edit (or Retry Failed Blocks) sends the failed blocks anyway."""
        self.retry.cancel()
        self._say_retry()

    def _say_retry(self) -> None:
        if self.retry.text != self._retry_said:
            self._retry_said = self.retry.text
            self.publish(Change(retry=self.retry.text))

    # ---- revisions and the rule for stale events -----------------------------------------------

    @property
    def revision(self) -> int:
        """The newest revision sent to the engine."""
        return self.revisions.current

    def next_revision(self) -> int:
        return self.revisions.next()

    def stale(self, revision: int) -> bool:
        """An event of ``revision`` belongs to the previous mode, language or document."""
        return revision < self.floor

    def current(self, revision: int) -> bool:
        """``revision`` is the newest one sent: its word on busy and settled counts."""
        return revision >= self.revisions.current

    # ---- inputs --------------------------------------------------------------------------------

    @property
    def review(self) -> Review:
        return self.model.review

    @property
    def doc(self) -> Document | None:
        return self.model.doc

    def switch(self, review: Review, floor: int) -> None:
        """Another review becomes active (language or mode switched): events from before
        ``floor`` belong to the previous one."""
        self.floor = floor
        self.model.set_review(review)

    def reset(self, review: Review, floor: int) -> None:
        """A new document: nothing shown until its first revision (``floor``) is parsed."""
        self.doc_floor = floor
        self.floor = floor
        self.model.reset(review)

    def set_doc(self, doc: Document, revision: int) -> list[str]:
        """A new revision of the source (ignored when older than the document's first);
        returns the blocks whose reviewer's text went stale."""
        if revision < self.doc_floor:
            return []
        return self.model.set_doc(doc)

    def raise_doc_floor(self, floor: int) -> int:
        """The source was replaced at once (from disk): the engine's older documents are
        ignored. Returns the floor now."""
        self.doc_floor = max(self.doc_floor, floor)
        return self.doc_floor

    def apply(self, events: Iterable[EngineEvent]) -> bool:
        """The engine's block events, stale ones dropped; True when a block's state or text
        changed."""
        return self.model.apply(e for e in events if not self.stale(e.revision))

    def take(
        self,
        revision: int,
        events: Sequence[EngineEvent],
        *,
        doc: Document | None = None,
        busy: bool = False,
        usable_in_s: float | None = None,
        block_s: float | None = None,
    ) -> Change:
        """One delivery of the engine worker's (newest revision ``revision``), read once: the
        document, the events, the retry schedule, the pace the account's limits allow (``block_s``,
        seconds a block: Backlog.expect); the Change is published and returned."""
        before = self.review.generation
        told = self._told
        untold = told is None or told[0] is not self.review or told[1] != before
        stale_edits = self.set_doc(doc, revision) if doc is not None else []
        changed = self.apply(events)
        # the work settled: what was in flight is forgotten, any block may have changed; once
        # settled, a delivery (the reviewer model's verdicts, say) names its blocks again
        settled = not busy and not self.model.idle() and self._settled
        self._settled = not busy
        if block_s is not None:
            self.backlog.expect(block_s)
        queued = self.backlog.take(e for e in events if not self.stale(e.revision))
        if not busy:
            queued |= self.backlog.idle()
        failed_now = [
            e for e in events if isinstance(e, BlockFailed) and e.revision >= self.revision
        ]
        if any(isinstance(e, RequestDone) and e.stats.status == "ok" for e in events):
            self.retry.succeeded()
        if any(isinstance(e, BlockFailed) for e in events):
            failed = len(self.model.failed())
            if failed:
                self.retry.arm(failed, usable_in_s)
        elif self.retry.pending and not self.model.failed():
            self.retry.cancel()  # translated meanwhile (a new engine, say): nothing to retry
        done = next(
            (e for e in events if isinstance(e, RevisionDone) and e.revision == self.revision),
            None,
        )
        change = Change(
            # a new revision of the source, the work settling (what was in flight is forgotten)
            # or the review changed since the last change told of it: any block may have
            blocks=frozenset(e.block_id for e in events if isinstance(e, _BLOCK_EVENTS)) | queued
            if doc is None and (busy or settled) and not untold
            else None,
            review=changed or self.review.generation != before or bool(queued),
            target=True,
            busy=busy if self.current(revision) else None,
            stale_edits=tuple(stale_edits),
            failed=len(failed_now),
            revision_done=done,
            news=tuple(e for e in events if not isinstance(e, _BLOCK_EVENTS)),
        )
        self.publish(change)
        return change


def failed_blocks(n: int) -> str:
    return f"{n} failed block" + ("" if n == 1 else "s")
