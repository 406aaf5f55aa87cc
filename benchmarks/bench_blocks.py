"""Segmentation speed of fastdesk.document.blocks.parse on realistic documents (prints figures; not
a test).

Run: ``.venv/bin/python benchmarks/bench_blocks.py [--runs N]``.
Each size is parsed whole, then a word typed in its middle is parsed again the way the live
translator does it (``reparse``: the blocks around the edit only).
The documents are generated from a fixed seed: headings, prose paragraphs with inline markup,
nested lists, tables, fenced code, block quotes, HTML, reference definitions, CRLF-free.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from fastdesk.document.blocks import join, parse, reparse

_PROSE = (
    "the translation engine sends only changed blocks to the fastest provider while editors "
    "review each paragraph side by side and the memory answers everything it has already seen "
    "latency matters more than throughput for live work"
)
WORDS = tuple(_PROSE.split(" "))


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(6, 18))]
    i = rng.randrange(len(words))
    words[i] = rng.choice([f"**{words[i]}**", f"`{words[i]}`", f"[{words[i]}][ref]", words[i]])
    return " ".join(words).capitalize() + "."


def _section(rng: random.Random, n: int) -> str:
    parts = [f"{'#' * rng.randint(1, 3)} Section {n}: {_sentence(rng)[:40]}"]
    for _ in range(rng.randint(2, 5)):
        parts.append("\n".join(_sentence(rng) for _ in range(rng.randint(1, 4))))
    choice = rng.randrange(6)
    if choice == 0:
        items = [f"- {_sentence(rng)}" for _ in range(rng.randint(2, 6))]
        items.insert(1, f"  1. {_sentence(rng)}\n  2. {_sentence(rng)}")
        parts.append("\n".join(items))
    elif choice == 1:
        rows = [
            f"| {rng.choice(WORDS)} | {rng.randint(1, 999)} |" for _ in range(rng.randint(2, 8))
        ]
        parts.append("| name | value |\n|------|------:|\n" + "\n".join(rows))
    elif choice == 2:
        parts.append("```python\n# not a heading\ndef f(x):\n    return x * 2\n```")
    elif choice == 3:
        parts.append("> " + _sentence(rng) + "\n> " + _sentence(rng))
    elif choice == 4:
        parts.append(f'<div class="note">\n{_sentence(rng)}\n</div>\n\n<!-- note {n} -->')
    else:
        parts.append(f"[ref]: https://example.com/{n} 'Title {n}'\n\n---")
    return "\n\n".join(parts) + "\n\n"


def make_document(size: int, seed: int = 1) -> str:
    """A realistic Markdown document of about ``size`` characters."""
    rng = random.Random(seed)
    out = ["---\ntitle: Benchmark\nlang: en\n---\n\n"]
    total, n = len(out[0]), 0
    while total < size:
        n += 1
        section = _section(rng, n)
        out.append(section)
        total += len(section)
    return "".join(out)


def bench(size: int, runs: int) -> None:
    source = make_document(size)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        doc = parse(source)
        times.append(time.perf_counter() - t0)
    assert join(b.text for b in doc.blocks) == source
    middle = doc.blocks[len(doc.blocks) // 2].start
    edited = source[:middle] + "Edited " + source[middle:]
    edits = []
    for _ in range(runs):
        t0 = time.perf_counter()
        after = reparse(doc, edited)
        edits.append(time.perf_counter() - t0)
    assert after == parse(edited)
    print(
        f"{len(source) / 1e6:5.2f} MB, {len(doc.blocks):6d} blocks: "
        f"median {statistics.median(times) * 1000:7.1f} ms, min {min(times) * 1000:7.1f} ms "
        f"over {runs} runs; a word typed in the middle: "
        f"median {statistics.median(edits) * 1000:6.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    bench(1_000_000, args.runs)
    bench(5_000_000, max(1, args.runs // 2))


if __name__ == "__main__":
    main()
