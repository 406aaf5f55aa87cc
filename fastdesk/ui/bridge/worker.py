"""The one background thread that owns the engine: an asyncio loop running the LiveTranslator.

GUI → worker: plain method calls that hand a closure to ``loop.call_soon_threadsafe`` (never a
lock the worker could hold). Worker → GUI: the ``delivered`` signal, emitted from the worker thread;
Qt queues it into the GUI thread. Deliveries are throttled (one per ``flush_interval`` at most while
a translation streams, the first at once) and carry the parsed document when it changed and the
engine's events (fastdesk.ui.bridge.delivery), so the GUI thread does no parsing. What the target
shows is composed from them by the window's one model of it
(fastdesk.review.target_model.TargetModel), not here.

Streaming: of a block's partial answers (BlockDelta) only the newest since the last delivery goes
(the Outbox holds them; the FlushThrottle times the deliveries).

Second target panes (``open_pane``): each is one more live translator on the same engine and loop
(fastdesk.ui.bridge.pane_translators). Another document opened (``open``) or a new house
(``rehouse``) plans the panes' translators again with the document's.

Time: the worker, its engine's router and the window read one clock (fastdesk.clock), so the
limiter's ``headroom`` (times of that clock) means the same in both threads; a delivery carries
waits (``usable_in_s``). An engine built on another clock does not start (its times would not
compare with the window's).
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from fastdesk.clock import Clock, SystemClock
from fastdesk.providers.base import RequestStats
from fastdesk.translate.events import (
    BlockDone,
    Emit,
    EngineError,
    EngineEvent,
    Planned,
    RequestDone,
)
from fastdesk.ui.bridge.delivery import DeliveryBuilder
from fastdesk.ui.bridge.engine_news import EngineNews
from fastdesk.ui.bridge.estimate import PlanEstimate
from fastdesk.ui.bridge.outbox import Outbox
from fastdesk.ui.bridge.pane_translators import PaneTranslators
from fastdesk.ui.bridge.tasks import Tasks, bounded, detail
from fastdesk.ui.bridge.threads import LoopThread, short_gil_turns
from fastdesk.ui.bridge.throttle import REQUEST_FIRST_S, FlushThrottle
from fastdesk.ui.bridge.translators import (
    Translator,
    close_engine,
    default_engine_factory,
    default_translator_factory,
)
from fastdesk.ui.bridge.warming import Warmer, preload_language

if TYPE_CHECKING:  # types only: the engine is built, its clients made, in the worker thread
    from fastdesk.routing.limiter import Headroom
    from fastdesk.routing.router import Router
    from fastdesk.translate.engine import Engine
    from fastdesk.translate.job import JobSpec

log = logging.getLogger("fastdesk.ui")

EngineFactory = Callable[[], "Engine"]
TranslatorFactory = Callable[["Engine", "JobSpec", Emit], Translator]


class EngineWorker(QObject):
    """Runs the engine in its own thread; see the module docstring for the protocol."""

    delivered = Signal(object)  # Delivery (fastdesk.ui.bridge.delivery)
    # block id, its translation, the translation back into the source's language ("": none)
    back_translated = Signal(str, str, str)

    def __init__(
        self,
        spec: JobSpec,
        *,
        engine_factory: EngineFactory | None = None,
        translator_factory: TranslatorFactory = default_translator_factory,
        flush_interval: float = 0.05,
        clock: Clock | None = None,
        parent: QObject | None = None,
    ) -> None:
        """``clock``: the window's one clock; the engine the factory builds (by default the
        app's, from the settings) must be on it."""
        super().__init__(parent)
        self.clock: Clock = clock or SystemClock()
        self._spec = spec
        # what every spec the window sends is completed with (the document's house: rehouse)
        self._prepare: Callable[[JobSpec], JobSpec] = lambda job: job
        self._replan = False  # a new house waits for the update that brings its document
        self._engine_factory = engine_factory or functools.partial(
            default_engine_factory, self.clock
        )
        self._translator_factory = translator_factory
        self._thread = LoopThread("fastdesk-engine", drain_s=0.2)
        self._loop = self._thread.loop
        self._stopping = False
        # loop-thread state
        self._engine: Engine | None = None
        self._translator: Translator | None = None
        self._revision = 0
        self._source = ""
        self.throttle = FlushThrottle(
            self._loop, self._flush, flush_interval, lambda: self._stopping
        )
        self._outbox = Outbox()
        self._estimate = PlanEstimate()
        self._tasks = Tasks()
        self._panes = PaneTranslators(
            self._tasks, guarded=self._guarded, shared=self._pane_shared, heard=self._heard
        )
        self._news = EngineNews(changed=self.throttle.schedule)
        self._deliveries = DeliveryBuilder(self._outbox, self._estimate, self._panes, self._news)
        self.warmer = Warmer(self.clock, self._tasks, headroom=self._headroom, billed=self._billed)

    # ---- GUI-thread API (each call returns at once) -------------------------------------------

    def start(self) -> None:
        short_gil_turns()  # the worker's Python code competes with the GUI thread for the GIL
        # the engine thread allocates a lot: garbage is collected on the GUI thread only
        self._thread.start()
        self._call(self._boot)

    def update(self, source: str, revision: int, view: tuple[int, int] | None = None) -> None:
        """A new revision of the source; ``view``: its first and last line on screen, if known
        (see ``set_view``)."""
        self._call(self._update, source, revision, view)

    def open(self, source: str, revision: int, view: tuple[int, int] | None = None) -> None:
        """Another document opened in the window: ``source`` is its first revision, every block
        planned again. Its review drops events of older revisions, and a block's id is its
        text's hash: a paragraph it shares with the last document, in flight or answered for
        that one, would otherwise never be answered for it (it stayed "to come")."""
        self._call(self._open, source, revision, view)

    def set_spec(self, spec: JobSpec, source: str, revision: int) -> None:
        """Mode, language or provider changed: re-plan everything for the current source."""
        self._call(self._set_spec, spec, source, revision)

    def rehouse(
        self, read: Callable[[], tuple[Callable[[JobSpec], JobSpec], bool]], source: str
    ) -> None:
        """Read what the document's jobs go with (its house: a project's glossary of 100,000
        terms takes seconds) in the engine's thread, so the window goes on meanwhile; in order
        with the updates, so one sent after this is translated with it. ``read()`` gives what
        completes each spec from then on and whether it changes the instructions (then the
        document is planned again: now if the engine has ``source``, the window's text, else
        with the update that brings it)."""
        self._call(self._rehouse, read, source)

    def retranslate(self, block_ids: Collection[str]) -> None:
        self._call(self._retranslate, tuple(block_ids))

    def expand(self, block_id: str) -> None:
        self._call(self._expand, block_id)

    def back_translate(self, block_id: str, text: str) -> None:
        """``text`` (the block's translation) back into the source's language: the answer
        comes as ``back_translated`` (fastdesk.translate.quality, cached in the memory)."""
        self._call(self._back_translate, block_id, text)

    def set_view(self, first_line: int, last_line: int) -> None:
        """The source's lines on screen (1-based): their blocks' waiting work goes next (after
        an edit's). The translator maps them to its blocks: nothing comes back for it."""
        self._call(self._set_view, first_line, last_line)

    def open_pane(self, key: str, spec: JobSpec) -> None:
        """A second target pane under ``key``: a live translator for ``spec`` on the current
        source (or a new spec for the one open under that key)."""
        self._call(self._open_pane, key, spec)

    def close_pane(self, key: str) -> None:
        """The pane is closed: its translator's work is cancelled and it hears no more edits."""
        self._call(self._panes.close, key)

    def warm_up(self, *, active: bool = False) -> None:
        """Warm the top choice up if nothing was asked for a while (fastdesk.translate.warmup);
        ``active``: the editor is typing, so a shorter while (the connection's keep-alive) and
        only with requests to spare at the limiter. The caller has checked the user's switch
        and the budget. Cheap to call often."""
        if self.warmer.ask():
            self._call(self._warm_up, active)

    @property
    def running(self) -> bool:
        return self._thread.running

    @property
    def native_id(self) -> int | None:
        """The worker thread's id for the OS (None before it starts)."""
        return self._thread.native_id

    def stop(self, timeout: float = 1.0) -> bool:
        """Cancel what is in flight and end the thread; True when it ended within `timeout`."""
        if self._thread.running:
            self._stopping = True
            self._call(self._shutdown_soon)  # which stops the loop once the translator is closed
        return self._thread.join(timeout)

    def _call(self, fn: Callable[..., object], *args: object) -> None:
        self._thread.call(fn, *args)

    # ---- the thread ------------------------------------------------------------------------------

    def _boot(self) -> None:
        try:
            self._engine = self._engine_factory()
            if self._engine.router.clock != self.clock:
                raise ValueError(
                    "the engine's clock is not the window's (build its router with the clock "
                    "the window was given)"
                )
            self._translator = self._translator_factory(self._engine, self._spec, self._on_event)
        except Exception as exc:  # no provider configured, a broken settings value …
            log.warning("engine not started: %s", exc)
            self._engine = self._translator = None
            self._outbox.add(
                EngineError(self._revision, str(exc) or type(exc).__name__, detail(exc), "startup")
            )
            self._news.not_started()
        else:
            self._news.started(self._engine.router, self._outbox.notify)
            self._tasks.keep(asyncio.ensure_future(preload_language(lambda: self._spec)))
        self.throttle.schedule()

    def _update(self, source: str, revision: int, view: tuple[int, int] | None = None) -> None:
        self._revision = revision
        self._source = source
        if view is not None:
            self._set_view(*view)
        if self._translator is not None:
            self._guarded(self._translator.update, source, revision)
            self._estimate.first(revision)
        self._panes.update(source, revision)
        if self._replan and self._translator is not None:
            # the house read before this update, or another document: planned with it
            self._replan = False
            self._replan_all()
        self._deliveries.force = True  # an update is always answered, even unchanged ("busy" ends)
        self.throttle.schedule(at_least=REQUEST_FIRST_S)

    def _open(self, source: str, revision: int, view: tuple[int, int] | None = None) -> None:
        # the last document's runs are cancelled and its answers forgotten (the memory has
        # them), with the spec the engine has: the house's, read or still to be read (rehouse);
        # the second panes' translators too (each pane's review drops the last document's events)
        self._outbox.forget_partial()
        self._panes.forget_partial()
        self._replan = True
        self._update(source, revision, view)

    def _replan_all(self) -> None:
        """Every translator plans every block again: the document's with the engine's spec, each
        second pane's with its own completed by the house (``_prepare``) as it is now."""
        if self._translator is not None:
            self._guarded(self._translator.set_spec, self._spec)
            self._estimate.replanned(self._revision)  # its runs are planned again
        self._panes.replan(self._prepare)

    def _set_spec(self, spec: JobSpec, source: str, revision: int) -> None:
        self._spec = spec = self._prepare(spec)
        self._replan = False
        self._outbox.forget_partial()
        self._revision = revision
        self._source = source
        if self._translator is not None:
            # update() first: it tags the translator with the new revision; the work it schedules
            # has not started yet and set_spec() cancels it before any request goes out.
            self._guarded(self._translator.update, source, revision)
            self._guarded(self._translator.set_spec, spec)
            self._estimate.start(revision)
        self._deliveries.force = True
        self.throttle.schedule()

    def _rehouse(
        self, read: Callable[[], tuple[Callable[[JobSpec], JobSpec], bool]], source: str
    ) -> None:
        try:
            self._prepare, changed = read()
        except Exception as exc:  # the house's own errors are its reader's to say
            self._failed("The document's glossary and style could not be read", exc)
            return
        self._spec = self._prepare(self._spec)
        translator = self._translator
        if not changed or translator is None:
            return
        if translator.doc is not None and translator.doc.source == source:
            self._replan_all()
            self._deliveries.force = True
            self.throttle.schedule()
        else:
            self._replan = True

    def _retranslate(self, block_ids: tuple[str, ...]) -> None:
        if self._translator is not None:
            self._guarded(self._translator.retranslate, block_ids)
        self.throttle.schedule()

    def _open_pane(self, key: str, spec: JobSpec) -> None:
        engine = self._engine
        if engine is None:
            return
        prepared = self._prepare(spec)
        start = functools.partial(self._translator_factory, engine, prepared)
        try:
            self._panes.open(
                key, spec, prepared, start, source=self._source, revision=self._revision
            )
        except Exception as exc:
            self._failed("The second translation could not start", exc)
            return
        self._deliveries.force = True
        self.throttle.schedule()

    def _pane_shared(self, event: EngineEvent) -> None:
        """What a second pane's translator says of requests, waits and errors: the window's."""
        if isinstance(event, RequestDone):
            self.warmer.requested()
        self._outbox.add(event)

    def _set_view(self, first_line: int, last_line: int) -> None:
        if self._translator is not None:
            self._guarded(self._translator.set_view, first_line, last_line)

    def _expand(self, block_id: str) -> None:
        """The translator streams the expansion as Expansion events."""
        if self._translator is None:
            return
        try:
            self._translator.expand(block_id)
        except Exception as exc:
            self._failed("Could not expand the section", exc)

    def _back_translate(self, block_id: str, text: str) -> None:
        engine, translator = self._engine, self._translator
        if engine is None or translator is None or translator.doc is None:
            self.back_translated.emit(block_id, text, "")
            return
        job = engine.back_translate(translator.doc, block_id, text, self._spec, emit=self._on_event)

        def done(finished: asyncio.Future[str | None]) -> None:
            answer = None
            if not finished.cancelled() and finished.exception() is None:
                answer = finished.result()
            if not self._stopping:
                self.back_translated.emit(block_id, text, answer or "")

        self._tasks.keep(asyncio.ensure_future(job)).add_done_callback(done)

    def _warm_up(self, active: bool = False) -> None:
        """Nothing is sent while the engine is busy (see Warmer.warm_up)."""
        if self._engine is None or (self._translator is not None and self._translator.busy):
            return
        self.warmer.warm_up(self._engine.router, self._spec, active=active)

    def _billed(self, stats: list[RequestStats]) -> None:
        """A warm-up's requests: the window counts them like any request."""
        for one in stats:
            self._outbox.add(RequestDone(self._revision, one))
        self.throttle.schedule()

    def _guarded(self, fn: Callable[..., object], *args: object) -> None:
        try:
            fn(*args)
        except Exception as exc:  # a bug in the core must not kill the worker thread
            log.exception("engine call failed")
            self._failed("The translation engine failed", exc)

    def _failed(self, message: str, exc: BaseException) -> None:
        self._outbox.add(EngineError(self._revision, f"{message}: {exc}", detail(exc)))
        self.throttle.schedule()

    def _on_event(self, event: EngineEvent) -> None:
        """The translator's emit callback (loop thread)."""
        if isinstance(event, RequestDone):
            self.warmer.requested()
        if isinstance(event, Planned):
            self._guarded(self._count_plan, event)
            return
        self._outbox.heard(event)
        self._heard(event)

    def _heard(self, event: EngineEvent) -> None:
        # A finished block with nothing else streaming (the usual edit) goes out at once: the
        # throttle is for coalescing many streams, not for delaying a single answer.
        self.throttle.schedule(urgent=isinstance(event, BlockDone) and not self._outbox.streaming)

    def _count_plan(self, plan: Planned) -> None:
        engine = self._engine
        if engine is not None and self._estimate.count(plan, engine.router, self._spec):
            self.throttle.schedule()

    # ---- the deliveries ----------------------------------------------------------------------

    def _flush(self) -> bool:
        """Send what changed, if anything did (the throttle's call); True while work goes on."""
        delivery = self._deliveries.collect(
            self._revision,
            self._source,
            self._translator,
            self._engine,
            self._spec,
            self._headroom(),
        )
        if delivery is not None and not self._stopping:
            self.delivered.emit(delivery)
        return self._deliveries.sent_busy

    def _headroom(self) -> Headroom | None:
        """The top choice's room at the limiter now (each delivery carries it to the window)."""
        return self._news.headroom(self._router, self._spec)

    @property
    def _router(self) -> Router | None:
        return None if self._engine is None else self._engine.router

    # ---- shutting down -----------------------------------------------------------------------

    def _shutdown_soon(self) -> None:
        self._tasks.keep(asyncio.ensure_future(self._shutdown()))

    async def _shutdown(self) -> None:
        self.throttle.cancel()
        translator, engine = self._translator, self._engine
        self._translator = self._engine = None
        await self._panes.aclose()
        if translator is not None:
            await bounded(translator.aclose(), 0.5)
        if engine is not None:
            await close_engine(engine)
        self._loop.stop()
