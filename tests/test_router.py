"""Router: ranking, quality rules, exploration, health, fallback without doubled text, hedging,
persisted windows. Logic tests use small scripted fakes; the issue's end-to-end tests run two
provider emulators (real SDKs over loopback) at the bottom."""

from __future__ import annotations

import asyncio
import json
import math
import random
import threading
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass, field
from typing import Any, cast

import pytest

from fastdesk.config.paths import data_dir
from fastdesk.providers.base import (
    AuthenticationError,
    BadRequestError,
    ChatRequest,
    ConnectionFailedError,
    ModelInfo,
    ProviderError,
    ProviderTimeoutError,
    RateLimitedError,
    ServerError,
    StreamEnd,
    StreamEvent,
    TextDelta,
    Usage,
)
from fastdesk.routing.health import Health
from fastdesk.routing.limiter import Limiter, Limits
from fastdesk.routing.retry import RetryPolicy
from fastdesk.routing.router import (
    START_PROBES,
    AllProvidersFailed,
    Attempt,
    AttemptDone,
    Restart,
    Router,
)
from fastdesk.routing.stats import STATS_FILE, StatsStore
from tests.fakes import FakeClock, until

ANSWER = "Bonjour le monde : une réponse complète, accentuée, sans doublon."
MESSAGES = [{"role": "system", "content": "Translate."}, {"role": "user", "content": "Hello"}]


@dataclass
class Scripted:
    """A provider whose timing and failures the test controls exactly."""

    name: str
    default_model: str = "m"
    text: str = ANSWER
    chunk: int = 6
    ttfb: float = 0.0
    gate: asyncio.Event | None = None  # wait for it before the first token
    fail_before: ProviderError | None = None
    fail_after: tuple[int, ProviderError] | None = None  # after n chunks
    usage_first: bool = False  # report usage before the text (so a cancel knows the cost)
    raise_bug: bool = False
    calls: list[ChatRequest] = field(default_factory=list)
    cancelled: int = 0
    failures: list[ProviderError] = field(default_factory=list)  # one per call, then ok

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        self.calls.append(request)
        try:
            if self.usage_first:
                yield Usage(prompt_tokens=1000, completion_tokens=0)
            if self.ttfb:
                await asyncio.sleep(self.ttfb)
            if self.gate is not None:
                await self.gate.wait()
            if self.raise_bug:
                raise KeyError("adapter bug")
            if self.failures:
                raise self.failures.pop(0)
            if self.fail_before is not None:
                raise self.fail_before
            pieces = [self.text[i : i + self.chunk] for i in range(0, len(self.text), self.chunk)]
            for n, piece in enumerate(pieces):
                if self.fail_after is not None and n == self.fail_after[0]:
                    raise self.fail_after[1]
                yield TextDelta(piece)
                await asyncio.sleep(0)
            yield Usage(prompt_tokens=20, completion_tokens=len(self.text) // 4)
            yield StreamEnd("stop")
        except asyncio.CancelledError:
            self.cancelled += 1
            raise

    async def list_models(self) -> list[ModelInfo]:
        return [ModelInfo(self.default_model)]

    async def aclose(self) -> None:
        return None


async def consume(
    router: Router, messages: list[dict[str, str]] = MESSAGES, **kw
) -> tuple[str, list[object]]:
    """What an engine that honours Restart would assemble, and every event."""
    events: list[object] = []
    text: list[str] = []
    async for ev in router.stream(messages, **kw):
        events.append(ev)
        if isinstance(ev, Restart):
            text.clear()
        elif isinstance(ev, TextDelta):
            text.append(ev.text)
    return "".join(text), events


def router_of(*providers: Scripted, **kw) -> Router:
    """A router that keeps nothing on disk and, unless told, never explores nor retries."""
    kw.setdefault("stats", StatsStore.memory())
    kw.setdefault("retry", RetryPolicy.none())
    kw.setdefault("explore_share", 0.0)
    return Router({p.name: p for p in providers}, **kw)


def seed(store: StatsStore, pair: tuple[str, str], ttfb: float, tps: float | None = None, n=5):
    for _ in range(n):
        store.observe(pair, ttfb_ms=ttfb, tokens_per_s=tps)


def dones(events: list[object]) -> list[tuple[str, str]]:
    return [(e.stats.provider, e.stats.status) for e in events if isinstance(e, AttemptDone)]


# ---- ranking ---------------------------------------------------------------------------------


def test_unmeasured_choices_keep_configuration_order() -> None:
    router = router_of(Scripted("cerebras"), Scripted("groq"))
    assert router.candidates() == [("cerebras", "m"), ("groq", "m")]


def test_measured_choices_are_ranked_by_time_to_first_token_and_come_first() -> None:
    router = router_of(Scripted("cerebras"), Scripted("groq"), Scripted("openai"))
    seed(router.stats, ("groq", "m"), 200)
    seed(router.stats, ("openai", "m"), 300)
    assert router.candidates() == [("groq", "m"), ("openai", "m"), ("cerebras", "m")]


def test_expected_tokens_rank_on_completion_time() -> None:
    # groq: quick first token, slow stream; cerebras: slower first token, very fast stream
    router = router_of(Scripted("groq"), Scripted("cerebras"))
    seed(router.stats, ("groq", "m"), 150, tps=100)
    seed(router.stats, ("cerebras", "m"), 300, tps=2000)
    assert router.candidates()[0] == ("groq", "m")  # no estimate: raw time to first token
    assert router.candidates(expected_tokens=10)[0] == ("groq", "m")  # 250 ms vs 305 ms
    assert router.candidates(expected_tokens=400)[0] == ("cerebras", "m")  # 4150 vs 500 ms
    choice = router.ranking(expected_tokens=400)[0]
    assert choice.predicted_ms == pytest.approx(300 + 400 / 2000 * 1000)


def test_recent_samples_decide_so_a_slowdown_is_followed_quickly() -> None:
    router = router_of(Scripted("groq"), Scripted("cerebras"))
    seed(router.stats, ("groq", "m"), 100, n=20)
    seed(router.stats, ("cerebras", "m"), 250, n=20)
    assert router.candidates()[0] == ("groq", "m")
    seed(router.stats, ("groq", "m"), 900, n=3)  # three slow answers in a row
    assert router.candidates()[0] == ("cerebras", "m")


def test_each_provider_offers_its_default_and_listed_models() -> None:
    models = {"groq": ["b", "a"]}
    router = router_of(Scripted("groq", "a"), Scripted("cerebras", "x"), models=models)
    assert router.pairs() == [("groq", "a"), ("groq", "b"), ("cerebras", "x")]
    assert router.candidates("groq") == [("groq", "a"), ("groq", "b")]
    seed(router.stats, ("groq", "b"), 50)
    assert router.candidates("groq") == [("groq", "b"), ("groq", "a")]
    assert router.candidates("groq", "zzz") == [("groq", "zzz")]  # an explicit pin is obeyed
    assert router.candidates("openai") == []


# ---- quality rules ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "excluded",
    [
        {("groq", "llama-3.1-8b-instant")},
        {"groq/llama-3.1-8b-instant"},
        {"llama-3.1-8b-instant"},
        {"groq": ["llama-3.1-8b-instant"]},
    ],
)
def test_excluded_models_are_never_chosen(excluded) -> None:
    groq = Scripted("groq", "llama-3.1-8b-instant")
    router = router_of(groq, Scripted("cerebras", "gpt-oss-120b"), excluded=excluded)
    seed(router.stats, ("groq", "llama-3.1-8b-instant"), 10)  # the fastest, but poor accents
    assert router.candidates() == [("cerebras", "gpt-oss-120b")]
    text, _ = asyncio.run(consume(router))
    assert text == ANSWER and groq.calls == []


