"""An HTTP/1.1 transport for httpx that hands a streamed body on one socket read at a time.

Why: providers send a streamed answer as one HTTP chunk per token, and httpx's own transport
(httpcore over h11) passes a chunked body up one chunk at a time, each through a dozen layers of
Python: on our 2-core machine ~150 µs a token, so at 2,000 tokens/s the engine thread was busy
almost all the time reading, holding the GIL the GUI thread needs (docs/performance.md). Here the
chunks one read brings are joined before they go up: the SDKs, httpx's client (auth, redirects,
cookies, content decoding) and our error mapping see the same ``httpx.Response`` as before, at a
fraction of the cost (benchmarks/bench_stream.py).

Scope, on purpose: plain HTTP/1.1 over TCP or TLS, keep-alive connections pooled per origin, the
request's connect/read/write/pool timeouts, httpx's exception types. No HTTP/2, no upgrades.
Proxies stay with httpx's own transport (:func:`proxy_mounts`): given a transport, httpx no
longer reads them from the environment itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import ssl
import time
import urllib.request
from collections.abc import AsyncIterator
from typing import Any, NamedTuple

import httpx

READ_SIZE = 64 * 1024  # one socket read; also the most a response's head may take
DEFAULT_PORTS = {"http": 80, "https": 443}

Origin = tuple[str, str, int]
Headers = list[tuple[bytes, bytes]]


class Head(NamedTuple):
    """A response's status line and headers."""

    version: bytes  # b"HTTP/1.1" or b"HTTP/1.0"
    status: int
    reason: bytes
    headers: Headers

    @property
    def persistent(self) -> bool:
        """The connection may carry another request after this response (RFC 9112 9.3)."""
        if self.version == b"HTTP/1.0":
            return _has_token(self.headers, b"connection", b"keep-alive")
        return not _has_token(self.headers, b"connection", b"close")


