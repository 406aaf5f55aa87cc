"""Speculative sentences in the live translator: a request sent at a sentence end goes on while
its block changes only around its text (the memory keys answers by that text), stale ones are
cancelled, and every request counts at the limiter, cancelled ones too."""

from __future__ import annotations

import asyncio
from pathlib import Path

from fastdesk.routing.limiter import Limiter, Limits
from fastdesk.routing.router import Router
from fastdesk.routing.stats import StatsStore
from fastdesk.translate.engine import Engine
from fastdesk.translate.events import BlockDone, EngineEvent
from fastdesk.translate.job import JobSpec
from fastdesk.translate.live import LiveTranslator
from fastdesk.translate.memory import Memory
from tests.fakes import FakeProvider, instructions, last_user, until
from tests.test_live import _settle as settle


def upper(request) -> str:
    return last_user(request).upper()


def translator_for(
    fake: FakeProvider, memory: Memory | None, limiter: Limiter | None = None
) -> tuple[LiveTranslator, list[EngineEvent]]:
    router = Router({"groq": fake}, stats=StatsStore.memory(), limiter=limiter)
    events: list[EngineEvent] = []
    return LiveTranslator(Engine(router, memory), JobSpec(), events.append), events


def shown(translator: LiveTranslator) -> str:
    view = translator.snapshot()
    assert not view.pending
    return view.text


def test_a_sentence_sent_at_its_end_answers_the_block_it_became(tmp_path: Path) -> None:
    async def scenario() -> None:
        fake = FakeProvider(answer=upper, delay=0.05)
        translator, events = translator_for(fake, Memory(tmp_path / "m.sqlite3"))
        translator.update("Hello world.", 1)  # sent as the sentence ended
        await until(lambda: fake.requests)  # in flight (its answer takes 50 ms)
        assert len(fake.requests) == 1
        translator.update("Hello world.\n\nThe", 2)  # a new paragraph below: the block's id changed
        await settle(translator)
        assert [last_user(r) for r in fake.requests] == ["Hello world.", "The"]  # no second ask
        assert shown(translator) == "HELLO WORLD.\n\nTHE"
        assert translator.doc is not None
        first = translator.doc.blocks[0]
        answer = [e for e in events if isinstance(e, BlockDone) and e.block_id == first.id]
        assert [(e.text, e.origin) for e in answer] == [("HELLO WORLD.\n\n", "memory")]
        await translator.aclose()

    asyncio.run(scenario())


def test_a_sentence_that_changed_is_cancelled_and_never_answered(tmp_path: Path) -> None:
    async def scenario() -> None:
        fake = FakeProvider(answer=upper, delay=0.05)
        translator, events = translator_for(fake, Memory(tmp_path / "m.sqlite3"))
        translator.update("Hello world.", 1)
        await until(lambda: fake.requests)  # in flight
        translator.update("Hello world. The cat.", 2)
        await settle(translator)
        assert [last_user(r) for r in fake.requests] == ["Hello world.", "Hello world. The cat."]
        assert [e.text for e in events if isinstance(e, BlockDone)] == ["HELLO WORLD. THE CAT."]
        await translator.aclose()

    asyncio.run(scenario())


def test_without_a_memory_the_request_is_not_kept() -> None:
    async def scenario() -> None:
        fake = FakeProvider(answer=upper, delay=0.05)
        translator, _events = translator_for(fake, None)
        translator.update("Hello world.", 1)
        await until(lambda: fake.requests)  # in flight
        translator.update("Hello world. ", 2)  # the same text, but nothing could take its answer
        await settle(translator)
        assert [last_user(r) for r in fake.requests] == ["Hello world.", "Hello world."]
        assert shown(translator) == "HELLO WORLD. "
        await translator.aclose()

    asyncio.run(scenario())


def test_cancelled_requests_count_against_the_limits() -> None:
    async def scenario() -> None:
        fake = FakeProvider(answer=upper, delay=0.05)
        limiter = Limiter(table={"groq": {"*": Limits(requests_per_minute=30)}})
        translator, _events = translator_for(fake, None, limiter)

        async def sent(count: int) -> None:
            await until(lambda: len(fake.requests) == count)

        for n, text in enumerate(("One.", "One. Two.", "One. Two. Three."), 1):
            translator.update(text, n)
            await sent(n)  # it went out, and the next edit makes it stale
        await settle(translator)
        assert len(fake.requests) == 3
        room = limiter.headroom(("groq", "fake-model"), 10)
        assert len(room.sent) == 3  # two of them cancelled, all three booked
        await translator.aclose()

    asyncio.run(scenario())


def test_a_language_change_while_requests_run_plans_every_block_again() -> None:
    async def scenario() -> None:
        fake = FakeProvider(answer=upper, delay=0.05)
        translator, _events = translator_for(fake, None)
        translator.update("# Title\n\nFirst.\n\nSecond.\n", 1)
        await until(lambda: fake.requests)  # in flight
        translator.set_spec(JobSpec(target_lang="de"))
        await settle(translator)
        assert shown(translator) == "# TITLE\n\nFIRST.\n\nSECOND.\n"  # before: left untranslated
        assert "German" in instructions(fake.requests[-1])
        await translator.aclose()

    asyncio.run(scenario())
