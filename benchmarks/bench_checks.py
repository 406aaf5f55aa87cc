"""What the answer checks cost per block (prints numbers; not a test).

    .venv/bin/python benchmarks/bench_checks.py [--pairs 200] [--runs 5]

The engine runs ``check_block`` on every answer before it is shown, so its cost is paid once
per translated block on the engine's thread. This times it on the typical paragraph of
tests/test_checks.py (an English paragraph and its French translation, each numbered so no two
pairs are equal): the median and worst per-pair time over RUNS runs of PAIRS pairs. The budget
is ~0.2 ms per typical paragraph.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fastdesk.translate.checks import check_block
from tests.test_checks import EN, FR


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--pairs", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    pairs = [(EN + f" {i}", FR + f" {i}") for i in range(args.pairs)]
    check_block(*pairs[0], target_lang="fr", mode="translate")  # warm: the language model loads
    per_pair = []
    for _ in range(args.runs):
        start = time.perf_counter()
        for source, answer in pairs:
            check_block(source, answer, target_lang="fr", mode="translate")
        per_pair.append((time.perf_counter() - start) / len(pairs))
    print(f"check_block, {args.pairs} typical paragraphs x {args.runs} runs:")
    print(
        f"  per pair: median {statistics.median(per_pair) * 1e3:.3f} ms, "
        f"worst {max(per_pair) * 1e3:.3f} ms (budget ~0.2 ms)"
    )


if __name__ == "__main__":
    main()
