"""Threads in a Qt process: an asyncio loop off the GUI thread, and garbage collection kept on it.

Qt objects must never be finalised from another thread. Python's cyclic collector runs on
whichever thread trips its allocation threshold, so while a Python thread of ours lives, automatic
collection is off and a GUI-thread timer runs it instead (qutebrowser does the same for PyQt).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import gc
import math
import os
import selectors
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, Qt, QThread, QTimer, Signal

from fastdesk.config import keys
from fastdesk.config.fileio import os_error_line
from fastdesk.config.redact import exception_text, redact
from fastdesk.providers.base import ProviderError

__all__ = [
    "BACKGROUND_NICE",
    "AsyncRunner",
    "LoopThread",
    "background_priority",
    "collect_due_garbage",
    "error_text",
    "gui_first",
    "hold_gc_on_gui_thread",
    "polite_event_loop",
    "release_gc_hold",
    "short_gil_turns",
]

# Python's cyclic garbage collector runs on whichever thread trips its allocation threshold, and
# our background threads allocate the most (the first import of an SDK and pydantic, JSON, httpx).
# A collection there finalises Qt wrappers that became cyclic garbage earlier (a closed dialog)
# off the GUI thread: PySide then deletes the C++ object from the wrong thread, or queues the
# delete for the main thread on top of a pending deleteLater(), and the process segfaults (seen
# as 1 run in 15 of tests/ui/test_settings_dialog.py under load: SIGSEGV in the loop thread's
# collection, or in BindingManager::runDeletionInMainThread on the GUI thread). So while a Python
# thread of ours is alive, automatic collection is off and a GUI-thread timer collects instead.

# Every 25 ms, not 100: a collection's pause grows with the objects made since the last one,
# and the engine thread makes ~5,000 a tenth of a second while a document streams in
# (benchmarks/bench_ui.py: longest pause 7-20 ms at 100 ms, 5-9 ms at 25 ms; the same total).
GC_EVERY_MS = 25
# An older generation's collection walks every live object promoted since the last one (a
# gen-1 collection: 6-8 ms while a document streams, against 1-2 ms for gen 0). While the GUI
# thread is rendering (gui_first used within BUSY_S) they wait, up to DEFER_OLDER times their
# threshold, and run once the window is quiet. What died meanwhile was freed by reference
# counting and costs them nothing; cyclic garbage waits a few seconds at most.
BUSY_S = 0.5
DEFER_OLDER = 5
_gc_holders = 0
_gc_was_enabled = False
_gc_timer: QTimer | None = None


def hold_gc_on_gui_thread() -> bool:
    """Before starting a Python thread in a Qt process: collect garbage on the GUI thread only.

    Call it on the GUI thread; pair it with :func:`release_gc_hold` once the thread has ended.
    Returns False (and changes nothing) without a Qt application or off the main thread.
    """
    global _gc_holders, _gc_was_enabled, _gc_timer
    app = QCoreApplication.instance()
    if app is None or threading.current_thread() is not threading.main_thread():
        return False
    if _gc_holders == 0:
        _gc_was_enabled = gc.isenabled()
        gc.disable()
        if _gc_timer is None or not shiboken6.isValid(_gc_timer):
            _gc_timer = QTimer(app)
            _gc_timer.setObjectName("fastdeskGuiThreadGc")
            _gc_timer.setInterval(GC_EVERY_MS)
            _gc_timer.timeout.connect(collect_due_garbage)
        _gc_timer.start()
    _gc_holders += 1
    return True


def release_gc_hold() -> None:
    """The thread is gone: the last release gives automatic collection back as it was."""
    global _gc_holders
    if _gc_holders == 0:
        return
    _gc_holders -= 1
    if _gc_holders == 0:
        if _gc_timer is not None and shiboken6.isValid(_gc_timer):
            _gc_timer.stop()
        if _gc_was_enabled:
            gc.enable()


def collect_due_garbage() -> int:
    """On the GUI thread: the collection CPython would have run by now (oldest generation due),
    the older generations held back while the GUI thread renders (see DEFER_OLDER)."""
    counts, thresholds = gc.get_count(), gc.get_threshold()
    if not thresholds[0]:
        return 0
    busy = time.monotonic() - _gui_worked < BUSY_S
    for generation in (2, 1):
        if counts[generation] > thresholds[generation] * (DEFER_OLDER if busy else 1):
            return gc.collect(generation)
    return gc.collect(0) if counts[0] > thresholds[0] else 0


# PySide lets the GIL go around every Qt call. While a loop thread of ours runs Python (reading a
# stream), each call the GUI thread makes then waits up to a switch interval to get it
# back: a slice of a dozen Qt calls takes 6-13 ms instead of 1-3 (docs/performance.md). So while
# the GUI thread does such work (`gui_first`), our loop threads wait at the top of their next
# turn; MAX_YIELD_S bounds each wait, so a loop thread always moves on.
MAX_YIELD_S = 0.01
_gui_free = threading.Event()
_gui_free.set()
_gui_worked = -math.inf  # when gui_first was last let go (monotonic)


@contextlib.contextmanager
def gui_first() -> Iterator[None]:
    """Around GUI-thread work that makes many Qt calls: loop threads hold back until it ends."""
    if not _gui_free.is_set():  # nested
        yield
        return
    global _gui_worked
    _gui_free.clear()
    try:
        yield
    finally:
        _gui_worked = time.monotonic()
        _gui_free.set()


# A background thread's Python code competes with the GUI thread for the GIL, and PySide lets
# it go around every Qt call: by default a thread then waits up to 5 ms to get it back, many
# times a frame. 0.5 ms keeps the GUI's waits short (benchmarks/bench_ui.py while a document
# streams: 5 ms -> 1 ms took p99 ~20 -> ~10 ms; 1 -> 0.5 ms, six paired runs: 5 of 6 with no
# beat over 16 ms instead of 3 of 6; 0.2 ms was worse again).
SWITCH_INTERVAL_S = 0.0005


def short_gil_turns() -> None:
    """The GIL changes hands every SWITCH_INTERVAL_S at most (process-wide; never lengthened)."""
    sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL_S))


# Our background threads compete with the GUI thread for the machine's cores as well as for the
# GIL: on 2 cores the engine thread, the GUI thread and other work are often all runnable, and
# the beats over 16 ms left had the GUI thread 8-13 ms in the run queue waiting for a core. So
# each background thread lowers its own priority, and the scheduler lets the GUI thread go first
# when it wakes (docs/performance.md). Not SCHED_IDLE: with the GUI busy, the network would
# starve. A thread it starts inherits the lower priority on Linux (the language check's loader,
# the router's snapshot writer, the HTTP client's resolver threads).
# Only just below (1, not 10): the engine thread uses little CPU (~0.2 s a second while a long
# document fills) but needs a core as soon as its socket is readable. At nice 10 it waited in the
# run queue 16-19 s of a 22-25 s fill of 1,500 blocks on a shared machine (the other processes,
# the GUI thread and the provider emulator went first), and the window filled 1.7-1.8x slower
# than the command line on the same server; at nice 1, 4.5-9.5 s and 0.9-1.4x
# (benchmarks/bench_window_fill.py --trace; docs/performance.md, "The window as fast as the
# wire"). A niced thread that holds the GIL and waits for a core also holds the GUI thread.
BACKGROUND_NICE = 1  # added to the thread's nice value (Linux); 0: as the GUI thread


def background_priority() -> None:
    """From inside a background thread: give it a lower scheduling priority than the GUI's.

    Linux: the thread's own nice value (each thread is a task with its own; ``setpriority`` on
    the thread id) goes up by :data:`BACKGROUND_NICE`, which needs no privilege. Elsewhere the
    thread's Qt priority (QThread.LowPriority) where the platform honours it; Qt documents
    that Linux ignores it under the default scheduler, hence the nice value there.
    """
    if BACKGROUND_NICE <= 0:
        return
    with contextlib.suppress(OSError, RuntimeError):  # a nicety: never stop the thread
        if sys.platform.startswith("linux"):
            tid = threading.get_native_id()
            nice = os.getpriority(os.PRIO_PROCESS, tid)
            os.setpriority(os.PRIO_PROCESS, tid, min(19, nice + BACKGROUND_NICE))
        else:
            QThread.currentThread().setPriority(QThread.Priority.LowPriority)


# While answers stream in, data arrives a token or so at a time, and every turn of the loop costs
# the same Python however little it reads (asyncio's callbacks, the HTTP client, the SSE parser, the
# router: ~100 µs on our 2-core machine). So a turn that would wait for I/O starts no sooner than
# PACE_S after the last one, and reads at once what came meanwhile: for the bench document's
# stream, ~3 times fewer turns and engine-thread CPU 1.6 -> 0.9 s (docs/performance.md). It
# costs at most PACE_S a hop, and nothing to a loop that was idle (the first token).
PACE_S = 0.004


class _PoliteSelector(selectors.DefaultSelector):
    """The loop's selector: it paces its wake-ups (PACE_S) and, after each wait for I/O, lets
    the GUI thread finish its work first (gui_first)."""

    _next = 0.0  # when the next wait for I/O may start (monotonic)

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        if timeout is None or timeout > 0:  # (0: callbacks are due, no waiting)
            pause = self._next - time.monotonic()
            if pause > 0:
                if timeout is not None:
                    pause = min(pause, timeout)
                    timeout -= pause
                time.sleep(pause)
        ready = super().select(timeout)
        if not _gui_free.is_set():
            _gui_free.wait(MAX_YIELD_S)
        self._next = time.monotonic() + PACE_S
        return ready


def polite_event_loop() -> asyncio.AbstractEventLoop:
    """An event loop for a thread beside the GUI's, that gives way while `gui_first` is held."""
    return asyncio.SelectorEventLoop(_PoliteSelector())


