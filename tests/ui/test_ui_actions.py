"""Keyboard shortcuts reach their actions from the editors, and .md files can be dropped."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMimeData, QPoint, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication


def test_every_action_has_a_shortcut(make_window) -> None:
    w = make_window()
    missing = [
        a.objectName()
        for a in w.actions()
        if a.objectName().startswith("action")
        and a.shortcut().isEmpty()
        and a.objectName() not in ("actionSample", "actionAbout")  # F1 is the guide's
    ]
    assert missing == []
    shortcuts = [a.shortcut().toString() for a in w.actions() if not a.shortcut().isEmpty()]
    assert len(shortcuts) == len(set(shortcuts)), "two actions share a shortcut"


def test_shortcuts_work_while_typing_in_the_source(make_window, qtbot, provider) -> None:
    w = make_window()
    w.actions_.live.setChecked(False)
    with qtbot.waitActive(w):
        w.activateWindow()
    w.document_view.source.setFocus()
    qtbot.keyClicks(w.document_view.source, "Hello world")
    assert provider.requests == []
    qtbot.keyClick(w.document_view.source, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: w.document_view.target_editor.toPlainText() == "Bonjour monde")
    # Ctrl+Return did not insert a line
    assert w.document_view.source.toPlainText() == "Hello world"
    qtbot.keyClick(w.document_view.source, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)
    assert w.document_view.showing_raw
    qtbot.keyClick(w.document_view.source, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    assert w.selectors.mode.currentData() == "simplify"


def test_dropping_a_markdown_file_opens_it(make_window, qtbot, tmp_path: Path) -> None:
    doc = tmp_path / "dropped.md"
    doc.write_text("Hello world\n", encoding="utf-8")
    w = make_window()
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(doc))])
    enter = QDragEnterEvent(
        QPoint(5, 5),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(w.document_view.source.viewport(), enter)
    assert enter.isAccepted()
    event = QDropEvent(
        QPoint(5, 5),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(w.document_view.source.viewport(), event)
    assert w.document_view.path == doc
    assert w.document_view.source.toPlainText() == "Hello world\n"
    qtbot.waitUntil(lambda: w.document_view.target_editor.toPlainText() == "Bonjour monde\n")
