"""The rendered translation as assistive technology reads it: a document with plain text.

Qt exposes a QTextBrowser as a static label, and its text interface hands out the document's
raw characters, frame markers (U+FDD0, U+FDD1) and paragraph separators (U+2029) included, which a
screen reader spells out or skips. A pane marked with :func:`as_document` is exposed instead
as a Document whose text is the document's with those characters as line breaks: one
character for one, so offsets stay the pane's cursor positions (AT-SPI's caret and selection).

PySide6 cannot override the text interface's methods with out-parameters (the text at an
offset, selections, attributes): Qt's defaults answer the text at an offset from :meth:`text`;
no selection is reported (see :meth:`RenderedDocument.selectionCount`). The interface is
exposed through ``interface_cast`` by the address of its text-interface part.
"""

from __future__ import annotations

from typing import Any

import shiboken6
from PySide6.QtCore import QObject, QPoint, QRect
from PySide6.QtGui import QAccessible, QAccessibleInterface, QAccessibleTextInterface, QTextCursor
from PySide6.QtWidgets import QAccessibleWidget, QComboBox, QLabel, QTextEdit, QWidget

from fastdesk.ui.panes.runs import PLAIN_TEXT

__all__ = ["RenderedDocument", "as_document", "name", "name_popups", "plain_units"]

_DOCUMENT = "fastdeskAccessibleDocument"  # the dynamic property as_document sets
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

    def text(self, *args: Any) -> str:  # both interfaces' text(): (kind) and (start, end)
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
        found: object = QAccessibleWidget.interface_cast(self, kind)
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
        """0: PySide6 cannot give Qt the selection's offsets (``selection()`` has out
        parameters it does not bind), and a count of 1 made AT-SPI read garbage offsets. The
        selected text is still the pane's: a reader hears it as the caret moves."""
        return 0

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
    if isinstance(obj, QTextEdit) and obj.property(_DOCUMENT):
        # Qt keeps the interface in its cache and deletes it with the widget; the Python object
        # must live as long (held by the widget), or Qt's cache would point at a freed one
        iface = RenderedDocument(obj)
        key = id(obj)
        _HELD[key] = iface
        obj.destroyed.connect(lambda *_a: _HELD.pop(key, None))
        return iface
    return None


def as_document(edit: QTextEdit, accessible_name: str, description: str = "") -> None:
    """Expose ``edit`` (read only) as a named Document of plain text; call it as the widget is
    made, before anything asks for its accessible interface (Qt keeps the first one)."""
    global _installed
    if not _installed:
        QAccessible.installFactory(_factory)
        _installed = True
    edit.setProperty(_DOCUMENT, True)
    name(edit, accessible_name, description)


def name(widget: QWidget, accessible_name: str, description: str = "") -> None:
    """What assistive technology calls ``widget`` (and says of it, when a name is not enough);
    a combo box's list and its typing field take the name too."""
    widget.setAccessibleName(accessible_name)
    if description:
        widget.setAccessibleDescription(description)
    if isinstance(widget, QComboBox):
        _name_combo(widget, accessible_name)


def _name_combo(combo: QComboBox, accessible_name: str) -> None:
    combo.view().setAccessibleName(f"{accessible_name} choices")
    line = combo.lineEdit()
    if line is not None:
        line.setAccessibleName(accessible_name)


def name_popups(root: QWidget) -> None:
    """Every combo box under ``root`` not named yet: named after the form label it is the buddy
    of (its list and typing field with it), as a screen reader would say the label."""
    labels = {
        id(label.buddy()): label.text()
        for label in root.findChildren(QLabel)
        if label.buddy() is not None
    }
    for combo in root.findChildren(QComboBox):
        text = combo.accessibleName() or labels.get(id(combo), "")
        text = text.replace("&", "").rstrip(":").strip()
        if text:
            combo.setAccessibleName(combo.accessibleName() or text)
            _name_combo(combo, text)
