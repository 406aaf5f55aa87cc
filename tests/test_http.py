"""The HTTP stack (httpx's API over aiohttp, ``sdk.make_http_client``) as a user meets it:
through the three providers and the real SDKs, against loopback servers that answer with exactly
the bytes each test writes (the emulator speaks the providers' formats; here the wire is ours)."""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import ipaddress
import json
import ssl
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import aiohttp
import cerebras.cloud.sdk as cerebras_sdk
import groq
import httpx
import pytest
from httpx_aiohttp import AiohttpTransport, HttpxAiohttpClient
from httpx_aiohttp.transport import map_aiohttp_exceptions
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fastdesk.providers.base import (
    ChatRequest,
    ConnectionFailedError,
    Provider,
    ProviderError,
    TextDelta,
)
from fastdesk.providers.cerebras import CerebrasProvider
from fastdesk.providers.errors import map_exception
from fastdesk.providers.groq import GroqProvider
from fastdesk.providers.http_client import make_http_client, make_timeout
from fastdesk.providers.openai_compat import OpenAICompatProvider

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter, int], Awaitable[None]]
KINDS = ("groq", "cerebras", "openai")
KEY = "gsk_HTTPTESTSECRET_0123456789_abcdef"


def run(coro: Awaitable[Any]) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 10))


class Server:
    """A loopback server; ``handler(reader, writer, n)`` serves its n-th connection (from 1).
    ``closed_by_client`` counts the connections whose client hung up first."""

    def __init__(self, handler: Handler, tls: ssl.SSLContext | None = None) -> None:
        self.handler = handler
        self.tls = tls
        self.connections = 0
        self.closed_by_client = 0

    async def __aenter__(self) -> Server:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=self.tls)
        self.port = self._server.sockets[0].getsockname()[1]
        scheme = "https" if self.tls else "http"
        self.url = f"{scheme}://{'localhost' if self.tls else '127.0.0.1'}:{self.port}"
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            await self.handler(reader, writer, self.connections)
        except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError):
            pass
        finally:
            writer.close()

    async def until_closed(self, reader: asyncio.StreamReader) -> None:
        """Wait for the client to close this connection (counted)."""
        with contextlib.suppress(ConnectionError, ssl.SSLError):
            while await reader.read(1024):
                pass
            self.closed_by_client += 1


