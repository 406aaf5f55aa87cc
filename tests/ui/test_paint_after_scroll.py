"""What is on screen after scrolling the source is what a fresh paint gives: no fenced code
block drawn twice or left behind by a scroll (issue 30: "after scrolling the source, a fenced
code block was painted twice with overlapping lines and stayed so").

The screen's pixels (the offscreen platform's backing store, where scrolls are blitted) are
compared with the window painted afresh, after each wheel step down and back up, in both
target views and both themes. The cause found (the raw target's margin, painting, moved both
panes) has its own test below.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QGuiApplication, QImage, QWheelEvent
from PySide6.QtWidgets import QApplication

from fastdesk.ui.app import apply_theme
from tests.ui.test_target_views import settled
from tests.ui.test_theme import app_theme  # noqa: F401 - the fixture

CODE = "".join(
    f"Paragraph {i}, the cat.\n\n```python\ndef f{i}(x):\n    # the cat {i}\n    return x\n```\n\n"
    for i in range(60)
)


def differing(a: QImage, b: QImage) -> int:
    """Pixels that differ (every other pixel of every other row: a code block drawn twice
    differs over whole lines)."""
    if a == b:  # (the usual case, compared in C++)
        return 0
    if a.size() != b.size():
        return a.width() * a.height()
    return sum(
        a.pixel(x, y) != b.pixel(x, y)
        for y in range(0, a.height(), 2)
        for x in range(0, a.width(), 2)
    )


def wheel(widget, delta: int) -> None:  # type: ignore[no-untyped-def]
    at = QPointF(40, 40)
    event = QWheelEvent(
        at,
        QPointF(widget.mapToGlobal(QPoint(40, 40))),
        QPoint(0, 0),
        QPoint(0, delta),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(widget, event)


@pytest.mark.parametrize("raw", [False, True])
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_scrolling_the_source_leaves_no_code_block_drawn_twice(
    make_window,
    qtbot,
    raw,
    theme,
    app_theme,  # noqa: F811
) -> None:
    apply_theme(app_theme, theme)
    flash = QApplication.cursorFlashTime()
    QApplication.setCursorFlashTime(0)  # a blinking cursor is not an artefact
    try:
        w = make_window()
        w.resize(1024, 700)
        view = w.document_view
        view.show_raw(raw)
        view.source.setPlainText(CODE)
        qtbot.waitUntil(lambda: settled(w), timeout=30_000)
        screen = QGuiApplication.primaryScreen()
        viewport = view.source.viewport()
        for step in range(24):
            wheel(viewport, -120 if step < 16 else 120)
            qtbot.waitUntil(lambda: view.scheduler.idle)
            QApplication.processEvents()
            on_screen = screen.grabWindow(w.winId()).toImage()
            fresh = w.grab().toImage()
            for pane in (view.source, view.target_pane()):  # (not the status bar's figures)
                port = pane.viewport()
                rect = port.rect().translated(port.mapTo(w, QPoint(0, 0)))
                assert differing(on_screen.copy(rect), fresh.copy(rect)) < 12, f"step {step}"
        assert view.source.verticalScrollBar().value() > 0  # it did scroll
    finally:
        QApplication.setCursorFlashTime(flash)


LONG = "the cat walks along the long wall of the old garden and " * 3
WRAPPED_CODE = "".join(
    f"Paragraph {i}, the cat.\n\n```python\n"
    + "".join(f"# {j} {LONG}\n" for j in range(8))
    + "```\n\n"
    for i in range(30)
)


def test_painting_the_margin_scrolls_neither_pane(make_window, qtbot) -> None:
    """The cause of the code block drawn twice: the raw target's margin, painting, laid out the
    lines of a fenced code block that starts above the view; a plain text edit lays lines out
    lazily (after a width change each counts as one), so its scroll bar moved to the top line's
    new number and sync scroll moved the source, both in the middle of the window's paint."""
    from fastdesk.ui.review.widgets import ReviewMargin

    w = make_window()
    w.resize(1366, 768)
    view = w.document_view
    view.source.setPlainText(WRAPPED_CODE)
    qtbot.waitUntil(lambda: settled(w), timeout=30_000)
    view.show_raw(True)
    editor = view.target_editor
    qtbot.waitUntil(lambda: view.scheduler.idle)
    # the editor's top line: the sixth line of the 16th code block (each line wraps)
    block = editor.document().findBlock(editor.starts()[2 * 15 + 1])
    for _ in range(5):
        block = block.next()
    assert block.text().startswith("# 4 ")
    editor.verticalScrollBar().setValue(block.firstLineNumber())
    QApplication.processEvents()
    assert editor.firstVisibleBlock().blockNumber() == block.blockNumber()
    assert block.lineCount() > 1  # it wraps
    w.resize(1100, 768)  # another wrap width: the lines above the view are laid out afresh
    top = editor.firstVisibleBlock().blockNumber()
    bars = (editor.verticalScrollBar(), view.source.verticalScrollBar())
    before = [bar.value() for bar in bars]
    margin = editor.findChild(ReviewMargin)
    assert margin is not None and margin.blocks()  # (what its paint draws)
    margin.repaint()
    assert [bar.value() for bar in bars] == before
    assert editor.firstVisibleBlock().blockNumber() == top
    # and the code block's bar is drawn from the top of the view
    key, top, bottom = margin.blocks()[0]
    assert key == view.review_ctl.segments()[2 * 15 + 1].key and top < 0 < bottom
