"""A paced backlog in the window: a block queued for a slot says so in its margin tooltip, and
the review bar puts the pace's estimate beside "N to come"."""

from __future__ import annotations

from fastdesk.review.records import ReviewSummary
from fastdesk.translate.events import BlockStarted, Waiting
from fastdesk.ui.review.widgets import ReviewBar, summary_html
from tests.fakes import FakeClock

SOURCE = "Hello world.\n\nThe cat.\n"


def test_a_queued_block_says_so_in_its_tooltip_until_it_is_sent(make_window, qtbot) -> None:
    clock = FakeClock()
    w = make_window(clock=clock)
    view = w.document_view
    view.source.setPlainText(SOURCE)
    qtbot.waitUntil(lambda: view.session.doc is not None and len(view.session.doc.blocks) == 2)
    bid = view.session.doc.blocks[0].id
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
