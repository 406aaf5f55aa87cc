"""A rich-text pane's repaints after its own edits, held and sent once, from where they began.

Why: after an edit inside a child frame, Qt's layout asks for a repaint from the top of the
document down (the root frame's layout narrows the request only past blocks of its own, and
the edit is in a child frame's), so the viewport repainted after every render slice of the
rendered view, wherever the slice's edits were: ~1 ms a slice at 500 blocks, where the edits
below the view repainted nothing in the root frame. The pane knows where its edits began.
"""

from __future__ import annotations

from typing import cast

from PySide6.QtCore import QObject, QRectF
from PySide6.QtWidgets import QTextEdit

_ALL = QRectF(0, 0, 2.0**31 - 1, 2.0**31 - 1)  # what Qt's layout means by an invalid rect


class HeldRepaints(QObject):
    """Takes over the document layout's repaint requests for `edit`: passed on to its viewport
    as QTextEdit does, except while held (a render step edits), when they are gathered and sent
    once by ``release``, from the top the pane names down.

    A child of `edit`, which it reaches as its parent: it goes with the pane, its connection
    with it. (A plain object holding the pane made a cycle with it; the collector then deleted
    the pane at any moment, the layout's signal still connected, and a test run crashed.)"""

    def __init__(self, edit: QTextEdit) -> None:
        super().__init__(edit)
        self._held: QRectF | None = None
        self._holding = False
        layout = edit.document().documentLayout()
        layout.update.disconnect()  # (QTextEdit's own: every request to the viewport)
        layout.update.connect(self._requested)

    def hold(self) -> None:
        self._holding = True
        self._held = None

    def release(self, top: float) -> None:
        """Send what was asked for while held, from document y `top` down (nothing above it
        changed)."""
        self._holding = False
        rect, self._held = self._held, None
        if rect is not None:
            rect.setTop(max(rect.top(), top))
            self._send(rect)

    def drop(self) -> None:
        """Send nothing of what was asked for while held: nothing on screen changed."""
        self._holding = False
        self._held = None

    def _requested(self, rect: QRectF) -> None:
        rect = QRectF(rect) if rect.isValid() else QRectF(_ALL)
        if self._holding:
            self._held = rect if self._held is None else self._held.united(rect)
        else:
            self._send(rect)

    def _send(self, rect: QRectF) -> None:
        """As QTextEdit does: the part of `rect` (document pixels) on screen, repainted."""
        edit = cast(QTextEdit, self.parent())
        viewport = edit.viewport()
        x, y = edit.horizontalScrollBar().value(), edit.verticalScrollBar().value()
        shown = rect.intersected(QRectF(x, y, viewport.width(), viewport.height()))
        if shown.isValid() and not shown.isEmpty():
            viewport.update(shown.toAlignedRect().translated(-x, -y))
