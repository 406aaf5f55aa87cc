"""Warm and cached: the stable part of every prompt comes first (providers cache by prefix), and
the prompt tokens a provider served from its cache are priced at its cached rate where one is
published (else at the full rate, and the request says so)."""

from __future__ import annotations

import asyncio

import pytest

from fastdesk.document.blocks import parse
from fastdesk.providers.base import RequestStats
from fastdesk.providers.cerebras import CerebrasProvider
from fastdesk.providers.groq import GroqProvider
from fastdesk.routing.pricing import PriceTable
from fastdesk.routing.router import AttemptDone, Router
from fastdesk.routing.stats import StatsStore
from fastdesk.translate.engine import Engine
from fastdesk.translate.events import RequestDone
from fastdesk.translate.glossary import Glossary
from fastdesk.translate.job import JobSpec
from fastdesk.translate.prompts import Context, build_messages, request_notes, system_prompt
from tests.emulator import Emulator, PromptCache

MESSAGES = [{"role": "system", "content": "Translate."}, {"role": "user", "content": "Hello."}]


@pytest.mark.parametrize("model", ["qwen/qwen3-32b", "openai/gpt-oss-20b"])
def test_what_every_request_shares_comes_first(model: str) -> None:
    system = system_prompt("translate", "fr", model=model, glossary_lines=['"cat" → "chat"'])
    one = build_messages(system, "Hello.", request_notes("translate", context=Context("T", "A")))
    other = build_messages(
        system, "Bye.", request_notes("translate", context=Context("T", "Something else"))
    )
    assert one[0] == other[0]  # the first message is the same, byte for byte
    assert "Preceding text" in one[1]["content"] and "Glossary" in one[0]["content"]
    assert [m["role"] for m in one] == ["system", "system", "user"]  # the text itself goes last


def test_cached_tokens_are_priced_at_the_cached_rate_where_known() -> None:
    table = PriceTable()
    price = table.price("groq", "openai/gpt-oss-20b")
    assert price is not None and price.cached_input is not None
    cost = table.cost("groq", "openai/gpt-oss-20b", 1000, 100, cached_tokens=800)
    full = table.cost("groq", "openai/gpt-oss-20b", 1000, 100)
    assert cost is not None and full is not None
    expected = (200 * price.input + 800 * price.cached_input + 100 * price.output) / 1e6
    assert cost == pytest.approx(expected)
    assert cost < full
    # no cached price: the full input price (never less than what may be billed)
    assert table.cost("cerebras", "gpt-oss-120b", 1000, 100, cached_tokens=800) == table.cost(
        "cerebras", "gpt-oss-120b", 1000, 100
    )


def one_request(provider: GroqProvider | CerebrasProvider, name: str) -> RequestStats:
    async def go() -> RequestStats:
        router = Router({name: provider}, stats=StatsStore.memory())
        try:
            dones = [ev async for ev in router.stream(MESSAGES) if isinstance(ev, AttemptDone)]
        finally:
            await router.aclose()
        return dones[-1].stats

    return asyncio.run(go())


def test_groq_reports_cached_tokens_and_the_cost_uses_them() -> None:
    with Emulator(cached_tokens=3) as emu:
        provider = GroqProvider(
            "gsk_cached_test_0000", base_url=emu.groq_base_url, default_model="openai/gpt-oss-20b"
        )
        stats = one_request(provider, "groq")
    assert stats.cached_tokens == 3 and not stats.cached_at_full_price
    full = PriceTable().cost("groq", "openai/gpt-oss-20b", stats.prompt_tokens, 2)
    assert stats.completion_tokens == 2  # "Hello." in ≈4-character tokens
    assert stats.cost_usd is not None and full is not None and stats.cost_usd < full
    assert stats.report_dict()["cached_tokens"] == 3


def test_a_cached_price_nobody_published_is_said() -> None:
    with Emulator(cached_tokens=3) as emu:
        provider = CerebrasProvider(
            "csk-cached-test-0000", base_url=emu.cerebras_base_url, default_model="gpt-oss-120b"
        )
        stats = one_request(provider, "cerebras")
    assert stats.cached_tokens == 3 and stats.cached_at_full_price
    full = PriceTable().cost("cerebras", "gpt-oss-120b", stats.prompt_tokens, 2)
    assert stats.cost_usd == pytest.approx(full)


def test_no_cache_reported_no_cached_tokens() -> None:
    with Emulator() as emu:
        provider = GroqProvider(
            "gsk_cached_test_0000", base_url=emu.groq_base_url, default_model="openai/gpt-oss-20b"
        )
        stats = one_request(provider, "groq")
    assert stats.cached_tokens is None and not stats.cached_at_full_price


def test_a_run_shares_one_first_message_and_the_provider_caches_it() -> None:
    """Two documents (two titles), a glossary whose terms each occur in some packs only: every
    request's first message is the same, so a prefix cache serves it to every request after the
    first; what differs (the title) comes after it."""
    glossary = Glossary(keep=("fastdesk",), translate={"fr": {"pull request": "demande de fusion"}})
    docs = [
        "# Guide\n\n" + "".join(f"Paragraph {i} about fastdesk.\n\n" for i in range(12)),
        "# Other\n\n" + "".join(f"Open pull request {i}.\n\n" for i in range(12)),
    ]
    done: list[RequestDone] = []

    async def go(url: str) -> None:
        provider = GroqProvider(
            "gsk_cached_test_0000", base_url=url, default_model="openai/gpt-oss-20b"
        )
        engine = Engine(Router({"groq": provider}, stats=StatsStore.memory()), max_pack_blocks=4)
        spec = JobSpec(target_lang="fr", glossary=glossary)
        try:
            for text in docs:
                await engine.run(parse(text), spec, emit=lambda e: _keep(e, done))
        finally:
            await engine.router.aclose()

    with Emulator(prompt_cache=PromptCache()) as emu:
        asyncio.run(go(emu.groq_base_url))
        bodies = [r.body for r in emu.chat_requests]
    firsts = {body["messages"][0]["content"] for body in bodies}
    assert len(bodies) >= 6 and len(firsts) == 1
    (first,) = firsts
    assert "demande de fusion" in first and "fastdesk" in first  # the whole glossary section
    assert all("Guide" not in first and "Other" not in first for first in firsts)
    shared = len(first) // 4  # ≈ its tokens: each request after the first has it cached
    cached = [e.stats.cached_tokens or 0 for e in done]
    # only the first to reach the server misses (``done`` is in order of the answers, not of
    # the requests: with several in flight the first to arrive need not be the first to end)
    assert len(cached) == len(bodies) and sum(c < shared for c in cached) == 1


def _keep(event: object, into: list[RequestDone]) -> None:
    if isinstance(event, RequestDone):
        into.append(event)
