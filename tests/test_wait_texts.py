"""A wait an editor understands: the texts (rate, outage, queued), the document's estimate with
every configured provider counted, and the part of each minute kept for edits."""

from __future__ import annotations

import asyncio

import pytest

from fastdesk.document.blocks import parse
from fastdesk.routing.limiter import RESERVE, Limiter, Limits
from fastdesk.routing.pace import estimate, workload_tokens
from fastdesk.routing.router import Backoff, Router
from fastdesk.routing.stats import StatsStore
from fastdesk.translate.engine import Engine
from fastdesk.translate.events import BlockDone, Waiting
from fastdesk.translate.job import JobSpec
from fastdesk.translate.slots import Priorities
from tests.fakes import FakeClock as Clock
from tests.fakes import FakeProvider, until

GPT = ("groq", "openai/gpt-oss-120b")
TABLE = {
    "groq": {"openai/gpt-oss-120b": Limits(30, 1000, 8000, 200000, label="Groq free tier")},
    "cerebras": {"gpt-oss-120b": Limits(30, 14400, 60000, 10**6, label="Cerebras free tier")},
}


def test_a_rate_an_outage_and_a_queued_block_each_read_as_what_they_are() -> None:
    rate = Waiting(1, "groq", 57.0, "Groq free tier, 30 requests/min")
    assert rate.text(57.0) == "waiting 57 s: Groq free tier, 30 requests/min"
    assert rate.text(31.2) == "waiting 32 s: Groq free tier, 30 requests/min"  # it counts
    outage = Waiting(1, "groq", 12.0, "groq unreachable", "outage")
    assert outage.message == "groq unreachable, retrying in 12 s"
    assert "rate" not in outage.message and "waiting" not in outage.message
    assert rate.queued(11.5) == "queued, about 12 s"


def test_the_estimate_names_the_binding_limit_and_counts_every_provider() -> None:
    ceilings = {"groq": {"tokens_per_minute": 8000}}
    limiter = Limiter(table=TABLE, ceilings=ceilings, clock=Clock())
    requests, source = 50, 12_000  # a 200-block document, four blocks a request
    tokens = workload_tokens(source, requests)
    alone = estimate(limiter, [GPT], requests, tokens)
    assert alone.seconds == pytest.approx(tokens / 8000 * 60)
    assert alone.text() == (
        f"about {-(-tokens // 8000)} min at Groq free tier, 8,000 tokens/min; "
        "add Cerebras or a paid tier to go faster"
    )
    pooled = estimate(limiter, [("cerebras", "gpt-oss-120b"), GPT], requests, tokens)
    # 30 + 30 requests/min and 8,000 + 60,000 tokens/min: the slower of the two decides
    assert pooled.seconds == pytest.approx(max(tokens / 68000, requests / 60) * 60)
    assert (
        pooled.text()
        == "about 50 s at 60 requests/min across 2 providers; a paid tier would go faster"
    )
    assert pooled.seconds < alone.seconds
    small = estimate(limiter, [GPT], 1, workload_tokens(100, 1))
    assert small.text() == ""  # seconds: not worth a sentence
    limiter.observe(GPT, _paid())
    assert estimate(limiter, [GPT], requests, tokens).text() == ""  # a paid tier: no wait


