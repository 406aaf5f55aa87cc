"""Text that fits the width it is given: a long text ends in "…" and shows whole on hover.

Why: in a 1,024 px window the status bar read "waiting 57 s: Groq free" and the review
summary "60 t"; every label that may be narrower than its text elides with the whole text in
its tooltip instead (tests/ui/test_small_windows.py checks the window at 1,024×700).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QFontMetrics, QPainter, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import QLabel, QStatusBar, QWidget

from fastdesk.ui.plain import plain, tip

__all__ = ["ElidedLabel", "ElidingStatusBar", "elide"]


def elide(metrics: QFontMetrics, text: str, width: int) -> str:
    """``text`` cut to ``width`` pixels with "…" at the end (the text itself when it fits)."""
    return metrics.elidedText(text, Qt.TextElideMode.ElideRight, max(0, width))


class ElidedLabel(QLabel):
    """A one-line label that fits any width: a long text ends in "…" and shows whole on hover.

    ``text()`` stays the whole text; only the painting is cut. ``detail`` is what the tooltip
    adds below the whole text.
    """

    MIN_WIDTH = 60

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        plain(self)  # a model id, a file name, a server's words: shown as they are
        self.detail = ""

    def set_detail(self, detail: str) -> None:
        self.detail = detail
        self._update_tip()

    def setText(self, text: str) -> None:
        super().setText(text)
        self._update_tip()

    def shown_text(self) -> str:
        """What is painted: the text, elided to the label's width."""
        return elide(self.fontMetrics(), self.text(), self.contentsRect().width())

    def elided(self) -> bool:
        return self.shown_text() != self.text()

    def minimumSizeHint(self) -> QSize:
        return QSize(
            min(self.MIN_WIDTH, super().minimumSizeHint().width()),
            super().minimumSizeHint().height(),
        )

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._update_tip()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setPen(self.palette().color(self.foregroundRole()))
        align = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        painter.drawText(self.contentsRect(), align, self.shown_text())

    def _update_tip(self) -> None:
        whole = self.text() if self.elided() else ""
        self.setToolTip(tip("\n".join(part for part in (whole, self.detail) if part)))


class ElidingStatusBar(QStatusBar):
    """A status bar whose passing messages fit the room left of its permanent widgets: a long
    one is cut with "…", and the whole of it is the bar's tooltip while it shows. It is cut
    again when that room changes; so the bar keeps the message's timeout itself (Qt's would
    restart with each re-show). ``resized`` lets the owner of the permanent widgets fit them."""

    resized = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("statusBar")
        self.whole_message = ""
        self._expiry = QTimer(self)
        self._expiry.setSingleShot(True)
        self._expiry.timeout.connect(self.clearMessage)
        self.messageChanged.connect(self._message_changed)

    def showMessage(self, text: str, timeout: int | None = 0) -> None:
        self.whole_message = text
        if timeout:
            self._expiry.start(timeout)
        else:
            self._expiry.stop()
        self._fit_message()

    def currentMessage(self) -> str:
        """The whole message on show ("" for none), as it was given: what is painted may be
        cut (``shown_message``)."""
        return self.whole_message if self.shown_message() else ""

    def shown_message(self) -> str:
        """The message as painted: cut with "…" to the room there is."""
        return QStatusBar.currentMessage(self)

    def _fit_message(self) -> None:
        text = self.whole_message
        shown = elide(self.fontMetrics(), text, self.message_room())
        if shown != self.shown_message():
            super().showMessage(shown)
        self.setToolTip(tip(text) if shown != text else "")

    def message_room(self) -> int:
        """The width a passing message may take: up to the leftmost permanent widget."""
        layout = self.layout()
        if layout is not None:
            layout.activate()  # where the permanent widgets are now, not at the last paint
        lefts = [
            child.x()
            for child in self.findChildren(QWidget)
            if child.isVisible() and child.parentWidget() is self and child.x() > 0
        ]
        return (min(lefts) if lefts else self.width()) - 16  # (Qt's margins and the grip)

    def _message_changed(self, text: str) -> None:
        if not text:  # the message timed out or was cleared
            self.whole_message = ""
            self._expiry.stop()
            self.setToolTip("")

    def event(self, event: QEvent) -> bool:
        handled = super().event(event)
        if event.type() == QEvent.Type.LayoutRequest and self.whole_message:
            self._fit_message()  # a permanent widget grew or shrank: the room changed
        return handled

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.resized.emit(event.size().width())
        if self.whole_message:
            self._fit_message()
