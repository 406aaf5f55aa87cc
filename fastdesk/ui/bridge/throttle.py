"""When the engine worker sends the window its next delivery: at most one per ``interval`` while a
translation streams (the first at once), at once for news that should not wait, and a poll while
work goes on that may end without an event (a run cancelled by a newer revision).

Times are the loop's own (``loop.time()``): set and read in the worker thread only, for the
loop's own timers."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

POLL_S = 0.25  # while work goes on, how often to look whether it ended without saying so
# After an edit, the delivery that tells the window of the new document waits this long, so that
# the edit's request leaves first: collecting the delivery is O(blocks) (~15 ms at 3,000 blocks)
# and ran between the translator's update and the request's first bytes.
REQUEST_FIRST_S = 0.01


class FlushThrottle:
    """Schedules ``flush`` on ``loop``; ``flush`` says whether work is still going on (then it
    runs again within POLL_S). Nothing is scheduled once ``stopping()``. Loop thread only."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        flush: Callable[[], bool],
        interval: float,
        stopping: Callable[[], bool],
    ) -> None:
        self._loop = loop
        self._send = flush
        self.interval = interval
        self._stopping = stopping
        self._handle: asyncio.Handle | None = None
        self._poll_handle: asyncio.Handle | None = None
        self._last = 0.0

    def schedule(self, *, urgent: bool = False, at_least: float = 0.0) -> None:
        """The next flush: at once when ``urgent``, else once the interval since the last one is
        over, and not before ``at_least`` seconds."""
        if self._stopping():
            return
        if urgent and self._handle is not None:
            self._handle.cancel()
            self._handle = None
        if self._handle is not None:
            return
        wait = 0.0 if urgent else self._last + self.interval - self._loop.time()
        self._handle = self._loop.call_later(max(at_least, wait), self._flush)

    def cancel(self) -> None:
        for handle in (self._handle, self._poll_handle):
            if handle is not None:
                handle.cancel()
        self._handle = self._poll_handle = None

    def _flush(self) -> None:
        self._handle = None
        self._last = self._loop.time()
        if self._send() and self._poll_handle is None:
            # Notice the end of work that emits nothing (a run cancelled by a newer revision).
            self._poll_handle = self._loop.call_later(POLL_S, self._poll)

    def _poll(self) -> None:
        self._poll_handle = None
        self.schedule()
