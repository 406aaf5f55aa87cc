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
from dataclasses import dataclass

from fastdesk.clock import Clock, duration
from fastdesk.translate.events import (
    BlockDelta,
    BlockDone,
    BlockFailed,
    BlockStarted,
    EngineEvent,
    Waiting,
)

__all__ = ["Backlog"]

RECENT = 30  # arrivals a steady pace is measured over (within one run of arrivals)
GAP_S = 5.0  # a silence that parts two runs: a tokens/minute limit's wait, not a burst's answers
WINDOW_S = 120.0  # runs the pace of bursts is measured over: two rate-limit minutes
MINUTE_S = 60.0  # a rate limit's period: until arrivals span one, the limits' pace counts too
_GONE = (BlockStarted, BlockDelta, BlockDone, BlockFailed)  # sent: no longer queued


@dataclass
class _Run:
    """Arrivals with no silence of GAP_S between them: a burst, or a steady pace's stream."""

    start: float  # clock time of its first arrival
    count: int = 1


class Backlog:
    """Which blocks wait for a slot, and the pace of arrivals while the work is paced."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._queued: dict[str, tuple[Waiting, float]] = {}  # block → (its wait, when it ends)
        self._runs: deque[_Run] = deque()  # the runs of blocks done, back to WINDOW_S
        self._recent: deque[float] = deque(maxlen=RECENT)  # the last run's arrival times
        self.paced = False  # a rate wait was met since the work began
        # seconds a block at the account's limits, from the engine's plan (expect): what a
        # first minute's burst does not show
        self._limits_pace: float | None = None

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
                    self._arrived(now)
        return frozenset(touched)

    def idle(self) -> frozenset[str]:
        """The work settled (or stopped): nothing waits, the pace starts over next time."""
        gone = frozenset(self._queued)
        self._queued.clear()
        self._runs.clear()
        self._recent.clear()
        self.paced = False
        self._limits_pace = None
        return gone

    def expect(self, block_s: float) -> None:
        """The pace the account's limits allow, in seconds a block (the window's estimate of the
        document, from the engine's plan; 0: the limits do not slow it). Until the arrivals
        span a minute it counts when it is slower than theirs: at a tokens/minute limit the
        first minute's blocks come in one burst of a few seconds, and that burst's pace said
        "about 15 s" for 280 blocks that took 7 min."""
        self._limits_pace = block_s if block_s > 0 else None

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

    def _arrived(self, now: float) -> None:
        """A block done at ``now``: the last run goes on, or a new one starts after a silence;
        runs older than needed for WINDOW_S before the last one's start are dropped."""
        if self._recent and now - self._recent[-1] < GAP_S:
            self._runs[-1].count += 1
        else:
            self._runs.append(_Run(now))
            self._recent.clear()
            while len(self._runs) > 1 and self._runs[1].start <= now - WINDOW_S:
                self._runs.popleft()
        self._recent.append(now)

    def seconds_left(self, to_come: int) -> float | None:
        """Seconds until ``to_come`` blocks have arrived at the pace they have been arriving,
        never fewer than the longest wait under way (its blocks come no sooner); None while the
        work is not paced by a rate limit, nothing is to come, or no pace is known (under two
        arrivals and no limits' pace: ``expect``).

        Why runs: at a tokens/minute limit the blocks come in one burst a minute (40 in 2 s),
        and the pace of the last 30 arrivals, the burst's own, said "about 18 s" right after
        one for 320 blocks that took 8 min. So arrivals are grouped into runs (a silence of
        GAP_S parts them) and the pace is taken from run start to run start over at least
        WINDOW_S: whole minutes, each with its burst, the same at any moment of the minute
        (the last run is left out: its minute has not passed). Once the next run is overdue
        the pace runs to now, so a stall lengthens it. One run alone (a steady pace, the first
        minute), or a last run that outgrew the others (twice their size, or WINDOW_S long: a
        paid key added), is paced over its last RECENT arrivals to now, as before: a faster
        pace is followed within seconds, not minutes. In the first minute the limits' pace
        (``expect``) counts when it is slower: a first burst shows no minute."""
        if not self.paced or to_come <= 0:
            return None
        now = self.clock.monotonic()
        pace = self._pace(now)
        if pace is None:
            return None
        return max([to_come * pace, *(until - now for _event, until in self._queued.values())])

    def _pace(self, now: float) -> float | None:
        """Seconds a block (see seconds_left); the limits' pace (expect) in the first minute."""
        if not self._runs:
            return self._limits_pace
        *earlier, last = self._runs
        outgrew = last.count >= RECENT and (
            self._recent[-1] - last.start >= WINDOW_S
            or last.count >= 2 * max((run.count for run in earlier), default=0)
        )
        if earlier and not outgrew:
            first = earlier[0].start
            done = sum(run.count for run in earlier)
            return max((last.start - first) / done, (now - first) / (done + last.count))
        span = max(now, self._recent[-1]) - self._recent[0]
        seen = span / (len(self._recent) - 1) if len(self._recent) >= 2 and span > 0 else None
        if earlier or self._limits_pace is None or now - last.start >= MINUTE_S:
            return seen
        return max(seen or 0.0, self._limits_pace)

    def estimate(self, to_come: int) -> str:
        """ "about 9 min" for ``to_come`` blocks (``seconds_left``); "" when it says nothing."""
        seconds = self.seconds_left(to_come)
        if seconds is None:
            return ""
        return f"about {duration(seconds, rough=True)}"