async def read_request(reader: asyncio.StreamReader) -> bytes:
    """One request (head and body); b"" when the client closed the connection instead."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return b""
    length = 0
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.lower() == b"content-length":
            length = int(value)
    return head + await reader.readexactly(length)


def chunked(*pieces: bytes) -> bytes:
    return b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in pieces) + b"0\r\n\r\n"


OK_CHUNKED = (
    b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
)


def events(*words: str) -> list[bytes]:
    """An OpenAI-style answer as Server-Sent Events: one per word, the finish, ``[DONE]``."""

    def event(delta: dict[str, str], finish: str | None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return b"data: " + json.dumps({"choices": [choice]}).encode() + b"\n\n"

    return [*(event({"content": w}, None) for w in words), event({}, "stop"), b"data: [DONE]\n\n"]


def answer(*words: str) -> bytes:
    """A whole chunked response streaming ``words``, one chunk an event."""
    return OK_CHUNKED + chunked(*events(*words))


async def keep_answering(data: bytes, reader: asyncio.StreamReader, writer: Any) -> None:
    """Answer every request of the connection with the same bytes."""
    while await read_request(reader):
        writer.write(data)
        await writer.drain()


def make(kind: str, url: str, **kw: Any) -> Provider:
    """A provider whose server is ``url`` (scheme, host and port)."""
    if kind == "groq":
        return GroqProvider(KEY, base_url=url, **kw)
    if kind == "cerebras":
        return CerebrasProvider(KEY, base_url=url, **kw)
    return OpenAICompatProvider(url + "/v1", api_key=KEY, default_model="m", **kw)


REQUEST = ChatRequest(model="m", messages=[{"role": "user", "content": "x"}])


async def text(provider: Provider) -> str:
    return "".join([e.text async for e in provider.stream(REQUEST) if isinstance(e, TextDelta)])


async def error(provider: Provider) -> ProviderError:
    """The error one stream ends with (the provider is closed after it)."""
    try:
        with pytest.raises(ProviderError) as info:
            await text(provider)
    finally:
        await provider.aclose()
    return info.value


@pytest.fixture(autouse=True)
def no_proxy_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    """No proxy and no certificate setting from the machine the tests run on (a proxy there
    would otherwise carry the requests to loopback too)."""
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    yield monkeypatch


@pytest.mark.parametrize("kind", KINDS)
def test_every_provider_sends_through_the_sdks_aiohttp_client(kind: str) -> None:
    """One HTTP stack: the SDK adapters with their SDK's DefaultAioHttpClient, the
    OpenAI-compatible one with the class it is made of."""

    async def go() -> Any:
        provider: Any = make(kind, "http://127.0.0.1:9")
        try:
            return provider._http
        finally:
            await provider.aclose()

    http = run(go())
    expected = {
        "groq": groq.DefaultAioHttpClient,
        "cerebras": cerebras_sdk.DefaultAioHttpClient,
        "openai": HttpxAiohttpClient,
    }[kind]
    assert type(http) is expected and isinstance(http, HttpxAiohttpClient)
    assert isinstance(http._transport, AiohttpTransport)


# ---- streamed bodies -------------------------------------------------------------------------


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kind=st.sampled_from(KINDS),
    words=st.lists(st.text(min_size=1, max_size=6), min_size=1, max_size=8),
    cuts=st.lists(st.integers(min_value=1, max_value=40), min_size=1, max_size=8),
)
def test_an_answer_comes_whole_however_the_wire_splits_it(
    kind: str, words: list[str], cuts: list[int]
) -> None:
    wire = answer(*words)

    async def handler(reader: Any, writer: Any, n: int) -> None:
        await read_request(reader)
        pos = 0
        for size in cuts * (len(wire) // len(cuts) + 1):  # writes of these sizes, apart
            if pos >= len(wire):
                break
            writer.write(wire[pos : pos + size])
            await writer.drain()
            await asyncio.sleep(0.0005)
            pos += size
        await reader.read(1)

    async def go() -> str:
        async with Server(handler) as server:
            provider = make(kind, server.url)
            try:
                return await text(provider)
            finally:
                await provider.aclose()

    assert run(go()) == "".join(words)


def test_chunks_one_read_brings_go_up_together_on_one_kept_connection() -> None:
    """Why this stack: a token a chunk, and what arrives together is handled together (the
    engine thread's CPU per token, benchmarks/bench_stream.py)."""
    pieces = [b"data: %d\n\n" % i for i in range(50)]

    async def handler(reader: Any, writer: Any, n: int) -> None:
        await keep_answering(OK_CHUNKED + chunked(*pieces), reader, writer)

    async def go() -> tuple[list[bytes], bytes, int]:
        async with Server(handler) as server, make_http_client(make_timeout(5.0)) as http:
            async with http.stream("POST", server.url + "/chat", content=b"{}") as response:
                got = [piece async for piece in response.aiter_raw()]
            again = await http.post(server.url + "/again", content=b"{}")
            return got, again.content, server.connections

    got, again, connections = run(go())
    assert b"".join(got) == again == b"".join(pieces)
    assert len(got) < 10  # 50 chunks sent in one write: not one piece a chunk
    assert connections == 1


@pytest.mark.parametrize("kind", KINDS)
def test_an_answer_without_length_ends_with_its_connection(kind: str) -> None:
    """Neither chunked nor of a given length (some local servers): the body is what comes until
    the server closes."""

    async def handler(reader: Any, writer: Any, n: int) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n")
        for event in events("until ", "the end")[:-1]:  # no [DONE]: the close ends it
            writer.write(event)
            await writer.drain()

    async def go() -> str:
        async with Server(handler) as server:
            provider = make(kind, server.url)
            try:
                return await text(provider)
            finally:
                await provider.aclose()

    assert run(go()) == "until the end"


# ---- connections -----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_a_connection_is_kept_even_when_the_body_ends_after_done(kind: str) -> None:
    """The end of the chunked body may come after ``[DONE]``: it is waited for, and the next
    request goes on the same connection."""
    head_and_events = OK_CHUNKED + b"".join(b"%x\r\n%s\r\n" % (len(e), e) for e in events("a"))

    async def handler(reader: Any, writer: Any, n: int) -> None:
        while await read_request(reader):
            writer.write(head_and_events)
            await writer.drain()
            await asyncio.sleep(0.05)
            writer.write(b"0\r\n\r\n")
            await writer.drain()

    async def go() -> tuple[list[str], int]:
        async with Server(handler) as server:
            provider = make(kind, server.url)
            try:
                texts = [await text(provider) for _ in range(3)]
            finally:
                await provider.aclose()
            return texts, server.connections

    assert run(go()) == (["a", "a", "a"], 1)


@pytest.mark.parametrize("kind", KINDS)
def test_a_connection_the_server_closed_is_not_reused(kind: str) -> None:
    async def handler(reader: Any, writer: Any, n: int) -> None:
        if n == 1:  # answers once, then closes without saying so
            await read_request(reader)
            writer.write(answer("first"))
            await writer.drain()
            return
        await keep_answering(answer("again"), reader, writer)

    async def go() -> tuple[list[str], int]:
        async with Server(handler) as server:
            provider = make(kind, server.url)
            try:
                first = await text(provider)
                await asyncio.sleep(0.05)  # the close has arrived
                texts = [first, await text(provider), await text(provider)]
            finally:
                await provider.aclose()
            return texts, server.connections

    assert run(go()) == (["first", "again", "again"], 2)


@pytest.mark.parametrize("kind", KINDS)
def test_a_cancelled_stream_closes_its_connection(kind: str) -> None:
    first_sent = asyncio.Event()

    async def handler(reader: Any, writer: Any, n: int) -> None:
        if n == 1:  # the first event, then nothing until the client hangs up
            await read_request(reader)
            writer.write(OK_CHUNKED + chunked(*events("a"))[:40])
            await writer.drain()
            first_sent.set()
            await server.until_closed(reader)
            return
        await keep_answering(answer("next"), reader, writer)

    server = Server(handler)

    async def go() -> tuple[str, int, int]:
        async with server:
            provider = make(kind, server.url)
            try:
                task = asyncio.create_task(text(provider))
                await first_sent.wait()  # the stream has begun
                task.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await task
                for _ in range(100):  # the server sees the close while the provider is open
                    if server.closed_by_client:
                        break
                    await asyncio.sleep(0.01)
                closed = server.closed_by_client
                after = await text(provider)
            finally:
                await provider.aclose()
            return after, closed, server.connections

    assert run(go()) == ("next", 1, 2)


# ---- errors ----------------------------------------------------------------------------------


CUT_SHORT = {
    "inside a chunk": OK_CHUNKED + chunked(*events("a", "b"))[:60],
    "between two chunks": OK_CHUNKED + chunked(*events("a", "b")[:-2])[:-5],
    "short of its length": b"HTTP/1.1 200 OK\r\nContent-Length: 900\r\n\r\n" + events("a")[0],
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("wire", CUT_SHORT.values(), ids=CUT_SHORT.keys())
def test_a_body_cut_short_is_a_cut_connection(kind: str, wire: bytes) -> None:
    async def handler(reader: Any, writer: Any, n: int) -> None:
        await read_request(reader)
        writer.write(wire)

    async def go() -> ProviderError:
        async with Server(handler) as server:
            return await error(make(kind, server.url))

    exc = run(go())
    assert isinstance(exc, ConnectionFailedError)
    assert "connection cut mid-answer" in str(exc)


BROKEN = {
    "no answer at all": b"",
    "malformed status line": b"HTTP/1.1 2xx OK\r\n\r\n",
    "not HTTP": b"SMTP ready\r\n\r\n",
    "malformed header": b"HTTP/1.1 200 OK\r\nbad\r\n\r\n",
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("wire", BROKEN.values(), ids=BROKEN.keys())
def test_a_broken_answer_is_a_connection_error(kind: str, wire: bytes) -> None:
    async def handler(reader: Any, writer: Any, n: int) -> None:
        await read_request(reader)
        writer.write(wire)

    async def go() -> ProviderError:
        async with Server(handler) as server:
            return await error(make(kind, server.url))

    assert isinstance(run(go()), ConnectionFailedError)


@pytest.mark.parametrize("kind", KINDS)
def test_a_refused_connection_reads_cannot_reach_not_no_answer(kind: str) -> None:
    """httpx_aiohttp reports a refused connection as ``httpx.ConnectTimeout`` (which the SDKs
    turn into a timeout): the user must read that the server cannot be reached."""

    async def go() -> ProviderError:
        async with Server(keep_answering_nothing) as server:
            url = server.url
        return await error(make(kind, url))  # the server is gone: its port refuses

    exc = run(go())
    # the refusal ended it (named in the error), not a timeout waited out
    assert isinstance(exc, ConnectionFailedError) and exc.kind == "connection"
    assert "could not reach the server (ConnectionRefusedError)" in str(exc)


async def keep_answering_nothing(reader: Any, writer: Any, n: int) -> None:
    await read_request(reader)


def _connector_error(os_error: OSError) -> aiohttp.ClientConnectorError:
    key = SimpleNamespace(host="api.example.test", port=443, ssl=True, is_ssl=True)
    # a stand-in for aiohttp's ConnectionKey: only its host, port and ssl are read
    return aiohttp.ClientConnectorError(key, os_error)  # type: ignore[arg-type]


AIOHTTP_FAILURES: dict[str, tuple[Callable[[], Exception], str, str]] = {
    "refused": (
        lambda: _connector_error(ConnectionRefusedError(111, "Connect call failed")),
        "connection",
        "could not reach the server (ConnectionRefusedError)",
    ),
    "connect timeout": (
        lambda: aiohttp.ConnectionTimeoutError("Connection timeout to host"),
        "timeout",
        "could not connect in time",
    ),
    "read timeout": (
        lambda: aiohttp.SocketTimeoutError("Timeout on reading data from socket"),
        "timeout",
        "no answer after 20 s",
    ),
    "hung up before answering": (
        lambda: aiohttp.ServerDisconnectedError(),
        "connection",
        "the server closed the connection",
    ),
    "reset": (
        lambda: aiohttp.ClientOSError(104, "Connection reset by peer"),
        "connection",
        "the server closed the connection",
    ),
    "cut mid-body": (
        lambda: aiohttp.ClientPayloadError("Response payload is not completed"),
        "connection",
        "connection cut mid-answer",
    ),
}


def _as_the_sdk_raises(sdk: Any, err: Exception) -> Exception:
    """What groq's and cerebras' clients raise for an httpx error (their _base_client)."""
    request = httpx.Request("POST", "https://api.example.test/v1/chat/completions")
    try:
        if isinstance(err, httpx.TimeoutException):
            raise sdk.APITimeoutError(request=request) from err
        raise sdk.APIConnectionError(request=request) from err
    except Exception as exc:
        return exc


@pytest.mark.parametrize("through", ["httpx", "groq", "cerebras"])
@pytest.mark.parametrize("failure", AIOHTTP_FAILURES.values(), ids=AIOHTTP_FAILURES.keys())
def test_aiohttp_failures_map_to_what_they_mean(
    through: str, failure: tuple[Callable[[], Exception], str, str]
) -> None:
    make_error, kind, message = failure
    try:
        with map_aiohttp_exceptions():  # as httpx_aiohttp turns it into an httpx error
            raise make_error()
    except httpx.HTTPError as err:
        mapped: Exception = err
    if through != "httpx":
        mapped = _as_the_sdk_raises(groq if through == "groq" else cerebras_sdk, mapped)
    error = map_exception("groq", mapped, secrets=(KEY,), read_timeout=20.0)
    assert error.kind == kind
    assert message in str(error)


# ---- proxies ---------------------------------------------------------------------------------


class Proxy:
    """A loopback HTTP proxy: plain requests are answered with ``answer``; a CONNECT tunnel goes
    to ``tunnel_port`` on loopback, whatever host it names. ``seen``: the request lines."""

    def __init__(self, answer: bytes = b"", tunnel_port: int = 0) -> None:
        self.answer = answer
        self.tunnel_port = tunnel_port
        self.seen: list[bytes] = []
        self.server = Server(self._handle)

    async def _handle(self, reader: Any, writer: Any, n: int) -> None:
        request = await read_request(reader)
        self.seen.append(request.split(b"\r\n", 1)[0])
        if not request.startswith(b"CONNECT "):
            writer.write(self.answer)
            await writer.drain()
            await reader.read(1)
            return
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.tunnel_port)
        writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        await writer.drain()

        async def pipe(src: Any, dst: Any) -> None:
            with contextlib.suppress(ConnectionError, ssl.SSLError):
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            dst.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))


