"""The one background thread that owns the engine: an asyncio loop running the LiveSession.

GUI → worker: plain method calls that hand a closure to ``loop.call_soon_threadsafe`` (never a
lock the worker could hold). Worker → GUI: the ``batch`` signal, emitted from the worker thread;
Qt queues it into the GUI thread. Batches are throttled (one per ``flush_interval`` at most while
a translation streams, the first at once) and carry ready-to-apply segments, so the GUI thread
does no parsing, composing or diffing of whole documents.

Streaming: the session's snapshot only holds finished blocks; the partial answers of blocks still
in flight (BlockDelta) are overlaid here, so the target fills in as tokens arrive.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import math
import sys
import threading
import time
import traceback
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Signal

from fastdesk.document.blocks import parse, reparse
from fastdesk.translate.events import (
    BlockDelta,
    BlockDone,
    BlockFailed,
    EngineError,
    EngineEvent,
    RequestDone,
)
from fastdesk.ui.bridge.segments import Segment, segment, segments_of
from fastdesk.ui.bridge.threads import hold_gc_on_gui_thread, polite_event_loop, release_gc_hold

log = logging.getLogger("fastdesk.ui")

EngineFactory = Callable[[], Any]
SessionFactory = Callable[[Any, Any, Callable[[EngineEvent], None]], Any]
WARM_ASK_INTERVAL_S = 1.0  # warm_up() calls closer than this are dropped in the GUI thread


@dataclass(frozen=True)
class WorkerBatch:
    """What changed since the last batch. ``revision``: the newest one the worker was given."""

    revision: int
    events: tuple[EngineEvent, ...] = ()
    target: tuple[Segment, ...] | None = None  # None: unchanged
    source: tuple[Segment, ...] | None = None  # the source's blocks (for mapping); None: unchanged
    pending: frozenset[str] = frozenset()
    busy: bool = False
    providers: tuple[str, ...] | None = None  # configured providers, once the engine is built
    expansion: tuple[str, str] | None = None  # (block id, generated text)
    health: tuple[Any, ...] | None = None  # router.health_report() when it changed; None: same
    doc: Any = None  # the parsed source (blocks.Document) when it changed; None: unchanged
    streaming: frozenset[str] = frozenset()  # blocks whose target segment is a partial answer


# After an edit, the batch that tells the window of the new document waits this long, so that
# the edit's request leaves first: collecting the batch is O(blocks) (~15 ms at 3,000 blocks)
# and ran between the session's update and the request's first bytes.
REQUEST_FIRST_S = 0.01


def _segments(doc: Any) -> tuple[Segment, ...]:
    """The document's blocks as render segments, one per block."""
    return tuple(segment(b.id, b.text) for b in doc.blocks)


def default_engine_factory() -> Any:
    """The app's engine, from the settings and the environment (built in the worker thread:
    importing the SDKs and constructing clients can take a while)."""
    from fastdesk.config.settings import load_settings
    from fastdesk.translate.wiring import build_engine

    settings, _warnings = load_settings()
    return build_engine(settings)


def default_session_factory(engine: Any, spec: Any, emit: Callable[[EngineEvent], None]) -> Any:
    from fastdesk.translate.live import LiveSession

    return LiveSession(engine, spec, emit)


