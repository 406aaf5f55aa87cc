"""The reviewer pass (fastdesk.translate.quality) against a loopback reviewer that answers
scripted JSON through the real Groq SDK: good findings reach the events exactly, junk and spans
outside the text never do, reviews are cached with the translation, a slow reviewer never holds
a translation back, and a 429 on the reviewer costs the review only."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from fastdesk.document.blocks import parse
from fastdesk.providers.groq import GroqProvider
from fastdesk.routing.limiter import Limiter, Limits
from fastdesk.routing.retry import RetryPolicy
from fastdesk.routing.router import Router
from fastdesk.routing.stats import StatsStore
from fastdesk.translate.engine import Engine
from fastdesk.translate.events import BlockDone, BlockReviewed, EngineError, RequestDone
from fastdesk.translate.job import JobSpec
from fastdesk.translate.memory import Memory
from fastdesk.translate.mqm import (
    QualityReview,
    ReviewError,
    document_score,
    mqm_score,
    parse_review,
)
from fastdesk.translate.quality import Reviewer
from fastdesk.translate.slots import LAST, Slots
from tests.data.meaning_corpus import CORPUS, NEGATIONS
from tests.emulator import Emulator, last_user_content, review_pair, scripted_reviewer

SOURCE, ANSWERS = CORPUS[6]  # the password paragraph
GOOD = ANSWERS["fr"]
_index, _lang, FAITHFUL_PHRASE, FLIPPED_PHRASE = NEGATIONS[0]
FLIPPED = GOOD.replace(FAITHFUL_PHRASE, FLIPPED_PHRASE)
FR = {src: answers["fr"] for src, answers in CORPUS}
FINDING = {
    "span": FLIPPED_PHRASE,
    "category": "accuracy/mistranslation",
    "severity": "critical",
    "explanation": "the negation is lost: the source says the password is never stored in clear",
}
SPEC = JobSpec(target_lang="fr", source_lang="en", review=True)


def french(messages: Sequence[Mapping[str, Any]]) -> str:
    """The translator: every corpus paragraph of the request in French, markers kept; the
    password paragraph with its negation flipped."""
    text = last_user_content(messages)
    for src, fr in FR.items():
        text = text.replace(src, FLIPPED if src == SOURCE else fr)
    return text


def findings(*items: object) -> str:
    return json.dumps({"errors": list(items)})


@pytest.fixture
def emu() -> Iterator[Emulator]:
    with Emulator() as e:
        yield e


def make_engine(
    emu: Emulator, memory: Memory | None = None, *, reviewer_model: str = "", **kw: Any
) -> Engine:
    provider = GroqProvider("gsk_test_not_a_real_key_000000", base_url=emu.groq_base_url)
    router = Router(
        {"groq": provider},
        models={"groq": ["openai/gpt-oss-120b"]},  # a model besides Groq's default, gpt-oss-20b
        stats=StatsStore.memory(),
        retry=RetryPolicy.none(),
        limiter=kw.pop("limiter", None),
    )
    reviewer = Reviewer(router, memory, model=reviewer_model, patient=kw.pop("patient", False))
    return Engine(router, memory, reviewer=reviewer, **kw)


def run(engine: Engine, text: str, spec: JobSpec = SPEC) -> list[object]:
    events: list[object] = []
    asyncio.run(engine.run(parse(text), spec, emit=events.append))
    return events


def reviews(events: list[object]) -> list[BlockReviewed]:
    return [e for e in events if isinstance(e, BlockReviewed)]


def review_requests(emu: Emulator) -> list[Any]:
    return [r for r in emu.chat_requests if review_pair(r.body["messages"]) is not None]


# --- the answer, validated -----------------------------------------------------------------------


def test_a_good_answer_becomes_exact_errors() -> None:
    text = findings(
        FINDING,
        {"span": "clair", "category": "Terminology", "severity": "Minor", "explanation": "x"},
    )
    errors = parse_review(text, FLIPPED)
    assert errors == (
        ReviewError(
            FLIPPED.index(FLIPPED_PHRASE),
            FLIPPED_PHRASE,
            "accuracy/mistranslation",
            "critical",
            FINDING["explanation"],
        ),
        ReviewError(FLIPPED.index("clair"), "clair", "terminology", "minor", "x"),
    )


@pytest.mark.parametrize(
    "wrapped",
    [
        "```json\n{body}\n```",
        "<think>the user wants JSON</think>\n{body}",
        "{body}",
    ],
)
def test_the_answer_may_come_fenced_or_after_thinking(wrapped: str) -> None:
    text = wrapped.format(body=findings(FINDING))
    assert [e.span for e in parse_review(text, FLIPPED) or ()] == [FLIPPED_PHRASE]


@pytest.mark.parametrize(
    "junk",
    ["The translation looks fine to me.", "", '{"errors": "none"}', "[1, 2", '{"verdict": 3}'],
)
def test_junk_is_no_review(junk: str) -> None:
    assert parse_review(junk, FLIPPED) is None


def test_invalid_errors_are_dropped_one_by_one() -> None:
    bad = [
        {**FINDING, "span": "never stored in plain text"},  # the source's words, not the answer's
        {**FINDING, "span": ""},
        {**FINDING, "category": "vibes"},
        {**FINDING, "severity": "neutral"},
        {**FINDING, "explanation": "  "},
        {**FINDING, "span": 42},
        "accuracy",
        None,
    ]
    subcategory = {**FINDING, "category": "accuracy", "subcategory": "omission"}
    errors = parse_review(findings(*bad, subcategory, FINDING, FINDING), FLIPPED)
    assert [(e.category, e.span) for e in errors or ()] == [  # in order, duplicates once
        ("accuracy/omission", FLIPPED_PHRASE),
        ("accuracy/mistranslation", FLIPPED_PHRASE),
    ]


def test_a_long_explanation_is_one_short_line() -> None:
    long = {**FINDING, "explanation": "word\n" * 100}
    (error,) = parse_review(findings(long), FLIPPED) or ()
    assert "\n" not in error.explanation and len(error.explanation) == 200


def test_score_is_100_minus_weighted_errors_per_word() -> None:
    assert mqm_score(0, 40) == 100.0
    assert mqm_score(5, 50) == 90.0  # one major error in 50 words
    assert mqm_score(1 + 5, 100) == 94.0
    assert mqm_score(25, 20) == 0.0  # never below 0
    minor = ReviewError(0, "a", "style", "minor", "x")
    critical = ReviewError(0, "a", "accuracy/omission", "critical", "x")
    blocks = [QualityReview((minor,), 30), QualityReview((), 45), QualityReview((critical,), 25)]
    assert [r.score for r in blocks] == [96.7, 100.0, 0.0]
    assert document_score(blocks) == 74.0  # 1 − 26/100
    assert document_score([]) is None


# --- through the engine, against the loopback reviewer -------------------------------------------


def test_findings_reach_the_events_exactly_and_the_reviewer_is_another_model(
    emu: Emulator, tmp_path: Path
) -> None:
    emu.configure(answer=scripted_reviewer(lambda _s, _t: findings(FINDING), french))
    engine = make_engine(emu, Memory(tmp_path / "m.sqlite3"))
    events = run(engine, SOURCE + "\n")
    done = [e for e in events if isinstance(e, BlockDone)]
    (reviewed,) = reviews(events)
    assert reviewed.block_id == done[0].block_id
    start = FLIPPED.index(FLIPPED_PHRASE)
    assert reviewed.review.errors == (
        ReviewError(
            start, FLIPPED_PHRASE, "accuracy/mistranslation", "critical", FINDING["explanation"]
        ),
    )
    words = len(SOURCE.split())  # the source's words (no hyphen, no apostrophe in it)
    assert reviewed.review.words == words and reviewed.review.score == mqm_score(25, words)
    # the reviewer is not the translator: another configured model
    translated_by = emu.chat_requests[0].body["model"]
    (asked,) = review_requests(emu)
    assert asked.body["model"] != translated_by
    assert review_pair(asked.body["messages"]) == (SOURCE, FLIPPED)
    # its cost is counted apart
    purposes = [e.stats.purpose for e in events if isinstance(e, RequestDone)]
    assert purposes == ["translate", "review"]


def test_a_review_is_cached_with_the_translation_and_asked_again_only_for_a_change(
    emu: Emulator, tmp_path: Path
) -> None:
    emu.configure(answer=scripted_reviewer(lambda _s, _t: findings(FINDING), french))
    memory = Memory(tmp_path / "m.sqlite3")
    first = reviews(run(make_engine(emu, memory), SOURCE + "\n"))
    emu.reset_records()
    again = reviews(run(make_engine(emu, memory), SOURCE + "\n"))
    assert emu.chat_requests == []  # the translation and its review from the memory
    assert [r.review for r in again] == [r.review for r in first]
    other = CORPUS[0][0]
    run(make_engine(emu, memory), SOURCE + "\n\n" + other + "\n")
    assert [review_pair(r.body["messages"]) for r in review_requests(emu)] == [(other, FR[other])]


def test_junk_from_the_reviewer_is_never_shown(emu: Emulator) -> None:
    emu.configure(answer=scripted_reviewer("Looks good! 10/10", french))
    events = run(make_engine(emu), SOURCE + "\n")
    assert reviews(events) == [] and len(review_requests(emu)) == 1
    assert [e.text for e in events if isinstance(e, BlockDone)] == [FLIPPED + "\n"]


def test_spans_outside_the_text_are_dropped(emu: Emulator) -> None:
    outside = {**FINDING, "span": "Nous ne le stockons jamais"}  # the faithful text: not here
    emu.configure(answer=scripted_reviewer(findings(outside, FINDING), french))
    (reviewed,) = reviews(run(make_engine(emu), SOURCE + "\n"))
    assert [e.span for e in reviewed.review.errors] == [FLIPPED_PHRASE]


def test_a_clean_review_scores_100(emu: Emulator) -> None:
    emu.configure(answer=scripted_reviewer(findings(), french))
    (reviewed,) = reviews(run(make_engine(emu), CORPUS[0][0] + "\n"))
    assert reviewed.review.errors == () and reviewed.review.score == 100.0


def test_a_429_on_the_reviewer_costs_the_review_only(emu: Emulator, tmp_path: Path) -> None:
    emu.configure(answer=scripted_reviewer(findings(FINDING), french))
    memory = Memory(tmp_path / "m.sqlite3")
    run(make_engine(emu, memory), SOURCE + "\n", JobSpec(target_lang="fr"))  # translated
    emu.fail_status(429, retry_after=30)  # the next request: the review
    events = run(make_engine(emu, memory), SOURCE + "\n")
    assert [e.text for e in events if isinstance(e, BlockDone)] == [FLIPPED + "\n"]
    assert reviews(events) == []
    assert not [e for e in events if isinstance(e, EngineError)]  # nothing for the user to fix
    (request,) = [e.stats for e in events if isinstance(e, RequestDone)]
    assert request.purpose == "review" and request.status == "error"
    emu.reset_records()  # the next run (the 429's retry-after is the router's, not the memory's)
    assert reviews(run(make_engine(emu, memory), SOURCE + "\n"))


def test_a_slow_reviewer_never_holds_a_translation_back(emu: Emulator) -> None:
    gate = threading.Event()
    emu.configure(answer=scripted_reviewer(findings(FINDING), french, gate=gate))
    engine = make_engine(emu, concurrency=2)
    other = CORPUS[0][0]

    async def scenario() -> tuple[bool, str]:
        events: list[object] = []
        reviewing = asyncio.create_task(engine.run(parse(SOURCE + "\n"), SPEC, emit=events.append))
        while not review_requests(emu):  # the review is in flight, its answer held back
            await asyncio.sleep(0.01)
        edit = await engine.run(parse(other + "\n"), JobSpec(target_lang="fr"))
        still_reviewing = not reviewing.done()
        gate.set()
        await reviewing
        return still_reviewing, "".join(edit.values())

    try:
        still_reviewing, edited = asyncio.run(scenario())
    finally:
        gate.set()
    assert still_reviewing and edited == FR[other] + "\n"


def test_a_waiting_review_gets_a_slot_after_every_waiting_translation() -> None:
    async def scenario() -> list[str]:
        slots, order = Slots(1), []
        hold = asyncio.Event()

        async def take(name: str, rank: object) -> None:
            async with slots.take(lambda: rank):
                order.append(name)
                if name == "first":
                    await hold.wait()

        first = asyncio.create_task(take("first", 0))
        await asyncio.sleep(0)
        waiting = [
            asyncio.create_task(take("review", LAST)),
            asyncio.create_task(take("edit", (0, 3))),
            asyncio.create_task(take("backlog", (2, 9))),
        ]
        await asyncio.sleep(0)
        hold.set()
        await asyncio.gather(first, *waiting)
        return order

    assert asyncio.run(scenario()) == ["first", "edit", "backlog", "review"]


def test_no_review_without_room_in_the_rate_budget(emu: Emulator) -> None:
    """A free tier's minute goes to translations first: past REVIEW_SHARE of it, no review."""
    emu.configure(answer=scripted_reviewer(findings(FINDING), french))
    tier = Limits(requests_per_minute=2, label="a free tier")
    translator = f"groq/{GroqProvider.default_model}"  # reviews on the translator's own budget
    # the translation pinned to that model too: with two unmeasured models "auto" may take
    # either, and the other one's minute is not the reviewer's
    pinned = dataclasses.replace(SPEC, provider="groq", model=GroqProvider.default_model)
    limiter = Limiter(table={"groq": {"*": tier}})
    engine = make_engine(emu, limiter=limiter, reviewer_model=translator)
    events = run(engine, SOURCE + "\n", pinned)
    assert reviews(events) == [] and review_requests(emu) == []  # 1 of 2 used: no more
    limiter = Limiter(table={"groq": {"*": tier}})
    patient = run(
        make_engine(emu, limiter=limiter, reviewer_model=translator, patient=True),
        SOURCE + "\n",
        pinned,
    )
    assert reviews(patient)  # the command line's --review takes its turn instead


