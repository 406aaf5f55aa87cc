"""What the GUI thread does for a long backlog is spaced out, so the engine keeps the GIL it
needs to read its answers: the review bar's counts (a pass over every block) twice a second
while more than a hundred blocks are to come, as before once the backlog is short."""

from __future__ import annotations

import dataclasses

from fastdesk.ui.document import review_view


def test_the_review_bar_is_updated_less_often_during_a_long_backlog(make_window, qtbot) -> None:
    w = make_window()
    reviewed = w.document_view.reviewed
    counted = reviewed._summary()
    for to_come, interval in ((150, review_view.BAR_BACKLOG_MS), (3, review_view.BAR_MS)):
        summary = dataclasses.replace(counted, blocks=to_come, pending=to_come)
        reviewed._summary = lambda s=summary: s
        reviewed.update_bar()
        assert reviewed._bar_timer.interval() == interval


def test_the_documents_estimate_is_worked_out_beside_its_first_requests(
    make_window, qtbot, provider, monkeypatch
) -> None:
    """The estimate plans every block again (a parse and a memory look-up each): on the engine's
    loop it held the first requests back ~1 s at 4,000 blocks. Now in a thread: the first
    request goes while it is still being worked out, and the status bar says it after."""
    import threading

    from fastdesk.routing import pace
    from fastdesk.routing.limiter import Limiter, Limits
    from tests.fakes import FakeClock

    clock = FakeClock()
    free = Limits(30, 1000, 8000, 200000, label="Groq free tier")
    limiter = Limiter(table={"groq": {"fake-model": free}}, clock=clock)
    gate = threading.Event()
    real = pace.workload

    def slow(*args: object) -> tuple[int, int]:
        gate.wait(30)  # a bound, not a measure: the test opens it
        return real(*args)

    monkeypatch.setattr(pace, "workload", slow)
    w = make_window(clock=clock, router_kw={"limiter": limiter})
    text = "".join(f"Paragraph {i} says hello to the world.\n\n" for i in range(300))
    w.document_view.source.setPlainText(text)  # more than the minute's requests: paced
    qtbot.waitUntil(lambda: len(provider.requests) >= 1)  # sent while the estimate waits
    gate.set()
    qtbot.waitUntil(lambda: "Groq free tier" in w.statusBar().currentMessage())
    assert w.statusBar().currentMessage().startswith("about ")


def test_the_blocks_a_reader_scrolls_to_go_next_while_the_stream_nudges_the_scroll_bar(
    make_window, qtbot, provider
) -> None:
    """The blocks on screen are sent to the engine 150 ms after the reader scrolls, even while
    the stream keeps moving the source's scroll bar (sync scroll): a timer restarted by every
    move never fired, and the blocks scrolled to waited behind the whole backlog."""
    from PySide6.QtCore import QTimer

    provider.hold_answers()
    w = make_window()
    view = w.document_view
    view.source.setPlainText("".join(f"Paragraph {i} of the long page.\n\n" for i in range(300)))
    qtbot.waitUntil(lambda: len(view._source_blocks) >= 300)
    bar = view.source.verticalScrollBar()
    bar.setValue(bar.maximum() // 2)
    nudge = QTimer(w)
    nudge.timeout.connect(lambda: bar.setValue(bar.value() + (1 if bar.value() % 2 else -1)))
    nudge.start(40)  # the stream's sync scroll, faster than the timer's 150 ms
    keys = [seg.key for seg in view._source_blocks]
    middle = set(keys[100:200])
    qtbot.waitUntil(lambda: bool(view._sent_visible & middle))
    nudge.stop()
    provider.release()
