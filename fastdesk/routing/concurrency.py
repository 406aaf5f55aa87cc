"""How many streams may be in flight to one provider and model: additive increase,
multiplicative decrease, as TCP's congestion window (RFC 5681).

A fixed 4 left a paid account's room unused (the 68-page benchmark tied a peer that also runs
4) and a free tier's minute spent on waits. So each (provider, model) has a window: it starts
at ``START``; each answer that came back with a prompt first token while the limiter had room
for another request like it (the account's headers allow it) widens it, by one per answer up
to the last window that was cut (slow start), then by one per window's worth of answers; a 429
or a first token much slower than the best seen lately halves it, once per window's worth of
answers (the answers already under way when the first came say nothing new). The engine's
request slots follow the window of the choice it would send to, under the cap the user set
(``--concurrency N``, ``[general] concurrency``). No clock: it moves by answers, not time.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field

Pair = tuple[str, str]

START = 4  # what every choice starts at (what a fixed limit was before)
CEILING = 32  # the most a window grows to, whatever the account allows
SLOW_FACTOR = 3.0  # a first token this many times the best recent one is "slow"...
SLOW_MIN_MS = 1000.0  # ...and this much slower at least (a 50 ms server jitters to 200)
RECENT = 20  # first tokens kept to know the best recent one


@dataclass
class _Window:
    size: float = float(START)
    threshold: float = float(CEILING)  # slow start below, one per window's answers above
    since_cut: int = 1_000_000  # answers settled since the last cut
    ttfb_ms: deque[float] = field(default_factory=lambda: deque(maxlen=RECENT))


class Concurrency:
    """The window of each (provider, model); see the module docstring."""

    def __init__(self, start: int = START, ceiling: int = CEILING) -> None:
        self.start = max(1, start)
        self.ceiling = max(self.start, ceiling)
        self._windows: dict[Pair, _Window] = {}

    def _get(self, pair: Pair) -> _Window:
        found = self._windows.get(pair)
        if found is None:
            found = self._windows[pair] = _Window(
                size=float(self.start), threshold=float(self.ceiling)
            )
        return found

    def window(self, pair: Pair) -> int:
        """Streams that may be in flight to ``pair`` now (at least 1)."""
        return max(1, math.floor(self._get(pair).size))

    def settle(
        self, pair: Pair, *, ok: bool, throttled: bool, ttfb_ms: float | None, room: bool
    ) -> None:
        """An attempt to ``pair`` ended: ``ok`` (an answer), ``throttled`` (a 429), its first
        token's wait, and whether the limiter has room for another like it now."""
        w = self._get(pair)
        w.since_cut += 1
        slow = False
        if ttfb_ms is not None and ok:
            best = min(w.ttfb_ms, default=None)
            slow = best is not None and ttfb_ms > max(SLOW_FACTOR * best, best + SLOW_MIN_MS)
            w.ttfb_ms.append(ttfb_ms)
        if throttled or slow:
            if w.since_cut >= w.size:  # once per window's worth of answers
                w.size = max(1.0, w.size / 2)
                w.threshold = max(1.0, w.size)
                w.since_cut = 0
            return
        if not ok or not room:
            return
        step = 1.0 if w.size < w.threshold else 1.0 / w.size
        w.size = min(float(self.ceiling), w.size + step)
