"""What the engine worker sends the window (``Delivery``) and how the next one is put
together from the worker's parts (``DeliveryBuilder``): only what changed since the last one, so
the GUI thread does no parsing and hears nothing twice. Loop thread only, but for the delivery
itself (frozen), which crosses to the GUI thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from fastdesk.document.blocks import Document
from fastdesk.review.target_model import Segment
from fastdesk.translate.events import BlockFailed, EngineEvent
from fastdesk.ui.bridge.engine_news import EngineNews
from fastdesk.ui.bridge.estimate import PlanEstimate
from fastdesk.ui.bridge.outbox import Outbox
from fastdesk.ui.bridge.pane_translators import PaneTranslators
from fastdesk.ui.bridge.sent_document import SentDocument
from fastdesk.ui.bridge.translators import Translator

if TYPE_CHECKING:  # the engine and its SDKs load in the worker thread, not at start-up
    from fastdesk.routing.health import HealthEntry
    from fastdesk.routing.limiter import Headroom
    from fastdesk.translate.engine import Engine
    from fastdesk.translate.job import JobSpec


@dataclass(frozen=True)
class Delivery:
    """What changed since the last delivery. ``revision``: the newest one the worker was given."""

    revision: int
    events: tuple[EngineEvent, ...] = ()
    source: tuple[Segment, ...] | None = None  # the source's blocks (for mapping); None: unchanged
    busy: bool = False
    providers: tuple[str, ...] | None = None  # configured providers, once the engine is built
    health: tuple[HealthEntry, ...] | None = None  # router.health_report() when it changed
    doc: Document | None = None  # the parsed source when it changed; None: unchanged
    # one-line warnings to show once: a key going over plain http, the memory not in use
    notices: tuple[str, ...] = ()
    # how long the document will take at the account's limits ("" : nothing worth saying)
    estimate: str = ""
    # the seconds a block takes at those limits, from the same plan (0: not slowed by them;
    # None: nothing new), the review bar's pace until the arrivals show one (review.backlog)
    block_s: float | None = None
    # with failed blocks among the events: seconds until their provider may be asked again
    # (Router.usable_in_s; math.inf: not by itself), for the window's retry of them
    usable_in_s: float | None = None
    # (pane key, its block events) of each second target pane with news (see open_pane)
    panes: tuple[tuple[str, tuple[EngineEvent, ...]], ...] = ()
    # the top choice's room at the limiter as the delivery left (None: no engine or no choice),
    # for the GUI thread's sending policy: it reads it here, never the engine thread's state
    headroom: Headroom | None = None

    def pane_events(self, key: str) -> tuple[EngineEvent, ...]:
        return next((events for k, events in self.panes if k == key), ())


class DeliveryBuilder:
    """The next delivery, from what the worker's parts hold; it remembers what the last one said
    (the document sent, busy or not). ``force``: the next collect answers even if nothing
    changed (an update always gets one: it ends "busy")."""

    def __init__(
        self, outbox: Outbox, estimate: PlanEstimate, panes: PaneTranslators, news: EngineNews
    ) -> None:
        self._outbox = outbox
        self._estimate = estimate
        self._panes = panes
        self._news = news
        self._sent_doc = SentDocument()
        self.sent_busy = False
        self.force = False
        self._sent_headroom: Headroom | None = None

    def collect(
        self,
        revision: int,
        source_text: str,
        translator: Translator | None,
        engine: Engine | None,
        spec: JobSpec,
        headroom: Headroom | None = None,
    ) -> Delivery | None:
        """What changed since the last delivery, or None when nothing did (and none is forced).
        ``headroom``: the limiter's room now; a change of it is news too."""
        events = self._outbox.take()
        new_doc, source = self._sent_doc.news(translator, source_text) or (None, None)
        busy = translator is not None and (translator.busy or self._panes.busy)
        router = None if engine is None else engine.router
        providers, health = self._news.take(router)
        memory = engine.memory if engine is not None else None
        # the memory's notice is looked at on every delivery (it can break later)
        notices = self._outbox.take_notices(memory.notice if memory is not None else None)
        panes = self._panes.take()
        quiet = not events and not panes and source is None and busy == self.sent_busy
        quiet = quiet and providers is None and health is None and not notices
        quiet = quiet and not self._estimate.pending and headroom == self._sent_headroom
        if quiet and not self.force:
            return None
        self.force = False
        self.sent_busy = busy
        self._sent_headroom = headroom
        failed = any(isinstance(e, BlockFailed) for e in events)
        estimate, block_s = self._estimate.take()
        return Delivery(
            revision,
            events,
            source=source,
            busy=busy,
            providers=providers,
            health=health,
            doc=new_doc,
            notices=notices,
            estimate=estimate,
            block_s=block_s,
            usable_in_s=self._news.usable_in_s(router, spec) if failed else None,
            panes=panes,
            headroom=headroom,
        )