def test_model_ids_with_slashes_and_whole_providers_can_be_excluded() -> None:
    router = router_of(
        Scripted("groq", "qwen/qwen3-32b"),
        Scripted("cerebras", "gpt-oss-120b"),
        models={"groq": ["openai/gpt-oss-20b"]},
        excluded={"qwen/qwen3-32b", "cerebras"},
    )
    assert router.candidates() == [("groq", "openai/gpt-oss-20b")]


def test_everything_excluded_fails_with_a_clear_reason() -> None:
    router = router_of(Scripted("groq", "a"), excluded={"a"})
    with pytest.raises(AllProvidersFailed, match="excluded"):
        asyncio.run(consume(router))


def test_preferred_model_per_language_goes_first_then_the_rest_as_fallback() -> None:
    router = router_of(
        Scripted("groq", "llama-3.1-8b-instant"),
        Scripted("cerebras", "gpt-oss-120b"),
        models={"groq": ["qwen/qwen3-32b"]},
        preferred={"ja": "qwen/qwen3-32b", "fr": {"cerebras": "gpt-oss-120b"}},
    )
    seed(router.stats, ("groq", "llama-3.1-8b-instant"), 10)
    assert router.candidates(lang="ja")[0] == ("groq", "qwen/qwen3-32b")
    assert router.candidates(lang="fr-CA")[0] == ("cerebras", "gpt-oss-120b")  # fr-CA → fr
    assert router.candidates(lang="de")[0] == ("groq", "llama-3.1-8b-instant")
    assert len(router.candidates(lang="ja")) == 3


# ---- exploration -----------------------------------------------------------------------------


def exploring_router(seed_value: int, share: float = 0.05) -> Router:
    router = router_of(
        Scripted("groq"), Scripted("cerebras"), rng=random.Random(seed_value), explore_share=share
    )
    seed(router.stats, ("groq", "m"), 100)
    seed(router.stats, ("cerebras", "m"), 300)
    return router


def test_exploration_is_a_bounded_share_and_deterministic_with_a_seeded_rng() -> None:
    def firsts(router: Router) -> list[tuple[str, str]]:
        order = router.candidates()
        return [router._explore(order, set(), "translate")[0] for _ in range(2000)]

    a = firsts(exploring_router(7))
    explored = sum(1 for f in a if f == ("cerebras", "m"))
    assert 0.02 * len(a) < explored <= 0.05 * len(a) + 1
    # never more than the share (or the start's probes) at any point, not only on average
    running = 0
    for n, f in enumerate(a, start=1):
        running += f == ("cerebras", "m")
        assert running <= max(0.05 * n, START_PROBES)
    assert firsts(exploring_router(7)) == a
    assert firsts(exploring_router(8)) != a


