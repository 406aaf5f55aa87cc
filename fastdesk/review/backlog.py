"""A backlog paced by the account's limits, as an editor reads it (Qt-free).

Why: on a free tier a long document comes a few blocks a minute. An editor saw "138 to come"
with no word of how long, and an edit made meanwhile reached the provider seconds later with no
mark on its block. So the session keeps, from the engine's events, which blocks wait for a slot
and until when (a ``Waiting`` names its request's blocks: they show "queued, about 12 s" until
the request goes out), and the pace at which the backlog's blocks arrive, for "138 to come,
about 9 min" under the target. Times are the session's one clock (fastdesk.clock).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable

from fastdesk.clock import Clock
from fastdesk.translate.events import (
    BlockDelta,
    BlockDone,
    BlockFailed,
    BlockStarted,
    EngineEvent,
    Waiting,
)

__all__ = ["Backlog"]

RECENT = 30  # arrivals the pace is measured over (the pace of the last minute or so)
_GONE = (BlockStarted, BlockDelta, BlockDone, BlockFailed)  # sent: no longer queued


class Backlog:
    """Which blocks wait for a slot, and the pace of arrivals while the work is paced."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._queued: dict[str, tuple[Waiting, float]] = {}  # block → (its wait, when it ends)
        self._arrivals: deque[float] = deque(maxlen=RECENT)  # clock times of blocks done
        self.paced = False  # a rate wait was met since the work began

    def take(self, events: Iterable[EngineEvent]) -> frozenset[str]:
        """The engine's events; returns the blocks whose "queued" mark came or went."""
        now = self.clock.monotonic()
        touched: set[str] = set()
        for event in events:
            if isinstance(event, Waiting):
                self.paced = self.paced or event.kind == "rate"
                for block_id in event.block_ids:
                    self._queued[block_id] = (event, now + event.seconds)
                    touched.add(block_id)
            elif isinstance(event, _GONE):
                if self._queued.pop(event.block_id, None) is not None:
                    touched.add(event.block_id)
                if isinstance(event, BlockDone):
                    self._arrivals.append(now)
        return frozenset(touched)

    def idle(self) -> frozenset[str]:
        """The work settled (or stopped): nothing waits, the pace starts over next time."""
        gone = frozenset(self._queued)
        self._queued.clear()
        self._arrivals.clear()
        self.paced = False
        return gone

    def queued(self, block_id: str) -> str:
        """ "queued, about 12 s" while ``block_id``'s request waits for a slot; else ""."""
        found = self._queued.get(block_id)
        if found is None:
            return ""
        event, until = found
        return event.queued(until - self.clock.monotonic())

    def waits(self, event: Waiting) -> bool:
        """Some block of ``event``'s request still waits under it (a limit lifted by a
        server's headers sends the waiting requests at once, long before the wait said)."""
        return any(self._queued.get(b, (None, 0.0))[0] is event for b in event.block_ids)

    def marks(self) -> dict[str, str]:
        """Every queued block's mark ("queued, about 12 s"), what the target panes paint at
        the right of the block's first line (never in its text: it would reach exports)."""
        now = self.clock.monotonic()
        return {
            block_id: event.queued(until - now) for block_id, (event, until) in self._queued.items()
        }

    def next_change_s(self) -> float | None:
        """Seconds until a mark's count next drops by one (None: no mark will change; nothing
        is queued, or every wait is over and its request about to go), so the panes repaint
        once a second while something is queued, and not at all otherwise."""
        now = self.clock.monotonic()
        soonest: float | None = None
        for _event, until in self._queued.values():
            left = until - now
            if left <= 0:
                continue
            step = left - math.ceil(left) + 1  # (0, 1]: until ceil(left) drops
            soonest = step if soonest is None else min(soonest, step)
        return soonest

    def estimate(self, to_come: int) -> str:
        """ "about 9 min" for ``to_come`` blocks at the pace they have been arriving, while the
        work is paced by a rate limit and two arrivals at least show the pace; else "".

        The pace runs to now, not to the last arrival, and the estimate is never shorter than
        the longest wait under way: at a tokens/minute limit the blocks come in one burst a
        minute, and the burst's own pace said "72 to come, about 1 s" while they were queued
        for 56 s."""
        if not self.paced or to_come <= 0 or len(self._arrivals) < 2:
            return ""
        now = self.clock.monotonic()
        span = max(now, self._arrivals[-1]) - self._arrivals[0]
        if span <= 0:
            return ""
        seconds = to_come * span / (len(self._arrivals) - 1)
        seconds = max([seconds, *(until - now for _event, until in self._queued.values())])
        if seconds < 120:
            return f"about {math.ceil(seconds)} s"
        return f"about {math.ceil(seconds / 60)} min"
