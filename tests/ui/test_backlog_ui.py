"""A paced backlog in the window: a block queued for a slot says so on the block itself (painted
at the right of its first line in both target views, never in the text) and in its margin
tooltip, and the review bar puts the pace's estimate beside "N to come"."""

from __future__ import annotations

from fastdesk.review.records import ReviewSummary
from fastdesk.translate.events import BlockDone, BlockStarted, Waiting
from fastdesk.ui.review.widgets import ReviewBar, summary_html
from tests.fakes import FakeClock

SOURCE = "Hello world.\n\nThe cat.\n"


def opened(make_window, qtbot):  # type: ignore[no-untyped-def]
    """A window on the test's clock with SOURCE's two blocks parsed: (window, its view, the
    clock, the two block ids)."""
    clock = FakeClock()
    w = make_window(clock=clock)
    view = w.document_view
    view.source.setPlainText(SOURCE)
    qtbot.waitUntil(lambda: view.session.doc is not None and len(view.session.doc.blocks) == 2)
    return w, view, clock, [b.id for b in view.session.doc.blocks]


def test_a_queued_block_says_so_in_its_tooltip_until_it_is_sent(make_window, qtbot) -> None:
    _w, view, clock, (bid, _second) = opened(make_window, qtbot)
    revision = view.session.revision
    wait = Waiting(revision, "groq", 12.0, "Groq free tier, 30 requests/min", block_ids=(bid,))
    view.session.take(revision, [wait], busy=True)
    assert "queued, about 12 s" in view.review_ctl.tooltip_of(bid)
    clock.now += 4.0
    assert "queued, about 8 s" in view.review_ctl.tooltip_of(bid)  # counting down
    view.session.take(revision, [BlockStarted(revision, bid)], busy=True)
    assert "queued" not in view.review_ctl.tooltip_of(bid)


def test_the_review_bar_puts_the_estimate_beside_what_is_to_come(qtbot) -> None:
    summary = ReviewSummary(140, 0, 0, 0, 0, in_flight=4, pending=134)
    assert summary_html(summary).endswith("138&nbsp;to come")
    html = summary_html(summary, "about 9 min")
    assert html.endswith("138&nbsp;to come,&nbsp;about&nbsp;9&nbsp;min")
    bar = ReviewBar()
    qtbot.addWidget(bar)
    bar.set_summary(summary, "about 9 min")
    assert bar.summary.accessibleName().endswith("138 to come, about 9 min")


def test_a_queued_block_is_marked_on_the_block_in_both_views_until_answered(
    make_window, qtbot
) -> None:
    """The mark is painted over the pane (what it will paint is asked of the overlay), counts
    down on the one clock, leaves the text alone, and goes when the block's answer comes."""
    _w, view, clock, (_first, second) = opened(make_window, qtbot)
    qtbot.waitUntil(lambda: view.scheduler.idle)
    editor, preview = view.reviewed.queued.overlays
    assert editor.labels() == [] and preview.labels() == [] and not preview.isVisible()
    text_before = (view.target_editor.toPlainText(), view.review_ctl.target_text())
    revision = view.session.revision
    wait = Waiting(revision, "groq", 12.0, "Groq free tier, 30 requests/min", block_ids=(second,))
    view.session.take(revision, [wait], busy=True)
    for overlay in (preview, editor):
        view.show_raw(overlay is editor)
        qtbot.waitUntil(lambda o=overlay: o.isVisible() and bool(o.labels()))
        ((block, label, where),) = overlay.labels()
        assert (block, label) == (second, "queued, about 12 s")
        tops = {key: top for key, top, _bottom in overlay.pane.visible_blocks()}
        assert where.top() == tops[second]  # at its first line, right-aligned in the viewport
        assert where.right() < overlay.pane.viewport().width()
    clock.now += 5.0
    assert editor.labels()[0][1] == "queued, about 7 s"  # counting down on the one clock
    # never in the text: not in the pane, not in what is exported or copied
    assert (view.target_editor.toPlainText(), view.review_ctl.target_text()) == text_before
    answered = [BlockStarted(revision, second), BlockDone(revision, second, "Le chat.", "model")]
    view.session.take(revision, answered, busy=False)
    assert editor.labels() == [] and preview.labels() == []
    assert not editor.isVisible() and not preview.isVisible()


def test_the_status_bars_wait_ends_when_its_requests_go(make_window, qtbot) -> None:
    """A limit lifted by a server's headers sends the waiting requests at once: the status bar's
    "waiting 58 s" goes with them instead of counting down to nothing."""
    w, view, _clock, (first, second) = opened(make_window, qtbot)
    revision = view.session.revision
    wait = Waiting(
        revision, "groq", 58.0, "Groq free tier, 8,000 tokens/min", block_ids=(first, second)
    )
    view.session.take(revision, [wait], busy=True)
    assert w.statusBar().currentMessage() == "waiting 58 s: Groq free tier, 8,000 tokens/min"
    view.session.take(revision, [BlockStarted(revision, first)], busy=True)
    assert w.statusBar().currentMessage().startswith("waiting ")  # the other one still waits
    view.session.take(revision, [BlockStarted(revision, second)], busy=True)
    assert not w.statusBar().currentMessage().startswith("waiting ")


def test_a_queued_block_is_not_said_to_be_translated_now(make_window, qtbot, provider) -> None:
    _w, view, _clock, _ids = opened(make_window, qtbot)
    provider.hold_answers()  # the edit's request stays out: its blocks in flight
    view.source.setPlainText(SOURCE.replace("Hello", "Hi"))
    qtbot.waitUntil(lambda: view.session.doc is not None and "Hi" in view.session.doc.source)
    bid = view.session.doc.blocks[0].id
    qtbot.waitUntil(lambda: view.review_ctl.state_of(bid) == "in_flight")
    revision = view.session.revision
    wait = Waiting(revision, "groq", 12.0, "Groq free tier, 30 requests/min", block_ids=(bid,))
    view.session.take(revision, [wait], busy=True)
    tip = view.review_ctl.tooltip_of(bid)
    assert "Being translated now" not in tip  # it waits: not sent yet
    assert "Queued" in tip and "queued, about 12 s" in tip