def test_a_new_choice_is_tried_once_at_the_first_chance_then_probes_stay_rare() -> None:
    router = router_of(
        Scripted("groq"), Scripted("cerebras"), rng=random.Random(5), explore_share=0.05
    )
    seed(router.stats, ("groq", "m"), 100)
    firsts = [router._explore(router.candidates(), set(), "translate")[0] for _ in range(3)]
    assert firsts[0] == ("cerebras", "m")  # unmeasured: tried at once (the budget's "plus one")
    assert firsts[1:] == [("groq", "m")] * 2  # cerebras still unmeasured, but the budget is spent
    assert router.explored == 1


def test_no_exploration_for_warmups_or_a_single_choice() -> None:
    router = exploring_router(1, share=1.0)
    order = router.candidates()
    assert all(router._explore(order, set(), "warmup") == order for _ in range(50))
    single = router_of(Scripted("groq"), rng=random.Random(1), explore_share=1.0)
    assert all(single._explore(single.candidates(), set(), "translate") for _ in range(50))
    assert single.explored == 0


def test_exploration_tries_unmeasured_choices_first_then_the_stalest() -> None:
    clock = FakeClock()
    store = StatsStore(None, clock=clock)
    router = router_of(
        Scripted("groq"),
        Scripted("cerebras"),
        Scripted("openai"),
        stats=store,
        rng=random.Random(3),
        explore_share=1.0,
    )
    seed(store, ("groq", "m"), 100)
    clock.now += 10
    seed(store, ("cerebras", "m"), 300)
    order = router.candidates()
    assert order[-1] == ("openai", "m")  # unmeasured: ranked last ...
    assert router._explore(order, set(), "translate")[0] == ("openai", "m")  # ... tried soon
    clock.now += 10
    store.observe(("openai", "m"), ttfb_ms=400)  # a cold answer (a new connection) ...
    # ... so the start's probe sends it a second request, now its first answer is in
    assert router._explore(router.candidates(), set(), "translate")[0] == ("openai", "m")
    store.observe(("openai", "m"), ttfb_ms=400)
    # groq is best; cerebras was measured longer ago than openai
    assert router._explore(router.candidates(), set(), "translate")[0] == ("cerebras", "m")


# ---- health ----------------------------------------------------------------------------------


def test_rate_limit_skips_the_model_until_its_retry_after() -> None:
    clock = FakeClock()
    groq = Scripted("groq", fail_before=RateLimitedError("groq", "slow down", retry_after=5))
    router = router_of(groq, Scripted("cerebras"), health=Health(clock=clock))
    text, events = asyncio.run(consume(router))
    assert text == ANSWER
    assert dones(events) == [("groq", "error"), ("cerebras", "ok")]
    assert router.candidates() == [("cerebras", "m")]
    [entry] = router.health_report()
    assert entry.state == "rate_limited" and entry.retry_in_s == pytest.approx(5)
    clock.now += 5.1
    assert ("groq", "m") in router.candidates()


def test_everything_rate_limited_fails_at_once_saying_when_to_retry() -> None:
    clock = FakeClock()
    groq = Scripted("groq", fail_before=RateLimitedError("groq", "slow down", retry_after=8))
    router = router_of(groq, health=Health(clock=clock))
    with pytest.raises(AllProvidersFailed):
        asyncio.run(consume(router))
    clock.now += 2
    with pytest.raises(AllProvidersFailed) as info:
        asyncio.run(consume(router))
    assert len(groq.calls) == 1  # the second request was not even sent
    assert info.value.last.kind == "rate_limited"
    assert info.value.last.retry_after == pytest.approx(6)


def test_authentication_error_skips_the_provider_and_tells_the_user() -> None:
    seen: list[Any] = []
    groq = Scripted("groq", fail_before=AuthenticationError("groq", "invalid key", status=401))
    router = router_of(groq, Scripted("cerebras"), models={"groq": ["m2"]}, on_health=seen.append)
    text, _ = asyncio.run(consume(router))
    assert text == ANSWER
    assert router.candidates() == [("cerebras", "m")]  # every groq model is skipped
    [entry] = router.health_report()
    assert entry.state == "auth" and entry.model is None and entry.retry_in_s is None
    assert "API key was refused" in entry.message
    assert [e.state for e in seen] == ["auth"]
    assert len(groq.calls) == 1  # its other model was not tried with the same refused key
    router.reset_health("groq")  # e.g. the user entered a new key
    assert len(router.candidates()) == 3


