"""File → Export Translation in a docs project: the layout's target is proposed and written as
Save writes it (links rebased, the record kept); another path gets its links rebased for its own
folder, and a warning first when the layout would read that file as a new source page."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.project_kit import write
from tests.ui.test_project_panel import cell, settle, translated

PAGE = "# Hello\n\nHello world, see [home](index.md) and ![logo](img/logo.png).\n"
MKDOCS = "site_name: t\nplugins:\n  - i18n:\n      languages:\n        - locale: en\n"


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """A MkDocs folder layout: sources under docs/en/, French targets under docs/fr/."""
    root = tmp_path / "site"
    write(root / "mkdocs.yml", MKDOCS + "          default: true\n        - locale: fr\n")
    write(root / "docs/en/guide.md", PAGE)
    write(root / "docs/en/index.md", "# Home\n\nHello home.\n")
    write(root / "docs/en/img/logo.png", "not markdown")
    (root / "docs/fr").mkdir()
    return root


def exporting(window, monkeypatch: pytest.MonkeyPatch, chosen: Path | None) -> list[str]:  # type: ignore[no-untyped-def]
    """Export Translation, the dialog answering ``chosen``; returns the paths it proposed."""
    from PySide6.QtWidgets import QFileDialog

    proposed: list[str] = []

    def dialog(_parent, _title: str, start: str, _kind: str) -> tuple[str, str]:
        proposed.append(start)
        return (str(chosen) if chosen else "", "")

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(dialog))
    window.files.export_dialog()
    return proposed


def opened_on_guide(make_window, qtbot, site: Path):  # type: ignore[no-untyped-def]
    from pathlib import PurePosixPath

    window = make_window()
    assert window.open_project(site)
    settle(qtbot, window)
    window.project.choose(PurePosixPath("docs/en/guide.md"), "fr")
    translated(qtbot, window, "Bonjour monde")
    return window


def test_export_proposes_the_layouts_target_and_writes_it_as_save_does(
    make_window, qtbot, site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fastdesk.project.record import WrittenRecord

    window = opened_on_guide(make_window, qtbot, site)
    target = site / "docs/fr/guide.md"
    proposed = exporting(window, monkeypatch, target)
    assert proposed == [str(target)]
    settle(qtbot, window)
    written = target.read_text(encoding="utf-8")
    # links rebased for docs/fr/: the other page's French target, the image where it is
    assert "[home](index.md)" in written and "![logo](../en/img/logo.png)" in written
    assert written.startswith("# Bonjour\n\nBonjour monde")
    assert WrittenRecord(site).get("docs/fr/guide.md") is not None  # the record is kept
    assert cell(window, "docs/en/guide.md", "fr") == "✓ 0%"
    assert "Exported; docs/fr/guide.md written" in window.statusBar().currentMessage()


def test_export_of_unsaved_edits_saves_the_source_first(
    make_window, qtbot, site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = opened_on_guide(make_window, qtbot, site)
    view = window.document_view
    cursor = view.source.document().find("world")
    cursor.insertText("world again")  # an edit: the source is modified
    assert view.source.document().isModified()
    view.send_update()
    translated(qtbot, window, "monde again")
    asked: list[str] = []
    window.files._ask_save_first = lambda: asked.append("save") or "cancel"
    exporting(window, monkeypatch, site / "docs/fr/guide.md")
    assert asked and not (site / "docs/fr/guide.md").exists()  # cancelled: nothing written
    window.files._ask_save_first = lambda: "save"
    exporting(window, monkeypatch, site / "docs/fr/guide.md")
    settle(qtbot, window)
    assert "world again" in (site / "docs/en/guide.md").read_text(encoding="utf-8")
    assert "monde again" in (site / "docs/fr/guide.md").read_text(encoding="utf-8")


def test_export_elsewhere_rebases_links_for_that_folder_and_keeps_no_record(
    make_window, qtbot, site: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from fastdesk.project.record import WrittenRecord

    window = opened_on_guide(make_window, qtbot, site)
    chosen = site / "handoff/guide-fr.md"  # no source folder: not read as a page
    chosen.parent.mkdir()
    window.files._ask_source_clash = lambda *_a: pytest.fail("not a source page: no warning")
    exporting(window, monkeypatch, chosen)
    written = chosen.read_text(encoding="utf-8")
    assert "[home](../docs/fr/index.md)" in written
    assert "![logo](../docs/en/img/logo.png)" in written
    assert WrittenRecord(site).get("handoff/guide-fr.md") is None
    assert not (site / "docs/fr/guide.md").exists()


def test_export_beside_the_source_in_a_folder_layout_warns_first(
    make_window, qtbot, site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pathlib import PurePosixPath

    from fastdesk.project.layout import find_project

    project = find_project(site)
    assert project.reads_as_source(PurePosixPath("docs/en/guide.fr.md"))
    assert not project.reads_as_source(PurePosixPath("docs/fr/guide.md"))
    window = opened_on_guide(make_window, qtbot, site)
    beside = site / "docs/en/guide.fr.md"
    said: list[tuple[str, str]] = []
    answers = ["cancel", "anyway", "target"]

    def ask(chosen, target) -> str:  # type: ignore[no-untyped-def]
        said.append((str(chosen), str(target)))
        return answers.pop(0)

    window.files._ask_source_clash = ask
    exporting(window, monkeypatch, beside)
    assert said == [("docs/en/guide.fr.md", "docs/fr/guide.md")] and not beside.exists()
    exporting(window, monkeypatch, beside)  # anyway: a copy (the same folder: links as they are)
    copy = beside.read_text(encoding="utf-8")
    assert copy.startswith("# Bonjour") and "![logo](img/logo.png)" in copy
    assert not (site / "docs/fr/guide.md").exists()
    exporting(window, monkeypatch, beside)  # the layout's target instead
    settle(qtbot, window)
    assert "![logo](../en/img/logo.png)" in (site / "docs/fr/guide.md").read_text(encoding="utf-8")
    assert len(said) == 3


def test_a_copy_elsewhere_follows_the_anchors_the_translation_moves(
    make_window, qtbot, site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """MkDocs makes a heading's anchor from its text: "# Hello" translated is ``#bonjour``.
    A copy is written as the target is (`fastdesk translate DIR`, `fastdesk export`): its
    links into the moved heading follow it, in a folder of its own and beside the source."""
    write(site / "docs/en/guide.md", "# Hello\n\nHello world, see [the top](#hello).\n")
    window = opened_on_guide(make_window, qtbot, site)
    chosen = site / "handoff/guide-fr.md"
    chosen.parent.mkdir()
    exporting(window, monkeypatch, chosen)
    assert "[the top](#bonjour)" in chosen.read_text(encoding="utf-8")
    beside = site / "docs/en/guide.fr.md"
    window.files._ask_source_clash = lambda *_a: "anyway"
    exporting(window, monkeypatch, beside)
    assert (
        beside.read_text(encoding="utf-8")
        == "# Bonjour\n\nBonjour monde, see [the top](#bonjour).\n"
    )
    exporting(window, monkeypatch, site / "docs/fr/guide.md")  # the layout's target: the same
    settle(qtbot, window)
    assert (site / "docs/fr/guide.md").read_text(encoding="utf-8") == beside.read_text(
        encoding="utf-8"
    )
