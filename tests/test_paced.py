"""Paced, never failed: while the rate is the only obstacle a request waits as long as it takes
(a patient router); a fault still fails once the retry budget is spent; a warm-up never waits."""

from __future__ import annotations

import asyncio

import pytest

from fastdesk.providers.base import ConnectionFailedError, RateLimitedError
from fastdesk.routing.limiter import Limiter, Limits
from fastdesk.routing.retry import RetryPolicy
from fastdesk.routing.router import AllProvidersFailed, Backoff, Router
from fastdesk.routing.stats import StatsStore
from tests.test_router import ANSWER, Scripted, consume

TIGHT = RetryPolicy(attempts=2, seconds=0.05, base_backoff_s=0.001, max_backoff_s=0.002)
# Two attempts and all the time they need: what ends the retries is their count, never what a
# loaded machine leaves of TIGHT's 50 ms
TWO_ATTEMPTS = RetryPolicy(attempts=2, seconds=60.0, base_backoff_s=0.001, max_backoff_s=0.002)


def router(provider: Scripted, retry: RetryPolicy = TIGHT, **kw) -> Router:
    return Router({provider.name: provider}, stats=StatsStore.memory(), retry=retry, **kw)


def test_429s_past_the_retry_budget_are_waited_out_by_a_patient_router() -> None:
    limited = [RateLimitedError("groq", "slow down", retry_after=0.01) for _ in range(4)]
    patient = Scripted("groq", failures=list(limited))
    text, events = asyncio.run(consume(router(patient, patient=True)))
    assert text == ANSWER and len(patient.calls) == 5  # four 429s, then the answer
    waits = [e for e in events if isinstance(e, Backoff)]
    assert len(waits) >= 4 and {w.kind for w in waits} == {"rate"}
    hasty = Scripted("groq", failures=list(limited))
    with pytest.raises(AllProvidersFailed, match="slow down"):
        asyncio.run(consume(router(hasty, TWO_ATTEMPTS)))  # a bare router keeps its budget
    assert len(hasty.calls) == 2


def test_a_limiter_wait_longer_than_the_budget_is_paced_not_failed() -> None:
    from tests.fakes import FakeClock as Clock

    clock = Clock()
    limiter = Limiter(table={"groq": {"*": Limits(requests_per_minute=1)}}, clock=clock)
    limiter.book(("groq", "m"), 1)
    provider = Scripted("groq")

    async def go() -> list[object]:
        events: list[object] = []
        stream = router(provider, patient=True, limiter=limiter).stream(
            [{"role": "user", "content": "x"}]
        )
        async for ev in stream:
            events.append(ev)
            if isinstance(ev, Backoff):
                clock.now += ev.seconds  # the minute passes (the sleep itself is real, 60 s: no)
        return events

    async def fast_sleep(_s: float) -> None:
        return None

    real = asyncio.sleep
    asyncio.sleep = fast_sleep  # type: ignore[assignment]
    try:
        events = asyncio.run(go())
    finally:
        asyncio.sleep = real  # type: ignore[assignment]
    waits = [e for e in events if isinstance(e, Backoff)]
    assert waits and waits[0].seconds == pytest.approx(60.0) and waits[0].kind == "rate"
    assert len(provider.calls) == 1


def test_an_outage_still_fails_when_the_budget_is_spent_and_says_outage() -> None:
    down = Scripted("groq", failures=[ConnectionFailedError("groq", "refused")] * 5)
    events: list[object] = []

    async def go() -> None:
        async for ev in router(down, patient=True).stream([{"role": "user", "content": "x"}]):
            events.append(ev)

    with pytest.raises(AllProvidersFailed, match="refused"):
        asyncio.run(go())
    waits = [e for e in events if isinstance(e, Backoff)]
    assert waits and waits[0].kind == "outage" and waits[0].reason == "groq unreachable"


def test_a_warm_up_does_not_wait_for_the_rate() -> None:
    limited = Scripted("groq", failures=[RateLimitedError("groq", "busy", retry_after=0.01)] * 3)
    with pytest.raises(AllProvidersFailed):
        asyncio.run(consume(router(limited, patient=True), max_tokens=1, purpose="warmup"))
