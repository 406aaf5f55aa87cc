from __future__ import annotations

import asyncio

from fastdesk.document.blocks import parse
from fastdesk.routing.router import Router
from fastdesk.translate.engine import Engine
from fastdesk.translate.events import BlockDone, RevisionDone
from fastdesk.translate.job import JobSpec
from fastdesk.translate.live import LiveTranslator
from tests.fakes import FakeProvider, instructions, last_user, until

TEXT = "# Title\n\nFirst paragraph.\n\nSecond paragraph.\n"


def upper(request) -> str:
    return last_user(request).upper()


def _target(live: LiveTranslator) -> str:
    """The translator's answers joined in document order (what a fully translated target is)."""
    assert live.doc is not None
    view = live.snapshot()
    assert not view.pending
    return view.text


async def _settle(live: LiveTranslator) -> None:
    """Until its runs are over (an update starts them at once: busy from then on)."""
    await until(lambda: not live.busy)


def test_edits_retranslate_only_changed_blocks_and_stale_work_is_cancelled() -> None:
    async def scenario() -> None:
        fake = FakeProvider(answer=upper, delay=0.05)
        events: list[object] = []
        live = LiveTranslator(Engine(Router({"groq": fake})), JobSpec(), events.append)
        live.update(TEXT, 1)
        await _settle(live)
        assert _target(live) == TEXT.upper()
        fake.requests.clear()
        # two quick edits of the same paragraph: the first one's request is cancelled
        live.update(TEXT.replace("Second", "Second edited"), 2)
        await until(lambda: fake.requests)  # in flight (its answer takes 50 ms)
        live.update(TEXT.replace("Second", "Second edited twice"), 3)
        await _settle(live)
        assert _target(live) == TEXT.replace("Second", "Second edited twice").upper()
        assert [last_user(r) for r in fake.requests] == [
            "Second edited paragraph.",
            "Second edited twice paragraph.",
        ]
        done_texts = [e.text for e in events if isinstance(e, BlockDone)]
        assert "SECOND EDITED PARAGRAPH.\n" not in done_texts  # the stale answer never arrived
        await live.aclose()

    asyncio.run(scenario())


def test_mode_switch_replans_everything() -> None:
    async def scenario() -> None:
        fake = FakeProvider(answer=upper)
        events: list[object] = []
        live = LiveTranslator(Engine(Router({"groq": fake})), JobSpec(), events.append)
        live.update(TEXT, 1)
        await _settle(live)
        n = len(fake.requests)
        live.set_spec(JobSpec(mode="simplify"))
        await _settle(live)
        assert len(fake.requests) > n
        assert "plain language" in instructions(fake.requests[-1])
        assert any(isinstance(e, RevisionDone) for e in events)
        await live.aclose()

    asyncio.run(scenario())


def test_retranslate_forces_a_request_for_one_block(tmp_path) -> None:
    from fastdesk.translate.memory import Memory

    async def scenario() -> None:
        fake = FakeProvider(answer=upper)
        memory = Memory(tmp_path / "m.sqlite3")
        live = LiveTranslator(Engine(Router({"groq": fake}), memory), JobSpec(), lambda e: None)
        live.update(TEXT, 1)
        await _settle(live)
        fake.requests.clear()
        block = parse(TEXT).blocks[1]
        live.retranslate([block.id])
        await _settle(live)
        assert [last_user(r) for r in fake.requests] == ["First paragraph."]
        await live.aclose()

    asyncio.run(scenario())


def test_an_edit_during_a_backlog_is_sent_before_the_backlogs_remaining_packs() -> None:
    text = "".join(f"Paragraph number {i} of the backlog.\n\n" for i in range(40))

    async def scenario() -> None:
        fake = FakeProvider(delay=0.02)  # echo: packs map back
        engine = Engine(Router({"groq": fake}), concurrency=2, max_pack_blocks=2)
        live = LiveTranslator(engine, JobSpec(), lambda e: None)
        live.update(text, 1)  # 20 packs, 2 at a time
        while len(fake.requests) < 4:
            await asyncio.sleep(0.005)
        sent_before = len(fake.requests)
        live.update(text.replace("number 37 ", "number 37 edited "), 2)
        await _settle(live)
        order = [last_user(r) for r in fake.requests]
        edit = next(i for i, u in enumerate(order) if "edited" in u)
        # within one request slot: at most the two in flight left before it
        assert edit <= sent_before + 1, order
        assert len(order) > edit + 5  # and the backlog's remaining packs came after it
        await live.aclose()

    asyncio.run(scenario())


def test_blocks_on_screen_go_before_the_rest() -> None:
    text = "".join(f"Paragraph number {i} of the backlog.\n\n" for i in range(40))

    async def scenario() -> None:
        fake = FakeProvider(delay=0.02)
        engine = Engine(Router({"groq": fake}), concurrency=1, max_pack_blocks=2)
        live = LiveTranslator(engine, JobSpec(), lambda e: None)
        live.update(text, 1)
        assert live.doc is not None
        blocks = live.doc.blocks
        live.set_view(blocks[30].line, blocks[31].line)  # the reader is down there
        await _settle(live)
        order = [last_user(r) for r in fake.requests]
        assert "number 30 " in order[0], order[:3]  # first, though the slot was free at once
        await live.aclose()

    asyncio.run(scenario())


def test_a_whole_new_text_is_a_first_fill_not_an_edit() -> None:
    async def scenario() -> None:
        live = LiveTranslator(Engine(Router({"groq": FakeProvider()})), JobSpec(), lambda e: None)
        live.update(TEXT, 1)
        live.update(TEXT.replace("First", "Edited first"), 2)
        assert live.doc is not None
        edited = live.doc.blocks[1].id
        assert live.priorities.rank([edited]) < live.priorities.rank([live.doc.blocks[0].id])
        other = "".join(f"Another file, paragraph {i}.\n\n" for i in range(100))
        live.update(other, 3)  # another file opened: ordered by the screen, then the text
        assert live.doc is not None
        assert live.priorities.rank([live.doc.blocks[0].id]) < live.priorities.rank(
            [live.doc.blocks[50].id]
        )
        live.set_view(live.doc.blocks[50].line, live.doc.blocks[50].line)
        assert live.priorities.rank([live.doc.blocks[50].id]) < live.priorities.rank(
            [live.doc.blocks[0].id]
        )
        await live.aclose()

    asyncio.run(scenario())
