"""Every control of the window named for assistive technology, through Qt's accessibility
interface (what AT-SPI hands a screen reader such as Orca), with every panel and dialog open;
the rendered translation read as a document of plain text (pytest-qt, offscreen)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import QApplication, QDialog, QLineEdit

from fastdesk.ui.review.back_translation import BackTranslationDialog
from tests.ui.everything import make_site, open_panels, unnamed_focusable

NONCHARACTERS = {chr(c) for c in range(0xFDD0, 0xFDF0)} | {"\u2029", "\u2028"}


@pytest.fixture
def site(tmp_path: Path) -> Path:
    return make_site(tmp_path / "site")


def _window(make_window, qtbot, site: Path):  # type: ignore[no-untyped-def]
    window = make_window()
    assert window.open_project(site)
    qtbot.waitUntil(lambda: "Bonjour" in window.document_view.target_editor.toPlainText())
    return window


def test_no_focusable_control_without_a_name(make_window, qtbot, site: Path, provider) -> None:
    window = _window(make_window, qtbot, site)
    open_panels(window)
    window.set_second_pane(True)
    window.workbench.show_guide()
    window.open_settings()
    back = BackTranslationDialog(window, [("Hello", "Bonjour", "Hello")])
    back.show()
    provider.hold_answers()  # Translate Project's dialog stays while the provider waits
    window.translate_project()
    qtbot.waitUntil(lambda: window.project_run.progress is not None)
    QApplication.processEvents()
    dialogs = [d for d in window.findChildren(QDialog) if d.isVisible()]
    names = {d.objectName() for d in dialogs}
    assert {"guideDialog", "settingsDialog", "backTranslationDialog"} <= names, names
    assert "projectRunProgress" in names, names
    found = {top.objectName(): unnamed_focusable(top) for top in [window, *dialogs]}
    assert {k: v for k, v in found.items() if v} == {}
    window.project_run.stop()


def test_the_key_fields_name_their_provider(make_window, qtbot) -> None:
    window = make_window()
    window.open_settings()
    dialog = next(d for d in window.findChildren(QDialog) if d.objectName() == "settingsDialog")
    keys = [
        e for e in dialog.findChildren(QLineEdit) if e.echoMode() == QLineEdit.EchoMode.Password
    ]
    assert len(keys) >= 3
    names = [QAccessible.queryAccessibleInterface(e).text(QAccessible.Text.Name) for e in keys]
    for provider in ("Groq", "Cerebras"):
        assert any(provider in name for name in names), names
    assert len(set(names)) == len(names), names


def test_the_rendered_translation_reads_as_a_document_of_plain_text(
    make_window, qtbot, site: Path
) -> None:
    window = _window(make_window, qtbot, site)
    preview = window.document_view.preview
    qtbot.waitUntil(lambda: "Bonjour" in preview.toPlainText())
    iface = QAccessible.queryAccessibleInterface(preview)
    assert iface.role() == QAccessible.Role.Document
    assert iface.text(QAccessible.Text.Name) == "Translation"
    text = iface.textInterface()
    assert text is not None
    read = text.text(0, text.characterCount())
    assert "Bonjour" in read and "markdown.preprocessors.Preprocessor" in read
    assert not NONCHARACTERS & set(read)
    # offsets are the pane's cursor positions: the caret AT-SPI reports is the pane's
    cursor = preview.textCursor()
    cursor.setPosition(read.index("Bonjour"))
    preview.setTextCursor(cursor)
    assert text.cursorPosition() == read.index("Bonjour")
    assert preview.document().characterAt(read.index("Bonjour")) == "B"
