"""Adaptive sending in the window: what was typed sets the wait (the debounce setting is its upper
bound), the limiter's room has the last word, typing keeps the provider warm.

The debounce setting is 10 s here, so an edit that reaches the provider within a test's few
seconds went early on purpose; the waits themselves are read from the view's timer, not timed.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from fastdesk.config.settings import Settings
from fastdesk.routing.limiter import Limiter, Limits
from fastdesk.routing.router import Router
from fastdesk.translate.engine import Engine
from tests.ui.uifakes import WordProvider, round_trip

BOUND_MS = 10_000
SLOW = Settings(debounce_ms=BOUND_MS)


def typed(qtbot, window, keys: str) -> None:
    window.document_view.source.setFocus()
    QTest.keyClicks(window.document_view.source, keys)


def limited_engine(provider: WordProvider, per_minute: int) -> Callable[[], object]:
    def factory() -> object:
        limits = Limits(requests_per_minute=per_minute, label="test tier")
        limiter = Limiter(table={provider.name: {"*": limits}})
        return Engine(Router({provider.name: provider}, limiter=limiter))

    return factory


def test_a_sentence_end_goes_at_once(make_window, qtbot, provider) -> None:
    w = make_window(settings=SLOW)
    typed(qtbot, w, "Hello world")
    view = w.document_view
    debounce = view.sending._debounce
    assert debounce.isActive() and debounce.interval() == BOUND_MS  # inside a word
    assert not provider.requests
    typed(qtbot, w, ".")
    qtbot.waitUntil(lambda: len(provider.requests) == 1, timeout=5000)
    assert provider.requests[0].messages[-1]["content"] == "Hello world."


def test_a_finished_word_waits_half_the_setting(make_window, qtbot) -> None:
    w = make_window(settings=SLOW)
    typed(qtbot, w, "Hello ")
    assert w.document_view.sending._debounce.interval() == BOUND_MS // 2


def test_a_finished_line_goes_at_once(make_window, qtbot, provider) -> None:
    w = make_window(settings=SLOW)
    typed(qtbot, w, "# Hello world")
    QTest.keyClick(w.document_view.source, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: len(provider.requests) == 1, timeout=5000)
    assert provider.requests[0].messages[-1]["content"] == "# Hello world"


def test_leaving_the_line_sends_at_once(make_window, qtbot, provider) -> None:
    w = make_window(settings=SLOW)
    view = w.document_view
    view.source.setPlainText("Hello world\n\nThe cat\n")
    qtbot.waitUntil(lambda: len(provider.requests) >= 1, timeout=5000)
    sent = len(provider.requests)
    cursor = view.source.textCursor()
    cursor.setPosition(len("Hello world"))
    view.source.setTextCursor(cursor)
    typed(qtbot, w, " again")
    assert len(provider.requests) == sent and view.sending._debounce.interval() == BOUND_MS
    QTest.keyClick(view.source, Qt.Key.Key_Down)  # to the blank line: the edit is done
    qtbot.waitUntil(lambda: len(provider.requests) == sent + 1, timeout=5000)
    assert provider.requests[-1].messages[-1]["content"] == "Hello world again"


def test_moving_within_the_line_waits(make_window, qtbot, provider) -> None:
    w = make_window(settings=SLOW)
    typed(qtbot, w, "Hello wor")
    QTest.keyClick(w.document_view.source, Qt.Key.Key_Left)
    assert w.document_view.sending._debounce.interval() == BOUND_MS
    assert not provider.requests


def test_sends_inside_words_are_spread_and_the_limiter_has_the_last_word(
    make_window, qtbot, provider
) -> None:
    w = make_window(settings=Settings(debounce_ms=300), engine_factory=limited_engine(provider, 4))
    view = w.document_view
    typed(qtbot, w, "Hello world.")  # a boundary: at once
    qtbot.waitUntil(lambda: len(provider.requests) == 1, timeout=5000)
    # the limiter's room reaches the window with the engine's next delivery: that request in it
    qtbot.waitUntil(
        lambda: (room := view.deliveries.headroom) is not None and len(room.sent) >= 1,
        timeout=5000,
    )
    typed(qtbot, w, " The ca")  # inside a word, a request just went: at the limit's pace
    assert view.sending._debounce.interval() > 10_000  # 4 a minute: one each 15 s
    for n in range(3):  # three more sentences, each at once: the limit (4 a minute) is reached
        typed(qtbot, w, f"t{n}.")
        qtbot.waitUntil(lambda n=n: len(provider.requests) == 2 + n, timeout=5000)
    qtbot.waitUntil(lambda: len(view.deliveries.headroom.sent) == 4)
    typed(qtbot, w, " Goodbye.")  # a boundary, but the limiter says not before a minute is up
    assert view.sending._debounce.interval() > 50_000
    assert len(provider.requests) == 4


def test_typing_after_a_quiet_spell_warms_the_provider_within_the_limits(
    make_window, qtbot, provider
) -> None:
    def warmups() -> int:
        return sum(1 for r in provider.requests if r.max_tokens == 1)

    w = make_window(settings=SLOW, warmup=True)
    worker = w.document_view.worker
    qtbot.waitUntil(lambda: warmups() == 1)  # the one at start
    worker.warmer.ask_interval_s = 0.0
    worker.warmer.active_idle_s = 0.0  # "a quiet spell" is any time without a request here
    typed(qtbot, w, "H")
    qtbot.waitUntil(lambda: warmups() == 2)
    assert not any(r.max_tokens != 1 for r in provider.requests)  # the edit itself waits

    tight = make_window(settings=SLOW, warmup=True, engine_factory=limited_engine(provider, 4))
    qtbot.waitUntil(lambda: warmups() == 3)  # its start-up warm-up: 1 of 4, the reserve is 1
    for n in range(2):
        typed(qtbot, tight, f"Hi {n}.")
        qtbot.waitUntil(lambda n=n: warmups() + n + 1 == len(provider.requests))
    qtbot.waitUntil(lambda: len(tight.document_view.deliveries.headroom.sent) == 3)
    tight.document_view.worker.warmer.ask_interval_s = 0.0
    tight.document_view.worker.warmer.active_idle_s = 0.0
    typed(qtbot, tight, "H")  # 3 of 4 gone: the last is the boundaries' reserve
    round_trip(qtbot, tight.document_view)  # the engine thread heard the warm-up call first
    assert warmups() == 3


def shown_texts(window) -> list[str]:
    """Every text the target pane showed from now on (recorded as each render lands)."""
    seen: list[str] = []
    editor = window.document_view.target_editor
    window.document_view.scheduler.rendered.connect(lambda *_: seen.append(editor.toPlainText()))
    return seen


def test_a_speculative_answer_is_never_shown_for_a_sentence_changed_since(
    make_window, qtbot, provider
) -> None:
    provider.hold_answers()
    w = make_window(settings=SLOW, memory=True)
    seen = shown_texts(w)
    typed(qtbot, w, "Hello world.")
    qtbot.waitUntil(lambda: len(provider.requests) == 1, timeout=5000)  # held
    typed(qtbot, w, " The cat.")
    qtbot.waitUntil(lambda: len(provider.requests) == 2, timeout=5000)
    provider.release()
    editor = w.document_view.target_editor
    qtbot.waitUntil(lambda: editor.toPlainText() == "Bonjour monde. The chat.")
    assert "Bonjour monde." not in seen


def test_a_speculative_answer_serves_the_block_it_became(make_window, qtbot, provider) -> None:
    provider.hold_answers()
    w = make_window(settings=SLOW, memory=True)
    typed(qtbot, w, "Hello world.")
    qtbot.waitUntil(lambda: len(provider.requests) == 1, timeout=5000)  # held
    QTest.keyClick(w.document_view.source, Qt.Key.Key_Return)
    QTest.keyClick(w.document_view.source, Qt.Key.Key_Return)
    typed(qtbot, w, "The cat.")  # a new paragraph: the first block's id changed, not its text
    qtbot.waitUntil(lambda: len(provider.requests) == 2, timeout=5000)
    provider.release()
    qtbot.waitUntil(
        lambda: w.document_view.target_editor.toPlainText() == "Bonjour monde.\n\nThe chat."
    )
    assert [r.messages[-1]["content"] for r in provider.requests] == ["Hello world.", "The cat."]


def test_the_status_bar_says_once_that_a_small_day_stretches_the_pacing(
    make_window, qtbot, provider
) -> None:
    def factory() -> object:
        limits = Limits(requests_per_minute=30, requests_per_day=1000, label="test tier")
        limiter = Limiter(table={provider.name: {"*": limits}})
        return Engine(Router({provider.name: provider}, limiter=limiter))

    w = make_window(settings=Settings(debounce_ms=300), engine_factory=factory)
    view = w.document_view
    typed(qtbot, w, "Hello world.")  # a boundary: at once, the day notwithstanding
    qtbot.waitUntil(lambda: len(provider.requests) == 1, timeout=5000)
    qtbot.waitUntil(lambda: bool(view.deliveries.headroom and view.deliveries.headroom.sent))
    typed(qtbot, w, " The ca")  # inside a word: the day's pace, ~29 s after the last send
    assert view.sending._debounce.interval() > 25_000
    message = w.statusBar().currentMessage()
    assert "requests left today" in message and "working day" in message
    w.statusBar().clearMessage()
    typed(qtbot, w, "t sat")
    assert w.statusBar().currentMessage() == ""  # said once
