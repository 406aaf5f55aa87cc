"""Never over the limit: a client-side limiter per provider and model.

Free tiers are small (Groq: 30 requests a minute, and no header warns before the 31st), so the
router asks here before each request how long it must wait. Each (provider, model) has up to four
windows, requests and tokens per minute and per day, seeded from the providers' published free
tiers (``resources/rate_limits.toml``, with the day they were read), overridden by the settings
(``[rate_limits.PROVIDER."MODEL"]``, paid tiers; a user's ``"*"`` covers every model of its
provider, the table's own lines included, and a user's line for a model beats it), and
tightened while running by what the servers say: their rate-limit headers (remaining, reset, a
lower limit) and their 429s.

Tokens are booked when a request goes out: the prompt plus the completion budget (Cerebras books
``max_completion_tokens`` against tokens/minute up front), and corrected to what the server
reported once the answer is in. Times are the monotonic readings of the one clock the wiring
hands in (fastdesk.clock).
"""

from __future__ import annotations

import math
import tomllib
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from fastdesk.clock import Clock, SystemClock
from fastdesk.config.paths import resource
from fastdesk.providers.base import RateLimitInfo

Pair = tuple[str, str]
WINDOWS = {"minute": 60.0, "day": 86400.0}
LEARN_AFTER = 5
FIELDS = ("requests_per_minute", "requests_per_day", "tokens_per_minute", "tokens_per_day")


@dataclass(frozen=True)
class Limits:
    """One choice's limits (None: no limit) and where they come from, for the status bar."""

    requests_per_minute: int | None = None
    requests_per_day: int | None = None
    tokens_per_minute: int | None = None
    tokens_per_day: int | None = None
    label: str = ""  # "Groq free tier", "your settings"

    def limit(self, what: str, window: str) -> int | None:
        value: int | None = getattr(self, f"{what}_per_{window}")
        return value

    def tighter(self, what: str, window: str, value: int) -> Limits:
        """These limits with ``what``/``window`` at most ``value``."""
        current = self.limit(what, window)
        if current is not None and current <= value:
            return self
        changes: dict[str, Any] = {f"{what}_per_{window}": max(1, value)}
        return replace(self, **changes)


@lru_cache(maxsize=1)
def published() -> dict[str, dict[str, Limits]]:
    """The bundled table: provider → model (or "*") → Limits."""
    raw = tomllib.loads(resource("rate_limits.toml").read_text(encoding="utf-8"))
    return {
        provider: {
            model: limits_from(entry, str(entry.get("label", ""))) for model, entry in m.items()
        }
        for provider, m in raw.items()
    }


def limits_from(entry: Mapping[str, object], label: str) -> Limits:
    """Limits from a table entry; 0 or a missing value means no limit."""
    values: dict[str, int | None] = {}
    for name in FIELDS:
        value = entry.get(name)
        values[name] = value if isinstance(value, int) and value > 0 else None
    return Limits(**values, label=label)


@dataclass
class _Window:
    """Requests and tokens sent within the last ``seconds``."""

    seconds: float
    sent: deque[list[float]] = field(default_factory=deque)  # [time, tokens]
    tokens: float = 0.0

    def expire(self, now: float) -> None:
        while self.sent and self.sent[0][0] <= now - self.seconds:
            self.tokens -= self.sent.popleft()[1]

    def wait_for(self, now: float, requests: int | None, tokens: int | None, need: int) -> float:
        """Seconds until one more request of ``need`` tokens fits."""
        wait = 0.0
        if requests is not None and len(self.sent) >= requests:
            wait = self.sent[len(self.sent) - requests][0] + self.seconds - now
        if tokens is not None and self.sent and self.tokens + need > tokens:
            # the earliest time enough tokens have left the window (a request bigger than the
            # whole budget goes alone, into an empty window)
            left = self.tokens + min(need, tokens) - tokens
            for at, booked in self.sent:
                left -= booked
                if left <= 0:
                    wait = max(wait, at + self.seconds - now)
                    break
        return max(0.0, wait)


