"""The three adapters, driven through the real SDKs (and httpx) against the loopback emulator."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
import traceback
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import httpx
import httpx_aiohttp
import pytest

from fastdesk.config.redact import redact
from fastdesk.providers import errors, headers
from fastdesk.providers.base import (
    AuthenticationError,
    BadRequestError,
    ChatRequest,
    ConnectionFailedError,
    Provider,
    ProviderError,
    ProviderTimeoutError,
    RateLimitedError,
    RateLimitInfo,
    ServerError,
    StreamEnd,
    TextDelta,
    Usage,
)
from fastdesk.providers.cerebras import CerebrasProvider
from fastdesk.providers.factory import configured_providers
from fastdesk.providers.groq import GroqProvider
from fastdesk.providers.openai_compat import OpenAICompatProvider
from tests.emulator import FOUNDING_MODELS, Emulator, RateLimits, count_prompt_tokens, tokenize

KINDS = ("groq", "cerebras", "openai")
SECRET = {
    "groq": "gsk_TESTSECRET_0123456789_abcdefXYZ",
    "cerebras": "csk-TESTSECRET_0123456789_abcdefXYZ",
    "openai": "sk-TESTSECRET0123456789abcdefXYZ",
}
TRICKY = (
    "# Titre\r\n\r\nHéllo wörld — « ça » ñ 日本語テキスト\r\n"
    "Emoji: 🎉 👩‍👩‍👧 🇫🇷 e\u0301\n\n"
    "```python\n\tprint('x')  \n```\n"
    "  leading spaces and trailing  \n\n\n"
)


@pytest.fixture
def emu() -> Iterator[Emulator]:
    with Emulator() as server:
        yield server


def make(kind: str, emu: Emulator, **kw: Any) -> Provider:
    if kind == "groq":
        return GroqProvider(SECRET[kind], base_url=emu.groq_base_url, **kw)
    if kind == "cerebras":
        return CerebrasProvider(SECRET[kind], base_url=emu.cerebras_base_url, **kw)
    return OpenAICompatProvider(emu.openai_base_url, api_key=SECRET[kind], **kw)


def request(text: str = "Bonjour", model: str = "", **kw: Any) -> ChatRequest:
    messages = [
        {"role": "system", "content": "Translate. Keep Markdown."},
        {"role": "user", "content": "context, not to echo"},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": text},
    ]
    return ChatRequest(model=model, messages=messages, **kw)


async def collect(provider: Provider, req: ChatRequest) -> list[Any]:
    return [event async for event in provider.stream(req)]


async def collect_until_error(provider: Provider, req: ChatRequest) -> tuple[list[Any], Exception]:
    events: list[Any] = []
    try:
        async for event in provider.stream(req):
            events.append(event)
    except Exception as exc:
        return events, exc
    raise AssertionError(f"no error; got {events!r}")


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def text_of(events: list[Any]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def assert_no_secret(exc: BaseException, kind: str) -> None:
    shown = "".join(traceback.format_exception(exc)) + repr(exc) + str(exc)
    assert SECRET[kind] not in shown
    assert SECRET[kind][6:20] not in shown


async def use(kind: str, emu: Emulator, coro_fn: Any, **kw: Any) -> Any:
    provider = make(kind, emu, **kw)
    try:
        return await coro_fn(provider)
    finally:
        await provider.aclose()


# ---- streaming ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("split_writes", [False, True])
def test_stream_reassembles_exactly(emu: Emulator, kind: str, split_writes: bool) -> None:
    first_read = threading.Event()
    emu.configure(split_writes=split_writes, hold_after_first=first_read)

    async def collect_releasing(provider: Provider) -> list[Any]:
        events = []
        async for event in provider.stream(request(TRICKY)):
            events.append(event)
            if isinstance(event, TextDelta) and event.text:
                first_read.set()  # the rest may now come, in as few reads as it likes
        return events

    events = run(use(kind, emu, collect_releasing))
    assert text_of(events) == TRICKY
    assert isinstance(events[0], RateLimitInfo)
    assert isinstance(events[-2], Usage)
    assert events[-1] == StreamEnd("stop")
    deltas = [e for e in events if isinstance(e, TextDelta)]
    # streamed in pieces (what one socket read brings goes on together), none empty
    assert 1 < len(deltas) <= len(tokenize(TRICKY))
    assert all(d.text for d in deltas)


@pytest.mark.parametrize("kind", KINDS)
def test_empty_answer_is_a_complete_stream(emu: Emulator, kind: str) -> None:
    events = run(use(kind, emu, lambda p: collect(p, request(""))))
    assert text_of(events) == ""
    assert events[-1] == StreamEnd("stop")


@pytest.mark.parametrize("kind", KINDS)
def test_usage_counts_and_server_timings(emu: Emulator, kind: str) -> None:
    req = request("one two three four five")
    events = run(use(kind, emu, lambda p: collect(p, req)))
    usage = next(e for e in events if isinstance(e, Usage))
    assert usage.prompt_tokens == count_prompt_tokens(req.messages)
    assert usage.completion_tokens == len(tokenize("one two three four five"))
    if kind == "openai":  # plain OpenAI usage has no timings
        assert usage.queue_time is None and usage.total_time is None
    else:
        assert usage.queue_time == pytest.approx(0.0125)
        assert usage.prompt_time is not None and usage.prompt_time > 0
        assert usage.completion_time is not None and usage.completion_time >= 0
        assert usage.total_time is not None and usage.total_time >= usage.completion_time
    if kind == "cerebras":
        assert usage.cached_tokens == 0


def test_cerebras_usage_in_a_chunk_without_choices(emu: Emulator) -> None:
    emu.configure(cerebras_usage_separate=True)
    events = run(use("cerebras", emu, lambda p: collect(p, request("abc def"))))
    assert text_of(events) == "abc def"
    usage = next(e for e in events if isinstance(e, Usage))
    assert usage.completion_tokens == 2 and usage.total_time is not None
    assert events[-1] == StreamEnd("stop")


@pytest.mark.parametrize("kind", KINDS)
def test_rate_limit_headers(emu: Emulator, kind: str) -> None:
    emu.configure(
        rate_limits=RateLimits(
            limit_requests=30,
            remaining_requests=12,
            reset_requests_s=179.56,
            limit_tokens=6000,
            remaining_tokens=4321,
            reset_tokens_s=7.66,
        )
    )
    events = run(use(kind, emu, lambda p: collect(p, request())))
    info = events[0]
    assert isinstance(info, RateLimitInfo)
    assert (info.limit_requests, info.remaining_requests) == (30, 12)
    assert (info.limit_tokens, info.remaining_tokens) == (6000, 4321)
    assert info.reset_requests_s == pytest.approx(179.56)
    assert info.reset_tokens_s == pytest.approx(7.66)


@pytest.mark.parametrize("kind", KINDS)
def test_no_rate_limit_event_without_headers(emu: Emulator, kind: str) -> None:
    emu.configure(rate_limits=None)
    events = run(use(kind, emu, lambda p: collect(p, request())))
    assert not any(isinstance(e, RateLimitInfo) for e in events)
    assert text_of(events) == "Bonjour"


@pytest.mark.parametrize("kind", KINDS)
def test_think_prefix_is_passed_through_and_reasoning_field_ignored(
    emu: Emulator, kind: str
) -> None:
    emu.configure(think="let me think", reasoning="gpt-oss style hidden reasoning")
    events = run(use(kind, emu, lambda p: collect(p, request("Salut"))))
    # <think> removal is prompts.ThinkStripper's job; delta.reasoning never becomes text.
    assert text_of(events) == "<think>\nlet me think\n</think>\n\nSalut"


@pytest.mark.parametrize("kind", KINDS)
def test_concurrent_streams_share_one_provider(emu: Emulator, kind: str) -> None:
    emu.configure(tokens_per_second=400)
    texts = [f"paragraph {i} — {'é' * i} 🎉" for i in range(6)]

    async def go(p: Provider) -> list[str]:
        results = await asyncio.gather(*(collect(p, request(t)) for t in texts))
        return [text_of(r) for r in results]

    assert run(use(kind, emu, go)) == texts


@pytest.mark.parametrize("kind", KINDS)
def test_keep_alive_reuses_one_connection(emu: Emulator, kind: str) -> None:
    async def go(p: Provider) -> None:
        for i in range(4):
            assert text_of(await collect(p, request(f"n°{i}"))) == f"n°{i}"

    run(use(kind, emu, go))
    assert len(emu.chat_requests) == 4
    assert emu.connections == 1


@pytest.mark.parametrize("kind", KINDS)
def test_request_carries_model_key_and_messages(emu: Emulator, kind: str) -> None:
    req = request("x", model="some-model", max_tokens=77, temperature=0.1)
    run(use(kind, emu, lambda p: collect(p, req)))
    seen = emu.chat_requests[-1]
    assert seen.auth and "authorization" not in seen.headers
    assert seen.body["model"] == "some-model"
    assert seen.body["messages"] == list(req.messages)
    assert seen.body["stream"] is True
    assert seen.body["temperature"] == 0.1
    tokens_field = "max_tokens" if kind == "openai" else "max_completion_tokens"
    assert seen.body[tokens_field] == 77
    expected_path = {
        "groq": "/openai/v1/chat/completions",
        "cerebras": "/cerebras/v1/chat/completions",
        "openai": "/compat/v1/chat/completions",
    }
    assert seen.path == expected_path[kind]


@pytest.mark.parametrize("kind", ["groq", "cerebras"])
def test_default_model_used_when_request_names_none(emu: Emulator, kind: str) -> None:
    provider_default = {"groq": "openai/gpt-oss-20b", "cerebras": "gpt-oss-120b"}[kind]
    run(use(kind, emu, lambda p: collect(p, request("x"))))
    assert emu.chat_requests[-1].body["model"] == provider_default


# ---- reasoning parameters ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "model", "expected"),
    [
        ("groq", "qwen/qwen3-32b", "none"),
        ("groq", "openai/gpt-oss-20b", "low"),
        ("groq", "openai/gpt-oss-120b", "low"),
        ("groq", "llama-3.1-8b-instant", None),
        ("groq", "meta-llama/llama-4-scout-17b-16e-instruct", None),
        ("cerebras", "qwen-3-32b", "none"),
        ("cerebras", "gpt-oss-120b", "low"),
        ("cerebras", "zai-glm-4.7", "none"),
        ("cerebras", "llama3.1-8b", None),
        ("cerebras", "qwen-3-235b-a22b-instruct-2507", None),
    ],
)
def test_reasoning_effort_sent(emu: Emulator, kind: str, model: str, expected: str | None) -> None:
    run(use(kind, emu, lambda p: collect(p, request("x", model=model))))
    body = emu.chat_requests[-1].body
    assert body.get("reasoning_effort") == expected
    assert "disable_reasoning" not in body and "reasoning_format" not in body


@pytest.mark.parametrize("kind", ["groq", "cerebras"])
def test_reasoning_left_alone_when_not_asked(emu: Emulator, kind: str) -> None:
    model = {"groq": "qwen/qwen3-32b", "cerebras": "qwen-3-32b"}[kind]
    run(use(kind, emu, lambda p: collect(p, request("x", model=model, reasoning_off=False))))
    assert "reasoning_effort" not in emu.chat_requests[-1].body


def test_cerebras_always_books_a_bounded_completion_budget(emu: Emulator) -> None:
    run(use("cerebras", emu, lambda p: collect(p, request("short", model="llama3.1-8b"))))
    small = emu.chat_requests[-1].body["max_completion_tokens"]
    run(use("cerebras", emu, lambda p: collect(p, request("word " * 3000, model="llama3.1-8b"))))
    large = emu.chat_requests[-1].body["max_completion_tokens"]
    run(use("cerebras", emu, lambda p: collect(p, request("short", model="gpt-oss-120b"))))
    reasoning = emu.chat_requests[-1].body["max_completion_tokens"]
    assert 512 <= small < large <= 16384
    assert reasoning > small  # room for the reasoning gpt-oss cannot switch off


def test_groq_sends_no_token_cap_unless_asked(emu: Emulator) -> None:
    run(use("groq", emu, lambda p: collect(p, request("x"))))
    body = emu.chat_requests[-1].body
    assert "max_completion_tokens" not in body and "max_tokens" not in body


def test_openai_compat_asks_for_usage_and_turns_qwen3_thinking_off(emu: Emulator) -> None:
    run(use("openai", emu, lambda p: collect(p, request("x", model="qwen3:8b"))))
    body = emu.chat_requests[-1].body
    assert body["stream_options"] == {"include_usage": True}
    assert body["chat_template_kwargs"] == {"enable_thinking": False}
    run(use("openai", emu, lambda p: collect(p, request("x", model="llama3.2"))))
    assert "chat_template_kwargs" not in emu.chat_requests[-1].body


# ---- errors ------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    ("status", "error_class"),
    [
        (400, BadRequestError),
        (401, AuthenticationError),
        (403, AuthenticationError),
        (404, BadRequestError),
        (422, BadRequestError),
        (500, ServerError),
        (503, ServerError),
    ],
)
def test_http_status_maps_to_error_class(
    emu: Emulator, kind: str, status: int, error_class: type[ProviderError]
) -> None:
    emu.fail_status(status)
    events, exc = run(use(kind, emu, lambda p: collect_until_error(p, request())))
    assert type(exc) is error_class
    assert exc.status == status and exc.provider == kind
    assert str(exc).startswith(f"{kind}: HTTP {status}")
    assert not any(isinstance(e, TextDelta) for e in events)
    assert_no_secret(exc, kind)
    assert len(emu.chat_requests) == 1  # no SDK retry: the router decides


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    ("fault", "expected"),
    [
        ({"retry_after": 7}, 7.0),
        ({"retry_after_ms": 1500, "retry_after": 9}, 1.5),
        ({"retry_in": "5.289s"}, 5.289),
        ({"retry_in": "1m2.5s"}, 62.5),
        ({"retry_in": "340ms"}, 0.34),
        ({}, None),
    ],
)
def test_rate_limited_with_retry_after(
    emu: Emulator, kind: str, fault: dict[str, Any], expected: float | None
) -> None:
    emu.fail_status(429, **fault)
    _, exc = run(use(kind, emu, lambda p: collect_until_error(p, request())))
    assert isinstance(exc, RateLimitedError)
    assert exc.status == 429 and exc.kind == "rate_limited"
    if expected is None:
        assert exc.retry_after is None
    else:
        assert exc.retry_after == pytest.approx(expected)
    assert len(emu.chat_requests) == 1  # the SDK did not sleep and retry by itself


def test_cerebras_flat_error_body(emu: Emulator) -> None:
    emu.fail_status(404, flat_body=True, message="Model nope does not exist")
    _, exc = run(use("cerebras", emu, lambda p: collect_until_error(p, request(model="nope"))))
    assert isinstance(exc, BadRequestError)
    assert "Model nope does not exist" in str(exc)


def test_openai_compat_string_error_body(emu: Emulator) -> None:
    emu.fail_status(404, body={"error": "model 'llama9' not found, try pulling it first"})
    _, exc = run(use("openai", emu, lambda p: collect_until_error(p, request(model="llama9"))))
    assert isinstance(exc, BadRequestError)
    assert "not found" in str(exc)


@pytest.mark.parametrize("kind", KINDS)
def test_rate_limit_error_event_mid_stream(emu: Emulator, kind: str) -> None:
    emu.fail_midstream(after_chunks=3, status=429, retry_in="2.5s")
    events, exc = run(use(kind, emu, lambda p: collect_until_error(p, request("a b c d e f g"))))
    assert text_of(events) == "".join(tokenize("a b c d e f g")[:3])
    assert isinstance(exc, RateLimitedError)
    assert exc.retry_after == pytest.approx(2.5)
    assert "error event in the stream" in str(exc)
    assert_no_secret(exc, kind)


@pytest.mark.parametrize("kind", KINDS)
def test_capacity_error_event_mid_stream(emu: Emulator, kind: str) -> None:
    emu.fail_midstream(after_chunks=2, status=503)
    events, exc = run(use(kind, emu, lambda p: collect_until_error(p, request("a b c d e"))))
    assert text_of(events) == "a b"
    assert isinstance(exc, ServerError)


def test_groq_style_error_event_without_status(emu: Emulator) -> None:
    """Groq sends a bare {"error": {...}} event: classified by its type/code and text."""
    body = {"error": {"message": "Service over capacity", "type": "internal_server_error"}}
    emu.fail_midstream(after_chunks=1, body=body)
    events, exc = run(use("groq", emu, lambda p: collect_until_error(p, request("a b c"))))
    assert text_of(events) == "a"
    assert isinstance(exc, ServerError) and "over capacity" in str(exc)


@pytest.mark.parametrize("kind", ["groq", "openai"])
def test_x_groq_error_in_a_chunk(emu: Emulator, kind: str) -> None:
    chunk = {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "m",
        "choices": [],
        "x_groq": {"id": "req_1", "error": "rate limit reached, try again in 3s"},
    }
    emu.fail_midstream(after_chunks=1, body=chunk)
    events, exc = run(use(kind, emu, lambda p: collect_until_error(p, request("a b"))))
    assert text_of(events) == "a"
    assert isinstance(exc, RateLimitedError) and exc.retry_after == pytest.approx(3)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("reset", [False, True])
def test_cut_connection_mid_stream(emu: Emulator, kind: str, reset: bool) -> None:
    emu.fail_cut(after_chunks=2, reset=reset)
    events, exc = run(use(kind, emu, lambda p: collect_until_error(p, request("a b c d e"))))
    if reset:  # a TCP reset may discard what the client had not read yet
        assert "a b".startswith(text_of(events))
    else:
        assert text_of(events) == "a b"
    assert isinstance(exc, ConnectionFailedError)
    assert_no_secret(exc, kind)


@pytest.mark.parametrize("kind", KINDS)
def test_malformed_event(emu: Emulator, kind: str) -> None:
    emu.fail_malformed(after_chunks=1)
    events, exc = run(use(kind, emu, lambda p: collect_until_error(p, request("a b c"))))
    assert text_of(events) == "a"
    assert isinstance(exc, ConnectionFailedError) and "malformed" in str(exc)


@pytest.mark.parametrize("kind", KINDS)
def test_silent_server_times_out_before_headers(emu: Emulator, kind: str) -> None:
    emu.fail_hang()
    _, exc = run(use(kind, emu, lambda p: collect_until_error(p, request()), timeout=0.3))
    assert isinstance(exc, ProviderTimeoutError) and exc.kind == "timeout"
    # the server hangs for ever, so only the client's read timeout can end it: the one given
    assert "no answer after 0.3 s" in exc.message
    assert emu.wait_for(lambda: emu.disconnects == 1, 30)  # the client left (a hang guard)
    assert_no_secret(exc, kind)
    assert len(emu.chat_requests) == 1


@pytest.mark.parametrize("kind", KINDS)
def test_silent_server_times_out_mid_stream(emu: Emulator, kind: str) -> None:
    emu.fail_hang(after_chunks=2)
    events, exc = run(
        use(kind, emu, lambda p: collect_until_error(p, request("a b c d")), timeout=0.3)
    )
    assert text_of(events) == "a b"
    assert isinstance(exc, ProviderTimeoutError)


def test_stream_without_finish_or_done_is_an_error(emu: Emulator) -> None:
    emu.configure(finish_reason=None, send_done=False)
    events, exc = run(use("openai", emu, lambda p: collect_until_error(p, request("a b"))))
    assert text_of(events) == "a b"
    assert isinstance(exc, ConnectionFailedError)


@pytest.mark.parametrize("kind", KINDS)
def test_connection_refused(kind: str) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    provider: Provider
    if kind == "groq":
        provider = GroqProvider(SECRET[kind], base_url=url)
    elif kind == "cerebras":
        provider = CerebrasProvider(SECRET[kind], base_url=url)
    else:
        provider = OpenAICompatProvider(url + "/v1", api_key=SECRET[kind])

    async def go() -> Exception:
        try:
            _, exc = await collect_until_error(provider, request())
            return exc
        finally:
            await provider.aclose()

    exc = run(go())
    assert isinstance(exc, ConnectionFailedError)
    assert_no_secret(exc, kind)


@pytest.mark.parametrize("kind", KINDS)
def test_key_echoed_by_the_server_is_redacted(emu: Emulator, kind: str) -> None:
    emu.fail_status(401, message=f"Incorrect API key provided: {SECRET[kind]}")
    _, exc = run(use(kind, emu, lambda p: collect_until_error(p, request())))
    assert isinstance(exc, AuthenticationError)
    assert "Incorrect API key provided" in str(exc)
    assert_no_secret(exc, kind)
    assert exc.__cause__ is None
    assert exc.__context__ is None or exc.__suppress_context__


@pytest.mark.parametrize("kind", KINDS)
def test_key_not_in_provider_repr(emu: Emulator, kind: str) -> None:
    async def go(p: Provider) -> str:
        return repr(p) + str(p)

    shown = run(use(kind, emu, go))
    assert SECRET[kind] not in shown


# ---- cancellation ------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_cancel_mid_stream_closes_the_response(emu: Emulator, kind: str) -> None:
    emu.configure(tokens_per_second=20)  # 200 tokens: ten seconds if nobody cancels

    async def go(p: Provider) -> None:
        got_first = asyncio.Event()
        seen: list[str] = []

        async def consume() -> None:
            async for event in p.stream(request("word " * 200)):
                if isinstance(event, TextDelta):
                    seen.append(event.text)
                    got_first.set()

        task = asyncio.create_task(consume())
        await asyncio.wait_for(got_first.wait(), 5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        # the cancel ended the stream where it was: not every token came, none after it
        assert 1 <= len(seen) < 200
        after_cancel = len(seen)
        # The server notices the closed socket while this provider is still open.
        assert await asyncio.to_thread(emu.wait_for, lambda: emu.disconnects >= 1, 5)
        assert len(seen) == after_cancel and emu.answered == 0  # it never sent its end

    run(use(kind, emu, go))


@pytest.mark.parametrize("kind", KINDS)
def test_cancel_while_the_consumer_is_busy_elsewhere(emu: Emulator, kind: str) -> None:
    """Cancelled between two events (the stream suspended at a yield): the response still closes
    (the abandoned generator is finalised by asyncio's async-generator hook)."""
    emu.configure(tokens_per_second=20)

    async def go(p: Provider) -> None:
        busy = asyncio.Event()

        async def consume() -> None:
            async for event in p.stream(request("word " * 200)):
                if isinstance(event, TextDelta):
                    busy.set()
                    await asyncio.Event().wait()  # stuck in other work, never resumes the stream

        task = asyncio.create_task(consume())
        await asyncio.wait_for(busy.wait(), 5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert await asyncio.to_thread(emu.wait_for, lambda: emu.disconnects >= 1, 5)

    run(use(kind, emu, go))


@pytest.mark.parametrize("kind", KINDS)
def test_cancel_while_waiting_for_first_token(emu: Emulator, kind: str) -> None:
    emu.fail_hang()

    async def go(p: Provider) -> None:
        task = asyncio.create_task(collect(p, request()))
        await asyncio.to_thread(emu.wait_for, lambda: len(emu.chat_requests) == 1, 5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 1)
        assert await asyncio.to_thread(emu.wait_for, lambda: emu.disconnects >= 1, 5)

    run(use(kind, emu, go))


@pytest.mark.parametrize("kind", KINDS)
def test_breaking_out_early_with_aclose_closes_the_response(emu: Emulator, kind: str) -> None:
    emu.configure(tokens_per_second=50)

    async def go(p: Provider) -> None:
        stream = p.stream(request("word " * 200))
        async for event in stream:  # type: ignore[attr-defined]
            if isinstance(event, TextDelta):
                break
        await stream.aclose()  # type: ignore[attr-defined]
        assert await asyncio.to_thread(emu.wait_for, lambda: emu.disconnects >= 1, 5)

    run(use(kind, emu, go))


# ---- models ------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_list_models(emu: Emulator, kind: str) -> None:
    emu.configure(models=FOUNDING_MODELS)
    models = run(use(kind, emu, lambda p: p.list_models()))
    ids = [m.id for m in models]
    flavour_ids = {
        "groq": ["llama-3.1-8b-instant", "qwen/qwen3-32b", "openai/gpt-oss-20b"],
        "cerebras": ["gpt-oss-120b", "qwen-3-32b", "llama3.1-8b"],
        "openai": ["local-model"],
    }[kind]
    assert ids[: len(flavour_ids)] == flavour_ids
    if kind == "groq":
        assert models[0].context_length == 131072 and models[0].owned_by == "Groq"
    assert emu.requests[-1].endpoint == "models"


@pytest.mark.parametrize("kind", KINDS)
def test_list_models_errors_are_mapped(emu: Emulator, kind: str) -> None:
    emu.fail_status(401, on="models")

    async def go(p: Provider) -> Exception:
        with pytest.raises(ProviderError) as info:
            await p.list_models()
        return info.value

    exc = run(use(kind, emu, go))
    assert isinstance(exc, AuthenticationError)
    assert_no_secret(exc, kind)


def test_openai_compat_picks_the_served_model_when_none_configured(emu: Emulator) -> None:
    emu.configure(models={"openai": ["qwen2.5:7b", "other"]})

    async def go(p: Provider) -> None:
        await collect(p, request("x"))
        await collect(p, request("y"))
        assert p.default_model == "qwen2.5:7b"

    run(use("openai", emu, go))
    assert [r.body["model"] for r in emu.chat_requests] == ["qwen2.5:7b", "qwen2.5:7b"]
    assert [r.endpoint for r in emu.requests].count("models") == 1


def test_openai_compat_with_no_model_anywhere(emu: Emulator) -> None:
    emu.configure(models={"openai": []})
    _, exc = run(use("openai", emu, lambda p: collect_until_error(p, request("x"))))
    assert isinstance(exc, BadRequestError) and "FASTDESK_OPENAI_MODEL" in str(exc)
    assert emu.chat_requests == []


def test_openai_compat_without_key_sends_no_authorization(emu: Emulator) -> None:
    async def go() -> None:
        provider = OpenAICompatProvider(emu.openai_base_url + "/", default_model="m")
        try:
            assert text_of(await collect(provider, request("x"))) == "x"
        finally:
            await provider.aclose()

    run(go())
    assert emu.chat_requests[-1].auth is False


def test_cerebras_construction_does_not_warm_tcp(emu: Emulator) -> None:
    async def go(p: Provider) -> None:
        assert emu.request_count == 0
        await collect(p, request("x"))

    run(use("cerebras", emu, go))
    assert all(r.endpoint != "tcp_warming" for r in emu.requests)


@pytest.mark.parametrize("kind", ["groq", "cerebras"])
def test_sdk_uses_the_one_shared_http1_client(emu: Emulator, kind: str) -> None:
    async def go(p: Any) -> None:
        await collect(p, request("x"))
        assert p._client._client is p._http  # the SDK sends through our client
        # the SDK's aiohttp client: HTTP/1.1 only (Cerebras' SDK would otherwise ask for HTTP/2)
        assert isinstance(p._http, httpx_aiohttp.HttpxAiohttpClient)
        assert isinstance(p._http._transport, httpx_aiohttp.AiohttpTransport)

    run(use(kind, emu, go))


# ---- factory -----------------------------------------------------------------------------


def test_factory_builds_configured_providers_in_preference_order(emu: Emulator) -> None:
    env = {
        "GROQ_API_KEY": SECRET["groq"],
        "GROQ_BASE_URL": emu.groq_base_url,
        "CEREBRAS_BASE_URL": emu.cerebras_base_url,
        "FASTDESK_OPENAI_BASE_URL": emu.openai_base_url,
        "FASTDESK_OPENAI_MODEL": "served-model",
    }
    stored = {"cerebras": SECRET["cerebras"], "groq": "gsk_keyring_loses"}
    providers = configured_providers(env=env, keys=stored.get, models={"groq": "qwen/qwen3-32b"})
    assert list(providers) == ["cerebras", "groq", "openai"]
    assert all(isinstance(p, Provider) for p in providers.values())
    assert providers["groq"].default_model == "qwen/qwen3-32b"
    assert providers["cerebras"].default_model == "gpt-oss-120b"
    assert providers["openai"].default_model == "served-model"

    async def go() -> None:
        try:
            for name, provider in providers.items():
                assert text_of(await collect(provider, request(name))) == name
        finally:
            for provider in providers.values():
                await provider.aclose()

    run(go())
    assert [r.flavour for r in emu.chat_requests] == ["cerebras", "groq", "openai"]
    assert [r.body["model"] for r in emu.chat_requests] == [
        "gpt-oss-120b",
        "qwen/qwen3-32b",
        "served-model",
    ]
    assert emu.chat_requests[2].auth is False  # no FASTDESK_OPENAI_API_KEY


def test_factory_env_key_wins_over_keyring() -> None:
    asked: list[str] = []

    def keys(name: str) -> str | None:
        asked.append(name)
        return "from-keyring"

    providers = configured_providers(env={"GROQ_API_KEY": "from-env"}, keys=keys)
    assert list(providers) == ["cerebras", "groq"]
    assert providers["groq"]._secrets == ("from-env",)  # type: ignore[attr-defined]
    assert providers["cerebras"]._secrets == ("from-keyring",)  # type: ignore[attr-defined]
    assert asked == ["cerebras"]
    run(_close_all(providers))


def test_factory_nothing_configured() -> None:
    assert configured_providers(env={}) == {}
    assert configured_providers(env={"GROQ_API_KEY": "  ", "CEREBRAS_API_KEY": ""}) == {}


def test_factory_broken_keyring_means_not_configured() -> None:
    def keys(name: str) -> str | None:
        raise RuntimeError("no Secret Service")

    assert configured_providers(env={}, keys=keys) == {}


def test_factory_defaults_to_process_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CEREBRAS_API_KEY", "csk-env")
    monkeypatch.setenv("FASTDESK_OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    providers = configured_providers()
    assert list(providers) == ["cerebras", "openai"]
    assert providers["openai"].default_model == ""
    run(_close_all(providers))


def test_factory_settings_base_url_loses_to_env() -> None:
    providers = configured_providers(
        env={"FASTDESK_OPENAI_BASE_URL": "http://env.invalid/v1"},
        base_urls={"openai": "http://settings.invalid/v1"},
    )
    assert providers["openai"].base_url == "http://env.invalid/v1"  # type: ignore[attr-defined]
    run(_close_all(providers))


async def _close_all(providers: dict[str, Provider]) -> None:
    for provider in providers.values():
        await provider.aclose()


# ---- helpers -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("7.66s", 7.66),
        ("2m59.56s", 179.56),
        ("120ms", 0.12),
        ("1h2m3s", 3723.0),
        ("33011.382867", 33011.382867),
        ("0", 0.0),
        ("", None),
        ("soon", None),
        ("5s later", None),
        ("-3", None),
        (None, None),
    ],
)
def test_parse_duration(text: str | None, seconds: float | None) -> None:
    assert headers.parse_duration(text) == (pytest.approx(seconds) if seconds is not None else None)


def test_retry_after_http_date(monkeypatch: pytest.MonkeyPatch) -> None:
    now = 1_790_000_000.25  # the reading of the header's clock, fixed (any date would do)
    monkeypatch.setattr(headers, "time", SimpleNamespace(time=lambda: now))
    date = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(now + 30))
    value = headers.retry_after_from_headers(httpx.Headers({"Retry-After": date}))
    assert value == pytest.approx(29.75)  # the date has whole seconds: 30 s from now, less 0.25


