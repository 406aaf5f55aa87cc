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
4. *Exploring*: a bounded share of requests (``explore_share``, 5 % by default) goes to another
   healthy choice: a never-measured one at the first chance (the budget allows one extra for
   that), else, at random moments, the one measured longest ago, so a provider that became
   faster is noticed.
5. *Streaming*: the engine gets ``Attempt`` → ``TextDelta``* → ``AttemptDone``. A failure before
   or during the answer moves to the next choice after a ``Restart`` (the engine drops partial
   text), so no partial or doubled text reaches the document. With hedging on, when no first
   token has come by the chosen choice's 90th-percentile time to first token, the same request
   also goes to the next choice; the first to stream wins and the other is cancelled. Every
   attempt, the cancelled ones included, ends with an ``AttemptDone`` carrying its stats.

All of it runs in the worker's asyncio loop; nothing here blocks (stats are saved off the loop).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import random
import time
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypedDict

from fastdesk.config.redact import redact
from fastdesk.config.settings import PROVIDER_NAMES
from fastdesk.providers.base import (
    AnswerTooLongError,
    AuthenticationError,
    BadRequestError,
    ChatRequest,
    ProviderError,
    ProviderTimeoutError,
    RateLimitedError,
    RateLimitInfo,
    RequestStats,
    ServerError,
    StreamEnd,
    TextDelta,
    Timing,
    Usage,
)
from fastdesk.providers.base import Provider as ProviderProto
from fastdesk.routing.health import Health, HealthEntry
from fastdesk.routing.limiter import Booking, Limiter
from fastdesk.routing.pricing import PriceTable
from fastdesk.routing.retry import Deadlines, RetryBudget, RetryPolicy
from fastdesk.routing.stats import ChoiceStats, Pair, StatsStore, write_snapshot

log = logging.getLogger(__name__)

EXPLORE_SHARE = 0.05
EXPLORING_PURPOSES = frozenset({"translate", "retry", "expand"})
UNMEASURED_PURPOSES = frozenset({"warmup"})  # cold by design: would poison the windows
MIN_TPS_TOKENS = 8  # fewer completion tokens give no usable tokens/s figure
HEDGE_MIN_SAMPLES = 3  # below this the 90th percentile means little: use hedge_unmeasured_ms


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


@dataclass
class HedgeSummary:
    """What hedging cost this session (shown next to the setting)."""

    requests: int = 0  # streams routed with hedging on
    hedged: int = 0  # extra requests sent
    won: int = 0  # extra requests that answered first
    cancelled: int = 0  # requests cancelled because the other one streamed first
    known_cost_usd: float = 0.0  # cost of the cancelled ones whose usage was reported
    estimated_cost_usd: float = 0.0  # the same plus an estimate for those without usage

    @property
    def extra_share(self) -> float:
        return self.hedged / self.requests if self.requests else 0.0


