from __future__ import annotations

import pytest

from fastdesk.routing.pricing import PriceTable, format_cost


def test_cost_from_usage_matches_contract_example() -> None:
    table = PriceTable()
    # 120 prompt tokens × $0.05/M + 240 completion tokens × $0.08/M
    assert table.cost("groq", "llama-3.1-8b-instant", 120, 240) == pytest.approx(0.0000252)


def test_every_bundled_price_has_the_day_it_was_read() -> None:
    table = PriceTable()
    for provider in ("groq", "cerebras"):
        prices = table.models(provider)
        assert prices, provider
        for model, price in prices.items():
            assert price.read and price.source, (provider, model)
            assert price.input > 0 and price.output > 0


def test_unknown_model_has_unknown_cost_never_zero() -> None:
    table = PriceTable()
    assert table.cost("cerebras", "some-new-model", 100, 100) is None
    assert format_cost(None) == "cost unknown"
    assert table.cost("groq", "llama-3.1-8b-instant", None, 10) is None


def test_user_override_wins_and_adds_models() -> None:
    table = PriceTable(
        {
            "groq": {"llama-3.1-8b-instant": {"input": 1.0, "output": 2.0}},
            "cerebras": {"new-model": {"input": 0.1, "output": 0.2}},
        }
    )
    assert table.cost("groq", "llama-3.1-8b-instant", 1_000_000, 1_000_000) == pytest.approx(3.0)
    assert table.cost("cerebras", "new-model", 1_000_000, 0) == pytest.approx(0.1)
    assert table.price("cerebras", "new-model").source == "user override"


def test_local_server_is_free_unless_priced() -> None:
    assert PriceTable().cost("openai", "llama3.2", 1000, 1000) == 0.0


def test_format_cost() -> None:
    # one precision (the millionth) for every sum, trailing zeros dropped down to cents
    assert format_cost(0.0000252) == "$0.000025"
    assert format_cost(0.0123) == "$0.0123"
    assert format_cost(0.85) == "$0.85"
    assert format_cost(12.0) == "$12.00"
    assert format_cost(1.23456) == "$1.23456"
    assert format_cost(0.0000001) == "< $0.000001"  # never "$0" for a sum that is not nothing
    assert format_cost(0) == "$0"


def test_retired_models_keep_their_price_for_the_past_but_are_not_offered() -> None:
    table = PriceTable()
    old = table.price("groq", "llama-3.1-8b-instant")
    assert old is not None and old.retired == "2026-08-16"  # past requests still have a cost
    assert "llama-3.1-8b-instant" not in table.models("groq")
    current = table.models("groq")["openai/gpt-oss-120b"]
    assert (current.input, current.output, current.cached_input) == (0.15, 0.60, 0.075)
    assert current.read == "2026-12-02" and not current.retired
    assert table.models("groq")["qwen/qwen3.6-27b"].output == 3.00
