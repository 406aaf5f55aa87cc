"""The Markdown source pane."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import (
    QDragEnterEvent,
    QDragMoveEvent,
    QDropEvent,
    QInputMethodEvent,
    QKeyEvent,
    QTextCursor,
)
from PySide6.QtWidgets import QPlainTextEdit, QWidget

from fastdesk.document.text_ends import common_prefix, common_suffix
from fastdesk.ui.panes.common import (
    RewrapSignals,
    dropped_files,
    end_in_view,
    fixed_font,
    flat_scroll_bars,
    plain_text,
    range_selection,
)
from fastdesk.ui.panes.render import qt_len


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

    def keyPressEvent(self, event: QKeyEvent) -> None:
        super().keyPressEvent(event)
        end_in_view(self, event)

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

    def replace_text(self, new: str) -> None:
        """Replace only what differs (one undoable edit): the view and cursor stay put."""
        doc = self.document()
        old = plain_text(doc)
        head = common_prefix(old, new)
        tail = common_suffix(old, new, min(len(old), len(new)) - head)
        start = qt_len(old[:head])
        end = start + qt_len(old[head : len(old) - tail])
        cursor = QTextCursor(doc)
        cursor.beginEditBlock()
        cursor.setPosition(start)
        cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        cursor.insertText(new[head : len(new) - tail])
        cursor.endEditBlock()
