"""Choosing a provider and model for each request, and falling back when one fails.

How it decides is explained for users in docs/routing.md; in short:

1. *Allowed*: every (provider, model) pair: each provider's default model plus the models the
   settings list for it, minus the user's exclusions. A per-language preference puts its models
   first.
2. *Healthy* (:mod:`fastdesk.routing.health`): rate-limited, unauthorised and missing models
   are skipped; a choice cooling down after timeouts or 5xx is tried only after the healthy ones.
3. *Fastest*: predicted completion time = time to first token + expected output tokens / tokens
   per second, both measured (:mod:`fastdesk.routing.stats`). Unmeasured choices come after the
   measured ones, in configuration order.
4. *Exploring*: a few requests go to another healthy choice, so a provider that became faster
   is noticed: at each process start, the one measured longest ago (a never-measured one first)
   gets two requests, the second once the first's answer is in (the first pays for the new
   connection; the second is the one that judges it: fastdesk.routing.stats); a never-measured
   one at the first chance; and, in a long-lived process, at random moments, the one measured
   longest ago, within a bounded share (``explore_share``, 5 % by default, the start's probes
   counted in it).
5. *Streaming*: the engine gets ``Attempt`` → ``TextDelta``* → ``AttemptDone``. A failure before
   or during the answer moves to the next choice after a ``Restart`` (the engine drops partial
   text), so no partial or doubled text reaches the document. With hedging on, when no first
   token has come by the chosen choice's 90th-percentile time to first token, the same request
   also goes to the next choice; the first to stream wins and the other is cancelled. Every
   attempt, the cancelled ones included, ends with an ``AttemptDone`` carrying its stats.

All of it runs in the worker's asyncio loop; nothing here blocks (stats are saved off the loop).
What may be chosen is :mod:`fastdesk.routing.choices`, one request in flight (fallback, hedging,
deadlines) :mod:`fastdesk.routing.flight`, what streams out :mod:`fastdesk.routing.events`. Every
time here is one clock's (fastdesk.clock): the router's, which its limiter and health read too.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import random
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from typing import Any

from fastdesk.clock import Clock, SystemClock
from fastdesk.providers.base import Provider as ProviderProto
from fastdesk.providers.base import (
    ProviderError,
    RateLimitedError,
    RateLimitInfo,
    RequestStats,
    estimate_tokens,
)
from fastdesk.routing.choices import (
    Allowed,
    Choice,
    RouterOptions,
    options_from_settings,
    skip_error,
)
from fastdesk.routing.concurrency import Concurrency
from fastdesk.routing.events import (
    AllProvidersFailed,
    Attempt,
    AttemptDone,
    Backoff,
    HedgeSummary,
    Restart,
    RouterEvent,
    wait_kind,
    wait_reason,
)
from fastdesk.routing.flight import Flight
from fastdesk.routing.health import Health, HealthEntry
from fastdesk.routing.limiter import GATE_S, RESERVE, Limiter
from fastdesk.routing.pricing import PriceTable
from fastdesk.routing.retired import Retirements
from fastdesk.routing.retry import Deadlines, RetryBudget, RetryPolicy
from fastdesk.routing.stats import Pair, StatsStore, write_snapshot

__all__ = [  # what callers import from here (each defined in the module named above)
    "AllProvidersFailed",
    "Attempt",
    "AttemptDone",
    "Backoff",
    "Choice",
    "HedgeSummary",
    "Restart",
    "Router",
    "RouterEvent",
    "RouterOptions",
    "options_from_settings",
]

log = logging.getLogger(__name__)

EXPLORE_SHARE = 0.05
START_PROBES = 2  # requests a process start sends the choice measured longest ago (cold, warm)
EXPLORING_PURPOSES = frozenset({"translate", "retry", "expand"})
UNMEASURED_PURPOSES = frozenset({"warmup"})  # cold by design: would poison the windows
MIN_TPS_TOKENS = 8  # fewer completion tokens give no usable tokens/s figure


class Router:
    """Routes each request to the fastest healthy allowed choice; see the module docstring."""

    def __init__(
        self,
        providers: Mapping[str, ProviderProto],
        pricing: PriceTable | None = None,
        *,
        models: Mapping[str, Sequence[str]] | None = None,
        excluded: Iterable[Pair | str] | Mapping[str, Sequence[str]] | None = None,
        preferred: Mapping[str, object] | None = None,
        stats: StatsStore | None = None,
        health: Health | None = None,
        rng: random.Random | None = None,
        explore_share: float = EXPLORE_SHARE,
        hedge: bool = False,
        hedge_unmeasured_ms: float = 1500.0,
        default_tps: float = 300.0,
        save_interval_s: float = 10.0,
        on_health: Callable[[HealthEntry], None] | None = None,
        retry: RetryPolicy | None = None,
        limiter: Limiter | None = None,
        deadlines: Deadlines | None = None,
        clock: Clock | None = None,
        patient: bool = False,
        retirements: Retirements | None = None,
    ) -> None:
        """``models``: extra models per provider (besides its default). ``excluded``: pairs,
        ``"provider/model"``, bare model ids or provider names, or ``{provider: [models]}`` as in
        the settings. ``preferred``: language → model (``"provider/model"``, a bare id, a list of
        those, or ``{provider: model}`` as in the settings). ``stats`` defaults to the persisted
        store in the data dir; pass ``StatsStore.memory()`` to keep nothing. ``clock``: the one
        clock (fastdesk.clock); by default the given limiter's or health's, else the system's.
        A limiter or health on another clock is a ValueError: their times would not compare."""
        self.providers = providers
        self.pricing = pricing or PriceTable()
        self.allowed = Allowed(providers, models, excluded, preferred)
        parts = [part.clock for part in (limiter, health) if part is not None]
        self.clock: Clock = clock or next(iter(parts), None) or SystemClock()
        if any(other != self.clock for other in parts):
            raise ValueError("the router, its limiter and its health must share one clock")
        self.stats = stats if stats is not None else StatsStore.load(clock=self.clock)
        self.retry = retry or RetryPolicy()
        self.deadlines = deadlines or Deadlines()
        # wait out rate limits (never fail a request for the rate): the app and the command line
        # are (translate/wiring.py); a bare router fails once its retry budget is spent
        self.patient = patient
        # models found shut down, and what replaces each (said once, remembered)
        self.retirements = retirements or Retirements(
            defaults=lambda name: getattr(self.providers.get(name), "default_model", "")
        )
        self.allowed.current = self.retirements.current
        # no limits unless given (wiring seeds one from the published free tiers and settings)
        self.limiter = limiter or Limiter(table={}, clock=self.clock)
        # each choice's window of streams in flight, learnt from its answers and 429s
        self.concurrency = Concurrency()
        # set when a server's headers lift a limit: requests waiting for the old one go now
        self._lifted: asyncio.Event | None = None
        self.health = health or Health(
            clock=self.clock, max_retry_after_s=self.retry.retry_after_cap_s
        )
        if on_health is not None:
            self.health.listener = on_health
        self.rng = rng or random.Random()
        self.explore_share = explore_share
        self.hedge = hedge
        self.hedge_unmeasured_ms = hedge_unmeasured_ms
        self.default_tps = default_tps
        self.save_interval_s = save_interval_s
        self.hedging = HedgeSummary()
        self.decisions = 0  # requests where exploring was possible
        self.explored = 0
        self._start_probe: Pair | None = None  # this process's probe (see _due_probe)
        self._start_probes = 0  # requests sent to it
        self._last_save = -math.inf
        self._save_task: asyncio.Task[None] | None = None

    # ---- what may be chosen (fastdesk.routing.choices) ----------------------------------------

    def pairs(self) -> list[Pair]:
        """Every configured (provider, model), in configuration order."""
        return self.allowed.pairs()

    def is_excluded(self, pair: Pair) -> bool:
        return self.allowed.is_excluded(pair)

    # ---- ranking ------------------------------------------------------------------------------

    def _rank(
        self, provider: str, model: str | None, expected_tokens: int | None, lang: str | None
    ) -> tuple[list[Pair], list[ProviderError], set[Pair]]:
        """(order to try, why some were skipped, preferred pairs)."""
        pool, errors = self.allowed.pool(provider, model)
        pref = self.allowed.preference(lang)
        preferred = {p for p in pool if pref is not None and Allowed.matches(pref, p)}
        keyed = []
        for index, pair in enumerate(pool):
            entry = self.health.entry(*pair)
            if entry.skipped:
                errors.append(skip_error(entry, pair))
                continue
            predicted = self.stats.get(pair).predict_ms(expected_tokens, self.default_tps)
            key = (
                entry.demoted,
                pair not in preferred,
                predicted is None,
                predicted if predicted is not None else 0.0,
                index,
            )
            keyed.append((key, pair))
        keyed.sort()
        return [pair for _, pair in keyed], errors, preferred

    def candidates(
        self,
        provider: str = "auto",
        model: str | None = None,
        *,
        expected_tokens: int | None = None,
        lang: str | None = None,
    ) -> list[Pair]:
        """(provider, model) pairs to try, best first. Pure: exploring happens in :meth:`stream`."""
        return self._rank(provider, model, expected_tokens, lang)[0]

    def ranking(
        self,
        provider: str = "auto",
        model: str | None = None,
        *,
        expected_tokens: int | None = None,
        lang: str | None = None,
    ) -> list[Choice]:
        """Every allowed choice with its measures and health, in the order they would be tried
        (skipped ones last)."""
        order, _errors, preferred = self._rank(provider, model, expected_tokens, lang)
        pool, _ = self.allowed.pool(provider, model)
        rest = [p for p in pool if p not in order]
        out = []
        for pair in [*order, *rest]:
            s = self.stats.get(pair)
            out.append(
                Choice(
                    provider=pair[0],
                    model=pair[1],
                    health=self.health.entry(*pair),
                    preferred=pair in preferred,
                    samples=len(s.ttfb_ms),
                    ttfb_ms=s.ttfb_estimate(),
                    ttfb_p90_ms=s.ttfb_p90(),
                    tokens_per_s=s.tps_estimate(),
                    predicted_ms=s.predict_ms(expected_tokens, self.default_tps),
                )
            )
        return out

    def choose(
        self,
        provider: str = "auto",
        model: str | None = None,
        *,
        expected_tokens: int | None = None,
        lang: str | None = None,
        purpose: str = "translate",
    ) -> list[Pair]:
        """The order a request would try now, exploring included: what :meth:`stream` does
        before the limiter (it counts as a decision, as a request would)."""
        order, _errors, preferred = self._rank(provider, model, expected_tokens, lang)
        return self._explore(order, preferred, purpose)

    def _explore(self, order: list[Pair], preferred: set[Pair], purpose: str) -> list[Pair]:
        """Now and then put another healthy choice first (bounded; see the module docstring)."""
        if purpose not in EXPLORING_PURPOSES or self.explore_share <= 0:
            return order
        healthy = [p for p in order if not self.health.entry(*p).demoted]
        if healthy and healthy[0] in preferred:  # stay within the language's preferred models
            healthy = [p for p in healthy if p in preferred]
        if len(healthy) < 2:
            return order
        self.decisions += 1
        share = self.explore_share * self.decisions  # requests that may explore so far
        budget = max(share, START_PROBES)  # at random: the start's probes counted in it
        others = healthy[1:]
        stats = self.stats
        probe = self._due_probe(healthy[0], others)
        unmeasured = [p for p in others if not stats.get(p).measured]
        if unmeasured and not stats.get(healthy[0]).measured:
            unmeasured = []  # nothing measured yet: configuration order decides, for now
        if probe is not None:
            self._start_probes += 1
            target = probe
        elif unmeasured:  # a new choice: measured at the first chance (the share plus one)
            if self.explored > share:
                return order
            target = self.rng.choice(unmeasured)
        elif self.rng.random() >= self.explore_share or self.explored + 1 > budget:
            return order
        else:  # re-probe the choice measured longest ago
            stalest = min(stats.get(p).last_at or 0.0 for p in others)
            oldest = [p for p in others if (stats.get(p).last_at or 0.0) == stalest]
            target = self.rng.choice(oldest)
        self.explored += 1
        log.debug("exploring %s/%s", *target)
        return [target, *(p for p in order if p != target)]

    def _due_probe(self, top: Pair, others: list[Pair]) -> Pair | None:
        """The process start's probe, when a request of it is due: the choice measured longest
        ago (never measured: first) is sent one request at the first decision after something
        was measured, and a second once the first's answer is in (START_PROBES)."""
        stats = self.stats
        if not stats.get(top).measured or self._start_probes >= START_PROBES:
            return None
        if self._start_probe is None:
            self._start_probe = min(others, key=lambda p: stats.get(p).last_at or -math.inf)
        probe = self._start_probe
        if probe not in others:  # it became the top choice, or is cooling down: done
            self._start_probes = START_PROBES
            return None
        if self._start_probes == 0 or stats.measured_here(probe):
            return probe
        return None

    # ---- streaming ----------------------------------------------------------------------------

    async def stream(
        self,
        messages: Sequence[dict[str, str]],
        *,
        provider: str = "auto",
        model: str | None = None,
        max_tokens: int | None = None,
        purpose: str = "translate",
        blocks: int = 0,
        expected_tokens: int | None = None,
        lang: str | None = None,
        hedge: bool | None = None,
        avoid: Pair | None = None,
        background: bool = False,
        json_schema: Mapping[str, Any] | None = None,
    ) -> AsyncIterator[RouterEvent]:
        """Stream one answer, falling back across candidates. Raises AllProvidersFailed.

        ``expected_tokens``: the estimated answer length (ranks on completion time, not only on
        time to first token). ``lang``: the target language (per-language preferences).
        ``hedge``: override the router's hedging setting for this request. ``avoid``: a choice
        to try last (its answer was not a translation: the next model gets the retry).
        ``background``: a document's backlog, which leaves part of each minute's budget
        (``limiter.RESERVE``) to edits and the blocks on screen. ``json_schema``: the answer's
        shape, for the providers that can hold a model to it (providers.base.ChatRequest).
        """
        budget = RetryBudget(self.retry, self.rng, self.clock)
        # a document or an edit waits for the rate as long as it takes; a warm-up does not
        patient = self.patient and purpose not in UNMEASURED_PURPOSES
        streamed = False  # something was yielded that a retry must take back (Restart)
        prompt = estimate_tokens(*(m.get("content", "") for m in messages))

        def booked(pair: Pair) -> int:
            """Tokens a request books: the prompt and its completion budget (Cerebras counts
            all of max_completion_tokens up front; the others count what was used, which the
            booking becomes once reported: the budget covers a reasoning model's thinking,
            which the expected answer does not)."""
            return prompt + (max_tokens or expected_tokens or 0)

        reserve = RESERVE if background else 0.0

        def wait_for(pair: Pair) -> float:
            return self.limiter.wait_s(pair, booked(pair), reserve=reserve)

        while True:
            order, errors, preferred = self._rank(provider, model, expected_tokens, lang)
            if avoid in order and len(order) > 1:
                order = [p for p in order if p != avoid] + [avoid]
            ready = [p for p in order if wait_for(p) <= 0]
            if order and not ready:  # every choice is at its limit: wait for the first free one
                pair = min(order, key=wait_for)
                wait = wait_for(pair)
                if wait <= GATE_S:  # a moment (an answer to begin): not worth a word
                    await self._rate_sleep(wait)
                    continue
                why = self.limiter.why(pair, booked(pair), reserve=reserve)
                if wait > budget.remaining_s() and not patient:
                    limited = RateLimitedError(pair[0], f"{pair[1]}: {why}", retry_after=wait)
                    raise AllProvidersFailed([*errors, limited])
                yield Backoff(pair[0], wait, why, kind="rate")
                if patient:
                    budget.forgive(wait)  # paced, not failing: the rate is no fault
                await self._rate_sleep(wait)
                continue
            order = ready
            if order:
                order = self._explore(order, preferred, purpose)
                # the check and the booking in one step: another process on the key may have
                # taken the slot since (then wait for the next one)
                first = next(
                    (b for p in order if (b := self.limiter.claim(p, booked(p), reserve=reserve))),
                    None,
                )
                if first is None:
                    continue
                order = [first.pair, *(p for p in order if p != first.pair)]
                hedging = self.hedge if hedge is None else hedge
                if hedging and len(order) > 1:
                    self.hedging.requests += 1
                else:
                    hedging = False
                flight = Flight(self, messages, order, max_tokens, purpose, blocks, hedging)
                flight.booked, flight.reserve, flight.first = booked, reserve, first
                flight.json_schema = json_schema
                try:
                    # closing us stops the attempts
                    async with contextlib.aclosing(flight.events()) as events:
                        async for event in events:
                            streamed = True
                            yield event
                    return
                except AllProvidersFailed as exc:
                    errors = exc.errors
            step = budget.next_wait(errors, patient=patient)
            if step is None:
                raise AllProvidersFailed(errors)
            wait, cause = step
            log.info("retrying in %.1f s after: %s", wait, cause)
            yield Backoff(cause.provider, wait, wait_reason(cause), kind=wait_kind(cause))
            if wait > 0:
                await asyncio.sleep(wait)
            if streamed:
                yield Restart(str(cause))
                streamed = False

    async def _rate_sleep(self, wait: float) -> None:
        """Wait ``wait`` seconds for the rate, or less if a server's headers lift the limit
        meanwhile: a paid account's first run, seeded from the free tier, had its first
        requests wait a whole minute for a limit the first answer's headers had lifted."""
        if self._lifted is None:
            self._lifted = asyncio.Event()
        lifted = asyncio.ensure_future(self._lifted.wait())
        slept = asyncio.ensure_future(asyncio.sleep(wait))
        try:
            await asyncio.wait((lifted, slept), return_when=asyncio.FIRST_COMPLETED)
        finally:
            lifted.cancel()
            slept.cancel()

    # ---- measuring ----------------------------------------------------------------------------

    def record(
        self, stats: RequestStats, rate: RateLimitInfo | None = None, pair: Pair | None = None
    ) -> None:
        """Every attempt ends here: successes feed the latency windows and clear ill health;
        rate-limit headers tighten the limiter. ``pair``: the choice as routed (its model may
        be "" where the stats name the model the server chose)."""
        pair = pair or (stats.provider, stats.model)
        before = self.limiter.limits(pair)
        self.limiter.observe(pair, rate)
        if self._lifted is not None and self.limiter.limits(pair).looser_than(before):
            self._lifted.set()  # a paid tier's headers: the waits for the free tier end
            self._lifted = None
        if stats.status == "ok":
            self.health.success(*pair)
            if stats.purpose not in UNMEASURED_PURPOSES:
                tps = stats.tokens_per_s
                if (stats.completion_tokens or 0) < MIN_TPS_TOKENS:
                    tps = None
                self.stats.observe(pair, ttfb_ms=stats.ttfb_ms, tokens_per_s=tps)
        elif stats.status == "cancelled" and stats.purpose not in UNMEASURED_PURPOSES:
            self.stats.observe(pair, ttfb_ms=stats.ttfb_ms)  # the first token did come
        self._maybe_save()

    def usable_in_s(
        self, provider: str = "auto", model: str | None = None, *, tokens: int = 1
    ) -> float:
        """Seconds until a request of ``tokens`` for ``provider``/``model`` could go out: the
        soonest of the allowed choices, each once its health (cooldown, retry-after) and its
        limiter (the windows, what the headers and 429s said) both let it (0: now;
        ``math.inf``: none will by itself, e.g. every key refused or nothing configured). The
        window's retry of failed blocks waits for this rather than for a fixed time."""
        pool, _errors = self.allowed.pool(provider, model)
        return min(
            (max(self.health.usable_in_s(*p), self.limiter.wait_s(p, tokens)) for p in pool),
            default=math.inf,
        )

    def health_report(self) -> list[HealthEntry]:
        """Providers and models that are not usable right now, with a sentence for the user."""
        return self.health.report()

    def reset_health(self, provider: str | None = None) -> None:
        """Forget failures (e.g. after the user changed a key)."""
        self.health.reset(provider)

    # ---- persistence --------------------------------------------------------------------------

    def _maybe_save(self) -> None:
        """Save the windows at most every ``save_interval_s``, off the loop when one runs."""
        path = self.stats.path
        if path is None or not self.stats.dirty:
            return
        now = self.clock.monotonic()
        if now - self._last_save < self.save_interval_s:
            return
        if self._save_task is not None and not self._save_task.done():
            return
        self._last_save = now
        text = self.stats.snapshot()
        self.stats.dirty = False
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            write_snapshot(path, text)
            return
        self._save_task = loop.create_task(asyncio.to_thread(write_snapshot, path, text))

    def save_stats(self) -> None:
        """Write the windows now, in the loop's thread or once it has stopped (aclose does it)."""
        if self.stats.dirty:
            self._last_save = self.clock.monotonic()
            self.stats.save()

    async def aclose(self) -> None:
        task = self._save_task
        if task is not None and not task.done() and task.get_loop() is asyncio.get_running_loop():
            await asyncio.wait([task])
        self.save_stats()
        for p in self.providers.values():
            await p.aclose()
