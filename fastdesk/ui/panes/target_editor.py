"""The raw target pane: the translated Markdown, where the reviewer corrects it.

Its own (programmatic) edits run under a guard, so only what the user typed comes out of
``user_edited``; the window attributes it to blocks (fastdesk.review.model.diff_target_edit) and
hands the result back with ``take_user_edit`` so that the shown segments match the document again.
"""

from __future__ import annotations

import bisect
import contextlib
import itertools
import math
import time
from collections.abc import Iterator, Sequence

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import (
    QDragEnterEvent,
    QDragMoveEvent,
    QDropEvent,
    QKeyEvent,
    QKeySequence,
    QTextCursor,
)
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit, QWidget

from fastdesk.document.target import TargetView
from fastdesk.document.text_ends import common_prefix, common_suffix
from fastdesk.ui.panes import render
from fastdesk.ui.panes.common import (
    TargetPaneSignals,
    dropped_files,
    end_in_view,
    fixed_font,
    flat_scroll_bars,
    range_selection,
)
from fastdesk.ui.panes.incremental import Extent, Incremental
from fastdesk.ui.panes.render import Segment

RUN = 64  # blocks a first fill puts in with one edit, while the slice has time left
ABOVE = 4  # pixels: the margin draws a block that starts above the view from above its top edge


