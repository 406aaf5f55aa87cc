"""Ctrl+R (rendered ↔ Markdown target) keeps the reader's place: the block under the cursor
stays in view in both panes, whichever pane the cursor is in (pytest-qt, offscreen)."""

from __future__ import annotations

from PySide6.QtGui import QTextCursor

from tests.ui.test_target_views import long_text, settled
from tests.ui.test_workbench import key


def on_screen(pane) -> list[str]:  # type: ignore[no-untyped-def]
    return [k for k, _top, _bottom in pane.visible_blocks()]


def source_on_screen(view) -> set[str]:  # type: ignore[no-untyped-def]
    return set(view.places.visible_source_blocks())


def long_window(make_window, qtbot):  # type: ignore[no-untyped-def]
    """A 1,024×700 window on a 300-block document, translated; its blocks' keys."""
    w = make_window()
    w.resize(1024, 700)
    w.show()
    view = w.document_view
    view.source.setPlainText(long_text(300))
    qtbot.waitUntil(lambda: settled(w), timeout=60000)
    return w, view, [seg.key for seg in view.source_blocks]


def test_ctrl_r_keeps_the_block_under_the_source_cursor_in_view(make_window, qtbot) -> None:
    w, view, keys = long_window(make_window, qtbot)
    # the source's cursor on block 150, scrolled there; the target follows (sync)
    cursor = QTextCursor(view.source.document())
    cursor.setPosition(view.source.toPlainText().index("number 150,"))
    view.source.setTextCursor(cursor)
    view.source.centerCursor()
    view.source.setFocus()
    qtbot.waitUntil(lambda: keys[150] in on_screen(view.target_pane()))
    for expected_raw in (not view.showing_raw, view.showing_raw):
        key(qtbot, w, "Ctrl+R")
        assert view.showing_raw is expected_raw
        pane = view.target_pane()
        qtbot.waitUntil(lambda p=pane: keys[150] in on_screen(p))
        assert keys[150] in source_on_screen(view)


def test_ctrl_r_keeps_the_block_under_the_target_cursor_in_view(make_window, qtbot) -> None:
    w, view, keys = long_window(make_window, qtbot)
    view.sync.enabled = False  # the target alone scrolled to block 220: the source elsewhere
    view.show_raw(False)
    preview = view.preview
    cursor = preview.textCursor()
    cursor.setPosition(preview.block_start(220) + 2)
    preview.setTextCursor(cursor)
    preview.setFocus()
    preview.ensureCursorVisible()
    qtbot.waitUntil(lambda: keys[220] in on_screen(preview))
    view.sync.enabled = True
    key(qtbot, w, "Ctrl+R")
    editor = view.target_editor
    assert view.showing_raw and editor.hasFocus()
    qtbot.waitUntil(lambda: keys[220] in on_screen(editor))
    assert editor.index_at(editor.textCursor().position()) == 220  # the cursor in its block
    assert keys[220] in source_on_screen(view)
    key(qtbot, w, "Ctrl+R")  # and back
    assert not view.showing_raw and preview.hasFocus()
    qtbot.waitUntil(lambda: keys[220] in on_screen(preview))
    assert preview.index_at(preview.textCursor().position()) == 220
    assert keys[220] in source_on_screen(view)
