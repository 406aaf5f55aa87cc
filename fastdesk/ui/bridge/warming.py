"""Getting the engine ready before answers are wanted: the top choice's connection warmed up after
a quiet while (fastdesk.translate.warmup), and the answers' language check loaded at start."""

from __future__ import annotations

import asyncio
import gc
import logging
import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from fastdesk.clock import Clock
from fastdesk.providers.base import RequestStats
from fastdesk.ui.bridge.tasks import Tasks, detail

if TYPE_CHECKING:
    from fastdesk.routing.limiter import Headroom
    from fastdesk.routing.router import Router
    from fastdesk.translate.job import JobSpec

log = logging.getLogger("fastdesk.ui")

WARM_ASK_INTERVAL_S = 1.0  # warm_up() calls closer than this are dropped in the GUI thread
_language_frozen = False  # the language check's tables are out of the collector's reach


class Warmer:
    """Warm-ups of the top choice, and when a request was last asked (any request: a warm-up
    is wanted after a quiet while only). ``headroom``: the top choice's room at the limiter now
    (published for the GUI thread as it is read); ``billed``: a warm-up's requests, which the
    window counts like any other."""

    def __init__(
        self,
        clock: Clock,
        tasks: Tasks,
        *,
        headroom: Callable[[], Headroom | None],
        billed: Callable[[list[RequestStats]], None],
    ) -> None:
        self._clock = clock
        self._tasks = tasks
        self._headroom = headroom
        self._billed = billed
        self._last_activity: float | None = None  # the clock's monotonic time of the last request
        self._asked = -math.inf  # GUI thread: when a warm-up last went to the loop
        self.warmup_idle_s: float | None = None  # None: fastdesk.translate.warmup's default (5 min)
        self.active_idle_s: float | None = None  # None: warmup.ACTIVE_IDLE_S (while typing)
        self.ask_interval_s = WARM_ASK_INTERVAL_S

    def ask(self) -> bool:
        """GUI thread: whether a warm-up is worth handing to the loop (not one a moment ago)."""
        now = self._clock.monotonic()
        if now - self._asked < self.ask_interval_s:
            return False
        self._asked = now
        return True

    def requested(self) -> None:
        """A request was answered: the connection is warm for a while."""
        self._last_activity = self._clock.monotonic()

    def warm_up(self, router: Router, spec: JobSpec, *, active: bool) -> None:
        """Send the warm-up when nothing was asked for a while (the caller has checked that
        nothing is in flight); while typing (``active``), only with requests to spare (the
        edits' sends come first)."""
        from fastdesk.translate.sending import room_for_extra
        from fastdesk.translate.warmup import ACTIVE_IDLE_S, DEFAULT_IDLE_S, needs_warmup, warm_up

        if active:
            idle = ACTIVE_IDLE_S if self.active_idle_s is None else self.active_idle_s
        else:
            idle = DEFAULT_IDLE_S if self.warmup_idle_s is None else self.warmup_idle_s
        if not needs_warmup(self._last_activity, self._clock.monotonic(), idle):
            return
        headroom = self._headroom()
        # read after the snapshot: its free_at is "now" when nothing waits
        if active and not room_for_extra(headroom, self._clock.monotonic()):
            return
        self.requested()  # one at a time, failed ones included
        coro = warm_up(router, provider=spec.provider or "auto", lang=spec.target_lang)
        task = self._tasks.keep(asyncio.ensure_future(coro))
        task.add_done_callback(self._warmed)
        task.get_loop().call_soon(self._headroom)  # once it is booked

    def _warmed(self, task: asyncio.Future[list[RequestStats]]) -> None:
        """Warm-ups are billed (a few prompt tokens)."""
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            log.warning("warm-up failed: %s", detail(exc))
            return
        self._billed(task.result())


async def preload_language(spec: Callable[[], JobSpec]) -> None:
    """The answers' checks load their data now, in a thread of their own, while no answer
    streams in: loading holds the GIL for a noticeable time (docs/performance.md), which would
    stall the window while the target streams. ``spec``: the worker's, read once the language
    identifier (the long part, whatever the job) is loaded, so the job is the one set by then."""
    from fastdesk.translate.checks import preload
    from fastdesk.translate.language import preload as preload_identifier

    global _language_frozen
    try:
        await asyncio.to_thread(preload_identifier)
        job = spec()
        await asyncio.to_thread(preload, job.mode, job.target_lang)  # and the job's own
    except Exception as exc:  # the check says so itself when an answer needs it
        log.warning("the answers' checks could not load their data: %s", exc)
        return
    # Its tables include two Python lists of 104,583 ints, which every collection of their
    # generation walks: the first gen-1 collection while a document streamed in took 26 ms
    # of the GUI thread, nearly all of it in them. They live as long as the process: out of
    # the collector's reach (freezing moves objects and finalises none: any thread may).
    # Once per process: a later engine (after Settings) would freeze a closed dialog too.
    if not _language_frozen:
        _language_frozen = True
        gc.freeze()
