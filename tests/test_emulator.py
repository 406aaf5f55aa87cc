"""The provider emulator itself: wire formats, timing knobs, faults, records, clean shutdown.

Raw httpx (and raw sockets) here, no SDK: these tests pin what the emulator sends, so that the
adapter tests in test_providers.py can trust it.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.emulator import (
    DEFAULT_MODELS,
    Account,
    Emulator,
    Fault,
    RateLimits,
    count_prompt_tokens,
    go_duration,
    last_user_content,
    tokenize,
)

CHAT = {
    "groq": "/openai/v1/chat/completions",
    "cerebras": "/cerebras/v1/chat/completions",
    "openai": "/compat/v1/chat/completions",
}


@pytest.fixture
def emu() -> Iterator[Emulator]:
    with Emulator() as server:
        yield server


def body(text: str = "Bonjour le monde", stream: bool = True, **extra: Any) -> dict[str, Any]:
    return {
        "model": "m-1",
        "messages": [
            {"role": "system", "content": "sys"},
            {"role": "user", "content": "earlier"},
            {"role": "user", "content": text},
        ],
        "stream": stream,
        **extra,
    }


def sse(text: str) -> list[Any]:
    """Decoded data of each event ([DONE] kept as the string)."""
    out: list[Any] = []
    for block in text.split("\n\n"):
        if not block.startswith("data: "):
            continue
        data = block[len("data: ") :]
        out.append(data if data == "[DONE]" else json.loads(data))
    return out


def content_of(events: list[Any]) -> str:
    return "".join(
        choice["delta"].get("content") or ""
        for e in events
        if isinstance(e, dict)
        for choice in e.get("choices") or []
    )


# ---- tokenising ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["", " ", "a", "\r\n", "Héllo wörld", "  lead\ttab\r\nCRLF  trail  ", "👩‍👩‍👧🎉" * 3, "x" * 41],
)
def test_tokenize_is_lossless(text: str) -> None:
    pieces = tokenize(text)
    assert "".join(pieces) == text
    assert all(pieces)
    assert all(len(p.strip()) <= 4 for p in pieces)


def test_prompt_tokens_and_last_user() -> None:
    messages = [{"role": "user", "content": "abcd" * 5}, {"role": "assistant", "content": "xyz"}]
    assert count_prompt_tokens(messages) == 6  # ceil(23 / 4)
    assert last_user_content(messages) == "abcd" * 5
    parts = [{"role": "user", "content": [{"type": "text", "text": "a"}, {"text": "b"}]}]
    assert last_user_content(parts) == "ab"


def test_go_duration() -> None:
    assert go_duration(7.66) == "7.66s"
    assert go_duration(179.56) == "2m59.56s"
    assert go_duration(0.12) == "120ms"


# ---- wire formats --------------------------------------------------------------------------


@pytest.mark.parametrize("flavour", ["groq", "cerebras", "openai"])
def test_streaming_echoes_the_last_user_message(emu: Emulator, flavour: str) -> None:
    text = "Héllo — 🎉\r\nsecond line "
    extra: dict[str, Any] = (
        {"stream_options": {"include_usage": True}} if flavour == "openai" else {}
    )
    r = httpx.post(emu.url + CHAT[flavour], json=body(text, **extra))
    assert r.status_code == 200
    assert r.headers["content-type"] == "text/event-stream"
    assert r.headers["transfer-encoding"] == "chunked"
    events = sse(r.text)
    assert events[-1] == "[DONE]"
    assert content_of(events) == text
    first = events[0]
    assert first["object"] == "chat.completion.chunk" and first["model"] == "m-1"
    assert first["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    expected_usage = {
        "prompt_tokens": count_prompt_tokens(body(text)["messages"]),
        "completion_tokens": len(tokenize(text)),
    }
    if flavour == "groq":
        final = events[-2]
        assert final["choices"][0]["finish_reason"] == "stop"
        usage = final["x_groq"]["usage"]
        assert set(usage) >= {"queue_time", "prompt_time", "completion_time", "total_time"}
    elif flavour == "cerebras":
        final = events[-2]
        assert final["choices"][0]["finish_reason"] == "stop"
        usage = final["usage"]
        assert set(final["time_info"]) >= {"queue_time", "prompt_time", "completion_time"}
    else:
        assert events[-3]["choices"][0]["finish_reason"] == "stop"
        final = events[-2]
        assert final["choices"] == []
        usage = final["usage"]
    assert {k: usage[k] for k in expected_usage} == expected_usage
    assert usage["total_tokens"] == sum(expected_usage.values())


def test_openai_usage_only_when_asked(emu: Emulator) -> None:
    events = sse(httpx.post(emu.openai_base_url + "/chat/completions", json=body("a b")).text)
    assert not any(isinstance(e, dict) and "usage" in e for e in events)
    assert content_of(events) == "a b"


def test_cerebras_separate_usage_chunk(emu: Emulator) -> None:
    emu.configure(cerebras_usage_separate=True)
    events = sse(httpx.post(emu.url + CHAT["cerebras"], json=body("a b")).text)
    assert events[-2]["choices"] == [] and "usage" in events[-2] and "time_info" in events[-2]
    assert events[-3]["choices"][0]["finish_reason"] == "stop"


def test_bare_v1_prefix_follows_v1_flavour(emu: Emulator) -> None:
    events = sse(httpx.post(emu.url + "/v1/chat/completions", json=body("x")).text)
    assert "time_info" in events[-2]  # Cerebras by default
    emu.configure(v1_flavour="openai")
    events = sse(httpx.post(emu.url + "/v1/chat/completions", json=body("x")).text)
    assert not any(isinstance(e, dict) and "time_info" in e for e in events)
    assert [r.flavour for r in emu.requests] == ["cerebras", "openai"]


@pytest.mark.parametrize("flavour", ["groq", "cerebras", "openai"])
def test_non_streaming_answer(emu: Emulator, flavour: str) -> None:
    r = httpx.post(emu.url + CHAT[flavour], json=body("Salut 🎉", stream=False))
    payload = r.json()
    assert payload["object"] == "chat.completion"
    assert payload["choices"][0]["message"] == {"role": "assistant", "content": "Salut 🎉"}
    assert payload["usage"]["completion_tokens"] == len(tokenize("Salut 🎉"))
    assert ("x_groq" in payload) == (flavour == "groq")
    assert ("time_info" in payload) == (flavour == "cerebras")


def test_answer_callable_think_and_reasoning(emu: Emulator) -> None:
    emu.configure(
        answer=lambda messages: f"{len(messages)} messages",
        think="hmm",
        reasoning="deep thought",
    )
    events = sse(httpx.post(emu.url + CHAT["groq"], json=body()).text)
    assert content_of(events) == "<think>\nhmm\n</think>\n\n3 messages"
    reasoning = "".join(
        e["choices"][0]["delta"].get("reasoning") or "" for e in events if isinstance(e, dict)
    )
    assert reasoning == "deep thought"


@pytest.mark.parametrize("flavour", ["groq", "cerebras", "openai"])
def test_models_endpoint(emu: Emulator, flavour: str) -> None:
    url = emu.url + CHAT[flavour].replace("chat/completions", "models")
    data = httpx.get(url).json()["data"]
    assert [m["id"] for m in data] == list(DEFAULT_MODELS[flavour])
    emu.configure(models={flavour: ["only-one"]})
    assert [m["id"] for m in httpx.get(url).json()["data"]] == ["only-one"]


def test_tcp_warming_and_unknown_paths(emu: Emulator) -> None:
    assert httpx.get(emu.url + "/v1/tcp_warming").status_code == 200
    assert httpx.get(emu.url + "/nope").status_code == 404
    assert httpx.get(emu.url + "/v1/embeddings").status_code == 404
    assert httpx.post(emu.url + CHAT["groq"], json={"model": "m"}).status_code == 400


@pytest.mark.parametrize("flavour", ["groq", "cerebras", "openai"])
def test_rate_limit_headers(emu: Emulator, flavour: str) -> None:
    emu.configure(rate_limits=RateLimits(limit_requests=30, remaining_requests=29))
    headers = httpx.post(emu.url + CHAT[flavour], json=body()).headers
    if flavour == "cerebras":
        assert headers["x-ratelimit-limit-requests-day"] == "30"
        assert headers["x-ratelimit-remaining-requests-day"] == "29"
        assert float(headers["x-ratelimit-reset-tokens-minute"]) == 1.5
    else:
        assert headers["x-ratelimit-limit-requests"] == "30"
        assert headers["x-ratelimit-remaining-requests"] == "29"
        assert headers["x-ratelimit-reset-requests"] == "1m26.40s"
    emu.configure(rate_limits=None)
    headers = httpx.post(emu.url + CHAT[flavour], json=body()).headers
    assert not any(k.startswith("x-ratelimit") for k in headers)


# ---- records -------------------------------------------------------------------------------


def test_records_requests_without_the_key(emu: Emulator) -> None:
    httpx.post(
        emu.url + CHAT["groq"], json=body(), headers={"Authorization": "Bearer gsk_VERYSECRET"}
    )
    httpx.get(emu.url + "/openai/v1/models?x=1")
    first, second = emu.requests
    assert first.auth is True and second.auth is False
    assert "authorization" not in first.headers
    assert "gsk_VERYSECRET" not in repr(emu.requests)
    assert first.body == body() and first.endpoint == "chat/completions"
    assert second.method == "GET" and second.query == {"x": ["1"]} and second.body is None
    assert emu.request_count == 2 and len(emu.chat_requests) == 1
    emu.reset_records()
    assert emu.request_count == 0


def test_require_key(emu: Emulator) -> None:
    emu.configure(require_key="right")
    url = emu.url + CHAT["cerebras"]
    assert httpx.post(url, json=body()).status_code == 401
    assert (
        httpx.post(url, json=body(), headers={"Authorization": "Bearer wrong"}).status_code == 401
    )
    assert (
        httpx.post(url, json=body(), headers={"Authorization": "Bearer right"}).status_code == 200
    )


def test_configure_rejects_unknown_settings(emu: Emulator) -> None:
    with pytest.raises(TypeError):
        emu.configure(tokens_per_sec=3)
    with pytest.raises(ValueError):
        Fault("explode")


# ---- faults --------------------------------------------------------------------------------


def test_faults_one_shot_counted_and_forever(emu: Emulator) -> None:
    url = emu.url + CHAT["groq"]
    emu.fail_status(500)
    assert [httpx.post(url, json=body()).status_code for _ in range(2)] == [500, 200]
    emu.fail_status(503, times=2)
    assert [httpx.post(url, json=body()).status_code for _ in range(3)] == [503, 503, 200]
    emu.fail_status(401, times=None)
    assert [httpx.post(url, json=body()).status_code for _ in range(3)] == [401, 401, 401]
    emu.clear_faults()
    assert httpx.post(url, json=body()).status_code == 200


def test_faults_target_chat_or_models(emu: Emulator) -> None:
    emu.fail_status(500)  # chat only, by default
    assert httpx.get(emu.url + "/openai/v1/models").status_code == 200
    assert httpx.post(emu.url + CHAT["groq"], json=body()).status_code == 500
    emu.fail_status(403, on="models")
    assert httpx.post(emu.url + CHAT["groq"], json=body()).status_code == 200
    assert httpx.get(emu.url + "/openai/v1/models").status_code == 403


def test_rate_limited_answer(emu: Emulator) -> None:
    emu.fail_status(429, retry_after=3, retry_after_ms=2500, retry_in="5.289s")
    r = httpx.post(emu.url + CHAT["groq"], json=body())
    assert r.status_code == 429
    assert r.headers["retry-after"] == "3" and r.headers["retry-after-ms"] == "2500"
    assert r.headers["x-ratelimit-remaining-tokens"] == "0"
    error = r.json()["error"]
    assert error["code"] == "rate_limit_exceeded" and error["type"] == "tokens"
    assert "`m-1`" in error["message"]
    assert error["message"].endswith("Please try again in 5.289s.")


@pytest.mark.parametrize("flavour", ["groq", "cerebras"])
def test_an_accounts_minute_counts_tokens_as_the_provider_does(flavour: str) -> None:
    """Groq counts an answer's completion tokens as they are generated (its own entry, at the
    answer's end: never on another request's entry); Cerebras books the prompt and the whole
    max_completion_tokens at admission. A 429 past the minute keeps its reason and counters."""
    who = "one two three four"
    with Emulator(account=Account(tokens_per_minute=100)) as server:
        first = body(who, max_completion_tokens=40)
        assert httpx.post(server.url + CHAT[flavour], json=first).status_code == 200
        prompt = count_prompt_tokens(first["messages"])
        big = body("x" * 380)  # 98 tokens: past the minute's 100 with the first
        r = httpx.post(server.url + CHAT[flavour], json=big)
    assert r.status_code == 429 and server.refused == 1
    (refusal,) = server.refusals
    assert refusal.why == "tokens per minute (TPM)" and refusal.requests == 1
    counted = [(e.tokens, e.request, e.who) for e in refusal.minute]
    if flavour == "groq":
        answer = len(tokenize(who))
        assert counted == [(prompt, True, who), (answer, False, who)]
    else:
        assert counted == [(prompt + 40, True, who)]
    assert refusal.tokens == sum(e[0] for e in counted)
    assert refusal.need == count_prompt_tokens(big["messages"]) and 59 < refusal.wait <= 60


def test_flat_and_custom_error_bodies(emu: Emulator) -> None:
    emu.fail_status(404, flat_body=True)
    flat = httpx.post(emu.url + CHAT["cerebras"], json=body()).json()
    assert flat["code"] == "model_not_found" and "error" not in flat
    emu.fail_status(404, body={"error": "model not found"})
    assert httpx.post(emu.url + CHAT["openai"], json=body()).json() == {"error": "model not found"}


@pytest.mark.parametrize("flavour", ["groq", "cerebras"])
def test_error_event_mid_stream(emu: Emulator, flavour: str) -> None:
    emu.fail_midstream(after_chunks=2, status=429, retry_in="1s")
    events = sse(httpx.post(emu.url + CHAT[flavour], json=body("a b c d")).text)
    assert content_of(events) == "a b"
    last = events[-1]
    assert last["error"]["code"] == "rate_limit_exceeded"
    assert last["error"]["message"].endswith("Please try again in 1s.")
    assert ("status_code" in last) == (flavour == "cerebras")
    assert "[DONE]" not in events


def test_malformed_event(emu: Emulator) -> None:
    emu.fail_malformed(after_chunks=1)
    r = httpx.post(emu.url + CHAT["groq"], json=body("a b c"))
    blocks = [b for b in r.text.split("\n\n") if b]
    with pytest.raises(ValueError):
        json.loads(blocks[2][len("data: ") :])
    assert blocks[-1] == "data: [DONE]"  # the rest of the answer still comes


def test_cut_connection(emu: Emulator) -> None:
    emu.fail_cut(after_chunks=1)
    with pytest.raises(httpx.RemoteProtocolError):
        httpx.post(emu.url + CHAT["groq"], json=body("a b c"))
    assert httpx.post(emu.url + CHAT["groq"], json=body("ok")).status_code == 200


def test_truncated_stream_without_done(emu: Emulator) -> None:
    emu.configure(finish_reason=None, send_done=False)
    events = sse(httpx.post(emu.url + CHAT["openai"], json=body("a b")).text)
    assert "[DONE]" not in events
    assert all(c["finish_reason"] is None for e in events for c in e["choices"])


def test_hang_until_client_leaves(emu: Emulator) -> None:
    emu.fail_hang()
    with pytest.raises(httpx.ReadTimeout):
        httpx.post(emu.url + CHAT["groq"], json=body(), timeout=httpx.Timeout(0.2, connect=2))
    assert emu.wait_for(lambda: emu.disconnects == 1, 5)


@pytest.mark.parametrize("fault", ["cut", "malformed", "hang"])
def test_non_streaming_faults(emu: Emulator, fault: str) -> None:
    emu.inject(Fault(fault, after_chunks=0))
    url = emu.url + CHAT["cerebras"]
    with pytest.raises((httpx.HTTPError, ValueError)):
        httpx.post(url, json=body(stream=False), timeout=httpx.Timeout(0.3, connect=2)).json()


# ---- timing --------------------------------------------------------------------------------


def _time_stream(emu: Emulator, text: str) -> tuple[float, float]:
    """(seconds to the first content byte, seconds to the end) of one streamed answer."""
    started = time.perf_counter()
    first = None
    with httpx.stream("POST", emu.url + CHAT["groq"], json=body(text)) as r:
        for line in r.iter_lines():
            if first is None and '"content": "' in line and '"content": ""' not in line:
                first = time.perf_counter() - started
    assert first is not None
    return first, time.perf_counter() - started


def _content_pieces(emu: Emulator, text: str) -> int:
    """How many content events the emulator streams for ``text``."""
    with httpx.stream("POST", emu.url + CHAT["groq"], json=body(text)) as r:
        lines = list(r.iter_lines())
    return sum('"content": "' in line and '"content": ""' not in line for line in lines)


# The pacing is read from what the emulator was told to wait (Emulator.pauses), not from a
# stopwatch's upper bound; the lower bounds below hold on any machine (a wait never ends early).


def test_time_to_first_token_is_honoured(emu: Emulator) -> None:
    emu.configure(ttfb=0.3)
    first, _ = _time_stream(emu, "a b")
    assert emu.pauses == [0.3]  # one wait, before the first token, and nothing else slows it
    assert first >= 0.25


def test_tokens_per_second_is_honoured(emu: Emulator) -> None:
    text = " ".join(["word"] * 21)  # 21 tokens: 20 gaps of 20 ms
    pieces = _content_pieces(emu, text)
    assert pieces == 21 and emu.pauses == []
    emu.configure(tokens_per_second=50)
    first, total = _time_stream(emu, text)
    assert emu.pauses == [pytest.approx(0.02)] * (pieces - 1)  # a gap between tokens, no more
    assert total - first >= 0.3


def test_default_is_fast(emu: Emulator) -> None:
    """By default the emulator never waits: no time to first token, no gap between tokens."""
    assert _content_pieces(emu, "word " * 100) >= 100
    assert emu.pauses == []


def test_streams_are_served_concurrently(emu: Emulator) -> None:
    """Four streams each held open after their first token (a gate the test holds): all four
    reach their first token while the gate is closed, so none waited for another to end."""
    gate = threading.Event()
    emu.configure(hold_after_first=gate)
    firsts = threading.Semaphore(0)
    ended: list[bool] = []

    def one() -> None:
        with httpx.stream("POST", emu.url + CHAT["groq"], json=body("x y z")) as r:
            seen = False
            for line in r.iter_lines():
                if not seen and '"content": "' in line and '"content": ""' not in line:
                    seen = True
                    firsts.release()
        ended.append(seen)

    threads = [threading.Thread(target=one) for _ in range(4)]
    for t in threads:
        t.start()
    try:
        # (a hang guard only: each first token comes at once when the streams are concurrent)
        assert all(firsts.acquire(timeout=30) for _ in threads)
        assert not ended  # every stream is still held open at the gate
    finally:
        gate.set()
    for t in threads:
        t.join()
    assert ended == [True] * 4


# ---- disconnects and shutdown --------------------------------------------------------------


def _open_stream(emu: Emulator) -> socket.socket:
    payload = json.dumps(body("word " * 500)).encode()
    sock = socket.create_connection(("127.0.0.1", emu.port))
    sock.sendall(
        b"POST /openai/v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
        b"Content-Type: application/json\r\nContent-Length: "
        + str(len(payload)).encode()
        + b"\r\n\r\n"
        + payload
    )
    assert sock.recv(4096).startswith(b"HTTP/1.1 200")
    return sock


def test_client_leaving_mid_stream_is_noticed(emu: Emulator) -> None:
    emu.configure(tokens_per_second=10)
    sock = _open_stream(emu)
    assert emu.disconnects == 0
    sock.close()
    assert emu.wait_for(lambda: emu.disconnects == 1, 5)


def test_stop_does_not_wait_for_hanging_or_idle_connections() -> None:
    emu = Emulator(tokens_per_second=1).start()
    slow = _open_stream(emu)
    emu.fail_hang(times=None)
    hanging = socket.create_connection(("127.0.0.1", emu.port))
    hanging.sendall(b"POST /openai/v1/chat/completions HTTP/1.1\r\nHost: x\r\n")
    hanging.sendall(b"Content-Length: 2\r\n\r\n{}")
    idle = socket.create_connection(("127.0.0.1", emu.port))  # keep-alive, no request
    assert emu.wait_for(lambda: emu.connections == 3, 5)
    emu.stop()
    # Woken, not waited for: every handler thread has ended (a handler stop had to wait for
    # would still be registered when its join gave up) and every connection is closed.
    assert not [t for t in threading.enumerate() if t.name.startswith("emulator:")]
    assert not emu._threads
    for sock in (hanging, slow, idle):
        sock.settimeout(30)  # a hang guard only: the server has already closed its end
        while sock.recv(65536):  # what the slow stream had sent, then the end
            pass
        sock.close()
    with pytest.raises(RuntimeError):
        emu.start()


def test_start_serves_at_once() -> None:
    """start() returns with the socket listening and serving: no readiness wait, no retry."""
    with Emulator() as emu:
        assert emu.port > 0
        assert httpx.get(emu.url + "/openai/v1/models", timeout=30).status_code == 200
