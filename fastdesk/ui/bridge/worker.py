"""The one background thread that owns the engine: an asyncio loop running the LiveSession.

GUI → worker: plain method calls that hand a closure to ``loop.call_soon_threadsafe`` (never a
lock the worker could hold). Worker → GUI: the ``batch`` signal, emitted from the worker thread;
Qt queues it into the GUI thread. Batches are throttled (one per ``flush_interval`` at most while
a translation streams, the first at once) and carry the parsed document when it changed and the
engine's events, so the GUI thread does no parsing. What the target shows is composed from them
by the window's one model of it (fastdesk.review.target_model.TargetModel), not here.

Streaming: of a block's partial answers (BlockDelta) only the newest since the last batch goes.

Second target panes (``open_pane``): each is one more live session on the same engine and loop,
in its own language, so the engine's limits hold across them; its block events travel in
``WorkerBatch.panes`` under its key, what it says of requests with the document's own events.
Closing the pane closes its session (what it has in flight is cancelled). Another document
opened (``open``) or a new house (``rehouse``) plans the panes' sessions again with the
document's: each pane's spec is kept as the window asked and completed by the house anew.

Time: the worker, its engine's router and the window read one clock (fastdesk.clock), so the
limiter's ``headroom`` (times of that clock) means the same in both threads; a batch carries
waits (``usable_in_s``). An engine built on another clock does not start (its times would not
compare with the window's).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import logging
import math
import sys
import time
import traceback
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, Signal

from fastdesk.clock import Clock, SystemClock
from fastdesk.document.blocks import Document, parse, reparse
from fastdesk.providers.base import RequestStats
from fastdesk.translate.events import (
    BlockDelta,
    BlockDone,
    BlockFailed,
    BlockStarted,
    EngineError,
    EngineEvent,
    Expansion,
    Planned,
    RequestDone,
    RevisionDone,
)
from fastdesk.ui.bridge.segments import Segment, segment
from fastdesk.ui.bridge.threads import LoopThread

if TYPE_CHECKING:  # the engine and its SDKs load in the worker thread, not at start-up
    from fastdesk.routing.health import HealthEntry
    from fastdesk.routing.limiter import Headroom
    from fastdesk.translate.engine import Engine, JobSpec
    from fastdesk.translate.live import LiveSession

log = logging.getLogger("fastdesk.ui")

Emit = Callable[[EngineEvent], None]


class Session(Protocol):
    """What the worker asks of its live session: :class:`fastdesk.translate.live.LiveSession`,
    or a stand-in that behaves as one (tests). Every call runs in the worker thread."""

    @property
    def doc(self) -> Document | None: ...
    @property
    def busy(self) -> bool: ...
    def update(self, source: str, revision: int) -> None: ...
    def set_spec(self, spec: JobSpec) -> None: ...
    def retranslate(self, block_ids: Collection[str]) -> None: ...
    def set_visible(self, block_ids: Collection[str]) -> None: ...
    def expand(self, block_id: str) -> None: ...
    async def aclose(self) -> None: ...


EngineFactory = Callable[[], "Engine"]
SessionFactory = Callable[["Engine", "JobSpec", Emit], Session]
WARM_ASK_INTERVAL_S = 1.0  # warm_up() calls closer than this are dropped in the GUI thread
_language_frozen = False  # the language check's tables are out of the collector's reach
_PANE_EVENTS = (BlockStarted, BlockDone, BlockFailed, Expansion, RevisionDone)


@dataclass(frozen=True)
class WorkerBatch:
    """What changed since the last batch. ``revision``: the newest one the worker was given."""

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
    # with failed blocks among the events: seconds until their provider may be asked again
    # (Router.usable_in_s; math.inf: not by itself), for the window's retry of them
    usable_in_s: float | None = None
    # (pane key, its block events) of each second target pane with news (see open_pane)
    panes: tuple[tuple[str, tuple[EngineEvent, ...]], ...] = ()

    def pane_events(self, key: str) -> tuple[EngineEvent, ...]:
        return next((events for k, events in self.panes if k == key), ())


# After an edit, the batch that tells the window of the new document waits this long, so that
# the edit's request leaves first: collecting the batch is O(blocks) (~15 ms at 3,000 blocks)
# and ran between the session's update and the request's first bytes.
REQUEST_FIRST_S = 0.01


def _segments(doc: Document) -> tuple[Segment, ...]:
    """The document's blocks as render segments, one per block."""
    return tuple(segment(b.id, b.text) for b in doc.blocks)


