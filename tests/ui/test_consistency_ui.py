"""Consistency in the window: a source translated two ways in the document is a row of the
problems list for each of its blocks; "Use this translation everywhere" gives them all the
row's translation as the editor's edits, and one Undo takes them back together (pytest-qt,
offscreen; the real engine and session, a fake provider)."""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtGui import QAction, QTextCursor
from PySide6.QtWidgets import QDialog, QDockWidget

from fastdesk.project.layout import Project
from fastdesk.project.status import translated_units
from fastdesk.translate.consistency import Unit
from fastdesk.ui import workbench
from fastdesk.ui.dialogs.glossary_drift import GlossaryDriftDialog
from fastdesk.ui.window.main_window import MainWindow
from fastdesk.ui.workbench.problems import EVERYWHERE_TEXT, FIX, PROBLEM
from tests.ui.test_problems_ui import click, shown
from tests.ui.test_review_ui import raw, target_text, wait_settled
from tests.ui.test_undo import focus_target, undo
from tests.ui.test_workbench import key

SOURCE = "Hello world.\n\nThe cat.\n\nHello world.\n\nHello world.\n"
OURS = "Salut le monde.\n"


def test_use_this_translation_everywhere_in_one_undo(make_window, qtbot) -> None:
    w = make_window()
    raw(w)
    view = w.document_view
    view.source.setPlainText(SOURCE)
    qtbot.waitUntil(lambda: target_text(w).count("Bonjour monde.") == 3)
    wait_settled(w, qtbot)
    hello = [b.id for b in view.review.doc.blocks if "Hello" in b.text]
    assert len(hello) == 3
    assert w.workbench.edit_block(hello[0], OURS)  # the editor's wording, in one block
    qtbot.waitUntil(lambda: view.review.shown_text(hello[0]) == OURS)
    key(qtbot, w, "Ctrl+Shift+M")  # View > Problems
    dock = w.findChild(QDockWidget, "problemsView")
    assert dock.isVisible()

    def rows() -> list[int]:
        return [n for n, p in enumerate(dock.rows) if p.kind == "consistency"]

    qtbot.waitUntil(lambda: len(rows()) == 3)
    assert dock.filters["consistency"].text() == "Consistency 3"
    first = rows()[0]
    assert dock.rows[first].block_id == hello[0]
    assert shown(dock, first, PROBLEM) == "translated differently"
    assert shown(dock, first, FIX) == EVERYWHERE_TEXT
    click(qtbot, dock, first, FIX)
    assert [view.review.shown_text(b) for b in hello] == [OURS] * 3
    assert all(view.review.state_of(b) == "edited" for b in hello)
    assert "Bonjour monde." not in target_text(w)
    qtbot.waitUntil(lambda: rows() == [])
    focus_target(w, qtbot)
    undo(qtbot, w)  # Ctrl+Z: one step, both blocks back, the first edit stays
    qtbot.waitUntil(lambda: target_text(w).count("Bonjour monde.") == 2)
    qtbot.waitUntil(lambda: [view.review.shown_text(b) for b in hello[1:]] != [OURS] * 2)
    assert view.review.shown_text(hello[0]) == OURS


def test_the_glossary_drift_view_lists_each_terms_renderings(
    make_window, qtbot, tmp_path: Path
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / ".fastdesk-glossary.toml").write_text(
        '[translate.fr]\n"world" = "univers"\n"cat" = "chat"\n', encoding="utf-8"
    )
    page = folder / "page.md"
    page.write_text("Hello world.\n\nGoodbye world.\n\nThe cat.\n", encoding="utf-8")
    w = make_window()
    assert w.open_file(page)
    qtbot.waitUntil(lambda: "Au revoir monde." in w.document_view.review_ctl.target_text())
    wait_settled(w, qtbot)
    qtbot.waitUntil(lambda: w.workbench.problem_list.glossary is not None)
    w.findChild(QAction, "actionGlossaryDrift").trigger()
    dialog = w.findChild(QDialog, "glossaryDrift")
    assert dialog is not None and dialog.isVisible()
    qtbot.waitUntil(lambda: not dialog.busy)
    tree = dialog.tree
    rows = {
        tree.topLevelItem(n).text(0): tree.topLevelItem(n) for n in range(tree.topLevelItemCount())
    }
    assert set(rows) == {"world", "cat"}
    world, cat = rows["world"], rows["cat"]
    assert tree.topLevelItem(0) is world  # drifting terms first
    assert world.text(2) == "univers" and world.text(3) == "drifts"
    renderings = [world.child(n).text(2) for n in range(world.childCount())]
    assert "univers" not in renderings and "monde" in renderings
    assert "(2)" in world.child(renderings.index("monde")).text(3)  # both blocks
    assert cat.text(3) == "as the glossary says"


