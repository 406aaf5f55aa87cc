"""What every provider speaks: one request in, a stream of events out, a small error tree.

Error tree (every error's ``str()`` is safe to show: it never contains an API key)::

    ProviderError
     ├── AuthenticationError      401/403: wrong or missing key; retrying will not help
     ├── RateLimitedError         429 or a rate-limit error inside the stream; has ``retry_after``
     ├── ProviderTimeoutError     no answer (or no next chunk) in time
     ├── ConnectionFailedError    refused, reset, DNS, cut mid-stream
     │    └── MalformedStreamError  the server answered, but not a well-formed stream
     ├── ServerError              5xx, or a server error event inside the stream
     ├── BadRequestError          400/404/422: bad model id, prompt too long …
     │                            (``retired``: the model was shut down or is unknown)
     └── AnswerTooLongError       the answer went past its max_tokens (and a margin): stopped

A provider adapts its SDK to this and nothing more: no retries across providers, no timing (the
router and :func:`measure` do that), no prompt text.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

MIN_STREAMING_S = 0.05  # shorter than this between first and last token: no tokens/s figure


@dataclass(frozen=True)
class ChatRequest:
    """One chat completion. ``messages`` are OpenAI-style dicts (role, content)."""

    model: str
    messages: Sequence[dict[str, str]]
    max_tokens: int | None = None
    temperature: float = 0.2
    reasoning_off: bool = True  # ask reasoning models (Qwen3, gpt-oss) not to think aloud
    # The answer's shape as a named JSON schema ({"name": …, "schema": …}): a provider that can
    # enforce it on the model asks for it (strict structured outputs: Groq on gpt-oss, Cerebras
    # on every model); the others send the request as it is, and the caller validates the
    # answer as always.
    json_schema: Mapping[str, Any] | None = None


def estimate_tokens(*texts: str, chars: int = 0) -> int:
    """Tokens in ``texts`` together (plus ``chars`` characters counted elsewhere) before any
    server has counted them: ≈4 characters a token, provider-neutral, for sizing requests,
    budgets and bills. The one estimate: every part that guesses tokens asks it."""
    return (sum(len(text) for text in texts) + chars) // 4 + 1


# ---- stream events -------------------------------------------------------------------------


@dataclass(frozen=True)
class TextDelta:
    """A piece of the answer (may still hold <think> text: prompts.ThinkStripper removes it)."""

    text: str


@dataclass(frozen=True)
class Usage:
    """Token usage and server timings, as the provider reported them (seconds)."""

    prompt_tokens: int
    completion_tokens: int
    queue_time: float | None = None
    prompt_time: float | None = None
    completion_time: float | None = None
    total_time: float | None = None
    cached_tokens: int | None = None
    cost_usd: float | None = None  # the server's own figure (LiteLLM's usage.cost)


@dataclass(frozen=True)
class RateLimitInfo:
    """What the rate-limit headers said; None where a header was absent.

    The headers do not all count over the same window: Groq's ``x-ratelimit-*-requests`` count
    per DAY and its ``-tokens`` per MINUTE; Cerebras says so in the name (``-requests-day``,
    ``-tokens-minute``); OpenAI-style servers count both per minute. ``requests_per`` and
    ``tokens_per`` ("minute" or "day") say which window these figures are for.
    """

    limit_requests: int | None = None
    remaining_requests: int | None = None
    reset_requests_s: float | None = None
    limit_tokens: int | None = None
    remaining_tokens: int | None = None
    reset_tokens_s: float | None = None
    requests_per: str = "day"
    tokens_per: str = "minute"


@dataclass(frozen=True)
class StreamEnd:
    finish_reason: str | None = None


StreamEvent = TextDelta | Usage | RateLimitInfo | StreamEnd


# ---- errors --------------------------------------------------------------------------------


class ProviderError(Exception):
    """Base of every provider failure. ``kind`` is a short stable name for reports and the UI."""

    kind = "error"

    def __init__(self, provider: str, message: str, *, status: int | None = None) -> None:
        self.provider = provider
        self.message = message
        self.status = status
        super().__init__(f"{provider}: {message}")


class AuthenticationError(ProviderError):
    kind = "authentication"


class RateLimitedError(ProviderError):
    kind = "rate_limited"

    def __init__(
        self,
        provider: str,
        message: str,
        *,
        retry_after: float | None = None,
        status: int | None = 429,
    ) -> None:
        super().__init__(provider, message, status=status)
        self.retry_after = retry_after


class ProviderTimeoutError(ProviderError):
    kind = "timeout"


class ConnectionFailedError(ProviderError):
    kind = "connection"


class MalformedStreamError(ConnectionFailedError):
    """The server was reached and answered, but its stream was not one: an event that is not
    JSON, invalid UTF-8, an event too big to be an answer's piece."""

    kind = "malformed"


