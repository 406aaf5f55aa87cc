"""The Server-Sent Events reader: exact events whatever way the body is cut into pieces."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from fastdesk.providers.base import ConnectionFailedError, StreamEnd, TextDelta
from fastdesk.providers.sse import sse_data, stream_events


class Pieces(httpx.AsyncByteStream):
    """A response body that arrives in the given pieces, as a network would cut it."""

    def __init__(self, pieces: list[bytes]) -> None:
        self.pieces = pieces

    async def __aiter__(self):  # type: ignore[override]
        for piece in self.pieces:
            yield piece


def response(pieces: list[bytes]) -> httpx.Response:
    return httpx.Response(200, stream=Pieces(pieces), headers={"content-type": "text/event-stream"})


def bursts(pieces: list[bytes]) -> list[list[str]]:
    async def run() -> list[list[str]]:
        return [burst async for burst in sse_data(response(pieces))]

    return asyncio.run(run())


def cut_everywhere(body: bytes) -> list[list[bytes]]:
    """The body whole, one byte at a time, and cut in two at every position."""
    cuts = [[body], [body[i : i + 1] for i in range(len(body))]]
    cuts += [[body[:i], body[i:]] for i in range(1, len(body))]
    return cuts


BODY = (
    ": keep-alive comment\r\n"
    "event: message\r\n"
    'data: {"a": 1}\r\n'
    "\r\n"
    "data: two\r\n"
    "data: lines\r\n"
    "\r\n"
    "id: 7\n"
    "data: first line\n"
    "data:second line\n"
    "\n"
    "retry: 10\r"
    "data: é 😀 \u2028 inside\r"
    "\r"
    "data: [DONE]\n"
    "\n"
).encode()
EVENTS = ['{"a": 1}', "two\nlines", "first line\nsecond line", "é 😀 \u2028 inside", "[DONE]"]


@pytest.mark.parametrize("pieces", cut_everywhere(BODY))
def test_events_are_the_same_however_the_body_is_cut(pieces: list[bytes]) -> None:
    got = bursts(pieces)
    assert [data for burst in got for data in burst] == EVENTS
    assert all(burst for burst in got)  # no empty lists


def test_events_that_arrive_together_come_as_one_list() -> None:
    body = b"data: a\n\ndata: b\n\ndata: c\n\n"
    assert bursts([body]) == [["a", "b", "c"]]
    assert bursts([body[:9], body[9:]]) == [["a"], ["b", "c"]]


def test_a_last_event_without_its_blank_line_is_kept() -> None:
    assert bursts([b"data: a\n\ndata: tail"]) == [["a"], ["tail"]]
    assert bursts([b"data: a\r\ndata: b\r"]) == [["a\nb"]]


def chunk(content: str, finish: str | None = None) -> bytes:
    body = {"choices": [{"delta": {"content": content}, "finish_reason": finish}]}
    return b"data: " + json.dumps(body).encode() + b"\n\n"


def events(pieces: list[bytes]) -> list[object]:
    async def run() -> list[object]:
        return [ev async for ev in stream_events("groq", response(pieces))]

    return asyncio.run(run())


def test_deltas_that_arrive_together_are_one_delta_and_the_text_is_exact() -> None:
    parts = ["Bon", "jour", " le ", "monde"]
    together = b"".join(chunk(p) for p in parts) + chunk("", "stop") + b"data: [DONE]\n\n"
    assert events([together]) == [TextDelta("Bonjour le monde"), StreamEnd("stop")]
    apart = [chunk(p) for p in parts] + [chunk("", "stop"), b"data: [DONE]\n\n"]
    assert events(apart) == [*(TextDelta(p) for p in parts), StreamEnd("stop")]


def test_a_malformed_event_among_good_ones_is_an_error() -> None:
    with pytest.raises(ConnectionFailedError):
        events([chunk("a") + b"data: {not json\n\n" + chunk("b")])