class LoopThread:
    """A paced asyncio loop (:func:`polite_event_loop`) in a daemon thread, with garbage
    collected on the GUI thread while the thread lives. The one way this package starts a loop
    thread: the engine's worker and :class:`AsyncRunner` both run on one.

    ``call`` hands a callback to the loop from any thread (dropped once the loop is closed).
    When the loop stops, what is still pending is cancelled and gets ``drain_s`` to finish;
    ``close_generators`` then also closes the async generators left open.
    """

    def __init__(self, name: str, *, drain_s: float, close_generators: bool = False) -> None:
        self.loop = polite_event_loop()
        self.drain_s = drain_s
        self.close_generators = close_generators
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._gc_held = False

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def start(self) -> None:
        """On the GUI thread: hold garbage collection there, then start the loop's thread."""
        self._gc_held = hold_gc_on_gui_thread()
        self._thread.start()

    def call(self, fn: Callable[..., object], *args: object) -> None:
        with contextlib.suppress(RuntimeError):  # loop already closed: its owner is closing
            self.loop.call_soon_threadsafe(fn, *args)

    def stop(self, timeout: float) -> bool:
        """Stop the loop and wait up to ``timeout`` for the thread; True when it ended."""
        self.call(self.loop.stop)
        return self.join(timeout)

    def join(self, timeout: float) -> bool:
        """Wait up to ``timeout`` for the thread (the loop stops itself); True when it ended.
        A thread still running keeps garbage collection held on the GUI thread."""
        if self._thread.is_alive():
            self._thread.join(timeout)
            if self._thread.is_alive():
                return False
        if self._gc_held:
            self._gc_held = False
            release_gc_hold()
        return True

    @property
    def native_id(self) -> int | None:
        """The thread's id for the OS (None before it starts)."""
        return self._thread.native_id

    def _run(self) -> None:
        background_priority()
        loop = self.loop
        asyncio.set_event_loop(loop)
        try:
            loop.run_forever()
        finally:  # cancel leftovers and let them close their connections
            tasks = [t for t in asyncio.all_tasks(loop) if not t.done()]
            for task in tasks:
                task.cancel()
            if tasks:
                with contextlib.suppress(Exception):
                    loop.run_until_complete(asyncio.wait(tasks, timeout=self.drain_s))
            if self.close_generators:
                with contextlib.suppress(Exception):
                    loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()


