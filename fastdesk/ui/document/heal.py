"""The document heals itself: the Qt side of the session's retry schedule
(fastdesk.review.session.RetrySchedule decides when, with its backoff; an edit cancels it). A
timer wakes the session's schedule up, no more: the countdown goes out in the session's stream
(Change.retry), which the status bar and the margin tooltip of a failed block that is open
follow."""

from __future__ import annotations

import math
from collections.abc import Sequence

from PySide6.QtCore import QEvent, QObject, QTimer, Signal
from PySide6.QtGui import QCursor, QHelpEvent
from PySide6.QtWidgets import QApplication, QToolTip, QWidget

from fastdesk.clock import Clock
from fastdesk.review.session import DocumentSession

TICK_MS = 1_000


class Healer(QObject):
    """The timer of one session's retry schedule. The clock (the schedule's: the window's one
    clock, fastdesk.clock) and the tick are injectable, so tests move time by hand instead of
    sleeping."""

    due = Signal()  # retry the failed blocks now

    def __init__(
        self, session: DocumentSession, parent: QObject | None = None, *, tick_ms: int = TICK_MS
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.schedule = session.retry
        self.tick_ms = tick_ms
        self._tick = QTimer(self)
        self._tick.setSingleShot(True)
        self._tick.timeout.connect(self._on_tick)

    @property
    def clock(self) -> Clock:
        return self.schedule.clock

    @clock.setter
    def clock(self, clock: Clock) -> None:
        self.schedule.clock = clock

    @property
    def backoff_s(self) -> tuple[float, ...]:
        return self.schedule.backoff_s

    @backoff_s.setter
    def backoff_s(self, steps: Sequence[float]) -> None:
        self.schedule.backoff_s = tuple(steps)

    def follow(self) -> None:
        """The schedule changed (armed, cancelled): the timer follows it."""
        if self.schedule.due_at is None:
            self._tick.stop()
        self._on_tick()

    def cancel(self) -> None:
        self._tick.stop()
        self.session.cancel_retry()

    def seconds_left(self) -> int | None:
        return self.schedule.seconds_left()

    def _on_tick(self) -> None:
        left = self.session.poll_retry()
        if left is None:
            return
        if left <= 0:
            self.due.emit()
            return
        # the next whole second (or the retry itself, when sooner)
        self._tick.start(max(1, min(self.tick_ms, math.ceil(left * 1000))))


def refresh_open_tooltip(widgets: Sequence[QWidget]) -> None:
    """The tooltip open over one of ``widgets`` is asked for again, so that its text (which
    says when the retry comes) counts down while it stays open."""
    if not QToolTip.isVisible():
        return
    where = QCursor.pos()
    widget = QApplication.widgetAt(where)
    if widget is not None and any(widget is w for w in widgets):
        QApplication.sendEvent(
            widget, QHelpEvent(QEvent.Type.ToolTip, widget.mapFromGlobal(where), where)
        )
