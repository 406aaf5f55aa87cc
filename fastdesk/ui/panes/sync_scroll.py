"""Side by side: scrolling one pane scrolls the other by block; the block under the cursor is
highlighted in the other pane.

Mapping goes through blocks, not pixels or line ratios: the source's top line falls in block i,
a fraction f of the way down; the target is scrolled so that its block i shows at the same
fraction. Programmatic scrolls set a guard so the other pane's scroll signal does not echo back
(ReText's syncscroll has the same shape), and the pane the user scrolled last stays the leader
when the target re-renders.
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import itertools
from collections.abc import Callable, Iterator, Sequence

from PySide6.QtCore import QObject
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QPlainTextEdit

from fastdesk.ui.bridge.segments import Segment
from fastdesk.ui.panes.preview import TargetPreview
from fastdesk.ui.panes.source_editor import SourceEditor
from fastdesk.ui.panes.target_editor import TargetEditor


def _clamp(value: int, low: int, high: int) -> int:
    return max(low, min(high, value))


def plain_lines(edit: QPlainTextEdit, starts: Sequence[int], index: int) -> tuple[int, int]:
    """First line of block `index` and of the block after it (layout lines, wraps counted)."""
    doc = edit.document()
    last = doc.characterCount() - 1
    first = doc.findBlock(_clamp(starts[index], 0, last)).firstLineNumber()
    if index + 2 < len(starts):
        after = doc.findBlock(_clamp(starts[index + 1], 0, last)).firstLineNumber()
    else:
        end = doc.lastBlock()
        after = end.firstLineNumber() + max(1, end.lineCount())
    return first, max(after, first + 1)


def plain_anchor(edit: QPlainTextEdit, starts: Sequence[int]) -> tuple[int, float] | None:
    """(block index, fraction) of the editor's top line; `starts` has one more entry than blocks."""
    if len(starts) < 2:
        return None
    value = edit.verticalScrollBar().value()
    block = edit.document().findBlockByLineNumber(value)
    index = _clamp(bisect.bisect_right(starts, block.position()) - 1, 0, len(starts) - 2)
    first, after = plain_lines(edit, starts, index)
    return index, _clamp(value - first, 0, after - first) / (after - first)


def plain_scroll(edit: QPlainTextEdit, starts: Sequence[int], index: int, fraction: float) -> None:
    if len(starts) < 2:
        return
    index = _clamp(index, 0, len(starts) - 2)
    first, after = plain_lines(edit, starts, index)
    edit.verticalScrollBar().setValue(round(first + fraction * (after - first)))


def _preview_span(preview: TargetPreview, index: int) -> tuple[float, float] | None:
    """Block `index`'s span for scrolling: the first block starts at the very top (above it is
    only the document's margin), so a source at its top leaves the target at its top too."""
    span = preview.block_span(index)
    return (0.0, span[1]) if span is not None and index == 0 else span


def preview_anchor(preview: TargetPreview) -> tuple[int, float] | None:
    if not preview.block_count:
        return None
    index = preview.top_index()
    span = _preview_span(preview, index)
    if span is None:
        return None
    top, bottom = span
    value = preview.verticalScrollBar().value()
    return index, min(1.0, max(0.0, (value - top) / max(1.0, bottom - top)))


def preview_scroll(preview: TargetPreview, index: int, fraction: float) -> None:
    if not preview.block_count:
        return
    span = _preview_span(preview, _clamp(index, 0, preview.block_count - 1))
    if span is not None:
        top, bottom = span
        preview.verticalScrollBar().setValue(round(top + fraction * (bottom - top)))


