"""What realigning the review costs when another editor rewrote the document (prints numbers;
not a test).

    .venv/bin/python benchmarks/bench_realign.py [--paragraphs 500] [--runs 5]

Every paragraph of a translated document carries the user's own edit; the file on disk is then
rewritten (a word changed in every paragraph, one paragraph added every seven), so every edit
goes stale and is realigned onto its paragraph. A character-level diff once took 27 s for 500
paragraphs; the median and worst time of ``Review.realign`` over RUNS runs is printed.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fastdesk.document.blocks import parse
from tests.test_review import fresh


def realign_once(count: int) -> tuple[float, int]:
    paras = [f"Paragraph {i} says a few words about topic {i}, " * 3 + "\n\n" for i in range(count)]
    doc, review = fresh("".join(paras))
    for b in doc.blocks:
        review.edit(b.id, "mine: " + b.text)
    rewritten = "".join(
        p.replace("words", "things") + ("Added.\n\n" if i % 7 == 0 else "")
        for i, p in enumerate(paras)
    )
    new = parse(rewritten)
    start = time.perf_counter()
    stale = review.realign(new)
    return time.perf_counter() - start, len(stale)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--paragraphs", type=int, default=500)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    times = []
    for _ in range(args.runs):
        took, stale = realign_once(args.paragraphs)
        times.append(took)
    print(f"Review.realign, {args.paragraphs} paragraphs rewritten ({stale} stale edits):")
    print(f"  median {statistics.median(times) * 1e3:.1f} ms, worst {max(times) * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
