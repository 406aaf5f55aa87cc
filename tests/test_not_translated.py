"""Answers that are not translations (an echo, a fixed text, the wrong language, far too short or
long, a runaway) are never written as translations: retried once on the next model, then the
block is flagged not_translated and the document reported partial (exit 1, written only with
--allow-partial)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from fastdesk.cli.main import run
from fastdesk.document.blocks import parse
from fastdesk.routing.retry import RetryPolicy
from fastdesk.routing.router import Router
from fastdesk.translate.engine import Engine
from fastdesk.translate.events import BlockDone, BlockFailed
from fastdesk.translate.job import JobSpec
from fastdesk.translate.language import identify, length_mismatch, not_translated
from tests.emulator import Emulator, last_user_content
from tests.fakes import FakeProvider

ENGLISH = "The editor translates each paragraph while you type, and keeps every link intact."
FRENCH = "L’éditeur traduit chaque paragraphe pendant que vous tapez et garde chaque lien intact."
GERMAN = "Der Editor übersetzt jeden Absatz, während Sie tippen, und lässt jeden Link unverändert."
DOC = f"# Guide\n\n{ENGLISH}\n"


def test_the_language_check_itself() -> None:
    assert not_translated(ENGLISH, FRENCH, "fr") is None
    assert "unchanged" in (not_translated(ENGLISH, ENGLISH, "fr") or "")
    assert not_translated(ENGLISH, GERMAN, "fr") == "the answer is in German, not French"
    assert not_translated(FRENCH, FRENCH, "fr") is None  # already French: an echo is right
    assert not_translated("Getting started", "Getting started", "fr") is None  # too short
    # names in no clear language (the identifier's best guess, Latin, at 0.47): an echo may be
    # right, into English as into any language (hypothesis found it through the command line)
    names = "**Gomphocarpus (*Gomphocarpus physocarpus*, syn.\n*Asclepias physocarpa*)**"
    assert not_translated(names, names, "en") is None
    assert "length" in (not_translated(ENGLISH * 3, "Oui.", "fr") or "")
    assert length_mismatch(ENGLISH, FRENCH) is None
    languages = identify(f"{FRENCH} Voir [la doc](https://example.com/docs) et `code`.")
    assert languages is not None and max(languages, key=languages.__getitem__) == "fr"


def test_a_source_of_no_language_is_not_judged() -> None:
    """Commit hashes outweigh the words of pymdown-extensions' magiclink page: the identifier
    calls the block "zxx" (no linguistic content), and so the answer too; neither says the
    answer is not a translation (issue 44: its echo and its translation were both refused)."""
    hashes = (
        "With a little bit of CSS, you can also add icons in front: "
        "7d1b1902ea7fe00043a249564ed5032f08dd7152,\n"
        "e2ed7e0b3973f3f9eb7a26b8ef7ae514eebfe0d2...90b6fb8711e75732f987982cc024e9bb0111beac, etc."
    )
    langs = identify(hashes) or {}
    assert max(langs, key=langs.__getitem__) == "zxx"
    assert not_translated(hashes, hashes, "en") is None
    assert not_translated(hashes, hashes.upper(), "en") is None
    assert not_translated(hashes, hashes.replace("With a little", "Avec un peu"), "fr") is None


def test_a_source_is_identified_once_for_both_of_its_questions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Is the answer a translation, and which language does the memory record: the same source,
    classified once (the engine's thread holds the GIL the window needs while it classifies)."""
    from fastdesk.translate import language

    language._ranked.cache_clear()
    kind = type(language._identifier())
    seen: list[str] = []
    rank = kind.rank
    monkeypatch.setattr(kind, "rank", lambda self, words: seen.append(words) or rank(self, words))
    source = ENGLISH + " It also keeps the inline code and the headings."
    assert not_translated(source, FRENCH + " Il garde le code et les titres.", "fr") is None
    assert language.source_language(source) == "en"
    assert language.source_language(source) == "en"
    assert len(seen) == 2  # the source once, the answer once
    first = identify(source)
    assert first is not None
    first["en"] = 0.0  # a caller's copy: the next one is whole again
    again = identify(source)
    assert again is not None and again["en"] > 0.5


def french_answer(messages) -> str:
    text = last_user_content(messages)
    return text.replace(ENGLISH, FRENCH)


@pytest.fixture
def groq_env(monkeypatch: pytest.MonkeyPatch):
    def use(emu: Emulator) -> None:
        monkeypatch.setenv("GROQ_API_KEY", "gsk_test")
        monkeypatch.setenv("GROQ_BASE_URL", emu.groq_base_url)
        monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")

    return use


@pytest.mark.parametrize(
    "answer",
    [
        pytest.param(None, id="echo"),
        pytest.param(lambda m: last_user_content(m).replace(ENGLISH, GERMAN), id="wrong language"),
        pytest.param(lambda m: "As an AI model I cannot translate this.", id="fixed text"),
    ],
)
def test_a_document_whose_answers_are_not_translations_is_partial_and_not_written(
    answer, groq_env, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "guide.md"
    src.write_text(DOC)
    out, report = tmp_path / "guide.fr.md", tmp_path / "r.json"
    with Emulator(answer=answer) as emu:
        groq_env(emu)
        args = ["translate", str(src), "-o", str(out), "--report", str(report), "--no-memory"]
        assert run(args) == 1
        assert not out.exists()
        doc = json.loads(report.read_text())["documents"][0]
        assert doc["status"] == "partial" and doc["not_translated"] == [1]
        assert "1 block(s) not translated (line 3" in capsys.readouterr().err
        assert run([*args, "--allow-partial"]) == 1
    # the paragraph keeps its source, never the non-translation (a heading is too short to judge)
    assert out.read_text().endswith(f"\n\n{ENGLISH}\n")


def test_a_failing_answer_is_retried_once_on_the_next_model(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    src = tmp_path / "guide.md"
    src.write_text(DOC)
    out = tmp_path / "guide.fr.md"
    with Emulator() as echoing, Emulator(answer=french_answer) as translating:
        monkeypatch.setenv("GROQ_API_KEY", "gsk_test")
        monkeypatch.setenv("GROQ_BASE_URL", echoing.groq_base_url)
        monkeypatch.setenv("CEREBRAS_API_KEY", "csk-test")
        monkeypatch.setenv("CEREBRAS_BASE_URL", translating.cerebras_base_url)
        monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
        assert run(["translate", str(src), "-o", str(out), "--provider", "auto"]) == 0
    assert FRENCH in out.read_text()


def test_a_runaway_answer_is_stopped_and_its_pack_split() -> None:
    blocks = [f"Paragraph {i}: {ENGLISH}" for i in range(4)]
    text = "\n\n".join(blocks) + "\n"
    calls: list[int] = []

    def rambles(request) -> str:
        user = request.messages[-1]["content"]
        calls.append(len(user))
        return user.replace(ENGLISH, FRENCH) + (
            " et encore" * 2000 if "Paragraph 0" in user else ""
        )

    fake = FakeProvider(answer=rambles, chunk=40)
    engine = Engine(Router({"groq": fake}, retry=RetryPolicy.none()))
    events: list[object] = []
    asyncio.run(engine.run(parse(text), JobSpec(), emit=events.append))
    done = [e for e in events if isinstance(e, BlockDone)]
    failed = [e for e in events if isinstance(e, BlockFailed)]
    assert len(done) == 3 and all(FRENCH in e.text for e in done)  # the others came through
    assert len(failed) == 1 and "ran past 3×" in failed[0].error
    assert len(calls) > 1  # the pack was split
