"""The reviewer's verdicts requested in the shape asked for: on Groq's gpt-oss models the review
request carries the MQM answer's JSON schema as a strict structured output (so no verdict is
dropped as junk); translations never do, and other models' answers are still validated as
before (junk is no review). Against the loopback server through the real Groq SDK."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fastdesk.translate.memory import Memory
from fastdesk.translate.mqm import CATEGORIES, REVIEW_SCHEMA, SEVERITY_WEIGHTS
from tests.emulator import Emulator, scripted_reviewer
from tests.test_reviewer import (
    FINDING,
    SOURCE,
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
