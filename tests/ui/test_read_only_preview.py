"""The rendered translation is read-only and says where corrections go: its header says so,
typing shows a one-line hint and moves nothing (Space no longer pages down), and a double
click or Enter on a block opens that block's Markdown for correction (pytest-qt, offscreen)."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from tests.ui.test_target_views import long_text, settled
from tests.ui.test_view_switch import on_screen


def rendered_window(make_window, qtbot):  # type: ignore[no-untyped-def]
    w = make_window()
    w.resize(1024, 700)
    w.show()
    view = w.document_view
    view.show_raw(False)
    view.source.setPlainText(long_text(200))
    qtbot.waitUntil(lambda: settled(w), timeout=60000)
    return w, view


def test_typing_in_the_rendered_view_says_where_corrections_go(make_window, qtbot) -> None:
    _w, view = rendered_window(make_window, qtbot)
    preview = view.preview
    assert view.read_only.note.isVisible() and "read-only" in view.read_only.note.text()
    before_text = view.translation_text()
    preview.setFocus()
    bar = preview.verticalScrollBar()
    bar.setValue(bar.maximum() // 2)
    value = bar.value()
    assert not view.read_only.hint.isVisible()
    for key in (Qt.Key.Key_Space, Qt.Key.Key_A, Qt.Key.Key_Backspace):
        QTest.keyClick(preview, key)
    assert bar.value() == value  # Space did not page down
    assert view.read_only.hint.isVisible() and "double-click" in view.read_only.hint.text()
    assert view.translation_text() == before_text
    QTest.keyClick(preview, Qt.Key.Key_PageDown)  # reading keys still read
    assert bar.value() > value
    view.show_raw(True)
    assert not view.read_only.note.isVisible()


def test_a_double_click_opens_the_blocks_markdown_for_correction(make_window, qtbot) -> None:
    w, view = rendered_window(make_window, qtbot)
    preview, editor = view.preview, view.target_editor
    keys = [seg.key for seg in view.source_blocks]
    bar = preview.verticalScrollBar()
    bar.setValue(bar.maximum() // 2)
    key, top, bottom = preview.visible_blocks()[3]
    index = keys.index(key)
    QTest.mouseDClick(
        preview.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(40, (top + bottom) // 2)
    )
    assert view.showing_raw  # the Markdown, where corrections go
    assert w.actions_.toggle_view.text() == "Show re&ndered"
    assert editor.index_at(editor.textCursor().position()) == index
    qtbot.waitUntil(lambda: key in on_screen(editor))
    QTest.keyClicks(editor, "X")  # the correction goes in: the block is the editor's now
    qtbot.waitUntil(lambda: view.review.state_of(key) == "edited")


def test_enter_opens_the_block_under_the_cursor(make_window, qtbot) -> None:
    _w, view = rendered_window(make_window, qtbot)
    preview = view.preview
    cursor = preview.textCursor()
    cursor.setPosition(preview.block_start(42) + 1)
    preview.setTextCursor(cursor)
    preview.setFocus()
    QTest.keyClick(preview, Qt.Key.Key_Return)
    assert view.showing_raw
    editor = view.target_editor
    assert editor.index_at(editor.textCursor().position()) == 42
