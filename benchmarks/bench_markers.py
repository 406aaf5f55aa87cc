"""Requests a model that drops the pack markers costs (issue 44 item 2; prints figures).

    .venv/bin/python benchmarks/bench_markers.py [--blocks 280]

A loopback Groq emulator answers every request with its text, the marker lines between blocks
removed (the first kept: the answer starts like a pack, then runs the blocks together), the
way a model that ignores the instructions does. The engine must still write every block, and
each request spent on a pack it cannot map back is one too many. Printed per document and
pack policy (live typing's packs, a backfill's): requests, blocks, the ratio, blocks written.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fastdesk.document.blocks import parse
from fastdesk.providers.groq import GroqProvider
from fastdesk.routing.retry import RetryPolicy
from fastdesk.routing.router import Router
from fastdesk.routing.stats import StatsStore
from fastdesk.translate.engine import Engine
from fastdesk.translate.events import BlockDone, RequestDone
from fastdesk.translate.job import JobSpec
from tests.emulator import Emulator, last_user_content

SPEC = JobSpec(target_lang="en")  # echo answers are correct English: no fidelity retries
MARKER = re.compile(r"^<!--fd-\w+:\d+-->\n", re.MULTILINE)


def drops_markers(messages: Sequence[Mapping[str, Any]]) -> str:
    """Keeps the first marker line, drops the others (the blocks run together)."""
    text = last_user_content(messages)
    first = MARKER.search(text)
    if first is None:
        return text
    return text[: first.end()] + MARKER.sub("", text[first.end() :])


def drops_past_four(messages: Sequence[Mapping[str, Any]]) -> str:
    """Keeps the markers of packs up to four blocks, runs longer ones together."""
    text = last_user_content(messages)
    return drops_markers(messages) if len(MARKER.findall(text)) > 4 else text


MODELS = {"drops all": drops_markers, "drops past 4": drops_past_four}


def document(blocks: int, kind: str) -> str:
    parts = []
    for i in range(blocks // 2):
        if kind == "short":
            parts.append(f"## Part {i}\n\nParagraph {i} of the long document.\n\n")
        else:
            parts.append(
                f"## Section {i}\n\nParagraph {i} explains one idea in two sentences, with "
                f"`code` and a [link](https://example.com/{i}). It says a little more too.\n\n"
            )
    return "".join(parts)


async def translate(url: str, text: str, *, backfill: bool, concurrency: int) -> tuple[int, int]:
    provider = GroqProvider("gsk_bench_markers", base_url=url, default_model="openai/gpt-oss-20b")
    router = Router({"groq": provider}, stats=StatsStore.memory(), retry=RetryPolicy.none())
    engine = Engine(router, None, concurrency=concurrency, backfill=backfill)
    requests = written = 0

    def on(event: object) -> None:
        nonlocal requests, written
        if isinstance(event, RequestDone):
            requests += 1
        elif isinstance(event, BlockDone) and event.origin == "model":
            written += 1

    try:
        await engine.run(parse(text), SPEC, emit=on)
    finally:
        await router.aclose()
    return requests, written


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--blocks", type=int, default=280)
    args = ap.parse_args()
    print(
        f"{'model':12} {'document':8} {'packs':8} {'conc.':>5} {'requests':>8} {'blocks':>6} "
        f"{'ratio':>6} {'written':>7} {'wall':>6}"
    )
    for name, answer in MODELS.items():
        with Emulator(answer=answer, ttfb=0.05, tokens_per_second=4000, rate_limits=None) as emu:
            for kind in ("short", "long"):
                text = document(args.blocks, kind)
                blocks = sum(1 for b in parse(text).blocks if b.translatable and b.text.strip())
                for backfill in (False, True):
                    for concurrency in (4, 8):
                        start = time.perf_counter()
                        requests, written = asyncio.run(
                            translate(
                                emu.groq_base_url, text, backfill=backfill, concurrency=concurrency
                            )
                        )
                        wall = time.perf_counter() - start
                        print(
                            f"{name:12} {kind:8} {'backfill' if backfill else 'live':8} "
                            f"{concurrency:5d} {requests:8d} {blocks:6d} {requests / blocks:6.2f} "
                            f"{written:7d} {wall:5.1f}s"
                        )


if __name__ == "__main__":
    main()