def test_the_reviewer_setting_names_the_model(emu: Emulator) -> None:
    emu.configure(answer=scripted_reviewer(findings(), french))
    run(make_engine(emu, reviewer_model="groq/qwen/qwen3-32b"), SOURCE + "\n")
    assert [r.body["model"] for r in review_requests(emu)] == ["qwen/qwen3-32b"]


def test_a_memory_from_before_reviews_opens_and_keeps_them(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    old = sqlite3.connect(path)
    old.executescript(
        "CREATE TABLE entries (key TEXT NOT NULL, model TEXT NOT NULL, provider TEXT NOT NULL,"
        " answer TEXT NOT NULL, flags TEXT NOT NULL DEFAULT '[]', created REAL NOT NULL,"
        " used REAL NOT NULL, PRIMARY KEY (key, model));"
        "INSERT INTO entries VALUES ('k', 'm', 'groq', 'Bonjour', '[]', 1.0, 1.0);"
    )
    old.commit()
    old.close()
    memory = Memory(path)
    assert memory.available and memory.notice is None and memory.count() == 1
    assert memory.put_review("r", '{"errors": []}') and memory.get_review("r") == '{"errors": []}'


# --- back-translation ----------------------------------------------------------------------------


def test_back_translation_goes_into_the_source_language_and_is_cached(
    emu: Emulator, tmp_path: Path
) -> None:
    back = {fr: src for src, fr in FR.items()}
    emu.configure(answer=lambda messages: back.get(last_user_content(messages), "?"))
    memory = Memory(tmp_path / "m.sqlite3")
    engine = make_engine(emu, memory)
    doc = parse(SOURCE + "\n")
    block = doc.blocks[0]
    got = asyncio.run(engine.back_translate(doc, block.id, GOOD + "\n", SPEC))
    assert got == SOURCE
    (asked,) = emu.chat_requests
    assert "into English (en)" in asked.body["messages"][0]["content"]
    emu.reset_records()
    assert asyncio.run(engine.back_translate(doc, block.id, GOOD + "\n", SPEC)) == SOURCE
    assert emu.chat_requests == []
    assert memory.translations() == []  # never exported as a translation


def test_auto_reviews_when_the_limits_are_the_users_own_not_on_a_free_tier(emu: Emulator) -> None:
    """JobSpec.review None (the window's "auto"): on with the user's [rate_limits] for the
    reviewer (their tier), off on the published free tiers."""
    emu.configure(answer=scripted_reviewer(findings(FINDING), french))
    auto = JobSpec(target_lang="fr", source_lang="en", review=None)
    free = run(make_engine(emu, limiter=Limiter()), SOURCE + "\n", auto)  # the published tiers
    assert reviews(free) == [] and review_requests(emu) == []
    paid = Limiter({"groq": {"*": {"requests_per_minute": 1000}}})
    assert reviews(run(make_engine(emu, limiter=paid), SOURCE + "\n", auto))
    assert len(review_requests(emu)) == 1


def test_in_the_live_translator_a_review_outlives_its_run(emu: Emulator) -> None:
    """The window's translator: the run ends with its translations (not busy, nothing deferred
    waits), its review goes on apart and is cancelled when the translator closes."""
    from fastdesk.translate.live import LiveTranslator

    gate = threading.Event()
    emu.configure(answer=scripted_reviewer(findings(FINDING), french, gate=gate))
    engine = make_engine(emu)

    async def scenario() -> tuple[bool, list[object], bool]:
        events: list[object] = []
        translator = LiveTranslator(engine, SPEC, events.append)
        translator.update(SOURCE + "\n", 1)
        while not review_requests(emu):  # translated, and the review held back
            await asyncio.sleep(0.01)
        while translator.busy:
            await asyncio.sleep(0.01)
        idle_while_reviewing = not reviews(events)
        gate.set()
        while not reviews(events):
            await asyncio.sleep(0.01)
        translator.update(SOURCE + "\n\n" + CORPUS[0][0] + "\n", 2)  # another block to review
        await translator.aclose()
        return idle_while_reviewing, events, not translator._reviews

    try:
        idle_while_reviewing, events, none_left = asyncio.run(scenario())
    finally:
        gate.set()
    assert idle_while_reviewing and none_left
    assert [e.review.errors[0].span for e in reviews(events)] == [FLIPPED_PHRASE]