Matcher = tuple[set[Pair], set[str], set[str]]  # pairs, bare models, whole providers


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
    ) -> None:
        """``models``: extra models per provider (besides its default). ``excluded``: pairs,
        ``"provider/model"``, bare model ids or provider names, or ``{provider: [models]}`` as in
        the settings. ``preferred``: language → model (``"provider/model"``, a bare id, a list of
        those, or ``{provider: model}`` as in the settings). ``stats`` defaults to the persisted
        store in the data dir; pass ``StatsStore.memory()`` to keep nothing."""
        self.providers = providers
        self.pricing = pricing or PriceTable()
        self.models = {name: list(ms) for name, ms in (models or {}).items()}
        self._excluded = self._matcher(_flatten(excluded))
        self._preferred = {
            lang.lower(): self._matcher(_flatten_pref(v)) for lang, v in (preferred or {}).items()
        }
        self.stats = stats if stats is not None else StatsStore.load()
        self.retry = retry or RetryPolicy()
        self.deadlines = deadlines or Deadlines()
        # no limits unless given (wiring seeds one from the published free tiers and settings)
        self.limiter = limiter or Limiter(table={})
        self.health = health or Health(max_retry_after_s=self.retry.retry_after_cap_s)
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
        self._last_save = -math.inf
        self._save_task: asyncio.Task[None] | None = None

    # ---- what may be chosen -------------------------------------------------------------------

    def pairs(self) -> list[Pair]:
        """Every configured (provider, model), in configuration order."""
        out: list[Pair] = []
        for name, provider in self.providers.items():
            models = [m for m in [provider.default_model, *self.models.get(name, ())] if m]
            # no model named anywhere: the server's own choice (a local server's first model)
            for model in dict.fromkeys(models or [""]):
                if (name, model) not in out:
                    out.append((name, model))
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
    def _matches(m: Matcher, pair: Pair) -> bool:
        return pair in m[0] or pair[1] in m[1] or pair[0] in m[2]

    def is_excluded(self, pair: Pair) -> bool:
        return self._matches(self._excluded, pair)

    def _preference(self, lang: str | None) -> Matcher | None:
        """The preference for ``lang``: exact tag first (``fr-CA``), then shorter ones (``fr``)."""
        if not lang:
            return None
        parts = lang.lower().split("-")
        for n in range(len(parts), 0, -1):
            found = self._preferred.get("-".join(parts[:n]))
            if found is not None:
                return found
        return None

    def _pool(self, provider: str, model: str | None) -> tuple[list[Pair], list[ProviderError]]:
        """Allowed pairs for the request, or why there are none."""
        if provider != "auto":
            if provider not in self.providers:
                return [], []
            if model:  # the user pinned both: their explicit choice beats the quality rules
                return [(provider, model)], []
        pool = [p for p in self.pairs() if provider == "auto" or p[0] == provider]
        if model:  # a model named without a provider: where it is listed, else try it on each
            pool = [p for p in pool if p[1] == model] or [(name, model) for name, _m in pool]
            pool = list(dict.fromkeys(pool))
        allowed = [p for p in pool if not self.is_excluded(p)]
        if pool and not allowed:
            where = "any provider" if provider == "auto" else provider
            return [], [BadRequestError(where, "every model is excluded in the settings")]
        return allowed, []

    # ---- ranking ------------------------------------------------------------------------------

    def _rank(
        self, provider: str, model: str | None, expected_tokens: int | None, lang: str | None
    ) -> tuple[list[Pair], list[ProviderError], set[Pair]]:
        """(order to try, why some were skipped, preferred pairs)."""
        pool, errors = self._pool(provider, model)
        pref = self._preference(lang)
        preferred = {p for p in pool if pref is not None and self._matches(pref, p)}
        keyed = []
        for index, pair in enumerate(pool):
            entry = self.health.entry(*pair)
            if entry.skipped:
                errors.append(_skip_error(entry, pair))
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
        pool, _ = self._pool(provider, model)
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

    def _explore(self, order: list[Pair], preferred: set[Pair], purpose: str) -> list[Pair]:
        """Now and then put another healthy choice first (bounded share; see EXPLORE_SHARE)."""
        if purpose not in EXPLORING_PURPOSES or self.explore_share <= 0:
            return order
        healthy = [p for p in order if not self.health.entry(*p).demoted]
        if healthy and healthy[0] in preferred:  # stay within the language's preferred models
            healthy = [p for p in healthy if p in preferred]
        if len(healthy) < 2:
            return order
        self.decisions += 1
        budget = self.explore_share * self.decisions  # requests that may explore so far
        others = healthy[1:]
        # never measured, or measured so long ago that it may have changed: probed first
        unmeasured = [p for p in others if not self.stats.get(p).measured or self.stats.stale(p)]
        if unmeasured and not self.stats.get(healthy[0]).measured:
            unmeasured = []  # nothing measured yet: configuration order decides, for now
        if unmeasured:  # a new choice: measured at the first chance (the budget plus one)
            if self.explored > budget:
                return order
            target = self.rng.choice(unmeasured)
        elif self.rng.random() >= self.explore_share or self.explored + 1 > budget:
            return order
        else:  # re-probe the choice measured longest ago
            stalest = min(self.stats.get(p).last_at or 0.0 for p in others)
            target = self.rng.choice(
                [p for p in others if (self.stats.get(p).last_at or 0.0) == stalest]
            )
        self.explored += 1
        log.debug("exploring %s/%s", *target)
        return [target, *(p for p in order if p != target)]

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
    ) -> AsyncIterator[RouterEvent]:
        """Stream one answer, falling back across candidates. Raises AllProvidersFailed.

        ``expected_tokens``: the estimated answer length (ranks on completion time, not only on
        time to first token). ``lang``: the target language (per-language preferences).
        ``hedge``: override the router's hedging setting for this request. ``avoid``: a choice
        to try last (its answer was not a translation: the next model gets the retry).
        """
        budget = RetryBudget(self.retry, self.rng)
        streamed = False  # something was yielded that a retry must take back (Restart)
        prompt = sum(len(m.get("content", "")) for m in messages) // 4 + 1

        def booked(pair: Pair) -> int:
            """Tokens a request books: the prompt and its completion budget (Cerebras counts
            all of max_completion_tokens up front; the others about what is expected)."""
            budget = max_tokens if pair[0] == "cerebras" else expected_tokens or max_tokens
            return prompt + (budget or 0)

        while True:
            order, errors, preferred = self._rank(provider, model, expected_tokens, lang)
            if avoid in order and len(order) > 1:
                order = [p for p in order if p != avoid] + [avoid]
            ready = [p for p in order if self.limiter.wait_s(p, booked(p)) <= 0]
            if order and not ready:  # every choice is at its limit: wait for the first free one
                pair = min(order, key=lambda p: self.limiter.wait_s(p, booked(p)))
                wait = self.limiter.wait_s(pair, booked(pair))
                why = self.limiter.why(pair, booked(pair))
                if wait > budget.remaining_s():
                    limited = RateLimitedError(pair[0], f"{pair[1]}: {why}", retry_after=wait)
                    raise AllProvidersFailed([*errors, limited])
                yield Backoff(pair[0], wait, why)
                await asyncio.sleep(wait)
                continue
            order = ready
            if order:
                order = self._explore(order, preferred, purpose)
                hedging = self.hedge if hedge is None else hedge
                if hedging and len(order) > 1:
                    self.hedging.requests += 1
                else:
                    hedging = False
                flight = _Flight(self, messages, order, max_tokens, purpose, blocks, hedging)
                flight.booked = booked
                try:
                    # closing us stops the attempts
                    async with contextlib.aclosing(flight.events()) as events:
                        async for event in events:
                            streamed = True
                            yield event
                    return
                except AllProvidersFailed as exc:
                    errors = exc.errors
            step = budget.next_wait(errors)
            if step is None:
                raise AllProvidersFailed(errors)
            wait, cause = step
            log.info("retrying in %.1f s after: %s", wait, cause)
            yield Backoff(cause.provider, wait, _why(cause))
            if wait > 0:
                await asyncio.sleep(wait)
            if streamed:
                yield Restart(str(cause))
                streamed = False

    # ---- measuring ----------------------------------------------------------------------------

    def _stats(
        self,
        name: str,
        model: str,
        timing: Timing,
        usage: Usage | None,
        status: str,
        error: str | None,
        purpose: str,
        blocks: int,
    ) -> RequestStats:
        pt = usage.prompt_tokens if usage else None
        ct = usage.completion_tokens if usage else None
        adapter = self.providers.get(name)
        if not model:  # no model configured: name the one the server chose (its first)
            model = getattr(adapter, "default_model", "") or ""
        cost = usage.cost_usd if usage is not None else None
        cached = usage.cached_tokens if usage is not None else None
        full_price = False
        if cost is None:  # the server's own figure wins over the price table
            local = bool(getattr(adapter, "local", True))
            cost = self.pricing.cost(name, model, pt, ct, local=local, cached_tokens=cached)
            price = self.pricing.price(name, model, local=local)
            full_price = bool(cached) and price is not None and price.cached_input is None
        tps = timing.tokens_per_second(ct)
        if usage is not None and ct and usage.completion_time:  # the provider's own timing
            tps = ct / usage.completion_time
        return RequestStats(
            provider=name,
            model=model,
            status=status,
            ttfb_ms=timing.ttfb_ms,
            total_ms=timing.total_ms,
            prompt_tokens=pt,
            completion_tokens=ct,
            cost_usd=cost,
            error=error,
            tokens_per_s=tps,
            blocks=blocks,
            purpose=purpose,
            cached_tokens=cached,
            cached_at_full_price=full_price,
        )

    def record(
        self, stats: RequestStats, rate: RateLimitInfo | None = None, pair: Pair | None = None
    ) -> None:
        """Every attempt ends here: successes feed the latency windows and clear ill health;
        rate-limit headers tighten the limiter. ``pair``: the choice as routed (its model may
        be "" where the stats name the model the server chose)."""
        pair = pair or (stats.provider, stats.model)
        self.limiter.observe(pair, rate)
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
        pool, _errors = self._pool(provider, model)
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
        now = time.monotonic()
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
            self._last_save = time.monotonic()
            self.stats.save()

    async def aclose(self) -> None:
        task = self._save_task
        if task is not None and not task.done() and task.get_loop() is asyncio.get_running_loop():
            await asyncio.wait([task])
        self.save_stats()
        for p in self.providers.values():
            await p.aclose()


