"""How a block's run of paragraphs lies in the rendered view's document: the formats it starts
from, its tidy-up after Qt's insertHtml, the group frames and their glue.

Apart from fastdesk.ui.panes.preview, which decides what goes where; these only say how."""

from __future__ import annotations

from PySide6.QtGui import (
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFrameFormat,
)

from fastdesk.ui.panes.run_starts import RunStarts

# HTML inserted into a paragraph merges its first paragraph into that one, which keeps its own
# format: a heading would lose its margins, code its background, a quote its indent. So a
# throwaway first paragraph goes in front and is removed afterwards (see tidy).
LEAD = "<p>\u200b</p>"
KEEP = QTextCursor.MoveMode.KeepAnchor
PLAIN_BLOCK = QTextBlockFormat()
BLOCK_GAP = 14  # pixels between two blocks at least
PLAIN_CHAR = QTextCharFormat()


def tidy(doc: QTextDocument, start: int, close: int) -> int:
    """Remove the throwaway first paragraph of a block's run (``start``: its first position,
    ``close``: its closing paragraph break) and the empty one Qt leaves after a code block, and
    leave BLOCK_GAP below the last paragraph. Returns the change in the run's length.

    The first paragraph is the lead's one character; next to a table a paragraph cannot go, so
    there it is emptied and collapsed instead. Positions and characters are read rather than
    blocks walked: each Qt call made from here may wait for the GIL while the engine streams.
    """
    cursor = QTextCursor(doc)
    cursor.setPosition(start)
    if start + 2 <= close and doc.characterAt(start + 1) == BREAK:  # a paragraph follows
        cursor.setPosition(start + 2, KEEP)
    else:  # a table follows, or nothing
        cursor.setPosition(start + 1, KEEP)
        cursor.setBlockFormat(COLLAPSED)
    removed = cursor.selectionEnd() - cursor.selectionStart()
    cursor.removeSelectedText()
    close -= removed
    before = doc.characterAt(close - 1) if close - 1 >= start else ""
    if before == BREAK:  # an empty last paragraph after another one: merge it away
        cursor.setPosition(close - 1)
        cursor.setPosition(close, KEEP)
        cursor.removeSelectedText()
        removed += 1
        close -= 1
    elif before == TABLE_END:  # an empty last paragraph after a table: collapse it
        cursor.setPosition(close)
        cursor.setBlockFormat(COLLAPSED)
    # Qt drops the bottom margin of code blocks and generated text: the next block would touch
    cursor.setPosition(close)
    if cursor.blockFormat().bottomMargin() < BLOCK_GAP:
        cursor.mergeBlockFormat(GAP_BELOW)
    return -removed


# what QTextDocument.toPlainText makes of its separators and no-break spaces
PLAIN_TEXT = str.maketrans("\ufdd0\ufdd1\u2029\u2028\u00a0", "\n\n\n\n ")
BREAK = "\u2029"  # QTextDocument's paragraph separator
TABLE_END = "\ufdd1"  # QTextEndOfFrame
FIXED = QTextBlockFormat.LineHeightTypes.FixedHeight.value
# An empty structural paragraph (beside a table) that takes no visible room.
COLLAPSED = QTextBlockFormat()
COLLAPSED.setTopMargin(0)
COLLAPSED.setBottomMargin(0)
COLLAPSED.setLineHeight(1, FIXED)
GAP_BELOW = QTextBlockFormat()
GAP_BELOW.setBottomMargin(BLOCK_GAP)
MARGIN = 12  # pixels around the text
# A group's frame spans the viewport's width, its margins inset the text: a hit test left of
# a frame (cursorForPosition at x = 0, as the scroll code asks) would give the frame's start.
GROUP_FRAME = QTextFrameFormat()
GROUP_FRAME.setMargin(0)
GROUP_FRAME.setLeftMargin(MARGIN)
GROUP_FRAME.setRightMargin(MARGIN)
GROUP_FRAME.setPadding(0)
GROUP_FRAME.setBorder(0)


def fit_block(cursor: QTextCursor, height: float) -> None:
    """The cursor's (glue) block takes `height` pixels and no margins; untouched when it does
    already (a format change lays the block out again)."""
    fmt = cursor.blockFormat()
    if (
        fmt.lineHeightType() == FIXED
        and fmt.lineHeight() == height
        and not (fmt.topMargin() or fmt.bottomMargin())
    ):
        return
    glue = QTextBlockFormat()
    glue.setTopMargin(0)
    glue.setBottomMargin(0)
    glue.setLineHeight(height, FIXED)
    cursor.setBlockFormat(glue)


def new_group(cursor: QTextCursor, runs: RunStarts) -> QTextCursor:
    """A new group frame after the last block, its start marker where the final root block was:
    a cursor in its first paragraph."""
    cursor.setPosition(runs.starts[runs.count])
    fit_block(cursor, MARGIN)  # (the final root block after the frame copies it)
    cursor = cursor.insertFrame(GROUP_FRAME).firstCursorPosition()
    runs.open_group()
    return cursor


def fit_glue_around(doc: QTextDocument, runs: RunStarts, index: int) -> None:
    """Block `index` may be its group's first or last: the root blocks before and after the
    group take the room they should (margins at a frame's edge change with its runs)."""
    runs.catch_up(index + 2)
    group = runs.group_of(index)
    if index == runs.firsts[group]:
        fit_glue(doc, runs.starts[index] - 1, between=group > 0)
    if runs.last_in_group(index):
        last = index + 1 >= runs.count
        fit_glue(doc, runs.starts[index + 1] - (0 if last else 1), between=not last)


def fit_glue(doc: QTextDocument, position: int, *, between: bool) -> None:
    """The root block at `position`: between two groups as tall as the gap Qt leaves between
    two paragraphs of one frame (the larger of the margins they meet with); before the first
    group or after the last one, the document's margin."""
    height = float(MARGIN)
    if between:
        above = doc.findBlock(position - 1).blockFormat().bottomMargin()
        height = max(above, doc.findBlock(position + 1).blockFormat().topMargin())
    cursor = QTextCursor(doc)
    cursor.setPosition(position)
    fit_block(cursor, height)