@dataclass
class _State:
    limits: Limits
    windows: dict[str, _Window] = field(
        default_factory=lambda: {name: _Window(s) for name, s in WINDOWS.items()}
    )
    blocked_until: float = -math.inf  # a 429 said "nothing more until then"
    blocked_why: str = ""
    # what the last headers said is left: "requests"/"tokens" → [remaining, until, why, window]
    server: dict[str, list[Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class Headroom:
    """One choice's room for requests at a moment, for pacing sends in another thread (the
    window's): an immutable snapshot, so reading it there needs no lock. Times are monotonic
    readings of the limiter's clock, which is the window's too (one clock: fastdesk.clock)."""

    per_minute: int | None  # the requests/minute limit (None: none)
    sent: tuple[float, ...]  # when the requests of the last minute went (cancelled ones too)
    free_at: float  # when the limiter lets the next request of the size asked about go
    per_day: int | None = None  # the requests/day limit (None: none)
    # requests left in the day: the limit less the last 24 h's, or fewer when the server's
    # headers said so (Groq's x-ratelimit-remaining-requests counts the day); None: no limit
    left_today: int | None = None

    def fewer_than_at(self, most: int) -> float:
        """When fewer than ``most`` of these requests are still within their minute (-inf: now)."""
        if most <= 0:
            return math.inf
        if len(self.sent) < most:
            return -math.inf
        return self.sent[len(self.sent) - most] + WINDOWS["minute"]


def _at_least_0(value: int | float | None) -> int | None:
    return None if value is None else max(0, int(value))


@dataclass(frozen=True)
class Booking:
    """A request's entry in the windows, corrected once its real usage is known."""

    pair: Pair
    entries: tuple[list[float], ...]
    windows: tuple[_Window, ...]


class Limiter:
    """Per (provider, model): how long the next request must wait, and the bookkeeping."""

    def __init__(
        self,
        overrides: Mapping[str, Mapping[str, Mapping[str, int]]] | None = None,
        *,
        table: Mapping[str, Mapping[str, Limits]] | None = None,
        clock: Clock | None = None,
    ) -> None:
        self._table = published() if table is None else table
        self._yours = {
            provider: {model: limits_from(entry, "your settings") for model, entry in m.items()}
            for provider, m in (overrides or {}).items()
        }
        self.clock: Clock = clock or SystemClock()
        self._states: dict[Pair, _State] = {}

    def limits(self, pair: Pair) -> Limits:
        return self._state(pair).limits

    def _state(self, pair: Pair) -> _State:
        state = self._states.get(pair)
        if state is None:
            state = _State(self._seed(pair))
            self._states[pair] = state
        return state

    def _seed(self, pair: Pair) -> Limits:
        """The user's line for the model, else the user's ``"*"`` for the provider (a paid tier
        covers all its models), else the table's line for the model, else the table's ``"*"``."""
        provider, model = pair
        yours, table = self._yours.get(provider, {}), self._table.get(provider, {})
        for found in (yours.get(model), yours.get("*"), table.get(model), table.get("*")):
            if found is not None:
                return found
        return Limits()

    def yours(self, pair: Pair) -> bool:
        """Whether the user's settings give ``pair``'s limits (their tier, a paid one as a
        rule), rather than the published free tiers or nothing known."""
        yours = self._yours.get(pair[0], {})
        return yours.get(pair[1]) is not None or yours.get("*") is not None

    # ---- asking --------------------------------------------------------------------------

    def wait_s(self, pair: Pair, tokens: int) -> float:
        """Seconds before a request of ``tokens`` (prompt + completion budget) may go (0: now)."""
        state = self._state(pair)
        now = self.clock.monotonic()
        wait = max(0.0, state.blocked_until - now)
        for what, (remaining, until, _why, _window) in state.server.items():
            if now < until and remaining < (1 if what == "requests" else tokens):
                wait = max(wait, until - now)
        for name, window in state.windows.items():
            window.expire(now)
            requests = state.limits.limit("requests", name)
            budget = state.limits.limit("tokens", name)
            wait = max(wait, window.wait_for(now, requests, budget, tokens))
        return wait

    def headroom(self, pair: Pair, tokens: int) -> Headroom:
        """A snapshot of ``pair``'s room now, for a request of ``tokens`` (see Headroom)."""
        wait = self.wait_s(pair, tokens)  # expires the windows too
        state = self._state(pair)
        now = self.clock.monotonic()
        sent = tuple(at for at, _tokens in state.windows["minute"].sent)
        per_day = state.limits.requests_per_day
        left = None if per_day is None else max(0, per_day - len(state.windows["day"].sent))
        remaining, until, _why, window = state.server.get("requests", (0, -math.inf, "", ""))
        if window == "day" and now < until:
            left = remaining if left is None else min(left, remaining)
        return Headroom(
            state.limits.requests_per_minute, sent, now + wait, per_day, _at_least_0(left)
        )

    def why(self, pair: Pair, tokens: int) -> str:
        """What makes ``pair`` wait, for the status bar: "Groq free tier, 30 requests/min"."""
        state = self._state(pair)
        now = self.clock.monotonic()
        if state.blocked_until > now and state.blocked_why:
            return state.blocked_why
        for what, (remaining, until, why, _window) in state.server.items():
            if now < until and remaining < (1 if what == "requests" else tokens):
                return str(why)
        label = state.limits.label or pair[0]
        for name, window in state.windows.items():
            requests = state.limits.limit("requests", name)
            budget = state.limits.limit("tokens", name)
            unit = "min" if name == "minute" else name
            if window.wait_for(now, requests, None, tokens) > 0:
                return f"{label}, {requests:,} requests/{unit}"
            if window.wait_for(now, None, budget, tokens) > 0:
                return f"{label}, {budget:,} tokens/{unit}"
        return f"{label}, rate limit"

    # ---- bookkeeping ---------------------------------------------------------------------

    def book(self, pair: Pair, tokens: int) -> Booking:
        """A request of ``tokens`` goes out now."""
        state = self._state(pair)
        now = self.clock.monotonic()
        entries, windows = [], []
        for what, left in state.server.items():  # what the server said is left shrinks too
            left[0] -= 1 if what == "requests" else tokens
        for window in state.windows.values():
            entry = [now, float(tokens)]
            window.sent.append(entry)
            window.tokens += tokens
            entries.append(entry)
            windows.append(window)
        return Booking(pair, tuple(entries), tuple(windows))

    def settle(self, booking: Booking, tokens: int | None) -> None:
        """The server reported what the request really used (None: keep what was booked)."""
        if tokens is None or booking.pair[0] == "cerebras":  # Cerebras keeps the budget booked
            return
        for entry, window in zip(booking.entries, booking.windows, strict=True):
            if entry in window.sent:  # not expired yet
                window.tokens += tokens - entry[1]
                entry[1] = float(tokens)

    def observe(self, pair: Pair, info: RateLimitInfo | None) -> None:
        """Tighten from a response's rate-limit headers (each read for its own window)."""
        if info is None:
            return
        state = self._state(pair)
        now = self.clock.monotonic()
        for what, limit, remaining, reset, window in (
            (
                "requests",
                info.limit_requests,
                info.remaining_requests,
                info.reset_requests_s,
                info.requests_per,
            ),
            (
                "tokens",
                info.limit_tokens,
                info.remaining_tokens,
                info.reset_tokens_s,
                info.tokens_per,
            ),
        ):
            if window not in WINDOWS:
                continue
            if limit is not None and limit > 0:
                state.limits = state.limits.tighter(what, window, limit)
            if remaining is not None and reset is not None:
                unit = "min" if window == "minute" else window
                shown = limit if limit is not None else state.limits.limit(what, window)
                why = f"{state.limits.label or pair[0]}, {shown or 0:,} {what}/{unit}"
                state.server[what] = [remaining, now + min(reset, WINDOWS[window]), why, window]

    def rate_limited(
        self, pair: Pair, retry_after: float | None, info: RateLimitInfo | None = None
    ) -> None:
        """A 429: nothing more until its retry-after. A 429 the tokens do not explain, met after
        at least ``LEARN_AFTER`` requests this minute, means fewer requests a minute than we
        thought: the minute's count becomes the limit (fewer say nothing about a requests/min
        limit: a token limit or a passing overload)."""
        state = self._state(pair)
        now = self.clock.monotonic()
        tokens_out = info is not None and info.remaining_tokens == 0
        minute = state.windows["minute"]
        minute.expire(now)
        accepted = len(minute.sent) - 1  # the refused one does not count
        if not tokens_out and accepted >= LEARN_AFTER:
            state.limits = state.limits.tighter("requests", "minute", accepted)
        self.observe(pair, info)
        if retry_after is not None:
            self._block(state, now + retry_after, f"{pair[0]} rate limit reached")

    @staticmethod
    def _block(state: _State, until: float, why: str) -> None:
        if until > state.blocked_until:
            state.blocked_until, state.blocked_why = until, why
