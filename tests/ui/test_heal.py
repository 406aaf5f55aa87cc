"""The window heals itself: failed blocks are retried on request (Retry Failed Blocks), and an
export of an unfinished translation asks first, saying how many blocks are unfinished.
Only the failing provider and the clicks are faked: the engine, the session and the window are
the real ones."""

from __future__ import annotations

import re

from PySide6.QtGui import QAction, QTextCursor
from PySide6.QtWidgets import QPlainTextEdit

from fastdesk.providers.base import BadRequestError
from fastdesk.ui.document import files as files_module
from fastdesk.ui.document.files import unfinished_text
from tests.ui.uifakes import answer_box, fake_answer, translated

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


def unfinished_answer(request) -> str:  # type: ignore[no-untyped-def]
    """The fake translation, except that a link target changes (a failed check) and a block
    about the cat is refused (a failed request)."""
    if "The cat" in request.messages[-1]["content"]:
        raise BadRequestError("groq", "refused", status=400)
    return fake_answer(request).replace("example.com/a", "example.com/b")


def unfinished_window(make_window, qtbot, provider):
    """A window with one block of each unfinished kind: flagged (its link changed), failed
    (its request refused, retried with each edit) and waiting (its answer held back)."""
    provider.answer = unfinished_answer
    w = make_window()
    source = w.document_view.source
    model = w.document_view.review_ctl.model
    source.setPlainText("Hello world\n\nSee [the guide](https://example.com/a).\n")
    qtbot.waitUntil(lambda: model.unfinished() == (0, 0, 1))
    QTextCursor(source.document()).insertText("The cat\n\n")  # typed at the top
    qtbot.waitUntil(lambda: model.unfinished() == (0, 1, 1))
    provider.hold_answers()
    QTextCursor(source.document()).insertText("Goodbye\n\n")
    qtbot.waitUntil(lambda: model.unfinished() == (1, 1, 1))
    return w


def answer_export_box(w, button: str, seen: list[str]) -> None:
    """Click ``button`` of the export question once it shows, noting its text in ``seen``."""
    answer_box(w, "exportUnfinished", button, seen)


def test_export_of_an_unfinished_translation_asks_and_says_how_many(
    make_window, qtbot, provider, tmp_path, monkeypatch
) -> None:
    w = unfinished_window(make_window, qtbot, provider)
    out = tmp_path / "out.fr.md"
    monkeypatch.setattr(files_module, "export_path", lambda *_a: str(out))
    seen: list[str] = []
    answer_export_box(w, "Cancel", seen)
    w.findChild(QAction, "actionExport").trigger()
    assert seen == [
        "3 blocks are unfinished: 1 not translated yet, 1 failed, 1 flagged by a check."
    ]
    assert not out.exists()  # cancelled: nothing written
    answer_export_box(w, "Export Anyway", seen)
    w.findChild(QAction, "actionExport").trigger()
    assert len(seen) == 2
    assert out.read_text(encoding="utf-8") == (
        "Goodbye\n\nThe cat\n\nBonjour monde\n\nSee [the guide](https://example.com/b).\n"
    )


def test_export_of_a_finished_translation_asks_nothing(
    make_window, qtbot, tmp_path, monkeypatch
) -> None:
    w = make_window()
    w.document_view.source.setPlainText(SOURCE)
    qtbot.waitUntil(lambda: target_text(w) == translated(SOURCE))
    out = tmp_path / "out.fr.md"
    monkeypatch.setattr(files_module, "export_path", lambda *_a: str(out))
    w.files.export_dialog()  # a question would block here
    assert out.read_text(encoding="utf-8") == translated(SOURCE)


def test_unfinished_text_counts_in_words() -> None:
    assert unfinished_text(0, 0, 0) == ""
    assert unfinished_text(0, 1, 0) == "1 block is unfinished: 1 failed."
    assert unfinished_text(2, 0, 3) == (
        "5 blocks are unfinished: 2 not translated yet, 3 flagged by a check."
    )


def test_failed_blocks_are_retried_by_themselves(make_window, qtbot, provider) -> None:
    provider.fail_with = BadRequestError("groq", "refused", status=400)
    w = make_window()
    view = w.document_view
    view.healer.set_interval(30)  # instead of 30 s
    view.source.setPlainText(SOURCE)
    qtbot.waitUntil(lambda: len(view.review_ctl.model.failed()) == 2)
    asked = len(provider.requests)
    qtbot.waitUntil(lambda: len(provider.requests) > asked)  # retried unasked
    provider.fail_with = None  # the provider is usable again
    qtbot.waitUntil(lambda: target_text(w) == translated(SOURCE))
    assert view.review_ctl.model.failed() == []
    assert view.healer.seconds_left() is None  # nothing left to retry


def test_the_retry_is_counted_down_and_an_edit_cancels_it(make_window, qtbot, provider) -> None:
    w = failed_window(make_window, qtbot, provider)  # the default 30 s wait
    view = w.document_view
    bid = view.review_ctl.model.failed()[0]
    tip = view.review_ctl.tooltip_of(bid)
    assert re.search(r"translation failed: .*refused.*; retrying in \d+ s", tip), tip
    qtbot.waitUntil(lambda: "failed blocks: retrying in" in w.statusBar().currentMessage())
    assert w.statusBar().currentMessage().startswith("2 failed blocks: retrying in ")
    provider.fail_with = None
    QTextCursor(view.source.document()).insertText("Goodbye\n\n")  # the edit sends them again
    assert view.healer.seconds_left() is None
    assert "retrying in" not in view.review_ctl.tooltip_of(bid)
    expected = translated("Goodbye\n\n" + SOURCE)
    qtbot.waitUntil(lambda: target_text(w) == expected)  # what was typed neither lost nor doubled
    assert view.review_ctl.model.failed() == []
