"""The review bar's estimate ("138 to come, about 9 min") against the truth of a paced run, on
the test's one clock: a tokens/minute limit brings the blocks in one burst a minute (Groq's free
tier: 8,000 tokens/min for openai/gpt-oss-20b), a requests/minute limit one every few seconds, a
paid key added mid-run fast and steady. The truth is when the run's last block arrives."""

from __future__ import annotations

import pytest

from fastdesk.review.backlog import Backlog
from fastdesk.translate.events import BlockDone, Waiting
from tests.fakes import FakeClock

TPM = "Groq free tier, 8,000 tokens/min"
SIZES = (40, 52, 31, 45, 36, 49, 28, 44, 38, 50)  # a minute's budget holds more short blocks


def bursts(sizes: tuple[int, ...], every: float = 61.0, over: float = 2.0) -> list[float]:
    """One burst a minute: ``over`` seconds of answers, then the wait for the minute's budget
    (a limiter counts an answer's tokens from its end, so a period is a little over 60 s)."""
    return [k * every + over * n / (size - 1) for k, size in enumerate(sizes) for n in range(size)]


class Run:
    """A Backlog fed the arrivals at ``times`` (seconds from the start) as the clock reaches
    them; ``waits``: after each burst a rate wait names the next burst's blocks, as the
    engine's limiter does."""

    def __init__(self, times: list[float], *, waits: bool = False) -> None:
        self.clock = FakeClock()
        self.start = self.clock.now
        self.backlog = Backlog(self.clock)
        self.times = times
        self.waits = waits
        self.done = 0
        self.backlog.take([Waiting(1, "groq", 0.5, TPM)])  # paced from the first request

    def feed(self, t: float) -> None:
        """Move to ``t``, each block arriving on its time."""
        while self.done < len(self.times) and self.times[self.done] <= t:
            self.clock.now = self.start + self.times[self.done]
            self.backlog.take([BlockDone(1, f"b{self.done}", "x", "model")])
            self.done += 1
            self.announce_next()
        self.clock.now = self.start + t

    def to(self, t: float) -> tuple[float, float]:
        """Move to ``t``; returns (the estimate's seconds, the true seconds left)."""
        self.feed(t)
        estimate = self.backlog.seconds_left(len(self.times) - self.done)
        assert estimate is not None
        return estimate, self.times[-1] - t

    def announce_next(self) -> None:
        after = self.times[self.done :]
        if not self.waits or not after or after[0] - self.times[self.done - 1] < 5.0:
            return
        ids = tuple(f"b{self.done + n}" for n, t in enumerate(after) if t < after[0] + 5.0)
        seconds = after[0] - self.times[self.done - 1]
        self.backlog.take([Waiting(1, "groq", seconds, TPM, block_ids=ids)])

    def ratio(self, t: float) -> float:
        estimate, truth = self.to(t)
        return estimate / truth


@pytest.mark.parametrize("waits", [False, True], ids=["no waits", "waits named"])
@pytest.mark.parametrize("sizes", [(40,) * 10, SIZES], ids=["40 a minute", "28-52 a minute"])
def test_bursts_a_minute_are_estimated_at_their_minute_pace(
    sizes: tuple[int, ...], waits: bool
) -> None:
    """At a tokens/minute limit the estimate is within 0.67-1.5x of the truth right after a
    burst, mid-minute and just before the next, from the second burst (one period of history)
    while four bursts or more are to come: the pace of the last 30 arrivals, a 2-second burst,
    said a twentieth of the truth right after each burst. (With fewer to come, the moment within
    the minute weighs more than the pace: three bursts just before the next are two minutes.)"""
    every = 61.0
    times = bursts(sizes, every)
    run = Run(times, waits=waits)
    for k in range(1, len(sizes) - 4):
        end = k * every + 2.0
        for t in (end + 0.1, end + 30.0, end + 57.0):
            assert 0.67 <= run.ratio(t) <= 1.5, (k, t - end, run.to(t))


def test_the_estimate_falls_steadily_while_a_burst_comes_in() -> None:
    """While a burst comes in (40 blocks in 2 s) the estimate falls block by block and stays
    near the truth: it neither leaps to the burst's own pace nor back up once it is over."""
    run = Run(bursts((40,) * 8))
    seen = [run.to(3 * 61.0 + 0.05 * n) for n in range(41)] + [run.to(3 * 61.0 + 10.0)]
    estimates = [estimate for estimate, _truth in seen]
    assert estimates == sorted(estimates, reverse=True)
    assert all(0.67 <= estimate / truth <= 1.5 for estimate, truth in seen)


