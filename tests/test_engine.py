from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from fastdesk.document.blocks import parse
from fastdesk.providers.base import ConnectionFailedError, RateLimitedError
from fastdesk.routing.retry import RetryPolicy
from fastdesk.routing.router import Router
from fastdesk.translate.engine import Engine
from fastdesk.translate.events import (
    BlockDelta,
    BlockDone,
    BlockFailed,
    EngineError,
    Planned,
    RequestDone,
    RevisionDone,
    Waiting,
)
from fastdesk.translate.job import JobSpec
from fastdesk.translate.memory import Memory
from tests.fakes import FakeClock, FakeProvider, instructions, last_user

DOC = """---
title: Guide
---

# Getting started

fastdesk translates **Markdown** while you type. See [the docs](https://example.com/docs).

- Install it with `pip install fastdesk`
- Open a file
  - nested item

| Key | Action |
|-----|--------|
| F5  | Translate now |

```python
print("code is never sent")
```

> A quote with *emphasis*.

[ref]: https://example.com/ref
"""


ENGLISH = JobSpec(target_lang="en")  # an echo of English prose is a translation into English only


def big_doc(n: int) -> str:
    return "".join(
        f"## Section {i}\n\nParagraph number {i} says something useful.\n\n" for i in range(n)
    )


def run(engine: Engine, text: str, spec: JobSpec | None = None, **kw):
    events: list[object] = []
    doc = parse(text)
    results = asyncio.run(engine.run(doc, spec or JobSpec(), emit=events.append, **kw))
    return doc, results, events


def assemble(doc, results) -> str:
    return "".join(results[b.id] for b in doc.blocks)


def engine_with(
    *providers: FakeProvider, memory: Memory | None = None, retry: RetryPolicy | None = None, **kw
) -> Engine:
    """An engine over fakes; unless told, a failed request fails at once (no retry)."""
    router = Router({p.name: p for p in providers}, retry=retry or RetryPolicy.none())
    return Engine(router, memory, **kw)


@pytest.mark.parametrize("text", [DOC, DOC.replace("\n", "\r\n"), DOC.rstrip("\n"), big_doc(60)])
def test_echo_provider_leaves_document_identical(text: str) -> None:
    fake = FakeProvider()
    doc, results, events = run(engine_with(fake), text)
    assert assemble(doc, results) == text
    done = [e for e in events if isinstance(e, RevisionDone)]
    assert len(done) == 1 and done[0].failed == 0


def test_code_front_matter_and_references_are_never_sent() -> None:
    fake = FakeProvider()
    run(engine_with(fake), DOC)
    sent = "".join(last_user(r) for r in fake.requests)
    assert "print(" not in sent and "title: Guide" not in sent and "[ref]:" not in sent
    assert "Getting started" in sent and "nested item" in sent


def test_answers_map_back_to_their_blocks() -> None:
    fake = FakeProvider(answer=lambda r: last_user(r).replace("Paragraph", "Paragraphe"))
    doc, results, _ = run(engine_with(fake), big_doc(40))
    assert assemble(doc, results) == big_doc(40).replace("Paragraph", "Paragraphe")
    assert len(fake.requests) < 40  # packed


def test_a_pack_that_cannot_be_mapped_back_is_split_not_written_wrong() -> None:
    def sloppy(request):
        text = last_user(request)
        # drops the markers whenever more than two blocks share a request
        return re.sub(r"<!--fd-\w+:\d+-->\n", "", text) if text.count("<!--fd-") > 2 else text

    fake = FakeProvider(answer=sloppy)
    doc, results, _ = run(engine_with(fake), big_doc(20))
    assert assemble(doc, results) == big_doc(20)
    assert len(fake.requests) > 1


