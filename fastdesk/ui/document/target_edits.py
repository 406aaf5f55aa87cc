"""The reviewer's hand in the target: typing in the raw pane makes the blocks it touches
"edited" (fastdesk.review), undo and redo put the reviewer's records back (the panes follow,
the cursor goes there), and an edit whose source changed under it is said."""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QObject
from PySide6.QtGui import QTextCursor

from fastdesk.ui.panes.common import plain_text, py_index
from fastdesk.ui.panes.preview import TargetPreview
from fastdesk.ui.panes.render import Segment
from fastdesk.ui.panes.target_editor import TargetEditor
from fastdesk.ui.review.controller import ReviewController

RESTORE_STEP_S = 0.015  # an undo updates the pane at once for this long; the scheduler goes on


class TargetEdits(QObject):
    """Follows ``ctl`` (its stale edits and restored records) and the reviewer's typing in
    ``editor``. ``refresh()``: the panes converge to the model; ``told()``: the segments they
    were told last; ``target_pane()``: the pane on show; ``repaint_margins()``; ``say(text,
    ms)``: a passing status-bar message."""

    def __init__(
        self,
        ctl: ReviewController,
        editor: TargetEditor,
        *,
        refresh: Callable[[], None],
        told: Callable[[], tuple[Segment, ...]],
        target_pane: Callable[[], TargetEditor | TargetPreview],
        repaint_margins: Callable[[], None],
        say: Callable[[str, int], None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._ctl = ctl
        self._editor = editor
        self._refresh = refresh
        self._told = told
        self._target_pane = target_pane
        self._repaint_margins = repaint_margins
        self._say = say
        ctl.stale.connect(self._went_stale)
        ctl.restored.connect(self._restored)
        editor.user_edited.connect(self._target_edited)

    def _target_edited(self, position: int, removed: int, added: int) -> None:
        """The user typed in the raw target: the touched blocks become "edited"."""
        editor = self._editor
        view = editor.shown_view()
        text = plain_text(editor.document())
        typed = (position, removed, added)
        changes = self._ctl.user_edit(view, text, py_index(text, position), typed)
        if not changes and text != view.text:
            editor.undo_user_edit()  # typed into an empty pane: no block to keep it
            return
        editor.take_user_edit(view, changes)
        self._ctl.model.touch(bid for bid, _text in changes)
        self._refresh()
        editor.want(self._told())  # even when equal: what it wanted before is outdated

    def _restored(self, block_ids: list[str]) -> None:
        """Undo or redo put reviewer's records back: the panes follow, the cursor goes there."""
        if not block_ids:
            self._say("Nothing to undo there: that block's source changed since", 5000)
            return
        self._refresh()
        pane = self._target_pane()
        pane.step(time.perf_counter() + RESTORE_STEP_S)  # shown at once unless far behind
        keys = [seg.key for seg in pane.shown]
        if block_ids[0] in keys:
            cursor = QTextCursor(pane.document())
            cursor.setPosition(pane.starts()[keys.index(block_ids[0])])
            pane.setTextCursor(cursor)
            pane.ensureCursorVisible()
        self._repaint_margins()

    def _went_stale(self, block_ids: list[str]) -> None:
        count = len(block_ids)
        self._say(
            f"Source changed under {count} edit{'s' if count != 1 else ''}: "
            "re-translate or keep yours",
            8000,
        )
