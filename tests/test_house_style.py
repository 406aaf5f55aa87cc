"""House style: the style file's sections, where it is found, its place in the prompt and in the
memory key, and how many blocks a change makes stale."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from fastdesk.document.blocks import parse
from fastdesk.providers.base import estimate_tokens
from fastdesk.routing.retry import RetryPolicy
from fastdesk.routing.router import Router
from fastdesk.translate.engine import Engine
from fastdesk.translate.examples import Example, ExampleBank
from fastdesk.translate.glossary import Glossary
from fastdesk.translate.job import JobSpec
from fastdesk.translate.memory import Memory, MemoryKey
from fastdesk.translate.prompts import build_messages, request_notes, system_prompt
from fastdesk.translate.readability import ReadingLevel
from fastdesk.translate.style import (
    STYLE_FILE,
    blocks_affected,
    find_style_file,
    load_style,
    parse_style,
)
from tests.fakes import FakeProvider, instructions, last_user

STYLE = """# Our house style

Notes for people: not sent.

## All languages
Audience: system administrators.

## fr
Vouvoyez le lecteur.

## fr-CA
Écrivez « courriel ».

## de
Siezen Sie den Leser.

## Simplify
Reading level: A2
"""


def engine_with(fake: FakeProvider, memory: Memory | None = None) -> Engine:
    return Engine(Router({fake.name: fake}, retry=RetryPolicy.none()), memory)


def run(engine: Engine, text: str, spec: JobSpec) -> None:
    asyncio.run(engine.run(parse(text), spec))


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# ---- the file --------------------------------------------------------------------------------


def test_sections_apply_by_mode_and_language() -> None:
    style = parse_style(STYLE)
    fr = style.text_for("translate", "fr")
    assert fr == "Audience: system administrators.\n\nVouvoyez le lecteur."
    canadian = style.text_for("translate", "fr-CA")
    assert canadian.endswith("Vouvoyez le lecteur.\n\nÉcrivez « courriel ».")
    assert "Siezen" in style.text_for("translate", "de") and "Vouvoyez" not in style.text_for(
        "translate", "de"
    )
    assert style.text_for("translate", "es") == "Audience: system administrators."
    assert "Notes for people" not in style.text_for("translate", "fr")
    simplify = style.text_for("simplify", "fr")
    assert "Vouvoyez" not in simplify
    assert "Reading level: A2" not in simplify  # the line becomes the level's instruction
    assert simplify.endswith(ReadingLevel("A2").instruction())


def test_a_file_without_sections_is_for_all_languages_and_odd_sections_are_said() -> None:
    assert parse_style("Short sentences.\n").text_for("translate", "ja") == "Short sentences."
    style = parse_style("## All\nA.\n\n## Glossary notes\nB.\n\n```md\n## fr\n```\n")
    assert style.text_for("translate", "fr") == "A."
    assert len(style.warnings) == 1 and "Glossary notes" in style.warnings[0]
    bad = parse_style("## Simplify\nReading level: easy\n")
    assert bad.level("simplify") is None and "easy" in bad.warnings[0]


def test_a_reading_level_given_outside_the_file_wins() -> None:
    style = parse_style(STYLE).with_level(ReadingLevel.parse("grade 6"))
    assert style.level("simplify") == ReadingLevel("grade 6")
    assert style.level("translate") is None
    assert "school grade 6" in style.text_for("simplify", "en")


@pytest.mark.parametrize(
    ("value", "label"),
    [("B1", "B1"), ("cefr a2", "A2"), ("Plain language", "plain"), ("6th grade", "grade 6")],
)
def test_reading_levels_parse(value: str, label: str) -> None:
    assert ReadingLevel.parse(value).label == label


def test_an_unknown_reading_level_says_what_is_accepted() -> None:
    with pytest.raises(ValueError, match="plain, A1"):
        ReadingLevel.parse("grade 13")


def test_found_beside_the_document_never_above_the_project_or_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path / STYLE_FILE, "above the project")
    project = tmp_path / "site"
    doc = write(project / "docs" / "guide" / "a.md", "# A\n")
    assert find_style_file(doc, root=project) is None
    root_style = write(project / STYLE_FILE, "root")
    assert find_style_file(doc, root=project) == root_style
    nearer = write(project / "docs" / STYLE_FILE, "nearer")
    assert find_style_file(doc, root=project) == nearer
    monkeypatch.setenv("HOME", str(project / "docs" / "guide"))
    assert find_style_file(doc) is None  # the home folder is as high as it looks


def test_an_unreadable_style_file_is_one_line(tmp_path: Path) -> None:
    path = write(tmp_path / STYLE_FILE, "")
    path.write_bytes(b"## fr\n\xff\n")
    with pytest.raises(Exception, match=STYLE_FILE) as caught:
        load_style(path)
    assert "\n" not in str(caught.value)


# ---- the prompt --------------------------------------------------------------------------------


def test_the_prompt_carries_style_glossary_and_examples_in_that_order() -> None:
    text = "Open a pull request."
    system = system_prompt(
        "translate",
        "fr",
        style="Vouvoyez le lecteur.",
        glossary_lines=['Translate "pull request" as "demande de fusion".'],
    )
    notes = request_notes(
        "translate", examples=[("Close the pull request.", "Fermez la demande de fusion.")]
    )
    messages = build_messages(system, text, notes)
    prompt = "\n".join(m["content"] for m in messages[:-1])
    at = [prompt.index(s) for s in ("Vouvoyez", 'demande de fusion".', "Fermez la demande")]
    assert at == sorted(at) and "Fermez" not in system  # examples vary: after the shared part
    assert messages[-1] == {"role": "user", "content": text}


def test_the_engine_sends_style_then_glossary_then_the_nearest_corrections(
    tmp_path: Path,
) -> None:
    fake = FakeProvider()
    text = "Open the pull request in the browser.\n"
    bank = ExampleBank(
        [
            Example("Open the pull request in the browser.", "the block itself: never sent"),
            Example("Close the pull request in the browser.", "Fermez la PR dans le navigateur."),
            Example("Bake a cake with flour.", "Faites un gâteau."),
            Example("Review the pull request " + "slowly " * 400, "x" * 2400),  # over budget
        ]
    )
    spec = JobSpec(
        target_lang="en",
        style=parse_style("## en\nUse US spelling.\n"),
        glossary=Glossary(keep=("pull request",)),
        examples=bank,
    )
    run(engine_with(fake), text, spec)
    (request,) = fake.requests
    system = instructions(request)
    at = [system.index(s) for s in ("Use US spelling.", '"pull request"', "Fermez la PR")]
    assert at == sorted(at)
    assert "never sent" not in system and "gâteau" not in system and "xxxx" not in system
    assert last_user(request) == text.strip()
    examples = system[system.index("Examples of") :]
    assert estimate_tokens(examples) <= 400


def test_the_example_budget_and_limit_hold() -> None:
    bank = ExampleBank(Example(f"Install the package number {i}.", f"Ex {i}") for i in range(20))
    picked = bank.pick("Install the package number 99.", limit=3, budget_tokens=1000)
    assert len(picked) == 3
    small = bank.pick("Install the package number 99.", limit=10, budget_tokens=40)
    assert sum(estimate_tokens(s) + estimate_tokens(t) + 6 for s, t in small) <= 40
    assert small  # but not nothing


def test_the_open_documents_corrections_go_on_top_of_the_files_without_reading_them() -> None:
    reads: list[int] = []

    def files() -> list[Example]:
        reads.append(1)
        return [Example("Pull the branch now.", "Tirez la branche maintenant.")]

    bank = ExampleBank(files)
    bank.update([Example("Pull the branch now.", "Extrayez la branche maintenant.")])
    assert not reads  # the window's thread gives them: the files wait for the engine's
    assert bank.pick("Pull the branch later.") == [
        ("Pull the branch now.", "Extrayez la branche maintenant.")  # the newer correction
    ]
    bank.update([Example("Merge the fork today.", "Fusionnez la copie aujourd'hui.")])
    assert reads == [1]
    assert bank.pick("Pull the branch later.") == [
        ("Pull the branch now.", "Tirez la branche maintenant.")  # withdrawn: the file's again
    ]
    assert bank.pick("Merge the fork tomorrow.") == [
        ("Merge the fork today.", "Fusionnez la copie aujourd'hui.")
    ]


# ---- the memory key ------------------------------------------------------------------------------


def test_the_memory_key_changes_with_the_style_of_its_language_only(tmp_path: Path) -> None:
    memory = Memory(tmp_path / "m.sqlite3")
    fake = FakeProvider()
    text = "First block here.\n\nSecond block there.\n"
    first = parse_style("## en\nShort sentences.\n\n## de\nSiezen.\n")
    run(engine_with(fake, memory), text, JobSpec(target_lang="en", style=first))
    assert len(fake.requests) == 1
    fake.requests.clear()
    run(engine_with(fake, memory), text, JobSpec(target_lang="en", style=first))
    assert fake.requests == []  # the same style: from memory
    other_language = parse_style("## en\nShort sentences.\n\n## de\nDuzen.\n")
    run(engine_with(fake, memory), text, JobSpec(target_lang="en", style=other_language))
    assert fake.requests == []
    changed = parse_style("## en\nVery short sentences.\n")
    run(engine_with(fake, memory), text, JobSpec(target_lang="en", style=changed))
    sent = "".join(last_user(r) for r in fake.requests)
    assert "First block here." in sent and "Second block there." in sent


def test_without_a_style_the_key_is_the_one_earlier_versions_made() -> None:
    key = MemoryKey("Hello", "translate", "fr", "4", "g")
    assert key.digest() == MemoryKey("Hello", "translate", "fr", "4", "g", "").digest()
    assert key.digest() != MemoryKey("Hello", "translate", "fr", "4", "g", "s1").digest()


def test_how_many_blocks_a_style_change_affects() -> None:
    doc = parse("# Title\n\nOne.\n\n```\ncode\n```\n\nTwo.\n")
    old = parse_style("## fr\nVouvoyez.\n\n## de\nSiezen.\n")
    new = parse_style("## fr\nTutoyez.\n\n## de\nSiezen.\n")
    assert blocks_affected(doc, old, new, "translate", "fr") == 3  # the code block is copied
    assert blocks_affected(doc, old, new, "translate", "de") == 0
    assert blocks_affected(doc, None, new, "translate", "es") == 0
    assert blocks_affected(doc, None, new, "translate", "de") == 3
    # a paragraph repeated is sent once, as the planner sends it
    repeated = parse("# Title\n\nOne.\n\nOne.\n\n```\ncode\n```\n")
    assert blocks_affected(repeated, old, new, "translate", "fr") == 2


def test_a_memory_from_before_styles_gains_the_column_and_exports_its_style(
    tmp_path: Path,
) -> None:
    path = tmp_path / "m.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE sources (key TEXT PRIMARY KEY, text TEXT NOT NULL, mode TEXT NOT NULL,"
        " lang TEXT NOT NULL, prompt_version TEXT NOT NULL, glossary_version TEXT NOT NULL,"
        " source_lang TEXT NOT NULL);"
    )
    db.close()
    memory = Memory(path)
    assert memory.available
    key = MemoryKey("Hello", "translate", "fr", "4", "", "abc")
    assert memory.put(key, "Bonjour", provider="groq", model="m", source_lang="en")
    ((found, answer, source),) = memory.translations("fr")
    assert (found, answer, source) == (key, "Bonjour", "en")


def test_a_tmx_imported_under_a_house_style_answers_with_that_style(tmp_path: Path) -> None:
    from fastdesk.translate.tmx import TmxUnit, import_tmx

    memory = Memory(tmp_path / "m.sqlite3")
    style = parse_style("## fr\nVouvoyez.\n")
    unit = TmxUnit("en", "Open the settings window.", (("fr", "Ouvrez la fenêtre des réglages."),))
    assert import_tmx(memory, [unit], None, style).stored == 1
    fake = FakeProvider()
    run(engine_with(fake, memory), "Open the settings window.\n", JobSpec(style=style))
    assert fake.requests == []  # the memory answered, under the style's key
    run(engine_with(fake, memory), "Open the settings window.\n", JobSpec())
    assert len(fake.requests) == 1  # without the style: another key


def test_a_style_file_too_large_to_send_with_every_request_is_refused(tmp_path: Path) -> None:
    from fastdesk.translate.style import MAX_STYLE_BYTES, StyleError
    from fastdesk.translate.wiring import style_for

    (tmp_path / ".git").mkdir()
    path = write(tmp_path / STYLE_FILE, "## All\n" + "x" * MAX_STYLE_BYTES)
    with pytest.raises(StyleError, match=STYLE_FILE):
        load_style(path)
    assert style_for(write(tmp_path / "a.md", "A.\n")) is None  # the run goes on without it


def test_the_hyphenation_dictionary_loads_ahead_for_languages_with_a_formula() -> None:
    """The window loads simplify's dictionary when its engine starts, not at the first answer."""
    from fastdesk.translate import readability

    readability._hyphenator.cache_clear()
    readability.preload("de-AT")
    readability.preload("ja")  # no formula: nothing to load
    assert readability._hyphenator.cache_info().currsize == 1
    before = readability._hyphenator.cache_info().hits
    assert readability.reading_ease("Das ist ein kurzer Satz.", "de") is not None
    assert readability._hyphenator.cache_info().hits > before  # taken from the cache
