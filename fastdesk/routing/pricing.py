"""Prices per provider and model (resources/pricing.toml, user overrides) → cost of a request.

A model with no known price has cost ``None`` ("unknown"), never 0: an editor must not believe a
request was free because a table was out of date. An OpenAI-compatible server is free only when it
runs on this machine or the LAN (Ollama, llama.cpp, LM Studio, vLLM); a remote one (a LiteLLM
proxy, a hosted gateway) is "unknown" unless the user priced it or it reports its own cost.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from fastdesk.config.paths import resource


@dataclass(frozen=True)
class Price:
    input: float  # USD per million prompt tokens
    output: float  # USD per million completion tokens
    read: str = ""  # the day the price was read
    source: str = ""
    # USD per million prompt tokens the provider served from its prompt cache; None: no cached
    # price known, so cached tokens are counted at the full input price (the status bar says so)
    cached_input: float | None = None
    retired: str = ""  # the day the provider shut the model down ("": still served)

    def cost(self, prompt_tokens: int, completion_tokens: int, cached_tokens: int = 0) -> float:
        cached = min(max(cached_tokens, 0), prompt_tokens)
        rate = self.input if self.cached_input is None else self.cached_input
        fresh = prompt_tokens - cached
        return (fresh * self.input + cached * rate + completion_tokens * self.output) / 1_000_000


@lru_cache(maxsize=1)
def _bundled() -> dict[str, dict[str, Price]]:
    raw = tomllib.loads(resource("pricing.toml").read_text(encoding="utf-8"))
    return {prov: {m: _price(v) for m, v in models.items()} for prov, models in raw.items()}


def _price(v: Mapping[str, float | str]) -> Price:
    """A ``[provider."model"]`` entry of pricing.toml, or a user override, as a Price."""
    cached = v.get("cached_input")
    return Price(
        input=float(v["input"]),
        output=float(v["output"]),
        read=str(v.get("read", "")),
        source=str(v.get("source", "")),
        cached_input=None if cached is None else float(cached),
        retired=str(v.get("retired", "")),
    )


class PriceTable:
    """The bundled table with the user's overrides on top ({provider: {model: {input, output}}})."""

    def __init__(self, overrides: Mapping[str, Mapping[str, Mapping[str, float]]] | None = None):
        self._prices = {p: dict(m) for p, m in _bundled().items()}
        for prov, models in (overrides or {}).items():
            for model, v in models.items():
                self._prices.setdefault(prov, {})[model] = _price(
                    {"read": "your settings", "source": "user override", **v}
                )

    def price(self, provider: str, model: str, *, local: bool = True) -> Price | None:
        """``local``: the OpenAI-compatible server runs on this machine or the LAN (free)."""
        listed = self._prices.get(provider, {}).get(model)
        if provider == "openai" and local and listed is None:  # no per-token bill
            return Price(0.0, 0.0, source="local server")
        return listed

    def cost(
        self,
        provider: str,
        model: str,
        prompt_tokens: int | None,
        completion_tokens: int | None,
        *,
        local: bool = True,
        cached_tokens: int | None = None,
    ) -> float | None:
        """USD for one request, or None when the price or the usage is unknown. ``cached_tokens``:
        prompt tokens the provider served from its prompt cache (at its cached price, if known)."""
        price = self.price(provider, model, local=local)
        if price is None or prompt_tokens is None or completion_tokens is None:
            return None
        return price.cost(prompt_tokens, completion_tokens, cached_tokens or 0)

    def models(self, provider: str) -> dict[str, Price]:
        """The priced models the provider still serves (a retired line only prices the past)."""
        return {m: p for m, p in self._prices.get(provider, {}).items() if not p.retired}


COST_DECIMALS = 6  # every sum to the millionth of a dollar: a request's cost is that small


def format_cost(usd: float | None) -> str:
    """One precision for every sum (last request, since start, day): $0.000025, $0.0123, $0.85;
    'cost unknown' when not known; a positive sum never shows as $0."""
    if usd is None:
        return "cost unknown"
    if usd == 0:
        return "$0"
    if usd < 0.5 * 10**-COST_DECIMALS:
        return f"< ${10**-COST_DECIMALS:.{COST_DECIMALS}f}"
    whole, _, cents = f"{usd:.{COST_DECIMALS}f}".partition(".")
    return f"${whole}.{cents.rstrip('0').ljust(2, '0')}"
