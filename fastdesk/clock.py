"""The one clock every time-dependent part reads: the limiter's windows, provider health, the
router's statistics and retry budget, when an edit is sent, the retry of failed blocks, warm-ups.

Why one object: times from two clocks cannot be compared, and nothing says so when they are. The
window once paced an edit against a limiter on another clock (``max(now, free_at) - now`` with
``free_at`` from a clock 1,000 s ahead) and held it back for a quarter of an hour. So the wiring
creates one clock (a :class:`SystemClock`: ``fastdesk.translate.wiring`` for the command line,
the main window for the app) and hands it down; what crosses a thread carries waits (seconds
from now) or times of that one clock. Tests pass one clock they move by hand (``FakeClock`` in
``tests/fakes.py``).

Two readings, for two purposes:

- ``monotonic()``: seconds that never jump (``time.monotonic``); for waits, windows, deadlines;
  meaningful only within this process (its zero is an arbitrary point, e.g. the boot).
- ``wall()``: seconds since the epoch (``time.time``); for what is written to disk and read back
  by another run (the speed statistics' sample times, the model lists' dates).

Stopwatches that time one piece of work inside one function (``time.perf_counter`` in
``providers.base.Timing`` and the benchmarks) and asyncio deadlines taken from ``loop.time()``
inside one coroutine are the loop's or the function's own business and stay as they are.

A span of time is written for a reader in one way, here too: :func:`duration` for waits,
countdowns and estimates ("45 s", "3 min 5 s", "about 2 h 10 min"), :func:`milliseconds` for a
measured latency ("212 ms", "12.34 s").
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Protocol


class Clock(Protocol):
    """What a time-dependent part asks of its clock (see the module docstring)."""

    def monotonic(self) -> float: ...
    def wall(self) -> float: ...


@dataclass(frozen=True)
class SystemClock:
    """The system's clocks. Any two are equal (they read the same sources); a test's clock equals
    only itself, so ``a == b`` says whether times of ``a`` and of ``b`` may be compared."""

    def monotonic(self) -> float:
        return time.monotonic()

    def wall(self) -> float:
        return time.time()


def duration(seconds: float, *, rough: bool = False) -> str:
    """A wait or a countdown that stays readable up to a day's limit: "45 s", "119 s" (seconds
    until two minutes: a countdown under them moves visibly), "3 min 5 s", "2 h 10 min".
    ``rough``: an estimate, rounded up to whole minutes from two minutes on ("7 min", "1 h 30
    min"). Parts of a second count as a whole one, nothing below zero."""
    total = math.ceil(max(0.0, seconds))
    if total < 120:
        return f"{total} s"
    if rough:
        total = math.ceil(total / 60) * 60
    minutes, secs = divmod(total, 60)
    if minutes < 60:
        return f"{minutes} min {secs} s" if secs else f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"


def milliseconds(value: float | None, missing: str = "–") -> str:
    """A measured latency: "212 ms", in seconds from ten of them ("12.34 s"); ``missing`` when
    nothing was measured (the command line's tables keep to ASCII: "-")."""
    if value is None:
        return missing
    return f"{value / 1000:.2f} s" if value >= 10_000 else f"{value:.0f} ms"