def test_timeouts_and_server_errors_cool_down_with_backoff_and_stay_last_resort() -> None:
    clock = FakeClock()
    health = Health(clock=clock, base_backoff_s=1.0)
    groq = Scripted("groq", failures=[ServerError("groq", "HTTP 503", status=503)] * 3)
    router = router_of(groq, Scripted("cerebras", ttfb=0.08), health=health)
    seed(router.stats, ("groq", "m"), 50)
    waits = []
    for _ in range(3):
        clock.now += 100  # every cooldown has passed
        assert router.candidates()[0] == ("groq", "m")
        text, _ = asyncio.run(consume(router))
        assert text == ANSWER
        assert router.candidates() == [("cerebras", "m"), ("groq", "m")]  # demoted, not gone
        waits.append(router.health_report()[0].retry_in_s)
    assert waits == pytest.approx([1.0, 2.0, 4.0])
    clock.now += 100
    asyncio.run(consume(router))  # groq answers: its record is cleared
    assert router.health_report() == []


def test_the_backoff_stays_at_its_maximum_however_many_failures_in_a_row() -> None:
    health = Health(clock=FakeClock(), base_backoff_s=1.0, max_backoff_s=60.0)
    down = ServerError("groq", "HTTP 503", status=503)
    for _ in range(1100):  # 2 ** 1024 does not fit in a float: the backoff must not compute it
        entry = health.failure("groq", "m", down)
    assert entry is not None and entry.retry_in_s == pytest.approx(60.0)


def test_usable_in_says_when_the_soonest_choice_may_be_asked_again() -> None:
    clock = FakeClock()
    health = Health(clock=clock, base_backoff_s=4.0)
    limiter = Limiter(table={"cerebras": {"*": Limits(requests_per_minute=1)}}, clock=clock)
    router = router_of(Scripted("groq"), Scripted("cerebras"), health=health, limiter=limiter)
    assert router.usable_in_s() == 0.0
    health.failure("groq", "m", RateLimitedError("groq", "slow down", retry_after=20))
    limiter.book(("cerebras", "m"), 1)  # its one request of the minute
    assert router.usable_in_s() == pytest.approx(20.0)  # the soonest of the two
    assert router.usable_in_s("cerebras") == pytest.approx(60.0)  # the limiter's window
    health.failure("cerebras", "m", ServerError("cerebras", "HTTP 503", status=503))
    clock.now += 30  # groq's retry-after has passed; cerebras' window has 30 s to go
    assert router.usable_in_s() == 0.0
    assert router.usable_in_s("cerebras") == pytest.approx(30.0)
    # a connection failure cools the provider down (its record and the model's: the longer)
    health.failure("groq", "m", ConnectionFailedError("groq", "refused"))
    assert router.usable_in_s("groq") == pytest.approx(4.0)
    health.failure("groq", "m", AuthenticationError("groq", "invalid key", status=401))
    assert router.usable_in_s("groq") == math.inf  # waits for the user, not for time
    assert router.usable_in_s("nobody") == math.inf  # nothing configured


def test_a_sole_provider_in_cooldown_is_still_tried() -> None:
    clock = FakeClock()
    groq = Scripted("groq", failures=[ProviderTimeoutError("groq", "no answer in time")])
    router = router_of(groq, health=Health(clock=clock))
    with pytest.raises(AllProvidersFailed):
        asyncio.run(consume(router))
    text, _ = asyncio.run(consume(router))  # still in cooldown, but the only choice
    assert text == ANSWER


def test_connection_failures_cool_the_whole_provider_and_bad_requests_nothing() -> None:
    clock = FakeClock()
    health = Health(clock=clock)
    health.failure("groq", "a", ConnectionFailedError("groq", "connection refused"))
    assert health.entry("groq", "b").state == "cooldown"
    health.failure("cerebras", "x", BadRequestError("cerebras", "prompt too long", status=400))
    assert health.entry("cerebras", "x").state == "ok"
    health.failure("cerebras", "x", BadRequestError("cerebras", "model_not_found", status=404))
    assert health.entry("cerebras", "x").skipped
    assert health.entry("cerebras", "y").state == "ok"


# ---- fallback: no partial or doubled text ----------------------------------------------------


@pytest.mark.parametrize(
    "error",
    [
        ServerError("groq", "HTTP 500", status=500),
        ConnectionFailedError("groq", "stream cut"),
        RateLimitedError("groq", "capacity", retry_after=1),
    ],
)
@pytest.mark.parametrize("after", [0, 1, 5])
def test_a_failed_stream_restarts_on_the_next_choice_with_exact_text(error, after) -> None:
    groq = Scripted("groq", text="Partiel " * 10, fail_after=(after, error))
    router = router_of(groq, Scripted("cerebras"))
    text, events = asyncio.run(consume(router))
    assert text == ANSWER
    assert dones(events) == [("groq", "error"), ("cerebras", "ok")]
    kinds = [type(e).__name__ for e in events if not isinstance(e, TextDelta)]
    assert kinds == ["Attempt", "AttemptDone", "Restart", "Attempt", "AttemptDone"]
    err = next(e for e in events if isinstance(e, AttemptDone)).stats
    assert err.error and "groq" in err.error


