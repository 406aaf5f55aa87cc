"""What the router streams to the engine (``Attempt`` → ``TextDelta``* → ``AttemptDone``, with
``Restart`` and ``Backoff`` between tries), what it raises when every choice failed, and what
hedging cost: the vocabulary :mod:`fastdesk.routing.router` and its flights share."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from fastdesk.providers.base import ProviderError, RateLimitInfo, RequestStats, TextDelta


@dataclass(frozen=True)
class Attempt:
    provider: str
    model: str


@dataclass(frozen=True)
class Restart:
    """The previous attempt failed mid-answer: drop what it streamed."""

    reason: str


@dataclass(frozen=True)
class AttemptDone:
    stats: RequestStats
    rate: RateLimitInfo | None = None
    finish_reason: str | None = None


@dataclass(frozen=True)
class Backoff:
    """Every choice failed or is at its limit; the same request is tried again in ``seconds``
    (``reason`` says why, in words for a status bar: "groq rate limit reached", "Groq free
    tier, 30 requests/min" …)."""

    provider: str
    seconds: float
    reason: str
    # "rate" (a limit: the request is paced), "outage" (the provider cannot be reached or
    # fails: "groq unreachable, retrying in 12 s"), "fault" (anything else worth retrying)
    kind: str = "rate"


RouterEvent = Attempt | TextDelta | Restart | AttemptDone | Backoff


class AllProvidersFailed(Exception):
    """Every candidate failed; ``errors`` holds each one (safe to show)."""

    def __init__(self, errors: Sequence[ProviderError]) -> None:
        self.errors = list(errors)
        text = "; ".join(str(e) for e in errors) if errors else "no provider is configured"
        super().__init__(text)

    @property
    def last(self) -> ProviderError | None:
        return self.errors[-1] if self.errors else None


@dataclass
class HedgeSummary:
    """What hedging cost since the app started (shown next to the setting)."""

    requests: int = 0  # streams routed with hedging on
    hedged: int = 0  # extra requests sent
    won: int = 0  # extra requests that answered first
    cancelled: int = 0  # requests cancelled because the other one streamed first
    known_cost_usd: float = 0.0  # cost of the cancelled ones whose usage was reported
    estimated_cost_usd: float = 0.0  # the same plus an estimate for those without usage

    @property
    def extra_share(self) -> float:
        return self.hedged / self.requests if self.requests else 0.0


_REASONS = {
    "rate_limited": "rate limit reached",
    "timeout": "no answer in time",
    "connection": "unreachable",
    "malformed": "stream malformed",
    "server": "server error",
}


def wait_kind(error: ProviderError) -> str:
    """How a wait after ``error`` reads: paced by a rate, an outage, or another fault."""
    if error.kind == "rate_limited":
        return "rate"
    if error.kind in ("connection", "timeout", "server", "malformed"):
        return "outage"
    return "fault"


def wait_reason(error: ProviderError) -> str:
    """ "groq rate limit reached": why a request waits, for the status bar."""
    return f"{error.provider} {_REASONS.get(error.kind, 'request failed')}"
