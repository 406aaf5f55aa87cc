"""Engine figures against the loopback emulator (prints numbers; not a test).

    .venv/bin/python benchmarks/bench_engine.py

1. Tokens sent for a one-word edit in a 10-block vs a 1,000-block document.
2. First translation of a 300-block document at a simulated 300 ms time to first token:
   fastdesk's packed, concurrent plan vs one request per block sent one after another.
3. Reopening a translated document: time and requests when the memory answers.
4. What the engine adds on top of the provider's own time to first token (p50/p95).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fastdesk.document.blocks import parse
from fastdesk.providers.groq import GroqProvider
from fastdesk.routing.router import Router
from fastdesk.translate.engine import Engine
from fastdesk.translate.events import RequestDone
from fastdesk.translate.job import JobSpec
from fastdesk.translate.memory import Memory
from tests.emulator import Emulator

SPEC = JobSpec(target_lang="en")  # echo answers are correct English: no fidelity retries


def document(blocks: int) -> str:
    parts = []
    for i in range(blocks // 2):
        parts.append(f"## Section {i}\n\n")
        parts.append(f"Paragraph {i} explains one idea in two sentences. It has `code` too.\n\n")
    return "".join(parts)


async def translate(
    emu: Emulator, text: str, memory: Memory | None, **engine_kw
) -> tuple[float, list]:
    provider = GroqProvider("gsk_bench", base_url=emu.groq_base_url)
    engine = Engine(Router({"groq": provider}), memory, **engine_kw)
    stats: list = []

    def on(event: object) -> None:
        if isinstance(event, RequestDone):
            stats.append(event.stats)

    start = time.perf_counter()
    await engine.run(parse(text), SPEC, emit=on)
    elapsed = time.perf_counter() - start
    await provider.aclose()
    return elapsed, stats


def tokens_for_edit(emu: Emulator, blocks: int, tmp: Path) -> tuple[int, int]:
    memory = Memory(tmp / f"edit-{blocks}.sqlite3")
    text = document(blocks)
    asyncio.run(translate(emu, text, memory))
    edited = text.replace("Paragraph 3 explains", "Paragraph 3 describes")
    _t, stats = asyncio.run(translate(emu, edited, memory))
    return len(stats), sum(s.prompt_tokens or 0 for s in stats)


def main() -> None:
    tmp = Path(tempfile.mkdtemp())
    with Emulator() as emu:
        print("1. one-word edit (tokens sent, from the provider's usage)")
        for blocks in (10, 1000):
            n, tokens = tokens_for_edit(emu, blocks, tmp)
            print(f"   {blocks:5d}-block document: {n} request, {tokens} prompt tokens")

        print("2. first translation of a 300-block document, 300 ms time to first token")
        emu.configure(ttfb=0.3, tokens_per_second=2000)
        wall, stats = asyncio.run(translate(emu, document(300), None, concurrency=4))
        print(f"   fastdesk (packed, 4 in flight): {len(stats)} requests, {wall:.2f} s wall")
        wall1, stats1 = asyncio.run(
            translate(emu, document(300), None, concurrency=1, max_pack_blocks=1)
        )
        print(f"   one request per block, in turn:  {len(stats1)} requests, {wall1:.2f} s wall")
        print(f"   speed-up: {wall1 / wall:.1f}x")

        print("3. reopening a translated 300-block document")
        emu.configure(ttfb=0.0, tokens_per_second=None)
        memory = Memory(tmp / "reopen.sqlite3")
        asyncio.run(translate(emu, document(300), memory))
        runs = [asyncio.run(translate(emu, document(300), memory)) for _ in range(5)]
        print(
            f"   {statistics.median(r[0] for r in runs) * 1000:.1f} ms median,"
            f" {max(len(r[1]) for r in runs)} requests"
        )

        print("4. engine overhead on top of the provider's time to first token")
        emu.configure(ttfb=0.05, tokens_per_second=None)
        overheads = []
        for i in range(40):
            text = f"A single edited paragraph number {i}.\n"
            _t, stats = asyncio.run(translate(emu, text, None))
            overheads.append(stats[0].ttfb_ms - 50.0)
        overheads.sort()
        p50 = statistics.median(overheads)
        p95 = overheads[int(len(overheads) * 0.95) - 1]
        print(f"   client TTFB minus the emulator's 50 ms: p50 {p50:.1f} ms, p95 {p95:.1f} ms")
        print("   (includes a new client and connection per run, loopback HTTP and SSE parsing)")


if __name__ == "__main__":
    main()
