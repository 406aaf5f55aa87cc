"""Fewer, larger requests when nobody waits (a command-line run, Translate Project): a backfill
packs more blocks a request than live typing, within the model's output limit and the
account's tokens per minute, a page's containers with its other blocks, and each block is still
checked and retried on its own."""

from __future__ import annotations

import asyncio

from fastdesk.document.blocks import join, parse
from fastdesk.document.dialects import apply_dialect
from fastdesk.providers.base import (
    AuthenticationError,
    ChatRequest,
    RateLimitInfo,
    estimate_tokens,
)
from fastdesk.providers.sdk import MAX_COMPLETION_TOKENS, completion_budget
from fastdesk.routing.limiter import Limiter, Limits
from fastdesk.routing.retry import RetryPolicy
from fastdesk.routing.router import Router
from fastdesk.translate.dialect import translate_document
from fastdesk.translate.engine import Engine
from fastdesk.translate.events import BlockDone, BlockFailed, EngineError, EngineEvent
from fastdesk.translate.job import JobSpec
from fastdesk.translate.planning import BACKFILL_PACK_TOKENS, backfill_pack_tokens
from tests.fakes import FakeProvider, instructions, last_user


def page(n: int) -> str:
    return "".join(
        f"Paragraph {i} explains how the `fastdesk` command translates a page.\n\n"
        for i in range(n)
    )


def run(engine: Engine, text: str) -> list[EngineEvent]:
    events: list[EngineEvent] = []
    asyncio.run(engine.run(parse(text), JobSpec(target_lang="en"), emit=events.append))
    return events


def engine(fake: FakeProvider, *, backfill: bool, tokens_per_minute: int | None = None) -> Engine:
    table = {"groq": {"*": Limits(tokens_per_minute=tokens_per_minute, label="test")}}
    router = Router({fake.name: fake}, retry=RetryPolicy.none(), limiter=Limiter(table=table))
    return Engine(router, backfill=backfill)


def test_a_backfill_sends_fewer_larger_requests_than_live_typing() -> None:
    live, backfill = FakeProvider(), FakeProvider()
    run(engine(live, backfill=False), page(120))
    events = run(engine(backfill, backfill=True), page(120))
    assert len(backfill.requests) * 3 <= len(live.requests)
    done = [e for e in events if isinstance(e, BlockDone)]
    assert len(done) == 120 and all(e.origin == "model" and not e.flags for e in done)


def test_a_free_tier_minute_keeps_the_live_token_budget() -> None:
    live, backfill = FakeProvider(), FakeProvider()
    run(engine(live, backfill=False, tokens_per_minute=6000), page(60))
    run(engine(backfill, backfill=True, tokens_per_minute=6000), page(60))
    assert len(backfill.requests) <= len(live.requests)
    # at 6,000 tokens a minute a larger pack would book more than half of the backlog's minute
    assert max(estimate_tokens(last_user(r)) for r in backfill.requests) <= 1200


def test_the_pack_budget_stays_within_the_output_limit_and_the_minute() -> None:
    assert backfill_pack_tokens(1200, None) == BACKFILL_PACK_TOKENS
    assert 2 * completion_budget(backfill_pack_tokens(1200, None), "") <= MAX_COMPLETION_TOKENS
    for tpm in (20_000, 60_000, 250_000):
        size = backfill_pack_tokens(1200, tpm, "openai/gpt-oss-120b")
        booked = 600 + size + completion_budget(size, "openai/gpt-oss-120b")
        assert size == 1200 or booked <= tpm * 0.8 / 2
    assert backfill_pack_tokens(1200, 6000) == 1200  # never below the live size


def test_a_jobs_pack_fits_one_whole_minute_of_the_stated_limit() -> None:
    # a Batch API job runs apart from the per-minute limits, but what it leaves unanswered
    # goes live alone: one whole minute as the settings or the published tier state it
    model = "openai/gpt-oss-20b"
    size = backfill_pack_tokens(1200, 8000, model, share=1.0)
    assert 1200 < size < BACKFILL_PACK_TOKENS
    assert 600 + size + completion_budget(size, model) <= 8000
    assert backfill_pack_tokens(1200, None, model, share=1.0) == BACKFILL_PACK_TOKENS
    fake = FakeProvider()
    job = engine(fake, backfill=True, tokens_per_minute=8000)
    job.per_minute = False
    paid = RateLimitInfo(limit_tokens=2_000_000, remaining_tokens=1_999_000, reset_tokens_s=1)
    job.router.limiter.observe(("groq", "fake-model"), paid)  # a paid tier's headers
    assert job.router.limiter.limits(("groq", "fake-model")).tokens_per_minute == 2_000_000
    long = "".join(f"Paragraph {i} says why. " * 12 + "\n\n" for i in range(60))  # ~70 tokens
    run(job, long)  # what the servers taught meanwhile does not change a job's packs
    assert max(estimate_tokens(last_user(r)) for r in fake.requests) <= size
    assert len(fake.requests) >= 2


