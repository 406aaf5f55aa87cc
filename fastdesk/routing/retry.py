"""How long one request may keep trying the same providers, how long it waits between tries, and
how long one attempt may take (:class:`Deadlines`).

The router falls back across choices first (another provider answers at once); only when every
choice of a round has failed does it wait and try the round again, while the request's budget
(attempts and seconds, from the settings) lasts. What is worth waiting for:

- **429**: the server's ``retry-after`` (seconds, HTTP date, or Groq's "try again in 5.289s"),
  capped at ``retry_after_cap_s``: a date in 2099 is not a reason to wait 73 years;
- **5xx, timeouts, cut or malformed streams**: exponential backoff with jitter, so that many
  requests that failed together do not come back together;
- never for a refused key or a bad request: trying again cannot help.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass, field

from fastdesk.clock import Clock, SystemClock
from fastdesk.providers.base import ProviderError

RETRYABLE_KINDS = frozenset(
    {"rate_limited", "timeout", "connection", "malformed", "server", "error"}
)
RETRY_AFTER_CAP_S = 60.0


@dataclass(frozen=True)
class RetryPolicy:
    """The retry budget of one request (defaults ride out a one-minute rate-limit window)."""

    attempts: int = 8  # rounds in all, the first included
    seconds: float = 90.0  # trying and waiting, in all
    retry_after_cap_s: float = RETRY_AFTER_CAP_S
    base_backoff_s: float = 0.5
    max_backoff_s: float = 8.0

    @classmethod
    def none(cls) -> RetryPolicy:
        """One round, no waiting: fail as soon as every choice has failed."""
        return cls(attempts=1, seconds=0.0)

    @classmethod
    def from_settings(cls, values: Mapping[str, float]) -> RetryPolicy:
        """From the settings' ``[requests]`` table (``retry_attempts``, ``retry_seconds``,
        ``retry_after_cap_s``); a missing entry keeps its default."""
        default = cls()
        return cls(
            attempts=int(values.get("retry_attempts", default.attempts)),
            seconds=float(values.get("retry_seconds", default.seconds)),
            retry_after_cap_s=float(values.get("retry_after_cap_s", default.retry_after_cap_s)),
        )

    def cap(self, seconds: float | None) -> float | None:
        """A server's retry-after as we wait it and show it: never negative, never past the cap."""
        if seconds is None or not math.isfinite(seconds):
            return None if seconds is None else self.retry_after_cap_s
        return min(max(seconds, 0.0), self.retry_after_cap_s)

    def backoff(self, retries: int, rng: random.Random) -> float:
        """The wait before retry number ``retries`` (1, 2 …): doubling, with half of it jitter."""
        full = min(self.max_backoff_s, self.base_backoff_s * 2.0 ** min(max(retries - 1, 0), 32))
        return full * (0.5 + 0.5 * rng.random())


@dataclass
class RetryBudget:
    """What is left of one request's budget, counted on the router's clock from its creation."""

    policy: RetryPolicy
    rng: random.Random
    clock: Clock = field(default_factory=SystemClock)
    rounds: int = 0
    started: float = field(init=False)

    def __post_init__(self) -> None:
        self.started = self.clock.monotonic()

    def remaining_s(self) -> float:
        return self.policy.seconds - (self.clock.monotonic() - self.started)

    def next_wait(
        self, errors: list[ProviderError], *, patient: bool = False
    ) -> tuple[float, ProviderError] | None:
        """How long to wait before the next round, and the error that makes us wait; None: give
        up (nothing worth retrying, attempts spent, or the wait would outlast the budget).

        ``errors``: the round's failures, skipped choices included (a rate-limited one carries
        the seconds until it may be asked again). ``patient``: when the rate is the only
        obstacle (every retryable failure a 429), the wait costs nothing of the budget: a
        document is paced, never failed, by a rate limit."""
        retryable = [e for e in errors if e.kind in RETRYABLE_KINDS]
        if patient and retryable and all(e.kind == "rate_limited" for e in retryable):
            return self.rate_wait(retryable)
        self.rounds += 1
        if not retryable or self.rounds >= self.policy.attempts:
            return None
        waits: list[float] = []
        for error in retryable:
            after = getattr(error, "retry_after", None)
            if error.kind == "rate_limited" and after is not None:
                waits.append(self.policy.cap(after) or 0.0)
            else:
                waits.append(self.policy.backoff(self.rounds, self.rng))
        wait = min(waits)
        if wait > self.remaining_s():
            return None
        return wait, retryable[-1]

    def rate_wait(self, limited: list[ProviderError]) -> tuple[float, ProviderError]:
        """The wait until the first rate-limited choice may be asked again (its retry-after, else
        the backoff), given back to the budget."""
        waits = []
        for error in limited:
            after = self.policy.cap(getattr(error, "retry_after", None))
            waits.append(after if after is not None else self.policy.backoff(1, self.rng))
        wait = min(waits)
        self.forgive(wait)
        return wait, limited[-1]

    def forgive(self, seconds: float) -> None:
        """``seconds`` spent waiting for the rate do not count against the budget."""
        self.started += seconds


@dataclass(frozen=True)
class Deadlines:
    """How long one attempt may take, each limit apart (``[requests]`` in the settings).

    ``first_token_s`` is long by default: a cold model can take seconds to its first token (a
    published test of Groq: docs/routing.md §8), a reasoning model thinks before it answers,
    and a local server on a CPU needs minutes (raise it there). ``gap_s`` bounds the silence
    between two pieces of an answer once it has started (a server that drips a byte every few
    seconds is cut off by ``total_s``), and ``chars_per_token`` × ``max_tokens`` (plus a
    margin) bounds its length.
    """

    first_token_s: float = 60.0
    gap_s: float = 20.0
    total_s: float = 300.0
    chars_per_token: float = 6.0  # a generous margin over the ≈4 of European text
    margin_chars: int = 1024

    @classmethod
    def from_settings(cls, values: Mapping[str, float]) -> Deadlines:
        default = cls()
        return cls(
            first_token_s=float(values.get("first_token_s", default.first_token_s)),
            gap_s=float(values.get("gap_s", default.gap_s)),
            total_s=float(values.get("total_s", default.total_s)),
        )

    @property
    def read_timeout(self) -> float:
        """The HTTP read timeout to give the providers: past every deadline here, so that the
        deadlines (and their clearer words) fire first."""
        return max(self.first_token_s, self.gap_s) + 1.0

    def max_chars(self, max_tokens: int | None) -> int | None:
        """The longest answer a request of ``max_tokens`` may stream (None: no budget given)."""
        if not max_tokens:
            return None
        return int(max_tokens * self.chars_per_token) + self.margin_chars