@pytest.mark.parametrize("gap", [2.0, 15.0], ids=["30 requests/min", "4 requests/min"])
def test_a_steady_pace_is_estimated_as_closely_as_before(gap: float) -> None:
    """Evenly spaced arrivals (a requests/minute limit, one block a request): the estimate is
    the truth within a few percent, between arrivals as at them."""
    times = [gap * n for n in range(300)]
    run = Run(times)
    for t in (30 * gap, 30 * gap + gap / 2, 100 * gap, 200 * gap + gap * 0.95, 280 * gap):
        assert 0.95 <= run.ratio(t) <= 1.1, t


def test_a_paid_key_added_mid_run_is_followed_within_seconds() -> None:
    """Three minutes of free-tier bursts, then a paid key: ten blocks a second, steadily. The
    estimate follows within ten seconds (a burst's pace is not taken for the new pace, yet a
    steady stream longer than twice the bursts is)."""
    times = bursts((40,) * 4, 60.0)
    change = times[-1] + 5.0
    times += [change + 0.1 * n for n in range(2000)]
    run = Run(times)
    assert run.ratio(change - 1.0) > 10  # the free tier's pace: 1.5 s a block
    for t in (change + 10.0, change + 20.0, change + 60.0):
        assert 0.67 <= run.ratio(t) <= 1.5, t


def test_a_pause_in_a_steady_pace_does_not_hold_the_pace_before_it() -> None:
    """A steady pace (a block every 2 s) paused once (an answer 8 s late), then twice as fast:
    two minutes of the new pace, steady, are its pace, whatever came before the pause."""
    times = [2.0 * n for n in range(150)]
    times += [times[-1] + 8.0 + n for n in range(600)]
    run = Run(times)
    assert 0.95 <= run.ratio(times[149] + 8.0 + 125.0) <= 1.1


def test_a_burst_that_does_not_come_lengthens_the_estimate() -> None:
    """Bursts a minute, then nothing (the provider went quiet, no wait announced): once the
    next burst is overdue the estimate grows with the silence, as it did before."""
    times = bursts((40,) * 5, 60.0) + [1000.0 + n for n in range(200)]
    run = Run(times)
    quiet = 4 * 60.0 + 2.0
    on_time, _ = run.to(quiet + 50.0)
    overdue, _ = run.to(quiet + 240.0)
    assert overdue >= on_time * 1.5


def test_the_bar_says_the_pace_of_whole_minutes() -> None:
    """Three bursts of 40, a minute apart, the last just in: 80 blocks in the two minutes
    before it, 1.5 s a block (the last 30 arrivals said "about 3 s"); seconds under two
    minutes, minutes beyond, rounded up; nothing for nothing to come."""
    run = Run(bursts((40,) * 6, 60.0))
    run.to(2 * 60.0 + 2.5)
    assert run.backlog.estimate(40) == "about 60 s"
    assert run.backlog.estimate(200) == "about 5 min"
    assert run.backlog.estimate(0) == ""
    one = Run([0.0, 60.0])
    one.feed(30.0)
    assert one.backlog.estimate(40) == ""  # one arrival shows no pace


@pytest.mark.parametrize("waits", [False, True], ids=["no waits", "waits named"])
def test_the_first_minute_takes_the_limits_pace_from_the_plan(waits: bool) -> None:
    """Before a second burst there is no minute to measure: right after the first burst of 40
    the arrivals' pace said about a twentieth of the truth. Told the pace the account's limits
    allow (the window's estimate from the engine's plan: 61 s for 40 blocks), the estimate is
    near the truth from the first burst, mid-minute and before the second."""
    times = bursts((40,) * 8)
    run = Run(times, waits=waits)
    blind = Run(times, waits=waits)
    run.backlog.expect(61.0 / 40)
    assert run.backlog.estimate(320) == "about 9 min"  # before any arrival: 320 x 1.525 s
    for t in (2.1, 30.0, 58.0):
        assert 0.67 <= run.ratio(t) <= 1.5, (t, run.to(t))
    assert blind.ratio(2.1) < 0.2  # what the arrivals alone say right after the first burst


def test_the_limits_pace_gives_way_to_a_minute_of_steady_arrivals() -> None:
    """At a steady pace the arrivals are the truth: a limits' pace from the plan that is a
    third too slow counts only until they span a minute; a pace of 0 (not slowed by the
    limits) counts for nothing."""
    times = [2.0 * n for n in range(300)]
    run = Run(times)
    run.backlog.expect(2.0 * 4 / 3)
    assert run.ratio(30.0) == pytest.approx(4 / 3, rel=0.05)  # the first minute: the slower
    for t in (61.0, 200.0, 500.0):
        assert 0.95 <= run.ratio(t) <= 1.1, t
    free = Run(times)
    free.backlog.expect(0.0)
    assert 0.95 <= free.ratio(30.0) <= 1.1