def _site(tmp_path: Path) -> Path:
    """A MkDocs site in en and fr with a glossary: its index page untranslated, its guide
    translated by hand with the glossary's term."""
    root = tmp_path / "site"
    (root / "docs").mkdir(parents=True)
    (root / "mkdocs.yml").write_text(
        "site_name: t\nplugins:\n  - i18n:\n      languages:\n"
        "        - locale: en\n          default: true\n        - locale: fr\n",
        encoding="utf-8",
    )
    (root / ".fastdesk-glossary.toml").write_text(
        '[translate.fr]\n"world" = "univers"\n', encoding="utf-8"
    )
    (root / "docs/index.md").write_text(
        "Hello world.\n\nGoodbye world.\n\nThe cat.\n", encoding="utf-8"
    )
    (root / "docs/guide.md").write_text("Goodbye world.\n", encoding="utf-8")
    (root / "docs/guide.fr.md").write_text("Au revoir univers.\n", encoding="utf-8")  # by hand
    return root


def _open_site(make_window, qtbot, tmp_path: Path) -> MainWindow:
    w = make_window()
    assert w.open_project(_site(tmp_path))  # its index page, translated by the fake as "monde"
    qtbot.waitUntil(lambda: not w.project.reading, timeout=10_000)
    qtbot.waitUntil(lambda: "Au revoir monde." in w.document_view.review_ctl.target_text())
    wait_settled(w, qtbot)
    qtbot.waitUntil(lambda: w.workbench.problem_list.glossary is not None)
    return w


def _world(dialog: GlossaryDriftDialog) -> dict[str, str]:
    (world,) = [dialog.tree.topLevelItem(n) for n in range(dialog.tree.topLevelItemCount())]
    assert world.text(0) == "world" and world.text(3) == "drifts"
    return {world.child(n).text(2): world.child(n).text(3) for n in range(world.childCount())}


def test_the_drift_view_reads_the_open_projects_other_pages(make_window, qtbot, tmp_path) -> None:
    w = _open_site(make_window, qtbot, tmp_path)
    dialog = w.workbench.show_glossary_drift()
    assert dialog is not None
    qtbot.waitUntil(lambda: not dialog.busy)
    assert _world(dialog) == {"monde": "docs/index.md (2)", "univers": "docs/guide.md (1)"}


def test_the_drift_view_reads_the_pages_in_a_worker_and_the_window_goes_on(
    make_window, qtbot, tmp_path, monkeypatch
) -> None:
    """The pages are read off the GUI thread: while the read is held, the dialog is open and
    busy and the window's event loop runs; the view fills when the read ends."""
    w = _open_site(make_window, qtbot, tmp_path)
    gate = threading.Event()
    readers: list[bool] = []  # for each read: was it on the GUI thread?
    threads: list[threading.Thread] = []

    def held(project: Project, skip: tuple[str, str] = ("", "")) -> list[Unit]:
        on_gui = threading.current_thread() is threading.main_thread()
        readers.append(on_gui)
        threads.append(threading.current_thread())
        if not on_gui:  # a read on the GUI thread is not held: the test would hang
            gate.wait(30)
        return translated_units(project, skip=skip)

    monkeypatch.setattr(workbench, "translated_units", held)
    try:
        dialog = w.workbench.show_glossary_drift()
        assert dialog is not None and dialog.isVisible()
        qtbot.waitUntil(lambda: readers != [])
        assert readers == [False]
        assert dialog.busy and dialog.progress.isVisible() and dialog.tree.topLevelItemCount() == 0
        assert dialog.summary.text() == "Reading the pages…"
        ticks: list[int] = []
        QTimer.singleShot(0, lambda: ticks.append(1))  # the GUI thread's events go on
        qtbot.waitUntil(lambda: ticks == [1])
        w.document_view.source.moveCursor(QTextCursor.MoveOperation.End)  # and so does editing
        w.document_view.source.insertPlainText("\nMore.")
        assert w.document_view.source.toPlainText().endswith("More.")
        assert dialog.busy  # the read is still held
        with qtbot.waitSignal(dialog.filled, timeout=10_000):
            gate.set()
    finally:
        gate.set()
    assert not dialog.busy and not dialog.progress.isVisible()
    assert _world(dialog) == {"monde": "docs/index.md (2)", "univers": "docs/guide.md (1)"}
    qtbot.waitUntil(lambda: not threads[0].is_alive())  # the read's thread ends with it


def test_a_drift_view_closed_while_reading_drops_the_read(
    make_window, qtbot, tmp_path, monkeypatch
) -> None:
    w = _open_site(make_window, qtbot, tmp_path)
    gate = threading.Event()
    started = threading.Event()

    def held(project: Project, skip: tuple[str, str] = ("", "")) -> list[Unit]:
        started.set()
        gate.wait(30)
        return translated_units(project, skip=skip)

    monkeypatch.setattr(workbench, "translated_units", held)
    try:
        first = w.workbench.show_glossary_drift()
        assert first is not None
        qtbot.waitUntil(started.is_set)
        first.close()
        assert not first.busy
    finally:
        gate.set()
    monkeypatch.setattr(workbench, "translated_units", translated_units)
    again = w.workbench.show_glossary_drift()
    assert again is not None
    qtbot.waitUntil(lambda: not again.busy)
    assert _world(again) == {"monde": "docs/index.md (2)", "univers": "docs/guide.md (1)"}
