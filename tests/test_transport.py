"""fastdesk.providers.transport: the HTTP/1.1 transport under httpx, against loopback servers
that answer with exactly the bytes each test writes (the provider tests cover it through the
SDKs and the emulator)."""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fastdesk.providers._common import make_http_client, make_timeout
from fastdesk.providers.transport import ChunkDecoder, StreamingTransport

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter, int], Awaitable[None]]


def run(coro: Awaitable[Any]) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 10))


class Server:
    """A loopback server; ``handler(reader, writer, n)`` serves its n-th connection (from 1)."""

    def __init__(self, handler: Handler, tls: ssl.SSLContext | None = None) -> None:
        self.handler = handler
        self.tls = tls
        self.connections = 0

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
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()


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


OK_CHUNKED = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"


def client(**options: Any) -> httpx.AsyncClient:
    timeout = options.pop("timeout", 5.0)
    return httpx.AsyncClient(transport=StreamingTransport(**options), timeout=timeout)


async def keep_serving(answer: bytes, reader: asyncio.StreamReader, writer: Any) -> None:
    """Answer every request of the connection with the same bytes."""
    while await read_request(reader):
        writer.write(answer)
        await writer.drain()


# ---- chunked decoding ----------------------------------------------------------------------


@given(
    st.lists(st.binary(min_size=1, max_size=40), max_size=12),
    st.lists(st.integers(min_value=1, max_value=30), min_size=1, max_size=50),
)
def test_chunks_come_out_whole_however_the_reads_split_them(
    pieces: list[bytes], cuts: list[int]
) -> None:
    wire = chunked(*pieces)
    decoder, out, pos = ChunkDecoder(), [], 0
    for size in cuts * (len(wire) // len(cuts) + 1):
        if pos >= len(wire):
            break
        assert not decoder.done
        out.append(decoder.feed(wire[pos : pos + size]))
        pos += size
    assert decoder.done and decoder.leftover == 0
    assert b"".join(out) == b"".join(pieces)


def test_chunk_extensions_and_trailers_are_skipped() -> None:
    decoder = ChunkDecoder()
    body = decoder.feed(b"5;name=value\r\nhello\r\n0\r\nX-Trailer: 1\r\n\r\n")
    assert body == b"hello" and decoder.done


def test_one_read_of_many_chunks_goes_up_as_one_piece() -> None:
    assert ChunkDecoder().feed(chunked(b"data: 1\n\n", b"data: 2\n\n")) == b"data: 1\n\ndata: 2\n\n"


@pytest.mark.parametrize("wire", [b"zz\r\nhello\r\n", b"5\r\nhelloXX", b"1" * 2000])
def test_a_malformed_chunk_is_an_error(wire: bytes) -> None:
    with pytest.raises(ValueError):
        ChunkDecoder().feed(wire)


# ---- bodies and connections ------------------------------------------------------------------


def test_a_chunked_stream_arrives_in_few_pieces_on_one_kept_connection() -> None:
    events = [b"data: %d\n\n" % i for i in range(50)]

    async def handler(reader: Any, writer: Any, n: int) -> None:
        await keep_serving(OK_CHUNKED + chunked(*events), reader, writer)

    async def go() -> tuple[list[bytes], int]:
        async with Server(handler) as server, client() as http:
            async with http.stream("POST", server.url + "/chat", content=b"{}") as response:
                pieces = [piece async for piece in response.aiter_raw()]
            again = await http.get(server.url + "/again")
            assert again.content == b"".join(events)
            return pieces, server.connections

    pieces, connections = run(go())
    assert b"".join(pieces) == b"".join(events)
    assert len(pieces) < 10  # 50 chunks sent in one write: not one piece per chunk
    assert connections == 1


def test_a_content_length_body_and_a_body_to_the_connection_end() -> None:
    async def handler(reader: Any, writer: Any, n: int) -> None:
        await read_request(reader)
        if n == 1:
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")
            await writer.drain()
            await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\n\r\nuntil the end")  # no length: ends with the close

    async def go() -> tuple[bytes, bytes, int]:
        async with Server(handler) as server, client() as http:
            first = (await http.get(server.url)).content
            second = (await http.get(server.url)).content
            return first, second, server.connections

    assert run(go()) == (b"hello", b"until the end", 1)


def test_head_and_no_content_answers_have_no_body_and_keep_the_connection() -> None:
    async def handler(reader: Any, writer: Any, n: int) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n")  # HEAD: no body follows
        await read_request(reader)
        writer.write(b"HTTP/1.1 204 No Content\r\n\r\n")
        await keep_serving(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", reader, writer)

    async def go() -> tuple[int, int, bytes, int]:
        async with Server(handler) as server, client() as http:
            head = await http.head(server.url)
            empty = await http.delete(server.url)
            last = await http.get(server.url)
            return head.status_code, empty.status_code, last.content, server.connections

    assert run(go()) == (200, 204, b"ok", 1)


def test_interim_answers_are_skipped() -> None:
    interim = b"HTTP/1.1 100 Continue\r\n\r\n"
    response = run(
        get_answered_with(interim + b"HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok")
    )
    assert (response.status_code, response.content) == (201, b"ok")
    assert response.reason_phrase == "Created" and response.http_version == "HTTP/1.1"


def test_a_connection_the_server_closed_is_not_reused() -> None:
    async def handler(reader: Any, writer: Any, n: int) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%d" % (len(str(n)), n))
        await writer.drain()
        if n == 1:  # closes its first connection right after the answer, without saying so
            return
        await keep_serving(b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n2", reader, writer)

    async def go() -> list[bytes]:
        async with Server(handler) as server, client() as http:
            first = (await http.get(server.url)).content
            await asyncio.sleep(0.05)  # the close has arrived
            second = (await http.get(server.url)).content
            return [first, second, (await http.get(server.url)).content]

    assert run(go()) == [b"1", b"2", b"2"]


def test_a_request_lost_on_a_kept_connection_goes_again_on_a_new_one() -> None:
    async def handler(reader: Any, writer: Any, n: int) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst")
        if n == 1:  # reads the next request, then closes without an answer
            await read_request(reader)
            return
        await keep_serving(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nagain", reader, writer)

    async def go() -> tuple[bytes, bytes, int]:
        async with Server(handler) as server, client() as http:
            first = (await http.get(server.url)).content
            second = (await http.post(server.url, content=b"{}")).content
            return first, second, server.connections

    assert run(go()) == (b"first", b"first", 2)


def test_a_body_of_unknown_length_goes_chunked() -> None:
    received: list[bytes] = []

    async def handler(reader: Any, writer: Any, n: int) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        assert b"transfer-encoding: chunked" in head.lower()
        received.append(await reader.readuntil(b"0\r\n\r\n"))
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")

    async def parts() -> AsyncIterator[bytes]:
        yield b'{"a": '
        yield b"1}"

    async def go() -> bytes:
        async with Server(handler) as server, client() as http:
            return (await http.post(server.url, content=parts())).content

    assert run(go()) == b"ok"
    assert received == [b'8\r\n{"a": 1}\r\n0\r\n\r\n']


def test_an_http_1_0_answer_ends_its_connection_unless_kept_alive() -> None:
    async def handler(reader: Any, writer: Any, n: int) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 4\r\n\r\nkept")
        await read_request(reader)
        writer.write(b"HTTP/1.0 200 OK\r\nContent-Length: 4\r\n\r\nlast")
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nnew")

    async def go() -> tuple[list[bytes], int]:
        async with Server(handler) as server, client() as http:
            bodies = [(await http.get(server.url)).content for _ in range(3)]
            return bodies, server.connections

    assert run(go()) == ([b"kept", b"last", b"kept"], 2)


def test_max_keepalive_connections_bounds_the_pool() -> None:
    async def handler(reader: Any, writer: Any, n: int) -> None:
        await keep_serving(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", reader, writer)

    async def go() -> int:
        limits = httpx.Limits(max_connections=10, max_keepalive_connections=1)
        async with Server(handler) as server, client(limits=limits) as http:
            for _ in range(2):  # two at once: two connections, of which one is kept
                await asyncio.gather(http.get(server.url), http.get(server.url))
            return server.connections

    assert run(go()) == 3


# ---- errors --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        OK_CHUNKED + b"5\r\nhel",  # cut inside a chunk
        OK_CHUNKED + chunked(b"hello")[:-5],  # the last chunk never comes
        b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello",
    ],
)
def test_a_body_cut_short_is_a_protocol_error(answer: bytes) -> None:
    with pytest.raises(httpx.RemoteProtocolError, match="complete message body"):
        run(get_answered_with(answer))


async def get_answered_with(answer: bytes) -> httpx.Response:
    """GET from a server that answers with `answer`, then closes the connection."""

    async def handler(reader: Any, writer: Any, n: int) -> None:
        await read_request(reader)
        writer.write(answer)

    async with Server(handler) as server, client() as http:
        return await http.get(server.url)


@pytest.mark.parametrize(
    "answer", [b"HTTP/1.1 2xx OK\r\n\r\n", b"SMTP ready\r\n\r\n", b"HTTP/1.1 200 OK\r\nbad\r\n\r\n"]
)
def test_a_malformed_head_is_a_protocol_error(answer: bytes) -> None:
    with pytest.raises(httpx.RemoteProtocolError):
        run(get_answered_with(answer))


def test_a_server_that_goes_quiet_is_a_read_timeout() -> None:
    async def handler(reader: Any, writer: Any, n: int) -> None:
        await read_request(reader)
        writer.write(OK_CHUNKED + chunked(b"data: 1\n\n")[:-5])
        await asyncio.sleep(5)

    async def go() -> list[bytes]:
        pieces: list[bytes] = []
        async with (
            Server(handler) as server,
            client(timeout=0.2) as http,
            http.stream("GET", server.url) as response,
        ):
            async for piece in response.aiter_raw():
                pieces.append(piece)
        return pieces

    with pytest.raises(httpx.ReadTimeout):
        run(go())


def test_nothing_listening_is_a_connect_error() -> None:
    async def go() -> None:
        async with Server(keep_serving_nothing) as server:
            url = server.url
        async with client() as http:  # the server is gone: its port refuses
            await http.get(url)

    with pytest.raises(httpx.ConnectError):
        run(go())


async def keep_serving_nothing(reader: Any, writer: Any, n: int) -> None:
    await read_request(reader)


def test_a_full_pool_is_a_pool_timeout_and_a_stopped_stream_frees_its_place() -> None:
    release = asyncio.Event()

    async def handler(reader: Any, writer: Any, n: int) -> None:
        await read_request(reader)
        writer.write(OK_CHUNKED + b"5\r\nhello\r\n")
        await writer.drain()
        await release.wait()

    async def go() -> tuple[int, int]:
        limits = httpx.Limits(max_connections=1)
        timeout = httpx.Timeout(2.0, pool=0.1)
        async with Server(handler) as server, client(limits=limits, timeout=timeout) as http:
            async with http.stream("GET", server.url) as response:
                pieces = response.aiter_raw()  # (kept: a dropped iterator closes the stream)
                assert await pieces.__anext__() == b"hello"
                with pytest.raises(httpx.PoolTimeout):
                    await http.get(server.url)
            # closed before its end: the connection is dropped and its place is free
            async with http.stream("GET", server.url) as response:
                pieces = response.aiter_raw()
                assert await pieces.__anext__() == b"hello"
            release.set()
            return server.connections, response.status_code

    assert run(go()) == (2, 200)


def test_a_cancelled_stream_drops_its_connection() -> None:
    async def handler(reader: Any, writer: Any, n: int) -> None:
        await read_request(reader)
        writer.write(OK_CHUNKED + b"5\r\nhello\r\n")
        await writer.drain()
        if n == 1:
            await asyncio.sleep(5)  # the rest never comes on the first connection
        writer.write(b"0\r\n\r\n")
        await keep_serving(OK_CHUNKED + chunked(b"hello"), reader, writer)

    async def go() -> tuple[bytes, int]:
        limits = httpx.Limits(max_connections=1)
        async with Server(handler) as server, client(limits=limits) as http:

            async def read_all() -> None:
                async with http.stream("GET", server.url) as response:
                    async for _ in response.aiter_raw():
                        pass

            task = asyncio.create_task(read_all())
            await asyncio.sleep(0.1)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            body = (await http.get(server.url)).content
            return body, server.connections

    assert run(go()) == (b"hello", 2)


# ---- proxies ---------------------------------------------------------------------------------


def test_the_environment_s_proxy_is_used_except_for_no_proxy_hosts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[bytes] = []

    async def proxy(reader: Any, writer: Any, n: int) -> None:
        seen.append((await read_request(reader)).split(b"\r\n", 1)[0])
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nproxy")

    async def origin(reader: Any, writer: Any, n: int) -> None:
        await keep_serving(b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\ndirect", reader, writer)

    async def go() -> tuple[bytes, bytes]:
        async with Server(proxy) as via, Server(origin) as direct:
            for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy"):
                monkeypatch.delenv(name, raising=False)
                monkeypatch.delenv(name.upper(), raising=False)
            monkeypatch.setenv("HTTP_PROXY", via.url)
            monkeypatch.setenv("NO_PROXY", "localhost")
            async with make_http_client(make_timeout(5.0)) as http:
                proxied = (await http.get("http://fastdesk.invalid/v1/models")).content
                local = (await http.get(f"http://localhost:{direct.port}/")).content
            return proxied, local

    assert run(go()) == (b"proxy", b"direct")
    assert seen == [b"GET http://fastdesk.invalid/v1/models HTTP/1.1"]


# ---- TLS -----------------------------------------------------------------------------------


def self_signed(tmp_path: Path) -> tuple[Path, Path]:
    """A certificate for localhost (and its key), signed by itself."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
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


def test_tls_is_verified(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cert, key = self_signed(tmp_path)
    server_tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_tls.load_cert_chain(cert, key)
    trusting = ssl.create_default_context(cafile=str(cert))

    async def handler(reader: Any, writer: Any, n: int) -> None:
        await keep_serving(OK_CHUNKED + chunked(b"secure"), reader, writer)

    async def go() -> tuple[bytes, type[Exception] | None, bytes]:
        refused: type[Exception] | None = None
        async with Server(handler, tls=server_tls) as server:
            async with client(ssl_context=trusting) as http:
                body = (await http.get(server.url)).content
            async with client() as http:  # the system's authorities do not know this one
                try:
                    await http.get(server.url)
                except httpx.ConnectError as exc:
                    refused = type(exc)
            monkeypatch.setenv("SSL_CERT_FILE", str(cert))  # a company's own authority
            async with client() as http:
                trusted = (await http.get(server.url)).content
        return body, refused, trusted

    assert run(go()) == (b"secure", httpx.ConnectError, b"secure")
