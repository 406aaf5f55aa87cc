"""From what a server or an SDK raised to the error tree of ``base``, with safe messages.

**Safe messages**: every message is built from the server's error text with anything that looks
like a key removed, and SDK exceptions are not chained (their text holds raw bodies).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, NoReturn

import aiohttp
import httpx

from fastdesk.config.redact import redact
from fastdesk.providers.base import (
    AuthenticationError,
    BadRequestError,
    ConnectionFailedError,
    MalformedStreamError,
    ProviderError,
    ProviderTimeoutError,
    RateLimitedError,
    ServerError,
)
from fastdesk.providers.headers import parse_retry_after

MAX_MESSAGE_CHARS = 300

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
    message, kinds, _status = error_fields(body)
    message = message or getattr(exc, "message", None)
    if isinstance(response, httpx.Response) and response.status_code < 400:
        # Cerebras raises an error event inside a 200 stream as a status error.
        return from_error_body(provider, body, message, headers, secrets)
    status = getattr(exc, "status_code", None)
    if not (isinstance(status, int) and status >= 400):
        status = next((code for name, code in _SDK_STATUS.items() if name in names), None)
    if status is None:
        return from_error_body(provider, body, message, headers, secrets)
    if status in (400, 404) and _RETIRED.search(kinds):
        text = safe_text(message or f"HTTP {status}", secrets)
        return BadRequestError(provider, f"HTTP {status}: {text}", status=status, retired=True)
    return from_status(provider, status, message, headers, secrets)


# Groq: 400 model_decommissioned; Cerebras: model_not_found (also in a flat body)
_RETIRED = re.compile(r"model_decommissioned|model_not_found")


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