class ServerError(ProviderError):
    kind = "server"


class BadRequestError(ProviderError):
    kind = "bad_request"

    def __init__(
        self, provider: str, message: str, *, status: int | None = None, retired: bool = False
    ) -> None:
        """``retired``: the server says the model is shut down or unknown (Groq's 400
        ``model_decommissioned``, Cerebras' ``model_not_found``): the settings' fault, not the
        request's; the router moves to a current model."""
        super().__init__(provider, message, status=status)
        self.retired = retired


class AnswerTooLongError(ProviderError):
    """A stream that does not stop (or a model that ignores max_tokens): cut off, memory bounded.
    Not worth retrying on the same choice; another one may do better."""

    kind = "too_long"


# ---- the protocol --------------------------------------------------------------------------


@dataclass(frozen=True)
class ModelInfo:
    id: str
    context_length: int | None = None
    owned_by: str | None = None


@runtime_checkable
class Provider(Protocol):
    """A configured provider. ``stream`` yields events and raises :class:`ProviderError` only."""

    name: str
    default_model: str

    def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]: ...

    async def list_models(self) -> list[ModelInfo]: ...

    async def aclose(self) -> None: ...


# ---- measurement ---------------------------------------------------------------------------


@dataclass
class Timing:
    """Client-side timings of one streamed request (milliseconds, from the moment it was sent)."""

    started: float = field(default_factory=time.perf_counter)
    ttfb_ms: float | None = None
    total_ms: float | None = None

    def first_token(self) -> None:
        if self.ttfb_ms is None:
            self.ttfb_ms = (time.perf_counter() - self.started) * 1000

    def finish(self) -> None:
        self.total_ms = (time.perf_counter() - self.started) * 1000

    def tokens_per_second(self, completion_tokens: int | None) -> float | None:
        """Output speed: completion tokens over the streaming time after the first token."""
        if not completion_tokens or self.total_ms is None or self.ttfb_ms is None:
            return None
        streaming_s = (self.total_ms - self.ttfb_ms) / 1000
        if streaming_s <= MIN_STREAMING_S:  # it all came in one read: that says nothing of speed
            return None
        return completion_tokens / streaming_s


@dataclass(frozen=True)
class RequestStats:
    """One request to a provider, as the status bar and the JSON report show it.

    Here, below both, because the router records it (routing/) and the engine's events carry it
    (translate/)."""

    provider: str
    model: str
    status: str  # ok | error | cancelled
    ttfb_ms: float | None = None
    total_ms: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost_usd: float | None = None  # None: the model has no known price (never shown as $0)
    error: str | None = None
    tokens_per_s: float | None = None
    blocks: int = 0
    purpose: str = "translate"  # translate | retry | warmup | bench | expand | review
    cached_tokens: int | None = None  # prompt tokens served from the provider's prompt cache
    cached_at_full_price: bool = False  # some were cached, but no cached price is known

    def report_dict(self) -> dict[str, object]:
        return {
            "provider": self.provider,
            "model": self.model,
            "status": self.status,
            "ttfb_ms": None if self.ttfb_ms is None else round(self.ttfb_ms, 1),
            "total_ms": None if self.total_ms is None else round(self.total_ms, 1),
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost_usd": self.cost_usd,
            "cached_tokens": self.cached_tokens,
            "error": self.error,
        }