def test_every_choice_failing_raises_with_every_error() -> None:
    router = router_of(
        Scripted("groq", fail_before=ServerError("groq", "HTTP 500", status=500)),
        Scripted("cerebras", fail_after=(2, ConnectionFailedError("cerebras", "cut"))),
    )
    with pytest.raises(AllProvidersFailed) as info:
        asyncio.run(consume(router))
    assert [e.provider for e in info.value.errors] == ["groq", "cerebras"]


def test_an_adapter_bug_is_a_server_fault_not_a_hang() -> None:
    router = router_of(Scripted("groq", raise_bug=True), Scripted("cerebras"))
    text, events = asyncio.run(consume(router))
    assert text == ANSWER
    error = next(e for e in events if isinstance(e, AttemptDone)).stats.error
    assert error is not None and "KeyError" in error


def test_cancelling_the_consumer_cancels_the_provider_stream_and_records_it() -> None:
    async def go() -> tuple[Scripted, list]:
        groq = Scripted("groq", gate=asyncio.Event())
        router = router_of(groq)
        recorded = []
        original = router.record

        def record(s, r=None, p=None) -> None:  # type: ignore[no-untyped-def]
            recorded.append(s)
            original(s, r, p)

        router.record = record  # type: ignore[method-assign,assignment]
        task = asyncio.ensure_future(consume(router))
        while not groq.calls:
            await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return groq, recorded

    groq, recorded = asyncio.run(go())
    assert groq.cancelled == 1
    assert [s.status for s in recorded] == ["cancelled"]


def test_closing_the_stream_early_cancels_the_attempt() -> None:
    async def go() -> int:
        groq = Scripted("groq", text="x" * 60, chunk=1)
        router = router_of(groq)
        stream = cast(AsyncGenerator[object], router.stream(MESSAGES))
        async for ev in stream:
            if isinstance(ev, TextDelta):
                break
        await stream.aclose()
        return groq.cancelled  # counted now, not when the loop shuts down

    assert asyncio.run(go()) == 1


def test_stats_carry_usage_cost_and_speed() -> None:
    router = router_of(Scripted("groq", "llama-3.1-8b-instant", text="x" * 400))
    _, events = asyncio.run(consume(router, purpose="retry", blocks=3))
    done = events[-1]
    assert isinstance(done, AttemptDone)
    stats = done.stats
    assert stats.status == "ok" and stats.prompt_tokens == 20 and stats.completion_tokens == 100
    assert stats.cost_usd == pytest.approx((20 * 0.05 + 100 * 0.08) / 1e6)
    assert stats.ttfb_ms is not None and stats.total_ms is not None
    assert stats.total_ms >= stats.ttfb_ms
    assert stats.purpose == "retry" and stats.blocks == 3
    assert router.stats.get(("groq", "llama-3.1-8b-instant")).measured


def test_warmups_do_not_enter_the_latency_windows() -> None:
    router = router_of(Scripted("groq"))
    asyncio.run(consume(router, purpose="warmup", max_tokens=1))
    assert not router.stats.get(("groq", "m")).measured


# ---- hedging ---------------------------------------------------------------------------------


def test_hedge_goes_to_the_next_choice_when_the_first_is_late_and_cancels_the_loser() -> None:
    async def go():
        slow = Scripted("groq", "llama-3.1-8b-instant", gate=asyncio.Event(), usage_first=True)
        fast = Scripted("cerebras")
        router = router_of(slow, fast, hedge=True)
        seed(router.stats, ("groq", "llama-3.1-8b-instant"), 10)  # p90 = 10 ms
        seed(router.stats, ("cerebras", "m"), 500)
        return slow, router, await consume(router)

    slow, router, (text, events) = asyncio.run(go())
    assert text == ANSWER
    assert slow.cancelled == 1
    heads = [e for e in events if not isinstance(e, TextDelta)]
    assert [type(e).__name__ for e in heads] == ["Attempt", "AttemptDone", "Attempt", "AttemptDone"]
    assert heads[0] == Attempt("groq", "llama-3.1-8b-instant")
    assert heads[2] == Attempt("cerebras", "m")
    cancelled = heads[1].stats
    assert cancelled.status == "cancelled" and cancelled.provider == "groq"
    assert cancelled.cost_usd == pytest.approx(1000 * 0.05 / 1e6)  # usage known: cost counted
    summary = router.hedging
    assert (summary.requests, summary.hedged, summary.won, summary.cancelled) == (1, 1, 1, 1)
    assert summary.known_cost_usd == pytest.approx(cancelled.cost_usd)
    # the loser's wait (no first token after its 90th percentile) is remembered
    assert router.stats.get(("groq", "llama-3.1-8b-instant")).ttfb_p90() > 10


