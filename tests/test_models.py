"""Model lists: fetched from each provider's /models (the emulator), cached with the time fetched,
priced from the price table (unknown models usable, cost unknown), and the connection probe."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from fastdesk.providers.base import (
    AuthenticationError,
    ConnectionFailedError,
    ModelInfo,
    Provider,
)
from fastdesk.providers.cerebras import CerebrasProvider
from fastdesk.providers.groq import GroqProvider
from fastdesk.providers.openai_compat import OpenAICompatProvider
from fastdesk.routing import models
from fastdesk.routing.models import ModelRow, cached_models, model_row, probe, refresh_models
from fastdesk.routing.pricing import PriceTable
from tests.emulator import DEFAULT_MODELS, FOUNDING_MODELS, Emulator
from tests.fakes import FakeClock

KEY = "gsk_MODELSTEST_0123456789_abcdefXYZ"


@pytest.fixture
def emulator() -> Iterator[Emulator]:
    with Emulator() as emu:
        yield emu


def run(coro):
    return asyncio.run(coro)


async def refresh_and_close(provider):
    try:
        return await refresh_models(provider, prices=PriceTable())
    finally:
        await provider.aclose()


def test_groq_list_is_fetched_priced_and_cached(emulator: Emulator, isolated_home: Path) -> None:
    clock = FakeClock(1_790_000_000.0)  # the list is dated by the one clock, any date
    emulator.configure(models=FOUNDING_MODELS)  # a retired model's price stays on record

    async def refresh() -> list[ModelRow]:
        provider = GroqProvider(KEY, base_url=emulator.groq_base_url)
        try:
            return await refresh_models(provider, prices=PriceTable(), clock=clock)
        finally:
            await provider.aclose()

    rows = run(refresh())
    assert [r.id for r in rows] == sorted(FOUNDING_MODELS["groq"])
    assert emulator.requests[-1].path == "/openai/v1/models"
    by_id = {r.id: r for r in rows}
    known = by_id["llama-3.1-8b-instant"]
    assert (known.price_in, known.price_out, known.price_read) == (0.05, 0.08, "2026-07-15")
    assert known.price_text() == "$0.05 in / $0.08 out per M tokens (price read 2026-07-15)"

    cache = json.loads((isolated_home / "cache" / "models.json").read_text(encoding="utf-8"))
    entry = cache["providers"]["groq"]
    assert entry["models"] == sorted(FOUNDING_MODELS["groq"])
    assert entry["fetched"] == clock.now
    assert cached_models("groq", prices=PriceTable(), now=clock.now + 60) == rows
    assert models.fetched_at("groq") == entry["fetched"]


def test_cerebras_and_openai_lists(emulator: Emulator) -> None:
    emulator.configure(models={"openai": ["qwen3:8b", "llama3.2:latest"]})
    cerebras = run(refresh_and_close(CerebrasProvider(KEY, base_url=emulator.cerebras_base_url)))
    assert [r.id for r in cerebras] == sorted(DEFAULT_MODELS["cerebras"])
    local = run(refresh_and_close(OpenAICompatProvider(emulator.openai_base_url)))
    assert [r.id for r in local] == ["llama3.2:latest", "qwen3:8b"]
    assert all(r.price_in == 0 and r.price_text() == "free (local server)" for r in local)
    # each provider keeps its own list
    assert [r.id for r in cached_models("cerebras")] == sorted(DEFAULT_MODELS["cerebras"])
    assert [r.id for r in cached_models("openai")] == ["llama3.2:latest", "qwen3:8b"]


def test_unknown_model_is_usable_with_unknown_cost() -> None:
    row = model_row("groq", "brand-new-model", PriceTable())
    assert row == ModelRow("brand-new-model", None, None, None)
    assert not row.priced
    assert row.price_text() == "cost unknown (not in the price table)"


def test_user_override_prices_a_model() -> None:
    table = PriceTable({"groq": {"brand-new-model": {"input": 0.1, "output": 0.2}}})
    row = model_row("groq", "brand-new-model", table)
    assert (row.price_in, row.price_out, row.price_read) == (0.1, 0.2, "your settings")


def test_default_prices_include_the_settings_overrides() -> None:
    from fastdesk.config.settings import Settings, save_settings

    save_settings(Settings(price_overrides={"groq": {"x-model": {"input": 1.0, "output": 2.0}}}))
    assert model_row("groq", "x-model").price_out == 2.0


def test_cache_expires_after_its_ttl(emulator: Emulator) -> None:
    run(refresh_and_close(GroqProvider(KEY, base_url=emulator.groq_base_url)))
    fetched = models.fetched_at("groq")
    assert fetched is not None
    assert cached_models("groq", now=fetched + models.TTL_S - 1) is not None
    assert cached_models("groq", now=fetched + models.TTL_S + 1) is None
    assert cached_models("groq", now=fetched + models.TTL_S + 1, max_age=None) is not None
    assert cached_models("groq", now=fetched - 3600) is None  # fetched "in the future": refetch


def test_cache_is_per_server_url(emulator: Emulator) -> None:
    run(refresh_and_close(OpenAICompatProvider(emulator.openai_base_url)))
    assert cached_models("openai", base_url=emulator.openai_base_url + "/") is not None
    assert cached_models("openai", base_url="http://127.0.0.1:1/v1") is None


def test_no_cache_and_broken_cache(isolated_home: Path, caplog) -> None:
    assert cached_models("groq") is None
    path = isolated_home / "cache" / "models.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    for content in ("{broken", '{"providers": []}', '{"providers": {"groq": {"fetched": "x"}}}'):
        path.write_text(content, encoding="utf-8")
        assert cached_models("groq") is None
    assert "ignored" in caplog.text


def test_broken_cache_is_rewritten_by_a_refresh(emulator: Emulator, isolated_home: Path) -> None:
    path = isolated_home / "cache" / "models.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{broken", encoding="utf-8")
    run(refresh_and_close(GroqProvider(KEY, base_url=emulator.groq_base_url)))
    assert cached_models("groq") is not None


def test_failed_refresh_keeps_the_cache(emulator: Emulator) -> None:
    run(refresh_and_close(GroqProvider(KEY, base_url=emulator.groq_base_url)))
    before = cached_models("groq")
    emulator.fail_status(401, on="models")
    with pytest.raises(AuthenticationError):
        run(refresh_and_close(GroqProvider(KEY, base_url=emulator.groq_base_url)))
    assert cached_models("groq") == before


def test_non_chat_models_are_left_out() -> None:
    ids = [
        "whisper-large-v3",
        "playai-tts",
        "meta-llama/llama-guard-4-12b",
        "text-embedding-3",
        "llama-3.1-8b-instant",
        "llama-3.1-8b-instant",
        "",
    ]
    assert models.chat_model_ids(ids) == ["llama-3.1-8b-instant"]


class FakeProvider:
    name = "groq"
    default_model = "m"

    async def list_models(self) -> list[ModelInfo]:
        return [ModelInfo("b-model"), ModelInfo("a-model")]

    async def aclose(self) -> None:
        pass


def test_refresh_accepts_any_provider() -> None:
    provider = cast(Provider, FakeProvider())  # no stream: refreshing never streams
    rows = run(refresh_models(provider, prices=PriceTable(), clock=FakeClock(1000.0)))
    assert [r.id for r in rows] == ["a-model", "b-model"]
    assert models.fetched_at("groq") == 1000.0


def test_probe_lists_models_with_round_trip(emulator: Emulator) -> None:
    result = run(probe("groq", api_key=KEY, base_url=emulator.groq_base_url))
    assert result.provider == "groq"
    assert [r.id for r in result.rows] == sorted(DEFAULT_MODELS["groq"])
    assert 0 < result.round_trip_ms < 5000
    assert cached_models("groq") is not None
    emulator.configure(require_key="another-key-0123456789abcdef")
    with pytest.raises(AuthenticationError) as info:
        run(probe("cerebras", api_key=KEY, base_url=emulator.cerebras_base_url))
    assert KEY not in str(info.value)


def test_probe_openai_needs_no_key_and_refused_port_fails_fast(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with Emulator() as emu:
        result = run(probe("openai", api_key=None, base_url=emu.openai_base_url))
        assert [r.id for r in result.rows] == ["local-model"]
        dead = emu.openai_base_url
    attempts: list[object] = []  # connections tried, counted rather than timed
    real_connect = asyncio.selector_events.BaseSelectorEventLoop.sock_connect

    async def counting_connect(self: Any, *args: Any, **kw: Any) -> Any:
        attempts.append(args[1])
        return await real_connect(self, *args, **kw)

    monkeypatch.setattr(
        asyncio.selector_events.BaseSelectorEventLoop, "sock_connect", counting_connect
    )
    with pytest.raises(ConnectionFailedError):
        run(probe("openai", api_key=None, base_url=dead))
    assert len(attempts) == 1  # fails on the refusal: no retries


def test_probe_says_what_is_missing() -> None:
    with pytest.raises(ValueError, match="key"):
        run(probe("groq", api_key=None))
    with pytest.raises(ValueError, match="base URL"):
        run(probe("openai", api_key=None, base_url=""))
    with pytest.raises(ValueError, match="unknown provider"):
        run(probe("other", api_key=KEY))


def test_a_price_is_written_as_every_sum_is_with_no_digit_dropped() -> None:
    """Prices per million tokens and costs share one money text (pricing.format_cost): a cached
    input price of $0.0375 is not cut to $0.037, and a free side reads $0."""
    row = ModelRow("m", 0.0375, 0.3, "2026-07-15")
    assert row.price_text() == "$0.0375 in / $0.30 out per M tokens (price read 2026-07-15)"
    assert ModelRow("m", 0.0, 1.5, None).price_text() == "$0 in / $1.50 out per M tokens"
