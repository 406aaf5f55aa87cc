"""How long a document will take at the account's pace, in words an editor reads.

A free tier's minute is the bottleneck of a long document: at Groq's 8,000 tokens/min a 200-block
document takes minutes however fast the model streams. So the window and the command line say up
front what to expect ("about 4 min at Groq free tier, 8,000 tokens/min; add Cerebras or a paid
tier to go faster"), counting every configured provider's budget, since the router sends to
whoever has room (pooled providers go faster together).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fastdesk.clock import duration
from fastdesk.config.redact import account_id
from fastdesk.routing.limiter import Limiter, Pair, shown_name
from fastdesk.routing.shared_budget import SharedBudget

if TYPE_CHECKING:
    from fastdesk.routing.router import Router

# Tokens a request counts besides its text: the system prompt and the pack markers.
PROMPT_OVERHEAD = 300
# A request counts its text about 2.5 times: the prompt, the answer (about as long), and the
# answer's margin or reasoning.
TOKENS_PER_SOURCE_TOKEN = 2.5
SHOWN_FROM_S = 30.0  # shorter than this: not worth a sentence


@dataclass(frozen=True)
class Estimate:
    """How long the work takes at the pooled budgets, and the limit that decides it."""

    seconds: float
    binding: str  # "Groq free tier, 8,000 tokens/min" ("" when nothing limits it)
    providers: tuple[str, ...]  # the configured ones, in the router's order

    def text(self) -> str:
        """ "about 4 min at Groq free tier, 8,000 tokens/min; add Cerebras or a paid tier to go
        faster" ("" when it takes less than SHOWN_FROM_S)."""
        if self.seconds < SHOWN_FROM_S or not self.binding:
            return ""
        span = duration(self.seconds, rough=True)
        missing = [n for n in ("cerebras", "groq") if n not in self.providers]
        if "paid tier" in self.binding:
            hint = ""
        elif missing:
            hint = f"; add {shown_name(missing[0])} or a paid tier to go faster"
        else:
            hint = "; a paid tier would go faster"
        return f"about {span} at {self.binding}{hint}"


def workload(engine: Any, doc: Any, spec: Any) -> tuple[int, int]:
    """(requests, source tokens) an engine still has to send for ``doc`` (copies and the
    memory's answers left out): what the rate limits will pace."""
    work = engine.plan(doc, spec).work
    return len(engine.packs(work, spec)), sum(w.tokens for w in work)


def workload_tokens(source_tokens: int, requests: int) -> int:
    """What ``requests`` requests carrying ``source_tokens`` of text count against a budget."""
    return int(requests * PROMPT_OVERHEAD + TOKENS_PER_SOURCE_TOKEN * source_tokens)


def work_estimate(
    router: Router, provider: str, model: str | None, lang: str, requests: int, source_tokens: int
) -> Estimate:
    """How long ``requests`` requests carrying ``source_tokens`` of text take at the budgets of
    the choices ``router`` would send them to: the command line's line and the window's."""
    pairs = router.candidates(provider, model, lang=lang)
    return estimate(router.limiter, pairs, requests, workload_tokens(source_tokens, requests))


def estimate(limiter: Limiter, pairs: Iterable[Pair], requests: int, tokens: int) -> Estimate:
    """The time ``requests`` requests of ``tokens`` tokens in all take when every choice in
    ``pairs`` takes its share of the minute (pooled): the slower of requests/min and tokens/min.
    A choice without a known minute limit makes the rate unlimited (0 s)."""
    pairs = list(pairs)
    per_min = {"requests": 0, "tokens": 0}
    unlimited = {"requests": False, "tokens": False}
    labels: dict[str, str] = {}
    for pair in pairs:
        limits = limiter.limits(pair)
        for what in per_min:
            value = limits.limit(what, "minute")
            if value is None:
                unlimited[what] = True
                continue
            per_min[what] += value
            who = limits.who(f"{what}_per_minute", pair[0])
            labels[what] = f"{who}, {value:,} {what}/min"
    need = {"requests": requests, "tokens": tokens}
    minutes = {
        what: 0.0 if unlimited[what] or not per_min[what] else need[what] / per_min[what]
        for what in per_min
    }
    what = max(minutes, key=lambda w: minutes[w])
    binding = labels.get(what, "") if minutes[what] > 0 else ""
    if binding and len(pairs) > 1 and len({p[0] for p in pairs}) > 1:
        binding = f"{per_min[what]:,} {what}/min across {len({p[0] for p in pairs})} providers"
    providers = tuple(dict.fromkeys(p[0] for p in pairs))
    return Estimate(minutes[what] * 60, binding, providers)


def settings_lines(
    provider: str,
    model: str,
    key: str | None,
    overrides: Mapping[str, Mapping[str, Mapping[str, int]]] | None = None,
    shared: SharedBudget | None = None,
) -> list[str]:
    """What Settings shows under a model: whether it was found shut down (and what replaces
    it), then each rate limit and where it came from ("2,000,000 tokens/min, read from Groq on
    2026-12-02")."""
    shared = shared or SharedBudget.default()
    lines = []
    gone = shared.retired().get((provider, model))
    if gone is not None:
        lines.append(
            f"retired: {shown_name(provider)} no longer serves it (found {gone[1]}); "
            f"{gone[0]} is used instead"
        )
    limiter = Limiter(overrides, shared=shared, accounts={provider: account_id(key)})
    lines.extend(limiter.limits((provider, model)).describe(provider))
    return lines
