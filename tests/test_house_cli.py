"""The house style, corrections, reading level and a lone file's project on the command line
(the real SDKs against the loopback emulator), and the admonition and readability rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fastdesk.cli.main import run
from fastdesk.translate.admonitions import check_types, keep_types
from fastdesk.translate.checks import check_block
from fastdesk.translate.readability import FORMULAS, compare, reading_ease
from tests.emulator import Emulator, last_user_content
from tests.fakes import until
from tests.test_cli_translate import _no_keyring, use, write  # noqa: F401  (autouse fixture)


@pytest.fixture
def emu() -> Emulator:  # type: ignore[misc]
    with Emulator() as e:
        yield e


PAGE = """# Install

!!! info "Note"
    Pull the image before you start.

--8<-- "includes/abbreviations.md"

Run the server.
"""


def shout(messages) -> str:  # type: ignore[no-untyped-def]
    """A model that upper-cases admonitions, as one did with Python-Markdown's own docs."""
    return last_user_content(messages).replace("!!! info", "!!! INFO").replace("Note", "NOTE")


def site(root: Path) -> Path:
    write_all(root / "mkdocs.yml", "site_name: S\ndocs_dir: docs\n")
    (root / ".git").mkdir(parents=True)
    write_all(root / ".fastdesk-style.md", "## All languages\nAudience: operators.\n")
    write_all(root / ".fastdesk-glossary.toml", '[keep]\nterms = ["Pull"]\n')
    return write_all(root / "docs" / "install.md", PAGE)


