"""Side by side: scrolling one pane scrolls the other by block; the block under the cursor is
highlighted in the other pane.

Mapping goes through blocks, not pixels or line ratios: the source's top line falls in block i,
a fraction f of the way down; the target is scrolled so that its block i shows at the same
fraction. Programmatic scrolls set a guard so the other pane's scroll signal does not echo back
(ReText's syncscroll has the same shape), and the pane the user scrolled last stays the leader
when the target re-renders.

When a pane wraps anew at another width, the leader's place (block, fraction) read before Qt
lays it out is put back after, and the other pane aligned to it: Qt on its own keeps pixels or
line numbers, not blocks (common.RewrapSignals), and its scroll signals meanwhile are not the
reader's.
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

from fastdesk.ui.panes.preview import TargetPreview
from fastdesk.ui.panes.render import Segment
from fastdesk.ui.panes.source_editor import SourceEditor
from fastdesk.ui.panes.target_editor import TargetEditor


def _clamp(value: int, low: int, high: int) -> int:
    return max(low, min(high, value))


def plain_lines(edit: QPlainTextEdit, starts: Sequence[int], index: int) -> tuple[int, int]:
    """First line of block `index` and of the block after it (layout lines, wraps counted).

    Its text blocks are laid out first: a plain text edit lays out lazily (after a width change
    each text block counts one line until drawn), and a block half above the view had as many
    lines as text blocks. (Laying out lines above the top one moves the scroll bar's value to
    the top line's new number: read it after this.)"""
    doc = edit.document()
    last = doc.characterCount() - 1
    layout = doc.documentLayout()
    block = top = doc.findBlock(_clamp(starts[index], 0, last))
    stop = starts[index + 1] if index + 1 < len(starts) else last + 1
    while block.isValid() and block.position() < stop:
        layout.blockBoundingRect(block)  # (lays the block out, if it is not)
        block = block.next()
    first = top.firstLineNumber()
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
    bar = edit.verticalScrollBar()
    block = edit.document().findBlockByLineNumber(bar.value())
    index = _clamp(bisect.bisect_right(starts, block.position()) - 1, 0, len(starts) - 2)
    first, after = plain_lines(edit, starts, index)
    return index, _clamp(bar.value() - first, 0, after - first) / (after - first)


def plain_top(edit: QPlainTextEdit) -> tuple[int, int]:
    """Where the view is: the text block at its top and which of its lines, whatever number Qt
    gives the top line (see plain_lines)."""
    block = edit.firstVisibleBlock()
    return block.blockNumber(), edit.verticalScrollBar().value() - block.firstLineNumber()


def plain_scroll(edit: QPlainTextEdit, starts: Sequence[int], index: int, fraction: float) -> None:
    if len(starts) < 2:
        return
    index = _clamp(index, 0, len(starts) - 2)
    first, after = plain_lines(edit, starts, index)
    lines = after - first  # (rounded up to the block's end, the next block showed at the top)
    edit.verticalScrollBar().setValue(first + min(round(fraction * lines), lines - 1))


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


Pane = SourceEditor | TargetEditor | TargetPreview


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
        self._leader: Pane = source
        self._source_index: int | None = None
        self._target_index: int | None = None
        # Target panes whose view moved while they applied streamed edits: handled once after
        # the slice (target_rendered) instead of after each edit, mid-slice. (Their cursor
        # signals are held back during a slice: see Incremental.cursor_moved.)
        self._scrolled: set[int] = set()
        # The leader's place (block, fraction) as of the last width change, and where its view
        # was then: while it is still there, the next width change keeps that place, not one
        # read back a line's rounding off (or it would creep).
        self._kept: tuple[Pane, tuple[int, int], tuple[int, float] | None] | None = None
        self._rewrapping = 0  # panes laying their text out at a new width (one inside another)
        for pane in (source, editor, preview):
            pane.rewrapping.connect(self._hold)
            pane.rewrapped.connect(self._put_back)
        # where each plain text pane's view is (see plain_top), as of its last scroll signal
        self._tops = {id(source): plain_top(source), id(editor): plain_top(editor)}
        source.verticalScrollBar().valueChanged.connect(self._source_scrolled)
        editor.verticalScrollBar().valueChanged.connect(self._editor_scrolled)
        preview.verticalScrollBar().valueChanged.connect(lambda _v: self._from_target(preview))
        source.cursorPositionChanged.connect(self._source_cursor)
        for pane in (editor, preview):
            placed = functools.partial(self._target_cursor_placed, pane)
            pane.cursorPositionChanged.connect(placed)
            pane.entered.connect(placed)

    # ---- inputs ------------------------------------------------------------------------------

    def set_source_blocks(self, blocks: Sequence[Segment]) -> None:
        self._starts = [0, *itertools.accumulate(b.qlen for b in blocks)]
        self._kept = None
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
        guard, self._guard = self._guard, True
        try:
            yield
        finally:
            self._guard = guard  # (a scroll may resize a pane: a scroll bar comes or goes)

    def _hold(self) -> None:
        """A pane is about to lay its text out at a new width: the leader's place is read now,
        before; until the pane is done, the scroll signals are Qt's, not the reader's."""
        self._rewrapping += 1
        if self._rewrapping > 1 or not self.enabled:
            return
        leader = self._leader
        if leader is not self.source and leader is not self._target_shown():
            leader = self.source  # (a target view the reader switched away from)
        kept = self._kept
        if kept is None or kept[0] is not leader or kept[1] != self._view(leader):
            place = self._anchor(leader)  # (may lay lines out: where it is, is read after)
            self._kept = (leader, self._view(leader), place)

    def _put_back(self) -> None:
        """The pane is laid out at its new width: the leader goes back to its place, by block,
        and the other pane follows it. (In a resize of the window each pane is laid out in
        turn: the other one, not laid out yet, is aligned again after its own.)"""
        self._rewrapping -= 1
        if self._rewrapping or self._kept is None or not self.enabled:
            return
        leader, _, place = self._kept
        if place is None:
            return
        with self._guarded():
            self._scroll(leader, *place)
        self._kept = (leader, self._view(leader), place)
        if isinstance(leader, SourceEditor):
            self._from_source()
        else:
            self._leader = leader
            with self._guarded():
                self._source_to(leader)

    def _view(self, pane: Pane) -> tuple[int, int]:
        """Where the pane's view is, the same as long as it does not scroll (see plain_top)."""
        if isinstance(pane, TargetPreview):
            return 0, pane.verticalScrollBar().value()
        return plain_top(pane)

    def _anchor(self, pane: Pane) -> tuple[int, float] | None:
        """(block index, fraction) of the pane's top."""
        if isinstance(pane, TargetPreview):
            return preview_anchor(pane)
        return plain_anchor(pane, self._starts if pane is self.source else self.editor.starts())

    def _scroll(self, pane: Pane, index: int, fraction: float) -> None:
        """Scroll the pane to show block ``index`` at ``fraction`` at its top."""
        if isinstance(pane, TargetPreview):
            preview_scroll(pane, index, fraction)
        else:
            starts = self._starts if pane is self.source else self.editor.starts()
            plain_scroll(pane, starts, index, fraction)

    def _moved(self, edit: SourceEditor | TargetEditor) -> bool:
        """The plain text pane's scroll value changed, and its view with it: Qt also gives the
        top line a new number when lines above it are laid out (plain_lines), and that was no
        scroll of the reader's: taken for one, the pane took the lead and pulled the other."""
        top = plain_top(edit)
        moved, self._tops[id(edit)] = top != self._tops[id(edit)], top
        return moved

    def _source_scrolled(self) -> None:
        if self._moved(self.source):
            self._from_source()

    def _editor_scrolled(self) -> None:
        if self._moved(self.editor):
            self._from_target(self.editor)

    def _from_source(self) -> None:
        if self._guard or self._rewrapping or not self.enabled:
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
            if anchor is not None:
                self._scroll(target, *anchor)

    def _from_target(self, pane: TargetEditor | TargetPreview) -> None:
        if self._guard or self._rewrapping:  # our own scroll (also the catch-up in
            return  # target_rendered), or Qt's while a pane wraps anew
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
        anchor = self._anchor(pane)
        if anchor is not None:
            self._scroll(self.source, *anchor)

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
