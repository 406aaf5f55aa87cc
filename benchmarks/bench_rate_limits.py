"""Requests that survive the real world, against the loopback emulator (prints figures; not a test).

    .venv/bin/python benchmarks/bench_rate_limits.py [--typing-s 120] [--blocks 300] [--seed 7]

A provider limited to 30 requests a minute, as Groq's free tier is (a 429 past it, no header
warning before), with fastdesk's limiter seeded from the published free tiers:

1. An editor typing for two minutes (the live translator, headless, each edit sent when the
   window's sending policy says: ``translate/sending.py``'s ``what_was_typed`` and
   ``SendPolicy`` with the limiter's room, the debounce setting 300 ms as its upper bound, so a
   sentence end or leaving the paragraph sends at once): requests a minute, 429s met (goal:
   none); then the same typist on a model with 1,000 requests a day (how long the day lasts).
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
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fastdesk.document.blocks import parse
from fastdesk.providers.groq import GroqProvider
from fastdesk.routing.limiter import Headroom, Limiter
from fastdesk.routing.router import Router
from fastdesk.routing.stats import StatsStore
from fastdesk.translate.engine import Engine
from fastdesk.translate.events import BlockDone, BlockFailed, EngineEvent, Waiting
from fastdesk.translate.job import JobSpec
from fastdesk.translate.live import LiveTranslator
from fastdesk.translate.sending import (
    BOUNDARIES,
    TYPICAL_TOKENS,
    Kind,
    SendPolicy,
    what_was_typed,
)
from tests.emulator import Emulator

SPEC = JobSpec(target_lang="en")  # echo answers are correct English
MODEL = "llama-3.1-8b-instant"  # Groq free tier: 30 requests/min (resources/rate_limits.toml)
SMALL_DAY = "openai/gpt-oss-120b"  # Groq free tier: 30 requests/min and 1,000 a day


def document(blocks: int) -> str:
    return "".join(
        f"## Section {i}\n\nParagraph {i} explains one idea in a sentence or two.\n\n"
        for i in range(blocks // 2)
    )


def engine_for(emu: Emulator, limited: bool = True, model: str = MODEL, **kw: int) -> Engine:
    provider = GroqProvider(
        "gsk_bench_not_a_real_key_000000", base_url=emu.groq_base_url, default_model=model
    )
    limiter = Limiter() if limited else Limiter(table={})
    router = Router({"groq": provider}, stats=StatsStore.memory(), limiter=limiter)
    return Engine(router, None, **kw)


# the words bench_typing.py's typist uses (its TEXT), a few of them
WORDS = ["the", "editor", "writes", "a", "short", "note", "about", "release", "and", "its", "new"]
WORDS += ["features", "while", "team", "reviews", "every", "change", "before", "it", "ships"]
DEBOUNCE_S = 0.3  # the window's debounce setting (Settings.debounce_ms): the wait's upper bound


class Sender:
    """What the window's document view does with an edit (ui/document/view.py): ask the policy
    how long to wait (what was typed, the limiter's room now) and restart its one timer; leaving
    the line of an edit not sent yet sends it now."""

    def __init__(self, translator: LiveTranslator, engine: Engine) -> None:
        self.translator, self.engine = translator, engine
        self.policy = SendPolicy(DEBOUNCE_S)
        self.timer: asyncio.TimerHandle | None = None
        self.text, self.revision = "", 0
        self.sent: Counter[str] = Counter()
        self.kind: Kind = "typing"

    def headroom(self) -> Headroom | None:
        router = self.engine.router
        choices = router.candidates(SPEC.provider, SPEC.model, lang=SPEC.target_lang)
        return router.limiter.headroom(choices[0], TYPICAL_TOKENS) if choices else None

    def edited(self, text: str, kind: Kind) -> None:
        self.text = text
        self.schedule(kind)

    def left(self) -> None:
        if self.timer is not None:
            self.schedule("left")

    def schedule(self, kind: Kind) -> None:
        if self.timer is not None:
            self.timer.cancel()
        self.kind = kind
        delay = self.policy.delay_s(kind, self.headroom())
        self.timer = asyncio.get_running_loop().call_later(delay, self.send)

    def send(self) -> None:
        self.timer = None
        self.revision += 1
        self.translator.update(self.text, self.revision)
        self.policy.sent()
        self.sent["boundary" if self.kind in BOUNDARIES else "mid-sentence"] += 1


async def typing(
    emu: Emulator, seconds: float, rng: random.Random, model: str = MODEL
) -> tuple[Counter[str], int, int, str | None]:
    """(updates sent by kind, requests, waits announced, the policy's note on the day's limit)
    for ``seconds`` of typing: words at
    ≈65 a minute with jitter, sentence ends, pauses after them and now and then mid-sentence,
    and a move to another paragraph every few sentences."""
    engine = engine_for(emu, model=model)
    waits: list[EngineEvent] = []

    def emit(event: EngineEvent) -> None:
        if isinstance(event, Waiting):
            waits.append(event)

    translator = LiveTranslator(engine, SPEC, emit)
    paragraphs = [f"Paragraph {i} of the draft." for i in range(12)]
    translator.update("\n\n".join(paragraphs) + "\n", 0)
    sender = Sender(translator, engine)
    end = time.monotonic() + seconds
    here = 0

    async def key(ch: str) -> None:
        await asyncio.sleep(min(0.4, max(0.06, rng.gauss(0.17, 0.06))))
        paragraphs[here] += ch
        line = paragraphs[here]
        sender.edited("\n\n".join(paragraphs) + "\n", what_was_typed(line, len(line)))

    while time.monotonic() < end:
        for _ in range(rng.randint(1, 4)):  # sentences in this paragraph
            for _n in range(rng.randint(6, 14)):
                await key(" ")
                for ch in rng.choice(WORDS):
                    await key(ch)
                if rng.random() < 0.06:  # a thought in the middle of a sentence
                    await asyncio.sleep(rng.uniform(0.6, 2.0))
            await key(".")
            await asyncio.sleep(rng.uniform(1.0, 3.0))
        here = rng.randrange(len(paragraphs))  # on to another paragraph
        sender.left()
    if sender.timer is not None:
        sender.timer.cancel()
    await translator.aclose()
    await engine.router.aclose()
    return sender.sent, len(emu.chat_requests), len(waits), sender.policy.take_note()


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
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    print("A provider limited to 30 requests/minute (429 past it), fastdesk's limiter on:")
    with Emulator(limit_rpm=30, rate_limits=None) as emu:
        sent, requests, waits, _ = asyncio.run(typing(emu, args.typing_s, random.Random(args.seed)))
        print(
            f"1. typing {args.typing_s:.0f} s (the window's sending policy): "
            f"{sent.total()} updates ({sent['boundary']} at a boundary, "
            f"{sent['mid-sentence']} mid-sentence), {requests} requests "
            f"({requests / args.typing_s * 60:.1f} a minute), {waits} waits shown, "
            f"429s met: {emu.refused}"
        )
    with Emulator(limit_rpm=30, rate_limits=None) as emu:  # the same typist, a small day
        sent, requests, waits, note = asyncio.run(
            typing(emu, args.typing_s, random.Random(args.seed), model=SMALL_DAY)
        )
        per_minute = requests / args.typing_s * 60
        print(
            f"1b. the same on {SMALL_DAY} (1,000 requests a day): {sent.total()} updates "
            f"({sent['boundary']} at a boundary, {sent['mid-sentence']} mid-sentence), "
            f"{requests} requests ({per_minute:.1f} a minute: the day lasts "
            f"{1000 / per_minute / 60:.1f} h at this pace), 429s met: {emu.refused}; "
            f"status bar: {note or '(nothing)'}"
        )
    with Emulator(limit_rpm=30, rate_limits=None) as emu:
        done, failed, took = asyncio.run(translate(emu, args.blocks, max_pack_blocks=4))
        print(
            f"2. {args.blocks}-block document, 4 blocks a request: {len(emu.chat_requests)} "
            f"requests, 429s met: {emu.refused}, {done} blocks done, {failed} failed, "
            f"{took:.0f} s"
        )
    with Emulator(fail_every=5, rate_limits=None) as emu:
        done, failed, took = asyncio.run(
            translate(emu, args.blocks, limited=False, max_pack_blocks=4)
        )
        exit_status = 1 if failed else 0
        print(
            f"3. {args.blocks}-block document, one request in five answers 503: "
            f"{len(emu.chat_requests)} requests, {done} blocks done, {failed} failed "
            f"(exit {exit_status}), {took:.0f} s"
        )


if __name__ == "__main__":
    main()