def write_all(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    return write(path, text)


def test_a_lone_file_takes_its_projects_dialect_glossary_and_style(
    emu: Emulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use(monkeypatch, emu)
    emu.configure(answer=shout)
    page = site(tmp_path / "site")
    out = tmp_path / "out.md"
    assert run(["translate", str(page), "-o", str(out), "--no-memory"]) == 0
    text = out.read_text(encoding="utf-8")
    assert '!!! info "NOTE"' in text  # the type is syntax, the title prose
    assert '--8<-- "includes/abbreviations.md"' in text
    sent = [r.body["messages"] for r in emu.chat_requests]
    assert all("--8<--" not in m[-1]["content"] for m in sent)  # syntax is not sent
    (system,) = [m[0]["content"] for m in sent if "Pull" in m[-1]["content"]]
    assert system.index("Audience: operators.") < system.index('"Pull"')


def test_a_file_outside_any_project_does_not_take_a_style_from_above_its_git_root(
    emu: Emulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use(monkeypatch, emu)
    write_all(tmp_path / ".fastdesk-style.md", "Audience: someone else.\n")
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    page = write_all(tmp_path / "repo" / "a.md", "# A\n\nText.\n")
    assert run(["translate", str(page), "-o", str(tmp_path / "o.md"), "--no-memory"]) == 0
    assert "someone else" not in emu.chat_requests[-1].body["messages"][0]["content"]


EASY = "The cat sat. The dog ran. We had fun. It was a good day. " * 3
HARD = (
    "Notwithstanding considerable organizational heterogeneity, interdepartmental "
    "communication necessitates comprehensive documentation of administrative responsibilities. "
) * 3


def test_simplify_reports_readability_before_and_after(
    emu: Emulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    use(monkeypatch, emu)
    src = write(tmp_path / "hard.md", f"# Duties\n\n{HARD}\n")
    emu.configure(answer=lambda m: EASY if "Duties" not in last_user_content(m) else "# Duties")
    report = tmp_path / "r.json"
    args = ["translate", str(src), "-o", str(tmp_path / "o.md"), "--mode", "simplify"]
    assert run([*args, "--no-memory", "--report", str(report), "--reading-level", "B1"]) == 0
    assert "CEFR B1" in emu.chat_requests[-1].body["messages"][0]["content"]
    (doc,) = json.loads(report.read_text())["documents"]
    r = doc["readability"]
    assert r["formula"] == "Flesch reading ease" and r["after"] > r["before"] and not r["harder"]
    # the other way round: the answer reads harder, and says so
    write(src, f"# Duties\n\n{EASY}\n")
    emu.configure(answer=lambda m: HARD if "Duties" not in last_user_content(m) else "# Duties")
    assert run([*args, "--no-memory", "--report", str(report)]) == 0
    (doc,) = json.loads(report.read_text())["documents"]
    assert doc["readability"]["harder"]
    assert any(f["check"] == "readability" for f in doc["flags"])
    assert "harder to read than its source" in capsys.readouterr().err


def test_a_bad_reading_level_is_one_line_and_exit_2(tmp_path: Path, capsys) -> None:
    src = write(tmp_path / "a.md", "Text.\n")
    args = ["translate", str(src), "--mode", "simplify", "--reading-level", "easy"]
    assert run(args) == 2
    err = capsys.readouterr().err
    assert "--reading-level" in err and "A1" in err and len(err.strip().splitlines()) == 1
    assert run(["translate", str(src), "--reading-level", "B1"]) == 2  # translate: not simplify


# ---- readability --------------------------------------------------------------------------------

TEXTS = {
    "en": (
        "The cat sat on the mat. It was warm. We like it.",
        "Comprehensive organizational documentation necessitates considerable "
        "interdepartmental coordination regarding administrative responsibilities.",
    ),
    "fr": (
        "Le chat dort. Il fait beau. Nous aimons le jardin.",
        "L'administration interministérielle nécessite une documentation "
        "particulièrement exhaustive concernant les responsabilités organisationnelles.",
    ),
    "de": (
        "Die Katze schläft. Es ist warm. Wir gehen nach Hause.",
        "Die interministerielle Verwaltungszusammenarbeit erfordert außerordentlich "
        "umfangreiche Dokumentationsverpflichtungen hinsichtlich organisatorischer "
        "Zuständigkeiten.",
    ),
    "es": (
        "El gato duerme. Hace sol. Vamos a la casa.",
        "La administración interministerial necesita una documentación "
        "particularmente exhaustiva relativa a las responsabilidades organizativas.",
    ),
}


@pytest.mark.parametrize("lang", ["en", "fr", "de", "es"])
def test_readability_is_computed_per_language(lang: str) -> None:
    easy, hard = TEXTS[lang]
    a, b = reading_ease(easy, lang), reading_ease(hard, lang)
    assert a is not None and b is not None
    assert a.formula == b.formula == FORMULAS[lang][0]
    assert a.score > b.score
    entry = compare(hard, easy, f"{lang}-XX")  # a region subtag uses its language's formula
    assert entry == {"before": b.score, "after": a.score, "formula": a.formula, "harder": False}


def test_reading_ease_by_the_formula() -> None:
    # 6 words, 2 sentences, 6 syllables: 206.835 - 1.015 * 3 - 84.6 * 1
    r = reading_ease("The cat sat. The dog ran.", "en")
    assert r is not None and (r.words, r.sentences, r.syllables) == (6, 2, 6)
    assert r.score == round(206.835 - 1.015 * 3 - 84.6, 1)
    # code and link targets are not read
    same = reading_ease("The cat sat. The dog [ran](https://example.com/a-long-path).\n", "en")
    assert same is not None and same.score == r.score


def test_no_formula_no_score() -> None:
    assert reading_ease("これは猫です。", "ja") is None
    assert compare("Text here.", "Text.", "ja") is None


def test_a_simplified_block_harder_than_its_source_is_flagged_and_translation_is_not() -> None:
    easy, hard = TEXTS["en"]
    source = f"{easy} {easy} {easy}"
    flags = check_block(source, f"{hard} {hard}", target_lang="en", mode="simplify")
    assert [f.check for f in flags] == ["readability"]
    translated = check_block(source, f"{hard} {hard}", target_lang="en", mode="translate")
    assert "readability" not in [f.check for f in translated]


# ---- admonition types ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "answer", "fixed"),
    [
        (
            '!!! info "Note"\n    Text.',
            '!!! INFO "NOTE"\n    Texte.',
            '!!! info "NOTE"\n    Texte.',
        ),
        ("??? tip inline end\n    A.", "??? Tip Inline End\n    B.", "??? tip inline end\n    B."),
        (
            ":::warning Careful\nA.\n:::",
            ":::WARNING Attention\nB.\n:::",
            ":::warning Attention\nB.\n:::",
        ),
        ("> !!! note\n>     A.", "> !!! Note\n>     B.", "> !!! note\n>     B."),
    ],
)
def test_admonition_types_are_put_back(source: str, answer: str, fixed: str) -> None:
    assert check_types(source, answer) is not None
    assert keep_types(source, answer) == fixed
    assert check_types(source, fixed) is None


def test_admonitions_that_cannot_be_paired_are_flagged_not_guessed() -> None:
    source = '!!! info "Note"\n    A.\n\n!!! warning\n    B.'
    answer = '!!! INFO "NOTE"\n    A.'
    assert keep_types(source, answer) == answer
    flags = check_block(source, answer, target_lang="fr", mode="translate")
    assert any(f.check == "admonition" and "2 in the source, 1" in f.detail for f in flags)


def test_a_document_translated_live_keeps_its_dialects_syntax_lines() -> None:
    import asyncio
    import dataclasses

    from fastdesk.routing.router import Router
    from fastdesk.translate.engine import Engine
    from fastdesk.translate.job import JobSpec
    from fastdesk.translate.live import LiveTranslator
    from tests.fakes import FakeProvider, last_user

    async def scenario() -> None:
        fake = FakeProvider(answer=lambda r: last_user(r).upper())
        spec = JobSpec(target_lang="en", dialect="mkdocs")
        translator = LiveTranslator(Engine(Router({"groq": fake})), spec, lambda e: None)
        translator.update(PAGE, 1)
        await until(lambda: not translator.busy and not translator.snapshot().pending)
        target = translator.snapshot().text
        assert '--8<-- "includes/abbreviations.md"\n' in target  # copied, not sent
        assert "RUN THE SERVER." in target
        assert '!!! info "NOTE"' in target  # the type put back, the title translated
        assert all("--8<--" not in last_user(r) for r in fake.requests)
        # the house changes its dialect: the syntax line is asked for afresh
        fake.requests.clear()
        translator.set_spec(dataclasses.replace(spec, dialect="commonmark"))
        await until(lambda: not translator.busy and not translator.snapshot().pending)
        assert any("--8<--" in last_user(r) for r in fake.requests)
        await translator.aclose()

    asyncio.run(scenario())


def test_an_admonitions_paragraphs_after_a_lazy_first_one_are_its_body() -> None:
    from fastdesk.document.blocks import parse
    from fastdesk.document.dialects import apply_dialect, container

    source = '!!! note "Title"\n    First.\n\n    Second.\n\nAfter.\n\n    real code\n'
    doc = apply_dialect(parse(source), "mkdocs")
    second = next(b for b in doc.blocks if "Second." in b.text)
    code = next(b for b in doc.blocks if "real code" in b.text)
    assert second.translatable and not code.translatable
    assert container(doc, second, "mkdocs") is not None
    assert container(doc, code, "mkdocs") is None
    assert apply_dialect(parse(source), "commonmark") == parse(source)
