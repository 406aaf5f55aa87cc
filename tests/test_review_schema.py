"""The reviewer's verdicts requested in the shape asked for: on Groq's gpt-oss models and on
every Cerebras model the review request carries the MQM answer's JSON schema as a strict
structured output (so no verdict is dropped as junk); translations never do, a server that
refuses the schema is asked without it, and other models' answers are still validated as before
(junk is no review). Against the loopback server through the real Groq and Cerebras SDKs."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fastdesk.document.blocks import parse
from fastdesk.providers.cerebras import CerebrasProvider
from fastdesk.routing.retry import RetryPolicy
from fastdesk.routing.router import Router
from fastdesk.routing.stats import StatsStore
from fastdesk.translate.engine import Engine
from fastdesk.translate.memory import Memory
from fastdesk.translate.mqm import CATEGORIES, REVIEW_SCHEMA, SEVERITY_WEIGHTS
from fastdesk.translate.quality import Reviewer
from tests.data.meaning_corpus import CORPUS
from tests.emulator import Emulator, scripted_reviewer
from tests.test_reviewer import (
    FINDING,
    SOURCE,
    SPEC,
    findings,
    french,
    make_engine,
    review_requests,
    reviews,
    run,
)


@pytest.fixture
def emu() -> Iterator[Emulator]:
    with Emulator() as e:
        yield e


def _schema_of(body: dict[str, Any]) -> dict[str, Any] | None:
    form = body.get("response_format")
    return None if form is None else dict(form)


def test_a_gpt_oss_reviewer_is_asked_for_the_schema_strictly(emu: Emulator, tmp_path: Path) -> None:
    emu.configure(answer=scripted_reviewer(lambda _s, _t: findings(FINDING), french))
    engine = make_engine(
        emu, Memory(tmp_path / "m.sqlite3"), reviewer_model="groq/openai/gpt-oss-120b"
    )
    events = run(engine, SOURCE + "\n")
    (asked,) = review_requests(emu)
    form = _schema_of(asked.body)
    assert form is not None and form["type"] == "json_schema"
    schema = form["json_schema"]
    assert schema["strict"] is True and schema["name"] == REVIEW_SCHEMA["name"]
    assert schema["schema"] == REVIEW_SCHEMA["schema"]
    item = schema["schema"]["properties"]["errors"]["items"]
    # strict mode's rules: every property required, none other allowed
    assert set(item["required"]) == set(item["properties"]) and not item["additionalProperties"]
    assert item["properties"]["category"]["enum"] == list(CATEGORIES)
    assert item["properties"]["severity"]["enum"] == list(SEVERITY_WEIGHTS)
    # the translation itself is free text: no schema
    translations = [r for r in emu.chat_requests if r not in review_requests(emu)]
    assert translations and all(_schema_of(r.body) is None for r in translations)
    (reviewed,) = reviews(events)
    assert [e.span for e in reviewed.review.errors] == [FINDING["span"]]


def test_other_models_get_no_schema_and_their_junk_is_still_no_review(emu: Emulator) -> None:
    emu.configure(answer=scripted_reviewer(lambda _s, _t: "Looks fine to me!", french))
    engine = make_engine(emu, reviewer_model="groq/llama-3.3-70b-versatile")
    events = run(engine, SOURCE + "\n")
    (asked,) = review_requests(emu)
    assert asked.body["model"] == "llama-3.3-70b-versatile"
    assert _schema_of(asked.body) is None
    assert reviews(events) == []


def cerebras_run(emu: Emulator, *texts: str, model: str = "gpt-oss-120b") -> list[list[object]]:
    """The events of each text translated and reviewed in turn by one engine whose translator
    and reviewer are Cerebras ``model``, through the real cerebras SDK against the loopback
    server (one event loop: the provider is closed at the end)."""
    provider = CerebrasProvider("csk-test-not-a-real-key-0000", base_url=emu.cerebras_base_url)
    router = Router(
        {"cerebras": provider},
        models={"cerebras": [model]},
        stats=StatsStore.memory(),
        retry=RetryPolicy.none(),
    )
    engine = Engine(router, None, reviewer=Reviewer(router, None, model=f"cerebras/{model}"))

    async def each() -> list[list[object]]:
        runs: list[list[object]] = []
        try:
            for text in texts:
                events: list[object] = []
                await engine.run(parse(text), SPEC, emit=events.append)
                runs.append(events)
        finally:
            await router.aclose()
        return runs

    return asyncio.run(each())


@pytest.mark.parametrize("model", ["gpt-oss-120b", "qwen-3-235b-a22b-instruct-2507"])
def test_a_cerebras_reviewer_is_asked_for_the_schema_strictly(emu: Emulator, model: str) -> None:
    emu.configure(answer=scripted_reviewer(lambda _s, _t: findings(FINDING), french))
    (events,) = cerebras_run(emu, SOURCE + "\n", model=model)
    (asked,) = review_requests(emu)
    assert asked.flavour == "cerebras" and asked.body["model"] == model
    form = _schema_of(asked.body)
    assert form == {"type": "json_schema", "json_schema": {**REVIEW_SCHEMA, "strict": True}}
    translations = [r for r in emu.chat_requests if r not in review_requests(emu)]
    assert translations and all(_schema_of(r.body) is None for r in translations)
    (reviewed,) = reviews(events)
    assert [e.span for e in reviewed.review.errors] == [FINDING["span"]]


def test_a_schema_refused_is_asked_without_it_and_junk_is_still_no_review(emu: Emulator) -> None:
    verdicts = iter([findings(FINDING), "Looks fine to me!"])
    emu.configure(
        answer=scripted_reviewer(lambda _s, _t: next(verdicts), french), refuse_schema=True
    )
    first, second = cerebras_run(emu, SOURCE + "\n", CORPUS[5][0] + "\n")
    # refused (400, no answer), asked again without the schema; then at once without it
    refused, again, later = review_requests(emu)
    assert _schema_of(refused.body) is not None
    assert _schema_of(again.body) is None and _schema_of(later.body) is None
    (reviewed,) = reviews(first)  # the answer without the schema is validated as before
    assert [e.span for e in reviewed.review.errors] == [FINDING["span"]]
    assert reviews(second) == []  # junk is still no review
