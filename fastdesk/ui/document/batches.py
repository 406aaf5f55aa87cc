"""The engine worker's batches, read in the GUI thread: each is read once, by the document's
session (fastdesk.review.session.TargetSession.take), and what the session does not keep goes
where it belongs: the rendered view's contexts and expansions, the window's engine news, the
retry schedule's timer, the source's blocks, the second target pane; then the panes converge to
the target model."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Slot

from fastdesk.document.html import contexts
from fastdesk.review.session import TargetSession
from fastdesk.translate.events import BlockDone, BlockFailed, EngineEvent, Expansion
from fastdesk.ui.bridge.batch import WorkerBatch
from fastdesk.ui.bridge.segments import Segment
from fastdesk.ui.bridge.threads import gui_first
from fastdesk.ui.document.heal import Healer
from fastdesk.ui.document.second_target import SecondPane
from fastdesk.ui.panes.incremental import RenderScheduler
from fastdesk.ui.panes.preview import TargetPreview


class BatchReader(QObject):
    """Reads the batches of one document's worker (``on_batch``, connected queued).
    ``news(batch)``: the window hears of each; ``source(blocks)``: the source's blocks as the
    worker parsed them, when they changed; ``refresh(final)``: the panes converge to the model;
    ``say(text, ms)``: a passing status-bar message."""

    def __init__(
        self,
        session: TargetSession,
        preview: TargetPreview,
        scheduler: RenderScheduler,
        healer: Healer,
        second: SecondPane,
        *,
        news: Callable[[WorkerBatch], None],
        source: Callable[[tuple[Segment, ...]], None],
        refresh: Callable[[bool], None],
        say: Callable[[str, int], None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._session = session
        self._preview = preview
        self._scheduler = scheduler
        self._healer = healer
        self._second = second
        self._news = news
        self._source = source
        self._refresh = refresh
        self._say = say

    @Slot(object)  # a declared slot: PySide's cross-thread delivery is safest with one
    def on_batch(self, batch: WorkerBatch) -> None:
        with gui_first():
            self.apply(batch)

    def apply(self, batch: WorkerBatch) -> None:
        """The batch is read once, by the session (see DocumentView._session_changed for what
        follows)."""
        self._session.take(
            batch.revision,
            batch.events,
            doc=batch.doc,
            busy=batch.busy,
            usable_in_s=batch.usable_in_s,
            block_s=batch.block_s,
        )
        if batch.doc is not None:
            self._preview.set_contexts(contexts(batch.doc))  # references, list numbers
            self._scheduler.kick()  # a block whose context changed renders again
        self._news(batch)
        self._healer.follow()  # the session's retry schedule, armed or cancelled
        for event in batch.events:
            if isinstance(event, Expansion):
                self._preview.set_expansion(event.block_id, event.text)
                self._scheduler.kick()
                if event.done:
                    self._say("Section expanded (marked as generated)", 4000)
        if batch.source is not None:
            self._source(batch.source)
        self._second.take(batch)  # the second target pane's share, if one is open
        # only partial answers that grew: a hidden raw pane waits for a pause (RenderScheduler)
        self._refresh(batch.doc is not None or any(map(_final, batch.events)))


def _final(event: EngineEvent) -> bool:
    """The event settles a block (not a partial answer that grew)."""
    return isinstance(event, BlockDone | BlockFailed)
