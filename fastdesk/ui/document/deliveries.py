"""The engine worker's deliveries, read in the GUI thread: each is read once, by the document's
session (fastdesk.review.session.DocumentSession.take), and what the session does not keep goes
where it belongs: the rendered view's contexts and expansions, the window's engine news, the
retry schedule's timer, the source's blocks, the second target pane; then the panes converge to
the target model."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Slot

from fastdesk.document.html import contexts
from fastdesk.review.session import DocumentSession
from fastdesk.translate.events import BlockDone, BlockFailed, EngineEvent, Expansion
from fastdesk.ui.bridge.delivery import Delivery
from fastdesk.ui.bridge.threads import gui_first
from fastdesk.ui.document.heal import Healer
from fastdesk.ui.document.second_target import SecondPane
from fastdesk.ui.panes.incremental import RenderScheduler
from fastdesk.ui.panes.preview import TargetPreview
from fastdesk.ui.panes.render import Segment

if TYPE_CHECKING:
    from fastdesk.routing.limiter import Headroom


class DeliveryReader(QObject):
    """Reads the deliveries of one document's worker (``on_delivery``, connected queued).
    ``news(delivery)``: the window hears of each; ``source(blocks)``: the source's blocks as the
    worker parsed them, when they changed; ``refresh(final)``: the panes converge to the model;
    ``say(text, ms)``: a passing status-bar message."""

    def __init__(
        self,
        session: DocumentSession,
        preview: TargetPreview,
        scheduler: RenderScheduler,
        healer: Healer,
        second: SecondPane,
        *,
        news: Callable[[Delivery], None],
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
        # the top choice's room at the limiter, as the last delivery said (the sending policy's)
        self.headroom: Headroom | None = None

    @Slot(object)  # a declared slot: PySide's cross-thread delivery is safest with one
    def on_delivery(self, delivery: Delivery) -> None:
        with gui_first():
            self.apply(delivery)

    def apply(self, delivery: Delivery) -> None:
        """The delivery is read once, by the session (see DocumentView._session_changed for what
        follows)."""
        self.headroom = delivery.headroom
        self._session.take(
            delivery.revision,
            delivery.events,
            doc=delivery.doc,
            busy=delivery.busy,
            usable_in_s=delivery.usable_in_s,
            block_s=delivery.block_s,
        )
        if delivery.doc is not None:
            self._preview.set_contexts(contexts(delivery.doc))  # references, list numbers
            self._scheduler.kick()  # a block whose context changed renders again
        self._news(delivery)
        self._healer.follow()  # the session's retry schedule, armed or cancelled
        for event in delivery.events:
            if isinstance(event, Expansion):
                self._preview.set_expansion(event.block_id, event.text)
                self._scheduler.kick()
                if event.done:
                    self._say("Section expanded (marked as generated)", 4000)
        if delivery.source is not None:
            self._source(delivery.source)
        self._second.take(delivery)  # the second target pane's share, if one is open
        # only partial answers that grew: a hidden raw pane waits for a pause (RenderScheduler)
        self._refresh(delivery.doc is not None or any(map(_final, delivery.events)))


def _final(event: EngineEvent) -> bool:
    """The event settles a block (not a partial answer that grew)."""
    return isinstance(event, BlockDone | BlockFailed)