def test_https_proxy_from_the_environment_and_no_proxy_bypass(
    tmp_path: Path, no_proxy_env: pytest.MonkeyPatch
) -> None:
    """HTTPS_PROXY carries a provider's stream (a CONNECT tunnel, TLS verified end to end against
    SSL_CERT_FILE); a host NO_PROXY names is reached directly."""
    cert, key = self_signed(tmp_path, "api.fastdesk.invalid")
    origin_tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    origin_tls.load_cert_chain(cert, key)

    async def origin_handler(reader: Any, writer: Any, n: int) -> None:
        await keep_answering(answer("via ", "tunnel"), reader, writer)

    async def go() -> tuple[str, str, list[bytes], int]:
        async with Server(origin_handler, tls=origin_tls) as origin:
            proxy = Proxy(tunnel_port=origin.port)
            async with proxy.server:
                no_proxy_env.setenv("HTTPS_PROXY", proxy.server.url)
                no_proxy_env.setenv("NO_PROXY", "localhost")
                no_proxy_env.setenv("SSL_CERT_FILE", str(cert))
                proxied = make("groq", "https://api.fastdesk.invalid")
                direct = make("groq", origin.url)  # https://localhost:<port>
                try:
                    texts = (await text(proxied), await text(direct))
                finally:
                    await proxied.aclose()
                    await direct.aclose()
                return *texts, proxy.seen, origin.connections

    proxied, direct, seen, connections = run(go())
    assert proxied == direct == "via tunnel"
    assert seen == [b"CONNECT api.fastdesk.invalid:443 HTTP/1.1"]
    assert connections == 2  # one through the tunnel, one direct


