"""What the GUI thread was doing in each long heartbeat gap (``bench_ui --trace``).

A stall is only a number until its cause is known. The trace times, on the GUI thread, the
window's slots that run from its timers and queued signals (wrapped at class level before the
window is built, so every connection goes through the wrapper) and every garbage collection
(``gc.callbacks``); a long gap is then named by the spans inside it, and what they leave
unexplained is Qt's own work (layout, painting) or the process not running.

Each gap also says how long the GUI thread was on a CPU, waiting in the run queue for one (the
machine is shared: other processes had the cores) and asleep (for the GIL, mostly), from
Linux's schedstat; and the engine thread's time on a CPU and waiting for one meanwhile (our own
thread taking the core or the GIL, or the rest of the machine). And what held the GUI thread
back when none of that ran: each beat re-arms faulthandler's watchdog (``dump_traceback_later``,
a C thread that needs no GIL), so a beat later than ``WATCHDOG_S`` writes every thread's stack
as it is at that moment, the thread that holds the GIL included (only with
FASTDESK_TRACE_STACKS=1: it reads frames that other threads are running, and 4 runs of ~20 with
it crashed).

Cheap on purpose: one ``perf_counter`` pair per slot call, a re-armed timer per beat. Heavier
probes distorted what they measured: timing every event in ``QApplication.notify`` (a Python
call per event) turned one beat over 16 ms a run into eight, and sampling the GUI thread's
stack from another thread (``sys._current_frames``) crashed the process inside a paint event.
"""

from __future__ import annotations

import faulthandler
import functools
import gc
import re
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

_FRAME = re.compile(r'File "(?:.*/)?([^/"]+)", line (\d+) in (\S+)')
# x86-64 numbers of the calls a blocked GUI thread may be in ("running": not in a call)
_SYSCALLS = {
    "running": "running",
    "0": "read",
    "1": "write",
    "7": "poll",
    "74": "fsync",
    "202": "futex (a lock: the GIL, or Qt's)",
    "232": "epoll_wait",
    "271": "ppoll",
}
KEEP_MS = 0.5  # spans shorter than this are not kept
WATCHDOG_S = 0.012  # a beat this late has every thread's stack written


@dataclass
class Span:
    start: float
    end: float
    what: str
    depth: int
    cpu_ms: float | None = None  # the GUI thread's CPU time within it

    @property
    def ms(self) -> float:
        return (self.end - self.start) * 1000


@dataclass
class Gap:
    start: float
    end: float
    spans: list[Span] = field(default_factory=list)
    cpu_ms: float = 0.0  # the GUI thread on a CPU within it
    queued_ms: float = 0.0  # the GUI thread ready to run, waiting for a CPU
    engine_ms: float = 0.0  # the engine thread on a CPU within it
    engine_queued_ms: float = 0.0  # the engine thread waiting for a CPU

    @property
    def ms(self) -> float:
        return (self.end - self.start) * 1000


