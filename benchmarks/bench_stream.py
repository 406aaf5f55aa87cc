"""CPU the engine's loop thread spends per streamed token (prints numbers; not a test).

    .venv/bin/python benchmarks/bench_stream.py [--requests 24] [--concurrency 4]

Streams REQUESTS answers (CONCURRENCY at a time, 400 tokens each) through the router and the
Groq adapter from tests/emulator.py in a child process (50 ms to first token, 2,000 tokens/s,
one SSE event per token, as the providers send them), and prints the loop thread's CPU time
for four set-ups: httpx over its own transport (httpcore, h11: what the SDKs use by default) or
over aiohttp (httpx_aiohttp, what fastdesk.providers.http_client.make_http_client builds), each in a
plain asyncio loop or in the window's paced loop (fastdesk.ui.bridge.threads.polite_event_loop,
PACE_S between waits for I/O).

Why it matters: in the window, this thread shares the GIL and the machine's cores with the GUI
thread (docs/performance.md).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx

from fastdesk.providers import http_client, sdk
from fastdesk.providers.groq import GroqProvider
from fastdesk.routing.router import Router
from fastdesk.ui.bridge import threads
from tests.emulator import EmulatorProcess

TOKENS = 400  # per answer
CHUNK_CHARS = 4
SENTENCE = "Paragraph explains one idea in plain words, links to the guide, mentions an option. "
TEXT = (SENTENCE * 20)[: TOKENS * CHUNK_CHARS]


def httpx_default_client(
    timeout: httpx.Timeout, *, client_class: Any = None, **kwargs: Any
) -> httpx.AsyncClient:
    """make_http_client's client over httpx's own transport (httpcore, h11) instead of aiohttp:
    what the SDKs use without their aiohttp extra."""
    limits = httpx.Limits(
        max_connections=64,
        max_keepalive_connections=16,
        keepalive_expiry=http_client.KEEPALIVE_EXPIRY,
    )
    return httpx.AsyncClient(
        http1=True, http2=False, timeout=timeout, limits=limits, follow_redirects=True, **kwargs
    )


async def stream_all(url: str, requests: int, concurrency: int) -> tuple[float, float, int]:
    """(CPU seconds of this thread, wall seconds, events received) for the streams after a
    first one that warms the connection and the imports up."""
    router = Router({"groq": GroqProvider("gsk_bench_not_a_real_key", base_url=url)})
    slots = asyncio.Semaphore(concurrency)
    received = 0

    async def one() -> None:
        nonlocal received
        async with slots:
            async for _event in router.stream([{"role": "user", "content": TEXT}]):
                received += 1

    await one()
    received = 0
    cpu, wall = time.thread_time(), time.perf_counter()
    await asyncio.gather(*(one() for _ in range(requests)))
    cpu, wall = time.thread_time() - cpu, time.perf_counter() - wall
    await router.aclose()
    return cpu, wall, received


def measure(url: str, requests: int, concurrency: int, loop: Callable[[], Any]) -> dict:
    event_loop = loop()
    try:
        cpu, wall, received = event_loop.run_until_complete(stream_all(url, requests, concurrency))
    finally:
        event_loop.close()
    tokens = requests * TOKENS
    return {
        "cpu_s": cpu,
        "wall_s": wall,
        "us_per_token": cpu / tokens * 1e6,
        "events": received,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=24)
    parser.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args()
    ours = http_client.make_http_client
    pace = threads.PACE_S
    print(
        f"{args.requests} answers of {TOKENS} tokens, {args.concurrency} at a time,"
        " 2,000 tokens/s each, through the router:"
    )
    with EmulatorProcess(ttfb=0.05, tokens_per_second=2000.0, chunk_chars=CHUNK_CHARS) as emu:
        for transport, client in (("httpcore,", httpx_default_client), ("aiohttp,", ours)):
            for paced in (False, True):
                sdk.make_http_client = client  # the name the SDK adapters call
                threads.PACE_S = pace if paced else 0.0
                loop = threads.polite_event_loop
                r = measure(emu.groq_base_url, args.requests, args.concurrency, loop)
                kind = f"paced {pace * 1000:.0f} ms" if paced else "unpaced"
                print(
                    f"  httpx over {transport:9s} {kind:12s}: loop thread CPU {r['cpu_s']:.2f} s"
                    f" in {r['wall_s']:.2f} s ({r['us_per_token']:.0f} µs a token),"
                    f" {r['events']} router events"
                )
    sdk.make_http_client = ours
    threads.PACE_S = pace


if __name__ == "__main__":
    main()