class EngineWorker(QObject):
    """Runs the engine in its own thread; see the module docstring for the protocol."""

    batch = Signal(object)  # WorkerBatch

    def __init__(
        self,
        spec: Any,
        *,
        engine_factory: EngineFactory = default_engine_factory,
        session_factory: SessionFactory = default_session_factory,
        flush_interval: float = 0.05,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._spec = spec
        self._engine_factory = engine_factory
        self._session_factory = session_factory
        self.flush_interval = flush_interval
        self._loop = polite_event_loop()
        self._thread = threading.Thread(target=self._main, name="fastdesk-engine", daemon=True)
        # loop-thread state
        self._engine: Any = None
        self._session: Any = None
        self._revision = 0
        self._source = ""
        self._events: list[EngineEvent] = []
        self._partial: dict[str, str] = {}
        self._flush_handle: asyncio.Handle | None = None
        self._poll_handle: asyncio.Handle | None = None
        self._last_flush = 0.0
        self._sent_view: Any = None
        self._sent_target: tuple[Segment, ...] = ()  # its unchanged segments go on as they are
        self._sent_overlay: dict[str, str] = {}
        self._sent_doc: Any = None
        self._sent_busy = False
        self._providers: tuple[str, ...] | None = None
        self._expansion: tuple[str, str] | None = None
        self._stopping = False
        self._force = False
        self._tasks: set[asyncio.Future[Any]] = set()
        self._health_changed = False
        self._last_activity: float | None = None  # monotonic time of the last request
        self._warm_asked = -math.inf  # GUI thread: when warm_up() last went to the loop
        self.warmup_idle_s: float | None = None  # None: fastdesk.translate.warmup's default (5 min)
        self.warm_ask_interval_s = WARM_ASK_INTERVAL_S
        self._gc_held = False

    # ---- GUI-thread API (each call returns at once) -------------------------------------------

    def start(self) -> None:
        # The worker's Python code competes with the GUI thread for the GIL, and PySide lets it
        # go around every Qt call: by default a thread then waits up to 5 ms to get it back,
        # many times a frame. 0.5 ms keeps the GUI's waits short (benchmarks/bench_ui.py while
        # a document streams: 5 ms -> 1 ms took p99 ~20 -> ~10 ms; 1 -> 0.5 ms, six paired
        # runs: 5 of 6 with no beat over 16 ms instead of 3 of 6; 0.2 ms was worse again).
        sys.setswitchinterval(min(sys.getswitchinterval(), 0.0005))
        # the engine thread allocates a lot: garbage must be collected on the GUI thread only
        self._gc_held = hold_gc_on_gui_thread()
        self._thread.start()
        self._call(self._boot)

    def update(self, source: str, revision: int) -> None:
        self._call(self._update, source, revision)

    def set_spec(self, spec: Any, source: str, revision: int) -> None:
        """Mode, language or provider changed: re-plan everything for the current source."""
        self._call(self._set_spec, spec, source, revision)

    def retranslate(self, block_ids: Collection[str]) -> None:
        self._call(self._retranslate, tuple(block_ids))

    def expand(self, block_id: str) -> None:
        self._call(self._expand, block_id)

    def warm_up(self) -> None:
        """Warm the top choice up if nothing was asked for a while (fastdesk.translate.warmup); the
        caller
        has checked the user's switch and the budget. Cheap to call often (once a second)."""
        now = time.monotonic()
        if now - self._warm_asked >= self.warm_ask_interval_s:
            self._warm_asked = now
            self._call(self._warm_up)

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def stop(self, timeout: float = 1.0) -> bool:
        """Cancel what is in flight and end the thread; True when it ended within `timeout`."""
        if not self._thread.is_alive():
            self._release_gc()
            return True
        self._stopping = True
        self._call(self._shutdown_soon)
        self._thread.join(timeout)
        if self._thread.is_alive():
            return False  # a thread still running keeps the hold
        self._release_gc()
        return True

    def _release_gc(self) -> None:
        if self._gc_held:
            self._gc_held = False
            release_gc_hold()

    def _call(self, fn: Callable[..., Any], *args: Any) -> None:
        with contextlib.suppress(RuntimeError):  # loop already closed: the window is closing
            self._loop.call_soon_threadsafe(fn, *args)

    # ---- the thread ------------------------------------------------------------------------------

    def _main(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_forever()
        finally:
            tasks = [t for t in asyncio.all_tasks(self._loop) if not t.done()]
            for task in tasks:
                task.cancel()
            if tasks:
                with contextlib.suppress(Exception):
                    self._loop.run_until_complete(
                        asyncio.wait(tasks, timeout=0.2, return_when=asyncio.ALL_COMPLETED)
                    )
            self._loop.close()

    def _emit(self, batch: WorkerBatch) -> None:
        if not self._stopping:
            self.batch.emit(batch)

    def _boot(self) -> None:
        try:
            self._engine = self._engine_factory()
            self._session = self._session_factory(self._engine, self._spec, self._on_event)
        except Exception as exc:  # no provider configured, a broken settings value …
            log.warning("engine not started: %s", exc)
            self._engine = self._session = None
            self._events.append(
                EngineError(self._revision, str(exc) or type(exc).__name__, _detail(exc), "startup")
            )
            self._providers = ()
        else:
            router = getattr(self._engine, "router", None)
            self._providers = tuple(getattr(router, "providers", {}) or ())
            health = getattr(router, "health", None)
            if health is not None and health.listener is None:
                health.listener = self._on_health  # called in this thread
            self._health_changed = True  # a new engine: whatever the window showed is gone
        self._schedule_flush()

    def _update(self, source: str, revision: int) -> None:
        self._revision = revision
        self._source = source
        if self._session is not None:
            self._guarded(self._session.update, source, revision)
        self._force = True  # always answer an update, even if nothing changed (ends "busy")
        self._schedule_flush(at_least=REQUEST_FIRST_S)

    def _set_spec(self, spec: Any, source: str, revision: int) -> None:
        self._spec = spec
        self._partial.clear()
        self._revision = revision
        self._source = source
        if self._session is not None:
            # update() first: it tags the session with the new revision; the work it schedules
            # has not started yet and set_spec() cancels it before any request goes out.
            self._guarded(self._session.update, source, revision)
            self._guarded(self._session.set_spec, spec)
        self._force = True
        self._schedule_flush()

    def _retranslate(self, block_ids: tuple[str, ...]) -> None:
        if self._session is not None:
            self._guarded(self._session.retranslate, block_ids)
        self._schedule_flush()

    def _expand(self, block_id: str) -> None:
        expand = getattr(self._session, "expand", None)
        if expand is None:
            self._events.append(
                EngineError(
                    self._revision,
                    "Expanding a section is not available yet in this version.",
                    "The engine has no LiveSession.expand(block_id).",
                    "unsupported",
                )
            )
            self._schedule_flush()
            return
        try:
            result = expand(block_id)
        except Exception as exc:
            self._failed("Could not expand the section", exc)
            return
        if inspect.isawaitable(result):
            task = asyncio.ensure_future(result)
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            task.add_done_callback(lambda t: self._expanded(block_id, t))
        elif isinstance(result, str):
            self._expansion = (block_id, result)
            self._schedule_flush()

    def _warm_up(self) -> None:
        """Send the warm-up when nothing was asked for a while and nothing is in flight."""
        from fastdesk.translate.warmup import DEFAULT_IDLE_S, needs_warmup, warm_up

        router = getattr(self._engine, "router", None)
        if router is None or getattr(self._session, "busy", False):
            return
        idle = DEFAULT_IDLE_S if self.warmup_idle_s is None else self.warmup_idle_s
        if not needs_warmup(self._last_activity, time.monotonic(), idle):
            return
        self._last_activity = time.monotonic()  # one warm-up at a time, failed ones included
        spec = self._spec
        coro = warm_up(
            router,
            provider=getattr(spec, "provider", "auto") or "auto",
            lang=getattr(spec, "target_lang", None),
        )
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(self._warmed)

    def _warmed(self, task: asyncio.Future[Any]) -> None:
        """Warm-ups are billed (a few prompt tokens): the window counts them like any request."""
        if task.cancelled():
            return
        if task.exception() is not None:
            log.warning("warm-up failed: %s", _detail(task.exception()))  # type: ignore[arg-type]
            return
        for stats in task.result():
            self._events.append(RequestDone(self._revision, stats))
        self._schedule_flush()

    def _on_health(self, entry: Any) -> None:
        """The router's health changed (loop thread): the next batch carries the report."""
        self._health_changed = True
        self._schedule_flush()

    def _expanded(self, block_id: str, task: asyncio.Future[Any]) -> None:
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            self._failed("Could not expand the section", exc)
            return
        text = task.result()
        if isinstance(text, str):
            self._expansion = (block_id, text)
            self._schedule_flush()

    def _guarded(self, fn: Callable[..., Any], *args: Any) -> None:
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
            self._last_activity = time.monotonic()
        if isinstance(event, BlockDelta):
            self._partial[event.block_id] = event.text
        elif isinstance(event, BlockDone | BlockFailed):
            self._partial.pop(event.block_id, None)
        self._events.append(event)
        # A finished block with nothing else streaming (the usual edit) goes out at once: the
        # throttle is for coalescing many streams, not for delaying a single answer.
        self._schedule_flush(urgent=isinstance(event, BlockDone) and not self._partial)

    # ---- throttled flushing ------------------------------------------------------------------

    def _schedule_flush(self, *, urgent: bool = False, at_least: float = 0.0) -> None:
        if self._stopping:
            return
        if urgent and self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None
        if self._flush_handle is not None:
            return
        wait = 0.0 if urgent else self._last_flush + self.flush_interval - self._loop.time()
        self._flush_handle = self._loop.call_later(max(at_least, wait), self._flush)

    def _flush(self) -> None:
        self._flush_handle = None
        self._last_flush = self._loop.time()
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
        events = tuple(self._events)
        self._events.clear()
        target = source = new_doc = None
        pending: frozenset[str] = frozenset()
        streaming: frozenset[str] = frozenset()
        busy = False
        session = self._session
        if session is not None:
            view = session.snapshot()
            doc = getattr(session, "doc", None)
            pending = view.pending
            overlay = {k: v for k, v in self._partial.items() if k in pending}
            streaming = frozenset(overlay)
            if view is not self._sent_view or overlay != self._sent_overlay:
                target = segments_of(view.text, view.spans, overlay, self._sent_target)
                self._sent_target = target
                self._sent_view, self._sent_overlay = view, overlay
            if doc is not None and doc is not self._sent_doc:
                source = _segments(doc)
                self._sent_doc = new_doc = doc
            busy = bool(getattr(session, "busy", False))
        elif self._source != getattr(self._sent_doc, "source", None):
            # No engine: show the source as it is, block by block, so the target pane still
            # mirrors the document (and scrolls with it).
            previous = self._sent_doc
            doc = parse(self._source) if previous is None else reparse(previous, self._source)
            target = source = _segments(doc)
            self._sent_doc = new_doc = doc
        providers, self._providers = self._providers, None
        expansion, self._expansion = self._expansion, None
        health = self._health_report() if self._health_changed else None
        self._health_changed = False
        quiet = not events and target is None and source is None and busy == self._sent_busy
        quiet = quiet and providers is None and expansion is None and health is None
        if quiet and not self._force:
            return None
        self._force = False
        self._sent_busy = busy
        return WorkerBatch(
            self._revision,
            events,
            target,
            source,
            pending,
            busy,
            providers,
            expansion,
            health,
            doc=new_doc,
            streaming=streaming,
        )

    def _health_report(self) -> tuple[Any, ...]:
        router = getattr(self._engine, "router", None)
        report = getattr(router, "health_report", None)
        return tuple(report()) if report is not None else ()

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
        if session is not None:
            await _bounded(session.aclose(), 0.5)
        if engine is not None:
            closer = getattr(engine, "aclose", None) or getattr(
                getattr(engine, "router", None), "aclose", None
            )
            if closer is not None:
                await _bounded(closer(), 0.3)
            memory = getattr(engine, "memory", None)
            if memory is not None:
                with contextlib.suppress(Exception):
                    memory.close()
        self._loop.stop()


async def _bounded(awaitable: Any, timeout: float) -> None:
    started = time.monotonic()
    try:
        await asyncio.wait_for(awaitable, timeout)
    except (TimeoutError, asyncio.CancelledError):
        log.warning("shutdown step took over %.1f s; moving on", time.monotonic() - started)
    except Exception:
        log.exception("shutdown step failed")


def _detail(exc: BaseException) -> str:
    return "".join(traceback.format_exception_only(type(exc), exc)).strip()