# ---- one request in flight ------------------------------------------------------------------

_END = object()


@dataclass(eq=False)
class _Run:
    """One attempt: a task pumping one provider's stream into the flight's queue."""

    pair: Pair
    timing: Timing = field(default_factory=Timing)
    task: asyncio.Task[None] | None = None
    usage: Usage | None = None
    rate: RateLimitInfo | None = None
    finish: str | None = None
    chars: int = 0
    hedge: bool = False
    settled: bool = False
    booking: Booking | None = None

    @property
    def first(self) -> bool:
        return self.timing.ttfb_ms is not None


class _Flight:
    """The attempts of one ``Router.stream`` call: fallback, hedging, and their events."""

    def __init__(
        self,
        router: Router,
        messages: Sequence[dict[str, str]],
        order: list[Pair],
        max_tokens: int | None,
        purpose: str,
        blocks: int,
        hedging: bool,
    ) -> None:
        self.router = router
        self.messages = messages
        self.pending = deque(order)
        self.max_tokens = max_tokens
        self.purpose = purpose
        self.blocks = blocks
        self.hedges_left = 1 if hedging else 0
        self.queue: asyncio.Queue[tuple[_Run, object]] = asyncio.Queue()
        self.live: list[_Run] = []
        self.errors: list[ProviderError] = []
        self.booked: Callable[[Pair], int] = lambda _pair: 0  # tokens a request books

    async def events(self) -> AsyncGenerator[RouterEvent, None]:
        primary = self._launch(self.pending.popleft())
        try:
            yield Attempt(*primary.pair)
            while True:
                got = await self._next(primary)
                if got is None:  # no first token by the 90th percentile: hedge
                    self._launch_hedge(primary)
                    continue
                run, item = got
                if run.settled:
                    continue  # left in the queue by an attempt already cancelled
                if isinstance(item, ProviderError):
                    yield self._settle(run, "error", item)
                    if run is not primary:
                        continue  # a hedge failed: the primary carries on
                    following = self._next_primary()
                    if following is None:
                        raise AllProvidersFailed(self.errors)
                    primary = following
                    yield Restart(str(item))
                    yield Attempt(*primary.pair)
                    continue
                # a first token or the end of an answer: whoever gets here first wins
                for other in [r for r in self.live if r is not run]:
                    yield await self._cancel(other, lost_to_hedge=other is primary)
                if run is not primary:
                    self.router.hedging.won += 1
                    primary = run
                    yield Attempt(*primary.pair)
                if isinstance(item, TextDelta):
                    yield item
                else:
                    yield self._settle(run, "ok", None)
                    return
        finally:
            await self._abandon()

    # ---- attempts -----------------------------------------------------------------------------

    def _launch(self, pair: Pair, *, hedge: bool = False) -> _Run:
        run = _Run(pair, hedge=hedge)
        run.booking = self.router.limiter.book(pair, self.booked(pair))
        request = ChatRequest(model=pair[1], messages=self.messages, max_tokens=self.max_tokens)
        run.task = asyncio.get_running_loop().create_task(self._pump(run, request))
        self.live.append(run)
        return run

    def _pop_next(self, avoid: str | None = None) -> Pair | None:
        """The next choice to try, re-checking health: an earlier attempt of this request may
        have shown a key refused or a provider down (the order was computed before)."""
        health, limiter = self.router.health, self.router.limiter
        self.pending = deque(
            p
            for p in self.pending
            if not health.entry(*p).skipped and limiter.wait_s(p, self.booked(p)) <= 0
        )
        if not self.pending:
            return None
        healthy = [p for p in self.pending if not health.entry(*p).demoted]
        preferred = [p for p in healthy if p[0] != avoid] or healthy or list(self.pending)
        pair = preferred[0]
        self.pending.remove(pair)
        return pair

    def _launch_hedge(self, primary: _Run) -> None:
        pair = self._pop_next(avoid=primary.pair[0])
        self.hedges_left -= 1
        if pair is None:
            return
        self.router.hedging.hedged += 1
        log.debug("hedging %s/%s with %s/%s", *primary.pair, *pair)
        self._launch(pair, hedge=True)

    def _next_primary(self) -> _Run | None:
        """After the primary failed: a hedge still running, else the next choice."""
        if self.live:
            return self.live[0]
        pair = self._pop_next()
        return None if pair is None else self._launch(pair)

    async def _pump(self, run: _Run, request: ChatRequest) -> None:
        """Move one provider's events into the queue; ends with _END or a ProviderError."""
        name = run.pair[0]
        events = self.router.providers[name].stream(request)
        limits = self.router.deadlines
        max_chars = limits.max_chars(request.max_tokens)
        clock = asyncio.get_running_loop().time
        end = clock() + limits.total_s
        try:
            async with asyncio.timeout_at(min(end, clock() + limits.first_token_s)) as deadline:
                async for ev in events:
                    if isinstance(ev, TextDelta):
                        if ev.text:
                            run.timing.first_token()
                            run.chars += len(ev.text)
                            if max_chars is not None and run.chars > max_chars:
                                raise AnswerTooLongError(
                                    name,
                                    f"the answer went past its {request.max_tokens} tokens: "
                                    "stopped",
                                )
                            self.queue.put_nowait((run, ev))
                    elif isinstance(ev, Usage):
                        run.usage = ev
                    elif isinstance(ev, RateLimitInfo):
                        run.rate = ev
                    elif isinstance(ev, StreamEnd):
                        run.finish = ev.finish_reason
                    if run.first:
                        deadline.reschedule(min(end, clock() + limits.gap_s))
            run.timing.finish()
            self.queue.put_nowait((run, _END))
        except TimeoutError:
            run.timing.finish()
            self.queue.put_nowait((run, self._late(run, clock() >= end)))
        except ProviderError as exc:
            run.timing.finish()
            self.queue.put_nowait((run, exc))
        except asyncio.CancelledError:
            run.timing.finish()
            raise
        except Exception as exc:  # an adapter bug must not hang the request: treat as a fault
            run.timing.finish()
            log.warning("%s raised %s", name, type(exc).__name__, exc_info=True)
            text = redact(f"unexpected {type(exc).__name__}: {exc}")
            self.queue.put_nowait((run, ServerError(name, text)))
        finally:
            aclose = getattr(events, "aclose", None)
            if aclose is not None:
                with contextlib.suppress(Exception):
                    await aclose()

    def _late(self, run: _Run, whole: bool) -> ProviderTimeoutError:
        limits = self.router.deadlines
        if whole:
            what = f"the answer took longer than {limits.total_s:g} s"
        elif run.first:
            what = f"the answer stopped for {limits.gap_s:g} s"
        else:
            what = f"no first token in {limits.first_token_s:g} s"
        return ProviderTimeoutError(run.pair[0], f"{what} (deadline in [requests])")

    async def _next(self, primary: _Run) -> tuple[_Run, object] | None:
        """The next queued item, or None when it is time to hedge."""
        wait = self._hedge_wait(primary)
        if wait is None:
            return await self.queue.get()
        if wait <= 0:
            return self.queue.get_nowait() if not self.queue.empty() else None
        try:
            return await asyncio.wait_for(self.queue.get(), wait)
        except TimeoutError:
            return None

    def _hedge_wait(self, primary: _Run) -> float | None:
        """Seconds until the primary counts as late (None: no hedging for this wait)."""
        if self.hedges_left <= 0 or primary.first or not self.pending or len(self.live) > 1:
            return None
        stats: ChoiceStats = self.router.stats.get(primary.pair)
        p90 = stats.ttfb_p90() if len(stats.ttfb_ms) >= HEDGE_MIN_SAMPLES else None
        limit_ms = p90 if p90 is not None else self.router.hedge_unmeasured_ms
        elapsed = time.perf_counter() - primary.timing.started
        return limit_ms / 1000 - elapsed

    # ---- endings ------------------------------------------------------------------------------

    def _settle(self, run: _Run, status: str, exc: ProviderError | None) -> AttemptDone:
        """The attempt ended (ok or error): stats, health, and the event for the engine."""
        run.settled = True
        if run in self.live:
            self.live.remove(run)
        error = None
        if exc is not None:
            self.errors.append(exc)
            self.router.health.failure(*run.pair, exc)
            if isinstance(exc, RateLimitedError):
                after = self.router.retry.cap(exc.retry_after)
                self.router.limiter.rate_limited(run.pair, after, run.rate)
            error = str(exc)
        elif run.booking is not None and run.usage is not None:
            used = run.usage.prompt_tokens + run.usage.completion_tokens
            self.router.limiter.settle(run.booking, used)
        stats = self.router._stats(
            *run.pair, run.timing, run.usage, status, error, self.purpose, self.blocks
        )
        self.router.record(stats, run.rate, run.pair)
        return AttemptDone(stats, run.rate, run.finish)

    async def _cancel(self, run: _Run, *, lost_to_hedge: bool) -> AttemptDone:
        """Cancel an attempt another one beat; its stats say "cancelled"."""
        stats = await self._stop(run)
        if lost_to_hedge and not run.first and stats.total_ms is not None:
            # it had waited this long without a first token: a lower bound worth remembering
            self.router.stats.observe(run.pair, ttfb_ms=stats.total_ms)
        summary = self.router.hedging
        summary.cancelled += 1
        if stats.cost_usd is not None:
            summary.known_cost_usd += stats.cost_usd
            summary.estimated_cost_usd += stats.cost_usd
        else:
            summary.estimated_cost_usd += self._estimate_cost(run)
        return AttemptDone(stats, run.rate, run.finish)

    async def _stop(self, run: _Run) -> RequestStats:
        run.settled = True
        if run in self.live:
            self.live.remove(run)
        if run.task is not None and not run.task.done():
            run.task.cancel()
            await asyncio.wait([run.task])
        if run.timing.total_ms is None:
            run.timing.finish()
        stats = self.router._stats(
            *run.pair, run.timing, run.usage, "cancelled", None, self.purpose, self.blocks
        )
        self.router.record(stats, run.rate, run.pair)
        return stats

    async def _abandon(self) -> None:
        """The consumer stopped (done, cancelled, or an error): cancel whatever still runs."""
        for run in list(self.live):
            await self._stop(run)

    def _estimate_cost(self, run: _Run) -> float:
        """A cancelled request's likely bill when no usage was reported (≈4 chars a token)."""
        prompt = sum(len(m.get("content", "")) for m in self.messages) // 4
        cost = self.router.pricing.cost(*run.pair, prompt, run.chars // 4)
        return cost or 0.0


# ---- helpers ----------------------------------------------------------------------------------


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


_REASONS = {
    "rate_limited": "rate limit reached",
    "timeout": "no answer in time",
    "connection": "connection failed",
    "malformed": "stream malformed",
    "server": "server error",
}


def _why(error: ProviderError) -> str:
    """ "groq rate limit reached": why a request waits, for the status bar."""
    return f"{error.provider} {_REASONS.get(error.kind, 'request failed')}"


def _skip_error(entry: HealthEntry, pair: Pair) -> ProviderError:
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
