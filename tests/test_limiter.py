"""The client-side limiter: published free tiers, settings on top, headers read for their own
window, 429s that tighten; and the router waiting for it instead of meeting a 429."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from fastdesk.providers.base import RateLimitInfo
from fastdesk.providers.headers import parse_rate_limits
from fastdesk.routing.limiter import Limiter, Limits
from fastdesk.routing.retry import RetryPolicy
from fastdesk.routing.router import Backoff, Router
from fastdesk.routing.stats import StatsStore
from tests.emulator import Emulator, RateLimits
from tests.fakes import FakeClock

GROQ_8B = ("groq", "llama-3.1-8b-instant")
# The free tiers as published when these tests were written (Groq has since retired this model:
# the bundled table no longer lists it, so the tests bring their own).
FREE = {
    "groq": {
        "*": Limits(requests_per_minute=30, label="Groq free tier"),
        "llama-3.1-8b-instant": Limits(30, 14400, 6000, 500000, label="Groq free tier"),
    },
    "cerebras": {"gpt-oss-120b": Limits(30, 14400, 60000, 1000000, label="Cerebras free tier")},
}


def test_seeded_from_the_published_free_tiers_and_overridden_by_settings() -> None:
    limiter = Limiter(table=FREE)
    limits = limiter.limits(GROQ_8B)
    assert (limits.requests_per_minute, limits.requests_per_day) == (30, 14400)
    assert (limits.tokens_per_minute, limits.tokens_per_day) == (6000, 500000)
    assert limits.label == "Groq free tier"
    assert limiter.limits(("groq", "some-new-model")).requests_per_minute == 30  # "*"
    assert limiter.limits(("cerebras", "gpt-oss-120b")).tokens_per_minute == 60000
    assert limiter.limits(("openai", "local-model")) == Limits()  # a local server: no limit
    paid = Limiter({"groq": {"llama-3.1-8b-instant": {"requests_per_minute": 1000}}}, table=FREE)
    assert paid.limits(GROQ_8B).requests_per_minute == 1000
    assert paid.limits(GROQ_8B).tokens_per_minute is None  # not in the override: no limit


def test_the_users_lines_come_before_the_table_and_a_named_model_before_their_star() -> None:
    yours = {
        "groq": {
            "*": {"requests_per_minute": 1000, "tokens_per_minute": 300000},
            "openai/gpt-oss-120b": {"requests_per_minute": 50},
        }
    }
    limiter = Limiter(yours, table=FREE)
    paid = limiter.limits(GROQ_8B)  # published with its own line: the user's "*" wins
    assert (paid.requests_per_minute, paid.tokens_per_minute) == (1000, 300000)
    assert paid.requests_per_day is None and paid.label == "your settings"
    assert limiter.limits(("groq", "some-new-model")).requests_per_minute == 1000
    named = limiter.limits(("groq", "openai/gpt-oss-120b"))  # the user's own line for it
    assert (named.requests_per_minute, named.tokens_per_minute) == (50, None)
    free = limiter.limits(("cerebras", "gpt-oss-120b"))  # another provider: the table's
    assert (free.tokens_per_minute, free.label) == (60000, "Cerebras free tier")


def test_requests_per_minute_wait_for_the_oldest_to_leave_the_window() -> None:
    clock = FakeClock()
    limiter = Limiter(table=FREE, clock=clock)
    for _ in range(30):
        assert limiter.wait_s(GROQ_8B, 10) == 0.0
        limiter.book(GROQ_8B, 10)
        clock.now += 1
    assert limiter.wait_s(GROQ_8B, 10) == pytest.approx(30.0)
    assert limiter.why(GROQ_8B, 10) == "Groq free tier, 30 requests/min"
    clock.now += 30
    assert limiter.wait_s(GROQ_8B, 10) == 0.0


def test_tokens_per_minute_and_the_real_usage_replacing_the_booking() -> None:
    clock = FakeClock()
    limiter = Limiter(table=FREE, clock=clock)
    booking = limiter.book(GROQ_8B, 5000)
    assert limiter.wait_s(GROQ_8B, 2000) == pytest.approx(60.0)
    assert limiter.why(GROQ_8B, 2000) == "Groq free tier, 6,000 tokens/min"
    limiter.settle(booking, 1200)  # Groq counts what was used
    assert limiter.wait_s(GROQ_8B, 2000) == 0.0
    cerebras = ("cerebras", "gpt-oss-120b")
    booked = limiter.book(cerebras, 59000)
    limiter.settle(booked, 100)  # Cerebras keeps max_completion_tokens booked
    assert limiter.wait_s(cerebras, 2000) == pytest.approx(60.0)
    clock.now += 61
    assert limiter.wait_s(("groq", "x"), 10**6) == 0.0  # bigger than any budget: goes alone


@pytest.mark.parametrize(
    ("headers", "bare", "windows"),
    [
        (
            {"x-ratelimit-limit-requests": "14400", "x-ratelimit-remaining-tokens": "5"},
            "day",
            ("day", "minute"),
        ),  # Groq: -requests per day, -tokens per minute
        (
            {"x-ratelimit-limit-requests-day": "14400", "x-ratelimit-limit-tokens-minute": "6e4"},
            "day",
            ("day", "minute"),
        ),  # Cerebras names the window
        ({"x-ratelimit-limit-requests": "500"}, "minute", ("minute", "minute")),  # OpenAI-style
    ],
)
def test_headers_are_read_for_their_own_window(headers, bare, windows) -> None:
    info = parse_rate_limits(httpx.Headers(headers), bare_requests_per=bare)
    assert info is not None and (info.requests_per, info.tokens_per) == windows


def test_headers_tighten_the_limits_and_say_when_the_budget_is_spent() -> None:
    clock = FakeClock()
    limiter = Limiter(table=FREE, clock=clock)
    limiter.observe(
        GROQ_8B, RateLimitInfo(limit_tokens=3000, remaining_tokens=100, reset_tokens_s=2.0)
    )
    assert limiter.limits(GROQ_8B).tokens_per_minute == 3000  # lower than the table: adopted
    assert limiter.wait_s(GROQ_8B, 500) == pytest.approx(2.0)
    assert limiter.wait_s(GROQ_8B, 50) == 0.0
    limiter.observe(
        GROQ_8B, RateLimitInfo(limit_requests=14400, remaining_requests=0, reset_requests_s=7200.0)
    )
    assert limiter.limits(GROQ_8B).requests_per_day == 14400  # a per-day figure, read as such
    assert limiter.wait_s(GROQ_8B, 50) == pytest.approx(7200.0)
    assert limiter.why(GROQ_8B, 50) == "Groq free tier, 14,400 requests/day"


def test_a_429_after_many_requests_teaches_the_real_requests_per_minute() -> None:
    clock = FakeClock()
    limiter = Limiter(table={}, clock=clock)
    limiter.book(("groq", "m"), 1)
    limiter.rate_limited(("groq", "m"), 2.0)  # one request: says nothing about requests/min
    assert limiter.limits(("groq", "m")).requests_per_minute is None
    assert limiter.wait_s(("groq", "m"), 1) == pytest.approx(2.0)
    for _ in range(12):
        limiter.book(("groq", "m"), 1)
    limiter.rate_limited(("groq", "m"), None)
    assert limiter.limits(("groq", "m")).requests_per_minute == 12


def groq_router(emu: Emulator, **kw) -> Router:
    from fastdesk.providers.groq import GroqProvider

    provider = GroqProvider("gsk_test_not_a_real_key_000000", base_url=emu.groq_base_url)
    return Router({"groq": provider}, stats=StatsStore.memory(), explore_share=0.0, **kw)


MESSAGES = [{"role": "system", "content": "Translate."}, {"role": "user", "content": "Hello"}]


def test_the_router_waits_for_the_limiter_instead_of_meeting_a_429() -> None:
    model = "llama-3.1-8b-instant"
    table = {"groq": {"*": Limits(requests_per_minute=3, label="Groq free tier")}}
    with Emulator(limit_rpm=3, rate_limits=RateLimits()) as emu:

        async def go() -> Backoff:
            router = groq_router(emu, limiter=Limiter(table=table))
            for _ in range(3):
                async for _ev in router.stream(MESSAGES, model=model):
                    pass
            events = router.stream(MESSAGES, model=model)
            try:
                async for ev in events:
                    if isinstance(ev, Backoff):
                        return ev
            finally:
                await events.aclose()  # type: ignore[attr-defined]
                await router.aclose()
            raise AssertionError("no wait")

        wait = asyncio.run(go())
        assert emu.refused == 0 and len(emu.chat_requests) == 3
    assert 55 < wait.seconds <= 60 and wait.reason == "Groq free tier, 3 requests/min"


def test_a_429_from_a_limit_we_did_not_know_is_waited_out_then_answered() -> None:
    with Emulator(limit_rpm=2, limit_window_s=0.4) as emu:

        async def go() -> list[object]:
            router = groq_router(emu, retry=RetryPolicy(base_backoff_s=0.01))
            seen: list[object] = []
            for _ in range(3):
                async for ev in router.stream(MESSAGES, model="llama-3.1-8b-instant"):
                    seen.append(ev)
            await router.aclose()
            return seen

        seen = asyncio.run(go())
        assert emu.refused == 1 and len(emu.chat_requests) == 4
    [wait] = [e for e in seen if isinstance(e, Backoff)]
    assert wait.seconds == pytest.approx(1.0)  # retry-after: 1 (whole seconds)


def test_settings_override_reaches_the_router_and_a_bad_one_falls_back(tmp_path) -> None:
    from fastdesk.config.settings import load_settings
    from fastdesk.translate.wiring import build_router

    path = tmp_path / "settings.toml"
    path.write_text('version = 1\n[rate_limits.groq."*"]\nrequests_per_minute = 1000\n')
    settings, warnings = load_settings(path)
    assert warnings == []
    router = build_router(settings, env={"GROQ_API_KEY": "gsk_test_not_a_real_key_000000"})
    assert router.limiter.limits(("groq", "any-model")).requests_per_minute == 1000
    # the user's "*" is their tier for every groq model, the published lines included
    assert router.limiter.limits(GROQ_8B).requests_per_minute == 1000
    assert router.limiter.limits(GROQ_8B).tokens_per_minute is None
    path.write_text('version = 1\n[rate_limits.groq."*"]\nrequests_per_minute = "lots"\n')
    settings, warnings = load_settings(path)
    assert settings.rate_limits == {} and "rate_limits" in warnings[0]


def test_the_bundled_table_lists_current_models_with_the_day_and_the_source() -> None:
    import tomllib

    from fastdesk.config.paths import resource
    from fastdesk.routing.limiter import published

    raw = tomllib.loads(resource("rate_limits.toml").read_text(encoding="utf-8"))
    retired = {"llama-3.1-8b-instant", "llama-3.3-70b-versatile", "qwen/qwen3-32b", "llama3.1-8b"}
    for provider, models in raw.items():
        assert not retired & set(models), provider
        for entry in models.values():
            assert entry["read"] == "2026-12-02" and entry["source"].startswith("https://")
    groq = published()["groq"]["openai/gpt-oss-120b"]
    assert (groq.requests_per_minute, groq.requests_per_day) == (30, 1000)
    assert (groq.tokens_per_minute, groq.tokens_per_day) == (8000, 200000)
