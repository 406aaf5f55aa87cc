"""Simplify keeps each block in its language, so its checks (reading ease, numbers) go by the
document's language, identified once for a run, or by the project's when it is known: not one
identification a block (~0.2 ms each, on the thread the window's answers arrive by)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from fastdesk.document.blocks import parse
from fastdesk.providers.base import ChatRequest
from fastdesk.routing.retry import RetryPolicy
from fastdesk.routing.router import Router
from fastdesk.translate import language
from fastdesk.translate.engine import Engine
from fastdesk.translate.events import BlockDone, EngineEvent
from fastdesk.translate.job import JobSpec
from tests.fakes import FakeProvider, last_user

# long German sentences: a formula says how hard they read (Amstad's, German's Flesch)
HARD = (
    "Die Inbetriebnahme der Anlage erfordert unter Berücksichtigung sämtlicher "
    "sicherheitstechnischer Vorschriften eine vorherige Überprüfung der Verkabelung durch "
    "qualifiziertes Fachpersonal, welches die entsprechenden Zertifizierungen besitzt, und "
    "Version 2 der Anleitung."
)
EASY = (
    "Prüfen Sie zuerst die Kabel. Das macht eine Fachkraft mit Zeugnis. Dann geht es los. "
    "Lesen Sie dazu die Anleitung. Es gilt Version 2."
)


class Counting:
    """The identifier, its identifications counted."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.calls = 0

    def rank(self, text: str) -> Any:
        self.calls += 1
        return self.real.rank(text)


@pytest.fixture
def identifier(monkeypatch: pytest.MonkeyPatch) -> Counting:
    counting = Counting(language._identifier())
    monkeypatch.setattr(language, "_identifier", lambda: counting)
    language._ranked.cache_clear()  # nothing identified before counts
    return counting


def simplify(text: str, answer: str, **spec: Any) -> list[BlockDone]:
    def answering(request: ChatRequest) -> str:  # the block's number kept: "(7)"
        return answer + " " + last_user(request).rsplit(" ", 1)[1]

    fake = FakeProvider(answer=answering)
    engine = Engine(Router({"groq": fake}, retry=RetryPolicy.none()), max_pack_blocks=1)
    events: list[EngineEvent] = []
    job = JobSpec(mode="simplify", target_lang="de", use_memory=False, **spec)
    asyncio.run(engine.run(parse(text), job, emit=events.append))
    return [e for e in events if isinstance(e, BlockDone)]


def paragraphs(n: int, text: str) -> str:
    return "".join(f"{text} ({i})\n\n" for i in range(n))


def test_a_simplified_document_s_language_is_identified_once_not_once_a_block(
    identifier: Counting,
) -> None:
    done = simplify(paragraphs(30, HARD), EASY)
    assert len(done) == 30
    assert identifier.calls <= 2  # the document's (a retry of a flagged block may ask again)


def test_a_project_s_source_language_is_not_identified_at_all(identifier: Counting) -> None:
    simplify(paragraphs(10, HARD), EASY, source_lang="de")
    assert identifier.calls == 0


def test_the_document_s_language_still_judges_each_block_s_reading_ease(
    identifier: Counting,
) -> None:
    harder = simplify(paragraphs(6, EASY), HARD)  # an "answer" harder to read than its source
    assert all(any(f.check == "readability" for f in d.flags) for d in harder)
    easier = simplify(paragraphs(6, HARD), EASY)
    assert not any(f.check == "readability" for d in easier for f in d.flags)