class Connection:
    """One TCP (or TLS) connection to an origin; ``idle_since`` is set while it is pooled."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.idle_since = 0.0

    def usable(self, now: float, expiry: float | None) -> bool:
        """Still worth reusing: not closed (by us or the peer), not idle too long."""
        if self.writer.is_closing() or self.reader.at_eof():
            return False
        return expiry is None or now - self.idle_since < expiry

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.writer.close()


class StreamingTransport(httpx.AsyncBaseTransport):
    """``httpx.AsyncClient(transport=StreamingTransport(...))``; see the module docstring."""

    def __init__(
        self,
        *,
        limits: httpx.Limits | None = None,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        limits = limits or httpx.Limits()
        self._ssl = ssl_context
        self._expiry = limits.keepalive_expiry
        self._max_idle = limits.max_keepalive_connections
        self._slots = asyncio.Semaphore(limits.max_connections) if limits.max_connections else None
        self._idle: dict[Origin, list[Connection]] = {}
        self._closed = False

    # ---- the pool ------------------------------------------------------------------------------

    def _ssl_context(self) -> ssl.SSLContext:
        if self._ssl is None:  # built on first use: loading the certificates takes ~40 ms
            self._ssl = httpx.create_ssl_context()
        return self._ssl

    def _take_idle(self, origin: Origin) -> Connection | None:
        idle = self._idle.get(origin)
        now = time.monotonic()
        while idle:
            conn = idle.pop()
            if conn.usable(now, self._expiry):
                return conn
            conn.close()
        return None

    def _give_back(self, origin: Origin, conn: Connection) -> None:
        """Pool a connection whose response was read to its end (closed instead when the
        transport is closed or the pool is full)."""
        if self._closed or (self._max_idle is not None and self._pooled() >= self._max_idle):
            conn.close()
            return
        conn.idle_since = time.monotonic()
        self._idle.setdefault(origin, []).append(conn)

    def _pooled(self) -> int:
        return sum(len(conns) for conns in self._idle.values())

    async def _connect(self, origin: Origin, request: httpx.Request, timeout: Any) -> Connection:
        scheme, host, port = origin
        tls = self._ssl_context() if scheme == "https" else None
        try:
            async with asyncio.timeout(timeout):
                reader, writer = await asyncio.open_connection(
                    host, port, ssl=tls, server_hostname=host if tls else None, limit=READ_SIZE
                )
        except TimeoutError:
            raise httpx.ConnectTimeout(
                f"connecting to {host}:{port} timed out", request=request
            ) from None
        except (OSError, ssl.SSLError) as exc:
            raise httpx.ConnectError(
                f"cannot connect to {host}:{port}: {exc}", request=request
            ) from exc
        return Connection(reader, writer)

    # ---- a request -----------------------------------------------------------------------------

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self._closed:
            raise RuntimeError("the transport is closed")
        scheme = request.url.scheme
        if scheme not in DEFAULT_PORTS:
            raise httpx.UnsupportedProtocol(f"unsupported URL scheme {scheme!r}", request=request)
        origin = (scheme, request.url.host, request.url.port or DEFAULT_PORTS[scheme])
        timeouts = request.extensions.get("timeout", {})
        data = _request_bytes(request, await request.aread())
        await self._acquire_slot(request, timeouts.get("pool"))
        try:
            conn, answer = await self._exchange(origin, request, data, timeouts)
        except BaseException:
            self._release_slot()
            raise
        stream = ResponseBody(self, origin, conn, request, answer, timeouts.get("read"))
        return httpx.Response(
            answer.status,
            headers=answer.headers,
            stream=stream,
            extensions={"http_version": answer.version, "reason_phrase": answer.reason},
        )

    async def _exchange(
        self, origin: Origin, request: httpx.Request, data: bytes, timeouts: dict[str, Any]
    ) -> tuple[Connection, Head]:
        """Send the request and read the response's head, on a pooled connection if one is
        left; one the server closed while it was idle (it went before any answer) is replaced
        by a new one, once."""
        conn = self._take_idle(origin)
        if conn is not None:
            try:
                return conn, await _round_trip(conn, request, data, timeouts)
            except (_Disconnected, httpx.WriteError, httpx.ReadError):
                pass
        conn = await self._connect(origin, request, timeouts.get("connect"))
        return conn, await _round_trip(conn, request, data, timeouts)

    async def _acquire_slot(self, request: httpx.Request, timeout: Any) -> None:
        if self._slots is None:
            return
        try:
            async with asyncio.timeout(timeout):
                await self._slots.acquire()
        except TimeoutError:
            raise httpx.PoolTimeout("no free connection in time", request=request) from None

    def _release_slot(self) -> None:
        if self._slots is not None:
            self._slots.release()

    def _finished(self, origin: Origin, conn: Connection, reusable: bool) -> None:
        """A response's body was read to its end (reusable) or dropped."""
        if reusable:
            self._give_back(origin, conn)
        else:
            conn.close()
        self._release_slot()

    async def aclose(self) -> None:
        self._closed = True
        idle, self._idle = self._idle, {}
        for conns in idle.values():
            for conn in conns:
                conn.close()


