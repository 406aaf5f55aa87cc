"""The review commands of a document (docs/review.md): approve a block or all (asked first),
withdraw an approval, revert an edit, settle a block whose source changed under an edit (after
seeing what changed), undo and redo of all of these and of typing, go to the next block to check,
the summary, the per-block menu of the margin, and the bilingual export."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QMenu, QMessageBox, QWidget

from fastdesk.config.fileio import os_error_line
from fastdesk.review.model import STATE_STYLES
from fastdesk.ui.dialogs.source_changed import SourceChangedDialog
from fastdesk.ui.document.files import export_path, warn
from fastdesk.ui.document.view import DocumentView
from fastdesk.ui.review.undo import EditHistory

NOT_APPROVED = {
    "stale_edit": "its source changed since your edit: re-translate or keep yours first",
    "pending": "it is not translated yet",
    "in_flight": "it is being translated",
    "retrying": "it is being translated",
    "copy": "it is kept as is (code, front matter…)",
    "approved": "it is approved already",
}
UNDO_HINT = "Undo (Ctrl+Z in the translation) takes it back in one step."


class ReviewCommands:
    """Review ``view``'s translation; dialogs and menus open over ``parent``."""

    def __init__(self, view: DocumentView, parent: QWidget) -> None:
        self.view = view
        self.parent = parent
        self.ctl = view.review_ctl
        self.history = EditHistory(view, view)  # Edit → Undo / Redo, by the focused pane
        self.decision: SourceChangedDialog | None = None
        for margin in view.margins:
            margin.clicked.connect(self._margin_clicked)
        bar = view.review_bar
        bar.show_requested.connect(lambda: self.go_to_block(self._current_stale()))
        bar.decide_requested.connect(lambda: self.decide())

    def _say(self, text: str, ms: int) -> None:
        self.view.message.emit(text, ms)

    # ---- one block -----------------------------------------------------------------------------

    def _review_block(self) -> str | None:
        """The block under the cursor of the focused pane (target panes by what they show)."""
        pane = self.view.focused_target_pane()
        if pane is not None and pane.shown:
            return pane.shown[pane.index_at(pane.textCursor().position())].key or None
        return self.view.places.block_under_cursor()

    def approve_block(self, block_id: str | None = None) -> bool:
        key = self._review_block() if block_id is None else block_id
        if not key:
            return False
        if self.ctl.approve(key):
            self._say("Block approved", 2000)
            self.view.refresh_target()
            return True
        reason = NOT_APPROVED.get(self.ctl.state_of(key), "nothing to approve")
        self._say(f"Not approved: {reason}", 5000)
        return False

    def withdraw_approval(self, block_id: str | None = None) -> bool:
        """Withdraw the approval of the block under the cursor (a correction stays one)."""
        key = self._review_block() if block_id is None else block_id
        if not key:
            return False
        if self.ctl.unapprove(key):
            self._say("Approval withdrawn", 2000)
            self.view.refresh_target()
            return True
        state = self.ctl.state_of(key)
        reason = NOT_APPROVED["stale_edit"] if state == "stale_edit" else "it is not approved"
        self._say(f"Nothing to withdraw: {reason}", 5000)
        return False

    def revert_block(self, block_id: str | None = None) -> bool:
        key = self._review_block() if block_id is None else block_id
        if not key or not self.ctl.revert(key):
            return False
        self.view.refresh_target()
        return True

    def resolve_block(self, block_id: str, choice: str, text: str | None = None) -> None:
        """ "Source changed since your edit": ``"retranslate"`` or ``"keep"`` (``text``: the
        correction as the editor merged it)."""
        if self.ctl.resolve(block_id, choice, text):
            self.view.blocks.retranslate([block_id])
        self.view.refresh_target()

    def review_menu(self, block_id: str) -> QMenu:
        """The choices for one block (the margin's click): approve, revert, re-translate, and
        for a block whose source changed under an edit, re-translate or keep mine."""
        info = self.ctl.info(block_id)
        menu = QMenu(self.parent)
        menu.setObjectName("blockReviewMenu")
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        title = menu.addAction(STATE_STYLES[info.state].label.capitalize())
        title.setEnabled(False)
        menu.addSeparator()

        def add(text: str, slot: Callable[[], object], enabled: bool = True) -> None:
            action = menu.addAction(text)
            action.setEnabled(enabled)
            action.triggered.connect(lambda _checked=False: slot())

        if info.state == "stale_edit":  # the choice is made seeing what changed
            add("Compare and Decide…", lambda: self.decide(block_id))
            return menu
        if info.approved:
            add("Withdraw Approval", lambda: self.withdraw_approval(block_id))
        else:
            ready = info.state not in ("pending", "in_flight", "copy")
            add("Approve", lambda: self.approve_block(block_id), ready)
        if info.edited:
            add("Revert My Edit", lambda: self.revert_block(block_id))
        add("Re-translate", lambda: self.view.blocks.retranslate([block_id]), info.state != "copy")
        return menu

    def _margin_clicked(self, block_id: str, where: QPoint) -> None:
        self.review_menu(block_id).popup(where)

    # ---- the whole document --------------------------------------------------------------------

    def approve_all(self) -> int:
        """Approve every translated block (not flagged ones, nor changed sources), after asking
        how many: one undoable step."""
        ready = len(self.ctl.review.approvable())
        if not ready:
            self._say("Nothing to approve: no translated block left unapproved", 4000)
            return 0
        if not self._confirm_approve_all(ready):
            return 0
        count = self.ctl.approve_all()
        summary = self.view.review_summary()
        rest = []
        if summary.flagged:
            rest.append(f"{summary.flagged} flagged")
        if summary.stale:
            rest.append(f"{summary.stale} with a changed source")
        if summary.pending or summary.in_flight:
            rest.append(f"{summary.pending + summary.in_flight} not translated yet")
        note = f"; left for you: {', '.join(rest)}" if rest else ""
        self._say(f"Approved {count} block(s){note}", 6000)
        self.view.refresh_target()
        return count

    def _confirm_approve_all(self, count: int) -> bool:
        blocks = f"{count} block{'s' if count != 1 else ''}"
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Approve all",
            f"Approve {blocks}?",
            QMessageBox.StandardButton.NoButton,
            self.parent,
        )
        box.setObjectName("approveAllBox")
        box.setInformativeText(
            "Every translated block not approved yet. Flagged blocks, blocks whose source "
            f"changed and blocks not translated yet are left for you. {UNDO_HINT}"
        )
        approve = box.addButton(f"Approve {blocks}", QMessageBox.ButtonRole.AcceptRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(approve)
        box.exec()
        box.deleteLater()
        return box.clickedButton() is approve

    def undo(self) -> None:
        self.history.undo()

    def redo(self) -> None:
        self.history.redo()

    def decide(self, block_id: str | None = None) -> SourceChangedDialog | None:
        """Show what changed in a block's source (the one under the cursor, else the first),
        its kept correction and the new machine translation; then Keep Mine or Re-translate."""
        key = block_id or self._current_stale()
        if key is None or self.ctl.state_of(key) != "stale_edit":
            self._say("No block here whose source changed under your edit", 4000)
            return None
        self.go_to_block(key)
        if self.decision is not None:
            self.decision.close()
        dialog = self.decision = SourceChangedDialog(self.ctl, key, self.parent)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.chosen.connect(lambda choice: self.resolve_block(key, choice, dialog.merged()))
        dialog.finished.connect(lambda _result: self._decided(dialog))
        dialog.open()
        return dialog

    def _decided(self, dialog: SourceChangedDialog) -> None:
        if self.decision is dialog:
            self.decision = None

    def _current_stale(self) -> str | None:
        stale = self.ctl.stale_blocks()
        here = self._review_block()
        return here if here in stale else (stale[0] if stale else None)

    def go_to_block(self, block_id: str | None) -> None:
        """Scroll the target pane to a block and put its cursor there."""
        view = self.view
        pane = view.target_pane()
        keys = [seg.key for seg in pane.shown]
        if block_id not in keys:
            return
        index = keys.index(block_id)
        if pane is view.target_editor:
            cursor = view.target_editor.textCursor()
            cursor.setPosition(view.target_editor.block_range(index)[0])
            view.target_editor.setTextCursor(cursor)
            view.target_editor.centerCursor()
        else:
            span = view.preview.block_span(index)
            if span is not None:
                view.preview.verticalScrollBar().setValue(round(span[0]) - 24)
            cursor = QTextCursor(view.preview.document())
            cursor.setPosition(view.preview.block_start(index))
            view.preview.setTextCursor(cursor)
        pane.setFocus()
        view.repaint_margins()

    def show_review_summary(self) -> QMessageBox:
        s = self.view.review_summary()
        lines = [
            f"Blocks to review: {s.blocks}",
            f"Approved: {s.approved}",
            f"Edited (not approved yet): {s.edited}",
            f"Flagged (failed a check): {s.flagged}",
            f"Source changed since your edit: {s.stale}",
            f"Not translated yet: {s.pending + s.in_flight}",
        ]
        if s.detached:
            lines.append(f"Edits of deleted blocks (kept aside): {s.detached}")
        box = QMessageBox(
            QMessageBox.Icon.Information,
            "Review summary",
            str(s),
            QMessageBox.StandardButton.Ok,
            self.parent,
        )
        box.setObjectName("reviewSummaryBox")
        box.setInformativeText("\n".join(lines))
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        return box

    def export_bilingual(self, path: str | Path) -> bool:
        """The bilingual review page (standalone HTML) for people without fastdesk."""
        try:
            self.ctl.export_bilingual(path)
        except OSError as exc:
            warn(self.parent, "Cannot export the review page", os_error_line(path, exc))
            return False
        self._say(f"Review page written to {Path(path).name}", 4000)
        return True

    def export_bilingual_dialog(self) -> None:
        suggested = self.ctl.html_export_path()
        title, kind = "Export bilingual review", "HTML page (*.html)"
        path = export_path(self.parent, self.view, suggested, title, kind)
        if path:
            self.export_bilingual(path)
