"""The window at 1,024×700 and 1,366×768, light and dark: no status-bar text, dock counter or
review summary is cut (each fits, or ends in "…" with the whole text in its tooltip); the
project panel without a project says what to do (pytest-qt, offscreen)."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QTextDocumentFragment
from PySide6.QtWidgets import QAbstractButton, QApplication, QDockWidget, QLabel, QWidget

from fastdesk.translate.events import Waiting
from fastdesk.ui.app import apply_theme
from fastdesk.ui.panes.elided import ElidedLabel
from fastdesk.ui.workbench.project import NO_PROJECT
from tests.ui.test_target_views import long_text, settled
from tests.ui.test_theme import app_theme  # noqa: F401 - the fixture

LONG_ERROR = "Cerebras: the model is over capacity for your organisation; try again later " * 2
LONG_WAIT = Waiting(1, "groq", 57, "Groq free tier, 30 requests/min, 6,000 tokens/min, daily cap")


def plain(widget: QLabel | QAbstractButton) -> str:
    text = widget.text()
    return QTextDocumentFragment.fromHtml(text).toPlainText() if "<" in text else text


def cut(widget: QLabel | QAbstractButton) -> str | None:
    """The widget's text when it is cut without a sign of it; None when it fits or elides."""
    text = plain(widget).replace("&", "")
    if not text or not widget.isVisible():
        return None
    if isinstance(widget, ElidedLabel):
        return None if not widget.elided() or widget.text() in widget.toolTip() else text
    if isinstance(widget, QLabel) and widget.wordWrap():
        return None
    room = widget.contentsRect().width()
    if isinstance(widget, QAbstractButton):
        return None if widget.sizeHint().width() <= widget.width() + 1 else text
    need = widget.fontMetrics().horizontalAdvance(text)
    if need <= room + 1:
        return None
    tip = QTextDocumentFragment.fromHtml(widget.toolTip()).toPlainText()
    shown = widget.text()
    compact = len(plain(widget)) < len(text) or "…" in shown
    return None if compact and tip else text


def texts_in(*parents: QWidget) -> list[QLabel | QAbstractButton]:
    out: list[QLabel | QAbstractButton] = []
    for parent in parents:
        out += [w for w in parent.findChildren(QLabel) if w.isVisible()]
        out += [w for w in parent.findChildren(QAbstractButton) if w.isVisible()]
    return out


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("size", [(1024, 700), (1366, 768)])
def test_nothing_is_cut_in_a_small_window(make_window, qtbot, theme, size, app_theme) -> None:  # noqa: F811
    apply_theme(app_theme, theme)
    w = make_window()
    w.resize(*size)
    view = w.document_view
    view.source.setPlainText(long_text(90) + "See [the guide](https://example.com/a).\n")
    qtbot.waitUntil(lambda: settled(w), timeout=60000)
    w.set_second_pane(True)
    w.workbench.show_problems()
    w.project.dock.show()
    w.status.show_error(LONG_ERROR, "detail")
    w.status.waiting(LONG_WAIT)
    QApplication.processEvents()
    qtbot.waitUntil(lambda: w.width() == size[0])
    view._update_review_bar()
    second = view.second.pane
    assert second is not None
    qtbot.waitUntil(lambda: view.review_bar.summary.width() > 0)
    bar = w.statusBar()
    docks = [d for d in w.findChildren(QDockWidget) if d.isVisible()]
    widgets = texts_in(bar, view.review_bar, *docks)
    assert any(isinstance(x, ElidedLabel) for x in widgets)
    assert [t for t in map(cut, widgets) if t] == []
    # the passing message: cut to the room left of the permanent widgets, whole in the tooltip
    assert bar.currentMessage() == LONG_WAIT.message  # as given, for whoever reads it
    fits = bar.fontMetrics().horizontalAdvance
    # (the bar cuts it again when its permanent widgets settle: a layout request of its own)
    qtbot.waitUntil(lambda: fits(bar.shown_message()) <= bar.message_room())
    message = bar.shown_message()
    assert message.startswith("waiting 57 s")
    if message != LONG_WAIT.message:
        assert message.endswith("…") and bar.toolTip() == LONG_WAIT.message
    assert bar.message_room() > bar.width() // 6  # room enough to read what it says
    # the error: cut within a quarter of the bar, whole in the tooltip
    assert w.status.error_button.width() <= max(140, bar.width() // 4 + 40)
    assert LONG_ERROR.strip()[:80] in w.status.error_button.toolTip()
    # the project panel with no project says what to do
    empty = w.project.dock.empty
    assert empty.isVisible() and empty.text() == NO_PROJECT
    assert w.project.dock.open_button.isVisible() and not w.project.dock.tree.isVisible()


def test_the_review_summary_is_compact_when_narrow(qtbot) -> None:
    from fastdesk.review.model import ReviewSummary
    from fastdesk.ui.review.widgets import ReviewBar

    bar = ReviewBar()
    qtbot.addWidget(bar)
    bar.resize(900, 40)
    bar.show()
    summary = ReviewSummary(120, 30, 4, 5, 0, 60, 21)
    bar.set_summary(summary)
    assert "approved" in bar.summary.text()
    bar.resize(160, 40)
    qtbot.waitUntil(lambda: "approved" not in bar.summary.text())
    assert "120 blocks" in bar.summary.toolTip() and "81 to come" in bar.summary.toolTip()
    assert cut(bar.summary) is None


@pytest.mark.parametrize("width", [1280, 1366])
def test_who_answered_and_how_fast_shows_whole_in_a_laptops_window(
    make_window, qtbot, width: int
) -> None:
    """The latency is what the status bar is for: a typical answer's reads whole from 1,280 px
    (a fifth of the bar cut it at "first token 2…")."""
    from fastdesk.providers.base import RequestStats

    w = make_window()
    w.resize(width, 760)
    qtbot.waitUntil(lambda: w.width() == width)
    w.status.request_done(
        RequestStats(
            "groq",
            "openai/gpt-oss-20b",
            "ok",
            304.0,
            1854.0,
            900,
            4200,
            0.001522,
            tokens_per_s=2288.0,
        )
    )
    w.status.set_filled(True)  # "✓ every block translated" beside it, as once a page is done
    QApplication.processEvents()
    latency = w.status.latency
    assert latency.text() == (
        "groq · openai/gpt-oss-20b · first token 304 ms · total 1854 ms · 2288 tok/s"
    )
    qtbot.waitUntil(lambda: not latency.elided())