def test_memory_answers_a_second_run_with_zero_requests(tmp_path: Path) -> None:
    memory = Memory(tmp_path / "m.sqlite3")
    fake = FakeProvider(answer=lambda r: last_user(r).upper())
    _doc, first, _ = run(engine_with(fake, memory=memory), DOC, ENGLISH)
    sent = len(fake.requests)
    assert sent > 0
    _doc, second, events = run(engine_with(fake, memory=memory), DOC, ENGLISH)
    assert len(fake.requests) == sent
    assert second == first
    origins = {e.origin for e in events if isinstance(e, BlockDone)}
    assert origins == {"memory", "copy"}


def test_a_run_says_before_its_first_request_what_it_will_send(tmp_path: Path) -> None:
    """Planned: the requests and source tokens the run sends (what the rate limits pace), the
    memory's answers left out; none at all when the memory answers everything."""
    memory = Memory(tmp_path / "m.sqlite3")
    fake = FakeProvider()  # an echo: English into English, every check passes (no retries)
    engine = engine_with(fake, memory=memory, max_pack_blocks=4)
    text = big_doc(10)
    half = big_doc(5)
    run(engine, half, ENGLISH)  # the first five sections are in the memory now
    before = len(fake.requests)
    _doc, _results, events = run(engine, text, ENGLISH, revision=7)
    planned = [e for e in events if isinstance(e, Planned)]
    assert len(planned) == 1 and planned[0].revision == 7
    assert planned[0].requests == len(fake.requests) - before == 3  # ten new blocks, four a request
    assert planned[0].blocks == 10
    sent = engine.plan(parse(text), JobSpec("translate", "en", use_memory=False)).work
    assert planned[0].tokens == sum(w.tokens for w in sent[10:]) > 0  # the last five sections
    assert events.index(planned[0]) < next(
        i for i, e in enumerate(events) if isinstance(e, RequestDone)
    )
    _doc, _results, again = run(engine, text, ENGLISH)
    assert not [e for e in again if isinstance(e, Planned)]


def test_memory_off_reads_nothing(tmp_path: Path) -> None:
    memory = Memory(tmp_path / "m.sqlite3")
    fake = FakeProvider()
    run(engine_with(fake, memory=memory), DOC)
    n = len(fake.requests)
    run(engine_with(fake, memory=memory), DOC, JobSpec(use_memory=False))
    assert len(fake.requests) == 2 * n


def test_one_paragraph_edit_sends_one_small_request(tmp_path: Path) -> None:
    memory = Memory(tmp_path / "m.sqlite3")
    fake = FakeProvider()
    text = big_doc(200)
    run(engine_with(fake, memory=memory), text)
    fake.requests.clear()
    edited = text.replace("Paragraph number 150 says", "Paragraph number 150 now says")
    doc, results, _ = run(engine_with(fake, memory=memory), edited)
    assert len(fake.requests) == 1
    assert last_user(fake.requests[0]) == "Paragraph number 150 now says something useful."
    system = instructions(fake.requests[0])
    assert "Section 0" in system  # the title goes along as context
    assert "Section 150" in system  # and the preceding block
    assert len(system) < 3000
    assert assemble(doc, results) == edited


def test_identical_blocks_are_translated_once() -> None:
    fake = FakeProvider()
    text = "Same paragraph.\n\nOther.\n\nSame paragraph.\n"
    doc, results, _ = run(engine_with(fake, max_pack_blocks=1), text)
    sent = [last_user(r) for r in fake.requests]
    assert sent.count("Same paragraph.") == 1
    assert assemble(doc, results) == text


def test_thinking_is_never_shown_nor_written() -> None:
    fake = FakeProvider(answer=lambda r: "<think>hmm, accents…</think>\n" + last_user(r), chunk=3)
    doc, results, events = run(engine_with(fake), DOC)
    assert assemble(doc, results) == DOC
    assert not any("think" in e.text for e in events if isinstance(e, BlockDelta | BlockDone))


def test_streaming_deltas_grow_towards_the_final_text() -> None:
    fake = FakeProvider(chunk=2)
    engine = engine_with(fake, partial_interval=0)
    doc, results, events = run(engine, "# Title\n\nA paragraph that streams in.\n")
    para = doc.blocks[1]
    deltas = [e.text for e in events if isinstance(e, BlockDelta) and e.block_id == para.id]
    assert len(deltas) > 3
    assert all(results[para.id].startswith(d.rstrip("\n")) for d in deltas)


