"""Requests that survive the real world, against the loopback emulator (prints figures; not a test).

    .venv/bin/python benchmarks/bench_rate_limits.py [--typing-s 120] [--blocks 300]

A provider limited to 30 requests a minute, as Groq's free tier is (a 429 past it, no header
warning before), with fastdesk's limiter seeded from the published free tiers:

1. An editor typing for two minutes with short pauses (the live session, headless: an update
   300 ms into each pause, as the window's debounce sends it): 429s met (goal: none).
2. Translating a 300-block document, four blocks a request (75 requests, so the limit binds):
   429s met (goal: at most one, then none), and the time it took.
3. The same document through a provider that fails one request in five (503), with retries:
   blocks written, exit status the command line would give.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fastdesk.document.blocks import parse
from fastdesk.providers.groq import GroqProvider
from fastdesk.routing.limiter import Limiter
from fastdesk.routing.router import Router
from fastdesk.routing.stats import StatsStore
from fastdesk.translate.engine import Engine, JobSpec
from fastdesk.translate.events import BlockDone, BlockFailed, EngineEvent, Waiting
from fastdesk.translate.live import LiveSession
from tests.emulator import Emulator

SPEC = JobSpec(target_lang="en")  # echo answers are correct English
MODEL = "llama-3.1-8b-instant"  # Groq free tier: 30 requests/min (resources/rate_limits.toml)


def document(blocks: int) -> str:
    return "".join(
        f"## Section {i}\n\nParagraph {i} explains one idea in a sentence or two.\n\n"
        for i in range(blocks // 2)
    )


def engine_for(emu: Emulator, limited: bool = True, **kw: int) -> Engine:
    provider = GroqProvider(
        "gsk_bench_not_a_real_key_000000", base_url=emu.groq_base_url, default_model=MODEL
    )
    limiter = Limiter() if limited else Limiter(table={})
    router = Router({"groq": provider}, stats=StatsStore.memory(), limiter=limiter)
    return Engine(router, None, **kw)


async def typing(emu: Emulator, seconds: float, rng: random.Random) -> tuple[int, int, int]:
    """(updates sent, requests, waits announced) for ``seconds`` of typing."""
    engine = engine_for(emu)
    waits: list[EngineEvent] = []

    def emit(event: EngineEvent) -> None:
        if isinstance(event, Waiting):
            waits.append(event)

    session = LiveSession(engine, SPEC, emit)
    paragraphs = [f"Paragraph {i} of the draft." for i in range(12)]
    revision = 0
    session.update("\n\n".join(paragraphs) + "\n", revision)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        target = rng.randrange(len(paragraphs))
        for _ in range(rng.randint(2, 8)):  # a burst of keystrokes, ~8 a second
            paragraphs[target] += rng.choice("abcdefghij klmnop")
            await asyncio.sleep(0.12)
        await asyncio.sleep(0.3)  # the debounce: the window sends the text now
        revision += 1
        session.update("\n\n".join(paragraphs) + "\n", revision)
        await asyncio.sleep(rng.uniform(0.1, 0.8))  # the rest of the pause
    await session.aclose()
    await engine.router.aclose()
    return revision, len(emu.chat_requests), len(waits)


async def translate(
    emu: Emulator, blocks: int, limited: bool = True, **kw: int
) -> tuple[int, int, float]:
    """(blocks done, blocks failed, seconds) for a ``blocks``-block document."""
    engine = engine_for(emu, limited, **kw)
    events: list[EngineEvent] = []
    start = time.monotonic()
    await engine.run(parse(document(blocks)), SPEC, emit=events.append)
    took = time.monotonic() - start
    await engine.router.aclose()
    done = sum(isinstance(e, BlockDone) for e in events)
    failed = sum(isinstance(e, BlockFailed) for e in events)
    return done, failed, took


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--typing-s", type=float, default=120.0)
    parser.add_argument("--blocks", type=int, default=300)
    args = parser.parse_args()
    print("A provider limited to 30 requests/minute (429 past it), fastdesk's limiter on:")
    with Emulator(limit_rpm=30, rate_limits=None) as emu:
        updates, requests, waits = asyncio.run(typing(emu, args.typing_s, random.Random(7)))
        print(
            f"1. typing {args.typing_s:.0f} s: {updates} updates, {requests} requests, "
            f"{waits} waits shown, 429s met: {emu.refused}"
        )
    with Emulator(limit_rpm=30, rate_limits=None) as emu:
        done, failed, took = asyncio.run(translate(emu, args.blocks, max_batch_blocks=4))
        print(
            f"2. {args.blocks}-block document, 4 blocks a request: {len(emu.chat_requests)} "
            f"requests, 429s met: {emu.refused}, {done} blocks done, {failed} failed, "
            f"{took:.0f} s"
        )
    with Emulator(fail_every=5, rate_limits=None) as emu:
        done, failed, took = asyncio.run(
            translate(emu, args.blocks, limited=False, max_batch_blocks=4)
        )
        exit_status = 1 if failed else 0
        print(
            f"3. {args.blocks}-block document, one request in five answers 503: "
            f"{len(emu.chat_requests)} requests, {done} blocks done, {failed} failed "
            f"(exit {exit_status}), {took:.0f} s"
        )


if __name__ == "__main__":
    main()
