"""Models that come and go: a model the server reports as shut down or unknown is replaced.

Every model the first versions used was shut down during 2026: Groq shut down
llama-3.3-70b-versatile and llama-3.1-8b-instant on 2026-08-16 (naming openai/gpt-oss-120b,
qwen/qwen3.6-27b and openai/gpt-oss-20b as replacements), qwen/qwen3-32b and
meta-llama/llama-4-scout-17b-16e-instruct on 2026-07-17 (console.groq.com/docs/deprecations);
Cerebras removed llama-3.3-70b and qwen-3-32b on 2026-02-16, llama3.1-8b and
qwen-3-235b-instruct-2507 on 2026-05-27 (inference-docs.cerebras.ai). Groq answers such a request
with 400 ``model_decommissioned``, Cerebras with ``model_not_found``.

The replacement is the one the provider named, else the nearest current model of the same
family in the provider's own list (``/models``, cached a day), else the provider's default.
It is said once, in one line naming both; remembered (``limits.sqlite`` in the data folder) so
the next start goes straight to it; and listed for Settings (:func:`retired_models`).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence

from fastdesk.routing.limiter import shown_name
from fastdesk.routing.shared_budget import SharedBudget

log = logging.getLogger(__name__)

Pair = tuple[str, str]

# What the provider itself named (console.groq.com/docs/deprecations, read 2026-12-02).
NAMED: dict[Pair, str] = {
    ("groq", "llama-3.3-70b-versatile"): "openai/gpt-oss-120b",
    ("groq", "llama-3.1-8b-instant"): "openai/gpt-oss-20b",
    ("groq", "meta-llama/llama-4-scout-17b-16e-instruct"): "openai/gpt-oss-120b",
    ("groq", "qwen/qwen3-32b"): "qwen/qwen3.6-27b",
}
_FAMILIES = ("gpt-oss", "qwen", "llama", "gemma", "glm", "mistral", "deepseek")
_SIZE = re.compile(r"(\d+(?:\.\d+)?)b\b")


def family(model: str) -> str | None:
    lowered = model.lower()
    return next((f for f in _FAMILIES if f in lowered), None)


def _size(model: str) -> float:
    found = _SIZE.findall(model.lower())
    return float(found[-1]) if found else 0.0


def nearest(model: str, current: Sequence[str]) -> str | None:
    """The current model of ``model``'s family closest in size (None: no such family here)."""
    kin = [m for m in current if m != model and family(m) == family(model) and family(m)]
    if not kin:
        return None
    size = _size(model)
    return min(kin, key=lambda m: (abs(_size(m) - size), m))


class Retirements:
    """Which configured models were found shut down, and what replaces each."""

    def __init__(
        self,
        shared: SharedBudget | None = None,
        *,
        catalogue: Callable[[str], Sequence[str] | None] | None = None,
        defaults: Callable[[str], str] | None = None,
        on_notice: Callable[[str], None] | None = None,
    ) -> None:
        """``catalogue``: provider → its current model ids (None: not known);
        ``defaults``: provider → its default model."""
        self.shared = shared
        self.catalogue = catalogue or _cached_catalogue
        self.defaults = defaults or (lambda _provider: "")
        self.on_notice = on_notice
        self._replaced: dict[Pair, str] = {}
        if shared is not None:
            self._replaced = {pair: new for pair, (new, _day) in shared.retired().items()}

    def current(self, pair: Pair) -> Pair:
        """``pair`` as it is served now: its replacement when it was found retired."""
        seen = {pair}
        while pair in self._replaced:  # a replacement may itself have been retired since
            pair = (pair[0], self._replaced[pair])
            if pair in seen:
                break
            seen.add(pair)
        return pair

    def retire(self, pair: Pair) -> Pair | None:
        """The server said ``pair`` is gone: its replacement (None: nothing to replace it with),
        said once and remembered."""
        if pair in self._replaced:
            return self.current(pair)
        provider, model = pair
        listed = [m for m in (self.catalogue(provider) or ()) if m != model]
        named = NAMED.get(pair)
        new = named if named and (not listed or named in listed) else None
        new = new or nearest(model, listed) or self.defaults(provider) or None
        if new is None or new == model:
            return None
        self._replaced[pair] = new
        if self.shared is not None:
            self.shared.retire(provider, model, new)
        name = shown_name(provider)
        text = (
            f"{name} no longer serves {model}; using {new} instead (remembered; Settings shows it)"
        )
        log.warning("%s", text)
        if self.on_notice is not None:
            self.on_notice(text)
        return (provider, new)


def _cached_catalogue(provider: str) -> list[str] | None:
    """The provider's model ids from the cached ``/models`` list, whatever its age."""
    from fastdesk.routing.models import cached_models

    rows = cached_models(provider, max_age=None)
    return None if rows is None else [row.id for row in rows]


def retired_models(shared: SharedBudget | None = None) -> dict[Pair, tuple[str, str]]:
    """(provider, model) → (replacement, the day it was found shut down): for Settings."""
    return (shared or SharedBudget.default()).retired()
