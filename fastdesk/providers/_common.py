"""What the three adapters share: HTTP client set-up, error mapping, header parsing, the
Server-Sent Events reader, and the part common to the two SDK-based adapters.

Choices made here, once for all providers:

- **No SDK retries** (``max_retries=0`` by default). The SDKs would sleep up to 60 s on a
  ``retry-after`` before retrying the same provider; the router above us can fall back to another
  provider at once and knows ``retry_after`` from :class:`RateLimitedError`.
- **Short timeouts**: connect 5 s, and 20 s per socket read (no next chunk in 20 s = timeout).
  Interactive work prefers a fast failure and a fallback to a long wait.
- **One HTTP stack, the one both SDKs document for async streaming**: httpx's API over aiohttp
  (``httpx_aiohttp``, the SDKs' ``aiohttp`` extra), HTTP/1.1, one shared keep-alive client per
  provider: no TLS handshake per request, an early close (cancel) really closes the connection
  (HTTP/2 streams would stay open), and aiohttp's C parser hands a streamed body up one socket
  read at a time, not one token at a time.
- **Safe messages**: every message is built from the server's error text with anything that looks
  like a key removed, and SDK exceptions are not chained (their text holds raw bodies).
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import email.utils
import functools
import ipaddress
import json
import math
import os
import re
import ssl
import time
from collections.abc import AsyncGenerator, AsyncIterator, Iterable, Mapping
from typing import Any, NoReturn
from urllib.parse import urlsplit

import aiohttp
import httpx
from httpx_aiohttp import HttpxAiohttpClient

from fastdesk.config.redact import redact
from fastdesk.providers.base import (
    AuthenticationError,
    BadRequestError,
    ChatRequest,
    ConnectionFailedError,
    MalformedStreamError,
    ModelInfo,
    ProviderError,
    ProviderTimeoutError,
    RateLimitedError,
    RateLimitInfo,
    ServerError,
    StreamEnd,
    StreamEvent,
    TextDelta,
    Usage,
)

DEFAULT_CONNECT_TIMEOUT = 5.0
DEFAULT_READ_TIMEOUT = 20.0
DEFAULT_MAX_RETRIES = 0
KEEPALIVE_EXPIRY = 30.0  # seconds an idle connection is kept: typing pauses stay warm
MAX_MESSAGE_CHARS = 300


# ---- HTTP client -------------------------------------------------------------------------------


def make_timeout(
    read: float = DEFAULT_READ_TIMEOUT, connect: float = DEFAULT_CONNECT_TIMEOUT
) -> httpx.Timeout:
    """Connect timeout apart; ``read`` bounds each wait for the next bytes (and for a free
    connection of the pool)."""
    return httpx.Timeout(read, connect=connect)


def make_http_client(
    timeout: httpx.Timeout,
    *,
    client_class: type[httpx.AsyncClient] = HttpxAiohttpClient,
    **kwargs: Any,
) -> httpx.AsyncClient:
    """One keep-alive client per provider instance, over aiohttp.

    ``client_class`` is ``httpx_aiohttp.HttpxAiohttpClient`` or an SDK's ``DefaultAioHttpClient``
    (the same class with the SDK's defaults, all overridden here). Being an ``httpx.AsyncClient``,
    it reads proxies from the environment as httpx does (``HTTP_PROXY``, ``HTTPS_PROXY``,
    ``ALL_PROXY``, ``NO_PROXY``), each through its own aiohttp transport.
    """
    limits = httpx.Limits(
        max_connections=64, max_keepalive_connections=16, keepalive_expiry=KEEPALIVE_EXPIRY
    )
    kwargs.setdefault("verify", tls_context())
    return client_class(timeout=timeout, limits=limits, follow_redirects=True, **kwargs)


def tls_context() -> ssl.SSLContext:
    """The certificate authorities httpx would trust: ``SSL_CERT_FILE``, else ``SSL_CERT_DIR``,
    else certifi's. Loaded once a process for each setting (~30 ms a load), not once for every
    client and proxy transport."""
    return _tls_context(
        os.environ.get("SSL_CERT_FILE") or None, os.environ.get("SSL_CERT_DIR") or None
    )


@functools.cache
def _tls_context(cert_file: str | None, cert_dir: str | None) -> ssl.SSLContext:
    if cert_file:
        return ssl.create_default_context(cafile=cert_file)
    if cert_dir:
        return ssl.create_default_context(capath=cert_dir)
    return httpx.create_ssl_context(trust_env=False)


def is_local_url(url: str) -> bool:
    """A server on this machine or the LAN (loopback, private or link-local address, a bare or
    ``.local``/``.lan`` host name): a local model server, which bills nothing."""
    host = (urlsplit(url).hostname or "").lower()
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return bool(host) and ("." not in host or host.endswith((".local", ".lan", ".localhost")))
    return address.is_loopback or address.is_private or address.is_link_local


# ---- secrets -----------------------------------------------------------------------------------


_TRACEBACK = re.compile(r"Traceback \(most recent call last\):")


def safe_text(text: str, secrets: Iterable[str | None] = ()) -> str:
    """Server-sent ``text`` fit for an error message: without any key (:func:`redact`, given the
    provider's own key too), on one line, and short. Of a server's Python traceback only its
    last line (the exception) is kept."""
    text = redact(text, secrets)
    traceback = _TRACEBACK.search(text)
    if traceback is not None:
        lines = [line for line in text[traceback.end() :].splitlines() if line.strip()]
        text = text[: traceback.start()] + " " + (lines[-1] if lines else "")
    text = " ".join(text.split())
    if len(text) > MAX_MESSAGE_CHARS:
        text = text[: MAX_MESSAGE_CHARS - 1] + "…"
    return text


# ---- durations and headers ---------------------------------------------------------------------

_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_TRY_AGAIN = re.compile(r"try again in\s+((?:\d+(?:\.\d+)?(?:ms|h|m|s))+)", re.IGNORECASE)


def parse_duration(text: str | None) -> float | None:
    """Seconds from ``7.66s``, ``2m59.56s``, ``120ms``, ``1h2m`` or a bare number of seconds."""
    if text is None:
        return None
    text = text.strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        pass
    else:
        return value if math.isfinite(value) and value >= 0 else None
    parts = _DURATION_PART.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        return None
    scale = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}
    return sum(float(n) * scale[u] for n, u in parts)


def retry_after_from_text(message: str | None) -> float | None:
    """The delay in Groq's "… Please try again in 5.289s." messages."""
    if not message:
        return None
    match = _TRY_AGAIN.search(message)
    return parse_duration(match.group(1)) if match else None


def retry_after_from_headers(headers: Mapping[str, str] | None) -> float | None:
    """``retry-after-ms`` first, then ``retry-after`` (seconds or an HTTP date)."""
    if not headers:
        return None
    ms = _get(headers, "retry-after-ms")
    if ms is not None:
        with contextlib.suppress(ValueError):
            value = float(ms) / 1000
            if math.isfinite(value) and value >= 0:
                return value
    raw = _get(headers, "retry-after")
    if raw is None:
        return None
    seconds = parse_duration(raw)
    if seconds is not None:
        return seconds
    with contextlib.suppress(TypeError, ValueError, IndexError, OverflowError):
        when = email.utils.parsedate_to_datetime(raw)
        return max(0.0, when.timestamp() - time.time())
    return None


def parse_retry_after(
    headers: Mapping[str, str] | None, message: str | None = None
) -> float | None:
    from_headers = retry_after_from_headers(headers)
    return from_headers if from_headers is not None else retry_after_from_text(message)


def _get(headers: Mapping[str, str], name: str) -> str | None:
    value = headers.get(name)
    if value is None and not isinstance(headers, httpx.Headers):
        lowered = {k.lower(): v for k, v in headers.items()}
        value = lowered.get(name)
    return value


def _int(value: str | None) -> int | None:
    if value is None:
        return None
    try:
        return int(float(value))
    except ValueError:
        return None


_WINDOWS = {"-minute": "minute", "-day": "day", "-hour": "hour"}


def _window(headers: Mapping[str, str], what: str, bare: str) -> tuple[str, str]:
    """(the header suffix in use, the window it counts over) for ``requests`` or ``tokens``."""
    for suffix, window in _WINDOWS.items():
        if _get(headers, f"x-ratelimit-limit-{what}{suffix}") is not None:
            return suffix, window
        if _get(headers, f"x-ratelimit-remaining-{what}{suffix}") is not None:
            return suffix, window
    return "", bare


def parse_rate_limits(
    headers: Mapping[str, str] | None, *, bare_requests_per: str = "day"
) -> RateLimitInfo | None:
    """The rate-limit headers of a response, or None when it sent none.

    Bare ``-requests`` headers count per day at Groq (``bare_requests_per="day"``) and per
    minute at OpenAI-style servers; bare ``-tokens`` per minute at both. Cerebras' names carry
    their window (``-requests-day``, ``-tokens-minute``).
    """
    if not headers:
        return None
    req, requests_per = _window(headers, "requests", bare_requests_per)
    tok, tokens_per = _window(headers, "tokens", "minute")
    info = RateLimitInfo(
        limit_requests=_int(_get(headers, f"x-ratelimit-limit-requests{req}")),
        remaining_requests=_int(_get(headers, f"x-ratelimit-remaining-requests{req}")),
        reset_requests_s=parse_duration(_get(headers, f"x-ratelimit-reset-requests{req}")),
        limit_tokens=_int(_get(headers, f"x-ratelimit-limit-tokens{tok}")),
        remaining_tokens=_int(_get(headers, f"x-ratelimit-remaining-tokens{tok}")),
        reset_tokens_s=parse_duration(_get(headers, f"x-ratelimit-reset-tokens{tok}")),
        requests_per=requests_per,
        tokens_per=tokens_per,
    )
    empty = RateLimitInfo(requests_per=requests_per, tokens_per=tokens_per)
    return None if info == empty else info


# ---- errors ------------------------------------------------------------------------------------

_SDK_STATUS = {
    "BadRequestError": 400,
    "AuthenticationError": 401,
    "PermissionDeniedError": 403,
    "NotFoundError": 404,
    "ConflictError": 409,
    "UnprocessableEntityError": 422,
    "RateLimitError": 429,
    "InternalServerError": 500,
}


def error_fields(body: Any) -> tuple[str | None, str, int | None]:
    """(message, "type code" lower-cased, status_code) from an error body in any known shape.

    Shapes: ``{"error": {"message", "type", "code"}}`` (Groq, OpenAI), the same plus a top-level
    ``status_code`` (Cerebras in-stream), a flat ``{"message", "type", "code"}`` (Cerebras), or
    ``{"error": "text"}`` (llama.cpp, Ollama).
    """
    if not isinstance(body, Mapping):
        return (body if isinstance(body, str) and body else None), "", None
    status = body.get("status_code")
    inner: Any = body.get("error", body)
    if isinstance(inner, str):
        return inner, "", status if isinstance(status, int) else None
    if not isinstance(inner, Mapping):
        return None, "", status if isinstance(status, int) else None
    message = inner.get("message")
    kinds = " ".join(str(inner.get(k) or "") for k in ("type", "code")).lower().strip()
    if not isinstance(status, int):
        status = inner.get("status_code") if isinstance(inner.get("status_code"), int) else None
    return (message if isinstance(message, str) else None), kinds, status


_RATE_WORDS = re.compile(r"rate.?limit|tokens per minute|\bTPM\b", re.IGNORECASE)


def from_status(
    provider: str,
    status: int,
    message: str | None,
    headers: Mapping[str, str] | None = None,
    secrets: Iterable[str | None] = (),
    *,
    label: str | None = None,
) -> ProviderError:
    """The error class an HTTP status means (``label`` prefixes the message; default "HTTP n")."""
    text = safe_text(message or f"HTTP {status}", secrets)
    shown = f"{label or f'HTTP {status}'}: {text}"
    if status in (401, 403):
        return AuthenticationError(provider, shown, status=status)
    if status == 429 or (status == 413 and _RATE_WORDS.search(message or "")):
        # Groq answers 413 rather than 429 when the tokens/minute budget is spent
        retry = parse_retry_after(headers, message)
        return RateLimitedError(provider, shown, retry_after=retry, status=status)
    if status == 408:
        return ProviderTimeoutError(provider, shown, status=status)
    if status >= 500:
        return ServerError(provider, shown, status=status)
    return BadRequestError(provider, shown, status=status)


def from_error_body(
    provider: str,
    body: Any,
    fallback_message: str | None = None,
    headers: Mapping[str, str] | None = None,
    secrets: Iterable[str | None] = (),
) -> ProviderError:
    """An error event inside a stream (no useful HTTP status): classify it by its content."""
    message, kinds, status = error_fields(body)
    message = message or fallback_message or "error event in the stream"
    label = "error event in the stream"
    if status is None or status < 400:
        lowered = f"{kinds} {message}".lower()
        if any(k in lowered for k in ("rate_limit", "rate limit", "too_many_requests")):
            status = 429
        elif any(k in lowered for k in ("invalid_api_key", "authentication", "permission")):
            status = 401
        elif any(k in lowered for k in ("invalid_request", "not_found", "context_length")):
            status = 400
        else:
            return ServerError(provider, f"{label}: {safe_text(message, secrets)}")
    else:
        label = f"{label} ({status})"
    return from_status(provider, status, message, headers, secrets, label=label)


def map_exception(
    provider: str,
    exc: BaseException,
    *,
    secrets: Iterable[str | None] = (),
    read_timeout: float | None = None,
) -> ProviderError:
    """Any SDK, httpx, aiohttp or decoding failure as one of base.py's errors (never raises)."""
    if isinstance(exc, ProviderError):
        return exc
    names = {cls.__name__ for cls in type(exc).__mro__}
    timeout_text = f" after {read_timeout:g} s" if read_timeout else ""
    if "APIConnectionError" in names or isinstance(exc, httpx.TransportError | aiohttp.ClientError):
        underlying = _aiohttp_cause(exc)
        if underlying is not None:
            return _from_aiohttp(provider, underlying, timeout_text)
    if "APITimeoutError" in names or isinstance(exc, httpx.TimeoutException):
        return ProviderTimeoutError(provider, f"no answer{timeout_text} ({type(exc).__name__})")
    if "APIConnectionError" in names:
        cause = exc.__cause__ or exc.__context__
        if isinstance(cause, httpx.TimeoutException):
            return ProviderTimeoutError(provider, f"no answer{timeout_text}")
        detail = type(cause).__name__ if cause is not None else "connection error"
        return ConnectionFailedError(provider, f"could not reach the server ({detail})")
    if "APIStatusError" in names:
        return _from_sdk_status(provider, exc, names, secrets)
    if "APIError" in names:  # Groq: an {"error": …} event inside a 200 stream
        body = getattr(exc, "body", None)
        return from_error_body(provider, body, getattr(exc, "message", None), None, secrets)
    if isinstance(exc, httpx.HTTPStatusError):
        response = exc.response
        return from_status(provider, response.status_code, None, response.headers, secrets)
    if isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError | httpx.WriteError):
        return ConnectionFailedError(provider, f"connection cut mid-answer ({type(exc).__name__})")
    if isinstance(exc, httpx.HTTPError | httpx.StreamError | OSError):
        return ConnectionFailedError(provider, f"connection failed ({type(exc).__name__})")
    if isinstance(exc, ValueError):  # json.JSONDecodeError, pydantic validation
        return MalformedStreamError(
            provider, f"the server answered but its answer was malformed ({type(exc).__name__})"
        )
    return ConnectionFailedError(provider, f"unexpected failure ({type(exc).__name__})")


def _aiohttp_cause(exc: BaseException) -> aiohttp.ClientError | None:
    """The aiohttp error under an httpx one (httpx_aiohttp chains it) or an SDK one (which
    chains the httpx one), if any."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, aiohttp.ClientError):
            return current
        seen.add(id(current))
        current = current.__cause__ or (
            None if current.__suppress_context__ else current.__context__
        )
    return None


def _from_aiohttp(provider: str, cause: aiohttp.ClientError, timeout_text: str) -> ProviderError:
    """The error an aiohttp failure means, from aiohttp's own class: httpx_aiohttp turns any
    ``ClientConnectionError`` (a refused connection, a server that hung up) into
    ``httpx.ConnectTimeout``, which the SDKs report as a timeout."""
    name = type(cause).__name__
    if isinstance(cause, aiohttp.ConnectionTimeoutError):
        return ProviderTimeoutError(provider, f"could not connect in time ({name})")
    if isinstance(cause, aiohttp.ServerTimeoutError):
        return ProviderTimeoutError(provider, f"no answer{timeout_text} ({name})")
    if isinstance(cause, aiohttp.ClientConnectorError):  # refused, DNS, TLS, an unreachable proxy
        return ConnectionFailedError(
            provider, f"could not reach the server ({type(cause.os_error).__name__})"
        )
    if isinstance(cause, aiohttp.ClientPayloadError):
        return ConnectionFailedError(provider, f"connection cut mid-answer ({name})")
    if isinstance(cause, aiohttp.ServerDisconnectedError | aiohttp.ClientOSError):
        return ConnectionFailedError(provider, f"the server closed the connection ({name})")
    return ConnectionFailedError(provider, f"connection failed ({name})")


def _from_sdk_status(
    provider: str, exc: BaseException, names: set[str], secrets: Iterable[str | None]
) -> ProviderError:
    body = getattr(exc, "body", None)
    response = getattr(exc, "response", None)
    headers = response.headers if isinstance(response, httpx.Response) else None
    message = error_fields(body)[0] or getattr(exc, "message", None)
    if isinstance(response, httpx.Response) and response.status_code < 400:
        # Cerebras raises an error event inside a 200 stream as a status error.
        return from_error_body(provider, body, message, headers, secrets)
    status = getattr(exc, "status_code", None)
    if not (isinstance(status, int) and status >= 400):
        status = next((code for name, code in _SDK_STATUS.items() if name in names), None)
    if status is None:
        return from_error_body(provider, body, message, headers, secrets)
    return from_status(provider, status, message, headers, secrets)


def should_chain(exc: BaseException) -> bool:
    """Keep the original as ``__cause__`` only when its text cannot hold server-sent bodies."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    return "APIError" not in names and not isinstance(exc, httpx.HTTPStatusError)


def raise_provider_error(
    provider: str,
    exc: BaseException,
    *,
    secrets: Iterable[str | None] = (),
    read_timeout: float | None = None,
) -> NoReturn:
    """Raise ``exc`` as one of base.py's errors (as it is when it already is one).

    Call it in the ``except`` block that caught ``exc``; the original is chained only when
    :func:`should_chain` says its text is safe.
    """
    error = map_exception(provider, exc, secrets=secrets, read_timeout=read_timeout)
    if error is exc:
        raise exc
    raise error from (exc if should_chain(exc) else None)


# ---- request details ---------------------------------------------------------------------------

_QWEN3 = re.compile(r"qwen-?3")


def reasoning_family(model: str) -> str | None:
    """``qwen3``, ``gpt-oss``, ``glm`` or None: how a model's thinking can be turned down."""
    lowered = model.lower()
    if "gpt-oss" in lowered:
        return "gpt-oss"
    if _QWEN3.search(lowered) and "instruct" not in lowered:
        return "qwen3"
    if "glm" in lowered:
        return "glm"
    return None


def last_user_text(request: ChatRequest) -> str:
    for message in reversed(request.messages):
        if message.get("role") == "user":
            return str(message.get("content") or "")
    return ""


def default_max_tokens(request: ChatRequest) -> int:
    """A completion budget when the caller gave none: Cerebras books it against the quota.

    Output ≈ input for translation; allow twice the text (≈3 chars a token), plus room for
    the reasoning gpt-oss cannot switch off.
    """
    text_tokens = math.ceil(len(last_user_text(request)) / 3)
    budget = 2 * text_tokens + 256
    if reasoning_family(request.model) == "gpt-oss":
        budget += 2048
    return max(512, min(budget, 16384))


# ---- the SDK streaming loop --------------------------------------------------------------------


def pluck(obj: Any, *path: str) -> Any:
    """``obj.a.b`` (or ``obj["a"]["b"]``), None as soon as a step is missing."""
    for name in path:
        if obj is None:
            return None
        if type(obj) is dict:  # JSON: skip the slow Mapping check (once per streamed token)
            obj = obj.get(name)
        else:
            obj = obj.get(name) if isinstance(obj, Mapping) else getattr(obj, name, None)
    return obj


def _float(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def usage_from(usage: Any, timings: Any = None) -> Usage | None:
    """A :class:`Usage` from an SDK usage object (or dict) and optional separate timings."""
    if usage is None:
        return None
    prompt = pluck(usage, "prompt_tokens")
    completion = pluck(usage, "completion_tokens")
    if not isinstance(prompt, int) or not isinstance(completion, int):
        return None
    source = timings if timings is not None else usage
    cached = pluck(usage, "prompt_tokens_details", "cached_tokens")
    cost = _float(pluck(usage, "cost"))
    return Usage(
        prompt_tokens=prompt,
        completion_tokens=completion,
        queue_time=_float(pluck(source, "queue_time")),
        prompt_time=_float(pluck(source, "prompt_time")),
        completion_time=_float(pluck(source, "completion_time")),
        total_time=_float(pluck(source, "total_time")),
        cached_tokens=cached if isinstance(cached, int) else None,
        cost_usd=cost if cost is not None and cost >= 0 else None,
    )


# ---- Server-Sent Events ------------------------------------------------------------------------

DRAIN_TIMEOUT = 1.0  # after [DONE], how long to wait for the body's end so the connection is reused


_LINE_END = re.compile(r"\r\n|\r|\n")


MAX_EVENT_CHARS = 1 << 20  # one event of an answer is a few tokens: 1 MiB is not an event


class _Malformed(ValueError):
    """What made a body not a stream of events (turned into MalformedStreamError above)."""


async def sse_data(response: httpx.Response) -> AsyncGenerator[list[str], None]:
    """The ``data`` of the Server-Sent Events of ``response`` (``[DONE]`` included), one list
    for each piece of the body that arrives.

    Why lists: at 2,000 tokens/s an answer is ~500 events a second per stream, and every event
    taken alone through httpx's line iterator and the layers above cost the engine thread the
    GIL the GUI thread needs; what arrived together is handled together.

    Fields other than ``data`` (``event``, ``id``, ``retry``) and ``:`` comments (keep-alives)
    are skipped; several ``data:`` lines in one event are joined with newlines. Lines end with
    LF, CRLF or CR, also when a CRLF is split between two pieces. The body is UTF-8 (as the
    format says) and decoded strictly: invalid UTF-8, or an event past ``MAX_EVENT_CHARS`` (a
    chunk header of gigabytes, a line that never ends), raises ``_Malformed`` and memory stays
    bounded.
    """
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    pending = ""  # the start of a line whose end has not arrived
    lines: list[str] = []  # the data lines of the event being read
    size = 0  # characters in ``lines``
    async for raw in response.aiter_bytes():
        try:
            piece = decoder.decode(raw)
        except UnicodeDecodeError:
            raise _Malformed("invalid UTF-8") from None
        text = pending + piece
        carry = ""
        if text.endswith("\r"):  # maybe the first half of a CRLF
            text, carry = text[:-1], "\r"
        parts = _LINE_END.split(text)
        pending = parts.pop() + carry
        if len(pending) + size > MAX_EVENT_CHARS:
            raise _Malformed("an event of over 1 MiB")
        batch: list[str] = []
        for line in parts:
            if line == "":
                if lines:
                    batch.append("\n".join(lines))
                    lines, size = [], 0
            elif not line.startswith(":"):
                name, _, value = line.partition(":")
                if name == "data":
                    lines.append(value[1:] if value.startswith(" ") else value)
                    size += len(value)
                    if size > MAX_EVENT_CHARS:
                        raise _Malformed("an event of over 1 MiB")
        if batch:
            yield batch
    try:
        pending += decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        raise _Malformed("invalid UTF-8 at its end") from None
    pending = pending.rstrip("\r")
    if pending.startswith("data:"):
        value = pending[5:]
        lines.append(value[1:] if value.startswith(" ") else value)
    if lines:  # a last event without its blank line
        yield ["\n".join(lines)]


def chunk_usage(chunk: Any) -> Usage | None:
    """Groq's ``x_groq.usage``, else OpenAI's ``usage`` (with Cerebras' ``time_info``)."""
    return usage_from(pluck(chunk, "x_groq", "usage")) or usage_from(
        pluck(chunk, "usage"), pluck(chunk, "time_info")
    )


async def stream_events(
    provider: str, response: httpx.Response, secrets: Iterable[str | None] = ()
) -> AsyncIterator[StreamEvent]:
    """TextDelta… then Usage (when sent) and StreamEnd, from an OpenAI-style SSE response.

    Raises :class:`ProviderError` for an error event, a malformed event, or a stream that stops
    before the model finished. After ``[DONE]`` the rest of the body is read (briefly) so the
    connection goes back to the pool instead of being closed.
    """
    finish: str | None = None
    usage: Usage | None = None
    done = False
    async with contextlib.aclosing(_checked(provider, sse_data(response))) as batches:
        async for batch in batches:
            text: list[str] = []  # the deltas of one batch go out as one
            for data in batch:
                if data.strip() == "[DONE]":
                    done = True
                    break
                try:
                    chunk = _chunk(provider, data, secrets)
                except ProviderError:
                    if text:  # what streamed before the error still reaches the caller first
                        yield TextDelta("".join(text))
                    raise
                for choice in pluck(chunk, "choices") or ():
                    content = pluck(choice, "delta", "content")
                    if isinstance(content, str) and content:
                        text.append(content)
                    reason = pluck(choice, "finish_reason")
                    if reason:
                        finish = str(reason)
                if '"usage"' in data:  # in the last event only: the others skip the lookups
                    usage = chunk_usage(chunk) or usage
            if text:
                yield TextDelta("".join(text))
            if done:
                await _drain(batches)
                break
    if not done and finish is None:
        raise ConnectionFailedError(provider, "the stream ended before the answer did")
    if usage is not None:
        yield usage
    yield StreamEnd(finish)


async def _checked(
    provider: str, batches: AsyncGenerator[list[str], None]
) -> AsyncGenerator[list[str], None]:
    """``batches``, with what made the body malformed raised as MalformedStreamError."""
    async with contextlib.aclosing(batches):
        try:
            async for batch in batches:
                yield batch
        except _Malformed as exc:
            raise MalformedStreamError(
                provider, f"the server answered but its stream was malformed ({exc})"
            ) from None


def _chunk(provider: str, data: str, secrets: Iterable[str | None]) -> Any:
    """One event's JSON; an error event or a malformed one raises ProviderError."""
    try:
        chunk = json.loads(data)
    except ValueError:
        raise MalformedStreamError(
            provider, "the server answered but its stream was malformed (an event is not JSON)"
        ) from None
    if '"error"' not in data:  # the usual event: no error to look for
        return chunk
    if isinstance(chunk, Mapping) and chunk.get("error"):
        raise from_error_body(provider, chunk, None, None, secrets)
    groq_error = pluck(chunk, "x_groq", "error")
    if groq_error:
        raise from_error_body(provider, {"error": groq_error}, None, None, secrets)
    return chunk


async def _drain(events: AsyncIterator[Any]) -> None:
    with contextlib.suppress(TimeoutError, httpx.HTTPError, aiohttp.ClientError):
        async with asyncio.timeout(DRAIN_TIMEOUT):
            async for _ in events:
                pass


# ---- the SDK adapters' common part ------------------------------------------------------------


class SdkProvider:
    """Streaming and model listing over a Stainless SDK client (AsyncGroq, AsyncCerebras).

    The SDK builds and sends the request (auth, headers, status errors); the body is read here
    from the raw ``httpx.Response``, not through the SDK's stream object: cerebras-cloud-sdk
    closes the response right after ``[DONE]`` without reading the end of the chunked body, so
    its connection is never reused (measured: one new connection per request).

    Subclasses name their SDK client (:meth:`_make_client`, given the options both SDKs take) and
    its ``DefaultAioHttpClient`` (``http_client_class``), their default host and model, and turn a
    request into keyword arguments (:meth:`_create_kwargs`): that is where the providers really
    differ.
    """

    name = "sdk"
    default_base_url = ""
    default_model = ""
    http_client_class: type[httpx.AsyncClient] = HttpxAiohttpClient

    def __init__(
        self,
        api_key: str,
        base_url: str | None = None,
        default_model: str | None = None,
        timeout: float = DEFAULT_READ_TIMEOUT,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
    ) -> None:
        """``base_url`` is the bare host; ``default_model`` None means the class's default."""
        limits = make_timeout(timeout, connect_timeout)
        self._secrets = (api_key,)
        self._http = make_http_client(limits, client_class=self.http_client_class)
        self._client = self._make_client(
            api_key=api_key,
            base_url=base_url or self.default_base_url,
            timeout=limits,
            max_retries=max_retries,
            http_client=self._http,
        )
        self._read_timeout = timeout
        self.default_model = self.default_model if default_model is None else default_model

    def __repr__(self) -> str:
        return f"<{type(self).__name__} default_model={self.default_model!r}>"

    def _make_client(self, **options: Any) -> Any:
        """The SDK's async client, built with our HTTP client, timeouts and retries."""
        raise NotImplementedError

    def _create_kwargs(self, request: ChatRequest) -> dict[str, Any]:
        raise NotImplementedError

    def _raise(self, exc: BaseException) -> NoReturn:
        raise_provider_error(self.name, exc, secrets=self._secrets, read_timeout=self._read_timeout)

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        """Stream one answer; the HTTP response is closed however the caller stops."""
        kwargs = self._create_kwargs(request)
        kwargs.update(
            model=request.model or self.default_model, messages=list(request.messages), stream=True
        )
        response: httpx.Response | None = None
        try:
            try:
                raw = await self._client.chat.completions.with_raw_response.create(**kwargs)
                response = raw.http_response
                limits = parse_rate_limits(response.headers)
                if limits is not None:
                    yield limits
                async for event in stream_events(self.name, response, self._secrets):
                    yield event
            except Exception as exc:
                self._raise(exc)
        finally:
            if response is not None:
                await response.aclose()

    async def list_models(self) -> list[ModelInfo]:
        try:
            page = await self._client.models.list()
        except Exception as exc:
            self._raise(exc)
        return [model_info(item) for item in (pluck(page, "data") or ())]

    async def aclose(self) -> None:
        with contextlib.suppress(Exception):
            await self._client.close()
        await self._http.aclose()


def model_info(item: Any) -> ModelInfo:
    """A :class:`ModelInfo` from one ``/models`` entry (SDK object or dict)."""
    context = None
    for name in ("context_window", "context_length", "max_model_len"):
        value = pluck(item, name)
        if isinstance(value, int):
            context = value
            break
    if context is None:
        value = pluck(item, "meta", "n_ctx_train")  # llama.cpp
        context = value if isinstance(value, int) else None
    owned_by = pluck(item, "owned_by")
    return ModelInfo(
        id=str(pluck(item, "id")),
        context_length=context,
        owned_by=owned_by if isinstance(owned_by, str) else None,
    )
