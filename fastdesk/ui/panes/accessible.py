"""The rendered translation as assistive technology reads it: a document with plain text.

Qt exposes a QTextBrowser as a static label, and its text interface hands out the document's
raw characters, frame markers (U+FDD0, U+FDD1) and paragraph separators (U+2029) included, which a
screen reader spells out or skips. A pane that sets ``ACCESSIBLE_DOCUMENT = True`` is exposed
instead as a Document whose text is the document's with those characters as line breaks: one
character for one, so offsets stay the pane's cursor positions (AT-SPI's caret and selection).

PySide6 cannot override the text interface's methods with out-parameters (the text at an
offset, selections, attributes): Qt's defaults answer them from :meth:`text`. The interface is
exposed through ``interface_cast`` by the address of its text-interface part.
"""

from __future__ import annotations

from typing import Any

import shiboken6
from PySide6.QtCore import QObject, QPoint, QRect
from PySide6.QtGui import QAccessible, QAccessibleInterface, QAccessibleTextInterface, QTextCursor
from PySide6.QtWidgets import QAccessibleWidget, QTextEdit

from fastdesk.ui.panes.runs import PLAIN_TEXT

__all__ = ["RenderedDocument", "install_accessibility", "plain_units"]

_installed = False
_HELD: dict[int, RenderedDocument] = {}  # see _factory


def plain_units(edit: QTextEdit) -> str:
    """The pane's text as a reader gets it, one UTF-16 unit for each document position."""
    return edit.document().toRawText().translate(PLAIN_TEXT)


def _slice(text: str, start: int, end: int) -> str:
    """``text[start:end]`` counted in UTF-16 units (Qt's offsets), not code points."""
    units = text.encode("utf-16-le")
    return units[2 * max(start, 0) : 2 * max(end, 0)].decode("utf-16-le", errors="replace")


class RenderedDocument(QAccessibleWidget, QAccessibleTextInterface):
    """A read-only text pane as a named Document with plain text (see the module docstring)."""

    def __init__(self, edit: QTextEdit) -> None:
        QAccessibleWidget.__init__(self, edit, QAccessible.Role.Document)
        QAccessibleTextInterface.__init__(self)
        self.edit = edit

    # ---- QAccessibleInterface --------------------------------------------------------------

    def text(self, *args: Any) -> str:  # type: ignore[override]  # both interfaces' text()
        if len(args) == 2:  # QAccessibleTextInterface.text(start, end)
            return _slice(plain_units(self.edit), int(args[0]), int(args[1]))
        kind = args[0]
        if kind == QAccessible.Text.Value:
            return plain_units(self.edit)
        return str(QAccessibleWidget.text(self, kind))

    def state(self) -> QAccessible.State:
        state = QAccessibleWidget.state(self)
        state.readOnly = True
        state.multiLine = True
        state.selectableText = True
        return state

    def interface_cast(self, kind: QAccessible.InterfaceType) -> Any:
        if kind == QAccessible.InterfaceType.TextInterface:
            pointers = shiboken6.getCppPointer(self)  # (widget part, text-interface part)
            return shiboken6.VoidPtr(pointers[1])
        found = QAccessibleWidget.interface_cast(self, kind)
        return shiboken6.VoidPtr(0) if found is None else found  # (None does not convert)

    # ---- QAccessibleTextInterface ----------------------------------------------------------

    def characterCount(self) -> int:
        return len(plain_units(self.edit).encode("utf-16-le")) // 2

    def cursorPosition(self) -> int:
        return self.edit.textCursor().position()

    def setCursorPosition(self, position: int) -> None:
        cursor = self.edit.textCursor()
        cursor.setPosition(self._clamp(position))
        self.edit.setTextCursor(cursor)

    def selectionCount(self) -> int:
        return 1 if self.edit.textCursor().hasSelection() else 0

    def addSelection(self, startOffset: int, endOffset: int) -> None:
        self.setSelection(0, startOffset, endOffset)

    def setSelection(self, selectionIndex: int, startOffset: int, endOffset: int) -> None:
        if selectionIndex != 0:
            return
        cursor = self.edit.textCursor()
        cursor.setPosition(self._clamp(startOffset))
        cursor.setPosition(self._clamp(endOffset), QTextCursor.MoveMode.KeepAnchor)
        self.edit.setTextCursor(cursor)

    def removeSelection(self, selectionIndex: int) -> None:
        if selectionIndex == 0:
            cursor = self.edit.textCursor()
            cursor.clearSelection()
            self.edit.setTextCursor(cursor)

    def characterRect(self, offset: int) -> QRect:
        cursor = QTextCursor(self.edit.document())
        cursor.setPosition(self._clamp(offset))
        rect = self.edit.cursorRect(cursor)
        viewport = self.edit.viewport()
        return QRect(viewport.mapToGlobal(rect.topLeft()), rect.size())

    def offsetAtPoint(self, point: QPoint) -> int:
        viewport = self.edit.viewport()
        return self.edit.cursorForPosition(viewport.mapFromGlobal(point)).position()

    def scrollToSubstring(self, startIndex: int, endIndex: int) -> None:
        cursor = QTextCursor(self.edit.document())
        cursor.setPosition(self._clamp(endIndex))
        self.edit.setTextCursor(cursor)
        self.edit.ensureCursorVisible()
        cursor.setPosition(self._clamp(startIndex))
        self.edit.setTextCursor(cursor)
        self.edit.ensureCursorVisible()

    def _clamp(self, position: int) -> int:
        return max(0, min(position, self.edit.document().characterCount() - 1))


def _factory(_key: str, obj: QObject) -> QAccessibleInterface | None:
    if isinstance(obj, QTextEdit) and getattr(obj, "ACCESSIBLE_DOCUMENT", False):
        # Qt keeps the interface in its cache and deletes it with the widget; the Python object
        # must live as long (held by the widget), or Qt's cache would point at a freed one
        iface = RenderedDocument(obj)
        obj.setProperty("_accessible_held", None)
        _HELD[id(obj)] = iface
        obj.destroyed.connect(lambda *_a, key=id(obj): _HELD.pop(key, None))
        return iface
    return None


def install_accessibility() -> None:
    """Expose panes that ask for it as documents (once; before their interface is first asked)."""
    global _installed
    if not _installed:
        QAccessible.installFactory(_factory)
        _installed = True
