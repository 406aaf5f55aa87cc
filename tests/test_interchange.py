"""XLIFF, PO and TMX: what fastdesk writes is read by an independent reader (translate-toolkit,
a test-only dependency), and a translator's changes come back as the editor's corrections."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from translate.storage import po as tt_po
from translate.storage import tmx as tt_tmx
from translate.storage import xliff as tt_xliff

from fastdesk.cli.main import run
from fastdesk.document.blocks import parse
from fastdesk.review.interchange.po import read_po, write_po
from fastdesk.review.interchange.units import apply_units, units_of
from fastdesk.review.interchange.xliff import read_xliff, write_xliff
from fastdesk.review.model import load_review, save_review
from fastdesk.translate.memory import Memory
from fastdesk.translate.tmx import read_tmx
from tests.emulator import Emulator
from tests.project_kit import answer_in_language, make_project, use_emulator, write

# Markdown that an XML or PO writer could mangle: entities, tags, quotes, backslashes, CRLF.
TRICKY = (
    "# Step & <title>\r\n\r\n"
    'Step one: **bold**, `a < b && "c"`, [link](x.md "t") <br/> \\*not\\* &amp; 100%.\r\n\r\n'
    "- Step two\r\n  continued line\r\n"
)


@pytest.fixture
def emu(monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    with Emulator(answer=answer_in_language) as e:
        use_emulator(monkeypatch, e)
        yield e


def translated_file(tmp_path: Path, emu: Emulator) -> tuple[Path, Path]:
    root = make_project(tmp_path / "site", "mkdocs-suffix")
    source = write(root / "docs/tricky.md", TRICKY)
    assert run(["translate", str(root), "--to", "fr"]) == 0
    return root, source


def toolkit_units(store: object) -> list:
    return [u for u in store.getunits() if not u.isheader()]  # type: ignore[attr-defined]


def test_xliff_is_read_by_translate_toolkit_and_a_translator_edit_comes_back(
    tmp_path: Path, emu: Emulator
) -> None:
    root, source = translated_file(tmp_path, emu)
    doc = parse(source.read_bytes().decode())
    review, _ = load_review(source, "fr", doc)
    first = next(b for b in doc.blocks if b.translatable)
    assert review.approve(first.id)
    save_review(review)
    xlf = tmp_path / "tricky.fr.xlf"
    assert run(["export", str(source), "--to", "fr", "--format", "xliff", "-o", str(xlf)]) == 0

    store: Any = tt_xliff.xlifffile(xlf.read_bytes())
    units = toolkit_units(store)
    translatable = [b for b in doc.blocks if b.translatable]
    assert [u.xmlelement.get("id") for u in units] == [b.id for b in translatable]
    for unit, block in zip(units, translatable, strict=True):
        assert unit.source == block.split()[1]  # byte for byte
    assert units[0].isapproved() and not units[1].isapproved()
    assert units[1].isfuzzy()  # a machine answer needs review
    assert "Étape one" in units[1].target

    # the translator fixes one segment and marks it done, in their own tool
    units[1].target = 'Étape un : **gras**, `a < b && "c"`, [lien](x.md "t") <br/> \\*non\\*.'
    units[1].xmlelement.find(units[1].namespaced("target")).set("state", "translated")
    xlf.write_bytes(bytes(store))
    count = emu.request_count
    assert run(["import", str(xlf)]) == 0
    assert run(["translate", str(root), "--to", "fr"]) == 0
    assert emu.request_count == count  # the correction is written, nothing is sent
    target = (root / "docs/tricky.fr.md").read_bytes().decode()
    assert (
        '\r\nÉtape un : **gras**, `a < b && "c"`, [lien](x.md "t") <br/> \\*non\\*.\r\n' in target
    )
    review, _ = load_review(source, "fr", doc)
    # the toolkit sets approved="yes" on a unit whose target it set: an approval
    assert review.state_of(translatable[1].id) == "approved"
    assert review.info(translatable[1].id).edited
    assert review.state_of(translatable[0].id) == "approved"
    assert review.state_of(translatable[2].id) == "machine"


def test_xliff_and_po_round_trip_changes_nothing(tmp_path: Path) -> None:
    doc = parse(TRICKY)
    from fastdesk.review.model import Review
    from fastdesk.translate.events import BlockDone, Flag

    review = Review("t.md", "fr", doc)
    blocks = [b for b in doc.blocks if b.translatable]
    review.apply_event(BlockDone(0, blocks[0].id, blocks[0].text.upper(), "model"))
    review.apply_event(
        BlockDone(0, blocks[1].id, blocks[1].text, "model", (Flag("links", "changed"),))
    )
    units = units_of(doc, review)
    for write_fn, read_fn, name in (
        (write_xliff, read_xliff, "x.xlf"),
        (write_po, read_po, "x.po"),
    ):
        path = tmp_path / name
        path.write_text(write_fn(units, original="t.md", source_lang="en", target_lang="fr"))
        meta, incoming = read_fn(path)
        assert meta["target-language"] == "fr" and meta["original"] == "t.md"
        assert [(u.id, u.source.replace("\r\n", "\n")) for u in incoming] == [
            (u.id, u.source.replace("\r\n", "\n")) for u in units
        ]
        result = apply_units(doc, review, incoming)
        assert (result.edited, result.approved, result.skipped) == (0, 0, [])
        assert not review.has_work()


def test_po_marks_stale_blocks_fuzzy_and_reads_translators_work(
    tmp_path: Path, emu: Emulator
) -> None:
    _root, source = translated_file(tmp_path, emu)
    doc = parse(source.read_bytes().decode())
    review, _ = load_review(source, "fr", doc)
    para = [b for b in doc.blocks if b.translatable][1]
    review.edit(para.id, "Mon texte.\r\n\r\n")
    save_review(review)
    edited = TRICKY.replace("Step one:", "Step one (new):")
    source.write_bytes(edited.encode())
    pofile = tmp_path / "tricky.fr.po"
    assert run(["export", str(source), "--to", "fr", "--format", "po", "-o", str(pofile)]) == 0

    store = tt_po.pofile(pofile.read_bytes())
    units = toolkit_units(store)
    new_doc = parse(edited)
    translatable = [b for b in new_doc.blocks if b.translatable]
    assert [u.getcontext() for u in units] == [b.id for b in translatable]
    stale = units[1]
    assert stale.isfuzzy() and stale.target == "Mon texte."
    assert not units[0].isfuzzy() and "Étape" in units[0].target
    stale.target = "Mon texte (nouveau)."
    stale.markfuzzy(False)
    pofile.write_bytes(bytes(store))
    assert run(["import", str(pofile)]) == 0
    review, _ = load_review(source, "fr", new_doc)
    assert review.state_of(translatable[1].id) == "edited"
    assert review.shown_text(translatable[1].id) == "Mon texte (nouveau).\r\n\r\n"


def test_tmx_export_is_read_by_translate_toolkit_and_import_answers_with_no_request(
    tmp_path: Path, emu: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    root, _source = translated_file(tmp_path, emu)
    tmx = tmp_path / "memory.tmx"
    assert run(["memory", "export", "--tmx", str(tmx), "--to", "fr"]) == 0
    store = tt_tmx.tmxfile(tmx.read_bytes())
    pairs = {u.source: u.target for u in store.getunits()}
    for block in [b for b in parse(TRICKY).blocks if b.translatable]:
        core = block.split()[1]
        assert pairs[core] == core.replace("Step", "Étape")  # CRLF and all
    assert len(read_tmx(tmx)) == len(pairs)

    # a fresh memory, filled from the TMX: the same project translates with no request
    assert run(["memory", "clear"]) == 0
    assert run(["memory", "import", str(tmx)]) == 0
    assert "imported" in capsys.readouterr().out
    for target in root.rglob("*.fr.md"):
        target.unlink()
    for sidecar in root.rglob("*.fastdesk.json"):
        sidecar.unlink()
    (root / ".fastdesk/written.json").unlink()
    count = emu.request_count
    assert run(["translate", str(root), "--to", "fr"]) == 0
    assert emu.request_count == count, emu.chat_requests[-1].body["messages"][-1]
    assert "Étape one" in (root / "docs/tricky.fr.md").read_text(encoding="utf-8")


def test_tmx_from_another_tool_answers_a_translation(tmp_path: Path, emu: Emulator) -> None:
    store = tt_tmx.tmxfile(sourcelanguage="en", targetlanguage="de")
    store.addtranslation("Step zero of Home: do the thing.", "en", "Schritt null.", "de")
    tmx = write(tmp_path / "agency.tmx", bytes(store).decode())
    assert run(["memory", "import", str(tmx)]) == 0
    root = tmp_path / "site"
    write(root / "en/index.md", "# Home\n\nStep zero of Home: do the thing.\n")
    assert run(["translate", str(root), "--to", "de"]) == 0
    assert "Schritt null." in (root / "de/index.md").read_text(encoding="utf-8")
    sent = [r.body["messages"][-1]["content"] for r in emu.chat_requests]
    assert sent == ["# Home"]  # only the heading went out
    memory = Memory()
    try:
        assert memory.unknown_sources() == 0
    finally:
        memory.close()


def test_export_md_and_html_from_memory_with_no_request(
    tmp_path: Path, emu: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    root, source = translated_file(tmp_path, emu)
    count = emu.request_count
    out = tmp_path / "out.fr.md"
    assert run(["export", str(source), "--to", "fr", "-o", str(out)]) == 0
    assert out.read_bytes() == (root / "docs/tricky.fr.md").read_bytes()
    page = tmp_path / "page.html"
    assert run(["export", str(source), "--to", "fr", "--format", "html", "-o", str(page)]) == 0
    assert "Étape one" in page.read_text(encoding="utf-8")
    # a new paragraph nobody translated: listed, marked, exit 1 unless --allow-partial
    source.write_bytes((TRICKY + "\r\nA brand new paragraph.\r\n").encode())
    capsys.readouterr()
    assert run(["export", str(source), "--to", "fr", "--format", "html", "-o", str(page)]) == 1
    assert "no translation for 1 blocks (lines 8)" in capsys.readouterr().err
    assert "state-pending" in page.read_text(encoding="utf-8")
    assert run(["export", str(source), "--to", "fr", "-o", str(out)]) == 1
    assert run(["export", str(source), "--to", "fr", "-o", str(out), "--allow-partial"]) == 0
    assert out.read_text(encoding="utf-8").endswith("A brand new paragraph.\n")
    assert emu.request_count == count
    assert run(["import", str(tmp_path / "nope.txt")]) == 2
    assert run(["memory", "import", str(page)]) == 2


def test_a_changed_block_offers_its_former_translation_as_fuzzy(
    tmp_path: Path, emu: Emulator
) -> None:
    root, source = translated_file(tmp_path, emu)
    edited = TRICKY.replace("Step one:", "Step one (new):")
    source.write_bytes(edited.encode())
    pofile = tmp_path / "tricky.fr.po"
    assert run(["export", str(source), "--to", "fr", "--format", "po", "-o", str(pofile)]) == 0
    store = tt_po.pofile(pofile.read_bytes())
    unit = toolkit_units(store)[1]
    assert unit.isfuzzy() and unit.target.startswith("Étape one: **bold**")
    assert unit.prev_source.startswith("Step one: **bold**")
    new_doc = parse(edited)
    para = [b for b in new_doc.blocks if b.translatable][1]
    assert run(["import", str(pofile)]) == 0  # as offered: nothing taken in
    review, _ = load_review(source, "fr", new_doc)
    assert review.shown_text(para.id) is None
    unit.target = unit.target.replace("Étape one:", "Étape un (nouveau) :")
    unit.markfuzzy(False)
    pofile.write_bytes(bytes(store))
    assert run(["import", str(pofile)]) == 0
    review, _ = load_review(source, "fr", new_doc)
    assert review.state_of(para.id) == "edited"
    assert review.shown_text(para.id).startswith("Étape un (nouveau) : **bold**")
    count = emu.request_count
    assert run(["translate", str(root), "--to", "fr"]) == 0
    assert emu.request_count == count  # the translator's text is used, nothing sent


def test_a_single_file_translation_is_exported_to_tmx_with_its_identified_source_language(
    tmp_path: Path, emu: Emulator
) -> None:
    """The engine records an answer's source text as it stores it (Engine._settle), not only
    the project run: the language comes from the job, else is identified from the block."""
    paragraph = "Step one explains how the translation memory keeps every answer for later."
    source = write(tmp_path / "notes.md", f"# Notes\n\n{paragraph}\n")
    assert run(["translate", str(source), "--to", "fr", "-o", str(tmp_path / "out.md")]) == 0
    tmx = tmp_path / "memory.tmx"
    assert run(["memory", "export", "--tmx", str(tmx)]) == 0
    units = read_tmx(tmx)
    assert [(u.source_lang, u.source) for u in units] == [("en", paragraph)]
    assert units[0].targets == (("fr", paragraph.replace("Step", "Étape")),)
    memory = Memory()
    try:
        assert memory.unknown_sources() == 1  # "Notes": too short to tell its language
    finally:
        memory.close()