def test_hedge_loses_when_the_first_choice_streams_first() -> None:
    async def go():
        # the first choice answers once the hedge has gone out (late: its p90 is 5 ms), not
        # after a fixed 30 ms that a loaded machine may outlast before the hedge starts
        first = Scripted("groq", gate=asyncio.Event())
        never = Scripted("cerebras", "gpt-oss-120b", gate=asyncio.Event())
        router = router_of(first, never, hedge=True)
        seed(router.stats, ("groq", "m"), 5)

        async def answer_once_hedged() -> None:
            await until(lambda: never.calls)
            assert first.gate is not None
            first.gate.set()

        answering = asyncio.create_task(answer_once_hedged())
        result = await consume(router)
        await answering
        return never, router, result

    never, router, (text, events) = asyncio.run(go())
    assert text == ANSWER
    assert never.cancelled == 1 and len(never.calls) == 1
    assert dones(events) == [("cerebras", "cancelled"), ("groq", "ok")]
    assert [e for e in events if isinstance(e, Attempt)] == [Attempt("groq", "m")]
    assert router.hedging.won == 0 and router.hedging.hedged == 1
    # no usage reported before the cancel: unknown in the stats, estimated in the summary
    cancelled = next(e.stats for e in events if isinstance(e, AttemptDone))
    assert cancelled.cost_usd is None
    assert router.hedging.known_cost_usd == 0 and router.hedging.estimated_cost_usd > 0


def test_when_the_first_choice_fails_during_a_hedge_the_hedge_carries_on() -> None:
    async def go():
        gate = asyncio.Event()
        first = Scripted("groq", gate=gate, fail_before=ServerError("groq", "HTTP 502", status=502))
        second = Scripted("cerebras", ttfb=0.02)
        router = router_of(first, second, hedge=True)
        seed(router.stats, ("groq", "m"), 5)

        async def release() -> None:
            while not second.calls:
                await asyncio.sleep(0.001)
            gate.set()

        releaser = asyncio.ensure_future(release())
        result = await consume(router)
        await releaser
        return second, result

    second, (text, events) = asyncio.run(go())
    assert text == ANSWER and len(second.calls) == 1
    assert dones(events) == [("groq", "error"), ("cerebras", "ok")]


def test_no_hedging_unless_enabled() -> None:
    async def go():
        first = Scripted("groq", ttfb=0.03)
        second = Scripted("cerebras")
        router = router_of(first, second)
        seed(router.stats, ("groq", "m"), 1)
        await consume(router)
        return second

    assert asyncio.run(go()).calls == []


# ---- persistence -----------------------------------------------------------------------------


def test_windows_survive_a_restart_in_the_data_dir() -> None:
    async def run_once(*providers: Scripted) -> Router:
        router = Router({p.name: p for p in providers})  # default: the persisted store
        for _ in range(3):
            await consume(router)
        await router.aclose()
        return router

    asyncio.run(run_once(Scripted("groq", ttfb=0.02), Scripted("cerebras")))
    path = data_dir() / STATS_FILE
    raw = json.loads(path.read_text(encoding="utf-8"))
    assert raw["version"] == 1 and "groq/m" in raw["choices"]
    fresh = Router({"cerebras": Scripted("cerebras"), "groq": Scripted("groq")})
    assert fresh.stats.get(("groq", "m")).measured
    assert not list(path.parent.glob(".*.tmp"))  # atomic writes leave nothing behind


def test_stats_file_forgets_old_and_meaningless_samples(tmp_path) -> None:
    path = tmp_path / "s.json"
    clock = FakeClock()
    clock.now = 1_000_000.0
    old = clock.now - 4 * 24 * 3600
    path.write_text(
        json.dumps(
            {
                "version": 1,
                "choices": {
                    "groq/openai/gpt-oss-20b": {"ttfb_ms": [[clock.now, 120.0], [old, 5.0]]},
                    "cerebras/x": {"ttfb_ms": [[clock.now, -1], [clock.now, 0]]},
                },
            }
        ),
        encoding="utf-8",
    )
    store = StatsStore.load(path, clock=clock)
    assert store.pairs() == [("groq", "openai/gpt-oss-20b")]
    assert store.get(("groq", "openai/gpt-oss-20b")).ttfb_ms.values() == [120.0]
    assert path.exists()  # dropping stale samples is normal, not a broken file


@pytest.mark.parametrize(
    "content",
    [
        "{not json",
        "[" * 3000 + "]" * 3000,
        '{"version": 1, "choices": []}',
        '{"version": 1, "choices": {"broken": {"ttfb_ms": [[1, 2]]}}}',
        '{"version": 1, "choices": {"groq/m": {"ttfb_ms": 5}}}',
        '{"version": 1, "choices": {"groq/m": {"ttfb_ms": [["a", "b"]]}}}',
        '{"version": 1, "choices": {"groq/m": {"ttfb_ms": [[1e999, 1, 2]]}}}',
        '{"version": 1, "choices": {"groq/m": {"tokens_per_s": [[1' + "0" * 400 + ", 1]]}}}",
        '{"version": 1, "choices": {"groq/m": {"ttfb_ms": [[true, 5]]}}}',
    ],
)
def test_a_stats_file_that_is_not_ours_is_set_aside_and_measuring_starts_afresh(
    tmp_path, caplog, content: str
) -> None:
    path = tmp_path / "router-stats.json"
    path.write_text(content, encoding="utf-8")
    store = StatsStore.load(path)
    assert store.pairs() == []
    kept = list(tmp_path.glob("router-stats.json.broken-*"))
    assert len(kept) == 1 and kept[0].read_text(encoding="utf-8") == content
    assert not path.exists()
    assert "router stats" in caplog.text and kept[0].name in caplog.text
    store.observe(("groq", "m"), ttfb_ms=100.0)
    store.save()
    assert StatsStore.load(path).pairs() == [("groq", "m")]


