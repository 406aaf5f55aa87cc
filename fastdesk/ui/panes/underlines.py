"""The reviewer model's errors in the Markdown pane: a wavy underline under each span, its
category, severity and explanation on hover (fastdesk.review.quality decides what is shown).

A block is marked only while the pane shows the very text its verdict was given for; the marks
are text cursors, so they follow the pane's own edits above them until the next refresh.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QColor, QHelpEvent, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QTextEdit, QToolTip

from fastdesk.review.quality import Underline
from fastdesk.ui.panes.target_editor import TargetEditor

Judged = Callable[[], Mapping[str, tuple[str, Sequence[Underline]]]]
SEVERITY_COLOURS = {"minor": "#bf8700", "major": "#cf222e", "critical": "#a40e26"}


class ReviewUnderlines(QObject):
    """Marks ``editor``'s text from ``judged()`` (TargetModel.judged_underlines) on refresh."""

    def __init__(self, editor: TargetEditor, judged: Judged) -> None:
        super().__init__(editor)
        self.editor = editor
        self._judged = judged
        self.marks: list[tuple[QTextCursor, Underline]] = []
        editor.viewport().installEventFilter(self)

    def refresh(self) -> None:
        editor = self.editor
        judged = self._judged()
        marks: list[tuple[QTextCursor, Underline]] = []
        if judged:
            doc = editor.document()
            last = doc.characterCount() - 1
            starts = editor.starts()
            for index, seg in enumerate(editor.shown):
                entry = judged.get(seg.key)
                if entry is None or entry[0] != seg.text:
                    continue  # not judged, or the pane shows another text now
                for line in entry[1]:
                    cursor = QTextCursor(doc)
                    cursor.setPosition(min(starts[index] + line.start, last))
                    cursor.setPosition(
                        min(starts[index] + line.end, last), QTextCursor.MoveMode.KeepAnchor
                    )
                    marks.append((cursor, line))
        self.marks = marks
        editor.set_marks([_selection(cursor, line) for cursor, line in marks])

    def tooltip_at(self, position: int) -> str | None:
        """The explanation of the error under ``position`` (None: none there)."""
        for cursor, line in self.marks:
            if cursor.selectionStart() <= position < cursor.selectionEnd():
                return line.tooltip
        return None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent) and self.marks:
            text = self.tooltip_at(self.editor.cursorForPosition(event.pos()).position())
            if text is not None:
                QToolTip.showText(event.globalPos(), text, self.editor.viewport())
                return True
        return super().eventFilter(watched, event)


def _selection(cursor: QTextCursor, line: Underline) -> QTextEdit.ExtraSelection:
    sel = QTextEdit.ExtraSelection()
    sel.cursor = cursor
    fmt = QTextCharFormat()
    fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
    fmt.setUnderlineColor(QColor(SEVERITY_COLOURS[line.error.severity]))
    sel.format = fmt
    return sel
