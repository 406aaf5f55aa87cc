"""What the panes share: the palette's darkness and tint, a fixed font, flat scroll bars, the
view at its end after Ctrl+End, the exact text of a QTextDocument (and a Qt position in it as a
Python index), Markdown files dragged onto a pane, the target panes' signals, and a pane's frame
(a title line above it)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import (
    QColor,
    QDragEnterEvent,
    QDropEvent,
    QFocusEvent,
    QFont,
    QFontDatabase,
    QKeyEvent,
    QKeySequence,
    QPalette,
    QResizeEvent,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdown", ".mkd", ".txt")


if TYPE_CHECKING:  # to the type checker the mixin is the widget it is mixed into
    _PaneBase = QWidget
else:
    _PaneBase = object


class RewrapSignals(_PaneBase):
    """Put first among a text pane's bases: it tells before and after the pane lays its text
    out at another width (its viewport's: the window resized, the splitter moved, a scroll bar
    came or went). Qt then keeps what it can of the view's place on its own: a plain text edit
    its top text block and the line number in it (a paragraph wrapped to fewer lines put the
    next blocks at the top), a rich text one its pixel offset (other text at the top). The
    panes' sync keeps the reader's block (sync_scroll)."""

    rewrapping = Signal()
    rewrapped = Signal()

    def resizeEvent(self, event: QResizeEvent) -> None:
        if event.size().width() == event.oldSize().width():
            super().resizeEvent(event)
            return
        self.rewrapping.emit()
        try:
            super().resizeEvent(event)  # (Qt lays the text out there)
        finally:
            self.rewrapped.emit()


class TargetPaneSignals(RewrapSignals):
    """Put first among a target pane's bases (the raw and the rendered one): it tells when the
    pane was resized (the review margin follows; an event filter would see every event) and
    when the reader came into it (its cursor is theirs from then on: see cursor_placed)."""

    resized = Signal()
    entered = Signal()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)  # the Qt widget after it in the MRO
        self.resized.emit()

    def focusInEvent(self, event: QFocusEvent) -> None:
        super().focusInEvent(event)
        self.entered.emit()


def is_dark(palette: QPalette) -> bool:
    return palette.color(QPalette.ColorRole.Base).lightness() < 128


def highlight_colour(palette: QPalette) -> QColor:
    """The tint of the block under the other pane's cursor, readable on the base colour. Light:
    a soft tint of the highlight colour. Dark: a soft amber, since a blue tint on a dark base
    looked like a text selection."""
    if is_dark(palette):
        return QColor(210, 153, 34, 48)  # GitHub's dark "attention" amber, #d29922
    colour = QColor(palette.color(QPalette.ColorRole.Highlight))
    colour.setAlpha(45)
    return colour


def plain_text(doc: QTextDocument) -> str:
    """The document's exact text: toPlainText() would turn no-break spaces into spaces."""
    return doc.toRawText().replace("\u2029", "\n").replace("\u2028", "\n")


def py_index(text: str, position: int) -> int:
    """A Qt (UTF-16) position in ``text`` as a Python index."""
    if text.isascii():
        return position
    return len(text.encode("utf-16-le")[: 2 * position].decode("utf-16-le", "ignore"))


def markdown_paths(urls: Sequence[QUrl]) -> list[str]:
    out = []
    for url in urls:
        local = url.toLocalFile()
        if local and Path(local).suffix.lower() in MARKDOWN_SUFFIXES:
            out.append(local)
    return out


def flat_scroll_bars(area: QAbstractScrollArea) -> None:
    """Plain scroll bars in the palette's colours for a pane that changes while it streams.

    Why: the target pane's bar is repainted after every render slice (its range follows the
    document), and Fusion's gradient bar costs many times what a style sheet's flat one does
    (figures: docs/performance.md, "What costs what"). Call again when the palette changes.
    """
    pal = area.palette()
    base = pal.color(QPalette.ColorRole.Base).name()
    text = pal.color(QPalette.ColorRole.Text)
    handle = f"rgba({text.red()}, {text.green()}, {text.blue()}, 70)"
    hover = f"rgba({text.red()}, {text.green()}, {text.blue()}, 120)"
    sheet = (
        f"QScrollBar {{ background: {base}; border: none; margin: 0; }}"
        " QScrollBar:vertical { width: 12px; } QScrollBar:horizontal { height: 12px; }"
        f" QScrollBar::handle {{ background: {handle}; border-radius: 4px; margin: 2px; }}"
        f" QScrollBar::handle:hover {{ background: {hover}; }}"
        " QScrollBar::handle:vertical { min-height: 28px; }"
        " QScrollBar::handle:horizontal { min-width: 28px; }"
        " QScrollBar::add-line, QScrollBar::sub-line { width: 0; height: 0; border: none; }"
        " QScrollBar::add-page, QScrollBar::sub-page { background: none; }"
    )
    for bar in (area.verticalScrollBar(), area.horizontalScrollBar()):
        bar.setStyleSheet(sheet)
        # The sheet's background fills the bar: nothing beneath it needs repainting with it.
        bar.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)


def fixed_font() -> QFont:
    """The system's fixed-width font, at 10 points at least."""
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    font.setPointSizeF(max(font.pointSizeF(), 10.0))
    return font


def end_in_view(edit: QPlainTextEdit, event: QKeyEvent) -> None:
    """After the key to the document's end (Ctrl+End; with Shift, selecting), the view at the
    end of its scroll range.

    QPlainTextEdit scrolls only until the cursor's line is in the viewport, counting all of its
    height; its scroll range counts the height less the document margin and a pixel. At some
    heights the view stops a line short of the range's end, and the other pane, which follows a
    view at its end to its own end (sync_scroll), then follows block by block and can stop
    short of its last block."""
    if event.matches(QKeySequence.StandardKey.MoveToEndOfDocument) or event.matches(
        QKeySequence.StandardKey.SelectEndOfDocument
    ):
        bar = edit.verticalScrollBar()
        bar.setValue(bar.maximum())


def dropped_files(event: QDragEnterEvent | QDropEvent) -> list[str]:
    """Markdown files being dragged: dropping them opens them instead of inserting their path."""
    mime = event.mimeData()
    return markdown_paths(mime.urls()) if mime.hasUrls() else []


def range_selection(
    edit: QPlainTextEdit | QTextEdit, start: int, end: int
) -> list[QTextEdit.ExtraSelection]:
    """A full-width tint of the characters from ``start`` to ``end`` (none when empty)."""
    if end <= start:
        return []
    sel = QTextEdit.ExtraSelection()
    cursor = QTextCursor(edit.document())
    last = edit.document().characterCount() - 1
    cursor.setPosition(min(start, last))
    cursor.setPosition(min(max(end - 1, start), last), QTextCursor.MoveMode.KeepAnchor)
    sel.cursor = cursor
    sel.format.setBackground(highlight_colour(edit.palette()))
    sel.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
    return [sel]


def titled_pane(
    title: QLabel, body: QWidget, corner: QWidget | None = None
) -> tuple[QWidget, QVBoxLayout]:
    """A pane: a small header line (title, optional button on the right) above the body."""
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(2)
    head = QWidget()
    head.setFixedHeight(max(28, title.sizeHint().height() + 8))
    header = QHBoxLayout(head)
    header.setContentsMargins(6, 0, 2, 0)
    font = title.font()
    font.setBold(True)
    title.setFont(font)
    header.addWidget(title, 1)
    if corner is not None:
        corner.setMaximumHeight(head.height() - 2)
        header.addWidget(corner)
    layout.addWidget(head)
    layout.addWidget(body, 1)
    return box, layout
