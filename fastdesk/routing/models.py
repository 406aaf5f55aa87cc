"""Which models a provider serves, with their prices: fetched from ``/models``, cached a day.

Why a cache: the settings dialog fills its model lists without a network call, and Cerebras
retires models often, so the list must come from the provider, not from a table in the code.
``cache_dir()/models.json`` keeps the ids per provider with the time they were fetched (and the
base URL they came from); prices are looked up when a list is read, so a price-table update or a
user override shows at once. A model missing from the price table is still usable: its row has
no price ("cost unknown"), never $0.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from fastdesk.clock import Clock, SystemClock
from fastdesk.config import paths
from fastdesk.config.fileio import FileError, atomic_write_text, load_json
from fastdesk.config.settings import saved_settings
from fastdesk.providers.base import ModelInfo, Provider
from fastdesk.providers.factory import make_provider
from fastdesk.routing.pricing import PriceTable, format_cost

__all__ = [
    "MODELS_FILE_NAME",
    "TTL_S",
    "ModelRow",
    "Probe",
    "cached_models",
    "fetched_at",
    "model_row",
    "models_path",
    "probe",
    "refresh_models",
]

log = logging.getLogger(__name__)

MODELS_FILE_NAME = "models.json"
FILE_VERSION = 1
TTL_S = 24 * 3600.0
# Speech, moderation and embedding models are listed by /models but cannot translate a page.
_NOT_CHAT = re.compile(r"whisper|(?:^|[-/_])tts(?:$|[-/_])|playai|orpheus|guard|embed", re.I)


@dataclass(frozen=True)
class ModelRow:
    """A model and its price in USD per million tokens (None: not in the price table)."""

    id: str
    price_in: float | None
    price_out: float | None
    price_read: str | None  # the day the price was read ("your settings" for an override)

    @property
    def priced(self) -> bool:
        return self.price_in is not None and self.price_out is not None

    def price_text(self) -> str:
        """``$0.075 in / $0.30 out per M tokens (price read 2026-07-15)`` or ``cost unknown``."""
        if self.price_in is None or self.price_out is None:
            return "cost unknown (not in the price table)"
        if self.price_in == 0 and self.price_out == 0:
            return "free (local server)" if not self.price_read else "free"
        text = f"{format_cost(self.price_in)} in / {format_cost(self.price_out)} out per M tokens"
        return f"{text} (price read {self.price_read})" if self.price_read else text


def model_row(provider_name: str, model_id: str, prices: PriceTable | None = None) -> ModelRow:
    """The row for one model id (any id: an unknown one has no price)."""
    price = (prices or _prices()).price(provider_name, model_id)
    if price is None:
        return ModelRow(model_id, None, None, None)
    return ModelRow(model_id, price.input, price.output, price.read or None)


def _prices() -> PriceTable:
    """The bundled table with the user's overrides (read from the settings now)."""
    return PriceTable(saved_settings().price_overrides)


def _rows(provider_name: str, ids: Iterable[str], prices: PriceTable | None) -> list[ModelRow]:
    table = prices or _prices()
    return [model_row(provider_name, model_id, table) for model_id in ids]


def chat_model_ids(ids: Iterable[str]) -> list[str]:
    """Sorted, unique ids without speech, guard and embedding models."""
    return sorted({i for i in ids if i and not _NOT_CHAT.search(i)})


# ---- the cache --------------------------------------------------------------------------------


def models_path() -> Path:
    """``models.json`` in the cache dir (under FASTDESK_HOME when set)."""
    return paths.cache_dir() / MODELS_FILE_NAME


class _CacheEntry(TypedDict):
    """One provider's list in ``models.json``."""

    fetched: float  # epoch seconds
    base_url: str | None  # the server it came from (an OpenAI-compatible one's URL matters)
    models: list[str]


def _read_cache(path: Path) -> dict[str, _CacheEntry]:
    """``{provider: {"fetched": epoch s, "base_url": str | None, "models": [ids]}}``; a broken
    or foreign file reads as empty (it is only a cache: the next refresh rewrites it)."""
    try:
        raw = load_json(path)
        providers = raw["providers"]
        if not isinstance(providers, dict):
            raise TypeError("'providers' is not a table")
    except FileNotFoundError:
        return {}
    except FileError as exc:
        log.warning("model list cache %s ignored: %s", path, exc.detail)
        return {}
    except (KeyError, TypeError) as exc:
        log.warning("model list cache %s ignored: %s", path, exc)
        return {}
    out: dict[str, _CacheEntry] = {}
    for name, entry in providers.items():
        if not isinstance(entry, dict):
            continue
        fetched, models = entry.get("fetched"), entry.get("models")
        base_url = entry.get("base_url")
        if (
            isinstance(fetched, int | float)
            and not isinstance(fetched, bool)
            and isinstance(models, list)
            and all(isinstance(m, str) for m in models)
            and (base_url is None or isinstance(base_url, str))
        ):
            out[name] = {"fetched": float(fetched), "base_url": base_url, "models": models}
    return out


