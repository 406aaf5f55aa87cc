"""The document heals itself: some time after the last failed request its failed blocks are
translated again, unless an edit came first (an edit sends them again anyway). While it waits,
the status bar counts down and the margin's tooltip of a failed block says when."""

from __future__ import annotations

import math

from PySide6.QtCore import QObject, QTimer, Signal

RETRY_AFTER_MS = 30_000
TICK_MS = 1_000


class Healer(QObject):
    """One pending retry of a document's failed blocks. ``interval_ms`` is injectable so that
    tests need no wall-clock sleeps."""

    due = Signal()  # retry the failed blocks now
    countdown = Signal(str, int)  # a status-bar message (text, milliseconds)

    def __init__(self, parent: QObject | None = None, interval_ms: int = RETRY_AFTER_MS) -> None:
        super().__init__(parent)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._fire)
        self._tick = QTimer(self)
        self._tick.setInterval(TICK_MS)
        self._tick.timeout.connect(self._say)
        self._count = 0

    def set_interval(self, ms: int) -> None:
        self._timer.setInterval(ms)

    def arm(self, failed: int) -> None:
        """``failed`` blocks failed: retry them after the interval (restarted by each failure)."""
        self._count = failed
        self._timer.start()
        self._tick.start()
        self._say()

    def cancel(self) -> None:
        self._timer.stop()
        self._tick.stop()

    def seconds_left(self) -> int | None:
        """Whole seconds until the retry (rounded up), None when none is pending."""
        if not self._timer.isActive():
            return None
        return math.ceil(max(self._timer.remainingTime(), 0) / 1000)

    def _say(self) -> None:
        left = self.seconds_left()
        if left is not None:
            noun = "block" if self._count == 1 else "blocks"
            self.countdown.emit(f"{self._count} failed {noun}: retrying in {left} s", TICK_MS + 200)

    def _fire(self) -> None:
        self._tick.stop()
        self.due.emit()