# ---- against two emulators (real SDKs, real sockets) -----------------------------------------

LONG = "Le routeur choisit le fournisseur le plus rapide, puis mesure encore. " * 3
EMU_MESSAGES = [{"role": "system", "content": "Translate."}, {"role": "user", "content": LONG}]
GROQ_MODEL, CEREBRAS_MODEL = "llama-3.1-8b-instant", "gpt-oss-120b"


@pytest.fixture
def two_emulators():
    """groq: the fast one (5 ms to first token); cerebras: the slow one (60 ms)."""
    from tests.emulator import Emulator

    with Emulator(ttfb=0.005) as fast, Emulator(ttfb=0.06) as slow:
        yield fast, slow


def emu_router(fast, slow, **kw) -> Router:
    """Cerebras (slow) listed first, as the factory does: the router has to find out."""
    from fastdesk.providers.cerebras import CerebrasProvider
    from fastdesk.providers.groq import GroqProvider

    providers = {
        "cerebras": CerebrasProvider(
            "csk-test-not-a-real-key-000000", base_url=slow.cerebras_base_url
        ),
        # a model without reasoning_effort: the groq SDK's first request with it costs ~40 ms
        # once a process (measured), which these timing comparisons would read as slowness
        "groq": GroqProvider(
            "gsk_test_not_a_real_key_000000",
            base_url=fast.groq_base_url,
            default_model="llama-3.1-8b-instant",
        ),
    }
    kw.setdefault("stats", StatsStore.memory())
    return Router(providers, **kw)


async def ask(router: Router, **kw) -> tuple[str, list[object]]:
    return await consume(router, EMU_MESSAGES, **kw)


def answered_by(events: list[object]) -> str:
    last = [e for e in events if isinstance(e, AttemptDone)][-1].stats
    assert last.status == "ok"
    return last.provider


def test_emulators_most_requests_go_to_the_faster_provider(two_emulators) -> None:
    fast, slow = two_emulators

    async def go() -> list[str]:
        # default 5 % exploration; the statistics learn each emulator's configured time to
        # first token, not the stopwatch's (which would rank the machine's load)
        stats = ConfiguredTimes({"groq": fast, "cerebras": slow})
        router = emu_router(fast, slow, rng=random.Random(11), stats=stats)
        chosen = []
        for _ in range(30):
            text, events = await ask(router)
            assert text == LONG
            chosen.append(answered_by(events))
        await router.aclose()
        return chosen

    chosen = asyncio.run(go())
    assert chosen[:2] == ["cerebras", "groq"]  # nothing measured: listed order, then the new one
    assert chosen.count("groq") >= 27  # at most 5 % (+1) of requests explore
    assert len(fast.chat_requests) == chosen.count("groq")


class ConfiguredTimes(StatsStore):
    """Speed statistics fed what each emulator is set to take to the first token, not what the
    stopwatch measured: on a loaded machine the stopwatch measures the load, and the ranking
    would follow it. Which provider answers then depends on the emulators' settings alone."""

    def __init__(self, by_provider: dict[str, object]) -> None:
        super().__init__(None, clock=FakeClock())  # sample times that do not age either
        self.by_provider = by_provider

    def observe(self, pair, *, ttfb_ms=None, tokens_per_s=None) -> None:  # type: ignore[no-untyped-def]
        if ttfb_ms is not None:
            ttfb_ms = self.by_provider[pair[0]].config.ttfb * 1000  # type: ignore[attr-defined]
        super().observe(pair, ttfb_ms=ttfb_ms)  # tokens per second: the same default for both


def test_emulators_switch_when_the_fast_one_slows_down(two_emulators) -> None:
    fast, slow = two_emulators

    async def go() -> list[str]:
        stats = ConfiguredTimes({"groq": fast, "cerebras": slow})
        router = emu_router(fast, slow, explore_share=0.0, stats=stats)
        router.stats.observe(("cerebras", CEREBRAS_MODEL), ttfb_ms=60)
        router.stats.observe(("groq", GROQ_MODEL), ttfb_ms=5)
        for _ in range(6):
            _, events = await ask(router)
            assert answered_by(events) == "groq"
        fast.configure(ttfb=0.25)  # groq is having a bad day
        after = []
        for _ in range(8):
            text, events = await ask(router)
            assert text == LONG
            after.append(answered_by(events))
        await router.aclose()
        return after

    after = asyncio.run(go())
    assert after.count("groq") <= 4  # the recent median follows within a few requests
    assert after[-4:] == ["cerebras"] * 4


