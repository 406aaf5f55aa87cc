"""The HTTP client the three adapters share, and what it takes for a local server.

- **Short timeouts**: connect 5 s, and 20 s per socket read (no next chunk in 20 s = timeout).
  Interactive work prefers a fast failure and a fallback to a long wait.
- **One HTTP stack, the one both SDKs document for async streaming**: httpx's API over aiohttp
  (``httpx_aiohttp``, the SDKs' ``aiohttp`` extra), HTTP/1.1, one shared keep-alive client per
  provider: no TLS handshake per request, an early close (cancel) really closes the connection
  (HTTP/2 streams would stay open), and aiohttp's C parser hands a streamed body up one socket
  read at a time, not one token at a time.
"""

from __future__ import annotations

import functools
import ipaddress
import os
import ssl
from typing import Any
from urllib.parse import urlsplit

import httpx
from httpx_aiohttp import HttpxAiohttpClient

DEFAULT_CONNECT_TIMEOUT = 5.0
DEFAULT_READ_TIMEOUT = 20.0
KEEPALIVE_EXPIRY = 30.0  # seconds an idle connection is kept: typing pauses stay warm


def make_timeout(
    read: float = DEFAULT_READ_TIMEOUT, connect: float = DEFAULT_CONNECT_TIMEOUT
) -> httpx.Timeout:
    """Connect timeout apart; ``read`` bounds each wait for the next bytes (and for a free
    connection of the pool)."""
    return httpx.Timeout(read, connect=connect)


def make_http_client(
    timeout: httpx.Timeout,
    *,
    client_class: type[httpx.AsyncClient] = HttpxAiohttpClient,
    **kwargs: Any,
) -> httpx.AsyncClient:
    """One keep-alive client per provider instance, over aiohttp.

    ``client_class`` is ``httpx_aiohttp.HttpxAiohttpClient`` or an SDK's ``DefaultAioHttpClient``
    (the same class with the SDK's defaults, all overridden here). Being an ``httpx.AsyncClient``,
    it reads proxies from the environment as httpx does (``HTTP_PROXY``, ``HTTPS_PROXY``,
    ``ALL_PROXY``, ``NO_PROXY``), each through its own aiohttp transport.
    """
    limits = httpx.Limits(
        max_connections=64, max_keepalive_connections=16, keepalive_expiry=KEEPALIVE_EXPIRY
    )
    kwargs.setdefault("verify", tls_context())
    return client_class(timeout=timeout, limits=limits, follow_redirects=True, **kwargs)


def tls_context() -> ssl.SSLContext:
    """The certificate authorities httpx would trust: ``SSL_CERT_FILE``, else ``SSL_CERT_DIR``,
    else certifi's. Loaded once a process for each setting (~30 ms a load), not once for every
    client and proxy transport."""
    return _tls_context(
        os.environ.get("SSL_CERT_FILE") or None, os.environ.get("SSL_CERT_DIR") or None
    )


@functools.cache
def _tls_context(cert_file: str | None, cert_dir: str | None) -> ssl.SSLContext:
    if cert_file:
        return ssl.create_default_context(cafile=cert_file)
    if cert_dir:
        return ssl.create_default_context(capath=cert_dir)
    return httpx.create_ssl_context(trust_env=False)


def is_local_url(url: str) -> bool:
    """A server on this machine or the LAN (loopback, private or link-local address, a bare or
    ``.local``/``.lan`` host name): a local model server, which bills nothing."""
    host = (urlsplit(url).hostname or "").lower()
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return bool(host) and ("." not in host or host.endswith((".local", ".lan", ".localhost")))
    return address.is_loopback or address.is_private or address.is_link_local
