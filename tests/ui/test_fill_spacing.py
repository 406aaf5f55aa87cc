"""What the GUI thread does for a long backlog is spaced out, so the engine keeps the GIL it
needs to read its answers: the review bar's counts (a pass over every block) twice a second
while more than a hundred blocks are to come, as before once the backlog is short."""

from __future__ import annotations

import dataclasses

import pytest

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


def test_the_documents_estimate_is_the_sum_of_its_runs_own_plans(
    make_window, qtbot, provider, monkeypatch
) -> None:
    """The estimate counts what the engine's runs plan to send (Planned): a second plan of every
    block for it (a memory look-up each) held the GIL 0.1-0.6 s of the first screen at 4,000
    blocks. The window never plans the document again, and the status bar still says it."""
    from fastdesk.document.blocks import Document, parse
    from fastdesk.routing import pace
    from fastdesk.routing.limiter import Limiter, Limits
    from fastdesk.routing.router import Router
    from fastdesk.translate.engine import Engine
    from fastdesk.translate.job import JobSpec
    from tests.fakes import FakeClock

    def second_plan(*_args: object) -> tuple[int, int]:
        raise AssertionError("the window planned the whole document a second time")

    monkeypatch.setattr(pace, "workload", second_plan)
    clock = FakeClock()
    free = Limits(30, 1000, 8000, 200000, label="Groq free tier")
    limiter = Limiter(table={"groq": {"fake-model": free}}, clock=clock)
    w = make_window(clock=clock, router_kw={"limiter": limiter})
    paces: list[float] = []  # the deliveries' block_s: the pace the estimate implies, a block
    w.document_view.engine_news.connect(
        lambda delivery: paces.append(delivery.block_s) if delivery.block_s is not None else None
    )
    text = "".join(f"Paragraph {i} says hello to the world.\n\n" for i in range(300))
    w.document_view.source.setPlainText(text)  # more than the minute's requests: paced
    qtbot.waitUntil(lambda: w.statusBar().currentMessage().startswith("about "))
    # what a whole plan of the document says, packed as the window's run packed it (live packs
    # near the screen, a backfill's beyond: its priorities), at the same limits
    priorities = w.document_view.worker._translator.priorities

    def as_the_window(engine: Engine, doc: Document, spec: JobSpec) -> tuple[int, int]:
        work = engine.plan(doc, spec).work
        return len(engine.packs(work, spec, priorities)), sum(x.tokens for x in work)

    requests, tokens = as_the_window(Engine(Router({})), parse(text), JobSpec())
    expected = pace.estimate(
        limiter, [("groq", "fake-model")], requests, pace.workload_tokens(tokens, requests)
    )
    assert w.statusBar().currentMessage() == expected.text()
    assert "8,000 tokens/min" in expected.text()
    # and the review bar's pace until the arrivals show one: the same seconds, a block
    assert paces and paces[-1] == pytest.approx(expected.seconds / 300)


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
    qtbot.waitUntil(lambda: len(view.places.blocks) >= 300)
    bar = view.source.verticalScrollBar()
    bar.setValue(bar.maximum() // 2)
    nudge = QTimer(w)
    nudge.timeout.connect(lambda: bar.setValue(bar.value() + (1 if bar.value() % 2 else -1)))
    nudge.start(40)  # the stream's sync scroll, faster than the timer's 150 ms

    def told_middle() -> bool:  # the lines told are those of paragraphs 100-199
        told = view.places.sent_view
        return told is not None and told[0] > 2 * 100 and told[1] < 2 * 200 + 1

    qtbot.waitUntil(told_middle)
    nudge.stop()
    provider.release()
