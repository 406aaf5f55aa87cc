"""The house style's costs: picking the editor's corrections most like a request's text (the
engine's thread, every request) and simplify's reading ease (the window's helper thread).

    .venv/bin/python benchmarks/bench_house.py

Prints medians of 5 runs (docs/performance.md, "House style").
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable

from fastdesk.config.paths import resource
from fastdesk.translate.examples import Example, ExampleBank, words
from fastdesk.translate.readability import reading_ease


def per_call_ms(work: Callable[[int], object], calls: int) -> float:
    """The median over 5 runs of the time a call takes."""
    runs = []
    for _ in range(5):
        start = time.perf_counter()
        for i in range(calls):
            work(i)
        runs.append((time.perf_counter() - start) / calls * 1000)
    return statistics.median(runs)


def main() -> None:
    random.seed(1)
    vocab = [f"w{i}" for i in range(3000)] + ["the", "a", "to", "of", "and"] * 40
    bank = ExampleBank(
        Example(" ".join(random.choices(vocab, k=25)), "t " * 20) for _ in range(5000)
    )
    texts = [" ".join(random.choices(vocab, k=30)) for _ in range(50)]
    bank.pick(texts[0])

    def each(i: int) -> object:  # what pick did before its index: score every correction
        wanted = words(texts[i % 50])
        return sorted(
            (len(wanted & e.words) / len(wanted | e.words), e.source) for e in bank.examples
        )

    indexed = per_call_ms(lambda i: bank.pick(texts[i % 50]), 50)
    each_ms = per_call_ms(each, 10)
    print(f"pick among 5,000 corrections: {indexed:.1f} ms (scoring each: {each_ms:.1f} ms)")
    sample = resource("sample.md").read_text(encoding="utf-8")
    start = time.perf_counter()
    reading_ease(sample, "en")
    first = (time.perf_counter() - start) * 1000
    again = per_call_ms(lambda i: reading_ease(f"{sample}{i}", "en"), 5)
    print(f"reading ease of sample.md: {first:.0f} ms the first time, {again:.1f} ms after")
    big = sample * 20
    long = per_call_ms(lambda i: reading_ease(f"{big}{i}", "en"), 2)
    print(f"reading ease of 20 × sample.md ({len(big) // 1000} kB): {long:.0f} ms")


if __name__ == "__main__":
    main()
