"""What a review costs and how long it takes, per 1,000 source words (prints figures; not a test).

    .venv/bin/python benchmarks/bench_review.py [--words 1000] [--concurrency 4] [--ttfb 0.1]

The reviewer pass (fastdesk.translate.quality) reviews each block of a translated document:
one request a block, its prompt the instructions, the source and the translation, its answer
the reasoning a gpt-oss model does first (``--reasoning-tokens``, billed as output) and the JSON
of the errors. Here the blocks are the EN→FR paragraphs of tests/data/meaning_corpus.py, as
many as make ``--words`` source words, reviewed through the real SDKs against the loopback
emulator streaming at each model's published speed, with the engine's request slots
(``--concurrency``) and the router's price table (resources/pricing.toml):

* Groq openai/gpt-oss-120b: 0.15 / 0.60 USD per million tokens in / out, ~500 tokens/s
* Groq openai/gpt-oss-20b: 0.075 / 0.30, ~1,000 tokens/s
* Cerebras gpt-oss-120b: 0.35 / 0.75, ~3,000 tokens/s

(prices and speeds read on 2026-12-02 from the providers' pricing and model pages). Tokens are
the emulator's count (≈ 4 characters a token). The time is the wall-clock time of reviewing
all the blocks, and the median time of one block's review.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fastdesk.providers.cerebras import CerebrasProvider
from fastdesk.providers.groq import GroqProvider
from fastdesk.routing.retry import RetryPolicy
from fastdesk.routing.router import Router
from fastdesk.routing.stats import StatsStore
from fastdesk.translate.events import EngineEvent, RequestDone
from fastdesk.translate.mqm import word_count
from fastdesk.translate.quality import Reviewer
from fastdesk.translate.slots import LAST, Slots
from tests.data.meaning_corpus import CORPUS
from tests.emulator import Emulator, scripted_reviewer

MODELS = (  # (label, provider, model, tokens per second)
    ("Groq openai/gpt-oss-120b", "groq", "openai/gpt-oss-120b", 500.0),
    ("Groq openai/gpt-oss-20b", "groq", "openai/gpt-oss-20b", 1000.0),
    ("Cerebras gpt-oss-120b", "cerebras", "gpt-oss-120b", 3000.0),
)


def blocks(words: int) -> list[tuple[str, str]]:
    """(source, French translation) paragraphs until ``words`` source words."""
    out: list[tuple[str, str]] = []
    total = 0
    while total < words:
        for source, answers in CORPUS:
            tag = f" ({len(out)})" if len(out) >= len(CORPUS) else ""  # no two alike
            out.append((source + tag, answers["fr"] + tag))
            total += word_count(source + tag)
            if total >= words:
                break
    return out


def finding(_source: str, target: str) -> str:
    """A reviewer's typical answer: one minor error, its span from the translation."""
    span = target.split(" ")[1]
    error = {"span": span, "category": "style", "severity": "minor",
             "explanation": "a more idiomatic word exists here"}  # fmt: skip
    return json.dumps({"errors": [error]})


async def review_all(
    reviewer: Reviewer, pairs: list[tuple[str, str]], concurrency: int
) -> tuple[float, list[float], list[RequestDone]]:
    slots = Slots(concurrency)
    done: list[RequestDone] = []
    each: list[float] = []

    def emit(event: EngineEvent) -> None:
        if isinstance(event, RequestDone):
            done.append(event)

    async def one(source: str, answer: str) -> None:
        async with slots.take(lambda: LAST):
            start = time.perf_counter()
            got = await reviewer.review(
                source, answer, source_lang="en", target_lang="fr", emit=emit
            )
            each.append(time.perf_counter() - start)
            if got is None:
                raise RuntimeError("a review failed")

    start = time.perf_counter()
    await asyncio.gather(*(one(s, a) for s, a in pairs))
    wall = time.perf_counter() - start
    await reviewer.router.aclose()
    return wall, each, done


def measure(args: argparse.Namespace, provider: str, model: str, tps: float) -> dict[str, float]:
    pairs = blocks(args.words)
    words = sum(word_count(s) for s, _a in pairs)
    reasoning = "x" * (4 * args.reasoning_tokens)
    with Emulator(
        tokens_per_second=tps,
        ttfb=args.ttfb,
        answer=scripted_reviewer(finding),
        reasoning=reasoning or None,
    ) as emu:
        key = "not-a-real-key-000000"
        adapter = (
            GroqProvider(f"gsk_{key}", base_url=emu.groq_base_url, default_model=model)
            if provider == "groq"
            else CerebrasProvider(f"csk-{key}", base_url=emu.cerebras_base_url, default_model=model)
        )
        router = Router({provider: adapter}, stats=StatsStore.memory(), retry=RetryPolicy.none())
        reviewer = Reviewer(router, None, model=f"{provider}/{model}", patient=True)
        wall, each, done = asyncio.run(review_all(reviewer, pairs, args.concurrency))
    prompt = sum(e.stats.prompt_tokens or 0 for e in done)
    completion = sum(e.stats.completion_tokens or 0 for e in done)
    cost = sum(e.stats.cost_usd or 0.0 for e in done)
    scale = 1000 / words
    return {
        "blocks": len(pairs),
        "words": words,
        "prompt_per_1k": prompt * scale,
        "completion_per_1k": completion * scale,
        "usd_per_1k": cost * scale,
        "wall_per_1k_s": wall * scale,
        "block_median_s": statistics.median(each),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--ttfb", type=float, default=0.1, help="seconds before the first token")
    parser.add_argument("--reasoning-tokens", type=int, default=150)
    args = parser.parse_args()
    print(
        f"Reviewing EN→FR paragraphs, ≥{args.words} source words; {args.concurrency} requests in "
        f"flight; time to first token {args.ttfb:g} s; {args.reasoning_tokens} reasoning tokens "
        "a review"
    )
    header = (
        f"{'model':<26} {'blocks':>6} {'in tok/1k w':>11} {'out tok/1k w':>12} "
        f"{'USD/1k words':>12} {'s/1k words':>10} {'one block s':>11}"
    )
    print(header)
    for label, provider, model, tps in MODELS:
        r = measure(args, provider, model, tps)
        print(
            f"{label:<26} {r['blocks']:>6.0f} {r['prompt_per_1k']:>11.0f} "
            f"{r['completion_per_1k']:>12.0f} {r['usd_per_1k']:>12.5f} "
            f"{r['wall_per_1k_s']:>10.2f} {r['block_median_s']:>11.2f}"
        )


if __name__ == "__main__":
    main()
