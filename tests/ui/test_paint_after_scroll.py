"""What is on screen after scrolling the source is what a fresh paint gives: no fenced code
block drawn twice or left behind by a scroll (issue 30: "after scrolling the source, a fenced
code block was painted twice with overlapping lines and stayed so").

The screen's pixels (the offscreen platform's backing store, where scrolls are blitted) are
compared with the window painted afresh, after each wheel step down and back up, in both
target views and both themes. Not reproduced so far on the offscreen platform; this guards it.
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