class TargetEditor(TargetPaneSignals, QPlainTextEdit, Incremental):
    """The raw translated Markdown, where the reviewer corrects it. Updated block by block; the
    view never jumps. ``user_edited(position, removed, added)`` (UTF-16 units) reports edits the
    user made, never the pane's own."""

    user_edited = Signal(int, int, int)
    undo_requested = Signal()  # Ctrl+Z: the editor's steps (fastdesk.ui.review.undo), not Qt's
    redo_requested = Signal()
    # The user's edit of many blocks at once (Replace All), already attributed to blocks:
    # (step name, [(block id, new text)]); the review takes it as one step, the pane follows.
    blocks_edited = Signal(str, list)

    def __init__(self, parent: QWidget | None = None) -> None:
        QPlainTextEdit.__init__(self, parent)
        Incremental.__init__(self)
        self.setObjectName("targetEditor")
        self.setFont(fixed_font())
        # No undo stack of Qt's: it would interleave the stream's edits with the user's, and
        # undoing would then rewrite machine text. Ctrl+Z asks for the editor's own steps.
        self.setUndoRedoEnabled(False)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setReadOnly(False)
        self._starts: list[int] = [0]
        # _starts are the shown blocks' starts: kept so by a step's edits (not in bulk), and
        # worked out again after anything else changed the text (see starts)
        self._starts_true = True
        self._anchor = 0
        self._anchor_lines = 0
        self._at_top = True
        self._applying = False
        self._in_bulk = False
        self._highlight: list[QTextEdit.ExtraSelection] = []  # the block under the cursor's
        self._marks: list[QTextEdit.ExtraSelection] = []  # the reviewer model's errors
        self.document().contentsChange.connect(self._contents_change)
        flat_scroll_bars(self)
        self.viewport()  # PySide wraps the first viewport of a process lazily (~9 ms): now

    def step(self, deadline: float, *, finish: bool = True) -> bool:
        self._applying = True  # our edits are not the user's
        try:
            return Incremental.step(self, deadline, finish=finish)
        finally:
            self._applying = False

    def _contents_change(self, position: int, removed: int, added: int) -> None:
        if not self._applying and (removed or added):
            self._starts_true = False
            self.user_edited.emit(position, removed, added)

    def starts(self) -> list[int]:
        """The shown blocks' starts, plus the end: kept between steps rather than summed again
        each time (a long fill's steps, its sync scroll and its margin each asked, ~0.5 ms at
        4,000 blocks, with the GIL the engine needs; docs/performance.md)."""
        if not self._starts_true or len(self._starts) != len(self.shown) + 1:
            self._starts = Incremental.starts(self)
            self._starts_true = True
        return self._starts

    def edit_blocks(self, label: str, changes: list[tuple[str, str]]) -> None:
        """The user replaced text in these blocks (block id, new text): one step named
        ``label`` for the review (``blocks_edited``), then the pane shows it at once."""
        if changes:
            with self.all_at_once():
                self.blocks_edited.emit(label, changes)
                self.step(math.inf)

    @contextlib.contextmanager
    def all_at_once(self) -> Iterator[None]:
        """Steps taken inside (the user's own edits and their undo) apply every edit at once."""
        was, self.at_once = self.at_once, True
        try:
            yield
        finally:
            self.at_once = was

    @contextlib.contextmanager
    def _bulk(self) -> Iterator[None]:
        """Every edit at once, from the end up (no block's start moves), each block's changed
        part only: the text cursor stays where it was (a block rewritten whole would carry a
        cursor at its start along to the end of the document) and Qt lays out and highlights
        the changed lines alone. (One edit block was slower: at its end Qt highlights every
        line from the first change to the last again.)"""
        self._in_bulk = True
        try:
            yield
        finally:
            self._in_bulk = False
            self._starts_true = False  # (its edits moved no start: those after them are off)

    def event(self, event: QEvent) -> bool:
        if (
            event.type() == QEvent.Type.ShortcutOverride
            and isinstance(event, QKeyEvent)
            and _history_key(event) is not None
        ):
            event.accept()  # ours, not the window's Edit → Undo (it would undo the source)
            return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = _history_key(event)
        if key == "undo":
            self.undo_requested.emit()
        elif key == "redo":
            self.redo_requested.emit()
        else:
            super().keyPressEvent(event)
            end_in_view(self, event)

    # A Markdown file dropped here opens (the window takes it), not its path typed in.
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if dropped_files(event):
            event.ignore()
        else:
            super().dragEnterEvent(event)

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        if dropped_files(event):
            event.ignore()
        else:
            super().dragMoveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        if dropped_files(event):
            event.ignore()
        else:
            super().dropEvent(event)

    def shown_view(self) -> TargetView:
        """What the pane showed before the user's edit, as a TargetView (Python indices)."""
        spans = []
        pos = 0
        for seg in self.shown:
            spans.append((seg.key, pos, pos + len(seg.text)))
            pos += len(seg.text)
        return TargetView(render.join(self.shown), tuple(spans), frozenset())

    def take_user_edit(self, view: TargetView, changes: Sequence[tuple[str, str]]) -> None:
        """The user's edit, attributed to blocks (``diff_target_edit(view, …)``): the shown
        segments follow it, so the next update diffs against what is really on screen."""
        if not changes:
            return
        first = next(i for i, (key, _s, _e) in enumerate(view.spans) if key == changes[0][0])
        self.shown[first : first + len(changes)] = [render.segment(k, t) for k, t in changes]
        self._starts_true = False

    def undo_user_edit(self) -> None:
        """An edit no block can take (the pane showed nothing): show what it showed."""
        self._applying = True
        try:
            self.setPlainText(render.join(self.shown))
        finally:
            self._applying = False
            self._starts_true = False

    def visible_blocks(self) -> list[Extent]:
        """Blocks on screen with their extent (trailing blank lines left out), for the margin.

        Called from the margin's paint: it lays out no line above the top one. A plain text
        edit lays its lines out lazily (after a width change, each counts as one line until
        drawn); laying out the lines of a block (a fenced code block) that starts above the
        view moved the scroll bar to the top line's new number, and the source with it, in
        the middle of the window's paint: the source's pixels were scrolled under a paint
        already made, and a code block was drawn twice until the next full repaint (issue 30).
        """
        if not self.shown:
            return []
        starts = self.starts()
        doc = self.document()
        last = doc.characterCount() - 1
        offset = self.contentOffset()
        height = self.viewport().height()
        top_block = self.firstVisibleBlock()
        index = max(0, bisect.bisect_right(starts, top_block.position()) - 1)
        out: list[Extent] = []
        for i in range(index, len(self.shown)):
            seg = self.shown[i]
            body = seg.qlen - (len(seg.text) - len(seg.text.rstrip("\n")))
            if body <= 0:
                continue
            first = doc.findBlock(min(starts[i], last))
            final = doc.findBlock(min(starts[i] + body - 1, last))
            if first.blockNumber() < top_block.blockNumber():  # it starts above the view
                top = self.blockBoundingGeometry(top_block).translated(offset).top() - ABOVE
            else:
                top = self.blockBoundingGeometry(first).translated(offset).top()
            if top > height:
                break
            bottom = self.blockBoundingGeometry(final).translated(offset).bottom()
            out.append((seg.key, round(top), round(bottom)))
        return out

    # Incremental hooks: positions come from the shown segments, kept in step with each edit.
    def _begin(self, top: int) -> None:
        self.starts()  # (true again, if it was not)
        line = self.firstVisibleBlock()  # (the anchor is a text block here, not a segment)
        self._anchor = line.position()
        self._anchor_lines = max(0, self.verticalScrollBar().value() - line.firstLineNumber())
        self._at_top = self.verticalScrollBar().value() == 0

    def _end(self) -> None:
        if self._at_top and self._anchor == 0:
            self.verticalScrollBar().setValue(0)
            return
        block = self.document().findBlock(min(self._anchor, self.document().characterCount() - 1))
        lines = min(self._anchor_lines, max(0, block.lineCount() - 1))
        self.verticalScrollBar().setValue(block.firstLineNumber() + lines)

    def _edit(self, index: int, old_len: int, text: str, new_len: int, offset: int = 0) -> None:
        """Replace ``old_len`` units ``offset`` into block ``index`` by ``text``."""
        start = self._starts[index] + offset
        cursor = QTextCursor(self.document())
        cursor.setPosition(start)
        cursor.setPosition(start + old_len, QTextCursor.MoveMode.KeepAnchor)
        if text:
            cursor.insertText(text)
        else:
            cursor.removeSelectedText()
        delta = new_len - old_len
        if start + old_len <= self._anchor and start < self._anchor:
            self._anchor += delta
        elif start < self._anchor < start + old_len:
            self._anchor = start
        if not self._in_bulk:  # (in bulk the edits go from the end up: no start moves)
            self._starts[index + 1 :] = [p + delta for p in self._starts[index + 1 :]]

    def _replace(self, index: int, seg: Segment) -> None:
        old = self.shown[index]
        if self._in_bulk:  # only what changed (see _bulk)
            same_start = common_prefix(old.text, seg.text)
            limit = min(len(old.text), len(seg.text)) - same_start
            same_end = common_suffix(old.text, seg.text, limit)
            head = render.qt_len(old.text[:same_start])
            tail = render.qt_len(old.text[len(old.text) - same_end :])
            middle = seg.text[same_start : len(seg.text) - same_end]
            self._edit(index, old.qlen - head - tail, middle, seg.qlen - head - tail, head)
            return
        self._edit(index, old.qlen, seg.text, seg.qlen)

    def _insert_run(self, index: int, wanted: Sequence[Segment], start: int, stop: int) -> int:
        """Up to RUN blocks in one edit while the step has time left (a slice always makes
        progress: one block when it has none). One block an edit, a 4,000-block first fill
        took the GUI thread seconds (every edit moves every later start), and an edit typed
        into the source meanwhile made every later step's diff align a partial fill with the
        whole document by difflib (benchmarks/bench_window_fill.py: shown 17 s after its last
        key)."""
        count = min(stop - start, RUN)
        if count < 2 or time.perf_counter() >= self.deadline:
            self._insert(index, wanted[start])
            return 1
        run = wanted[start : start + count]
        at = self._starts[index]
        self._starts[index + 1 : index + 1] = [at] * count
        self._edit(index, 0, "".join(s.text for s in run), sum(s.qlen for s in run))
        self._starts[index + 1 : index + count] = [
            at + n for n in itertools.accumulate(s.qlen for s in run[:-1])
        ]
        return count

    def _insert(self, index: int, seg: Segment) -> None:
        self._starts.insert(index + 1, self._starts[index])
        self._edit(index, 0, seg.text, seg.qlen)

    def _remove(self, index: int) -> None:
        self._edit(index, self.shown[index].qlen, "", 0)
        del self._starts[index + 1]

    # mapping for sync-scroll and highlighting
    def block_range(self, index: int) -> tuple[int, int]:
        starts = self.starts()
        if not 0 <= index < len(self.shown):
            return (0, 0)
        return starts[index], starts[index + 1]

    def index_at(self, position: int) -> int:
        starts = self.starts()
        return max(0, min(len(self.shown) - 1, bisect.bisect_right(starts, position) - 1))

    def show_block(self, index: int | None) -> None:
        self._highlight = [] if index is None else range_selection(self, *self.block_range(index))
        self.setExtraSelections(self._highlight + self._marks)

    def set_marks(self, marks: list[QTextEdit.ExtraSelection]) -> None:
        """The reviewer model's errors (fastdesk.ui.panes.underlines), under the highlight."""
        self._marks = marks
        self.setExtraSelections(self._highlight + self._marks)


def _history_key(event: QKeyEvent) -> str | None:
    """ "undo" for Ctrl+Z, "redo" for Ctrl+Shift+Z (and the platform's other redo keys)."""
    if event.matches(QKeySequence.StandardKey.Undo):
        return "undo"
    ctrl_shift = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    if event.matches(QKeySequence.StandardKey.Redo) or (
        event.key() == Qt.Key.Key_Z and event.modifiers() == ctrl_shift
    ):
        return "redo"
    return None
