"""The window's packs on a long document: the blocks on screen, near it and just edited go in
live-size packs (their answers come quickly), the rest, which nobody waits for, in a backfill's
larger ones (fewer requests, as the command line sends), and the order stays: edits first, then
the screen, then the rest in document order (fastdesk.translate.live, Engine.packs)."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator

import pytest

from fastdesk.document.blocks import parse
from fastdesk.providers.base import ChatRequest, StreamEvent
from fastdesk.routing.router import Router
from fastdesk.translate.engine import Engine
from fastdesk.translate.events import BlockDelta, BlockDone, EngineEvent, Flag
from fastdesk.translate.job import JobSpec
from fastdesk.translate.live import NEAR_BLOCKS, NEAR_SHARE, LiveTranslator
from fastdesk.translate.planning import BACKFILL_PACK_BLOCKS, Work
from fastdesk.translate.slots import Priorities
from tests.fakes import FakeProvider, last_user, until

LIVE_BLOCKS = 16  # the engine's live pack (max_pack_blocks' default)
PARAGRAPHS = 1200


def page(n: int = PARAGRAPHS) -> str:
    return "".join(f"Paragraph number {i} of a long handbook page.\n\n" for i in range(n))


def numbers(text: str) -> list[int]:
    """The paragraphs a request carries, by their numbers."""
    return [int(n) for n in re.findall(r"Paragraph number (\d+) ", text)]


async def fill(
    view: tuple[int, int] | None, *, edit: int | None = None
) -> tuple[list[list[int]], LiveTranslator]:
    """Each request's paragraphs, in the order they were sent, for the page opened with
    ``view`` (the paragraphs on screen, by number) and, given ``edit``, that paragraph edited
    once the backlog is under way."""
    fake = FakeProvider(delay=0.005)  # echo: every pack maps back
    live = LiveTranslator(Engine(Router({"groq": fake}), concurrency=2), JobSpec(), lambda e: None)
    text = page()
    live.update(text, 1)
    assert live.doc is not None
    if view is not None:  # told before the run plans (the window sends it with the text)
        lines = {n: b.line for b in live.doc.blocks for n in numbers(b.text)}
        live.set_view(lines[view[0]], lines[view[1]])
    if edit is not None:
        await until(lambda: len(fake.requests) >= 4)
        live.update(text.replace(f"number {edit} of", f"number {edit} edited of"), 2)
    await until(lambda: not live.busy)
    view_now = live.snapshot()
    assert not view_now.pending and view_now.text.count("Paragraph number") == PARAGRAPHS
    await live.aclose()
    return [numbers(last_user(r)) for r in fake.requests], live


def test_far_blocks_go_in_backfill_packs_and_the_screen_and_near_it_in_live_ones() -> None:
    sent, _live = asyncio.run(fill((0, 10)))
    assert sent[0][0] == 0  # the screen first
    near = [r for r in sent if min(r) < 20]  # the screen and the paragraphs just below it
    far = [r for r in sent if min(r) > NEAR_BLOCKS]  # (two blocks a paragraph: text, blank)
    assert near and all(len(r) <= LIVE_BLOCKS for r in near)
    assert far and max(len(r) for r in far) > LIVE_BLOCKS  # fewer, larger requests there
    assert all(len(r) <= BACKFILL_PACK_BLOCKS for r in far)
    assert len(sent) * 2 < PARAGRAPHS / LIVE_BLOCKS  # under half the live-only requests
    assert sorted(n for r in sent for n in r) == list(range(PARAGRAPHS))  # each once


def test_the_reader_s_place_decides_which_blocks_go_live_and_first() -> None:
    sent, _live = asyncio.run(fill((400, 410)))
    assert 400 in sent[0] and len(sent[0]) <= LIVE_BLOCKS  # the screen, scrolled down there
    for paragraph in (0, 100):  # the start of the page is far from the reader now
        request = next(r for r in sent if paragraph in r)
        assert len(request) > LIVE_BLOCKS
    after_screen = sent.index(next(r for r in sent if 0 in r))
    screen = sent.index(next(r for r in sent if 400 in r))
    assert screen < after_screen


def test_an_edit_far_from_the_screen_goes_alone_before_the_backlog_s_packs() -> None:
    sent, _live = asyncio.run(fill((0, 10), edit=500))
    edited = next(i for i, r in enumerate(sent) if r == [500])
    # within the two slots in flight when it came: the backlog's packs still waiting after it
    assert any(len(r) > LIVE_BLOCKS for r in sent[edited + 1 :])


def test_priorities_say_live_for_the_screen_its_surroundings_and_edits_only() -> None:
    priorities = Priorities()
    priorities.visible = frozenset({"a"})
    priorities.near = frozenset({"a", "b"})
    priorities.edited = frozenset({"e"})
    assert priorities.live(["a"]) and priorities.live(["b"]) and priorities.live(["e"])
    assert not priorities.live(["far"])
    assert priorities.for_block("b").live(["piece"])  # a container's pieces: as its block


def test_a_large_pack_s_checks_let_an_edit_s_request_go_meanwhile(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A backfill pack's 64 answers are checked one after another; an edit made meanwhile
    must not wait for all of them before its request goes out."""
    seen: list[str] = []
    fake = FakeProvider()
    engine = Engine(Router({"groq": fake}), backfill=True)
    check = engine._check
    edit: list[asyncio.Task[object]] = []

    def slow_check(w: Work, answer: str, spec: JobSpec) -> list[Flag]:
        seen.append("check")
        if not edit:  # the first answer is being checked: the reader edits a paragraph now
            edited = parse("A paragraph the reader just edited.\n")
            edit.append(asyncio.ensure_future(engine.run(edited, JobSpec())))
        time.sleep(0.005)  # what a check costs the loop's thread (~1 ms; more on a busy machine)
        return check(w, answer, spec)

    async def stream(request: ChatRequest) -> AsyncIterator[StreamEvent]:
        seen.append("edit sent" if "just edited" in last_user(request) else "pack sent")
        async for event in FakeProvider.stream(fake, request):
            yield event

    monkeypatch.setattr(engine, "_check", slow_check)
    monkeypatch.setattr(fake, "stream", stream)

    async def go() -> None:
        await engine.run(parse(page(64)), JobSpec())
        await asyncio.gather(*edit)

    asyncio.run(go())
    assert seen.count("pack sent") == 1 and seen.count("check") == 65
    assert seen.index("edit sent") < len(seen) - 2  # sent while the pack's checks went on


