"""Auto routing run after run: each run a new process (a new router over the stats the last one
saved), as ``fastdesk translate --provider auto`` is run by a user or a script. The clock is the
test's own; each request's time to first token is what the simulated provider takes, its first
request in a process slower (a new connection: the cold start every process pays).

What must hold (docs/routing.md §4-5): once a provider is measured faster it keeps at least 90 %
of the traffic in every run; when the two swap speeds, routing follows within two runs and holds
there. The figures this simulates were measured with benchmarks/bench_routing_swap.py."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from fastdesk.routing.retry import RetryPolicy
from fastdesk.routing.router import START_PROBES, Router
from fastdesk.routing.stats import StatsStore
from tests.fakes import FakeClock
from tests.test_router import Scripted

A, B = ("groq", "m"), ("cerebras", "m")
FAST_MS, SLOW_MS = 30.0, 400.0
RUN_GAP_S = 5.0  # runs a few seconds apart (a script), not minutes


def run_of(
    path: Path,
    clock: FakeClock,
    rng: random.Random,
    speed: dict[tuple[str, str], float],
    *,
    requests: int = 30,
    in_flight: int = 4,
    cold_ms: float = 600.0,
) -> list[tuple[str, str]]:
    """One process: a router over the saved stats; ``requests`` decisions, ``in_flight`` of them
    made before any of their answers is measured; the stats saved at the end."""
    store = StatsStore.load(path, clock=clock)
    router = Router(
        {"groq": Scripted("groq"), "cerebras": Scripted("cerebras")},
        stats=store,
        retry=RetryPolicy.none(),
        rng=random.Random(rng.random()),
        explore_share=0.05,
    )
    chosen: list[tuple[str, str]] = []
    warm: set[tuple[str, str]] = set()
    while len(chosen) < requests:
        group = min(in_flight, requests - len(chosen))
        picks = [router.choose(purpose="translate")[0] for _ in range(group)]
        for pick in picks:
            ms = speed[pick] + rng.uniform(0, 25) + (0.0 if pick in warm else cold_ms)
            warm.add(pick)
            store.observe(pick, ttfb_ms=ms, tokens_per_s=500.0)
            clock.now += ms / 1000
        chosen += picks
    store.save()
    clock.now += RUN_GAP_S
    return chosen


def shares(seed: int, tmp_path: Path, runs: int, swap_after: int, cold_ms: float) -> list[float]:
    """The faster provider's share of each run's requests."""
    clock = FakeClock(1_000_000.0)
    rng = random.Random(seed)
    path = tmp_path / f"router-stats-{seed}.json"
    out = []
    for run in range(runs):
        swapped = run >= swap_after
        speed = {A: SLOW_MS if swapped else FAST_MS, B: FAST_MS if swapped else SLOW_MS}
        faster = B if swapped else A
        chosen = run_of(path, clock, rng, speed, cold_ms=cold_ms)
        out.append(sum(p == faster for p in chosen) / len(chosen))
    return out


@pytest.mark.parametrize("cold_ms", [0.0, 600.0, 2500.0])
def test_the_faster_provider_keeps_nine_tenths_and_a_swap_is_followed_within_two_runs(
    tmp_path: Path, cold_ms: float
) -> None:
    """Two runs to learn, three before the swap, seven after it: from the second run on, the
    faster one has >= 90 % of each run's requests, except the two runs right after the swap;
    over 20 seeds (the exploring's randomness), whatever a process's first request costs."""
    for seed in range(20):
        got = shares(seed, tmp_path, runs=10, swap_after=3, cold_ms=cold_ms)
        held = got[1:3] + got[5:]
        assert min(held) >= 0.9, (seed, [f"{s:.0%}" for s in got])


def test_exploring_stays_small_and_bounded(tmp_path: Path) -> None:
    """With nothing changing, the slower provider gets at most 10 % of any run, and over all
    runs no more than the start's probe (two requests a process) and a little of the share."""
    total = slower = 0
    for seed in range(10):
        got = shares(seed, tmp_path, runs=6, swap_after=99, cold_ms=600.0)
        assert min(got[1:]) >= 0.9, (seed, got)
        total += 30 * 5
        slower += round(sum(30 * (1 - s) for s in got[1:]))
    assert slower / total <= (START_PROBES + 0.1) / 30, slower / total
