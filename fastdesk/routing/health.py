"""Which providers and models may be asked right now, and why not when they may not.

Failures change what the router does next (docs/routing.md):

==========================  ==================  ==========================================
failure                     scope               effect
==========================  ==================  ==========================================
401/403 (authentication)    the whole provider  skipped until :meth:`Health.reset`; the user is told
429 (rate limited)          provider + model    skipped until its retry-after (else backoff)
404 (model not found)       provider + model    skipped for ``unavailable_s``
timeout, 5xx                provider + model    cooldown with exponential backoff
connection refused / cut    the whole provider  cooldown with exponential backoff
400 (bad request)           nothing             the request, not the provider, was at fault
==========================  ==================  ==========================================

A skipped choice is not tried at all; a choice in cooldown is tried only after every healthy one,
so a user with a single provider still gets an answer once it recovers. One success clears the
choice's record. A retry-after counts up to ``max_retry_after_s``. Times are monotonic readings
of the one clock the wiring hands in (fastdesk.clock), so tests move time instead of sleeping.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from fastdesk.clock import Clock, SystemClock, duration
from fastdesk.providers.base import ProviderError

OK, AUTH, RATE_LIMITED, UNAVAILABLE, COOLDOWN = (
    "ok",
    "auth",
    "rate_limited",
    "unavailable",
    "cooldown",
)
_SKIP = (AUTH, RATE_LIMITED, UNAVAILABLE)
_SEVERITY = {OK: 0, COOLDOWN: 1, UNAVAILABLE: 2, RATE_LIMITED: 3, AUTH: 4}
# The backoff stops doubling here: any base has long passed any maximum, and 2.0 ** 1024 (a
# provider down for a thousand requests in a row) would overflow a float.
_MAX_DOUBLINGS = 64


@dataclass(frozen=True)
class HealthEntry:
    """One provider's (``model=None``) or one model's state, in words the UI can show."""

    provider: str
    model: str | None
    state: str  # ok | auth | rate_limited | unavailable | cooldown
    retry_in_s: float | None  # None: until fixed by the user (auth) or now (ok)
    message: str

    @property
    def skipped(self) -> bool:
        return self.state in _SKIP

    @property
    def demoted(self) -> bool:
        return self.state == COOLDOWN


@dataclass
class _Record:
    state: str = OK
    until: float | None = None  # the clock's monotonic time; None with AUTH: until reset
    failures: int = 0
    message: str = ""


Listener = Callable[[HealthEntry], None]


class Health:
    """Per-provider and per-model health, with backoff; notifies ``listener`` on every change."""

    def __init__(
        self,
        *,
        clock: Clock | None = None,
        base_backoff_s: float = 1.0,
        max_backoff_s: float = 60.0,
        unavailable_s: float = 600.0,
        max_retry_after_s: float = 60.0,
        listener: Listener | None = None,
    ) -> None:
        """``max_retry_after_s``: a server's retry-after is honoured up to this (a date in 2099
        must not skip a provider for decades)."""
        self.clock: Clock = clock or SystemClock()
        self.max_retry_after_s = max_retry_after_s
        self.base_backoff_s = base_backoff_s
        self.max_backoff_s = max_backoff_s
        self.unavailable_s = unavailable_s
        self.listener = listener
        self._records: dict[tuple[str, str | None], _Record] = {}

    # ---- reading ------------------------------------------------------------------------------

    def entry(self, provider: str, model: str) -> HealthEntry:
        """The choice's effective state: the worse of its provider's and its own."""
        best = self._entry(provider, None)
        own = self._entry(provider, model)
        return own if _SEVERITY[own.state] > _SEVERITY[best.state] else best

    def _entry(self, provider: str, model: str | None) -> HealthEntry:
        rec = self._records.get((provider, model))
        if rec is None or rec.state == OK:
            return HealthEntry(provider, model, OK, None, "")
        now = self.clock.monotonic()
        if rec.until is not None and now >= rec.until:
            return HealthEntry(provider, model, OK, None, "")
        left = None if rec.until is None else rec.until - now
        return HealthEntry(provider, model, rec.state, left, rec.message)

    def usable_in_s(self, provider: str, model: str) -> float:
        """Seconds until the choice may be asked again by itself (0: now), its provider's
        record and its own both counted; ``math.inf`` while a refused key waits for the user."""
        now = self.clock.monotonic()
        wait = 0.0
        for key in ((provider, None), (provider, model)):
            rec = self._records.get(key)
            if rec is None or rec.state == OK:
                continue
            if rec.until is None:
                return math.inf
            wait = max(wait, rec.until - now)
        return wait

    def report(self) -> list[HealthEntry]:
        """Every provider or model that is not OK right now, worst first (for a status line)."""
        entries = [self._entry(p, m) for (p, m) in self._records]
        bad = [e for e in entries if e.state != OK]
        return sorted(bad, key=lambda e: (-_SEVERITY[e.state], e.provider, e.model or ""))

    # ---- updating -----------------------------------------------------------------------------

    def success(self, provider: str, model: str) -> None:
        """A request succeeded: the model is fine, and so are the provider's connection and key."""
        for key in ((provider, model), (provider, None)):
            rec = self._records.get(key)
            if rec is None:
                continue
            was_bad = self._entry(*key).state != OK
            del self._records[key]
            if was_bad:
                self._notify(HealthEntry(key[0], key[1], OK, None, "working again"))

    def failure(self, provider: str, model: str, exc: ProviderError) -> HealthEntry | None:
        """Record a failure; returns the new state (None when the provider is not to blame)."""
        kind = exc.kind
        if kind == "authentication":
            key: tuple[str, str | None] = (provider, None)
            rec = self._records.setdefault(key, _Record())
            rec.state, rec.until, rec.failures = AUTH, None, rec.failures + 1
            rec.message = (
                f"{provider}: the API key was refused; check it in Settings or the environment."
            )
        elif kind == "rate_limited":
            key = (provider, model)
            rec = self._records.setdefault(key, _Record())
            rec.failures += 1
            retry_after = getattr(exc, "retry_after", None)
            wait = (
                min(retry_after, self.max_retry_after_s)
                if retry_after is not None and retry_after >= 0
                else self._backoff(rec)
            )
            rec.state, rec.until = RATE_LIMITED, self.clock.monotonic() + wait
            rec.message = f"{provider}/{model}: rate limit reached; waiting {duration(wait)}."
        elif kind == "bad_request" and exc.status == 404:
            key = (provider, model)
            rec = self._records.setdefault(key, _Record())
            rec.failures += 1
            rec.state, rec.until = UNAVAILABLE, self.clock.monotonic() + self.unavailable_s
            rec.message = f"{provider}/{model}: model not available ({exc.message})."
        elif kind == "bad_request":
            return None
        else:  # timeout, server, connection, anything unexpected
            key = (provider, None) if kind == "connection" else (provider, model)
            rec = self._records.setdefault(key, _Record())
            rec.failures += 1
            wait = self._backoff(rec)
            rec.state, rec.until = COOLDOWN, self.clock.monotonic() + wait
            where = f"{key[0]}/{model}" if key[1] else key[0]
            rec.message = f"{where}: {exc.message}; retrying in {duration(wait)}."
        entry = self._entry(*key)
        self._notify(entry)
        return entry

    def reset(self, provider: str | None = None) -> None:
        """Forget failures (all, or one provider's): e.g. after the user changed a key."""
        for key in [k for k in self._records if provider is None or k[0] == provider]:
            del self._records[key]

    def _backoff(self, rec: _Record) -> float:
        doublings = min(max(0, rec.failures - 1), _MAX_DOUBLINGS)
        return min(self.max_backoff_s, self.base_backoff_s * 2.0**doublings)

    def _notify(self, entry: HealthEntry) -> None:
        if self.listener is not None:
            self.listener(entry)