def test_a_long_estimate_reads_in_hours_and_minutes_as_the_countdowns_do() -> None:
    limiter = Limiter(table=TABLE, ceilings={"groq": {"tokens_per_minute": 8000}}, clock=Clock())
    long = estimate(limiter, [GPT], 50, 90 * 8000)  # ninety minutes of tokens
    assert long.seconds == pytest.approx(5400)
    assert long.text().startswith("about 1 h 30 min at Groq free tier, 8,000 tokens/min")
    short = estimate(limiter, [GPT], 50, 100 * 8000 // 60)  # 100 s: seconds, as the bar says
    assert short.text().startswith("about 100 s at Groq free tier")


def _paid():
    from fastdesk.providers.base import RateLimitInfo

    return RateLimitInfo(limit_requests=500_000, limit_tokens=2_000_000)


def test_the_backlog_leaves_part_of_the_minute_to_edits() -> None:
    clock = Clock()
    limiter = Limiter(table={"groq": {"*": Limits(requests_per_minute=10)}}, clock=clock)
    for _ in range(int(10 * (1 - RESERVE))):
        limiter.book(("groq", "m"), 1)
    assert limiter.wait_s(("groq", "m"), 1, reserve=RESERVE) > 0  # the backlog waits
    assert limiter.wait_s(("groq", "m"), 1) == 0.0  # an edit goes now
    # the backlog's wait names the limit it waits for, not a vague "rate limit"
    assert limiter.why(("groq", "m"), 1, reserve=RESERVE) == "Groq, 10 requests/min"


def test_an_edit_during_a_backlog_is_sent_at_once_and_the_backlog_waits() -> None:
    clock = Clock()
    limiter = Limiter(table={"groq": {"*": Limits(requests_per_minute=10)}}, clock=clock)
    for _ in range(8):  # the backlog has used its share of this minute
        limiter.book(("groq", "fake-model"), 1)
    fake = FakeProvider()
    router = Router(
        {"groq": fake}, stats=StatsStore.memory(), limiter=limiter, patient=True, explore_share=0
    )
    engine = Engine(router, None, concurrency=2, max_pack_blocks=1)
    doc = parse("First paragraph, backlog.\n\nSecond paragraph, just edited.\n")
    edited = doc.blocks[-1].id
    priorities = Priorities()
    priorities.edited = frozenset({edited})
    events: list[object] = []

    async def go() -> None:
        task = asyncio.create_task(
            engine.run(
                doc,
                JobSpec(target_lang="en"),
                emit=events.append,
                priorities=priorities,
            )
        )
        await until(lambda: any(isinstance(e, Waiting) for e in events))
        await until(lambda: any(isinstance(e, BlockDone) for e in events))  # the edit's answer
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)

    asyncio.run(go())
    done = [e.block_id for e in events if isinstance(e, BlockDone)]
    waits = [e for e in events if isinstance(e, Waiting)]
    assert done == [edited]  # the edit went within its slot
    assert waits and waits[0].block_ids == (doc.blocks[0].id,) and waits[0].kind == "rate"
    assert len(fake.requests) == 1


def test_a_background_stream_waits_where_a_foreground_one_goes() -> None:
    clock = Clock()
    limiter = Limiter(table={"groq": {"*": Limits(requests_per_minute=10)}}, clock=clock)
    for _ in range(8):
        limiter.book(("groq", "fake-model"), 1)
    router = Router({"groq": FakeProvider()}, stats=StatsStore.memory(), limiter=limiter)

    async def first(background: bool) -> object:
        stream = router.stream([{"role": "user", "content": "x"}], background=background)
        event = await anext(stream)  # type: ignore[call-overload]
        await stream.aclose()  # type: ignore[attr-defined]
        return event

    assert isinstance(asyncio.run(first(True)), Backoff)
    assert not isinstance(asyncio.run(first(False)), Backoff)


def test_a_slot_is_kept_for_what_the_reader_waits_for() -> None:
    from fastdesk.translate.slots import Slots

    async def go() -> list[str]:
        slots, got = Slots(1, reserved=1), list[str]()
        async with slots.take():  # the backlog holds the only ordinary slot (paced a minute)
            waiting = asyncio.create_task(_hold(slots, got, "backlog", priority=False))
            await asyncio.sleep(0)
            async with slots.take(priority=True):  # the edit does not wait behind it
                got.append("edit")
            await asyncio.sleep(0)
            assert got == ["edit"] and slots.waiting == 1
        await waiting
        return got

    assert asyncio.run(go()) == ["edit", "backlog"]


async def _hold(slots, got: list[str], name: str, *, priority: bool) -> None:
    async with slots.take(priority=priority):
        got.append(name)