def _store(provider_name: str, ids: list[str], base_url: str | None, fetched: float) -> None:
    path = models_path()
    cache = _read_cache(path)
    cache[provider_name] = {"fetched": fetched, "base_url": base_url, "models": ids}
    text = json.dumps({"version": FILE_VERSION, "providers": cache}, indent=1) + "\n"
    try:
        atomic_write_text(path, text)
    except OSError as exc:  # a cache that cannot be written only costs a later request
        log.warning("model list cache %s not written: %s", path, exc)


def _base_url(provider: Provider) -> str | None:
    """Where a provider's list came from (an OpenAI-compatible server's URL matters)."""
    value = getattr(provider, "base_url", None)
    if isinstance(value, str):
        return value
    client = getattr(provider, "_client", None)
    value = getattr(client, "base_url", None)
    return str(value).rstrip("/") if value is not None else None


def _entry(
    provider_name: str, max_age: float | None, base_url: str | None, now: float | None
) -> _CacheEntry | None:
    entry = _read_cache(models_path()).get(provider_name)
    if entry is None:
        return None
    if base_url is not None and entry["base_url"] not in (None, base_url.rstrip("/")):
        return None  # a list from another server
    age = (time.time() if now is None else now) - entry["fetched"]
    if max_age is not None and not -60 <= age <= max_age:  # a clock set back: refetch
        return None
    return entry


def cached_models(
    provider_name: str,
    *,
    max_age: float | None = TTL_S,
    base_url: str | None = None,
    prices: PriceTable | None = None,
    now: float | None = None,
) -> list[ModelRow] | None:
    """The cached list for ``provider_name``, or None when there is none, it is older than
    ``max_age`` seconds (None: any age) or it came from another ``base_url`` (when given)."""
    entry = _entry(provider_name, max_age, base_url, now)
    return None if entry is None else _rows(provider_name, entry["models"], prices)


def fetched_at(provider_name: str) -> float | None:
    """When the cached list was fetched (epoch seconds), whatever its age."""
    entry = _entry(provider_name, None, None, None)
    return None if entry is None else entry["fetched"]


async def refresh_models(
    provider: Provider, *, prices: PriceTable | None = None, clock: Clock | None = None
) -> list[ModelRow]:
    """Ask the provider's ``/models``, cache the ids with ``clock``'s wall time, return the rows
    (sorted by id).

    Raises what ``provider.list_models()`` raises (a ``ProviderError``); the cache is left as it
    was then.
    """
    infos = await provider.list_models()
    return _remember(provider, infos, prices, (clock or SystemClock()).wall())


def _remember(
    provider: Provider, infos: Iterable[ModelInfo], prices: PriceTable | None, fetched: float
) -> list[ModelRow]:
    ids = chat_model_ids(info.id for info in infos)
    _store(provider.name, ids, _base_url(provider), fetched)
    return _rows(provider.name, ids, prices)


# ---- testing a connection ---------------------------------------------------------------------


@dataclass(frozen=True)
class Probe:
    """What "Test connection" found: the models and how long ``/models`` took to answer."""

    provider: str
    rows: list[ModelRow]
    round_trip_ms: float


async def probe(
    name: str,
    *,
    api_key: str | None,
    base_url: str | None = None,
    timeout: float = 10.0,
    prices: PriceTable | None = None,
    clock: Clock | None = None,
) -> Probe:
    """List ``name``'s models with these credentials, timing the round trip; the list is cached.

    Raises ValueError (nothing to test with) or a ``ProviderError`` (its text is safe to show).
    """
    provider = make_provider(name, api_key=api_key, base_url=base_url, timeout=timeout)
    try:
        started = time.perf_counter()
        infos = await provider.list_models()
        elapsed = (time.perf_counter() - started) * 1000
        rows = _remember(provider, infos, prices, (clock or SystemClock()).wall())
    finally:
        await provider.aclose()
    return Probe(name, rows, elapsed)
