"""The document heals itself: its failed blocks are translated again once their provider is
usable again (what the core says: health cooldowns, retry-afters, the rate limiter's windows),
and no sooner than a backoff that grows with each automatic retry that failed again (30 s,
60 s, then 120 s; a success starts it over). An edit cancels the pending retry (it sends the
failed blocks anyway). While one is pending, the status bar counts down and so does the margin
tooltip of a failed block that is open."""

from __future__ import annotations

import math
from collections.abc import Sequence

from PySide6.QtCore import QEvent, QObject, QTimer, Signal
from PySide6.QtGui import QCursor, QHelpEvent
from PySide6.QtWidgets import QApplication, QToolTip, QWidget

from fastdesk.clock import Clock, SystemClock

BACKOFF_S = (30.0, 60.0, 120.0)  # the last one repeats
TICK_MS = 1_000


class Healer(QObject):
    """One pending retry of a document's failed blocks. The clock (the window's one clock:
    fastdesk.clock) and the tick are injectable, so tests move time by hand instead of sleeping."""

    due = Signal()  # retry the failed blocks now
    changed = Signal(str)  # what the status bar shows while a retry is pending ("": none)
    ticked = Signal()  # a second went by while a retry is pending (open tooltips refresh)

    def __init__(
        self,
        parent: QObject | None = None,
        *,
        backoff_s: Sequence[float] = BACKOFF_S,
        clock: Clock | None = None,
        tick_ms: int = TICK_MS,
    ) -> None:
        super().__init__(parent)
        self.backoff_s = tuple(backoff_s)
        self.clock: Clock = clock or SystemClock()
        self.tick_ms = tick_ms
        self._tick = QTimer(self)
        self._tick.setSingleShot(True)
        self._tick.timeout.connect(self._on_tick)
        self._due_at: float | None = None  # clock time of the pending retry
        self._count = 0
        self._level = 0  # automatic retries in a row that failed again
        self._text = ""

    def arm(self, failed: int, usable_in_s: float | None) -> None:
        """``failed`` blocks failed, and their provider may be asked again in ``usable_in_s``
        (None: unknown, taken as now; ``math.inf``: not by itself, e.g. a refused key): retry
        them then, and no sooner than this step of the backoff."""
        self._count = failed
        wait = max(usable_in_s or 0.0, self.backoff_s[min(self._level, len(self.backoff_s) - 1)])
        if math.isinf(wait):
            self._due_at = None
            self._tick.stop()
            self._say(
                f"{failed_blocks(failed)}: not retried by themselves until the provider is fixed"
            )
            return
        self._due_at = self.clock.monotonic() + wait
        self._on_tick()

    def succeeded(self) -> None:
        """A request succeeded: the next failure waits the first step of the backoff again."""
        self._level = 0

    def cancel(self) -> None:
        self._due_at = None
        self._tick.stop()
        self._say("")

    def seconds_left(self) -> int | None:
        """Whole seconds until the retry (rounded up), None when none is pending."""
        if self._due_at is None:
            return None
        return math.ceil(max(self._due_at - self.clock.monotonic(), 0.0))

    @property
    def text(self) -> str:
        return self._text

    def _on_tick(self) -> None:
        if self._due_at is None:
            return
        left = self._due_at - self.clock.monotonic()
        if left <= 0:
            self._due_at = None
            self._level += 1
            self._say("")
            self.due.emit()
            return
        self._say(f"{failed_blocks(self._count)}: retrying in {duration(math.ceil(left))}")
        self.ticked.emit()
        # the next whole second (or the retry itself, when sooner)
        self._tick.start(max(1, min(self.tick_ms, math.ceil(left * 1000))))

    def _say(self, text: str) -> None:
        if text != self._text:
            self._text = text
            self.changed.emit(text)


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


def failed_blocks(n: int) -> str:
    return f"{n} failed block" + ("" if n == 1 else "s")


def duration(seconds: int) -> str:
    """A countdown that stays readable up to a day's limit: "45 s", "3 min 5 s", "2 h 10 min"."""
    if seconds < 120:
        return f"{seconds} s"
    minutes, secs = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {secs} s" if secs else f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"
