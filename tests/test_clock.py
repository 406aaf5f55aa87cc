"""One clock: every time-dependent part reads the clock the wiring made, a part on another clock
is refused where it would be mixed in, and the tests that move a clock by hand pass on a machine
that booted a minute ago (``time.monotonic()`` reads ~60 s there, below a test clock's 1,000)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import fastdesk
from fastdesk.clock import SystemClock, duration, milliseconds
from fastdesk.routing.health import Health
from fastdesk.routing.limiter import Limiter
from fastdesk.routing.router import Router
from fastdesk.routing.stats import StatsStore
from fastdesk.translate.wiring import build_engine
from tests.fakes import FakeClock, FakeProvider

ROOT = Path(fastdesk.__file__).resolve().parent.parent

# Loaded by the interpreter at start-up (from PYTHONPATH): the clocks that count from the boot
# read 60 s when the process starts, as on a machine that has just booted.
JUST_BOOTED = """\
import time

_monotonic, _monotonic_ns = time.monotonic, time.monotonic_ns
_perf_counter, _perf_counter_ns = time.perf_counter, time.perf_counter_ns
_SHIFT_NS = _monotonic_ns() - 60 * 10**9
_PERF_SHIFT_NS = _perf_counter_ns() - 60 * 10**9
time.monotonic = lambda: _monotonic() - _SHIFT_NS / 1e9
time.monotonic_ns = lambda: _monotonic_ns() - _SHIFT_NS
time.perf_counter = lambda: _perf_counter() - _PERF_SHIFT_NS / 1e9
time.perf_counter_ns = lambda: _perf_counter_ns() - _PERF_SHIFT_NS
"""

# The tests that put a part on a clock moved by hand: the window's retry of failed blocks, the
# limiter, the sending policy, provider health (in the router's tests) and the retry budget.
CLOCKED_TESTS = (
    "tests/ui/test_heal.py",
    "tests/test_limiter.py",
    "tests/test_sending.py",
    "tests/test_router.py",
    "tests/test_retry.py",
)


def just_booted_env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "sitecustomize.py").write_text(JUST_BOOTED, encoding="utf-8")
    paths = [str(tmp_path), str(ROOT), os.environ.get("PYTHONPATH", "")]
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(p for p in paths if p),
        "QT_QPA_PLATFORM": "offscreen",
    }


def test_the_clocked_tests_pass_on_a_machine_that_booted_a_minute_ago(tmp_path: Path) -> None:
    env = just_booted_env(tmp_path)
    probe = [sys.executable, "-c", "import time; print(time.monotonic(), time.perf_counter())"]
    shown = subprocess.run(probe, env=env, capture_output=True, text=True, check=True).stdout
    assert all(50 < float(v) < 120 for v in shown.split()), shown  # the shift is in force
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *CLOCKED_TESTS],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert " passed" in run.stdout and " failed" not in run.stdout


def test_system_clocks_are_one_clock_and_a_test_clock_only_itself() -> None:
    assert SystemClock() == SystemClock()
    fake = FakeClock()
    assert fake == fake and fake != FakeClock() and fake != SystemClock()
    fake.now += 30
    assert fake.monotonic() == fake.wall() == 1030.0  # its two readings advance together


def test_the_router_and_its_parts_read_one_clock() -> None:
    clock = FakeClock()
    providers = {"groq": FakeProvider()}
    router = Router(providers, stats=StatsStore.memory(), limiter=Limiter(clock=clock))
    assert router.clock is clock and router.health.clock is clock  # made on the limiter's clock
    router = Router(providers, stats=StatsStore.memory(), clock=clock)
    assert router.limiter.clock is clock and router.health.clock is clock
    with pytest.raises(ValueError, match="one clock"):
        Router({}, stats=StatsStore.memory(), limiter=Limiter(clock=clock), health=Health())
    with pytest.raises(ValueError, match="one clock"):
        Router({}, stats=StatsStore.memory(), health=Health(clock=FakeClock()), clock=clock)


def test_the_wiring_hands_its_one_clock_to_every_part() -> None:
    clock = FakeClock()
    from fastdesk.config.settings import Settings

    env = {"GROQ_API_KEY": "gsk_test_not_a_real_key_000000"}
    router = build_engine(Settings(), env=env, use_memory=False, clock=clock).router
    assert router.clock is clock
    assert router.limiter.clock is clock and router.health.clock is clock
    assert router.stats.clock is clock
    made = build_engine(Settings(), env=env, use_memory=False).router  # the command line's
    assert made.limiter.clock is made.clock and made.health.clock is made.clock
    assert made.clock == SystemClock()


def test_a_wait_is_said_in_seconds_until_two_minutes_then_in_minutes_and_hours() -> None:
    """The countdowns (a retry, a rate wait) and the estimates (the review bar's, the document's)
    share one set of thresholds; an estimate is rounded up to whole minutes past two."""
    exact = [duration(s) for s in (-3, 0, 0.2, 44.01, 119, 120, 185, 3599, 3600, 7800, 7859)]
    assert exact == [
        "0 s",
        "0 s",
        "1 s",
        "45 s",
        "119 s",
        "2 min",
        "3 min 5 s",
        "59 min 59 s",
        "1 h",
        "2 h 10 min",
        "2 h 10 min",
    ]
    rough = [duration(s, rough=True) for s in (59.5, 119.2, 121, 185, 3599, 5400, 7859)]
    assert rough == ["60 s", "2 min", "3 min", "4 min", "1 h", "1 h 30 min", "2 h 11 min"]


def test_a_latency_is_said_in_milliseconds_until_ten_seconds() -> None:
    assert [milliseconds(v) for v in (0, 212.4, 9_999, 10_000, 12_345)] == [
        "0 ms",
        "212 ms",
        "9999 ms",
        "10.00 s",
        "12.35 s",
    ]
    assert milliseconds(None) == "–" and milliseconds(None, "-") == "-"
