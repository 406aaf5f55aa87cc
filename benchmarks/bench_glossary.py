"""A glossary at scale (prints numbers; not a test).

    .venv/bin/python benchmarks/bench_glossary.py

A 50-paragraph document translated against the loopback emulator (no memory) with no
glossary, then with CSV glossaries of 5,000 and 100,000 terms (loaded from the file, as a
folder glossary is), the emulator at a provider's pace: the median wall time of 5 runs,
interleaved, and its ratio to the run without. Then the matching alone: ``Glossary.for_text``
and ``Glossary.check`` over the 50 paragraphs.
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
from fastdesk.translate.glossary import Glossary, load_glossary
from fastdesk.translate.job import JobSpec
from tests.emulator import Emulator

PARAGRAPHS = 50
ROUNDS = 5


def document() -> str:
    return "".join(
        f"Paragraph {i} explains how the Fastdesk widget{i} part works with the router. "
        f"It has `code` too and mentions Brand{i % 7}.\n\n"
        for i in range(PARAGRAPHS)
    )


def csv_glossary(folder: Path, terms: int) -> Path:
    """``terms`` rows: most are forced translations into English of words the document does
    not use, one in a hundred a kept term it does (an empty target keeps the term)."""
    rows = ["fr,en"]
    for i in range(terms):
        if i % 100 == 0:
            rows.append(f"Brand{i % 7} edition {i},")
        rows.append(f"terme{i} spécial,special term {i}")
    rows.append("Fastdesk,")
    path = folder / f"glossary-{terms}.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


async def translate(emu: Emulator, text: str, glossary: Glossary | None) -> float:
    provider = GroqProvider("gsk_bench", base_url=emu.groq_base_url)
    engine = Engine(Router({"groq": provider}), None)
    spec = JobSpec(target_lang="en", glossary=glossary)  # echo answers are correct English
    start = time.perf_counter()
    await engine.run(parse(text), spec, emit=lambda _e: None)
    elapsed = time.perf_counter() - start
    await provider.aclose()
    return elapsed


def main() -> None:
    tmp = Path(tempfile.mkdtemp())
    text = document()
    blocks = [b.split()[1] for b in parse(text).blocks if b.translatable]
    paths = {terms: csv_glossary(tmp, terms) for terms in (5_000, 100_000)}
    with Emulator() as emu:
        # a provider's pace: 200 ms to the first token, 1,000 tokens a second
        emu.configure(ttfb=0.2, tokens_per_second=1000)
        asyncio.run(translate(emu, text, None))  # warm: the language check loads its model
        runs: dict[int, list[float]] = {0: [], **{t: [] for t in paths}}
        loads: dict[int, list[float]] = {t: [] for t in paths}
        for _ in range(ROUNDS):  # interleaved, so a busy moment of the machine hits all alike
            runs[0].append(asyncio.run(translate(emu, text, None)))
            for terms, path in paths.items():
                start = time.perf_counter()
                glossary = load_glossary([path])  # a fresh one: nothing cached from before
                loads[terms].append(time.perf_counter() - start)
                runs[terms].append(asyncio.run(translate(emu, text, glossary)))
        base = statistics.median(runs[0])
        print(f"{PARAGRAPHS} paragraphs, median of {ROUNDS}, no glossary: {base:.2f} s")
        for terms, path in paths.items():
            wall, load = statistics.median(runs[terms]), statistics.median(loads[terms])
            print(
                f"{terms:>7,} terms ({path.stat().st_size / 1e3:,.0f} kB): {wall:.2f} s "
                f"({wall / base:.2f}x), {(wall + load) / base:.2f}x with reading the file "
                f"({load:.2f} s)"
            )
            glossary = load_glossary([path])
            start = time.perf_counter()
            glossary.for_text(blocks[0], "en")
            built = time.perf_counter() - start
            start = time.perf_counter()
            for block in blocks[1:]:
                glossary.for_text(block, "en")
                glossary.check(block, block, "en")
            rest = time.perf_counter() - start
            print(
                f"         matching alone: {built * 1000:.0f} ms for the first block (the "
                f"automaton is built), {rest / (len(blocks) - 1) * 1000:.2f} ms a block after"
            )


if __name__ == "__main__":
    main()
