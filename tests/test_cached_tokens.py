"""Warm and cached: the stable part of every prompt comes first (providers cache by prefix), and
the prompt tokens a provider served from its cache are priced at its cached rate where one is
published (else at the full rate, and the request says so)."""

from __future__ import annotations

import asyncio

import pytest

from fastdesk.providers.base import RequestStats
from fastdesk.providers.cerebras import CerebrasProvider
from fastdesk.providers.groq import GroqProvider
from fastdesk.routing.pricing import PriceTable
from fastdesk.routing.router import AttemptDone, Router
from fastdesk.routing.stats import StatsStore
from fastdesk.translate.prompts import Context, build_messages, system_prompt
from tests.emulator import Emulator

MESSAGES = [{"role": "system", "content": "Translate."}, {"role": "user", "content": "Hello."}]


@pytest.mark.parametrize("model", ["qwen/qwen3-32b", "openai/gpt-oss-20b"])
def test_what_every_request_shares_comes_first(model: str) -> None:
    one = system_prompt(
        "translate", "fr", model=model, glossary_lines=['"cat" → "chat"'], context=Context("T", "A")
    )
    other = system_prompt("translate", "fr", model=model, context=Context("T", "Something else"))
    bare = system_prompt("translate", "fr", model=model)
    assert one.startswith(bare) and other.startswith(bare)  # the whole stable part is a prefix
    assert one.index("Glossary") < one.index("Preceding text")
    messages = build_messages(one, "Hello.")
    assert [m["role"] for m in messages] == ["system", "user"]  # the text itself goes last


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