class ResponseBody(httpx.AsyncByteStream):
    """The body of one response: chunked, of a given length, or up to the connection's end."""

    def __init__(
        self,
        transport: StreamingTransport,
        origin: Origin,
        conn: Connection,
        request: httpx.Request,
        head: Head,
        read_timeout: Any,
    ) -> None:
        self._transport, self._origin, self._conn = transport, origin, conn
        self._request = request
        self._timeout = read_timeout
        self._done = False
        self._released = False
        self._clean = True  # no bytes past the body's end (else the connection is not reused)
        self._keep_alive = head.persistent
        self._chunks: ChunkDecoder | None = None
        self._left: int | None = None  # bytes of a Content-Length body still to come
        if request.method == "HEAD" or head.status in (204, 304) or 100 <= head.status < 200:
            self._left = 0
        elif _has_token(head.headers, b"transfer-encoding", b"chunked"):
            self._chunks = ChunkDecoder()
        else:
            length = _header(head.headers, b"content-length")
            if length is not None and length.strip().isdigit():
                self._left = int(length)
            else:  # the body ends with the connection
                self._keep_alive = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            while not self._done:
                data = await self._read()
                if self._chunks is not None:
                    try:
                        out = self._chunks.feed(data)
                    except ValueError as exc:
                        raise httpx.RemoteProtocolError(str(exc), request=self._request) from exc
                    self._done = self._chunks.done
                    self._clean = not self._chunks.leftover
                elif self._left is not None:
                    out = data[: self._left]
                    self._left -= len(out)
                    self._done = self._left == 0
                    self._clean = len(out) == len(data)
                else:
                    out = data
                if out:
                    yield out
        except BaseException:
            self._release(reusable=False)
            raise
        self._release(reusable=self._keep_alive and self._clean)

    async def _read(self) -> bytes:
        if self._left == 0 and self._chunks is None:
            self._done = True
            return b""
        try:
            async with asyncio.timeout(self._timeout):
                data = await self._conn.reader.read(READ_SIZE)
        except TimeoutError:
            raise httpx.ReadTimeout(
                "the server sent nothing in time", request=self._request
            ) from None
        except OSError as exc:
            raise httpx.ReadError(
                f"reading the response failed: {exc}", request=self._request
            ) from exc
        if data:
            return data
        if self._chunks is None and self._left is None:  # the end of a body read to EOF
            self._done = True
            return b""
        raise httpx.RemoteProtocolError(
            "peer closed connection without sending complete message body", request=self._request
        )

    def _release(self, *, reusable: bool) -> None:
        if not self._released:
            self._released = True
            self._transport._finished(self._origin, self._conn, reusable and self._done)

    async def aclose(self) -> None:
        """Before the end of the body: the connection cannot carry another request."""
        self._release(reusable=False)


class ChunkDecoder:
    """Incremental ``Transfer-Encoding: chunked`` decoding: ``feed`` returns the body bytes
    the data completes (all its chunks joined); ``done`` once the last chunk and trailers
    arrived. Raises ValueError on a malformed chunk."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._size: int | None = None  # the size of the chunk whose data is awaited
        self._trailers = False
        self.done = False

    def feed(self, data: bytes) -> bytes:
        buf = self._buffer
        buf += data
        out: list[bytes] = []
        pos = 0
        while not self.done:
            if self._trailers:  # after the last chunk: trailer lines up to a blank one
                end = buf.find(b"\r\n", pos)
                if end < 0:
                    break
                self.done = end == pos
                pos = end + 2
            elif self._size is None:
                end = buf.find(b"\r\n", pos)
                if end < 0:
                    if len(buf) - pos > 1024:
                        raise ValueError("chunk size line too long")
                    break
                size = buf[pos:end].split(b";", 1)[0].strip()
                try:
                    self._size = int(size, 16)
                except ValueError:
                    raise ValueError(f"malformed chunk size {bytes(size)[:20]!r}") from None
                pos = end + 2
                if self._size == 0:
                    self._trailers = True
                    self._size = None
            else:
                if len(buf) - pos < self._size + 2:
                    break
                end = pos + self._size
                if buf[end : end + 2] != b"\r\n":
                    raise ValueError("chunk data not followed by CRLF")
                out.append(bytes(buf[pos:end]))
                pos = end + 2
                self._size = None
        del buf[:pos]
        return b"".join(out)

    @property
    def leftover(self) -> int:
        """Bytes received after the body's end (none on a sound connection)."""
        return len(self._buffer) if self.done else 0


def proxy_mounts(limits: httpx.Limits) -> dict[str, httpx.AsyncBaseTransport | None]:
    """``mounts`` for an ``httpx.AsyncClient``: the proxies the environment names
    (``HTTP_PROXY``, ``HTTPS_PROXY``, ``ALL_PROXY``; ``NO_PROXY`` as curl reads it, the way httpx
    does when it reads them itself), each through httpx's own transport. A host ``NO_PROXY``
    names maps to None: the client's transport, direct."""
    found = urllib.request.getproxies()
    proxies: dict[str, str | None] = {}
    for scheme in ("http", "https", "all"):
        url = found.get(scheme)
        if url:
            proxies[f"{scheme}://"] = url if "://" in url else f"http://{url}"
    if not proxies:
        return {}
    for host in (h.strip() for h in found.get("no", "").split(",")):
        if host == "*":
            return {}
        if host:
            proxies[_no_proxy_pattern(host)] = None
    return {
        pattern: None if url is None else httpx.AsyncHTTPTransport(proxy=url, limits=limits)
        for pattern, url in proxies.items()
    }