class StallTrace:
    """Spans of the wrapped slots and of the collections, on the GUI thread."""

    def __init__(self, *, stacks: bool = True) -> None:
        """``stacks``: arm the watchdog (it reads the other threads' frames while they run, and
        one 7,000-block run of 3 crashed with it)."""
        self.stacks = stacks
        self.last_beat: Callable[[], float] | None = None  # the heartbeat's, while it runs
        self.spans: list[Span] = []
        self._gui = threading.main_thread().ident
        self._depth = 0
        self._gc_started = 0.0

    # ---- recording ---------------------------------------------------------------------------

    def wrap(self, owner: Any, name: str, label: str | None = None) -> None:
        """Time ``owner.name`` (a class's method or a module's function) from now on."""
        original: Callable[..., Any] = getattr(owner, name)
        what = label or f"{getattr(owner, '__name__', owner)}.{name}"
        trace = self

        @functools.wraps(original)
        def timed(*args: Any, **kwargs: Any) -> Any:
            trace._depth += 1
            cpu = time.thread_time()
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                end = time.perf_counter()
                trace._depth -= 1
                if (end - start) * 1000 >= KEEP_MS:
                    used = (time.thread_time() - cpu) * 1000
                    trace.spans.append(Span(start, end, what, trace._depth, used))

        setattr(owner, name, timed)

    def start(self) -> None:
        gc.callbacks.append(self._gc)
        self._sampling = threading.Event()
        self._sampler = threading.Thread(target=self._sample, name="stall-syscalls", daemon=True)
        self.syscalls: Counter[str] = Counter()
        self._sampler.start()
        self._dumps = tempfile.TemporaryFile("w+")  # noqa: SIM115 (closed in stop)

    def beat(self) -> None:
        """The heartbeat beat: the watchdog starts again."""
        if self.stacks:
            faulthandler.dump_traceback_later(WATCHDOG_S, file=self._dumps)

    def _sample(self) -> None:
        """While a beat is late by more than 8 ms: the system call the GUI thread is in (Linux's
        /proc: no frames read, nothing unsafe), and whether this thread got the GIL meanwhile
        (it runs Python, so it did: the GUI thread is then not waiting for a GIL held by a C
        call elsewhere)."""
        gui = threading.main_thread().native_id
        path = f"/proc/self/task/{gui}/syscall"
        while not self._sampling.is_set():
            time.sleep(0.002)
            if self.last_beat is None or time.perf_counter() - self.last_beat() < 0.008:
                continue
            try:
                with open(path) as f:
                    call = f.read().split()[0]
            except OSError:
                return
            self.syscalls[_SYSCALLS.get(call, call)] += 1

    def pause(self) -> None:
        """The heartbeat stopped: no more dumps until it beats again."""
        faulthandler.cancel_dump_traceback_later()

    def stop(self) -> None:
        self.pause()
        self._sampling.set()
        gc.callbacks.remove(self._gc)
        self._dumps.seek(0)
        self.dumps = self._dumps.read()
        self._dumps.close()

    def collections(self) -> str:
        """Every collection of 0.5 ms or more on the GUI thread: how many, total, longest."""
        by_gen: dict[str, list[float]] = {}
        for span in self.spans:
            if span.what.startswith("gc "):
                by_gen.setdefault(span.what.split()[1], []).append(span.ms)
        return ", ".join(
            f"{gen}: {len(ms)} ({sum(ms):.0f} ms, longest {max(ms):.1f} ms)"
            for gen, ms in sorted(by_gen.items())
        )

    def late_stacks(self, depth: int = 4) -> Counter[str]:
        """How often each thread was where, in the dumps of late beats (innermost frames)."""
        seen: Counter[str] = Counter()
        for block in re.split(r"\n(?=Thread 0x|Current thread 0x)", self.dumps):
            lines = block.strip().splitlines()
            if not lines or "Timeout" in lines[0]:
                lines = lines[1:]
            if not lines:
                continue
            gui = f"{threading.main_thread().ident:#018x}" in lines[0]
            frames = [m for line in lines[1 : depth + 1] if (m := _FRAME.search(line))]
            where = "  <  ".join(f"{m[1]}:{m[2]} {m[3]}" for m in frames)
            seen[("GUI: " if gui else "other: ") + (where or "(no Python frame)")] += 1
        return seen

    def _gc(self, phase: str, info: dict[str, int]) -> None:
        if threading.get_ident() != self._gui:
            return
        now = time.perf_counter()
        if phase == "start":
            self._gc_started = now
        elif (now - self._gc_started) * 1000 >= KEEP_MS:
            what = f"gc gen{info['generation']} ({info['collected']:,} collected)"
            self.spans.append(Span(self._gc_started, now, what, self._depth))

    # ---- reading -----------------------------------------------------------------------------

    def gaps(
        self, spans: list[tuple[float, float, float, float, float, float]], over_ms: float = 16.0
    ) -> list[Gap]:
        """The heartbeat's gaps over ``over_ms`` (``spans``: its (start, end, GUI thread ms on
        a CPU, ms waiting for one, the same two of the engine thread))."""
        out = []
        for start, end, ran, queued, engine, engine_queued in spans:
            if (end - start) * 1000 - 1.0 > over_ms:
                inside = [s for s in self.spans if s.start < end and s.end > start]
                out.append(Gap(start, end, inside, ran, queued, engine, engine_queued))
        return out


def report(gaps: list[Gap]) -> str:
    lines = []
    for gap in gaps:
        top = sum(s.ms for s in gap.spans if s.depth == 0)
        slept = gap.ms - gap.cpu_ms - gap.queued_ms
        lines.append(
            f"gap {gap.ms:.1f} ms: the GUI thread ran {gap.cpu_ms:.1f} ms, waited for a CPU"
            f" {gap.queued_ms:.1f} ms, slept {slept:.1f} ms (the GIL); {gap.ms - top:.1f} ms"
            f" in no span below; the engine thread ran {gap.engine_ms:.1f} ms, waited for a CPU"
            f" {gap.engine_queued_ms:.1f} ms"
        )
        for span in sorted(gap.spans, key=lambda s: s.start):
            cpu = "" if span.cpu_ms is None else f" (CPU {span.cpu_ms:.1f} ms)"
            lines.append(f"  {'  ' * span.depth}{span.what}: {span.ms:.1f} ms{cpu}")
    return "\n".join(lines)


def wrap_window_slots(trace: StallTrace) -> None:
    """The slots the GUI thread runs on its own while a document streams in (before the
    window is built: connections made later go through the wrappers)."""
    from fastdesk.ui.bridge import threads
    from fastdesk.ui.document.block_places import BlockPlaces
    from fastdesk.ui.document.deliveries import DeliveryReader
    from fastdesk.ui.document.review_view import ReviewPresentation
    from fastdesk.ui.document.sending import EditSending
    from fastdesk.ui.document.view import DocumentView
    from fastdesk.ui.panes.incremental import RenderScheduler
    from fastdesk.ui.panes.sync_scroll import SyncScroller
    from fastdesk.ui.window import main_window
    from fastdesk.ui.window.status_bar import StatusPanel

    for owner, names in (
        (threads, ("collect_due_garbage",)),
        (RenderScheduler, ("_tick",)),
        (DeliveryReader, ("on_delivery",)),
        (DocumentView, ("refresh_target", "_source_changed")),
        (BlockPlaces, ("send_visible",)),
        (EditSending, ("_debounced",)),
        (ReviewPresentation, ("update_bar", "repaint_margins")),
        (main_window.MainWindow, ("_engine_news", "_document_changed")),
        (StatusPanel, ("request_done", "set_busy", "waiting")),
        (SyncScroller, ("_from_source", "_source_cursor", "target_rendered")),
    ):
        for name in names:
            trace.wrap(owner, name)
