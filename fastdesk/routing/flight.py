"""One ``Router.stream`` call in flight: its attempts (each a task pumping one provider's stream
into a queue), the fallback to the next choice when one fails, hedging (the same request to the
next choice when no first token came in time; the first to stream wins, the other is
cancelled), each attempt's deadlines, and the ``AttemptDone`` that ends every attempt with its
stats (docs/routing.md, step 5)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from fastdesk.config.redact import exception_text
from fastdesk.providers.base import (
    AnswerTooLongError,
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
    estimate_tokens,
)
from fastdesk.routing.concurrency import Concurrency
from fastdesk.routing.events import AllProvidersFailed, Attempt, AttemptDone, Restart, RouterEvent
from fastdesk.routing.limiter import Booking
from fastdesk.routing.retired import Retirements
from fastdesk.routing.stats import ChoiceStats, Pair

if TYPE_CHECKING:
    from fastdesk.providers.base import Provider
    from fastdesk.routing.events import HedgeSummary
    from fastdesk.routing.health import Health
    from fastdesk.routing.limiter import Limiter
    from fastdesk.routing.pricing import PriceTable
    from fastdesk.routing.retry import Deadlines, RetryPolicy
    from fastdesk.routing.stats import StatsStore


class FlightHost(Protocol):
    """What a flight uses of its router (its providers, limits, health, statistics and prices).
    A protocol, so that this module does not import the router that imports it."""

    providers: Mapping[str, Provider]
    pricing: PriceTable
    stats: StatsStore
    retry: RetryPolicy
    deadlines: Deadlines
    limiter: Limiter
    health: Health
    hedge_unmeasured_ms: float
    hedging: HedgeSummary
    retirements: Retirements
    concurrency: Concurrency

    def is_excluded(self, pair: Pair) -> bool: ...

    def record(
        self, stats: RequestStats, rate: RateLimitInfo | None = None, pair: Pair | None = None
    ) -> None: ...


log = logging.getLogger(__name__)

HEDGE_MIN_SAMPLES = 3  # below this the 90th percentile means little: use hedge_unmeasured_ms

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
    answered: bool = False  # its first event came (the limiter was told: Limiter.admitted)

    @property
    def first(self) -> bool:
        return self.timing.ttfb_ms is not None


class Flight:
    """The attempts of one ``Router.stream`` call: fallback, hedging, and their events."""

    def __init__(
        self,
        router: FlightHost,
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
        self.reserve = 0.0  # the share of each minute a backlog leaves (Limiter.wait_s)
        self.first: Booking | None = None  # the first choice's, claimed by the router
        self.json_schema: Mapping[str, Any] | None = None  # the answer's shape (ChatRequest)

    async def events(self) -> AsyncGenerator[RouterEvent, None]:
        pair = self.pending.popleft()
        primary = self._launch(self.first or self.router.limiter.book(pair, self.booked(pair)))
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

    def _launch(self, booking: Booking, *, hedge: bool = False) -> _Run:
        run = _Run(booking.pair, hedge=hedge, booking=booking)
        request = ChatRequest(
            model=booking.pair[1],
            messages=self.messages,
            max_tokens=self.max_tokens,
            json_schema=self.json_schema,
        )
        run.task = asyncio.get_running_loop().create_task(self._pump(run, request))
        self.live.append(run)
        return run

    def _pop_next(self, avoid: str | None = None) -> Booking | None:
        """The next choice to try, booked (None: none may go now), re-checking health: an
        earlier attempt of this request may have shown a key refused or a provider down (the
        order was computed before)."""
        health, limiter = self.router.health, self.router.limiter
        self.pending = deque(p for p in self.pending if not health.entry(*p).skipped)
        healthy = [p for p in self.pending if not health.entry(*p).demoted]
        preferred = [p for p in healthy if p[0] != avoid] or healthy or list(self.pending)
        for pair in [*preferred, *(p for p in self.pending if p not in preferred)]:
            booking = limiter.claim(pair, self.booked(pair), reserve=self.reserve)
            if booking is not None:
                self.pending.remove(pair)
                return booking
        return None

    def _launch_hedge(self, primary: _Run) -> None:
        booking = self._pop_next(avoid=primary.pair[0])
        self.hedges_left -= 1
        if booking is None:
            return
        self.router.hedging.hedged += 1
        log.debug("hedging %s/%s with %s/%s", *primary.pair, *booking.pair)
        self._launch(booking, hedge=True)

    def _next_primary(self) -> _Run | None:
        """After the primary failed: a hedge still running, else the next choice."""
        if self.live:
            return self.live[0]
        booking = self._pop_next()
        return None if booking is None else self._launch(booking)

    async def _pump(self, run: _Run, request: ChatRequest) -> None:
        """Move one provider's events into the queue; ends with _END or a ProviderError."""
        name = run.pair[0]
        events = self.router.providers[name].stream(request)
        limits = self.router.deadlines
        max_chars = limits.max_chars(request.max_tokens)
        # The deadlines are the loop's own times, set and checked inside this one coroutine (the
        # loop's timers read the same clock); they never leave it, so they need not be the
        # router's clock (fastdesk.clock).
        clock = asyncio.get_running_loop().time
        end = clock() + limits.total_s
        try:
            async with asyncio.timeout_at(min(end, clock() + limits.first_token_s)) as deadline:
                async for ev in events:
                    if run.booking is not None and not run.answered:
                        run.answered = True  # the server admitted the request by now
                        self.router.limiter.admitted(run.booking)
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
            text = f"unexpected {exception_text(exc)}"
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
        elapsed = time.perf_counter() - primary.timing.started  # the attempt's own stopwatch
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
                self.router.limiter.rate_limited(run.pair, after, run.rate, run.booking)
            elif run.booking is not None:  # the server may have counted it: until now
                self.router.limiter.settle(run.booking, None)
            if isinstance(exc, BadRequestError) and exc.retired:  # its replacement answers
                new = self.router.retirements.retire(run.pair)
                if new is not None and new not in self.pending and not self.router.is_excluded(new):
                    self.pending.appendleft(new)
            error = str(exc)
        elif run.booking is not None:
            usage = run.usage
            used = None if usage is None else usage.prompt_tokens + usage.completion_tokens
            self.router.limiter.settle(run.booking, used)
        stats = self._request_stats(run, status, error)
        self.router.record(stats, run.rate, run.pair)
        self._pace(run, stats, exc)
        return AttemptDone(stats, run.rate, run.finish)

    def _pace(self, run: _Run, stats: RequestStats, exc: ProviderError | None) -> None:
        """The choice's window of streams in flight (routing/concurrency.py) learns from the
        attempt: a 429 or a slow first token narrows it, a prompt answer while the limiter has
        room for another like it (what the headers allow) widens it."""
        if stats.purpose == "warmup":
            return
        tokens = (stats.prompt_tokens or 0) + (stats.completion_tokens or 0)
        self.router.concurrency.settle(
            run.pair,
            ok=exc is None and stats.status == "ok",
            throttled=isinstance(exc, RateLimitedError),
            ttfb_ms=stats.ttfb_ms,
            room=self.router.limiter.wait_s(run.pair, tokens) == 0,
        )

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
        if run.booking is not None:  # the server counted what it generated until now
            self.router.limiter.settle(run.booking, None)
        stats = self._request_stats(run, "cancelled", None)
        self.router.record(stats, run.rate, run.pair)
        return stats

    async def _abandon(self) -> None:
        """The consumer stopped (done, cancelled, or an error): cancel whatever still runs."""
        for run in list(self.live):
            await self._stop(run)

    def _estimate_cost(self, run: _Run) -> float:
        """A cancelled request's likely bill when no usage was reported."""
        prompt = estimate_tokens(*(m.get("content", "") for m in self.messages))
        cost = self.router.pricing.cost(*run.pair, prompt, estimate_tokens(chars=run.chars))
        return cost or 0.0

    def _request_stats(self, run: _Run, status: str, error: str | None) -> RequestStats:
        """What the engine and the window are told of one attempt: timing, tokens, cost."""
        (name, model), timing, usage = run.pair, run.timing, run.usage
        pt = usage.prompt_tokens if usage else None
        ct = usage.completion_tokens if usage else None
        adapter = self.router.providers.get(name)
        if not model:  # no model configured: name the one the server chose (its first)
            model = getattr(adapter, "default_model", "") or ""
        cost = usage.cost_usd if usage is not None else None
        cached = usage.cached_tokens if usage is not None else None
        full_price = False
        if cost is None:  # the server's own figure wins over the price table
            local = bool(getattr(adapter, "local", True))
            cost = self.router.pricing.cost(name, model, pt, ct, local=local, cached_tokens=cached)
            price = self.router.pricing.price(name, model, local=local)
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
            blocks=self.blocks,
            purpose=self.purpose,
            cached_tokens=cached,
            cached_at_full_price=full_price,
        )