def test_a_fast_stream_is_handed_on_at_most_once_per_interval_starting_at_once() -> None:
    """Every partial re-splits the answer so far: a 2,000-token answer arriving at once must
    not be split 2,000 times, and the first words still show at the first token."""
    fake = FakeProvider(chunk=2)
    text = "A paragraph that streams in, " * 40 + "\n"
    doc, results, events = run(engine_with(fake, partial_interval=10.0), text, ENGLISH)
    para = doc.blocks[0]
    deltas = [e.text for e in events if isinstance(e, BlockDelta) and e.block_id == para.id]
    # the first chunk, then nothing until the interval is over (or the answer is done)
    assert len(deltas) == 1 and deltas[0].strip() == "A"
    assert assemble(doc, results) == text
    done = [e for e in events if isinstance(e, BlockDone) and e.block_id == para.id]
    assert len(done) == 1 and done[0].text == results[para.id]


def test_every_provider_failing_fails_the_blocks_with_a_clear_message() -> None:
    fake = FakeProvider(fail=lambda r, n: RateLimitedError("groq", "slow down", retry_after=5.3))
    doc, results, events = run(engine_with(fake), DOC)
    failed = [e for e in events if isinstance(e, BlockFailed)]
    errors = [e for e in events if isinstance(e, EngineError)]
    assert failed and errors
    # 5.3 s, rounded up
    assert "rate limit" in errors[0].message and "try again in 6 s" in errors[0].message
    assert len(results) < len(doc.blocks)
    stats = [e.stats for e in events if isinstance(e, RequestDone)]
    assert stats and all(s.status == "error" for s in stats)


def test_mid_stream_failure_falls_back_without_doubled_text() -> None:
    broken = FakeProvider(
        name="cerebras",
        fail=lambda r, n: ConnectionFailedError("cerebras", "connection cut") if n == 2 else None,
    )
    good = FakeProvider(name="groq")
    doc, results, events = run(engine_with(broken, good), DOC)
    assert assemble(doc, results) == DOC
    assert good.requests
    statuses = [e.stats.status for e in events if isinstance(e, RequestDone)]
    assert "error" in statuses and "ok" in statuses


def test_failed_check_is_retried_with_firmer_instruction_then_flagged() -> None:
    def drops_code(request):
        return last_user(request).replace("`pip install fastdesk`", "pip install fastdesk")

    fake = FakeProvider(answer=drops_code)
    doc, results, events = run(engine_with(fake), DOC)
    flagged = [e for e in events if isinstance(e, BlockDone) and e.flags]
    assert any(f.check in ("code", "inline_code") for e in flagged for f in e.flags)
    retries = [r for r in fake.requests if "previous answer was rejected" in instructions(r)]
    assert len(retries) == 1
    assert "pip install fastdesk" in assemble(doc, results)


def test_retry_that_fixes_the_answer_is_kept_unflagged() -> None:
    def fixed_on_retry(request):
        text = last_user(request)
        if "previous answer was rejected" in instructions(request):
            return text
        return text.replace("`pip install fastdesk`", "pip install fastdesk")

    fake = FakeProvider(answer=fixed_on_retry)
    doc, results, events = run(engine_with(fake), DOC)
    assert assemble(doc, results) == DOC
    assert not any(
        f.check in ("code", "inline_code")
        for e in events
        if isinstance(e, BlockDone)
        for f in e.flags
    )


def test_packs_run_concurrently_within_the_limit() -> None:
    fake = FakeProvider(delay=0.02)
    run(engine_with(fake, concurrency=3, max_pack_blocks=2), big_doc(30))
    assert 1 < fake.max_in_flight <= 3


