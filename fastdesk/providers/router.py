"""Choosing a provider and model for each request, and falling back when one fails.

The engine asks :meth:`Router.stream` for an answer; the router picks candidates in order, streams
from the first, and on a failure before the answer is complete moves to the next one, telling the
engine to discard partial text (``Restart``) so nothing is doubled. Every attempt ends with an
``AttemptDone`` carrying its measured :class:`~fastdesk.events.RequestStats`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field

from fastdesk.events import RequestStats
from fastdesk.pricing import PriceTable
from fastdesk.providers.base import (
    ChatRequest,
    ProviderError,
    RateLimitInfo,
    StreamEnd,
    TextDelta,
    Timing,
    Usage,
)
from fastdesk.providers.base import Provider as ProviderProto


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


RouterEvent = Attempt | TextDelta | Restart | AttemptDone


class AllProvidersFailed(Exception):
    """Every candidate failed; ``errors`` holds each one (safe to show)."""

    def __init__(self, errors: Sequence[ProviderError]) -> None:
        self.errors = list(errors)
        if errors:
            text = "; ".join(str(e) for e in errors)
        else:
            text = "no provider is configured"
        super().__init__(text)

    @property
    def last(self) -> ProviderError | None:
        return self.errors[-1] if self.errors else None


@dataclass
class Router:
    providers: Mapping[str, ProviderProto]
    pricing: PriceTable = field(default_factory=PriceTable)

    def candidates(self, provider: str = "auto", model: str | None = None) -> list[tuple[str, str]]:
        """(provider, model) pairs to try, best first."""
        if provider != "auto":
            if provider not in self.providers:
                return []
            return [(provider, model or self.providers[provider].default_model)]
        return [(name, p.default_model) for name, p in self.providers.items()]

    async def stream(
        self,
        messages: Sequence[dict[str, str]],
        *,
        provider: str = "auto",
        model: str | None = None,
        max_tokens: int | None = None,
        purpose: str = "translate",
        blocks: int = 0,
    ) -> AsyncIterator[RouterEvent]:
        """Stream one answer, falling back across candidates. Raises AllProvidersFailed."""
        errors: list[ProviderError] = []
        for name, model_id in self.candidates(provider, model):
            if errors:
                yield Restart(str(errors[-1]))
            yield Attempt(name, model_id)
            request = ChatRequest(model=model_id, messages=messages, max_tokens=max_tokens)
            try:
                async for event in self._attempt(name, request, purpose, blocks):
                    yield event
                return
            except ProviderError as exc:
                errors.append(exc)
        raise AllProvidersFailed(errors)

    async def _attempt(
        self, name: str, request: ChatRequest, purpose: str, blocks: int
    ) -> AsyncIterator[RouterEvent]:
        """One request to one provider. Failed attempts also yield their AttemptDone, then raise."""
        timing = Timing()
        usage: Usage | None = None
        rate: RateLimitInfo | None = None
        finish: str | None = None

        def done(status: str, error: str | None) -> AttemptDone:
            timing.finish()
            stats = self._stats(name, request.model, timing, usage, status, error, purpose, blocks)
            self.record(stats, rate)
            return AttemptDone(stats, rate, finish)

        try:
            async for ev in self.providers[name].stream(request):
                if isinstance(ev, TextDelta):
                    if ev.text:
                        timing.first_token()
                    yield ev
                elif isinstance(ev, Usage):
                    usage = ev
                elif isinstance(ev, RateLimitInfo):
                    rate = ev
                elif isinstance(ev, StreamEnd):
                    finish = ev.finish_reason
        except ProviderError as exc:
            yield done("error", str(exc))
            raise
        except asyncio.CancelledError:
            done("cancelled", None)
            raise
        yield done("ok", None)

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
        return RequestStats(
            provider=name,
            model=model,
            status=status,
            ttfb_ms=timing.ttfb_ms,
            total_ms=timing.total_ms,
            prompt_tokens=pt,
            completion_tokens=ct,
            cost_usd=self.pricing.cost(name, model, pt, ct),
            error=error,
            tokens_per_s=timing.tokens_per_second(ct),
            blocks=blocks,
            purpose=purpose,
        )

    def record(self, stats: RequestStats, rate: RateLimitInfo | None) -> None:
        """Hook for measurements (latency windows, health); the first version keeps nothing."""

    async def aclose(self) -> None:
        for p in self.providers.values():
            await p.aclose()
