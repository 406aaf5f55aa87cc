"""The "queued, about 12 s" mark on the block itself: painted over a target pane, at the right
of the first line of each block whose request waits for a slot, never written into the pane's
text (which holds the source's stand-ins until the answer comes: text there would reach
exports, copies and the undo stack).

The marks and their countdown are the session's (fastdesk.review.backlog.Backlog, on the one
clock); this only paints them and asks again when the core says the count drops. The overlay
is a narrow strip at the right of the pane's viewport, shown only while something is queued:
the rest of the time it costs the pane's repaints nothing.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from PySide6.QtCore import QObject, QRect, Qt, QTimer, Signal
from PySide6.QtGui import QFont, QFontMetrics, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QWidget

from fastdesk.review.backlog import Backlog
from fastdesk.ui.panes.preview import TargetPreview
from fastdesk.ui.panes.target_editor import TargetEditor

__all__ = ["QueuedMarks", "QueuedOverlay"]

PAD = 6  # pixels between the label and the viewport's right edge, and around its text
WIDEST = "queued, about 999 s"  # the strip's width follows this label's


class QueuedOverlay(QWidget):
    """The strip over ``pane``'s viewport where its queued blocks' marks are painted."""

    def __init__(self, pane: TargetEditor | TargetPreview, marks: Callable[[], dict[str, str]]):
        super().__init__(pane)
        self.setObjectName("queuedMarks")
        self.pane = pane
        self._marks = marks
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground)
        pane.resized.connect(self._place)
        pane.verticalScrollBar().valueChanged.connect(self._moved)
        self.hide()

    def labels(self) -> list[tuple[str, str, QRect]]:
        """What this strip paints now: (block id, "queued, about 12 s", where, in the pane's
        viewport), for the queued blocks on screen, top to bottom."""
        marks = self._marks()
        if not marks:
            return []
        metrics = QFontMetrics(self.font())
        line = max(metrics.height(), QFontMetrics(self.pane.font()).lineSpacing()) + 2
        right = self.pane.viewport().width() - PAD
        out = []
        for key, top, _bottom in self.pane.visible_blocks():
            text = marks.get(key)
            if text:
                width = metrics.horizontalAdvance(text) + 2 * PAD
                out.append((key, text, QRect(right - width, top, width, line)))  # its first line
        return out

    def follow(self, queued: bool) -> None:
        """Something is queued (shown, repainted) or nothing is (hidden: no cost)."""
        if queued:
            self._place()
            self.show()
            self.raise_()
            self.update()
        else:
            self.hide()

    def _moved(self) -> None:
        if self.isVisible():
            self.update()

    def _place(self) -> None:
        font = QFont(self.pane.font())  # the pane's, as zoomed now: smaller, italic
        font.setItalic(True)
        font.setPointSizeF(max(7.0, font.pointSizeF() * 0.85))
        self.setFont(font)
        view = self.pane.viewport().geometry()
        width = QFontMetrics(self.font()).horizontalAdvance(WIDEST) + 3 * PAD
        self.setGeometry(QRect(view.right() + 1 - width, view.top(), width, view.height()))

    def paintEvent(self, event: QPaintEvent) -> None:
        labels = self.labels()
        if not labels:
            return
        offset = self.pane.viewport().width() - self.width()  # viewport x → this strip's x
        painter = QPainter(self)
        base = self.pane.palette().color(QPalette.ColorRole.Base)  # opaque: the text under it
        grey = self.pane.palette().color(QPalette.ColorRole.PlaceholderText)
        painter.setPen(grey)
        for _key, text, rect in labels:
            where = rect.translated(-offset, 0)
            painter.fillRect(where, base)
            painter.drawText(where, Qt.AlignmentFlag.AlignCenter, text)
        painter.end()


class QueuedMarks(QObject):
    """The marks of one document's target panes: shown while the backlog holds queued blocks,
    repainted when a count drops (one single-shot timer, armed only while something is
    queued, at the moment the core names), hidden when the last block's request goes."""

    counted = Signal()  # a count dropped (the review bar's estimate may have changed too)

    def __init__(
        self,
        backlog: Callable[[], Backlog],
        panes: Sequence[TargetEditor | TargetPreview],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._backlog = backlog
        self.overlays = [QueuedOverlay(pane, self._marks) for pane in panes]
        self._tick = QTimer(self)
        self._tick.setSingleShot(True)
        self._tick.timeout.connect(self._count)

    def _marks(self) -> dict[str, str]:
        return self._backlog().marks()

    def _count(self) -> None:
        self.follow()
        self.counted.emit()

    def follow(self) -> None:
        """The backlog changed (or a count dropped): show, repaint or hide, and wake up again
        when the next count drops."""
        backlog = self._backlog()
        queued = bool(backlog.marks())
        for overlay in self.overlays:
            overlay.follow(queued)
        later = backlog.next_change_s() if queued else None
        if later is None:
            self._tick.stop()
            return
        ms = max(1, math.ceil(later * 1000))
        # a burst of changes must not keep putting the count off
        if not self._tick.isActive() or self._tick.remainingTime() > ms:
            self._tick.start(ms)

    def repaint(self) -> None:
        """The panes re-rendered (blocks moved): the visible strips repaint."""
        for overlay in self.overlays:
            if overlay.isVisible():
                overlay.update()