def test_only_the_given_blocks_are_translated() -> None:
    fake = FakeProvider()
    doc = parse(DOC)
    target = [b for b in doc.blocks if b.translatable][2]
    results = asyncio.run(engine_with(fake).run(doc, JobSpec(), block_ids=[target.id]))
    assert list(results) == [target.id]


def test_glossary_goes_to_the_prompt_and_only_its_own_entries_key_the_memory(
    tmp_path: Path,
) -> None:
    from fastdesk.translate.glossary import Glossary

    memory = Memory(tmp_path / "m.sqlite3")
    fake = FakeProvider()
    text = "Open a pull request.\n\nNothing special here.\n"
    g1 = Glossary(keep=("fastdesk",), translate={"fr": {"pull request": "demande de fusion"}})
    run(engine_with(fake, memory=memory), text, JobSpec(glossary=g1))
    system = instructions(fake.requests[0])
    assert "demande de fusion" in system
    fake.requests.clear()
    # a new entry that occurs in neither block leaves both answers valid in memory
    g2 = Glossary(keep=("fastdesk", "Groq"), translate=g1.translate)
    run(engine_with(fake, memory=memory), text, JobSpec(glossary=g2))
    assert fake.requests == []
    # changing the entry used by the first block re-translates that block only
    g3 = Glossary(keep=("fastdesk",), translate={"fr": {"pull request": "requête de tirage"}})
    run(engine_with(fake, memory=memory), text, JobSpec(glossary=g3))
    assert [last_user(r) for r in fake.requests] == ["Open a pull request."]


def test_expand_elaborates_a_whole_section_in_the_target_language() -> None:
    from fastdesk.translate.events import Expansion
    from fastdesk.translate.planning import section_text

    text = "# Doc\n\n## Setup\n\nInstall it.\n\n### Detail\n\nMore.\n\n## Usage\n\nRun it.\n"
    doc = parse(text)
    setup = doc.blocks[1]
    assert section_text(doc, setup.id) == "## Setup\n\nInstall it.\n\n### Detail\n\nMore."
    assert section_text(doc, doc.blocks[2].id) == "Install it."
    fake = FakeProvider(answer=lambda r: "<think>x</think>Voici plus de détails.")
    events: list[object] = []
    result = asyncio.run(
        engine_with(fake).expand(doc, setup.id, JobSpec(target_lang="fr"), emit=events.append)
    )
    assert result == "Voici plus de détails."
    expansions = [e for e in events if isinstance(e, Expansion)]
    assert expansions[-1].done and expansions[-1].text == result
    assert "French" in instructions(fake.requests[0])
    assert last_user(fake.requests[0]).startswith("## Setup")
    assert any(isinstance(e, RequestDone) and e.stats.purpose == "expand" for e in events)


