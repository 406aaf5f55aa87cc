"""The window heals itself: failed blocks are retried on request (Retry Failed Blocks), and an
export of an unfinished translation asks first, saying how many blocks are unfinished."""

from __future__ import annotations

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QPlainTextEdit

from fastdesk.providers.base import BadRequestError
from tests.ui.uifakes import translated

SOURCE = "Hello world\n\nThe cat\n"


def target_text(window) -> str:
    return window.findChild(QPlainTextEdit, "targetEditor").toPlainText()


def failed_window(make_window, qtbot, provider):
    """A window whose two blocks both failed (the provider refused the request)."""
    provider.fail_with = BadRequestError("groq", "refused", status=400)
    w = make_window()
    w.document_view.source.setPlainText(SOURCE)
    model = w.document_view.review_ctl.model
    qtbot.waitUntil(lambda: len(model.failed()) == 2)
    return w


def test_retry_failed_blocks_translates_them_again(make_window, qtbot, provider) -> None:
    w = failed_window(make_window, qtbot, provider)
    action = w.findChild(QAction, "actionRetryFailed")
    assert action.shortcut().toString() == "Ctrl+Shift+R"
    translate_menu = next(a.menu() for a in w.menuBar().actions() if a.text() == "&Translate")
    assert action in translate_menu.actions()
    asked = len(provider.requests)
    provider.fail_with = None  # the provider is usable again
    action.trigger()
    qtbot.waitUntil(lambda: target_text(w) == translated(SOURCE))
    assert len(provider.requests) > asked
    assert w.document_view.review_ctl.model.failed() == []


def test_retry_failed_blocks_with_none_failed_sends_nothing(make_window, qtbot, provider) -> None:
    w = make_window()
    w.document_view.source.setPlainText(SOURCE)
    qtbot.waitUntil(lambda: target_text(w) == translated(SOURCE))
    asked = len(provider.requests)
    assert w.document_view.retry_failed() == 0
    qtbot.wait(100)
    assert len(provider.requests) == asked