def test_the_backlog_s_partial_answers_are_not_handed_on_the_screen_s_are() -> None:
    """A long document's blocks off screen stream in no one's sight: their partial answers,
    each a render in the window, are not sent; the blocks on screen still stream in."""

    async def go() -> list[EngineEvent]:
        fake = FakeProvider(chunk=3)
        events: list[EngineEvent] = []
        engine = Engine(Router({"groq": fake}), partial_interval=0)  # every piece handed on
        live = LiveTranslator(engine, JobSpec(), events.append)
        live.set_view(1, 4)  # the top of the page on screen
        live.update(page(), 1)
        await until(lambda: not live.busy)
        await live.aclose()
        return events

    events = asyncio.run(go())
    streamed = {e.block_id for e in events if isinstance(e, BlockDelta)}
    blocks = parse(page()).blocks
    assert streamed and streamed <= {b.id for b in blocks[:LIVE_BLOCKS]}  # the screen's pack
    answered = {e.block_id for e in events if isinstance(e, BlockDone)}
    assert answered == {b.id for b in blocks if b.translatable}


def test_the_live_reach_grows_with_a_long_document() -> None:
    """Near the reader is NEAR_BLOCKS either side, and at least a twelfth of a long document:
    its first twelfth streams in live packs, not behind a far pack of 64 blocks (the first 5 %
    of a 4,000-block document came after 8.8 s with a fixed 200, 3.7 s with a twelfth)."""

    async def reach(paragraphs: int) -> tuple[int, int]:
        """How far below the screen's last block the live packs reach, and the block count."""
        live = LiveTranslator(Engine(Router({"groq": FakeProvider()})), JobSpec(), lambda e: None)
        live.update(page(paragraphs), 1)
        assert live.doc is not None
        live.set_view(1, 1)  # the screen: the first line (1-based), in the first block
        blocks = live.doc.blocks
        near = live.priorities.near
        await live.aclose()
        return max(i for i, b in enumerate(blocks) if b.id in near), len(blocks)

    short, count = asyncio.run(reach(600))
    assert short == NEAR_BLOCKS and count * NEAR_SHARE < NEAR_BLOCKS
    far, count = asyncio.run(reach(6000))
    assert far == int(count * NEAR_SHARE) > NEAR_BLOCKS  # a twelfth of the document
