"""The review beside one document's target: the margins, the review bar, the reviewer
model's underlines and the marks of blocks queued for a slot, repainted at a pace the eye
follows rather than on every change (a burst of changes updates the bar once; while the target
re-renders the margins repaint ~15 times a second). The review's state is the session's
(fastdesk.review.session); this only shows it."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

from fastdesk.review.model import ReviewSummary
from fastdesk.review.session import Change
from fastdesk.ui.document.heal import refresh_open_tooltip
from fastdesk.ui.panes.incremental import RenderScheduler
from fastdesk.ui.panes.preview import TargetPreview
from fastdesk.ui.panes.queued_marks import QueuedMarks
from fastdesk.ui.panes.target_editor import TargetEditor
from fastdesk.ui.panes.underlines import ReviewUnderlines
from fastdesk.ui.review.controller import ReviewController
from fastdesk.ui.review.widgets import ReviewBar, ReviewMargin


class ReviewPresentation(QObject):
    """The margins of ``editor`` and ``preview``, the review bar and the underlines of both,
    following ``ctl``'s changes and ``scheduler``'s rendering; ``summary`` gives the bar's
    counts (the view's: the problems list counts the flagged blocks)."""

    def __init__(
        self,
        ctl: ReviewController,
        editor: TargetEditor,
        preview: TargetPreview,
        scheduler: RenderScheduler,
        summary: Callable[[], ReviewSummary],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.ctl = ctl
        self._summary = summary
        self.bar = ReviewBar()
        self.margins = [
            ReviewMargin(pane, ctl.state_of, ctl.tooltip_of, ctl.score_of)
            for pane in (editor, preview)
        ]
        # the reviewer model's errors under their spans: marked once the pane shows the text
        # they were found in (a moment after the verdict: the pane takes it in slices), in
        # both views; again when the rendering settles (stand-ins rendered, blocks re-rendered)
        # "queued, about 12 s" at the right of a block waiting for a slot, in both views
        self.queued = QueuedMarks(lambda: ctl.session.backlog, (editor, preview), self)
        self.queued.counted.connect(self.update_bar)  # its estimate counts down with them
        judged = ctl.session.model.judged_underlines
        self.underlines = ReviewUnderlines(editor, judged)
        self.preview_underlines = ReviewUnderlines(preview, judged)
        self._underline_soon = _timer(self, 150)
        self._underline_soon.timeout.connect(self.underlines.refresh)
        self._underline_soon.timeout.connect(self.preview_underlines.refresh)
        self._margin_timer = _timer(self, 60)  # while the target re-renders
        self._margin_timer.timeout.connect(self.repaint_margins)
        self._bar_timer = _timer(self, BAR_MS)  # one bar update per burst of changes
        self._bar_timer.timeout.connect(self.update_bar)
        ctl.changed.connect(self._review_changed)
        scheduler.rendered.connect(self._repaint_margins_soon)
        scheduler.settled.connect(self.repaint_margins)
        scheduler.settled.connect(self._underline_after_render)

    def _review_changed(self) -> None:
        self._repaint_margins_soon()
        if not self._bar_timer.isActive():
            self._bar_timer.start()

    def _repaint_margins_soon(self) -> None:
        if not self._margin_timer.isActive():
            self._margin_timer.start()

    def repaint_margins(self) -> None:
        for margin in self.margins:
            margin.update()
        self.queued.repaint()

    def update_bar(self) -> None:
        summary = self._summary()
        to_come = summary.in_flight + summary.pending
        session = self.ctl.session
        self.bar.set_summary(summary, session.backlog.estimate(to_come))
        self._bar_timer.setInterval(BAR_BACKLOG_MS if to_come > BACKLOG else BAR_MS)
        self.bar.set_stale(len(self.ctl.stale_blocks()))

    def _underline_after_render(self) -> None:
        if (
            self.underlines.marks
            or self.preview_underlines.marks
            or self.ctl.session.model.marks.judged()
        ):
            self._underline_soon.start()

    def session_changed(self, change: Change) -> None:
        """An open tooltip of a failed block counts down with the retry; new verdicts are
        underlined once the pane shows them; the queued marks follow the backlog."""
        if change.review:
            self.queued.follow()
        if change.retry:
            refresh_open_tooltip(self.margins)
        if change.review and (self.underlines.marks or self.ctl.session.model.marks.judged()):
            self._underline_soon.start()


BAR_MS = 120
# A long backlog: the bar's counts (the problems list's pass over every block, ~5 ms at 4,000
# blocks) at most twice a second; at 120 ms they held the GIL ~1.7 s of a 4,000-block fill
# that the engine needed (docs/performance.md)
BAR_BACKLOG_MS, BACKLOG = 500, 100


def _timer(parent: QObject, ms: int) -> QTimer:
    timer = QTimer(parent)
    timer.setSingleShot(True)
    timer.setInterval(ms)
    return timer
