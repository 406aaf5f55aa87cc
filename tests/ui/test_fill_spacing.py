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
