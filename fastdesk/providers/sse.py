"""Reading a streamed answer: Server-Sent Events off the raw body, each chunk's text and usage,
as the ``base`` stream events (used by all three adapters).
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import json
import re
from collections.abc import AsyncGenerator, AsyncIterator, Iterable, Mapping
from typing import Any

import aiohttp
import httpx

from fastdesk.providers.base import (
    ConnectionFailedError,
    MalformedStreamError,
    ProviderError,
    StreamEnd,
    StreamEvent,
    TextDelta,
    Usage,
)
from fastdesk.providers.errors import from_error_body


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
        burst: list[str] = []
        for line in parts:
            if line == "":
                if lines:
                    burst.append("\n".join(lines))
                    lines, size = [], 0
            elif not line.startswith(":"):
                name, _, value = line.partition(":")
                if name == "data":
                    lines.append(value[1:] if value.startswith(" ") else value)
                    size += len(value)
                    if size > MAX_EVENT_CHARS:
                        raise _Malformed("an event of over 1 MiB")
        if burst:
            yield burst
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
    async with contextlib.aclosing(_checked(provider, sse_data(response))) as bursts:
        async for burst in bursts:
            text: list[str] = []  # the deltas of one burst go out as one
            for data in burst:
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
                await _drain(bursts)
                break
    if not done and finish is None:
        raise ConnectionFailedError(provider, "the stream ended before the answer did")
    if usage is not None:
        yield usage
    yield StreamEnd(finish)


async def _checked(
    provider: str, bursts: AsyncGenerator[list[str], None]
) -> AsyncGenerator[list[str], None]:
    """``bursts``, with what made the body malformed raised as MalformedStreamError."""
    async with contextlib.aclosing(bursts):
        try:
            async for burst in bursts:
                yield burst
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
