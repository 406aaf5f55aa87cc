"""What the rendered translation says about itself: it is read-only, and where corrections go.

Why: it looked editable, and typing into it only scrolled the view away (Space paged down). Its
header now says "read-only · double-click to correct", and typing shows for a moment a one-line
hint above the pane; the pane itself (TargetPreview) swallows the typing and asks for the
block's Markdown on a double click or Enter.
"""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QBoxLayout, QLabel, QWidget

from fastdesk.ui.panes.elided import ElidedLabel

HINT = "The rendered view is read-only: double-click a block or press Enter to correct its Markdown"
HINT_MS = 4000


class ReadOnlyHints:
    """The header's note (``note``, objectName ``readOnlyNote``) and the typing hint (``hint``,
    ``typingHint``); ``show_hint()`` shows the hint for HINT_MS."""

    def __init__(self, header: QBoxLayout, above_pane: QBoxLayout, parent: QWidget) -> None:
        self.note = ElidedLabel("read-only · double-click to correct")
        self.note.setObjectName("readOnlyNote")
        self.note.setEnabled(False)  # the palette's quiet text
        self.note.setToolTip(
            "The rendered translation cannot be typed into: double-click a block (or press "
            "Enter) to correct its Markdown; Ctrl+R switches views"
        )
        header.insertWidget(1, self.note)
        self.hint = QLabel(HINT)
        self.hint.setObjectName("typingHint")
        self.hint.setStyleSheet("QLabel { font-weight: 600; padding: 2px 6px; }")
        self.hint.hide()
        above_pane.insertWidget(1, self.hint)
        self._timer = QTimer(parent)
        self._timer.setSingleShot(True)
        self._timer.setInterval(HINT_MS)
        self._timer.timeout.connect(self.hint.hide)

    def show_hint(self) -> None:
        self.hint.show()
        self._timer.start()

    def rendered(self, shown: bool) -> None:
        """The rendered view is on show (the note with it), or the Markdown is."""
        self.note.setVisible(shown)
        if not shown:
            self.hint.hide()