def default_engine_factory(clock: Clock | None = None) -> Engine:
    """The app's engine, from the settings and the environment, on ``clock`` (the window's: see
    the module docstring). Built in the worker thread: importing the SDKs and constructing
    clients can take a while."""
    from fastdesk.config.settings import load_settings
    from fastdesk.translate.wiring import build_engine

    settings, _warnings = load_settings()
    return build_engine(settings, clock=clock)


def default_session_factory(engine: Engine, spec: JobSpec, emit: Emit) -> LiveSession:
    from fastdesk.translate.live import LiveSession

    return LiveSession(engine, spec, emit)


class EngineWorker(QObject):
    """Runs the engine in its own thread; see the module docstring for the protocol."""

    batch = Signal(object)  # WorkerBatch
    # block id, its translation, the translation back into the source's language ("": none)
    back_translated = Signal(str, str, str)

    def __init__(
        self,
        spec: JobSpec,
        *,
        engine_factory: EngineFactory | None = None,
        session_factory: SessionFactory = default_session_factory,
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
        self._session_factory = session_factory
        self.flush_interval = flush_interval
        self._thread = LoopThread("fastdesk-engine", drain_s=0.2)
        self._loop = self._thread.loop
        # loop-thread state
        self._engine: Engine | None = None
        self._session: Session | None = None
        self._revision = 0
        self._source = ""
        self._events: list[EngineEvent] = []
        self._partial: dict[str, BlockDelta] = {}  # the newest partial answers not sent yet
        self._streaming: set[str] = set()  # blocks with a partial answer and no final one yet
        self._flush_handle: asyncio.Handle | None = None
        self._poll_handle: asyncio.Handle | None = None
        self._last_flush = 0.0
        self._sent_doc: Document | None = None
        self._panes: dict[str, Session] = {}  # second target panes' sessions, by key
        self._pane_specs: dict[str, JobSpec] = {}  # their specs, before the house completes them
        self._pane_events: dict[str, list[EngineEvent]] = {}
        self._pane_partial: dict[str, dict[str, BlockDelta]] = {}
        self._sent_busy = False
        self._providers: tuple[str, ...] | None = None
        self._stopping = False
        self._force = False
        # warm-ups and the shutdown, held until done (the loop keeps only weak references)
        self._tasks: set[asyncio.Future[list[RequestStats]] | asyncio.Future[None]] = set()
        self._health_changed = False
        self._notices: list[str] = []  # to tell the window (WorkerBatch.notices)
        self._told: set[str] = set()  # told already: each notice is shown once
        self._estimate_due = True  # a new document or spec: say how long it will take
        self._estimate = ""  # to tell the window (WorkerBatch.estimate)
        # the revision whose runs' plans (Planned) make the estimate, and their sum so far
        self._estimate_of: int | None = None
        self._planned = (0, 0)
        self._last_activity: float | None = None  # the clock's monotonic time of the last request
        self._warm_asked = -math.inf  # GUI thread: when warm_up() last went to the loop
        self.warmup_idle_s: float | None = None  # None: fastdesk.translate.warmup's default (5 min)
        self.active_idle_s: float | None = None  # None: warmup.ACTIVE_IDLE_S (while typing)
        self.warm_ask_interval_s = WARM_ASK_INTERVAL_S
        # The top choice's room at the limiter, for the GUI thread's sending policy: written
        # here (loop thread) as one immutable object, read there without a lock.
        self.headroom: Headroom | None = None

    # ---- GUI-thread API (each call returns at once) -------------------------------------------

    def start(self) -> None:
        # The worker's Python code competes with the GUI thread for the GIL, and PySide lets it
        # go around every Qt call: by default a thread then waits up to 5 ms to get it back,
        # many times a frame. 0.5 ms keeps the GUI's waits short (benchmarks/bench_ui.py while
        # a document streams: 5 ms -> 1 ms took p99 ~20 -> ~10 ms; 1 -> 0.5 ms, six paired
        # runs: 5 of 6 with no beat over 16 ms instead of 3 of 6; 0.2 ms was worse again).
        sys.setswitchinterval(min(sys.getswitchinterval(), 0.0005))
        # the engine thread allocates a lot: garbage is collected on the GUI thread only
        self._thread.start()
        self._call(self._boot)

    def update(self, source: str, revision: int) -> None:
        self._call(self._update, source, revision)

    def open(self, source: str, revision: int) -> None:
        """Another document opened in the window: ``source`` is its first revision, every block
        planned again. Its review drops events of older revisions, and a block's id is its
        text's hash: a paragraph it shares with the last document, in flight or answered for
        that one, would otherwise never be answered for it (it stayed "to come")."""
        self._call(self._open, source, revision)

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

    def set_visible(self, block_ids: Collection[str]) -> None:
        """The blocks on screen: their waiting work goes next (after an edit's)."""
        self._call(self._set_visible, frozenset(block_ids))

    def open_pane(self, key: str, spec: JobSpec) -> None:
        """A second target pane under ``key``: a live session for ``spec`` on the current
        source (or a new spec for the one open under that key)."""
        self._call(self._open_pane, key, spec)

    def close_pane(self, key: str) -> None:
        """The pane is closed: its session's work is cancelled and it hears no more edits."""
        self._call(self._close_pane, key)

    def warm_up(self, *, active: bool = False) -> None:
        """Warm the top choice up if nothing was asked for a while (fastdesk.translate.warmup);
        ``active``: the editor is typing, so a shorter while (the connection's keep-alive) and
        only with requests to spare at the limiter. The caller has checked the user's switch
        and the budget. Cheap to call often."""
        now = self.clock.monotonic()
        if now - self._warm_asked >= self.warm_ask_interval_s:
            self._warm_asked = now
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
            self._call(self._shutdown_soon)  # which stops the loop once the session is closed
        return self._thread.join(timeout)

    def _call(self, fn: Callable[..., object], *args: object) -> None:
        self._thread.call(fn, *args)

    # ---- the thread ------------------------------------------------------------------------------

    def _emit(self, batch: WorkerBatch) -> None:
        if not self._stopping:
            self.batch.emit(batch)

    def _boot(self) -> None:
        try:
            self._engine = self._engine_factory()
            if self._engine.router.clock != self.clock:
                raise ValueError(
                    "the engine's clock is not the window's (build its router with the clock "
                    "the window was given)"
                )
            self._session = self._session_factory(self._engine, self._spec, self._on_event)
        except Exception as exc:  # no provider configured, a broken settings value …
            log.warning("engine not started: %s", exc)
            self._engine = self._session = None
            self._events.append(
                EngineError(self._revision, str(exc) or type(exc).__name__, _detail(exc), "startup")
            )
            self._providers = ()
        else:
            router = self._engine.router
            self._providers = tuple(router.providers)
            if router.health.listener is None:
                router.health.listener = self._on_health  # called in this thread
            self._health_changed = True  # a new engine: whatever the window showed is gone
            self._notice_plain_http(tuple(router.providers))
            router.retirements.on_notice = self._notices.append  # a model replaced: said once
            task = asyncio.ensure_future(self._preload_language())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        self._schedule_flush()

    async def _preload_language(self) -> None:
        """The answers' language check loads its model now, in a thread of its own, while no
        answer streams in: loading holds the GIL for a noticeable time (docs/performance.md),
        which would stall the window while the target streams."""
        from fastdesk.translate.language import preload
        from fastdesk.translate.readability import preload as preload_hyphenation

        global _language_frozen
        try:
            await asyncio.to_thread(preload)
            if self._spec.mode == "simplify":  # its answers' reading ease: the dictionary too
                await asyncio.to_thread(preload_hyphenation, self._spec.target_lang)
        except Exception as exc:  # the check says so itself when an answer needs it
            log.warning("the language identifier could not be loaded: %s", exc)
            return
        # Its tables include two Python lists of 104,583 ints, which every collection of their
        # generation walks: the first gen-1 collection while a document streamed in took 26 ms
        # of the GUI thread, nearly all of it in them. They live as long as the process: out of
        # the collector's reach (freezing moves objects and finalises none: any thread may).
        # Once per process: a later engine (after Settings) would freeze a closed dialog too.
        if not _language_frozen:
            _language_frozen = True
            gc.freeze()

    def _update(self, source: str, revision: int) -> None:
        self._revision = revision
        self._source = source
        if self._session is not None:
            self._guarded(self._session.update, source, revision)
            if self._estimate_due:
                self._estimate_due = False
                self._estimate_from(revision)
        for pane in self._panes.values():
            self._guarded(pane.update, source, revision)
        if self._replan and self._session is not None:
            # the house read before this update, or another document: planned with it
            self._replan = False
            self._replan_all()
        self._force = True  # always answer an update, even if nothing changed (ends "busy")
        self._schedule_flush(at_least=REQUEST_FIRST_S)

    def _open(self, source: str, revision: int) -> None:
        # the last document's runs are cancelled and its answers forgotten (the memory has
        # them), with the spec the engine has: the house's, read or still to be read (rehouse);
        # the second panes' sessions too (each pane's review drops the last document's events)
        self._partial.clear()
        self._streaming.clear()
        self._pane_partial.clear()
        self._replan = True
        self._update(source, revision)

    def _replan_all(self) -> None:
        """Every session plans every block again: the document's with the engine's spec, each
        second pane's with its own completed by the house (``_prepare``) as it is now."""
        if self._session is not None:
            self._guarded(self._session.set_spec, self._spec)
            if self._estimate_of == self._revision:  # its runs are planned again: counted anew
                self._planned = (0, 0)
        for key, pane in self._panes.items():
            self._guarded(pane.set_spec, self._prepare(self._pane_specs[key]))

    def _set_spec(self, spec: JobSpec, source: str, revision: int) -> None:
        self._spec = spec = self._prepare(spec)
        self._replan = False
        self._partial.clear()
        self._streaming.clear()
        self._revision = revision
        self._source = source
        if self._session is not None:
            # update() first: it tags the session with the new revision; the work it schedules
            # has not started yet and set_spec() cancels it before any request goes out.
            self._guarded(self._session.update, source, revision)
            self._guarded(self._session.set_spec, spec)
            self._estimate_from(revision)
        self._force = True
        self._schedule_flush()

    def _rehouse(
        self, read: Callable[[], tuple[Callable[[JobSpec], JobSpec], bool]], source: str
    ) -> None:
        try:
            self._prepare, changed = read()
        except Exception as exc:  # the house's own errors are its reader's to say
            self._failed("The document's glossary and style could not be read", exc)
            return
        self._spec = self._prepare(self._spec)
        session = self._session
        if not changed or session is None:
            return
        if session.doc is not None and session.doc.source == source:
            self._replan_all()
            self._force = True
            self._schedule_flush()
        else:
            self._replan = True

    def _retranslate(self, block_ids: tuple[str, ...]) -> None:
        if self._session is not None:
            self._guarded(self._session.retranslate, block_ids)
        self._schedule_flush()

    def _open_pane(self, key: str, spec: JobSpec) -> None:
        if self._engine is None:
            return
        asked, spec = spec, self._prepare(spec)
        pane = self._panes.get(key)
        if pane is None:
            try:
                pane = self._session_factory(
                    self._engine, spec, lambda event: self._on_pane_event(key, event)
                )
            except Exception as exc:
                self._failed("The second translation could not start", exc)
                return
            self._panes[key] = pane
            self._guarded(pane.update, self._source, self._revision)
        else:
            self._guarded(pane.set_spec, spec)
        self._pane_specs[key] = asked  # as the window asked: the house completes it (replan)
        self._force = True
        self._schedule_flush()

    def _close_pane(self, key: str) -> None:
        pane = self._panes.pop(key, None)
        self._pane_specs.pop(key, None)
        self._pane_events.pop(key, None)
        self._pane_partial.pop(key, None)
        if pane is not None:
            task = asyncio.ensure_future(_bounded(pane.aclose(), 0.5))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def _on_pane_event(self, key: str, event: EngineEvent) -> None:
        """A second pane's session: its block events go to that pane; requests, waits and
        errors to the window like the document's own (RevisionDone is the pane's alone)."""
        if key not in self._panes:
            return  # closed meanwhile
        if isinstance(event, BlockDelta):
            self._pane_partial.setdefault(key, {})[event.block_id] = event
        elif isinstance(event, _PANE_EVENTS):
            if isinstance(event, BlockDone | BlockFailed):
                self._pane_partial.get(key, {}).pop(event.block_id, None)
            self._pane_events.setdefault(key, []).append(event)
        else:
            if isinstance(event, RequestDone):
                self._last_activity = self.clock.monotonic()
            self._events.append(event)
        self._schedule_flush(urgent=isinstance(event, BlockDone) and not self._streaming)

    def _set_visible(self, block_ids: frozenset[str]) -> None:
        if self._session is not None:
            self._guarded(self._session.set_visible, block_ids)

    def _expand(self, block_id: str) -> None:
        """The session streams the expansion as Expansion events."""
        if self._session is None:
            return
        try:
            self._session.expand(block_id)
        except Exception as exc:
            self._failed("Could not expand the section", exc)

    def _back_translate(self, block_id: str, text: str) -> None:
        engine, session = self._engine, self._session
        if engine is None or session is None or session.doc is None:
            self.back_translated.emit(block_id, text, "")
            return
        job = engine.back_translate(session.doc, block_id, text, self._spec, emit=self._on_event)
        task: asyncio.Future[str | None] = asyncio.ensure_future(job)

        def done(finished: asyncio.Future[str | None]) -> None:
            self._tasks.discard(finished)
            answer = None
            if not finished.cancelled() and finished.exception() is None:
                answer = finished.result()
            if not self._stopping:
                self.back_translated.emit(block_id, text, answer or "")

        self._tasks.add(task)  # type: ignore[arg-type]  # the loop keeps weak references only
        task.add_done_callback(done)

    def _warm_up(self, active: bool = False) -> None:
        """Send the warm-up when nothing was asked for a while and nothing is in flight; while
        typing, only with requests to spare (the edits' sends come first)."""
        from fastdesk.translate.sending import room_for_extra
        from fastdesk.translate.warmup import ACTIVE_IDLE_S, DEFAULT_IDLE_S, needs_warmup, warm_up

        if self._engine is None or (self._session is not None and self._session.busy):
            return
        if active:
            idle = ACTIVE_IDLE_S if self.active_idle_s is None else self.active_idle_s
        else:
            idle = DEFAULT_IDLE_S if self.warmup_idle_s is None else self.warmup_idle_s
        if not needs_warmup(self._last_activity, self.clock.monotonic(), idle):
            return
        self._publish_headroom()
        # read after the snapshot: its free_at is "now" when nothing waits
        if active and not room_for_extra(self.headroom, self.clock.monotonic()):
            return
        self._last_activity = self.clock.monotonic()  # one at a time, failed ones included
        spec = self._spec
        coro = warm_up(self._engine.router, provider=spec.provider or "auto", lang=spec.target_lang)
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(self._warmed)
        self._loop.call_soon(self._publish_headroom)  # once it is booked

    def _warmed(self, task: asyncio.Future[list[RequestStats]]) -> None:
        """Warm-ups are billed (a few prompt tokens): the window counts them like any request."""
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            log.warning("warm-up failed: %s", _detail(exc))
            return
        for stats in task.result():
            self._events.append(RequestDone(self._revision, stats))
        self._schedule_flush()

    def _on_health(self, entry: HealthEntry) -> None:
        """The router's health changed (loop thread): the next batch carries the report."""
        self._health_changed = True
        self._schedule_flush()

    def _guarded(self, fn: Callable[..., object], *args: object) -> None:
        try:
            fn(*args)
        except Exception as exc:  # a bug in the core must not kill the worker thread
            log.exception("engine call failed")
            self._failed("The translation engine failed", exc)

    def _failed(self, message: str, exc: BaseException) -> None:
        self._events.append(EngineError(self._revision, f"{message}: {exc}", _detail(exc)))
        self._schedule_flush()

    def _on_event(self, event: EngineEvent) -> None:
        """The session's emit callback (loop thread)."""
        if isinstance(event, RequestDone):
            self._last_activity = self.clock.monotonic()
        if isinstance(event, Planned):
            self._guarded(self._count_plan, event)
            return
        if isinstance(event, BlockDelta):
            self._partial[event.block_id] = event
            self._streaming.add(event.block_id)
        else:
            if isinstance(event, BlockDone | BlockFailed):
                self._partial.pop(event.block_id, None)
                self._streaming.discard(event.block_id)
            self._events.append(event)
        # A finished block with nothing else streaming (the usual edit) goes out at once: the
        # throttle is for coalescing many streams, not for delaying a single answer.
        self._schedule_flush(urgent=isinstance(event, BlockDone) and not self._streaming)

    # ---- throttled flushing ------------------------------------------------------------------

    def _schedule_flush(self, *, urgent: bool = False, at_least: float = 0.0) -> None:
        if self._stopping:
            return
        if urgent and self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None
        if self._flush_handle is not None:
            return
        # the loop's own time: set and read in this thread only, for the loop's own timers
        wait = 0.0 if urgent else self._last_flush + self.flush_interval - self._loop.time()
        self._flush_handle = self._loop.call_later(max(at_least, wait), self._flush)

    def _flush(self) -> None:
        self._flush_handle = None
        self._last_flush = self._loop.time()
        self._publish_headroom()
        batch = self._collect()
        if batch is not None:
            self._emit(batch)
        if self._sent_busy and self._poll_handle is None:
            # Notice the end of work that emits nothing (a run cancelled by a newer revision).
            self._poll_handle = self._loop.call_later(0.25, self._poll)

    def _poll(self) -> None:
        self._poll_handle = None
        self._schedule_flush()

    def _collect(self) -> WorkerBatch | None:
        events = (*self._events, *self._partial.values())  # partial answers after final ones
        self._events.clear()
        self._partial.clear()
        source = new_doc = None
        busy = False
        session = self._session
        if session is not None:
            doc = session.doc
            if doc is not None and doc is not self._sent_doc:
                source = _segments(doc)
                self._sent_doc = new_doc = doc
            busy = session.busy or any(p.busy for p in self._panes.values())
        elif self._sent_doc is None or self._source != self._sent_doc.source:
            # No engine: show the source as it is, block by block, so the target pane still
            # mirrors the document (and scrolls with it).
            previous = self._sent_doc
            doc = parse(self._source) if previous is None else reparse(previous, self._source)
            source = _segments(doc)
            self._sent_doc = new_doc = doc
        providers, self._providers = self._providers, None
        health = self._health_report() if self._health_changed else None
        self._health_changed = False
        notices = self._new_notices()
        panes = self._collect_panes()
        quiet = not events and not panes and source is None and busy == self._sent_busy
        quiet = quiet and providers is None and health is None and not notices
        quiet = quiet and not self._estimate
        if quiet and not self._force:
            return None
        self._force = False
        self._sent_busy = busy
        failed = any(isinstance(e, BlockFailed) for e in events)
        return WorkerBatch(
            self._revision,
            events,
            source=source,
            busy=busy,
            providers=providers,
            health=health,
            doc=new_doc,
            notices=notices,
            estimate=self._take_estimate(),
            usable_in_s=self._usable_in_s() if failed else None,
            panes=panes,
        )

    def _publish_headroom(self) -> None:
        """The top choice's room at the limiter now (see ``headroom``)."""
        from fastdesk.translate.sending import TYPICAL_TOKENS

        engine, spec = self._engine, self._spec
        if engine is None:
            self.headroom = None
            return
        try:
            router = engine.router
            choices = router.candidates(spec.provider, spec.model, lang=spec.target_lang)
            self.headroom = router.limiter.headroom(choices[0], TYPICAL_TOKENS) if choices else None
        except Exception:  # pacing is a nicety: a failure here must not stop the engine
            log.exception("could not read the limiter's room")
            self.headroom = None

    def _usable_in_s(self) -> float | None:
        if self._engine is None:
            return None
        spec = self._spec
        return self._engine.router.usable_in_s(spec.provider or "auto", spec.model)

    def _collect_panes(self) -> tuple[tuple[str, tuple[EngineEvent, ...]], ...]:
        out = []
        for key in self._panes:
            events = (
                *self._pane_events.pop(key, ()),
                *self._pane_partial.pop(key, {}).values(),
            )
            if events:
                out.append((key, events))
        return tuple(out)

    def _notice_plain_http(self, providers: tuple[str, ...]) -> None:
        from fastdesk.translate.wiring import plain_http_warnings

        try:
            self._notices.extend(plain_http_warnings(providers))
        except Exception as exc:  # a warning that cannot be worked out must not stop the engine
            log.warning("could not check the providers' base URLs: %s", exc)

    def _estimate_from(self, revision: int) -> None:
        """The estimate is made from the plans of this revision's runs (see _count_plan)."""
        self._estimate_of, self._planned = revision, (0, 0)

    def _count_plan(self, plan: Planned) -> None:
        """How long the document will take at the pooled rate limits (routing/pace.py), from
        what its runs plan to send: the one plan the engine makes (an admonition's pieces are
        a run of their own, so the sum grows as they are planned; the window shows the last)."""
        from fastdesk.routing.pace import estimate, workload_tokens

        engine, spec = self._engine, self._spec
        if engine is None or plan.revision != self._estimate_of:
            return
        requests, tokens = self._planned
        self._planned = requests, tokens = requests + plan.requests, tokens + plan.tokens
        router = engine.router
        pairs = router.candidates(spec.provider or "auto", spec.model, lang=spec.target_lang)
        self._estimate = estimate(
            router.limiter, pairs, requests, workload_tokens(tokens, requests)
        ).text()
        self._schedule_flush()

    def _new_notices(self) -> tuple[str, ...]:
        """Notices not told yet; the memory's is looked at on every batch (it can break later)."""
        memory = self._engine.memory if self._engine is not None else None
        if memory is not None and memory.notice:
            self._notices.append(memory.notice)
        new = tuple(dict.fromkeys(n for n in self._notices if n not in self._told))
        self._notices.clear()
        self._told.update(new)
        return new

    def _take_estimate(self) -> str:
        text, self._estimate = self._estimate, ""
        return text

    def _health_report(self) -> tuple[HealthEntry, ...]:
        return () if self._engine is None else tuple(self._engine.router.health_report())

    # ---- shutting down -----------------------------------------------------------------------

    def _shutdown_soon(self) -> None:
        self._tasks.add(asyncio.ensure_future(self._shutdown()))

    async def _shutdown(self) -> None:
        for handle in (self._flush_handle, self._poll_handle):
            if handle is not None:
                handle.cancel()
        self._flush_handle = self._poll_handle = None
        session, engine = self._session, self._engine
        self._session = self._engine = None
        panes, self._panes = list(self._panes.values()), {}
        for pane in panes:
            await _bounded(pane.aclose(), 0.3)
        if session is not None:
            await _bounded(session.aclose(), 0.5)
        if engine is not None:
            await _bounded(engine.router.aclose(), 0.3)
            if engine.memory is not None:
                with contextlib.suppress(Exception):
                    engine.memory.close()
        self._loop.stop()


async def _bounded(awaitable: Awaitable[None], timeout: float) -> None:
    started = time.monotonic()
    try:
        await asyncio.wait_for(awaitable, timeout)
    except (TimeoutError, asyncio.CancelledError):
        log.warning("shutdown step took over %.1f s; moving on", time.monotonic() - started)
    except Exception:
        log.exception("shutdown step failed")


def _detail(exc: BaseException) -> str:
    return "".join(traceback.format_exception_only(type(exc), exc)).strip()