@pytest.mark.parametrize("fault", ["429", "500", "cut"])
def test_emulators_fall_back_on_429_500_and_cut_streams(two_emulators, fault) -> None:
    fast, slow = two_emulators
    if fault == "429":
        fast.fail_status(429, retry_after=30)
    elif fault == "500":
        fast.fail_status(500)
    else:
        fast.fail_cut(after_chunks=3)

    clock = FakeClock()  # the retry-after is counted on it: no time passes unless the test says

    async def go():
        stats = StatsStore.memory(clock)
        router = emu_router(fast, slow, explore_share=0.0, clock=clock, stats=stats)
        router.stats.observe(("groq", GROQ_MODEL), ttfb_ms=5)
        router.stats.observe(("cerebras", CEREBRAS_MODEL), ttfb_ms=60)
        first = await ask(router)
        second = await ask(router)
        order = router.candidates()
        report = router.health_report()
        await router.aclose()
        return first, second, order, report

    (text, events), (text2, events2), order, report = asyncio.run(go())
    assert text == LONG and text2 == LONG  # no partial, no doubled text
    assert dones(events) == [("groq", "error"), ("cerebras", "ok")]
    heads = [type(e).__name__ for e in events if not isinstance(e, TextDelta)]
    assert heads == ["Attempt", "AttemptDone", "Restart", "Attempt", "AttemptDone"]
    if fault == "cut":  # part of the answer had streamed before the cut: Restart dropped it
        restart = next(i for i, e in enumerate(events) if isinstance(e, Restart))
        assert any(isinstance(e, TextDelta) for e in events[:restart])
    [entry] = report
    assert answered_by(events2) == "cerebras"  # the failing one is skipped or demoted now
    if fault == "429":
        assert entry.state == "rate_limited" and entry.retry_in_s == pytest.approx(30)
        assert order == [("cerebras", CEREBRAS_MODEL)]
        assert len(fast.chat_requests) == 1  # not asked again before its retry-after
    else:
        assert entry.state == "cooldown"
        assert order == [("cerebras", CEREBRAS_MODEL), ("groq", GROQ_MODEL)]


@pytest.mark.parametrize("winner", ["hedge", "first"])
def test_emulators_hedging_takes_the_first_streamer_and_cancels_the_other(
    two_emulators, winner
) -> None:
    fast, slow = two_emulators
    # a stuck server hangs until its client leaves: it cannot answer first on any machine
    if winner == "hedge":
        fast.fail_hang()  # groq is stuck today: the hedge to cerebras answers first
    else:
        # groq late (held until the hedge to cerebras has gone out), yet before cerebras (stuck)
        gate = threading.Event()
        fast.configure(hold_before_answer=gate)
        slow.fail_hang()

        def open_once_hedged() -> None:
            slow.wait_for(lambda: len(slow.chat_requests) >= 1, 30)
            gate.set()

        threading.Thread(target=open_once_hedged, daemon=True).start()

    async def go():
        router = emu_router(fast, slow, hedge=True, explore_share=0.0)
        for _ in range(5):  # groq usually answers within 15 ms, cerebras 60 ms
            router.stats.observe(("groq", GROQ_MODEL), ttfb_ms=15)
            router.stats.observe(("cerebras", CEREBRAS_MODEL), ttfb_ms=60)
        result = await ask(router)
        await router.aclose()
        return result, router.hedging

    (text, events), hedging = asyncio.run(go())
    assert text == LONG  # answered, though the stuck one never would: nobody waited for it
    if winner == "hedge":
        assert dones(events) == [("groq", "cancelled"), ("cerebras", "ok")]
        assert [e for e in events if isinstance(e, Attempt)] == [
            Attempt("groq", GROQ_MODEL),
            Attempt("cerebras", CEREBRAS_MODEL),
        ]
        loser = fast
    else:
        assert dones(events) == [("cerebras", "cancelled"), ("groq", "ok")]
        loser = slow
    assert hedging.hedged == 1 and hedging.cancelled == 1
    # the loser's request was really cancelled: its server saw the client leave
    assert loser.wait_for(lambda: loser.disconnects >= 1, timeout=5)


def test_routing_follows_two_providers_whose_speeds_swap() -> None:
    """The faster one slows down, the slower one speeds up: auto follows within ~30 requests,
    because a probe's fresh result counts more than old samples (docs/routing.md §4)."""
    clock = FakeClock(1_000_000.0)
    store = StatsStore(None, clock=clock)
    a, b = ("groq", "m"), ("cerebras", "m")
    for _ in range(20):  # yesterday: a fast, b slow
        store.observe(a, ttfb_ms=50)
        store.observe(b, ttfb_ms=400)
        clock.now += 30
    router = router_of(
        Scripted("groq"),
        Scripted("cerebras"),
        stats=store,
        explore_share=0.05,
        rng=random.Random(5),
    )
    clock.now += 3600  # today they swapped: a is slow, b is fast
    chosen = []
    for _ in range(120):
        [first] = router._explore(router.candidates(), set(), "translate")[:1]
        chosen.append(first)
        store.observe(first, ttfb_ms=400 if first == a else 50)
        clock.now += 2
    switched = next(i for i, p in enumerate(chosen) if all(q == b for q in chosen[i : i + 20]))
    assert switched <= 30