def test_redact_removes_keys_and_key_shapes() -> None:
    text = redact(
        "key gsk_abcdefgh12345 and Bearer sk-zzzzzzzz and mine=MYSECRETVALUE", ["MYSECRETVALUE"]
    )
    assert "abcdefgh12345" not in text and "zzzzzzzz" not in text and "MYSECRET" not in text
    assert errors.safe_text(text + " gsk_abcdefgh12345", ["MYSECRETVALUE"]) == text + " gsk_…2345"
    assert len(errors.safe_text("x" * 5000)) <= errors.MAX_MESSAGE_CHARS


def test_parse_rate_limits_absent() -> None:
    assert headers.parse_rate_limits(httpx.Headers({"content-type": "text/plain"})) is None
    assert headers.parse_rate_limits({"X-RateLimit-Remaining-Requests": "3"}) == RateLimitInfo(
        remaining_requests=3
    )


def test_a_provider_loads_its_sdks_chat_resources_when_built_not_in_its_first_request() -> None:
    """The SDKs import their chat resources on first use (~30 ms of modules and pydantic models):
    inside the first request, that time was counted as the provider's time to first token,
    which the router ranks providers by. A fresh process: this one has them loaded already."""
    import subprocess
    import sys

    probe = (
        "import sys\n"
        "from fastdesk.providers.cerebras import CerebrasProvider\n"
        "from fastdesk.providers.groq import GroqProvider\n"
        "loaded = lambda: sorted(m for m in sys.modules if m.endswith('.chat.completions'))\n"
        "before = loaded()\n"
        "GroqProvider('gsk_probe'), CerebrasProvider('csk-probe')\n"
        "print(before, loaded())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    chat = ["cerebras.cloud.sdk.resources.chat.completions", "groq.resources.chat.completions"]
    assert done.stdout.strip() == f"[] {chat}"
