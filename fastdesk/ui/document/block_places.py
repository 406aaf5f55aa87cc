"""Where the reader is among the source's blocks (as the engine worker last parsed them, which
this holds): under the cursor and under the selection, in the source or the focused target
pane, for the commands on blocks; and the source's lines on screen, which go to the worker for
the order of work (their blocks' waiting work goes next, after an edit's): with each update
(DocumentView.send_update) and when the reader scrolls (``set_view``). Lines, not block ids:
the engine maps them to its own blocks, so nothing goes back to it after each delivery."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QPoint, QTimer

from fastdesk.ui.bridge.worker import EngineWorker
from fastdesk.ui.panes.preview import TargetPreview
from fastdesk.ui.panes.render import Segment
from fastdesk.ui.panes.source_editor import SourceEditor
from fastdesk.ui.panes.sync_scroll import SyncScroller
from fastdesk.ui.panes.target_editor import TargetEditor

VISIBLE_MS = 150  # the lines on screen go to the worker this long after the reader scrolls


class BlockPlaces(QObject):
    """The blocks of ``source`` (mapped to its text by ``sync``), and which of them the reader
    is at. ``worker()``: None before the engine starts; ``focused()``: the target pane that
    has the focus, if one has."""

    def __init__(
        self,
        source: SourceEditor,
        sync: SyncScroller,
        worker: Callable[[], EngineWorker | None],
        focused: Callable[[], TargetEditor | TargetPreview | None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._source = source
        self._sync = sync
        self._worker = worker
        self._focused = focused
        self.blocks: tuple[Segment, ...] = ()
        self._visible_timer = QTimer(self)  # the reader's place, for the order of work
        self._visible_timer.setSingleShot(True)
        self._visible_timer.setInterval(VISIBLE_MS)
        self._visible_timer.timeout.connect(self.send_view)
        self.sent_view: tuple[int, int] | None = None  # the lines on screen the worker was told
        source.verticalScrollBar().valueChanged.connect(self.visible_soon)

    def take(self, blocks: tuple[Segment, ...]) -> None:
        """The source's blocks as the worker parsed them: for mapping."""
        self.blocks = blocks
        self._sync.set_source_blocks(blocks)

    # ---- on screen -----------------------------------------------------------------------------

    def visible_source_blocks(self) -> frozenset[str]:
        """Ids of the source blocks on screen."""
        source = self._source
        view = source.viewport()
        top = source.cursorForPosition(QPoint(0, 0)).position()
        bottom = source.cursorForPosition(QPoint(view.width(), view.height())).position()
        first = self._sync.source_block_index(top)
        last = self._sync.source_block_index(bottom)
        if first is None or last is None:
            return frozenset()
        return frozenset(s.key for s in self.blocks[first : last + 1])

    def view_lines(self) -> tuple[int, int]:
        """The source's first and last line on screen (1-based, as the engine counts them)."""
        source = self._source
        view = source.viewport()
        top = source.cursorForPosition(QPoint(0, 0)).blockNumber()
        bottom = source.cursorForPosition(QPoint(view.width(), view.height())).blockNumber()
        return top + 1, bottom + 1

    def visible_soon(self) -> None:
        """Send the lines on screen within the timer's interval of the first change, not of the
        last: while a stream keeps nudging the source's scroll bar (sync scroll), a restarted
        timer never fired, and the blocks a reader scrolled to waited behind the whole backlog."""
        if not self._visible_timer.isActive():
            self._visible_timer.start()

    def send_view(self) -> None:
        """What is on screen is translated before the rest (after an edit)."""
        view = self.view_lines()
        worker = self._worker()
        if worker is not None and view != self.sent_view:
            self.sent_view = view
            worker.set_view(*view)

    # ---- under the cursor ----------------------------------------------------------------------

    def block_under_cursor(self) -> str | None:
        pane = self._focused()
        if pane is not None:
            index: int | None = pane.index_at(pane.textCursor().position())
        else:
            index = self._sync.source_block_index(self._source.textCursor().position())
        if index is None or not 0 <= index < len(self.blocks):
            return None
        return self.blocks[index].key

    def blocks_under_selection(self) -> list[str]:
        """The blocks the selection touches in the focused pane (the source, unless a target
        pane has the focus); the block under the cursor when nothing is selected."""
        pane = self._focused()
        cursor = (pane or self._source).textCursor()
        ends = (cursor.selectionStart(), max(cursor.selectionStart(), cursor.selectionEnd() - 1))
        find = pane.index_at if pane is not None else self._sync.source_block_index
        first, last = (find(p) for p in ends)
        blocks = self.blocks
        if first is None or last is None:
            return []
        return [b.key for b in blocks[max(0, first) : min(last + 1, len(blocks))]]
