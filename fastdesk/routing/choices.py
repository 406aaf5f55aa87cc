"""What the router may choose from: every configured (provider, model), minus the user's
exclusions, with a language's preferred models first (docs/routing.md, step 1), read from the
settings by :func:`options_from_settings`; and :class:`Choice`, one choice as the router sees it
now (for "Compare providers")."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypedDict

from fastdesk.config.settings import PROVIDER_NAMES
from fastdesk.providers.base import (
    AuthenticationError,
    BadRequestError,
    ProviderError,
    RateLimitedError,
)
from fastdesk.providers.base import Provider as ProviderProto
from fastdesk.routing.health import HealthEntry
from fastdesk.routing.stats import Pair

Matcher = tuple[set[Pair], set[str], set[str]]  # pairs, bare models, whole providers


@dataclass(frozen=True)
class Choice:
    """One (provider, model) as the router sees it now (for "Compare providers" and the docs)."""

    provider: str
    model: str
    health: HealthEntry
    preferred: bool
    samples: int
    ttfb_ms: float | None  # recent median
    ttfb_p90_ms: float | None
    tokens_per_s: float | None
    predicted_ms: float | None  # None: not measured yet


class Allowed:
    """The allowed pairs of a router's providers: ``models`` extra per provider (besides its
    default), ``excluded`` and ``preferred`` as :class:`fastdesk.routing.router.Router` takes
    them."""

    def __init__(
        self,
        providers: Mapping[str, ProviderProto],
        models: Mapping[str, Sequence[str]] | None = None,
        excluded: Iterable[Pair | str] | Mapping[str, Sequence[str]] | None = None,
        preferred: Mapping[str, object] | None = None,
    ) -> None:
        self.providers = providers
        self.models = {name: list(ms) for name, ms in (models or {}).items()}
        # a pair as served now: its replacement once found retired (Router sets it)
        self.current: Callable[[Pair], Pair] = lambda pair: pair
        self._excluded = self._matcher(_flatten(excluded))
        self._preferred = {
            lang.lower(): self._matcher(_flatten_pref(v)) for lang, v in (preferred or {}).items()
        }

    def pairs(self) -> list[Pair]:
        """Every configured (provider, model), in configuration order."""
        out: list[Pair] = []
        for name, provider in self.providers.items():
            models = [m for m in [provider.default_model, *self.models.get(name, ())] if m]
            # no model named anywhere: the server's own choice (a local server's first model)
            for model in dict.fromkeys(models or [""]):
                pair = self.current((name, model)) if model else (name, model)
                if pair not in out:
                    out.append(pair)
        return out

    def _matcher(self, items: Iterable[Pair | str]) -> Matcher:
        pairs: set[Pair] = set()
        bare: set[str] = set()
        whole: set[str] = set()
        known = set(PROVIDER_NAMES) | set(self.providers)
        for item in items:
            if isinstance(item, tuple):
                pairs.add((str(item[0]), str(item[1])))
                continue
            head, sep, rest = item.partition("/")
            if sep and head in known:
                pairs.add((head, rest))
            elif item in known:
                whole.add(item)
            else:
                bare.add(item)
        return pairs, bare, whole

    @staticmethod
    def matches(m: Matcher, pair: Pair) -> bool:
        return pair in m[0] or pair[1] in m[1] or pair[0] in m[2]

    def is_excluded(self, pair: Pair) -> bool:
        return self.matches(self._excluded, pair)

    def preference(self, lang: str | None) -> Matcher | None:
        """The preference for ``lang``: exact tag first (``fr-CA``), then shorter ones (``fr``)."""
        if not lang:
            return None
        parts = lang.lower().split("-")
        for n in range(len(parts), 0, -1):
            found = self._preferred.get("-".join(parts[:n]))
            if found is not None:
                return found
        return None

    def pool(self, provider: str, model: str | None) -> tuple[list[Pair], list[ProviderError]]:
        """Allowed pairs for the request, or why there are none."""
        if provider != "auto":
            if provider not in self.providers:
                return [], []
            if model:  # the user pinned both: their explicit choice beats the quality rules
                return [self.current((provider, model))], []
        pool = [p for p in self.pairs() if provider == "auto" or p[0] == provider]
        if model:  # a model named without a provider: where it is listed, else try it on each
            pool = [p for p in pool if p[1] == model] or [(name, model) for name, _m in pool]
            pool = list(dict.fromkeys(pool))
        allowed = [p for p in pool if not self.is_excluded(p)]
        if pool and not allowed:
            where = "any provider" if provider == "auto" else provider
            return [], [BadRequestError(where, "every model is excluded in the settings")]
        return allowed, []


class RouterOptions(TypedDict):
    """What the settings say to a :class:`Router` (its keyword arguments of the same names)."""

    models: dict[str, list[str]]
    excluded: dict[str, list[str]]
    preferred: dict[str, dict[str, str]]
    hedge: bool


def options_from_settings(settings: object) -> RouterOptions:
    """Router keyword arguments from :class:`fastdesk.config.settings.Settings`: the models listed
    for each provider (chosen and per-language), exclusions, per-language preferences, hedging."""
    chosen: Mapping[str, str] = getattr(settings, "models", None) or {}
    preferred: Mapping[str, Mapping[str, str]] = getattr(settings, "preferred_models", None) or {}
    excluded: Mapping[str, Sequence[str]] = getattr(settings, "excluded_models", None) or {}
    models: dict[str, list[str]] = {}
    for provider, model in chosen.items():
        if model:
            models.setdefault(provider, []).append(model)
    for by_provider in preferred.values():
        for provider, model in by_provider.items():
            if model and model not in models.get(provider, []):
                models.setdefault(provider, []).append(model)
    return {
        "models": models,
        "excluded": {p: list(ms) for p, ms in excluded.items()},
        "preferred": {lang: dict(v) for lang, v in preferred.items()},
        "hedge": bool(getattr(settings, "hedging", False)),
    }


def skip_error(entry: HealthEntry, pair: Pair) -> ProviderError:
    """Why a choice was not even tried, as the error the engine already knows how to word."""
    if entry.state == "auth":
        return AuthenticationError(pair[0], "the API key was refused", status=401)
    if entry.state == "rate_limited":
        return RateLimitedError(
            pair[0], f"{pair[1]}: rate limit reached", retry_after=entry.retry_in_s
        )
    return BadRequestError(pair[0], entry.message or f"{pair[1]} is not available", status=404)


def _flatten(items: Iterable[Pair | str] | Mapping[str, Sequence[str]] | None) -> list[Pair | str]:
    if items is None:
        return []
    if isinstance(items, Mapping):
        return [(prov, m) for prov, models in items.items() for m in models]
    return list(items)


def _flatten_pref(value: object) -> list[Pair | str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, tuple) and len(value) == 2 and all(isinstance(v, str) for v in value):
        return [(value[0], value[1])]
    if isinstance(value, Mapping):
        return [(str(p), str(m)) for p, m in value.items()]
    if isinstance(value, Iterable):
        return [v for item in value for v in _flatten_pref(item)]
    return []
