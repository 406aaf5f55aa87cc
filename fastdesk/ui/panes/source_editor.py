"""The Markdown source pane."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent, QInputMethodEvent
from PySide6.QtWidgets import QPlainTextEdit, QWidget

from fastdesk.ui.panes.common import (
    RewrapSignals,
    dropped_files,
    fixed_font,
    flat_scroll_bars,
    range_selection,
)


class SourceEditor(RewrapSignals, QPlainTextEdit):
    """The Markdown source. Knows when an input method is composing (no translation then)."""

    composition_changed = Signal(bool)
    files_dropped = Signal(list)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sourceEditor")
        self.setFont(fixed_font())
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setTabChangesFocus(False)
        self.setPlaceholderText("Type or paste Markdown here, or open a file (Ctrl+O).")
        self.composing = False
        flat_scroll_bars(self)

    def inputMethodEvent(self, event: QInputMethodEvent) -> None:
        super().inputMethodEvent(event)
        composing = bool(event.preeditString())
        if composing != self.composing:
            self.composing = composing
            self.composition_changed.emit(composing)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if dropped_files(event):
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        if dropped_files(event):
            event.acceptProposedAction()
        else:
            super().dragMoveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        files = dropped_files(event)
        if files:
            event.acceptProposedAction()
            self.files_dropped.emit(files)
        else:
            super().dropEvent(event)

    def show_block(self, start: int, end: int) -> None:
        """Highlight the source range of the block the other pane's cursor is in."""
        self.setExtraSelections(range_selection(self, start, end))
