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
reported once the answer is in. A minute counts as the server counts it: a request from its
arrival (here: when its answer began, the latest moment it can have arrived; a request the
server refused with a 429 does not count), the answer's tokens from its end (Groq counts them as
they are generated). Times are the monotonic readings of the one clock the wiring hands in
(fastdesk.clock).

The servers' headers are the account's truth: a limit a header states replaces the table's
first guess, up as well as down (a line of the user's settings is a cap: only tightened), and
is remembered per account, provider and model with the day it was read (:mod:`.shared`), so the
next start begins at the account's pace. A stated limit above the free tier's largest
(``free_at_most`` in the table) means a paid tier: the free-tier figures no header states
(Groq never states requests per minute) no longer apply and are learned from 429s instead.
With a :class:`~fastdesk.routing.shared_budget.SharedBudget`, every limiter on this computer
spending the same key counts the others' requests too.
"""

from __future__ import annotations

import datetime
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
from fastdesk.routing.shared_budget import (
    ADMITTED,
    DAY_S,
    SENT,
    TOKENS,
    UNSURE,
    Foreign,
    Key,
    SharedBudget,
)

Pair = tuple[str, str]
WINDOWS = {"minute": 60.0, "day": 86400.0}
LEARN_AFTER = 5
FIELDS = ("requests_per_minute", "requests_per_day", "tokens_per_minute", "tokens_per_day")
RESERVE = 0.2  # of each minute's budget, kept for edits and the blocks on screen
SYNC_S = 0.02  # the other processes' entries are read again after this long
GATE_S = 0.02  # a paid tier's next request looks again after this long (Limiter._gated)
_SHOWN = {"groq": "Groq", "cerebras": "Cerebras", "openai": "the server"}


def shown_name(provider: str) -> str:
    """ "Groq" for "groq": a provider as a sentence names it."""
    return _SHOWN.get(provider, provider)


@dataclass(frozen=True)
class Limits:
    """One choice's limits (None: no limit) and where they come from, for the status bar."""

    requests_per_minute: int | None = None
    requests_per_day: int | None = None
    tokens_per_minute: int | None = None
    tokens_per_day: int | None = None
    label: str = ""  # "Groq free tier", "your settings", "Groq paid tier"
    # field → where its value came from when not from ``label``'s line: "header 2026-12-02" (a
    # server's rate-limit header, that day), "paid 2026-12-02" (no such limit: the headers told
    # a paid tier), "429 2026-12-02" (learned from a refusal)
    origins: tuple[tuple[str, str], ...] = ()

    def limit(self, what: str, window: str) -> int | None:
        value: int | None = getattr(self, f"{what}_per_{window}")
        return value

    def origin(self, field: str) -> str:
        return dict(self.origins).get(field, "")

    def with_value(self, field: str, value: int | None, origin: str) -> Limits:
        """These limits with ``field`` set to ``value`` (None: no limit), from ``origin``."""
        origins = dict(self.origins)
        origins[field] = origin
        changes: dict[str, Any] = {field: value, "origins": tuple(sorted(origins.items()))}
        return replace(self, **changes)

    def who(self, field: str, provider: str) -> str:
        """Who set ``field``, for "…, 30 requests/min": "Groq free tier", "Groq paid tier",
        "your settings", "Groq" (a header), "Groq (learned from a 429)"."""
        origin = self.origin(field)
        if origin.startswith("429"):
            return f"{shown_name(provider)} (learned from a 429)"
        if origin and not self.label.endswith("paid tier"):
            return shown_name(provider)
        return self.label or shown_name(provider)

    def describe(self, provider: str) -> list[str]:
        """One line per limit and where it came from, for Settings and the status bar:
        "2,000,000 tokens/min, read from Groq on 2026-12-02"."""
        name, lines = shown_name(provider), []
        for name_ in FIELDS:
            value: int | None = getattr(self, name_)
            what, _, window = name_.split("_")
            unit = "min" if window == "minute" else window
            kind, _, day = self.origin(name_).partition(" ")
            if kind == "paid":
                lines.append(
                    f"{what}/{unit}: not limited by the free tier ({name}'s headers "
                    f"on {day} said paid tier); learned from 429s"
                )
                continue
            if value is None:
                continue
            if kind == "header":
                source = f"read from {name} on {day}"
            elif kind == "429":
                source = f"learned from a 429 on {day}"
            elif self.label == "your settings":
                source = "your settings"
            else:
                source = f"{self.label or name}, as published (until its headers say)"
            lines.append(f"{value:,} {what}/{unit}, {source}")
        return lines

    def looser_than(self, other: Limits) -> bool:
        """Whether any limit is higher here than in ``other``, or gone."""
        for name in FIELDS:
            mine, theirs = getattr(self, name), getattr(other, name)
            if theirs is not None and (mine is None or mine > theirs):
                return True
        return False

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


@lru_cache(maxsize=1)
def free_ceilings() -> dict[str, dict[str, int]]:
    """provider → field → the largest figure any of its free-tier models had (``free_at_most``
    of its ``"*"`` line, and every line's own figures): a header stating more means paid."""
    raw = tomllib.loads(resource("rate_limits.toml").read_text(encoding="utf-8"))
    out: dict[str, dict[str, int]] = {}
    for provider, models in raw.items():
        top = out.setdefault(provider, {})
        for entry in models.values():
            for source in (entry, entry.get("free_at_most") or {}):
                for name in FIELDS:
                    value = source.get(name)
                    if isinstance(value, int) and value > top.get(name, 0):
                        top[name] = value
    return out


def limits_from(entry: Mapping[str, object], label: str) -> Limits:
    """Limits from a table entry; 0 or a missing value means no limit."""

    def value(name: str) -> int | None:
        found = entry.get(name)
        return found if isinstance(found, int) and found > 0 else None

    rpm, rpd, tpm, tpd = (value(name) for name in FIELDS)
    return Limits(rpm, rpd, tpm, tpd, label=label)


@dataclass
class _Window:
    """Requests and tokens within the last ``seconds``: entries [time, tokens, kind] in time
    order, of the shared file's kinds: a request on its way (SENT, from its booking), one the
    server admitted (ADMITTED, from when its answer began), one that ended with no answer
    begun (UNSURE, from its end: the server may have counted it) or an answer's tokens (TOKENS,
    from its end)."""

    seconds: float
    sent: deque[list[float]] = field(default_factory=deque)
    tokens: float = 0.0

    def requests(self) -> list[float]:
        """When each request of the window counts from, oldest first."""
        return [at for at, _tokens, kind in self.sent if kind != TOKENS]

    def expire(self, now: float) -> None:
        while self.sent and self.sent[0][0] <= now - self.seconds:
            self.tokens -= self.sent.popleft()[1]

    def add(self, entry: list[float]) -> None:
        """``entry``, of the clock's latest time: the newest."""
        self.sent.append(entry)
        self.tokens += entry[1]

    def remove(self, entry: list[float]) -> None:
        """``entry`` (this very list: found by identity, from the newest end, where a request
        just answered sits), if still in the window."""
        for back, found in enumerate(reversed(self.sent)):
            if found is entry:
                del self.sent[len(self.sent) - 1 - back]
                self.tokens -= entry[1]
                return

    def clear_tokens(self, entry: list[float]) -> None:
        """``entry`` counts no tokens any more (they moved to an entry of their own)."""
        if any(found is entry for found in reversed(self.sent)):
            self.tokens -= entry[1]
        entry[1] = 0.0

    def wait_for(self, now: float, requests: int | None, tokens: int | None, need: int) -> float:
        """Seconds until one more request of ``need`` tokens fits."""
        wait = 0.0
        times = self.requests() if requests is not None else []
        if requests is not None and len(times) >= requests:
            wait = times[len(times) - requests] + self.seconds - now
        if tokens is not None and self.sent and self.tokens + need > tokens:
            # the earliest time enough tokens have left the window (a request bigger than the
            # whole budget goes alone, into an empty window)
            left = self.tokens + min(need, tokens) - tokens
            for at, booked, _kind in self.sent:
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
    key: Key = ("", "", "")  # (account, provider, model) in the shared file
    foreign: list[list[float]] = field(default_factory=list)  # others' entries, by time
    synced: float = -math.inf  # when ``foreign`` was read
    learned: tuple[tuple[str, int, str], ...] = ()  # the shared file's, as last taken in
    unanswered: int = 0  # this limiter's requests on their way, no answer begun yet


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


def _caps(limits: Limits, window: str, reserve: float) -> tuple[int | None, int | None]:
    """(requests, tokens) a request may fill ``window`` up to: its limits, less ``reserve`` (a
    share of each minute a backlog leaves to edits and the blocks on screen)."""
    requests, budget = limits.limit("requests", window), limits.limit("tokens", window)
    if reserve > 0 and window == "minute":
        requests = None if requests is None else max(1, int(requests * (1 - reserve)))
        budget = None if budget is None else max(1, int(budget * (1 - reserve)))
    return requests, budget


def _at_least_0(value: int | float | None) -> int | None:
    return None if value is None else max(0, int(value))


@dataclass(frozen=True)
class Booking:
    """A request's entry in the windows, corrected once its real usage is known."""

    pair: Pair
    entries: tuple[list[float], ...]
    windows: tuple[_Window, ...]
    row: int | None = None  # its line in the shared file


class Limiter:
    """Per (provider, model): how long the next request must wait, and the bookkeeping."""

    def __init__(
        self,
        overrides: Mapping[str, Mapping[str, Mapping[str, int]]] | None = None,
        *,
        table: Mapping[str, Mapping[str, Limits]] | None = None,
        clock: Clock | None = None,
        shared: SharedBudget | None = None,
        accounts: Mapping[str, str] | None = None,
        ceilings: Mapping[str, Mapping[str, int]] | None = None,
    ) -> None:
        """``shared``: the file other processes' limiters use too (None: this one alone).
        ``accounts``: provider → :func:`~fastdesk.routing.shared_budget.account_id` of its key.
        ``ceilings``: provider → field → the free tier's largest figure (default: the
        table's)."""
        self._table = published() if table is None else table
        self._ceilings = (
            (free_ceilings() if table is None else {}) if ceilings is None else ceilings
        )
        self.shared = shared
        self.accounts = dict(accounts or {})
        self._yours = {
            provider: {model: limits_from(entry, "your settings") for model, entry in m.items()}
            for provider, m in (overrides or {}).items()
        }
        self.clock: Clock = clock or SystemClock()
        self._states: dict[Pair, _State] = {}

    def limits(self, pair: Pair) -> Limits:
        return self._state(pair).limits

    def stated(self, pair: Pair) -> Limits:
        """``pair``'s limits as the settings or the published tiers state them, before the
        servers' headers taught anything (they do not change while a Batch API job runs)."""
        return self._seed(pair)

    def _state(self, pair: Pair) -> _State:
        state = self._states.get(pair)
        if state is None:
            key = (self.accounts.get(pair[0], ""), *pair)
            state = _State(self._seed(pair), key=key)
            if self.shared is not None:
                learned = self.shared.learned(key)
                state.limits = self._remembered(state.limits, learned, pair)
                state.learned = tuple(sorted((f, v, r) for f, (v, r) in learned.items()))
            self._states[pair] = state
        return state

    @staticmethod
    def _remembered(limits: Limits, learned: Mapping[str, tuple[int, str]], pair: Pair) -> Limits:
        """The seed with what the servers stated on earlier runs (a user's line only tightened)."""
        for name, (value, origin) in learned.items():
            if name not in FIELDS:
                continue
            current: int | None = getattr(limits, name)
            if limits.label == "your settings" and (value == 0 or (current or math.inf) <= value):
                continue
            if origin.startswith("429") and current is not None and current <= value:
                continue  # a 429's count only lowers the limit
            limits = limits.with_value(name, value or None, origin)
            if origin.startswith("paid"):
                limits = replace(limits, label=f"{shown_name(pair[0])} paid tier")
        return limits

    def _sync(self, state: _State) -> None:
        """Read the other processes' requests and blocks on this key (at most every SYNC_S)."""
        if self.shared is None:
            return
        now = self.clock.monotonic()
        if now - state.synced < SYNC_S:
            return
        wall = self.shared.wall()
        self._absorb(state, self.shared.foreign(state.key, wall - DAY_S), wall)

    def _absorb(self, state: _State, found: Foreign, wall: float) -> None:
        """Take in the other processes' entries and blocks, read at wall time ``wall``, and
        what they learnt of the account (read with them, in the same transaction when a claim
        reads them: a request claimed as another process's 429 comes in is held to the limit
        it learnt, so the first 429 either meets teaches both, not one 429 each)."""
        now = self.clock.monotonic()
        state.synced = now
        offset = now - wall  # wall time → this limiter's clock
        state.foreign = [[at + offset, tokens, kind] for at, tokens, kind in found.sent]
        if found.blocked_until + offset > state.blocked_until:
            state.blocked_until = found.blocked_until + offset
            state.blocked_why = found.blocked_why
        learned = tuple(sorted(found.learned))
        if learned and learned != state.learned:
            state.learned = learned
            rows = {f: (v, r) for f, v, r in learned}
            state.limits = self._remembered(state.limits, rows, state.key[1:])

    def _windows(self, state: _State) -> dict[str, _Window]:
        """This limiter's windows with the other processes' requests merged in."""
        if not state.foreign:
            return state.windows
        merged = {}
        for name, window in state.windows.items():
            since = self.clock.monotonic() - window.seconds
            theirs = [e for e in state.foreign if e[0] > since]
            sent = deque(sorted([*window.sent, *theirs], key=lambda e: e[0]))
            merged[name] = _Window(window.seconds, sent, window.tokens + sum(e[1] for e in theirs))
        return merged

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

    def wait_s(self, pair: Pair, tokens: int, *, reserve: float = 0.0) -> float:
        """Seconds before a request of ``tokens`` (prompt + completion budget) may go (0: now).
        ``reserve``: the share of each minute's budget this request may not use (a document's
        backlog leaves it to the block being edited and the blocks on screen)."""
        state = self._state(pair)
        self._sync(state)
        return self._wait(state, tokens, reserve)

    def _wait(self, state: _State, tokens: int, reserve: float) -> float:
        now = self.clock.monotonic()
        wait = max(0.0, state.blocked_until - now)
        if self._gated(state):
            wait = max(wait, GATE_S)
        for what, (remaining, until, _why, _window) in state.server.items():
            if now < until and remaining < (1 if what == "requests" else tokens):
                wait = max(wait, until - now)
        for window in state.windows.values():
            window.expire(now)
        for name, window in self._windows(state).items():
            requests, budget = _caps(state.limits, name, reserve)
            wait = max(wait, window.wait_for(now, requests, budget, tokens))
        return wait

    @staticmethod
    def _gated(state: _State) -> bool:
        """A paid tier's requests/minute are not known (Groq states none: only a 429 tells
        them), so each request waits until the previous one of this process was answered or
        refused: past the unknown limit, a burst sent at once met one 429 each, where one
        request at a time meets one, and its 429 stops the others before they go."""
        limits = state.limits
        unknown = limits.requests_per_minute is None
        return unknown and state.unanswered > 0 and limits.origin(FIELDS[0]).startswith("paid")

    def headroom(self, pair: Pair, tokens: int) -> Headroom:
        """A snapshot of ``pair``'s room now, for a request of ``tokens`` (see Headroom)."""
        wait = self.wait_s(pair, tokens)  # expires the windows too
        state = self._state(pair)
        now = self.clock.monotonic()
        windows = self._windows(state)
        sent = tuple(windows["minute"].requests())
        per_day = state.limits.requests_per_day
        left = None if per_day is None else max(0, per_day - len(windows["day"].requests()))
        remaining, until, _why, window = state.server.get("requests", (0, -math.inf, "", ""))
        if window == "day" and now < until:
            left = remaining if left is None else min(left, remaining)
        return Headroom(
            state.limits.requests_per_minute, sent, now + wait, per_day, _at_least_0(left)
        )

    def why(self, pair: Pair, tokens: int, *, reserve: float = 0.0) -> str:
        """What makes ``pair`` wait, for the status bar: "Groq free tier, 30 requests/min"
        (``reserve`` as for :meth:`wait_s`: a backlog's wait within the share kept for edits
        still names the limit, not "rate limit")."""
        state = self._state(pair)
        now = self.clock.monotonic()
        if state.blocked_until > now and state.blocked_why:
            return state.blocked_why
        if self._gated(state):
            who = state.limits.who("requests_per_minute", pair[0])
            return f"{who}, one request at a time until a 429 tells its requests/min"
        for what, (remaining, until, why, _window) in state.server.items():
            if now < until and remaining < (1 if what == "requests" else tokens):
                return str(why)
        limits = state.limits
        for name, window in self._windows(state).items():
            requests, budget = _caps(limits, name, reserve)
            unit = "min" if name == "minute" else name
            if window.wait_for(now, requests, None, tokens) > 0:
                requests = limits.limit("requests", name)  # the limit, not the backlog's share
                return (
                    f"{limits.who(f'requests_per_{name}', pair[0])}, {requests:,} requests/{unit}"
                )
            if window.wait_for(now, None, budget, tokens) > 0:
                budget = limits.limit("tokens", name)
                return f"{limits.who(f'tokens_per_{name}', pair[0])}, {budget:,} tokens/{unit}"
        return f"{limits.label or shown_name(pair[0])}, rate limit"

    # ---- bookkeeping ---------------------------------------------------------------------

    def claim(self, pair: Pair, tokens: int, *, reserve: float = 0.0) -> Booking | None:
        """Book a request of ``tokens`` if it may go now (None: it must wait; ask
        :meth:`wait_s` how long): the check and the booking in one step, one transaction of
        the shared file, so that two processes on one key never both take the last slot."""
        state = self._state(pair)
        if self.shared is None:
            return self.book(pair, tokens) if self._wait(state, tokens, reserve) <= 0 else None

        def fits(found: Foreign, wall: float) -> bool:
            self._absorb(state, found, wall)
            return self._wait(state, tokens, reserve) <= 0

        ok, row = self.shared.claim(state.key, float(tokens), fits)
        return self._book(state, pair, tokens, row) if ok else None

    def book(self, pair: Pair, tokens: int) -> Booking:
        """A request of ``tokens`` goes out now (whether or not it fits: :meth:`claim` asks)."""
        state = self._state(pair)
        row = None
        if self.shared is not None:
            row = self.shared.book(state.key, self.shared.wall(), float(tokens))
        return self._book(state, pair, tokens, row)

    def _book(self, state: _State, pair: Pair, tokens: int, row: int | None) -> Booking:
        now = self.clock.monotonic()
        entries, windows = [], []
        for what, left in state.server.items():  # what the server said is left shrinks too
            left[0] -= 1 if what == "requests" else tokens
        for window in state.windows.values():
            entry = [now, float(tokens), SENT]
            window.add(entry)
            entries.append(entry)
            windows.append(window)
        state.unanswered += 1
        return Booking(pair, tuple(entries), tuple(windows), row)

    def _answered(self, booking: Booking, now: float, kind: int = ADMITTED) -> bool:
        """The request's entries count from ``now``, of ``kind``: ADMITTED (the server admitted
        it by then) or UNSURE (it ended with no answer) (False: its answer had begun already)."""
        if booking.entries[0][2] != SENT:
            return False
        for entry, window in zip(booking.entries, booking.windows, strict=True):
            window.remove(entry)
            entry[0], entry[2] = now, kind
            window.add(entry)
        self._state(booking.pair).unanswered -= 1
        return True

    def admitted(self, booking: Booking) -> None:
        """The request's answer began: the server admitted it by now (its first event: the
        response's headers). The request counts from now, the latest moment it arrived.

        Why not from its booking: the request still had to cross the SDK and the network, and
        an entry from its booking left the minute before the server's did: two processes on
        one key, each waking exactly when its oldest entry left, met 429s by a tenth of a
        second. Nor from the answer's end: a request answered over several seconds then
        counted in a minute the server had closed, and a 429 taught a limit that high."""
        now = self.clock.monotonic()
        if self._answered(booking, now) and self.shared is not None and booking.row is not None:
            self.shared.admitted(booking.row, self.shared.wall())

    def settle(self, booking: Booking, tokens: int | None) -> None:
        """The request ended: the tokens the server reported it used (None, or Cerebras, which
        keeps the whole budget booked: the tokens booked) count from now, as Groq counts an
        answer's tokens as they are generated, until its end; the request itself from when its
        answer began (:meth:`admitted`), or from now if none began (an error: the server may
        have counted it, or never seen it: UNSURE, which a 429 does not count)."""
        keep = tokens is None or booking.pair[0] == "cerebras"
        now = self.clock.monotonic()
        self._answered(booking, now, UNSURE)
        used = booking.entries[0][1] if keep else float(tokens or 0)
        for entry, window in zip(booking.entries, booking.windows, strict=True):
            window.clear_tokens(entry)
            window.add([now, used, TOKENS])
        if self.shared is not None and booking.row is not None:
            self.shared.settle(booking.row, used, self.shared.wall())

    def observe(self, pair: Pair, info: RateLimitInfo | None) -> None:
        """Adopt what a response's rate-limit headers state (each read for its own window): the
        limits themselves (see :meth:`_adopt`), and what is left until when."""
        if info is None:
            return
        state = self._state(pair)
        now = self.clock.monotonic()
        rows = [
            (what, limit, remaining, reset, window)
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
            )
            if window in WINDOWS
        ]
        stated = {f"{r[0]}_per_{r[4]}": r[1] for r in rows if r[1] is not None and r[1] > 0}
        self._adopt(pair, state, stated)
        for what, limit, remaining, reset, window in rows:
            if remaining is not None and reset is not None:
                unit = "min" if window == "minute" else window
                shown = limit if limit is not None else state.limits.limit(what, window)
                who = state.limits.who(f"{what}_per_{window}", pair[0])
                why = f"{who}, {shown or 0:,} {what}/{unit}"
                state.server[what] = [remaining, now + min(reset, WINDOWS[window]), why, window]

    def _adopt(self, pair: Pair, state: _State, stated: Mapping[str, int]) -> None:
        """The stated limits replace the first guess, up as well as down (a line of the user's
        settings is a cap: only tightened). A figure above the free tier's largest means a paid
        tier: the table's other figures, which no header states, are dropped (learned from 429s
        from then on). What changed is remembered for the next start and the other processes."""
        if not stated:
            return
        limits, day = state.limits, self._today()
        yours = limits.label == "your settings"
        changed: dict[str, tuple[int, str]] = {}
        for name, value in stated.items():
            current: int | None = getattr(limits, name)
            if current == value or (yours and current is not None and current < value):
                continue
            limits = limits.with_value(name, value, f"header {day}")
            changed[name] = (value, f"header {day}")
        ceiling = self._ceilings.get(pair[0], {})
        paid = any(value > ceiling.get(name, math.inf) for name, value in stated.items())
        if paid and not yours and not limits.label.endswith("paid tier"):
            for name in FIELDS:
                if name not in stated and not limits.origin(name) and getattr(limits, name):
                    limits = limits.with_value(name, None, f"paid {day}")
                    changed[name] = (0, f"paid {day}")
            limits = replace(limits, label=f"{shown_name(pair[0])} paid tier")
        state.limits = limits
        if self.shared is not None:
            for name, (value, origin) in changed.items():
                self.shared.learn(state.key, name, value, origin)

    def _today(self) -> str:
        return datetime.date.fromtimestamp(self.clock.wall()).isoformat()

    def rate_limited(
        self,
        pair: Pair,
        retry_after: float | None,
        info: RateLimitInfo | None = None,
        booking: Booking | None = None,
    ) -> None:
        """A 429 (to ``booking``'s request): nothing more until its retry-after, and the refused
        request does not count. A 429 the tokens do not explain, met after at least
        ``LEARN_AFTER`` requests this minute (every process's on this key), means fewer
        requests a minute than we thought: the server's count becomes the limit (fewer say
        nothing about a requests/min limit: a token limit or a passing overload). What the
        server counted is taken as the requests whose answer began: one still on its way may
        arrive after the refused one, even if booked before it (on a busy machine, seconds
        after its booking), and a limit learnt too high meets 429s again, where one too low
        only paces a little slower."""
        state = self._state(pair)
        now = self.clock.monotonic()
        tokens_out = info is not None and info.remaining_tokens == 0
        if booking is not None and booking.entries[0][2] == SENT:
            state.unanswered -= 1
            for entry, window in zip(booking.entries, booking.windows, strict=True):
                window.remove(entry)
                entry[2] = TOKENS  # no request any more: nothing to answer
            if self.shared is not None and booking.row is not None:
                self.shared.refused(booking.row)
        self._sync(state)  # the other processes' requests of the minute count too
        state.windows["minute"].expire(now)
        minute = self._windows(state)["minute"].sent
        if booking is None:
            accepted = sum(kind != TOKENS for _at, _t, kind in minute) - 1  # not the refused one
        else:
            accepted = sum(kind == ADMITTED for _at, _t, kind in minute)
        current = state.limits.requests_per_minute
        if not tokens_out and accepted >= LEARN_AFTER and (current is None or accepted < current):
            origin = f"429 {self._today()}"
            state.limits = state.limits.with_value("requests_per_minute", accepted, origin)
            if self.shared is not None:
                self.shared.learn(state.key, "requests_per_minute", accepted, origin)
                state.learned = ()  # the next look takes the file's, lower if another learnt less
        self.observe(pair, info)
        if retry_after is not None:
            self._block(state, now + retry_after, f"{shown_name(pair[0])} rate limit reached")

    def _block(self, state: _State, until: float, why: str) -> None:
        if until > state.blocked_until:
            state.blocked_until, state.blocked_why = until, why
            if self.shared is not None:
                wall = self.shared.wall() + (until - self.clock.monotonic())
                self.shared.block(state.key, wall, why)