def _no_proxy_pattern(host: str) -> str:
    if "://" in host:
        return host
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return f"all://{host}" if host.lower() == "localhost" else f"all://*{host}"
    return f"all://[{host}]" if address.version == 6 else f"all://{host}"


# ---- the wire ----------------------------------------------------------------------------------


def _request_bytes(request: httpx.Request, body: bytes) -> bytes:
    """The request on the wire: its head, then its body (read whole: the SDKs send JSON), as
    one chunk when httpx framed it as chunked (a body of unknown length, such as a generator)."""
    target = request.url.raw_path or b"/"
    lines = [request.method.encode("ascii") + b" " + target + b" HTTP/1.1"]
    lines.extend(name + b": " + value for name, value in request.headers.raw)
    head = b"\r\n".join(lines) + b"\r\n\r\n"
    if _has_token(request.headers.raw, b"transfer-encoding", b"chunked"):
        body = (b"%x\r\n%s\r\n" % (len(body), body) if body else b"") + b"0\r\n\r\n"
    return head + body


class _Disconnected(httpx.RemoteProtocolError):
    """The connection ended before any byte of a response."""


async def _round_trip(
    conn: Connection, request: httpx.Request, data: bytes, timeouts: dict[str, Any]
) -> Head:
    try:
        await _send(conn, data, request, timeouts.get("write"))
        return await _read_head(conn, request, timeouts.get("read"))
    except BaseException:
        conn.close()
        raise


async def _send(conn: Connection, data: bytes, request: httpx.Request, timeout: Any) -> None:
    try:
        async with asyncio.timeout(timeout):
            conn.writer.write(data)
            await conn.writer.drain()
    except TimeoutError:
        raise httpx.WriteTimeout("sending the request timed out", request=request) from None
    except OSError as exc:
        raise httpx.WriteError(f"sending the request failed: {exc}", request=request) from exc


async def _read_head(conn: Connection, request: httpx.Request, timeout: Any) -> Head:
    """The response's status line and headers (1xx interim responses skipped)."""
    while True:
        try:
            async with asyncio.timeout(timeout):
                head = await conn.reader.readuntil(b"\r\n\r\n")
        except TimeoutError:
            raise httpx.ReadTimeout(
                "the server sent no response in time", request=request
            ) from None
        except asyncio.IncompleteReadError as exc:
            kind = httpx.RemoteProtocolError if exc.partial else _Disconnected
            raise kind("server disconnected without sending a response", request=request) from exc
        except asyncio.LimitOverrunError:
            raise httpx.RemoteProtocolError("response headers too long", request=request) from None
        except OSError as exc:
            raise httpx.ReadError(f"reading the response failed: {exc}", request=request) from exc
        answer = _parse_head(head, request)
        if not 100 <= answer.status < 200 or answer.status == 101:
            return answer


def _parse_head(head: bytes, request: httpx.Request) -> Head:
    lines = head[:-4].split(b"\r\n")
    parts = lines[0].split(b" ", 2)
    if len(parts) < 2 or parts[0] not in (b"HTTP/1.1", b"HTTP/1.0") or not parts[1].isdigit():
        raise httpx.RemoteProtocolError(f"malformed status line {lines[0][:40]!r}", request=request)
    headers: Headers = []
    for line in lines[1:]:
        name, sep, value = line.partition(b":")
        if not sep or not name or name != name.strip():
            raise httpx.RemoteProtocolError("malformed response header", request=request)
        headers.append((name, value.strip()))
    return Head(parts[0], int(parts[1]), parts[2] if len(parts) > 2 else b"", headers)


def _header(headers: Headers, name: bytes) -> bytes | None:
    for key, value in headers:
        if key.lower() == name:
            return value
    return None


def _has_token(headers: Headers, name: bytes, token: bytes) -> bool:
    return any(
        key.lower() == name and token in (t.strip().lower() for t in value.split(b","))
        for key, value in headers
    )
