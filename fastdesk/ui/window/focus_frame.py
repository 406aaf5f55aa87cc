"""A frame around the pane that has the keyboard, in the theme's highlight colour.

The rendered translation and the editors draw no focus frame of their own (Fusion draws none
around a text area, and a style sheet border would change their width on focus, and with it the
text's wrapping). This frame is a separate widget above the window's children, masked to its
two-pixel border: the panes under it repaint as before, and their layout does not move.
"""

from __future__ import annotations

from collections.abc import Callable

import shiboken6
from PySide6.QtCore import QEvent, QObject, QRect, Qt
from PySide6.QtGui import QPainter, QPaintEvent, QPalette, QRegion
from PySide6.QtWidgets import QApplication, QWidget

__all__ = ["FocusFrame"]

WIDTH = 2  # pixels


class FocusFrame(QWidget):
    """Follows the focus: ``stop_of(widget)`` says which pane (or panel) holds a widget, the
    frame goes around that one; none when the focus is elsewhere or outside the window."""

    def __init__(
        self, window: QWidget, stop_of: Callable[[QWidget | None], QWidget | None]
    ) -> None:
        super().__init__(window)
        self.setObjectName("focusFrame")
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._stop_of = stop_of
        self.target: QWidget | None = None
        self.hide()
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._focus_changed)

    def _focus_changed(self, _old: QWidget | None, new: QWidget | None) -> None:
        window = self.parentWidget()
        stop = self._stop_of(new) if new is not None and new.window() is window else None
        if stop is self.target and stop is not None:
            self.place()
            return
        if self.target is not None and shiboken6.isValid(self.target):
            # (a pane being deleted moves the focus from inside its destructor: it is then
            # already invalid, before its ``destroyed``)
            self.target.removeEventFilter(self)
            self.target.destroyed.disconnect(self._target_gone)
        self.target = stop
        if stop is not None:
            stop.installEventFilter(self)
            stop.destroyed.connect(self._target_gone)
        self.place()

    def _target_gone(self) -> None:
        """The framed pane was deleted (a document view replaced, the window closing): forget
        it, so the next focus change does not reach for a deleted widget."""
        self.target = None
        self.hide()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.target and event.type() in (
            QEvent.Type.Resize,
            QEvent.Type.Move,
            QEvent.Type.Hide,
            QEvent.Type.Show,
        ):
            self.place()
        return False

    def place(self) -> None:
        """Around the target where it is now (hidden without one)."""
        target, window = self.target, self.parentWidget()
        if target is not None and not shiboken6.isValid(target):
            self.target = target = None
        if target is None or window is None or not target.isVisible():
            self.hide()
            return
        if target.window() is not window:  # a floating panel: a window of its own, no frame
            self.hide()
            return
        top_left = target.mapTo(window, target.rect().topLeft())
        rect = QRect(top_left, target.size())
        self.setGeometry(rect)
        inner = QRect(WIDTH, WIDTH, rect.width() - 2 * WIDTH, rect.height() - 2 * WIDTH)
        self.setMask(QRegion(self.rect()).subtracted(QRegion(inner)))
        self.show()
        self.raise_()

    def paintEvent(self, _event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.fillRect(self.rect(), self.palette().color(QPalette.ColorRole.Highlight))