def test_rate_limit_headers_slow_requests_down_before_a_429(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first answer's headers say the minute's tokens are spent until a reset a minute away:
    the second request waits for it. The router runs on a clock the test moves, and its sleep
    moves that clock instead of the machine's, so the wait is read exactly, not timed."""
    from fastdesk.providers.groq import GroqProvider
    from tests.emulator import Emulator, RateLimits

    clock = FakeClock()
    slept: list[float] = []
    real_sleep = asyncio.sleep

    async def sleep_on_the_clock(delay: float, result: object = None) -> object:
        if delay > 0:
            slept.append(delay)
            clock.now += delay
        return await real_sleep(0, result)

    monkeypatch.setattr(asyncio, "sleep", sleep_on_the_clock)
    limits = RateLimits(remaining_tokens=50, reset_tokens_s=60)
    events: list[object] = []
    with Emulator(rate_limits=limits) as emu:

        async def go() -> None:
            provider = GroqProvider("gsk_test", base_url=emu.groq_base_url)
            router = Router({"groq": provider}, clock=clock)
            engine = Engine(router, None, concurrency=1, max_pack_blocks=2)
            await engine.run(parse(big_doc(2)), JobSpec(target_lang="en"), emit=events.append)
            await provider.aclose()

        asyncio.run(go())
        assert len(emu.chat_requests) == 2
    # the second request waited for the token budget to reset, and said so
    assert slept == [pytest.approx(60)]
    waits = [e for e in events if isinstance(e, Waiting)]
    assert len(waits) == 1 and waits[0].seconds == pytest.approx(60)
    done = [i for i, e in enumerate(events) if isinstance(e, RequestDone)]
    assert done[0] < events.index(waits[0]) < done[1]


def test_a_source_that_starts_with_think_keeps_it_and_the_models_own_is_stripped() -> None:
    source = "<think>A note the author wrote.</think> Then the paragraph.\n"

    def thinks_aloud(request) -> str:  # a reasoning model: its own thinking, then the answer
        return "<think>\nHmm, markers.\n</think>\n" + last_user(request)

    for answer in (last_user, thinks_aloud):
        doc, results, events = run(engine_with(FakeProvider(answer=answer)), source)
        assert assemble(doc, results) == source  # the source's own <think> is kept
        assert not [e for e in events if isinstance(e, BlockFailed)]


def test_a_source_showing_pack_markers_translates_whole() -> None:
    text = "# Markers\n\n- a list item that shows <!--fd:1-->\n- and <!--fd:2-->\n\nEnd.\n"
    doc, results, events = run(engine_with(FakeProvider()), text)
    assert assemble(doc, results) == text
    assert not [e for e in events if isinstance(e, BlockFailed)]


def test_a_model_that_merges_long_packs_keeps_short_ones_and_it_is_remembered(tmp_path) -> None:
    """A failed pack is split in halves, and the model's packs are capped below it: a model
    that keeps the markers of four blocks but runs longer packs together is sent packs of four
    (not one block per request, which cost as many requests as blocks)."""
    from fastdesk.routing.stats import StatsStore

    def merges_past_four(request) -> str:
        text = last_user(request)
        if text.count("<!--fd-") <= 4:
            return text
        return re.sub(r"\n<!--fd-\w+:\d+-->\n", "\n", text)

    fake = FakeProvider(answer=merges_past_four)
    stats = StatsStore.memory()
    engine = Engine(Router({"groq": fake}, stats=stats, retry=RetryPolicy.none()), None)
    text = big_doc(66)  # 132 blocks
    doc, results, _ = run(engine, text, ENGLISH)
    assert assemble(doc, results) == text
    assert len(fake.requests) <= 132 // 4 + 8
    assert stats.get(("groq", "fake-model")).max_pack == 4
    saved = tmp_path / "router-stats.json"
    saved.write_text(stats.snapshot(), encoding="utf-8")
    fake.requests.clear()
    engine = Engine(
        Router({"groq": fake}, stats=StatsStore.load(saved), retry=RetryPolicy.none()), None
    )
    run(engine, text, ENGLISH)  # the next run starts with packs of four
    assert len(fake.requests) == 132 // 4


def test_a_model_that_drops_the_markers_gets_one_block_per_request_and_it_is_remembered(
    tmp_path,
) -> None:
    from fastdesk.routing.stats import StatsStore

    def drops_markers(request) -> str:
        return re.sub(r"<!--fd-\w+:\d+-->\n", "", last_user(request))

    fake = FakeProvider(answer=drops_markers)
    stats = StatsStore.memory()
    engine = Engine(Router({"groq": fake}, stats=stats, retry=RetryPolicy.none()), None)
    text = big_doc(66)  # 132 blocks
    doc, results, _ = run(engine, text, ENGLISH)
    assert assemble(doc, results) == text
    first = len(fake.requests)
    assert first <= 132 * 1.1  # not 189: after a few lost packs, one block per request
    assert stats.get(("groq", "fake-model")).single_block
    fake.requests.clear()
    run(engine, text, ENGLISH)  # the next run starts right
    assert len(fake.requests) == 132
    saved = tmp_path / "router-stats.json"
    saved.write_text(stats.snapshot(), encoding="utf-8")
    restored = StatsStore.load(saved)
    assert restored.get(("groq", "fake-model")).single_block  # and it survives a restart
