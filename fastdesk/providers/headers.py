"""What the servers' headers and error texts say about waiting: ``retry-after`` (seconds, a date,
or "try again in 1m2.5s" in the message) and the rate-limit headers' remaining budget.
"""

from __future__ import annotations

import contextlib
import email.utils
import math
import re
import time
from collections.abc import Mapping

import httpx

from fastdesk.providers.base import (
    RateLimitInfo,
)

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
