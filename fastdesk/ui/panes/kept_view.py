"""The rendered view kept where its reader is while a render step edits it: the block at the
view's top stays in place, the viewport's pixels stay as they are when only blocks above the
view changed, and Qt's repaints go once, from the first block edited down.

Apart from fastdesk.ui.panes.preview, which edits the blocks and tells this which."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QTextEdit

from fastdesk.ui.panes.extents import extent
from fastdesk.ui.panes.repaint import HeldRepaints
from fastdesk.ui.panes.run_starts import RunStarts, index_after_removal


class KeptView:
    """What a step did that the view follows: the blocks it edited and whether it inserted or
    removed any, the block at the view's top (the anchor) and how far into it the view was.

    The pane is handed to each call rather than held: a plain object holding the pane it
    belongs to makes a cycle with it (see HeldRepaints)."""

    def __init__(self, edit: QTextEdit, runs: RunStarts) -> None:
        self._runs = runs
        self._repaints = HeldRepaints(edit)
        self._edited_from: int | None = None  # the first block the current step edited
        self._edited_last: int | None = None  # and the last
        self._restructured = False  # the current step inserted or removed blocks
        self._anchor: int | None = None  # the block at the top of the view while a step edits
        self._anchor_offset = 0.0
        self.still = False  # the view moves with what it shows: its pixels stay as they are
        self._kept: tuple[int, int, float] | None = None  # anchor, scroll value, offset
        self.stale = False  # the viewport's pixels kept still are off by a fraction of a pixel

    def clear(self) -> None:
        """No blocks: no anchor."""
        self._anchor = None

    def begin(self, edit: QTextEdit, top: int, *, any_shown: bool) -> None:
        """Remember which block is at the top of the view and how far into it; hold Qt's
        repaints (see HeldRepaints)."""
        self._repaints.hold()
        self._edited_from = self._edited_last = None
        self._restructured = False
        self._anchor = None
        bar = edit.verticalScrollBar()
        if any_shown and bar.value() > 0:
            self._anchor = top
            kept = self._kept
            if kept is not None and kept[:2] == (top, bar.value()):
                self._anchor_offset = kept[2]  # (see end)
            else:
                self._anchor_offset = bar.value() - extent(edit.document(), self._runs, top)[0]

    def edited(self, index: int) -> None:
        first, last = self._edited_from, self._edited_last
        self._edited_from = index if first is None else min(first, index)
        self._edited_last = index if last is None else max(last, index)

    def inserted(self, index: int) -> None:
        """A block was put in at `index` (the anchor moves down with the blocks below it)."""
        self._restructured = True
        if self._anchor is not None and index <= self._anchor:
            self._anchor += 1

    def appended(self, index: int) -> None:
        """Blocks were put in at the end, from `index` on."""
        self._restructured = True
        self.edited(index)

    def removed(self, index: int) -> None:
        self._restructured = True
        self.edited(index)
        self._anchor = index_after_removal(self._anchor, index)

    def end(self, edit: QTextEdit, unfinished: Callable[[], bool]) -> None:
        """The view back on its anchor, where the reader had it; the repaints held sent, or
        none when the view's pixels stayed as they were. `unfinished`: stand-ins are left."""
        if self._anchor is not None:
            bar = edit.verticalScrollBar()
            value = round(
                extent(edit.document(), self._runs, self._anchor)[0] + self._anchor_offset
            )
            last = self._edited_last
            # Only blocks above the view changed (the stand-ins above the reader's place): the
            # view follows what it shows down or up the document, and what it shows is as it
            # was. Qt would move the viewport's pixels by the scroll and then repaint it all:
            # while 3,500 stand-ins above the reader rendered, a full repaint every slice.
            self.still = not self._restructured and last is not None and last < self._anchor
            try:
                bar.setValue(value)
            finally:
                still, self.still = self.still, False
            # The scroll is whole pixels, the block's top not: the offset the reader had is kept
            # for the next step, or the view would creep by up to half a pixel a step.
            self._kept = (self._anchor, bar.value(), self._anchor_offset)
            if still and bar.value() == value:
                self._repaints.drop()
                self.stale = True
                if not unfinished():  # the last of them: the pixels made exact
                    self.refresh(edit)
                return
            if self.stale:
                self.refresh(edit)
        first = self._edited_from
        if first and first <= self._runs.count:  # the block above the first edit stayed
            doc = edit.document()
            above = doc.findBlock(self._runs.stop(first - 1) - 1)
            self._repaints.release(doc.documentLayout().blockBoundingRect(above).bottom())
        else:
            self._repaints.release(0.0)

    def refresh(self, edit: QTextEdit) -> None:
        """Repaint the whole view: its pixels, kept still while blocks above it rendered, are
        up to half a pixel off where the text now lies (the scroll moves by whole pixels)."""
        self.stale = False
        edit.viewport().update()