def test_a_block_a_large_pack_breaks_is_retried_alone() -> None:
    def drops_code_of_paragraph_7(request: ChatRequest) -> str:
        text = last_user(request)
        if "previous answer was rejected" in instructions(request):
            return text
        return text.replace(
            "Paragraph 7 explains how the `fastdesk`", "Paragraph 7 explains how the fastdesk"
        )

    fake = FakeProvider(answer=drops_code_of_paragraph_7)
    events = run(engine(fake, backfill=True), page(120))
    retries = [r for r in fake.requests if "previous answer was rejected" in instructions(r)]
    assert len(retries) == 1 and last_user(retries[0]).startswith("Paragraph 7 ")
    done = [e for e in events if isinstance(e, BlockDone)]
    assert len(done) == 120 and not any(e.flags for e in done)


MKDOCS_PAGE = (
    "title: Admonitions\n\n# Admonitions\n\nA paragraph before the note explains it.\n\n"
    '!!! note "A careful title"\n\n    The body of the note says one thing.\n\n'
    "    - an item in the note\n\n"
    "!!! tip\n\n    The body of the note says one thing.\n\n"
    '=== "First tab"\n\n    Text in the first tab.\n\n'
    '=== "Second tab"\n\n    !!! warning\n\n        A warning inside the second tab.\n\n'
    "A paragraph after them ends the page.\n"
)


def run_page(
    fake: FakeProvider, *, backfill: bool, text: str = MKDOCS_PAGE
) -> tuple[str, list[EngineEvent]]:
    """A page (MKDOCS_PAGE) through translate_document: the target's text and the events."""
    doc = apply_dialect(parse(text), "mkdocs")
    events: list[EngineEvent] = []
    spec = JobSpec(target_lang="fr", dialect="mkdocs")
    results = asyncio.run(
        translate_document(engine(fake, backfill=backfill), doc, spec, "mkdocs", events.append)
    )
    return join(results.get(b.id, "") for b in doc.blocks), events  # a failed block: ""


def upper(request: ChatRequest) -> str:
    """Every letter upper-cased but the marker lines' (a 'translation' that keeps markers)."""
    return "\n".join(
        line if line.startswith("<!--fd-") else line.upper()
        for line in last_user(request).split("\n")
    )


def test_a_backfill_packs_a_pages_containers_with_its_blocks() -> None:
    live, backfill = FakeProvider(answer=upper), FakeProvider(answer=upper)
    live_text, _ = run_page(live, backfill=False)
    text, events = run_page(backfill, backfill=True)
    assert text == live_text  # the same target, syntax kept, pieces in place
    assert '!!! note "A CAREFUL TITLE"\n\n    THE BODY' in text and '=== "SECOND TAB"' in text
    assert "\n        A WARNING INSIDE THE SECOND TAB." in text and "title: ADMONITIONS" in text
    assert len(backfill.requests) == 1  # the page, its meta-data, bodies and titles
    assert len(live.requests) >= 8  # one run per piece when a reader waits
    sent = last_user(backfill.requests[0])
    assert sent.count("The body of the note says one thing.") == 1  # the same text once
    in_order = [
        *("Admonitions", "# Admonitions", "before the note", "A careful title", "The body"),
        *("an item", "First tab", "Text in the first", "Second tab", "A warning", "after them"),
    ]  # the page's order: a container's pieces in its place
    assert [sent.index(s) for s in in_order] == sorted(sent.index(s) for s in in_order)
    done = [e for e in events if isinstance(e, BlockDone)]
    assert len(done) == len(parse(MKDOCS_PAGE).blocks)  # one event a block of the page


def test_a_piece_a_check_flags_is_retried_alone_in_a_pack() -> None:
    def drops_the_note_title(request: ChatRequest) -> str:
        text = upper(request)
        if "previous answer was rejected" in instructions(request):
            return text
        return text.replace("A CAREFUL TITLE", "A CAREFUL TITLE `code`")

    fake = FakeProvider(answer=drops_the_note_title)
    text, _ = run_page(fake, backfill=True)
    retries = [r for r in fake.requests if "previous answer was rejected" in instructions(r)]
    assert len(fake.requests) == 2 and len(retries) == 1
    assert last_user(retries[0]) == "A careful title"
    assert '!!! note "A CAREFUL TITLE"\n' in text


def test_why_a_pack_of_pieces_only_failed_reaches_the_page() -> None:
    fake = FakeProvider(fail=lambda _r, _n: AuthenticationError("groq", "invalid key"))
    note = '!!! note "A careful title"\n\n    The body of the note says one thing.\n'
    _text, events = run_page(fake, backfill=True, text=note + "\n" + note.replace("note", "tip"))
    assert len(fake.requests) == 1  # two titles, two bodies (each its own block of the page)
    errors = [e for e in events if isinstance(e, EngineError)]
    assert errors and "API key was refused" in errors[0].message
    failed = [e for e in events if isinstance(e, BlockFailed)]
    assert len(failed) == 4 and all("API key was refused" in e.error for e in failed)
    assert not any(isinstance(e, BlockDone) and e.origin == "model" for e in events)
