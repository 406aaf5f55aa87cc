"""A loopback stand-in for Groq, Cerebras and OpenAI-compatible servers (stdlib only).

Why: every test that talks to a "provider" must run offline, fast and deterministically, yet go
through the real SDKs and a real socket so that streaming, keep-alive, cancellation and error
mapping are exercised the way production sees them.

One server speaks three dialects, chosen by the path prefix:

============================  ===================================================================
``/openai/v1/...``            Groq (``groq`` SDK with the bare host as ``base_url``)
``/v1/...``                   ``v1_flavour`` (default Cerebras: the ``cerebras`` SDK, bare host)
``/cerebras/v1/...``          Cerebras, always
``/compat/v1/...``            a plain OpenAI-compatible server (Ollama, llama.cpp, vLLM …)
============================  ===================================================================

By default a chat request is answered with the content of its LAST user message (same-language
echo), split into ≈4-character tokens. Faults (HTTP status, error event mid-stream, cut
connection, malformed event, silent hang) can be armed for the next N requests. Every request
is recorded (headers without the ``Authorization`` value) for assertions.

Usage::

    with Emulator(tokens_per_second=200) as emu:
        provider = GroqProvider("k", base_url=emu.groq_base_url)
        emu.fail_status(429, retry_after=3)
        ...
        assert emu.chat_requests[-1].body["model"] == "llama-3.1-8b-instant"
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import select
import socket
import struct
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.batch_emulator import BatchDesk

FLAVOURS = ("groq", "cerebras", "openai")
FAULT_KINDS = (
    "status",
    "midstream_error",
    "cut",
    "malformed",
    "hang",
    "drip",
    "endless",
    "giant_chunk",
    "bad_utf8",
)

_PREFIXES = (
    ("/openai/v1/", "groq"),
    ("/cerebras/v1/", "cerebras"),
    ("/compat/v1/", "openai"),
    ("/v1/", None),  # the configured v1_flavour
)

# what the providers' /models listed when read (2026): the retired Llama 3.1 8B, Llama 4 Scout
# and Qwen3 32B are gone (a test that needs one names it in ``models``)
DEFAULT_MODELS: dict[str, tuple[str, ...]] = {
    "groq": ("openai/gpt-oss-20b", "openai/gpt-oss-120b", "qwen/qwen3.6-27b"),
    "cerebras": ("gpt-oss-120b", "gemma-4-31b"),
    "openai": ("local-model",),
}
# the catalogue the founding tests were written against (retired during 2026): for set-ups of
# tests about listing and pricing that name those models (``Emulator(models=FOUNDING_MODELS)``)
FOUNDING_MODELS: dict[str, tuple[str, ...]] = {
    "groq": (
        "llama-3.1-8b-instant",
        "qwen/qwen3-32b",
        "openai/gpt-oss-20b",
        "meta-llama/llama-4-scout-17b-16e-instruct",
    ),
    "cerebras": ("gpt-oss-120b", "qwen-3-32b", "llama3.1-8b"),
    "openai": ("local-model",),
}

Answer = Callable[[Sequence[Mapping[str, Any]]], str]


# ---- configuration -------------------------------------------------------------------------


@dataclass(frozen=True)
class RateLimits:
    """Values sent in the rate-limit headers (Groq/OpenAI names, or Cerebras' day/minute names)."""

    limit_requests: int = 1000
    remaining_requests: int = 999
    reset_requests_s: float = 86.4
    limit_tokens: int = 60000
    remaining_tokens: int = 59000
    reset_tokens_s: float = 1.5


@dataclass(frozen=True)
class Account:
    """An account's limits as the provider enforces them, its headers stating them live.

    Groq's headers state requests per day and tokens per minute, never requests per minute
    (console.groq.com/docs/rate-limits); past ``requests_per_minute`` a 429 comes without
    warning. A minute counts a request from when the server admitted it (after the client sent
    it). Tokens per minute count each request's prompt plus its completion: Cerebras books the
    whole ``max_completion_tokens`` at admission (inference-docs.cerebras.ai), Groq counts the
    completion as it is generated (its docs count input and output tokens per minute apart),
    here at the answer's end, the latest moment, as the answer's own entry. Past a limit: 429
    with ``retry-after`` (the seconds until room); each one is kept in ``refusals``."""

    requests_per_minute: int | None = None
    requests_per_day: int | None = None
    tokens_per_minute: int | None = None


class PromptCache:
    """A provider's prompt cache: a prompt's cached tokens are its longest prefix (its
    messages in order, roles included) that an earlier prompt began with, in whole
    ``block``-token pieces (Cerebras caches 128-token blocks; Groq and OpenAI, the whole
    prefix), at ≈ four characters a token."""

    def __init__(self, block: int = 1) -> None:
        self.block = max(1, block)
        self._seen: list[str] = []
        self._lock = threading.Lock()
        self.total = 0  # cached tokens over every prompt so far

    @staticmethod
    def text(messages: Sequence[Mapping[str, Any]]) -> str:
        return "".join(
            f"\x00{m.get('role')}\x00{_content_text(m.get('content'))}"
            for m in messages
            if isinstance(m, Mapping)
        )

    def cached(self, messages: Sequence[Mapping[str, Any]]) -> int:
        """This prompt's cached tokens; the prompt is remembered for the next ones."""
        text = self.text(messages)
        with self._lock:
            best = max((_common_prefix(text, seen) for seen in self._seen), default=0)
            self._seen.append(text)
        tokens = best // 4
        cached = tokens - tokens % self.block
        with self._lock:
            self.total += cached
        return cached


def _common_prefix(a: str, b: str) -> int:
    low, high = 0, min(len(a), len(b))
    while low < high:  # the longest n with a[:n] == b[:n]
        mid = (low + high + 1) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid - 1
    return low


@dataclass(frozen=True)
class Config:
    """How the server behaves; replace it at any time with :meth:`Emulator.configure`."""

    ttfb: float = 0.0  # seconds between the response headers and the first token
    tokens_per_second: float | None = None  # None: as fast as the socket goes
    answer: Answer | None = None  # None: echo the last user message
    think: str | None = None  # when set, the answer starts with <think>this</think>
    reasoning: str | None = None  # when set, streamed first in delta.reasoning (gpt-oss style)
    chunk_chars: int = 4  # ≈ characters per token
    rate_limits: RateLimits | None = field(default_factory=RateLimits)
    models: Mapping[str, Sequence[str]] | None = None  # per flavour; None: DEFAULT_MODELS
    require_key: str | None = None  # when set, any other bearer gets a 401
    v1_flavour: str = "cerebras"  # dialect of the bare /v1/ prefix
    cerebras_usage_separate: bool = False  # Cerebras: usage in an extra chunk with choices: []
    split_writes: bool = False  # send every event in two writes, cut inside a UTF-8 character
    # when set, the server waits (10 s at most) after the first content chunk until the test sets
    # it: the client has surely read that chunk alone, whatever the machine's load
    hold_after_first: threading.Event | None = None
    # when set, every request is recorded, then waits for the test to set it before anything is
    # answered: a gate, so "the caller did not wait" needs no stopwatch (60 s at most, so a
    # caller that does wait fails its test instead of hanging it)
    hold_before_answer: threading.Event | None = None
    finish_reason: str | None = "stop"  # None: the final chunk says nothing (a truncated answer)
    send_done: bool = True  # end with data: [DONE]
    # a provider's requests/minute limit: past it, chat requests get a 429 with retry-after
    # (Groq: no header warns before); ``limit_window_s`` shortens the minute for benchmarks
    limit_rpm: int | None = None
    limit_window_s: float = 60.0
    fail_every: int | None = None  # every Nth chat request answers 503 (a flaky provider)
    # prompt tokens reported as served from the prompt cache (usage.prompt_tokens_details, as
    # Groq and OpenAI send it); None: Groq and OpenAI send no details, Cerebras says 0
    cached_tokens: int | None = None
    # when set, the cached tokens are those of the longest prefix this prompt shares with an
    # earlier one (as Groq, Cerebras and OpenAI cache prompts), instead of ``cached_tokens``
    prompt_cache: PromptCache | None = None
    account: Account | None = None  # live limits and headers (replaces ``rate_limits``' values)
    # model ids the provider has shut down: Groq answers 400 model_decommissioned, Cerebras 404
    # model_not_found (flat body), per flavour
    retired: Mapping[str, Sequence[str]] | None = None
    cut_at_max_tokens: bool = False  # stop at max_completion_tokens with finish_reason "length"
    # the clock the account's minutes, days and retry-afters are counted on (monotonic() and
    # wall(), as fastdesk.clock's); None: the real one. A faster one (tests/fast_time.py)
    # makes a minute a few real seconds, for clients on the same clock
    clock: Any = None
    # a server that does not stream structured outputs (for the model asked): a streamed request
    # with a ``response_format`` json_schema gets a 400 naming it
    refuse_schema: bool = False


@dataclass(frozen=True)
class Fault:
    """One way to fail. ``after_chunks`` counts content chunks sent before a mid-stream fault.

    kinds: ``status`` (an HTTP error answer), ``midstream_error`` (an ``{"error": …}`` event after
    some chunks), ``cut`` (the connection is closed mid-body), ``malformed`` (an event that is not
    JSON), ``hang`` (silence until the client leaves or the server stops; ``after_chunks=None``
    hangs before the response headers), ``drip`` (one more token every ``interval`` seconds,
    for ever), ``endless`` (tokens as fast as the socket takes them, for ever), ``giant_chunk``
    (a chunk header of 4 GiB, then a ``data:`` line that never ends), ``bad_utf8`` (an event
    with bytes that are not UTF-8).
    """

    kind: str
    status: int = 500
    message: str | None = None
    error_type: str | None = None
    code: str | None = None
    retry_after: float | None = None  # `retry-after` header, seconds
    retry_after_ms: float | None = None  # `retry-after-ms` header
    retry_in: str | None = None  # "Please try again in <retry_in>." in the message
    flat_body: bool = False  # Cerebras' flat error body instead of {"error": {...}}
    after_chunks: int | None = 2
    reset: bool = False  # cut: send a TCP reset instead of a clean FIN
    body: Any = None  # status / midstream_error: send exactly this JSON instead
    on: str = "chat"  # which requests it hits: "chat", "models" or "any"
    interval: float = 0.2  # drip: seconds between tokens

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {self.kind!r}")
        if self.on not in ("chat", "models", "any"):
            raise ValueError(f"unknown fault target {self.on!r}")


@dataclass(frozen=True)
class Counted:
    """One entry of an account's minute: a request admitted (its prompt, and on Cerebras its
    whole completion budget) or, on Groq, an answer's completion tokens as they were generated."""

    at: float  # monotonic
    tokens: float
    wall: float
    who: str  # the start of the request's last user message
    request: bool


@dataclass(frozen=True)
class Refusal:
    """One 429 the account sent: which limit, the minute's counters at that moment (before
    this request), what it asked for, the wait it was told, and the minute's entries."""

    at: float  # wall time
    why: str  # "requests per minute (RPM)", "requests per day (RPD)", "tokens per minute (TPM)"
    requests: int  # admitted in the last 60 s
    tokens: float  # counted in the last 60 s
    need: int  # what this request would add at admission
    wait: float  # the retry-after it was told (seconds, before rounding up)
    asked_by: str
    minute: tuple[Counted, ...] = ()


@dataclass(frozen=True)
class RecordedRequest:
    """What the server saw. ``headers`` are lower-cased and never hold the Authorization value."""

    method: str
    path: str
    query: dict[str, list[str]]
    flavour: str | None
    headers: dict[str, str]
    auth: bool
    body: Any

    @property
    def endpoint(self) -> str:
        """``chat/completions``, ``models``, ``tcp_warming`` … (the path after the prefix)."""
        for prefix, _ in _PREFIXES:
            if self.path.startswith(prefix):
                return self.path[len(prefix) :]
        return self.path


# ---- helpers -------------------------------------------------------------------------------


def tokenize(text: str, chunk_chars: int = 4) -> list[str]:
    """Split ``text`` into small pieces whose concatenation is exactly ``text``."""
    n = max(1, chunk_chars)
    return re.findall(rf"\s*\S{{1,{n}}}|\s+", text)


def count_prompt_tokens(messages: Sequence[Mapping[str, Any]]) -> int:
    """≈ one token per four characters of every message's content."""
    chars = sum(len(_content_text(m.get("content"))) for m in messages if isinstance(m, Mapping))
    return max(1, math.ceil(chars / 4))


def last_user_content(messages: Sequence[Mapping[str, Any]]) -> str:
    for message in reversed(messages):
        if isinstance(message, Mapping) and message.get("role") == "user":
            return _content_text(message.get("content"))
    return ""


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # OpenAI "parts"
        return "".join(p.get("text", "") for p in content if isinstance(p, Mapping))
    return ""


def go_duration(seconds: float) -> str:
    """Groq's reset format: ``7.66s``, ``2m59.56s``, ``120ms``."""
    if seconds < 1:
        return f"{round(seconds * 1000)}ms"
    minutes, rest = divmod(seconds, 60)
    if minutes:
        return f"{int(minutes)}m{rest:.2f}s"
    return f"{rest:.2f}s"


def _number(value: float) -> str:
    return f"{value:g}"


class _Disconnected(Exception):
    """The client went away (or the server is stopping): stop writing."""


# ---- the server ----------------------------------------------------------------------------


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 128
    allow_reuse_address = True

    def __init__(self, emulator: Emulator) -> None:
        self.emulator = emulator
        super().__init__(("127.0.0.1", 0), _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Quiet: clients that leave mid-answer are a feature under test, not a failure."""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server
    timeout = 60  # a forgotten keep-alive connection must not pin a thread for ever

    def setup(self) -> None:
        super().setup()
        # Small writes (one SSE event each) must not wait for Nagle + delayed ACK (~40 ms).
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.emulator._register(self)

    def finish(self) -> None:
        try:
            super().finish()
        except OSError:
            pass
        finally:
            self.server.emulator._unregister(self)

    def log_message(self, format: str, *args: Any) -> None:
        """Silent: tests read :attr:`Emulator.requests` instead."""

    def do_GET(self) -> None:
        self.server.emulator._handle(self)

    def do_POST(self) -> None:
        self.server.emulator._handle(self)


class _Exchange:
    """One response being written; knows how to pause and notice a departed client."""

    def __init__(self, emulator: Emulator, handler: _Handler) -> None:
        self.emu = emulator
        self.h = handler
        self.sock: socket.socket = handler.connection
        self.chunked = False

    # -- writing --------------------------------------------------------------------------

    def start(self, status: int, headers: Mapping[str, str], *, chunked: bool) -> None:
        self.chunked = chunked
        self.h.send_response(status)
        for name, value in headers.items():
            self.h.send_header(name, value)
        if chunked:
            self.h.send_header("Transfer-Encoding", "chunked")
        self.h.end_headers()
        self._flush()

    def write(self, data: bytes) -> None:
        if self.emu._stopping.is_set():
            raise _Disconnected
        try:
            if self.chunked:
                data = f"{len(data):x}\r\n".encode() + data + b"\r\n"
            self.h.wfile.write(data)
            self._flush()
        except OSError as exc:
            self.emu._note_disconnect()
            raise _Disconnected from exc

    def event(self, payload: Any, *, split: bool = False) -> None:
        """One SSE ``data:`` event (JSON unless ``payload`` is already a string)."""
        text = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
        data = f"data: {text}\n\n".encode()
        if split and len(data) > 2:
            cut = _utf8_inner_cut(data)
            self.write(data[:cut])
            self.write(data[cut:])
        else:
            self.write(data)

    def end(self) -> None:
        if self.chunked:
            try:
                self.h.wfile.write(b"0\r\n\r\n")
                self._flush()
            except OSError as exc:
                raise _Disconnected from exc

    def _flush(self) -> None:
        self.h.wfile.flush()

    # -- faults -----------------------------------------------------------------------------

    def cut(self, *, reset: bool) -> None:
        """Close the connection in the middle of the body."""
        self.h.close_connection = True
        with contextlib.suppress(OSError):
            self.h.wfile.flush()
            if reset:
                self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.sock.close()
            else:
                self.sock.shutdown(socket.SHUT_RDWR)

    def hang(self) -> None:
        """Say nothing until the client leaves or the server stops."""
        self.h.close_connection = True
        self.pause(None)

    # -- waiting ----------------------------------------------------------------------------

    def pause(self, seconds: float | None) -> None:
        """Wait ``seconds`` (None: for ever); raise :class:`_Disconnected` if the client leaves."""
        if seconds is not None and seconds <= 0:
            return
        if seconds is not None:
            with self.emu._lock:
                self.emu._pauses.append(seconds)
        deadline = None if seconds is None else time.monotonic() + seconds
        wake = self.emu._wake_r
        while True:
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                return
            try:
                readable, _, _ = select.select([self.sock, wake], [], [], remaining)
            except (OSError, ValueError) as exc:
                raise _Disconnected from exc
            if wake in readable:
                raise _Disconnected
            if self.sock in readable:
                if self._peer_closed():
                    self.emu._note_disconnect()
                    raise _Disconnected
                # The client sent bytes mid-answer (unusual): just sleep the rest out.
                self.emu._stopping.wait(remaining if remaining is not None else 0.05)
                if self.emu._stopping.is_set():
                    raise _Disconnected

    def _peer_closed(self) -> bool:
        try:
            return self.sock.recv(1, socket.MSG_PEEK) == b""
        except BlockingIOError:
            return False
        except OSError:
            return True


def _utf8_inner_cut(data: bytes) -> int:
    """An offset inside a multi-byte UTF-8 character when there is one, else the middle."""
    for i, byte in enumerate(data):
        if byte >= 0xC0 and i + 1 < len(data):
            return i + 1
    return len(data) // 2


class Emulator:
    """A provider emulator on 127.0.0.1 (random port), serving from daemon threads.

    Thread-safe: :meth:`configure` and the fault methods may be called while it serves.
    """

    def __init__(self, **config: Any) -> None:
        self._config = Config(**config)
        self._lock = threading.Condition()
        self._faults: list[list[Any]] = []  # [Fault, remaining times or None]
        self._requests: list[RecordedRequest] = []
        self._connections = 0
        self._disconnects = 0
        self._answered = 0
        self._pauses: list[float] = []  # every wait the answers were told to make, in order
        self._accepted: list[float] = []  # monotonic times of chat requests within limit_rpm
        self._refused = 0
        self._spent: list[Counted] = []  # what the account's minute counts
        self.refusals: list[Refusal] = []  # every 429 the account sent, with its reason
        self._day: list[float] = []  # times of the account's requests of the last day
        self.booked_completion = 0  # max_completion_tokens asked, over answered requests
        self.used_completion = 0  # completion tokens answered
        self.booked_total = 0  # what the account's minute counted (see Account)
        self._handlers: set[_Handler] = set()
        self._threads: set[threading.Thread] = set()
        self._stopping = threading.Event()
        self._wake_r, self._wake_w = socket.socketpair()  # written once on stop: wakes all waits
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self.batches = BatchDesk(self)  # Groq's files and batches (tests/batch_emulator.py)

    # -- life cycle -------------------------------------------------------------------------

    def start(self) -> Emulator:
        if self._server is not None:
            return self
        if self._stopping.is_set():
            raise RuntimeError("an emulator cannot be restarted; make a new one")
        self._server = _Server(self)
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.01},  # stop() waits up to one interval
            name=f"emulator:{self.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, wake every waiting handler, close every connection, join threads."""
        if self._server is None:
            return
        self._stopping.set()
        with contextlib.suppress(OSError):
            self._wake_w.send(b"x")
        self._server.shutdown()
        with self._lock:
            handlers = list(self._handlers)
            threads = list(self._threads)
        for handler in handlers:
            with contextlib.suppress(OSError):
                handler.connection.shutdown(socket.SHUT_RDWR)
        for thread in threads:
            thread.join(timeout=5)
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None
        self._wake_r.close()
        self._wake_w.close()

    def __enter__(self) -> Emulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- addresses --------------------------------------------------------------------------

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("emulator not started")
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def groq_base_url(self) -> str:
        """Bare host, as the groq SDK takes it (it adds /openai/v1)."""
        return self.url

    @property
    def cerebras_base_url(self) -> str:
        """Always Cerebras, whatever ``v1_flavour`` says (the SDK adds /v1)."""
        return f"{self.url}/cerebras"

    @property
    def openai_base_url(self) -> str:
        """An OpenAI-compatible base URL, ending in /v1."""
        return f"{self.url}/compat/v1"

    # -- configuration ----------------------------------------------------------------------

    @property
    def config(self) -> Config:
        with self._lock:
            return self._config

    def configure(self, **changes: Any) -> None:
        """Change behaviour for the requests that start from now on."""
        known = {f.name for f in fields(Config)}
        unknown = set(changes) - known
        if unknown:
            raise TypeError(f"unknown emulator settings: {sorted(unknown)}")
        with self._lock:
            self._config = replace(self._config, **changes)

    def inject(self, fault: Fault, times: int | None = 1) -> None:
        """Arm ``fault`` for the next ``times`` matching requests (None: until cleared)."""
        with self._lock:
            self._faults.append([fault, times])

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()

    def fail_status(self, status: int, times: int | None = 1, **kw: Any) -> None:
        self.inject(Fault("status", status=status, **kw), times)

    def fail_midstream(self, after_chunks: int = 2, times: int | None = 1, **kw: Any) -> None:
        self.inject(Fault("midstream_error", after_chunks=after_chunks, **kw), times)

    def fail_cut(self, after_chunks: int = 2, times: int | None = 1, **kw: Any) -> None:
        self.inject(Fault("cut", after_chunks=after_chunks, **kw), times)

    def fail_malformed(self, after_chunks: int = 2, times: int | None = 1, **kw: Any) -> None:
        self.inject(Fault("malformed", after_chunks=after_chunks, **kw), times)

    def fail_hang(self, after_chunks: int | None = None, times: int | None = 1, **kw: Any) -> None:
        self.inject(Fault("hang", after_chunks=after_chunks, **kw), times)

    # -- observation ------------------------------------------------------------------------

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.endpoint == "chat/completions"]

    @property
    def request_count(self) -> int:
        with self._lock:
            return len(self._requests)

    @property
    def connections(self) -> int:
        """TCP connections accepted so far (keep-alive reuse keeps this low)."""
        with self._lock:
            return self._connections

    @property
    def refused(self) -> int:
        """Chat requests answered 429 because they were over ``limit_rpm``."""
        with self._lock:
            return self._refused

    @property
    def disconnects(self) -> int:
        """Clients seen leaving in the middle of an answer."""
        with self._lock:
            return self._disconnects

    @property
    def answered(self) -> int:
        """Streamed chat answers sent to their end (what a client was billed for)."""
        with self._lock:
            return self._answered

    @property
    def open_connections(self) -> int:
        """Connections being served now (a killed client's are over once each stream has ended
        or been cut)."""
        with self._lock:
            return len(self._handlers)

    @property
    def pauses(self) -> list[float]:
        """Every timed wait the answers made (time to first token, gaps between tokens), in
        seconds, in order: what the pacing was told to do, read without a stopwatch."""
        with self._lock:
            return list(self._pauses)

    def wait_for(self, predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
        """Block until ``predicate()`` holds (re-checked on every request and disconnect)."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while not predicate():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._lock.wait(min(remaining, 0.1))
        return True

    def reset_records(self) -> None:
        with self._lock:
            self._requests.clear()
            self._pauses.clear()
            self._disconnects = 0
            self._refused = 0

    # -- internals: bookkeeping -------------------------------------------------------------

    def _register(self, handler: _Handler) -> None:
        with self._lock:
            self._handlers.add(handler)
            self._threads.add(threading.current_thread())
            self._connections += 1
            self._lock.notify_all()

    def _unregister(self, handler: _Handler) -> None:
        with self._lock:
            self._handlers.discard(handler)
            self._threads.discard(threading.current_thread())
            self._lock.notify_all()

    def _note_answered(self) -> None:
        with self._lock:
            self._answered += 1
            self._lock.notify_all()

    def _note_disconnect(self) -> None:
        with self._lock:
            self._disconnects += 1
            self._lock.notify_all()

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)
            self._lock.notify_all()

    def _take_fault(self, endpoint: str) -> Fault | None:
        target = "chat" if endpoint == "chat/completions" else "models"
        with self._lock:
            for entry in self._faults:
                fault, remaining = entry
                if fault.on not in (target, "any"):
                    continue
                if remaining is not None:
                    entry[1] -= 1
                    if entry[1] <= 0:
                        self._faults.remove(entry)
                return fault
        return None

    # -- internals: request handling --------------------------------------------------------

    def _handle(self, h: _Handler) -> None:
        cfg = self.config
        split = urlsplit(h.path)
        flavour, endpoint = _route(split.path, cfg.v1_flavour)
        body = self._read_body(h)
        auth_value = h.headers.get("Authorization")
        headers = {k.lower(): v for k, v in h.headers.items() if k.lower() != "authorization"}
        self._record(
            RecordedRequest(
                method=h.command,
                path=split.path,
                query=parse_qs(split.query),
                flavour=flavour,
                headers=headers,
                auth=bool(auth_value),
                body=body,
            )
        )
        ex = _Exchange(self, h)
        gate, held_until = cfg.hold_before_answer, time.monotonic() + 60
        while gate is not None and not gate.wait(0.05) and time.monotonic() < held_until:
            if self._stopping.is_set():
                h.close_connection = True
                return
        try:
            self._dispatch(ex, cfg, flavour, endpoint, body, auth_value)
        except _Disconnected:
            h.close_connection = True

    def _over_limit(self, cfg: Config) -> float | None:
        """Seconds until a slot frees when this chat request is over ``limit_rpm`` (else None:
        it is counted)."""
        if cfg.limit_rpm is None:
            return None
        now = time.monotonic()
        with self._lock:
            self._accepted = [t for t in self._accepted if t > now - cfg.limit_window_s]
            if len(self._accepted) >= cfg.limit_rpm:
                self._refused += 1
                return self._accepted[0] + cfg.limit_window_s - now
            self._accepted.append(now)
        return None

    def _account_now(self) -> tuple[float, float]:
        """(monotonic, wall) on the account's clock (``Config.clock``)."""
        clock = self.config.clock
        if clock is None:
            return time.monotonic(), time.time()
        return clock.monotonic(), clock.wall()

    def _account_refuses(
        self, account: Account, flavour: str, body: Mapping[str, Any]
    ) -> tuple[str, float] | None:
        """(which limit, seconds until room) when this request is over one; else it is counted
        (a request, and its tokens as :class:`Account` says), and every 429 is kept in
        ``refusals`` with its reason and the minute's counters."""
        now, wall = self._account_now()
        prompt = count_prompt_tokens(body.get("messages") or [])
        asked = body.get("max_completion_tokens") or body.get("max_tokens") or 0
        need = prompt + (int(asked) if flavour == "cerebras" else 0)
        who = last_user_content(body.get("messages") or [])[:40]
        with self._lock:
            self._spent = [e for e in self._spent if e.at > now - 60.0]
            self._day = [t for t in self._day if t > now - 86400.0]
            rpm, rpd, tpm = (
                account.requests_per_minute,
                account.requests_per_day,
                account.tokens_per_minute,
            )
            admitted = [e.at for e in self._spent if e.request]
            tokens = sum(e.tokens for e in self._spent)
            refused: tuple[str, float] | None = None
            if rpm is not None and len(admitted) >= rpm:
                refused = ("requests per minute (RPM)", admitted[-rpm] + 60.0 - now)
            elif rpd is not None and len(self._day) >= rpd:
                refused = ("requests per day (RPD)", self._day[-rpd] + 86400.0 - now)
            elif tpm is not None and self._spent and tokens + need > tpm:
                left = tokens + min(need, tpm) - tpm
                at = self._spent[0].at
                for entry in self._spent:
                    left -= entry.tokens
                    at = entry.at
                    if left <= 0:
                        break
                refused = ("tokens per minute (TPM)", at + 60.0 - now)
            if refused is not None:
                self._refused += 1
                self.refusals.append(
                    Refusal(
                        wall,
                        refused[0],
                        len(admitted),
                        tokens,
                        need,
                        refused[1],
                        who,
                        tuple(self._spent),
                    )
                )
                return refused
            self._spent.append(Counted(now, float(need), wall, who, request=True))
            self._day.append(now)
            self.booked_total += need
        return None

    def _account_used(self, flavour: str, completion: int, asked: int, who: str) -> None:
        """An answer ended. Groq counts completion tokens as they are generated: they enter the
        minute now, at the answer's end (the last of them was generated now), not at the
        request's admission. Cerebras booked the whole budget at admission."""
        with self._lock:
            self.used_completion += completion
            self.booked_completion += asked
            if flavour != "cerebras":
                now, wall = self._account_now()
                self._spent.append(Counted(now, float(completion), wall, who, request=False))
                self.booked_total += completion

    def account_headers(self, flavour: str, account: Account) -> dict[str, str]:
        """The live rate-limit headers of ``account`` (what is left now, and when it resets)."""
        now, _wall = self._account_now()
        with self._lock:
            spent = sum(e.tokens for e in self._spent if e.at > now - 60.0)
            oldest = min((e.at for e in self._spent if e.at > now - 60.0), default=now)
            day = [t for t in self._day if t > now - 86400.0]
        limits = RateLimits(
            limit_requests=account.requests_per_day or 10**9,
            remaining_requests=max(0, (account.requests_per_day or 10**9) - len(day)),
            reset_requests_s=round(86400.0 / (account.requests_per_day or 10**9), 3),
            limit_tokens=account.tokens_per_minute or 10**9,
            remaining_tokens=max(0, int((account.tokens_per_minute or 10**9) - spent)),
            reset_tokens_s=round(max(0.0, oldest + 60.0 - now), 3),
        )
        return _rate_limit_headers(flavour, limits)

    def _flaky(self, cfg: Config) -> bool:
        """Whether this chat request is the Nth of ``fail_every``."""
        if not cfg.fail_every:
            return False
        with self._lock:
            self._chats = getattr(self, "_chats", 0) + 1
            return self._chats % cfg.fail_every == 0

    def _read_body(self, h: _Handler) -> Any:
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length) if length else b""
        if (h.headers.get("Content-Type") or "").startswith("multipart/"):
            return raw  # a file upload: BatchDesk parses it
        if not raw:
            return None
        try:
            return json.loads(raw)
        except ValueError:
            return raw.decode("utf-8", "replace")

    def _dispatch(
        self,
        ex: _Exchange,
        cfg: Config,
        flavour: str | None,
        endpoint: str,
        body: Any,
        auth_value: str | None,
    ) -> None:
        if flavour is None:
            return _send_json(ex, 404, {"error": {"message": "Unknown path", "type": "not_found"}})
        if endpoint == "tcp_warming":
            return _send_json(ex, 200, {})
        if cfg.require_key is not None and auth_value != f"Bearer {cfg.require_key}":
            return _send_error(ex, flavour, Fault("status", status=401), cfg, model=None)
        if flavour == "groq" and endpoint.split("/")[0] in ("files", "batches"):
            content_type = ex.h.headers.get("Content-Type") or ""
            return self.batches.handle(ex, ex.h.command, endpoint, body, content_type)
        if endpoint not in ("chat/completions", "models"):
            return _send_json(ex, 404, {"error": {"message": "Unknown path", "type": "not_found"}})
        model = body.get("model") if isinstance(body, dict) else None
        if endpoint == "chat/completions" and model in ((cfg.retired or {}).get(flavour) or ()):
            return _send_retired(ex, flavour, cfg, str(model))
        if endpoint == "chat/completions" and cfg.account is not None and isinstance(body, dict):
            refused = self._account_refuses(cfg.account, flavour, body)
            if refused is not None:
                why, refused_for = refused
                limited = Fault(
                    "status",
                    status=429,
                    message=f"Rate limit reached for model `{model}` on {why}.",
                    retry_after=math.ceil(refused_for),
                    retry_in=f"{refused_for:.3f}s",
                )
                return _send_error(ex, flavour, limited, cfg, model=model)
        wait = self._over_limit(cfg) if endpoint == "chat/completions" else None
        if wait is not None:
            message = (
                f"Rate limit reached for model `{model}` on requests per minute (RPM): "
                f"Limit {cfg.limit_rpm}, Used {cfg.limit_rpm}, Requested 1."
            )
            limited = Fault(
                "status",
                status=429,
                message=message,
                retry_after=math.ceil(wait),
                retry_in=f"{wait:.3f}s",
            )
            return _send_error(ex, flavour, limited, cfg, model=model)
        fault = self._take_fault(endpoint)
        if fault is None and endpoint == "chat/completions" and self._flaky(cfg):
            fault = Fault("status", status=503)
        if fault is not None and fault.kind == "status":
            return _send_error(ex, flavour, fault, cfg, model=model)
        if fault is not None and fault.kind == "hang" and fault.after_chunks is None:
            return ex.hang()
        if endpoint == "models":
            return _send_models(ex, flavour, cfg)
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            bad = Fault("status", status=400, message="messages must be a list")
            return _send_error(ex, flavour, bad, cfg, model=model)
        form = body.get("response_format")
        if cfg.refuse_schema and body.get("stream") and isinstance(form, dict):
            message = f"response_format json_schema is not supported with stream for {model}"
            bad = Fault("status", status=400, message=message, error_type="invalid_request_error")
            return _send_error(ex, flavour, bad, cfg, model=model)
        if body.get("stream"):
            return _stream_chat(ex, flavour, body, cfg, fault)
        return _answer_whole(ex, flavour, body, cfg, fault)


def _route(path: str, v1_flavour: str) -> tuple[str | None, str]:
    for prefix, flavour in _PREFIXES:
        if path.startswith(prefix):
            return (flavour or v1_flavour), path[len(prefix) :].strip("/")
    return None, path


# ---- responses -----------------------------------------------------------------------------


def _rate_limit_headers(flavour: str, limits: RateLimits | None) -> dict[str, str]:
    if limits is None:
        return {}
    if flavour == "cerebras":
        return {
            "x-ratelimit-limit-requests-day": str(limits.limit_requests),
            "x-ratelimit-remaining-requests-day": str(limits.remaining_requests),
            "x-ratelimit-reset-requests-day": _number(limits.reset_requests_s),
            "x-ratelimit-limit-tokens-minute": str(limits.limit_tokens),
            "x-ratelimit-remaining-tokens-minute": str(limits.remaining_tokens),
            "x-ratelimit-reset-tokens-minute": _number(limits.reset_tokens_s),
        }
    return {
        "x-ratelimit-limit-requests": str(limits.limit_requests),
        "x-ratelimit-remaining-requests": str(limits.remaining_requests),
        "x-ratelimit-reset-requests": go_duration(limits.reset_requests_s),
        "x-ratelimit-limit-tokens": str(limits.limit_tokens),
        "x-ratelimit-remaining-tokens": str(limits.remaining_tokens),
        "x-ratelimit-reset-tokens": go_duration(limits.reset_tokens_s),
    }


def _send_json(
    ex: _Exchange, status: int, payload: Any, headers: Mapping[str, str] | None = None
) -> None:
    data = json.dumps(payload, ensure_ascii=False).encode()
    all_headers = {"Content-Type": "application/json", "Content-Length": str(len(data))}
    all_headers.update(headers or {})
    ex.start(status, all_headers, chunked=False)
    ex.write(data)


_DEFAULT_ERRORS: dict[int, tuple[str, str, str]] = {
    400: ("Bad request", "invalid_request_error", "bad_request"),
    401: ("Invalid API Key", "invalid_request_error", "invalid_api_key"),
    403: ("Forbidden", "permission_error", "forbidden"),
    404: ("The model does not exist", "not_found_error", "model_not_found"),
    422: ("Unprocessable entity", "invalid_request_error", "unprocessable"),
    429: ("Rate limit reached", "tokens", "rate_limit_exceeded"),
    500: ("Internal server error", "internal_server_error", "internal_error"),
    503: ("Service unavailable: over capacity", "service_unavailable", "over_capacity"),
}


def _error_object(fault: Fault, model: str | None) -> dict[str, Any]:
    fallback_type = "server_error" if fault.status >= 500 else "invalid_request_error"
    message, etype, code = _DEFAULT_ERRORS.get(fault.status, ("Error", fallback_type, "error"))
    message = fault.message or message
    if fault.status == 429 and fault.message is None:
        message = (
            f"Rate limit reached for model `{model or 'unknown'}` on tokens per minute (TPM): "
            "Limit 6000, Used 5900, Requested 300."
        )
    if fault.retry_in is not None:
        message = f"{message} Please try again in {fault.retry_in}."
    return {"message": message, "type": fault.error_type or etype, "code": fault.code or code}


def _send_error(
    ex: _Exchange, flavour: str, fault: Fault, cfg: Config, *, model: str | None
) -> None:
    error = _error_object(fault, model)
    payload: Any = error if fault.flat_body else {"error": error}
    if fault.body is not None:
        payload = fault.body
    headers: dict[str, str] = {}
    if fault.status == 429:
        limits = cfg.rate_limits or RateLimits()
        headers.update(_rate_limit_headers(flavour, replace(limits, remaining_tokens=0)))
    if fault.retry_after is not None:
        headers["retry-after"] = _number(fault.retry_after)
    if fault.retry_after_ms is not None:
        headers["retry-after-ms"] = _number(fault.retry_after_ms)
    _send_json(ex, fault.status, payload, headers)


def _send_retired(ex: _Exchange, flavour: str, cfg: Config, model: str) -> None:
    """A shut-down model as each provider says it: Groq's 400 ``model_decommissioned``,
    Cerebras' 404 ``model_not_found`` with a flat body."""
    if flavour == "groq":
        message = (
            f"The model `{model}` has been decommissioned and is no longer supported. Please "
            "refer to https://console.groq.com/docs/deprecations for a recommendation on which "
            "model to use instead."
        )
        fault = Fault("status", status=400, message=message, code="model_decommissioned")
        return _send_error(ex, flavour, fault, cfg, model=model)
    message = f"Model {model} does not exist or you do not have access to it."
    fault = Fault(
        "status",
        status=404,
        message=message,
        error_type="not_found_error",
        code="model_not_found",
        flat_body=True,
    )
    return _send_error(ex, flavour, fault, cfg, model=model)


def _send_models(ex: _Exchange, flavour: str, cfg: Config) -> None:
    ids = (cfg.models or {}).get(flavour)
    if ids is None:
        ids = DEFAULT_MODELS[flavour]
    data = []
    for model_id in ids:
        item: dict[str, Any] = {
            "id": model_id,
            "object": "model",
            "created": 1700000000,
            "owned_by": {"groq": "Groq", "cerebras": "Cerebras"}.get(flavour, "local"),
        }
        if flavour == "groq":
            item.update({"active": True, "context_window": 131072, "public_apps": None})
        data.append(item)
    _send_json(ex, 200, {"object": "list", "data": data})


@dataclass
class _Plan:
    """Everything decided before the first byte of an answer."""

    model: str
    answer: str
    pieces: list[str]
    reasoning: list[str]
    prompt_tokens: int
    cached_tokens: int | None = None
    started: float = field(default_factory=time.monotonic)
    asked: int = 0  # max_completion_tokens (0: none given)
    cut: bool = False  # stopped at ``asked``: finish_reason "length"

    @property
    def completion_tokens(self) -> int:
        return len(self.pieces) + len(self.reasoning)


def _plan(body: Mapping[str, Any], cfg: Config) -> _Plan:
    messages = body["messages"]
    answer = cfg.answer(messages) if cfg.answer is not None else last_user_content(messages)
    if cfg.think is not None:
        answer = f"<think>\n{cfg.think}\n</think>\n\n{answer}"
    plan = _Plan(
        model=str(body.get("model") or "unknown"),
        answer=answer,
        pieces=tokenize(answer, cfg.chunk_chars),
        reasoning=tokenize(cfg.reasoning, cfg.chunk_chars) if cfg.reasoning else [],
        prompt_tokens=count_prompt_tokens(messages),
        cached_tokens=(
            cfg.prompt_cache.cached(messages) if cfg.prompt_cache is not None else cfg.cached_tokens
        ),
    )
    asked = body.get("max_completion_tokens") or body.get("max_tokens")
    plan.asked = int(asked) if isinstance(asked, int) else 0
    if cfg.cut_at_max_tokens and plan.asked and plan.completion_tokens > plan.asked:
        keep = max(0, plan.asked - len(plan.reasoning))
        plan.pieces = plan.pieces[:keep]
        plan.answer = "".join(plan.pieces)
        plan.cut = True
    return plan


def _usage(plan: _Plan) -> dict[str, Any]:
    usage: dict[str, Any] = {
        "prompt_tokens": plan.prompt_tokens,
        "completion_tokens": plan.completion_tokens,
        "total_tokens": plan.prompt_tokens + plan.completion_tokens,
    }
    if plan.cached_tokens is not None:
        cached = min(plan.cached_tokens, plan.prompt_tokens)
        usage["prompt_tokens_details"] = {"cached_tokens": cached}
    return usage


def _timings(plan: _Plan) -> dict[str, float]:
    elapsed = time.monotonic() - plan.started
    prompt_time = round(plan.prompt_tokens / 100000, 6)
    return {
        "queue_time": 0.0125,
        "prompt_time": prompt_time,
        "completion_time": round(elapsed, 6),
        "total_time": round(elapsed + prompt_time, 6),
    }


def _chunk(plan: _Plan, cid: str, created: int, flavour: str, choices: list[Any]) -> dict[str, Any]:
    chunk: dict[str, Any] = {
        "id": cid,
        "object": "chat.completion.chunk",
        "created": created,
        "model": plan.model,
        "system_fingerprint": "fp_emulator",
        "choices": choices,
    }
    if flavour == "groq":
        chunk["x_groq"] = {"id": "req_" + cid[-12:]}
    return chunk


def _delta(delta: Mapping[str, Any], finish: str | None = None) -> list[dict[str, Any]]:
    return [{"index": 0, "delta": dict(delta), "logprobs": None, "finish_reason": finish}]


def _stream_chat(
    ex: _Exchange, flavour: str, body: Mapping[str, Any], cfg: Config, fault: Fault | None
) -> None:
    plan = _plan(body, cfg)
    headers = {
        "Content-Type": "text/event-stream",
        "Cache-Control": "no-cache",
        "x-request-id": "req_" + uuid.uuid4().hex[:16],
    }
    if cfg.account is not None:
        headers.update(ex.emu.account_headers(flavour, cfg.account))
    else:
        headers.update(_rate_limit_headers(flavour, cfg.rate_limits))
    ex.start(200, headers, chunked=True)
    cid = "chatcmpl-" + uuid.uuid4().hex
    created = int(time.time())
    split = cfg.split_writes
    interval = 1 / cfg.tokens_per_second if cfg.tokens_per_second else 0.0

    ex.pause(cfg.ttfb)
    ex.event(_chunk(plan, cid, created, flavour, _delta({"role": "assistant", "content": ""})))
    for piece in plan.reasoning:
        ex.event(_chunk(plan, cid, created, flavour, _delta({"reasoning": piece})), split=split)
        ex.pause(interval)
    fault_at = -1 if fault is None else min(fault.after_chunks or 0, len(plan.pieces))
    for index in range(len(plan.pieces) + 1):
        stop = (
            fault is not None
            and index == fault_at
            and _apply_stream_fault(ex, flavour, fault, plan)
        )
        if stop:
            return
        if index == len(plan.pieces):
            break
        delta = _delta({"content": plan.pieces[index]})
        ex.event(_chunk(plan, cid, created, flavour, delta), split=split)
        if index == 0 and cfg.hold_after_first is not None:
            cfg.hold_after_first.wait(10)
        if index + 1 < len(plan.pieces):
            ex.pause(interval)
    _finish_stream(ex, flavour, body, cfg, plan, cid, created)


def _finish_stream(
    ex: _Exchange,
    flavour: str,
    body: Mapping[str, Any],
    cfg: Config,
    plan: _Plan,
    cid: str,
    created: int,
) -> None:
    final = _chunk(
        plan, cid, created, flavour, _delta({}, "length" if plan.cut else cfg.finish_reason)
    )
    who = last_user_content(body.get("messages") or [])[:40]
    ex.emu._account_used(flavour, plan.completion_tokens, plan.asked, who)
    if flavour == "groq":
        final["x_groq"]["usage"] = {**_usage(plan), **_timings(plan)}
        ex.event(final)
    elif flavour == "cerebras":
        usage = {"prompt_tokens_details": {"cached_tokens": 0}, **_usage(plan)}
        time_info = {**_timings(plan), "created": time.time()}
        if cfg.cerebras_usage_separate:
            ex.event(final)
            last = _chunk(plan, cid, created, flavour, [])
            ex.event({**last, "usage": usage, "time_info": time_info})
        else:
            ex.event({**final, "usage": usage, "time_info": time_info})
    else:
        ex.event(final)
        options = body.get("stream_options")
        if isinstance(options, Mapping) and options.get("include_usage"):
            ex.event({**_chunk(plan, cid, created, flavour, []), "usage": _usage(plan)})
    if cfg.send_done:
        ex.event("[DONE]")
    ex.end()
    ex.emu._note_answered()


def _apply_stream_fault(ex: _Exchange, flavour: str, fault: Fault, plan: _Plan) -> bool:
    """Carry out a mid-stream fault; True when the answer must stop there."""
    if fault.kind == "malformed":
        ex.event('{"id": "chatcmpl-broken", "choices": [{"delta": {"content": "oops')
        return False
    if fault.kind == "midstream_error":
        payload: Any = {"error": _error_object(fault, plan.model)}
        if flavour == "cerebras":
            payload["status_code"] = fault.status
        if fault.body is not None:
            payload = fault.body
        ex.event(payload)
        ex.end()
        return True
    if fault.kind == "cut":
        ex.cut(reset=fault.reset)
        raise _Disconnected
    if fault.kind == "hang":
        ex.hang()
        raise _Disconnected
    if fault.kind in ("drip", "endless"):
        pause = fault.interval if fault.kind == "drip" else 0.0
        delta = _delta({"content": "la la "})
        event = f"data: {json.dumps(_chunk(plan, 'chatcmpl-x', 0, flavour, delta))}\n\n".encode()
        while True:  # until the client leaves (write or pause raises _Disconnected)
            ex.write(event * (1 if pause else 64))
            ex.pause(pause)
    if fault.kind == "giant_chunk":
        ex.h.wfile.write(b"100000000\r\ndata: ")  # a 4 GiB chunk, its line never ends
        block = b"x" * 65536
        while True:
            try:
                ex.h.wfile.write(block)
                ex.h.wfile.flush()
            except OSError as exc:
                raise _Disconnected from exc
            if ex.emu._stopping.is_set():
                raise _Disconnected
    if fault.kind == "bad_utf8":
        ex.write(b'data: {"choices": [{"index": 0, "delta": {"content": "caf\xc3\x28"}}]}\n\n')
        return False
    return False


def completion(plan: _Plan, flavour: str, cfg: Config) -> dict[str, Any]:
    """A whole (not streamed) chat completion answering ``plan``, in ``flavour``'s format: a
    non-streaming answer's body, and a Batch API job's answer (tests/batch_emulator.py)."""
    message: dict[str, Any] = {"role": "assistant", "content": plan.answer}
    if plan.reasoning:
        message["reasoning"] = "".join(plan.reasoning)
    finish = "length" if plan.cut else cfg.finish_reason
    payload: dict[str, Any] = {
        "id": "chatcmpl-" + uuid.uuid4().hex,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": plan.model,
        "system_fingerprint": "fp_emulator",
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
        "usage": _usage(plan),
    }
    if flavour == "groq":
        payload["usage"].update(_timings(plan))
        payload["x_groq"] = {"id": "req_" + uuid.uuid4().hex[:16]}
    elif flavour == "cerebras":
        payload["time_info"] = {**_timings(plan), "created": time.time()}
    return payload


def _answer_whole(
    ex: _Exchange, flavour: str, body: Mapping[str, Any], cfg: Config, fault: Fault | None
) -> None:
    plan = _plan(body, cfg)
    interval = 1 / cfg.tokens_per_second if cfg.tokens_per_second else 0.0
    ex.pause(cfg.ttfb + interval * max(0, len(plan.pieces) - 1))
    payload = completion(plan, flavour, cfg)
    headers = _rate_limit_headers(flavour, cfg.rate_limits)
    if fault is None or fault.kind == "midstream_error":
        return _send_json(ex, 200, payload, headers)
    data = json.dumps(payload, ensure_ascii=False).encode()
    if fault.kind == "malformed":
        data = data[: len(data) // 2]
        return _send_raw(ex, data, headers)
    all_headers = {"Content-Type": "application/json", "Content-Length": str(len(data))}
    ex.start(200, {**all_headers, **headers}, chunked=False)
    ex.write(data[: len(data) // 2])
    if fault.kind == "cut":
        ex.cut(reset=fault.reset)
    else:
        ex.hang()


def _send_raw(ex: _Exchange, data: bytes, headers: Mapping[str, str]) -> None:
    all_headers = {"Content-Type": "application/json", "Content-Length": str(len(data))}
    ex.start(200, {**all_headers, **headers}, chunked=False)
    ex.write(data)


# ---- in a child process ------------------------------------------------------------------


class EmulatorProcess:
    """The same emulator served from a child process, for measurements of our own threads.

    Why: in-process, the emulator's handler threads take the GIL that the window's GUI thread
    and engine thread need, which no real provider does (Groq and Cerebras are across the
    network). Only what a measurement needs crosses over: the base URL, the recorded chat
    request bodies, and resetting the records. ``nice``: added to the child's nice value, so
    that on a machine of few cores it takes what the app leaves (a real provider takes none).
    """

    def __init__(self, **config: Any) -> None:
        import multiprocessing

        self._config = config
        self._context = multiprocessing.get_context("spawn")  # never fork a Qt process
        self._conn: Any = None
        self._process: Any = None
        self.url = ""

    def __enter__(self) -> EmulatorProcess:
        ours, theirs = self._context.Pipe()
        self._process = self._context.Process(
            target=_serve_in_child, args=(theirs, self._config), daemon=True
        )
        self._process.start()
        self._conn = ours
        self.url = self._conn.recv()
        return self

    def __exit__(self, *exc: object) -> None:
        with contextlib.suppress(OSError, EOFError):
            self._conn.send(("stop",))
            self._conn.recv()
        self._process.join(timeout=5)
        if self._process.is_alive():
            self._process.kill()

    @property
    def groq_base_url(self) -> str:
        return self.url

    @property
    def pid(self) -> int | None:
        """The child's process id (for measuring its CPU time)."""
        return None if self._process is None else self._process.pid

    def chat_bodies(self) -> list[dict[str, Any]]:
        self._conn.send(("bodies",))
        return self._conn.recv()

    def reset_records(self) -> None:
        self._conn.send(("reset",))
        self._conn.recv()

    @property
    def refused(self) -> int:
        """Chat requests the child answered 429 (over ``limit_rpm``)."""
        return self._count("refused")

    @property
    def disconnects(self) -> int:
        """Clients the child saw leave in the middle of an answer (cancelled requests)."""
        return self._count("disconnects")

    def _count(self, name: str) -> int:
        self._conn.send((name,))
        count: int = self._conn.recv()
        return count


def _serve_in_child(conn: Any, config: dict[str, Any]) -> None:
    nice = config.pop("nice", 0)  # a benchmark's: the child (and its threads) below the app
    if nice:
        os.nice(nice)
    with Emulator(**config) as emu:
        conn.send(emu.url)
        while True:
            (command,) = conn.recv()
            if command == "bodies":
                conn.send([r.body for r in emu.chat_requests])
            elif command == "reset":
                emu.reset_records()
                conn.send(None)
            elif command in ("refused", "disconnects"):
                conn.send(getattr(emu, command))
            else:
                conn.send(None)
                return


# ---- a scripted reviewer ---------------------------------------------------------------------

REVIEW_MARK = "translation reviewer"  # in the system message of fastdesk.translate.quality's
_REVIEW_USER = re.compile(r"Source:\n<<<\n(.*)\n>>>\n\nTranslation:\n<<<\n(.*)\n>>>", re.DOTALL)


def review_pair(messages: Sequence[Mapping[str, Any]]) -> tuple[str, str] | None:
    """(source, translation) of a reviewer's request, or None for any other request."""
    system = " ".join(
        _content_text(m.get("content")) for m in messages if m.get("role") == "system"
    )
    if REVIEW_MARK not in system:
        return None
    found = _REVIEW_USER.fullmatch(last_user_content(messages))
    return (found.group(1), found.group(2)) if found else None


def scripted_reviewer(
    script: Callable[[str, str], str] | str,
    translate: Answer | None = None,
    *,
    gate: threading.Event | None = None,
) -> Answer:
    """An ``answer`` (Config) that plays a reviewer: a review request gets ``script(source,
    translation)`` (or the fixed text ``script``), any other ``translate(messages)`` (default:
    the echo). ``gate``: a review answers only once it is set (a slow reviewer; the server's
    stop does not wait for it, so set it before leaving the test)."""

    def answer(messages: Sequence[Mapping[str, Any]]) -> str:
        pair = review_pair(messages)
        if pair is None:
            return translate(messages) if translate is not None else last_user_content(messages)
        if gate is not None:
            gate.wait(30)
        return script(*pair) if callable(script) else script

    return answer


# ---- pytest --------------------------------------------------------------------------------


@pytest.fixture
def emulator() -> Iterator[Emulator]:
    """A started emulator, stopped (threads joined) after the test."""
    with Emulator() as emu:
        yield emu