def test_http_proxy_for_a_plain_http_server(no_proxy_env: pytest.MonkeyPatch) -> None:
    async def origin_handler(reader: Any, writer: Any, n: int) -> None:
        await keep_answering(answer("direct"), reader, writer)

    async def go() -> tuple[str, str, list[bytes]]:
        proxy = Proxy(answer=answer("proxy"))
        async with proxy.server, Server(origin_handler) as origin:
            no_proxy_env.setenv("HTTP_PROXY", proxy.server.url)
            no_proxy_env.setenv("NO_PROXY", "localhost")
            proxied = make("openai", "http://fastdesk.invalid")
            direct = make("openai", f"http://localhost:{origin.port}")
            try:
                return await text(proxied), await text(direct), proxy.seen
            finally:
                await proxied.aclose()
                await direct.aclose()

    assert run(go()) == (
        "proxy",
        "direct",
        [b"POST http://fastdesk.invalid/v1/chat/completions HTTP/1.1"],
    )


# ---- TLS -------------------------------------------------------------------------------------


def self_signed(tmp_path: Path, *names: str) -> tuple[Path, Path]:
    """A certificate for localhost, 127.0.0.1 and ``names`` (and its key), signed by itself."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    alt_names: list[x509.GeneralName] = [x509.DNSName(n) for n in ("localhost", *names)]
    alt_names.append(x509.IPAddress(ipaddress.ip_address("127.0.0.1")))
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName(alt_names), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


@pytest.mark.parametrize("kind", KINDS)
def test_tls_is_verified_and_ssl_cert_file_adds_an_authority(
    kind: str, tmp_path: Path, no_proxy_env: pytest.MonkeyPatch
) -> None:
    cert, key = self_signed(tmp_path)
    server_tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_tls.load_cert_chain(cert, key)

    async def handler(reader: Any, writer: Any, n: int) -> None:
        await keep_answering(answer("secure"), reader, writer)

    async def go() -> tuple[ProviderError, str]:
        async with Server(handler, tls=server_tls) as server:
            refused = await error(make(kind, server.url))  # certifi does not know this one
            no_proxy_env.setenv("SSL_CERT_FILE", str(cert))  # a company's own authority
            trusting = make(kind, server.url)
            try:
                return refused, await text(trusting)
            finally:
                await trusting.aclose()

    refused, trusted = run(go())
    assert isinstance(refused, ConnectionFailedError)
    assert "could not reach the server (SSLCertVerificationError)" in str(refused)
    assert trusted == "secure"
