"""One meaning of "filled" (DocumentView.filled): the status bar says "every block translated"
once, and only once, the raw editor and the rendered view on show hold every block's answer;
benchmarks/bench_window_fill.py times the window by the same word."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QPlainTextEdit, QTextEdit

from fastdesk.providers.base import ProviderError
from fastdesk.ui.window.status_bar import FILLED
from tests.ui.uifakes import translated

SOURCE = "# Hello world\n\nHello cat, hello world.\n\n- Goodbye world\n- Hello cat\n"


def says_filled(window) -> bool:
    label = window.statusBar().findChild(QLabel, "filledLabel")
    return label is not None and label.isVisible() and label.text() == FILLED


def shown(window) -> tuple[str, str]:
    raw = window.findChild(QPlainTextEdit, "targetEditor").toPlainText()
    return raw, window.findChild(QTextEdit, "targetPreview").toPlainText()


def test_the_status_bar_says_filled_when_both_views_hold_every_answer(
    make_window, qtbot, provider
) -> None:
    provider.hold_answers()
    w = make_window()
    w.document_view.source.setPlainText(SOURCE)
    qtbot.waitUntil(provider.started.is_set)
    assert not says_filled(w)  # asked, not answered
    # at every moment the status bar says it, both views hold every answer
    seen: list[bool] = []

    def check(filled: bool) -> None:
        raw, rendered = shown(w)
        seen.append(filled)
        if filled:
            assert raw == translated(SOURCE)
            assert "Hello" not in rendered and "Bonjour" in rendered and "Au revoir" in rendered

    w.document_view.filled_changed.connect(check)
    provider.release()
    qtbot.waitUntil(lambda: says_filled(w))
    assert seen[-1] is True and w.document_view.filled()


def test_an_edit_is_not_filled_until_its_answer_is_shown(make_window, qtbot, provider) -> None:
    w = make_window()
    w.document_view.source.setPlainText(SOURCE)
    qtbot.waitUntil(lambda: says_filled(w))
    provider.hold_answers()
    w.document_view.source.setPlainText(SOURCE + "\nGoodbye cat\n")
    qtbot.waitUntil(lambda: not says_filled(w))
    provider.release()
    qtbot.waitUntil(lambda: says_filled(w))
    assert shown(w)[0] == translated(SOURCE + "\nGoodbye cat\n")


def test_failed_blocks_are_not_filled(make_window, qtbot, provider) -> None:
    provider.fail_with = ProviderError("groq", "refused for the test")
    w = make_window()
    w.document_view.source.setPlainText(SOURCE)
    qtbot.waitUntil(lambda: bool(w.document_view.review_ctl.model.failed()))
    qtbot.waitUntil(lambda: not w.status.activity.isVisible())  # settled: nothing in flight
    assert not says_filled(w) and not w.document_view.filled()
