"""Retrying the same provider: retry-after (seconds, date, message), backoff with jitter, the
per-request budget, fallback first; and the engine's Waiting events."""

from __future__ import annotations

import asyncio
import random

import httpx
import pytest

from fastdesk.document.blocks import parse
from fastdesk.providers import errors
from fastdesk.providers.base import (
    AuthenticationError,
    ConnectionFailedError,
    RateLimitedError,
    ServerError,
)
from fastdesk.providers.headers import retry_after_from_headers
from fastdesk.routing.retry import RetryBudget, RetryPolicy
from fastdesk.routing.router import AllProvidersFailed, Backoff, Router
from fastdesk.translate.engine import Engine
from fastdesk.translate.events import BlockDone, Waiting
from fastdesk.translate.job import JobSpec
from fastdesk.translate.request import failure_message
from tests.test_router import ANSWER, Scripted, consume, dones, router_of

QUICK = RetryPolicy(base_backoff_s=0.01, max_backoff_s=0.02)


class FailsOnce(Scripted):
    """Fails its first answer after some chunks (``fail_after``), then answers."""

    async def stream(self, request):  # type: ignore[override]
        try:
            async for event in super().stream(request):
                yield event
        finally:
            self.fail_after = None


def backoffs(events: list[object]) -> list[Backoff]:
    return [e for e in events if isinstance(e, Backoff)]


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Every wait of more than nothing that was slept (the router's backoffs; the scripted
    providers here sleep only 0): the waits are read, not timed."""
    slept: list[float] = []
    real_sleep = asyncio.sleep

    async def recording_sleep(delay: float, result: object = None) -> object:
        if delay > 0:
            slept.append(delay)
        return await real_sleep(delay, result)

    monkeypatch.setattr(asyncio, "sleep", recording_sleep)
    return slept


def test_a_429_on_the_only_provider_waits_its_retry_after_then_answers(sleeps) -> None:
    groq = Scripted("groq", failures=[RateLimitedError("groq", "slow down", retry_after=0.05)])
    router = router_of(groq, retry=QUICK)
    text, events = asyncio.run(consume(router))
    assert text == ANSWER and len(groq.calls) == 2
    assert sleeps == [pytest.approx(0.05)]  # it slept the retry-after, once, before the retry
    [wait] = backoffs(events)
    assert wait.provider == "groq" and wait.seconds == pytest.approx(0.05)
    assert wait.reason == "groq rate limit reached"
    assert dones(events) == [("groq", "error"), ("groq", "ok")]


@pytest.mark.parametrize(
    "error",
    [
        ServerError("groq", "HTTP 503", status=503),
        ConnectionFailedError("groq", "the stream ended before the answer did"),
        ConnectionFailedError("groq", "malformed event in the stream"),
    ],
)
def test_a_fault_mid_answer_is_retried_with_exact_text(error) -> None:
    groq = FailsOnce("groq", fail_after=(3, error))
    text, events = asyncio.run(consume(router_of(groq, retry=QUICK)))
    assert text == ANSWER  # the partial first answer was taken back (Restart)
    assert len(backoffs(events)) == 1 and len(groq.calls) == 2


def test_backoff_doubles_with_jitter_up_to_its_maximum() -> None:
    policy = RetryPolicy(base_backoff_s=1.0, max_backoff_s=8.0)
    rng = random.Random(3)
    for retries, full in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (9, 8.0), (500, 8.0)]:
        waits = {policy.backoff(retries, rng) for _ in range(20)}
        assert all(full / 2 <= w <= full for w in waits)
        assert len(waits) > 1  # jitter: requests that failed together do not return together


def test_the_budget_counts_attempts() -> None:
    groq = Scripted("groq", fail_before=ServerError("groq", "HTTP 500", status=500))
    router = router_of(groq, retry=RetryPolicy(attempts=3, base_backoff_s=0.01))
    with pytest.raises(AllProvidersFailed):
        asyncio.run(consume(router))
    assert len(groq.calls) == 3


def test_a_wait_longer_than_the_budget_fails_at_once(sleeps) -> None:
    groq = Scripted("groq", fail_before=RateLimitedError("groq", "slow", retry_after=30))
    router = router_of(groq, retry=RetryPolicy(seconds=1.0))
    with pytest.raises(AllProvidersFailed) as info:
        asyncio.run(consume(router))
    assert sleeps == [] and len(groq.calls) == 1  # failed without waiting at all
    assert info.value.last.kind == "rate_limited"


def test_a_refused_key_is_not_retried() -> None:
    groq = Scripted("groq", fail_before=AuthenticationError("groq", "bad key", status=401))
    with pytest.raises(AllProvidersFailed):
        asyncio.run(consume(router_of(groq, retry=QUICK)))
    assert len(groq.calls) == 1


def test_fallback_to_another_provider_comes_before_waiting() -> None:
    groq = Scripted("groq", fail_before=ServerError("groq", "HTTP 503", status=503))
    text, events = asyncio.run(consume(router_of(groq, Scripted("cerebras"), retry=QUICK)))
    assert text == ANSWER and backoffs(events) == []
    assert dones(events) == [("groq", "error"), ("cerebras", "ok")]


def test_a_retry_after_date_far_away_is_capped_everywhere() -> None:
    headers = httpx.Headers({"retry-after": "Fri, 31 Dec 2099 23:59:59 GMT"})
    seconds = retry_after_from_headers(headers)
    assert seconds is not None and seconds > 10**9  # what the server said …
    error = RateLimitedError("groq", "slow down", retry_after=seconds)
    policy = RetryPolicy()
    message = failure_message(AllProvidersFailed([error]), policy)
    assert message == "groq: rate limit reached; try again in 60 s."  # … and what we show
    budget = RetryBudget(RetryPolicy(retry_after_cap_s=0.02), random.Random(1))
    assert budget.next_wait([error]) == (pytest.approx(0.02), error)  # … and what we wait
    router = router_of(Scripted("groq"))
    router.health.failure("groq", "m", error)
    [entry] = router.health_report()
    assert entry.retry_in_s is not None and entry.retry_in_s <= 60


def test_the_engine_says_it_is_waiting_and_the_document_still_translates() -> None:
    groq = Scripted("groq", failures=[RateLimitedError("groq", "slow", retry_after=0.02)])
    groq.text = "Bonjour."
    engine = Engine(router_of(groq, retry=QUICK))
    events: list[object] = []
    asyncio.run(engine.run(parse("Hello.\n"), JobSpec(), emit=events.append))
    [waiting] = [e for e in events if isinstance(e, Waiting)]
    assert waiting.message == "waiting 1 s: groq rate limit reached"
    assert [e.text for e in events if isinstance(e, BlockDone)] == ["Bonjour.\n"]


def test_policy_from_settings_keeps_defaults_for_what_is_missing() -> None:
    policy = RetryPolicy.from_settings({"retry_attempts": 2, "retry_after_cap_s": 5})
    assert (policy.attempts, policy.seconds, policy.retry_after_cap_s) == (2, 90.0, 5.0)
    assert isinstance(Router({}, retry=policy).retry, RetryPolicy)


def test_requests_settings_are_read_and_a_bad_entry_falls_back(tmp_path) -> None:
    from fastdesk.config.settings import load_settings

    path = tmp_path / "settings.toml"
    path.write_text("version = 1\n[requests]\nretry_attempts = 3\nretry_seconds = 2.5\n")
    settings, warnings = load_settings(path)
    assert settings.requests == {"retry_attempts": 3, "retry_seconds": 2.5} and warnings == []
    path.write_text("version = 1\n[requests]\nretry_attempts = 0.5\n")
    settings, warnings = load_settings(path)
    assert settings.requests == {} and "retry_attempts" in warnings[0]


def test_groq_413_over_tokens_per_minute_is_a_rate_limit() -> None:
    message = (
        "Rate limit reached for model `llama-3.1-8b-instant` on tokens per minute (TPM): "
        "Limit 6000, Used 5000, Requested 1500. Please try again in 2.5s."
    )
    error = errors.from_status("groq", 413, message)
    assert isinstance(error, RateLimitedError) and error.retry_after == pytest.approx(2.5)
    assert not isinstance(errors.from_status("groq", 413, "Payload too large"), RateLimitedError)
