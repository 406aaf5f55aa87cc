"""The rendered target pane: each block's HTML as a run of paragraphs, updated block by block."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QKeyEvent, QMouseEvent, QTextCursor, QTextDocument
from PySide6.QtWidgets import QTextBrowser, QTextEdit, QWidget

from fastdesk.document.html import Context
from fastdesk.ui.panes import render
from fastdesk.ui.panes.accessible import as_document
from fastdesk.ui.panes.common import TargetPaneSignals, flat_scroll_bars, is_dark, range_selection
from fastdesk.ui.panes.decorations import Decorations
from fastdesk.ui.panes.extents import extent, visible_blocks
from fastdesk.ui.panes.images import load_image, local_image_path
from fastdesk.ui.panes.incremental import Extent, Incremental
from fastdesk.ui.panes.kept_view import KeptView
from fastdesk.ui.panes.links import follow_links_safely
from fastdesk.ui.panes.render import Segment
from fastdesk.ui.panes.run_starts import RunStarts, index_after_removal
from fastdesk.ui.panes.runs import (
    KEEP,
    LEAD,
    PLAIN_BLOCK,
    PLAIN_CHAR,
    PLAIN_TEXT,
    fit_glue_around,
    new_group,
    tidy,
)
from fastdesk.ui.panes.stand_ins import append_stand_ins, stand_in, stand_in_format


class TargetPreview(TargetPaneSignals, QTextBrowser, Incremental):
    """The rendered target: each block's HTML as a run of paragraphs, found by position.

    Blocks are kept apart by position, as in the raw editor: ``starts()[i]`` is the document
    position where block i begins, and its run ends with its closing paragraph break.

    The runs sit in child frames of the root frame, about GROUP (run_starts) blocks each (a
    "group"). Why:
    Qt lays out again the whole frame an edit is in and moves every later paragraph of it, so
    in the root frame an edit costs more the longer the document (benchmarks/bench_layout.py),
    and in a frame of GROUP blocks what it costs in a short document. A frame per block is no
    better: Qt's layout and painting walk every child frame on each edit and repaint. Groups
    keep the frames few (figures: docs/performance.md, "The rendered view in group frames").

    The layout Qt gives frames: a root block before each frame, whose only character is the
    frame's start marker (the "glue"), the frame's paragraphs, the last one closed by the
    frame's end marker, and the document's final root block after the last frame. So the last
    run of a group ends one character before the next run starts. Qt applies no margins at a
    frame's edges, so each glue block between two groups is as tall as the gap Qt would leave
    between the two runs in one frame (the larger of the margins it stands between); the first
    and the final root block are the document's margin above and below, the frames' own
    margins the one left and right (tests/ui/test_preview_groups.py holds each block's formats
    to what it gets rendered alone, and where blocks stand to where one frame puts them).

    Expansions (text the model generated for a block on request) show at the end of that
    block's run, marked as generated; they are not part of the translation and never exported.

    This class decides what goes where; its parts hold the rest: where runs and groups start
    (run_starts), how a run lies in the document and the glue between groups (runs), each
    block's expansion and context (decorations), a long first fill's stand-ins (stand_ins),
    the reader's place while a step edits (kept_view), blocks' pixels (extents).
    """

    # More blocks than this to add at the end go in as stand-ins (see _insert_run). Fewer fill
    # from the top in under ~0.55 s, the view's first; stand-ins would flash their Markdown.
    stand_ins_from = 1000

    # The pane is read-only: a double click (or Enter) on a block asks for its Markdown, to
    # correct it there; typing says where corrections go instead of scrolling (Space paged down).
    correct_requested = Signal(int)  # the block's index
    typed = Signal()

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.shown:
            at = self.cursorForPosition(event.position().toPoint()).position()
            self.correct_requested.emit(self.index_at(at))
            event.accept()
            return
        super().mouseDoubleClickEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Ctrl+End and Ctrl+Home move the cursor and the view to the document's end or start
        (with Shift, selecting): a read-only QTextBrowser left the view where it was, and moved
        its cursor only to the end or start of the group frame it was in. Enter asks to correct
        the block under the cursor; typing (Space, letters, Backspace) asks for the hint."""
        key = Qt.Key(event.key())
        plain = not event.modifiers() & ~(
            Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.KeypadModifier
        )
        if plain and key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.shown:
            self.correct_requested.emit(self.index_at(self.textCursor().position()))
            event.accept()
            return
        if plain and (key in _TYPING or (event.text() and event.text().isprintable())):
            self.typed.emit()
            event.accept()
            return
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier and key in _ENDS:
            cursor = self.textCursor()
            mode = KEEP if event.modifiers() & Qt.KeyboardModifier.ShiftModifier else _MOVE
            cursor.movePosition(_ENDS[key], mode)
            self.setTextCursor(cursor)
            bar = self.verticalScrollBar()
            bar.setValue(bar.maximum() if key == Qt.Key.Key_End else 0)
            event.accept()
            return
        super().keyPressEvent(event)

    def __init__(self, parent: QWidget | None = None) -> None:
        QTextBrowser.__init__(self, parent)
        Incremental.__init__(self)
        self.setObjectName("targetPreview")
        as_document(
            self,
            "Translation",
            "The translation as it will read. Enter or a double click: correct the block in "
            "its Markdown",
        )
        follow_links_safely(self)  # http(s) and mailto open; other schemes are shown only
        self.setUndoRedoEnabled(False)
        self._decor = Decorations()  # each block's expansion and context
        self.image_folder: Path | None = None  # the document's folder: relative images start there
        self._runs = RunStarts()  # where each block's run starts, and the groups
        self._stand_ins = bytearray()  # 1 for each block shown as its plain text for now
        self._highlighted: int | None = None
        self._highlight: list[QTextEdit.ExtraSelection] = []  # the tint of show_block
        self._marks: list[QTextEdit.ExtraSelection] = []  # the reviewer model's errors
        self._retint = False  # the tinted block's text changed: tint it again after the step
        # the block asked to be tinted that the view did not hold yet (not rendered, or cleared
        # by a palette change): tinted after the step that puts it in
        self._tint_later: int | None = None
        # PySide wraps the first viewport of a process lazily, at a cost a first render slice
        # would pay (docs/performance.md): now, while the window is built
        self.viewport()
        self._view = KeptView(self, self._runs)  # the reader's place while a step edits
        self.apply_palette()

    @property
    def expansions(self) -> dict[str, str]:
        """Text the model generated for a block on request, by block id (see set_expansion)."""
        return self._decor.expansions

    def loadResource(self, kind: int, name: QUrl | str) -> Any:
        """Images are read by :func:`load_image` (regular files of a sane size only, relative
        to the document's folder); anything else as Qt does."""
        if kind == QTextDocument.ResourceType.ImageResource.value:
            path = local_image_path(QUrl(name), self.image_folder)
            if path is not None:
                return load_image(path)
        return super().loadResource(kind, name)

    def apply_palette(self) -> None:
        """(Re)load the stylesheet for the current palette; re-render every block."""
        dark = is_dark(self.palette())
        flat_scroll_bars(self)
        self.document().setDefaultStyleSheet(render.stylesheet(dark))
        self.document().setDocumentMargin(0)  # the groups' frames and glue keep MARGIN
        self.shown.clear()
        self._runs.clear()
        self._stand_ins.clear()
        self._view.clear()
        if self._highlighted is not None:  # tinted again once it is back
            self._tint_later = self._highlighted
        self._highlighted = None
        self.clear()
        self.cursor_placed = False
        self.want(self._decor.plain)

    def want(self, segments: Sequence[Segment]) -> None:
        Incremental.want(self, self._decor.decorate(segments))

    def set_contexts(self, contexts: Mapping[str, Context]) -> None:
        """What each block needs from its document (references, list number): a block whose
        context changed renders again, though its text did not."""
        self._decor.set_contexts(contexts)
        self.want(self._decor.plain)

    def set_expansion(self, block_id: str, text: str | None) -> None:
        self._decor.set_expansion(block_id, text)
        self.want(self._decor.plain)

    def toPlainText(self) -> str:
        """The text the reader sees, as one frame of all the runs would give it: without the
        groups' glue (Qt's own would add a line break before each group and after the last)."""
        raw = self.document().toRawText()
        if not self.block_count:
            return raw.translate(PLAIN_TEXT)
        starts = self._runs.starts
        runs = "".join(raw[s : s + n] for s, n in zip(starts, self.lengths, strict=False))
        return runs[:-1].translate(PLAIN_TEXT)  # (the last run's end marker ends the text)

    def starts(self) -> list[int]:
        """Document positions where the shown blocks start, plus the end (kept current)."""
        self._runs.catch_up()  # (outside a step there is no lag: a guard)
        return self._runs.starts

    # Incremental hooks
    def _begin(self, top: int) -> None:
        self._view.begin(self, top, any_shown=bool(self.shown))

    def _end(self) -> None:
        self._runs.catch_up()
        self._view.end(self, self._unfinished)
        if self._retint:  # the tinted block was rewritten or removed (moves need nothing:
            self._retint = False  # the selection's cursors follow edits elsewhere)
            self.show_block(self._highlighted)
        later = self._tint_later
        if later is not None and later < self.block_count:
            self.show_block(later)

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        view = self._view
        if view.still:  # (see KeptView.end)
            return
        super().scrollContentsBy(dx, dy)
        if view.stale:  # the pixels moved with the scroll are a fraction of a pixel off
            view.refresh(self)

    def _replace(self, index: int, seg: Segment) -> None:
        runs = self._runs
        runs.catch_up(index + 2)
        cursor = QTextCursor(self.document())
        cursor.setPosition(runs.starts[index])
        cursor.setPosition(runs.stop(index) - 1, KEEP)
        self._put(index, cursor, seg)
        fit_glue_around(self.document(), runs, index)

    def _insert(self, index: int, seg: Segment) -> None:
        """An empty paragraph at the block's place (one character), then its HTML in it: in
        the group of the block it goes before, or at the end of the last group while that has
        fewer than GROUP blocks; else in a new group frame at the end."""
        runs = self._runs
        runs.catch_up()
        cursor = QTextCursor(self.document())
        cursor.beginEditBlock()
        if index < runs.count:
            cursor.setPosition(runs.starts[index])
            # (the block split off keeps its text's formats: by default its block char format
            # would be the one before the cursor, the previous block's, a quote's grey say)
            block = cursor.block()
            cursor.insertBlock(block.blockFormat(), block.charFormat())
            cursor.setPosition(runs.starts[index])
        elif runs.last_has_room():
            cursor.setPosition(runs.starts[runs.count] - 1)  # the last group's end marker
            cursor.insertBlock()
        else:  # a new group: its start marker where the final root block was
            cursor = new_group(cursor, runs)
        runs.insert(index)
        self._stand_ins.insert(index, 0)
        self._view.inserted(index)
        if self._highlighted is not None and index <= self._highlighted:
            self._highlighted += 1
        self._put(index, cursor, seg)
        fit_glue_around(self.document(), runs, index)
        cursor.endEditBlock()

    def _remove(self, index: int) -> None:
        runs = self._runs
        runs.catch_up()
        self._view.removed(index)
        start, length = runs.starts[index], runs.length(index)
        group = runs.group_of(index)
        alone = runs.group_end(group) - runs.firsts[group] == 1
        cursor = QTextCursor(self.document())
        cursor.beginEditBlock()
        if runs.count == 1:  # the last one (the next insert starts a group afresh)
            cursor.select(QTextCursor.SelectionType.Document)
            cursor.removeSelectedText()
            removed = length
        elif alone:  # its group's frame goes with it, start marker (the glue) included
            cursor.setPosition(start - 1)
            cursor.setPosition(start + length, KEEP)
            cursor.removeSelectedText()
            removed = length + 1
            del runs.firsts[group]
        elif runs.last_in_group(index):  # the end marker stays: take the break before it
            above = cursor.document().findBlock(start - 1)  # the previous block's last paragraph
            formats = above.blockFormat(), above.charFormat()
            cursor.setPosition(start - 1)
            cursor.setPosition(start + length - 1, KEEP)
            cursor.removeSelectedText()
            # (that paragraph now ends with the end marker, and Qt gives it the formats of the
            # paragraph the marker closed: its own go back)
            cursor.setBlockFormat(formats[0])
            cursor.setBlockCharFormat(formats[1])
            removed = length
        else:
            # Qt keeps a paragraph's block char format on the character before it: the next
            # block's is on this block's closing break, which goes, and the break before this
            # block, which stays, holds this block's (a stand-in's grey: its list bullets and
            # empty lines would stay grey). The next block's own goes back.
            kept = cursor.document().findBlock(start + length).charFormat()
            cursor.setPosition(start)
            cursor.setPosition(start + length, KEEP)
            cursor.removeSelectedText()
            if cursor.blockCharFormat() != kept:
                cursor.setBlockCharFormat(kept)
            removed = length
        runs.remove(index, removed)
        del self._stand_ins[index]
        if runs.count:
            fit_glue_around(self.document(), runs, min(index, runs.count - 1))
            if index:
                fit_glue_around(self.document(), runs, index - 1)
        else:
            runs.clear()
        cursor.endEditBlock()
        self._retint = self._retint or index == self._highlighted
        self._highlighted = index_after_removal(self._highlighted, index)

    def _put(self, index: int, cursor: QTextCursor, seg: Segment) -> None:
        """Block `index`'s HTML in place of the cursor's selection (or at the cursor).

        One edit block: Qt lays the document out again once for it, not once per step (each
        layout moves every paragraph below, so it costs more the nearer the top the edit).
        """
        self._view.edited(index)
        self._stand_ins[index] = 0
        doc = self.document()
        before = doc.characterCount()
        start, old = self._runs.starts[index], self._runs.length(index)
        self._retint = self._retint or index == self._highlighted
        cursor.beginEditBlock()
        cursor.removeSelectedText()
        # The paragraph left there keeps the formats of what stood there (or, new, of the one
        # it was split from): plain ones, so that none of them leaks into the block's HTML.
        cursor.setBlockFormat(PLAIN_BLOCK)
        cursor.setBlockCharFormat(PLAIN_CHAR)
        cursor.setCharFormat(PLAIN_CHAR)
        cursor.insertHtml(LEAD + self._decor.html(seg))
        length = old + doc.characterCount() - before
        length += tidy(doc, start, start + length - 1)
        cursor.endEditBlock()
        self._runs.shift(index + 1, length - old)

    def placeholder(self, index: int) -> bool:
        return index < len(self._stand_ins) and self._stand_ins[index] == 1

    def _insert_run(self, index: int, wanted: Sequence[Segment], start: int, stop: int) -> int:
        """More than ``stand_ins_from`` blocks to add at the end (a long document's first
        fill): a group at a time as stand-ins, their Markdown as plain paragraphs, greyed;
        ``_finish`` renders them, from the view's top. Why: rendered one by one from the top,
        a long document took seconds to fill, and an edit half way down showed only when the
        fill got there; stand-ins go in many times faster (figures: docs/performance.md, "A
        long first fill as stand-ins")."""
        self._runs.catch_up()
        count = self._runs.count
        many = stop - start > self.stand_ins_from
        if index < count or not (many or (count and self._stand_ins[-1])):
            return Incremental._insert_run(self, index, wanted, start, stop)
        stop = min(stop, start + self._runs.room())
        texts = [stand_in(self._decor.parts(wanted[k])[0]) for k in range(start, stop)]
        self._view.appended(count)
        append_stand_ins(self.document(), self._runs, texts, stand_in_format(self.palette()))
        self._stand_ins.extend(b"\x01" * len(texts))
        return len(texts)

    def _unfinished(self) -> bool:
        return self._stand_ins.find(1) >= 0

    def _finish(self, top: int, deadline: float) -> bool:
        """Render the stand-ins: from the view's top down, then up from it."""
        stand_ins = self._stand_ins
        while (index := stand_ins.find(1, top)) >= 0 or (index := stand_ins.rfind(1, 0, top)) >= 0:
            self._replace(index, self.shown[index])
            if self._out_of_time(deadline):
                return False
        return True

    @property
    def block_count(self) -> int:
        return self._runs.count

    @property
    def lengths(self) -> list[int]:
        """How many document characters each block holds (its closing paragraph break
        included): derived from the block starts and the groups, the one record of where
        blocks are."""
        return self._runs.lengths

    # mapping
    def index_at(self, position: int) -> int:
        """The block at `position`; the glue before a group (the gap above its first block)
        belongs to that block, as a margin's hit does in one frame."""
        return self._runs.index_at(position, len(self.shown))

    def block_start(self, index: int) -> int:
        """Document position where block `index` starts."""
        return self._runs.starts[index]

    def visible_blocks(self) -> list[Extent]:
        """Blocks on screen with their extent in viewport pixels, for the margin."""
        if not self.block_count:
            return []
        value = self.verticalScrollBar().value()
        height = self.viewport().height()
        first = max(0, self.top_index() - 1)
        return visible_blocks(self.document(), self._runs, self.shown, first, value, height)

    def block_span(self, index: int) -> tuple[float, float] | None:
        """Top and bottom (pixels, document coordinates) of block `index`."""
        if not 0 <= index < self.block_count:
            return None
        return extent(self.document(), self._runs, index)

    def show_block(self, index: int | None) -> None:
        """Tint the block under the other pane's cursor (one the view does not hold yet once
        it does: the other pane tells only when its cursor changes block)."""
        self._tint_later = index if index is not None and index >= self.block_count else None
        if index is None or not 0 <= index < self.block_count:
            self._highlighted = None
            self._highlight = []
        else:
            self._highlighted = index
            start, stop = self._runs.starts[index], self._runs.stop(index)
            self._highlight = range_selection(self, start, stop)
        self.setExtraSelections(self._highlight + self._marks)

    def set_marks(self, marks: list[QTextEdit.ExtraSelection]) -> None:
        """The reviewer model's errors (fastdesk.ui.panes.underlines), under the tint."""
        self._marks = marks
        self.setExtraSelections(self._highlight + self._marks)

    def markdown_of(self, index: int) -> str:
        """The Markdown block ``index`` shows (its expansion and context apart)."""
        return self._decor.parts(self.shown[index])[0]

    def rendered_text(self, index: int) -> str:
        """Block ``index``'s text as rendered, from its start (paragraphs split by U+2029)."""
        cursor = QTextCursor(self.document())
        cursor.setPosition(self.starts()[index])
        cursor.setPosition(self._runs.stop(index) - 1, KEEP)
        return cursor.selectedText()

    @property
    def tinted_block(self) -> int | None:
        """The index of the block tinted by show_block (None: none)."""
        return self._highlighted


_MOVE = QTextCursor.MoveMode.MoveAnchor
_TYPING = {Qt.Key.Key_Space, Qt.Key.Key_Backspace, Qt.Key.Key_Delete}
_ENDS = {
    Qt.Key.Key_End: QTextCursor.MoveOperation.End,
    Qt.Key.Key_Home: QTextCursor.MoveOperation.Start,
}
