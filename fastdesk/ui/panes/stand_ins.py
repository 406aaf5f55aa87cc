"""A long first fill's stand-ins in the rendered view: each block's Markdown as plain paragraphs,
greyed, put in a group at a time many times faster than its HTML, and rendered afterwards
(figures: docs/performance.md, "A long first fill as stand-ins").

Apart from fastdesk.ui.panes.preview, which decides when they go in and renders them."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtGui import QColor, QPalette, QTextCharFormat, QTextCursor, QTextDocument

from fastdesk.ui.panes import render
from fastdesk.ui.panes.common import is_dark
from fastdesk.ui.panes.run_starts import RunStarts
from fastdesk.ui.panes.runs import KEEP, PLAIN_BLOCK, fit_glue_around, new_group


def stand_in(markdown: str) -> str:
    """A block's Markdown as the plain paragraphs of its stand-in: one position per character,
    as ``qt_len`` counts them (Qt's insertText would take a carriage return and line feed as one
    paragraph break)."""
    return markdown.strip("\n").replace("\r", " ")


def stand_in_format(palette: QPalette) -> QTextCharFormat:
    """The stand-ins' text: in the palette's muted colour."""
    fmt = QTextCharFormat()
    colours = render.DARK if is_dark(palette) else render.LIGHT
    fmt.setForeground(QColor(colours["muted"]))
    return fmt


def append_stand_ins(
    doc: QTextDocument, runs: RunStarts, texts: Sequence[str], fmt: QTextCharFormat
) -> None:
    """Stand-ins with these texts (see ``stand_in``) after the last block: in the last group
    while it has room (for no more than ``RunStarts.room``), else in a new group frame."""
    count = runs.count
    cursor = QTextCursor(doc)
    cursor.beginEditBlock()
    if runs.last_has_room():  # after the last group's last paragraph (its end marker moves on)
        cursor.setPosition(runs.starts[count] - 1)
        lead = "\n"
    else:  # in a new group, whose start marker is where the final root block was
        cursor = new_group(cursor, runs)
        lead = ""
    # each block's paragraphs, then an empty one as the gap below it
    cursor.insertText(lead + "".join(f"{t}\n\n" for t in texts)[:-1], fmt)
    base = runs.starts[count]
    runs.append([render.qt_len(t) + 2 for t in texts])
    cursor.setPosition(base)
    cursor.setPosition(runs.starts[-1] - 1, KEEP)
    cursor.setBlockFormat(PLAIN_BLOCK)
    cursor.setBlockCharFormat(fmt)
    fit_glue_around(doc, runs, count)
    fit_glue_around(doc, runs, runs.count - 1)
    cursor.endEditBlock()