class SyncScroller(QObject):
    """Keeps the source and the visible target pane aligned by block."""

    def __init__(
        self,
        source: SourceEditor,
        editor: TargetEditor,
        preview: TargetPreview,
        target_shown: Callable[[], TargetEditor | TargetPreview],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.source, self.editor, self.preview = source, editor, preview
        self._target_shown = target_shown
        self.enabled = True
        self._starts: list[int] = [0]
        self._guard = False
        self._leader: SourceEditor | TargetEditor | TargetPreview = source
        self._source_index: int | None = None
        self._target_index: int | None = None
        # Target panes whose view moved while they applied streamed edits: handled once after
        # the slice (target_rendered) instead of after each edit, mid-slice. (Their cursor
        # signals are held back during a slice: see Incremental.cursor_moved.)
        self._scrolled: set[int] = set()
        source.verticalScrollBar().valueChanged.connect(self._from_source)
        editor.verticalScrollBar().valueChanged.connect(lambda _v: self._from_target(editor))
        preview.verticalScrollBar().valueChanged.connect(lambda _v: self._from_target(preview))
        source.cursorPositionChanged.connect(self._source_cursor)
        for pane in (editor, preview):
            placed = functools.partial(self._target_cursor_placed, pane)
            pane.cursorPositionChanged.connect(placed)
            pane.entered.connect(placed)

    # ---- inputs ------------------------------------------------------------------------------

    def set_source_blocks(self, blocks: Sequence[Segment]) -> None:
        self._starts = [0, *itertools.accumulate(b.qlen for b in blocks)]
        self._source_index = None
        self._target_index = None  # the same index may now stand for another source range
        self._source_cursor()

    def source_block_index(self, position: int) -> int | None:
        if len(self._starts) < 2:
            return None
        return _clamp(bisect.bisect_right(self._starts, position) - 1, 0, len(self._starts) - 2)

    def target_rendered(self) -> None:
        """The target changed: keep it aligned with the source if the source leads; if the
        target leads and kept its reader's place, the source follows it."""
        scrolled, self._scrolled = self._scrolled, set()
        if self._leader is self.source:
            # The target only makes up for blocks that grew above the reader's place: a scroll
            # of the stream's, not the reader's (the review margin then repaints with the next
            # render, not once more now).
            target = self._target_shown()
            target.editing = True
            try:
                self._from_source()
            finally:
                target.editing = False
        elif (
            isinstance(self._leader, TargetEditor | TargetPreview) and id(self._leader) in scrolled
        ):
            self._from_target(self._leader)
        self._source_cursor()
        for pane in (self.editor, self.preview):
            if pane.cursor_moved:
                pane.cursor_moved = False
                if pane.cursor_placed:
                    self._target_cursor(pane)

    # ---- scrolling ---------------------------------------------------------------------------

    @contextlib.contextmanager
    def _guarded(self) -> Iterator[None]:
        self._guard = True
        try:
            yield
        finally:
            self._guard = False

    def _from_source(self, *_args: object) -> None:
        if self._guard or not self.enabled:
            return
        self._leader = self.source
        bar = self.source.verticalScrollBar()
        target = self._target_shown()
        with self._guarded():
            at_end = bar.maximum() > 0 and bar.value() >= bar.maximum()
            anchor = plain_anchor(self.source, self._starts)
            if target.filling and (at_end or anchor is None or anchor[0] >= len(target.shown)):
                # The reader's block is not in the target yet: chasing its growing end would
                # repaint the view for every slice of the fill (its edits below the view paint
                # nothing); it goes to the reader's place once the block is there.
                return
            if at_end:
                target.verticalScrollBar().setValue(target.verticalScrollBar().maximum())
                return
            if anchor is None:
                return
            if target is self.preview:
                preview_scroll(self.preview, *anchor)
            else:
                plain_scroll(self.editor, self.editor.starts(), *anchor)

    def _from_target(self, pane: TargetEditor | TargetPreview) -> None:
        if self._guard:  # our own scroll (also the catch-up in target_rendered)
            return
        if pane.editing:  # the stream moved it: see target_rendered
            self._scrolled.add(id(pane))
            return
        if not self.enabled or pane is not self._target_shown() or pane.filling:
            return  # (filling: Qt moved a view that ends early; the source pulled to its end)
        self._leader = pane
        bar = pane.verticalScrollBar()
        with self._guarded():
            if bar.maximum() > 0 and bar.value() >= bar.maximum():
                src = self.source.verticalScrollBar()
                src.setValue(src.maximum())
                return
            self._source_to(pane)

    def _source_to(self, pane: TargetEditor | TargetPreview) -> None:
        """Scroll the source to where ``pane`` is, block for block."""
        if pane is self.preview:
            anchor = preview_anchor(self.preview)
        else:
            anchor = plain_anchor(self.editor, self.editor.starts())
        if anchor is not None:
            plain_scroll(self.source, self._starts, *anchor)

    def place(self, pane: TargetEditor | TargetPreview, index: int, y: int) -> None:
        """The reader switched target views with the cursor in block ``index``, ``y`` pixels
        down the view: the new pane's cursor goes to that block, the block shows as far down
        the view as before, and the source follows (the pane leads)."""
        if not 0 <= index < len(pane.shown):
            return
        start = pane.block_start(index) if pane is self.preview else self.editor.starts()[index]
        cursor = pane.textCursor()
        cursor.setPosition(start)
        pane.setTextCursor(cursor)
        pane.ensureCursorVisible()
        bar = pane.verticalScrollBar()
        shift = pane.cursorRect().top() - y
        if pane is self.editor:  # (a plain text edit scrolls by lines)
            shift = round(shift / max(1, pane.fontMetrics().lineSpacing()))
        bar.setValue(bar.value() + shift)
        if self.enabled:
            self._leader = pane
            with self._guarded():
                self._source_to(pane)
            if index + 1 < len(self._starts):  # the block itself on screen in the source too
                source = QTextCursor(self.source.document())
                source.setPosition(self._starts[index])
                rect = self.source.cursorRect(source)
                if not 0 <= rect.top() < self.source.viewport().height():
                    with self._guarded():
                        self.source.verticalScrollBar().setValue(
                            self.source.document().findBlock(self._starts[index]).firstLineNumber()
                        )

    # ---- highlighting the block under the cursor -----------------------------------------------

    def _source_cursor(self) -> None:
        index = self.source_block_index(self.source.textCursor().position())
        if index == self._source_index:
            return
        self._source_index = index
        self.editor.show_block(index)
        self.preview.show_block(index)

    def _target_cursor_placed(self, pane: TargetEditor | TargetPreview) -> None:
        """The pane's cursor moved (its own edits hold that signal back, so the reader moved it)
        or the reader came into the pane: from now on its cursor is the reader's."""
        pane.cursor_placed = True
        self._target_cursor(pane)

    def _target_cursor(self, pane: TargetEditor | TargetPreview) -> None:
        index = pane.index_at(pane.textCursor().position()) if pane.shown else None
        if index == self._target_index:
            return
        self._target_index = index
        if index is None or index + 1 >= len(self._starts):
            self.source.setExtraSelections([])
        else:
            self.source.show_block(self._starts[index], self._starts[index + 1])
