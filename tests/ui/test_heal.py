"""The window heals itself: failed blocks are retried on request (Retry Failed Blocks) and by
themselves once their provider is usable again (backing off while they keep failing), with a
countdown in the status bar and in the open tooltip; an export of an unfinished translation asks
first, saying how many blocks are unfinished.
Only the failing provider and the clicks are faked: the engine, the session and the window are
the real ones."""

from __future__ import annotations

import re

from PySide6.QtCore import QEvent, QPoint
from PySide6.QtGui import QAction, QCursor, QHelpEvent, QTextCursor
from PySide6.QtWidgets import QApplication, QPlainTextEdit, QToolButton, QToolTip

from fastdesk.clock import duration
from fastdesk.providers.base import AuthenticationError, BadRequestError, RateLimitedError
from fastdesk.review.model import STATE_STYLES
from fastdesk.routing.health import Health
from fastdesk.routing.limiter import Limiter
from fastdesk.routing.retry import RetryPolicy
from fastdesk.ui.document import files as files_module
from fastdesk.ui.document.files import unfinished_text
from tests.fakes import FakeClock
from tests.ui.uifakes import answer_box, fake_answer, round_trip, translated

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


def test_the_margin_paints_a_failed_block_as_a_flagged_one(make_window, qtbot, provider) -> None:
    """The margin reads the session's one vocabulary (failed, retrying…) with today's colours."""
    w = failed_window(make_window, qtbot, provider)
    view = w.document_view
    first = view.review_ctl.model.failed()[0]
    assert view.review_ctl.state_of(first) == "failed"
    margin = view.margins[0] if view.showing_raw else view.margins[1]
    qtbot.waitUntil(lambda: any(key == first for key, _t, _b in margin.blocks()))
    top, bottom = next((t, b) for key, t, b in margin.blocks() if key == first)
    assert margin.colour_at((top + bottom) // 2) == STATE_STYLES["flagged"].colour


def test_retry_failed_blocks_with_none_failed_sends_nothing(make_window, qtbot, provider) -> None:
    w = make_window()
    w.document_view.source.setPlainText(SOURCE)
    qtbot.waitUntil(lambda: target_text(w) == translated(SOURCE))
    asked = len(provider.requests)
    assert w.document_view.blocks.retry_failed() == 0
    round_trip(qtbot, w.document_view)  # anything the retry asked the engine for has gone
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
    view.healer.backoff_s = (0.03,)  # instead of 30 s
    view.source.setPlainText(SOURCE)
    qtbot.waitUntil(lambda: len(view.review_ctl.model.failed()) == 2)
    asked = len(provider.requests)
    qtbot.waitUntil(lambda: len(provider.requests) > asked)  # retried unasked
    provider.fail_with = None  # the provider is usable again
    qtbot.waitUntil(lambda: target_text(w) == translated(SOURCE))
    assert view.review_ctl.model.failed() == []
    assert view.healer.seconds_left() is None  # nothing left to retry


def clocked_window(make_window, qtbot, provider, error, clock: FakeClock, health=None):
    """A window whose two blocks failed with ``error``, on ``clock``: the window's one clock, its
    router's, health's and limiter's too (no retries inside a request: the window's own retry is
    under test)."""
    provider.fail_with = error
    health = health or Health(clock=clock, max_retry_after_s=RetryPolicy().retry_after_cap_s)
    limiter = Limiter(table={}, clock=clock)  # no limits; a 429's retry-after blocks it too
    router_kw = {"health": health, "limiter": limiter, "retry": RetryPolicy.none()}
    w = make_window(clock=clock, router_kw=router_kw)
    w.document_view.healer.tick_ms = 10
    w.document_view.source.setPlainText(SOURCE)
    qtbot.waitUntil(lambda: len(w.document_view.review_ctl.model.failed()) == 2)
    return w


REFUSED = BadRequestError("groq", "refused", status=400)  # no cooldown: the backoff decides


def refused_window(make_window, qtbot, provider):
    """A clocked window whose provider refuses every request; returns it and its clock."""
    clock = FakeClock()
    return clocked_window(make_window, qtbot, provider, REFUSED, clock), clock


def retry_button(w) -> QToolButton:
    return w.findChild(QToolButton, "retryButton")


def test_the_retry_waits_for_the_provider_to_be_usable_again(make_window, qtbot, provider) -> None:
    clock = FakeClock()
    limited = RateLimitedError("groq", "rate limit reached", retry_after=45)
    w = clocked_window(make_window, qtbot, provider, limited, clock)
    view = w.document_view
    qtbot.waitUntil(lambda: view.healer.seconds_left() is not None)
    assert view.healer.seconds_left() == 45  # the server's retry-after, not the 30 s floor
    assert retry_button(w).text() == "⟳ 2 failed blocks: retrying in 45 s"
    asked = len(provider.requests)
    provider.fail_with = None
    clock.now += 44
    qtbot.waitUntil(lambda: "retrying in 1 s" in retry_button(w).text())
    assert len(provider.requests) == asked  # not yet: the provider is still rate limited
    clock.now += 1
    qtbot.waitUntil(lambda: target_text(w) == translated(SOURCE))
    assert view.review_ctl.model.failed() == [] and not retry_button(w).isVisible()


def test_repeated_failures_back_off_and_a_success_starts_over(make_window, qtbot, provider) -> None:
    w, clock = refused_window(make_window, qtbot, provider)
    view = w.document_view
    waits = []
    for _ in range(4):
        qtbot.waitUntil(lambda: view.healer.seconds_left() is not None)
        waits.append(view.healer.seconds_left())
        asked = len(provider.requests)
        clock.now += waits[-1]
        qtbot.waitUntil(lambda a=asked: len(provider.requests) > a)  # retried, failed again
    assert waits == [30, 60, 120, 120]  # capped
    qtbot.waitUntil(lambda: view.healer.seconds_left() is not None)
    provider.fail_with = None
    clock.now += 120
    qtbot.waitUntil(lambda: target_text(w) == translated(SOURCE))
    provider.fail_with = REFUSED
    QTextCursor(view.source.document()).insertText("Goodbye\n\n")
    qtbot.waitUntil(lambda: view.healer.seconds_left() is not None)
    assert view.healer.seconds_left() == 30  # the success reset the backoff


def test_a_refused_key_is_not_retried_by_itself(make_window, qtbot, provider) -> None:
    clock = FakeClock()
    refused = AuthenticationError("groq", "invalid key", status=401)
    health = Health(clock=clock)
    w = clocked_window(make_window, qtbot, provider, refused, clock, health)
    qtbot.waitUntil(lambda: retry_button(w).isVisible())
    assert "not retried by themselves" in retry_button(w).text()
    assert w.document_view.healer.seconds_left() is None
    asked = len(provider.requests)
    clock.now += 3600
    # no tick is due: however far the clock moves, nothing wakes the retry up
    assert not w.document_view.healer._tick.isActive()
    round_trip(qtbot, w.document_view)  # nor did anything reach the engine
    assert len(provider.requests) == asked
    provider.fail_with = None  # the user fixes the key: a new engine translates them
    health.reset()  # (the test's engines share one Health; a new engine's starts afresh)
    w.restart_engine()
    qtbot.waitUntil(lambda: target_text(w) == translated(SOURCE))
    qtbot.waitUntil(lambda: not retry_button(w).isVisible())  # nothing left to retry


def test_the_countdown_stays_in_the_status_bar_and_the_open_tooltip_counts_down(
    make_window, qtbot, provider
) -> None:
    w, clock = refused_window(make_window, qtbot, provider)
    view = w.document_view
    qtbot.waitUntil(lambda: retry_button(w).text() == "⟳ 2 failed blocks: retrying in 30 s")
    w.statusBar().showMessage("Something else to say", 60_000)  # a passing message
    clock.now += 10
    qtbot.waitUntil(lambda: retry_button(w).text().endswith("retrying in 20 s"))
    assert retry_button(w).isVisible()
    margin = next(m for m in view.margins if m.isVisible())
    _key, top, bottom = next(b for b in margin.blocks() if b[0])
    where = margin.mapToGlobal(QPoint(margin.width() // 2, (top + bottom) // 2))
    QCursor.setPos(where)
    QApplication.sendEvent(
        margin, QHelpEvent(QEvent.Type.ToolTip, margin.mapFromGlobal(where), where)
    )
    qtbot.waitUntil(QToolTip.isVisible)
    assert "retrying in 20 s" in QToolTip.text()
    clock.now += 5
    qtbot.waitUntil(lambda: "retrying in 15 s" in QToolTip.text())  # open, and counting down
    QToolTip.hideText()
    asked = len(provider.requests)
    retry_button(w).click()  # the countdown's button retries now
    qtbot.waitUntil(lambda: len(provider.requests) > asked)


def test_the_retry_is_counted_down_and_an_edit_cancels_it(make_window, qtbot, provider) -> None:
    w = failed_window(make_window, qtbot, provider)  # the default 30 s wait
    view = w.document_view
    bid = view.review_ctl.model.failed()[0]
    tip = view.review_ctl.tooltip_of(bid)
    assert re.search(r"translation failed: .*refused.*; retrying in \d+ s", tip), tip
    qtbot.waitUntil(lambda: "failed blocks: retrying in" in retry_button(w).text())
    assert retry_button(w).text().startswith("⟳ 2 failed blocks: retrying in ")
    schedule = view.session.retry
    wait_of = schedule.seconds_left
    schedule.seconds_left = lambda: 18_720  # a day's limit spent: hours, not 18720 s
    assert "retrying in 5 h 12 min" in view.review_ctl.tooltip_of(bid)
    schedule.seconds_left = wait_of
    provider.fail_with = None
    QTextCursor(view.source.document()).insertText("Goodbye\n\n")  # the edit sends them again
    assert view.healer.seconds_left() is None and not retry_button(w).isVisible()
    assert "retrying in" not in view.review_ctl.tooltip_of(bid)
    expected = translated("Goodbye\n\n" + SOURCE)
    qtbot.waitUntil(lambda: target_text(w) == expected)  # what was typed neither lost nor doubled
    assert view.review_ctl.model.failed() == []


def test_an_edit_during_a_pending_retry_is_neither_lost_nor_doubled(
    make_window, qtbot, provider
) -> None:
    w, clock = refused_window(make_window, qtbot, provider)
    view = w.document_view
    qtbot.waitUntil(lambda: view.healer.seconds_left() == 30)
    clock.now += 20
    cursor = QTextCursor(view.source.document())
    cursor.movePosition(QTextCursor.MoveOperation.End)
    cursor.insertText("\nGoodbye cat\n")  # typed while the retry is pending: it is cancelled
    assert view.healer.seconds_left() is None
    qtbot.waitUntil(lambda: len(view.review_ctl.model.failed()) == 3)  # the edit failed too
    qtbot.waitUntil(lambda: view.healer.seconds_left() == 30)  # armed again, same step
    provider.fail_with = None
    clock.now += 30
    expected = translated(SOURCE + "\nGoodbye cat\n")
    qtbot.waitUntil(lambda: target_text(w) == expected)
    assert view.source.toPlainText() == SOURCE + "\nGoodbye cat\n"
    assert view.translation_text() == expected  # the export says the same, once each


def test_long_waits_are_counted_down_in_minutes_and_hours() -> None:
    assert [duration(s) for s in (45, 119, 120, 185, 3600, 7800)] == [
        "45 s",
        "119 s",
        "2 min",
        "3 min 5 s",
        "1 h",
        "2 h 10 min",
    ]


def test_export_offers_the_translation_alone_as_html(
    make_window, qtbot, tmp_path, monkeypatch
) -> None:
    w = make_window()
    w.document_view.source.setPlainText("# Hello world\n\nThe cat <script>x</script>.\n")
    qtbot.waitUntil(lambda: "Bonjour" in target_text(w))
    out = tmp_path / "out.fr.html"
    kinds: list[str] = []

    def chosen(*args: object) -> str:
        kinds.append(str(args[-1]))
        return str(out)

    monkeypatch.setattr(files_module, "export_path", chosen)
    w.files.export_dialog()
    assert "*.md" in kinds[0] and "*.html" in kinds[0]  # both offered
    page = out.read_text(encoding="utf-8")
    assert '<html lang="fr" dir="ltr">' in page
    assert "<h1>Bonjour monde</h1>" in page and "chat" in page
    assert "Hello" not in page  # the translation alone: no source column
    assert "<script>" not in page and "Content-Security-Policy" in page