class AsyncRunner(QObject):
    """An asyncio loop in a daemon thread (a :class:`LoopThread`). ``submit`` returns at once;
    the callback runs later in the GUI thread with ``(result, None)`` or ``(None, error)``.
    ``close`` cancels what is in flight (the async HTTP clients stop at once) and ends the
    thread."""

    _finished = Signal(int, object, object)  # token, result, error

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thread: LoopThread | None = None
        self._callbacks: dict[int, Callable[[Any, BaseException | None], None]] = {}
        self._futures: dict[int, concurrent.futures.Future[Any]] = {}
        self._next = 0
        self._closed = False
        self._finished.connect(self._deliver, Qt.ConnectionType.QueuedConnection)

    @property
    def busy(self) -> bool:
        return bool(self._futures)

    def submit(
        self,
        make: Callable[[], Awaitable[Any]],
        on_done: Callable[[Any, BaseException | None], None],
    ) -> int:
        """Run ``make()`` in the loop thread; ``on_done`` gets its outcome in the GUI thread."""
        if self._closed:
            raise RuntimeError("this runner is closed")
        loop = self._ensure_loop()
        self._next += 1
        token = self._next

        async def call() -> None:
            # make() runs in the loop thread too; the outcome is always reported from there,
            # so it reaches the GUI thread later, never inside this submit() call.
            try:
                result, error = await make(), None
            except asyncio.CancelledError:
                return
            except Exception as exc:
                result, error = None, exc
            self._report(token, result, error)

        self._callbacks[token] = on_done
        self._futures[token] = asyncio.run_coroutine_threadsafe(call(), loop)
        return token

    def cancel(self, token: int) -> None:
        self._callbacks.pop(token, None)
        future = self._futures.pop(token, None)
        if future is not None:
            future.cancel()

    def close(self, timeout: float = 2.0) -> None:
        """Cancel everything in flight and stop the loop thread (idempotent)."""
        self._closed = True
        self._callbacks.clear()
        futures, self._futures = list(self._futures.values()), {}
        for future in futures:
            future.cancel()
        if self._thread is not None:
            self._thread.stop(timeout)

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        if self._thread is None:
            self._thread = LoopThread("fastdesk-settings-io", drain_s=1.0, close_generators=True)
            self._thread.start()
        return self._thread.loop

    def _report(self, token: int, result: Any, error: BaseException | None) -> None:
        """In the loop thread: hand the outcome to the GUI thread (a queued signal)."""
        if self._closed:
            return
        with contextlib.suppress(RuntimeError):  # the runner's Qt object is already gone
            self._finished.emit(token, result, error)

    def _deliver(self, token: int, result: Any, error: BaseException | None) -> None:
        self._futures.pop(token, None)
        callback = self._callbacks.pop(token, None)
        if callback is not None and not self._closed:
            callback(result, error)


def error_text(error: BaseException) -> str:
    """A one-line reason safe to show (provider errors never hold a key; others are redacted;
    a file's error names the file as the command line does)."""
    if isinstance(error, ProviderError | ValueError | keys.KeysError):
        return redact(str(error))
    if isinstance(error, OSError) and error.filename:
        return redact(os_error_line(error.filename, error))
    return exception_text(error)
