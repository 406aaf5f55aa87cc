"""Deciding on a changed source: before Re-translate or Keep Mine, what changed in the block's
source (a word diff of the source the correction was made for and the source now) and, side by
side, the correction kept and the machine translation of the new source.

Why a dialog of its own: the choice drops or keeps the editor's work, and it is only a fair
choice with both sources and both translations in view. The old source comes from the review
(the correction's ``base``), the new machine translation from the answer the review keeps aside;
while that is still coming, the dialog says so and fills in when it arrives.
"""

from __future__ import annotations

import contextlib
from typing import Protocol

from PySide6.QtCore import Qt, Signal, SignalInstance
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from fastdesk.document.word_diff import diff_html, word_diff
from fastdesk.review.model import BlockInfo


class BlockReview(Protocol):
    """What the dialog reads of the review controller (``ui/review``): a block as the review has
    it, and a signal when that may have changed. A protocol, because the dialogs sit below
    ``ui/review`` (whose commands open this dialog) and never import it."""

    @property
    def changed(self) -> SignalInstance: ...

    def info(self, block_id: str) -> BlockInfo: ...


LEGEND = (
    '<span style="background-color:#ffebe9; color:#82071e; text-decoration:line-through;">'
    "removed</span> · "
    '<span style="background-color:#dafbe1; color:#116329; text-decoration:underline;">'
    "added</span>"
)
COMING = "(being translated: it shows here when it arrives)"


class SourceChangedDialog(QDialog):
    """For one block whose state is "source changed": ``chosen`` says "keep" or "retranslate"
    (nothing when cancelled). Every part is reachable with Tab; Alt+K keeps, Alt+R
    re-translates, Esc cancels."""

    chosen = Signal(str)

    def __init__(self, ctl: BlockReview, block_id: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("sourceChangedDialog")
        self.setWindowTitle("Source changed since your edit")
        self.ctl, self.block_id = ctl, block_id
        self._ending = ""  # the correction's trailing line ends, put back on what is kept
        intro = QLabel(
            "The source of this block changed after you edited or approved its translation. "
            "What changed in the source:"
        )
        intro.setWordWrap(True)
        self.diff = _browser("sourceDiff", "What changed in the source")
        legend = QLabel(LEGEND)
        legend.setObjectName("diffLegend")
        self.kept = _text("keptText", "Your correction")
        self.kept.setReadOnly(False)  # merged here with the new source's wording, then kept
        self.kept.setToolTip("Edit your correction here: Keep Mine keeps it as you leave it")
        self.kept.textChanged.connect(self._kept_edited)
        self.machine = _text("machineText", "Machine translation of the new source")
        self.start_button = QPushButton("&Start From It")
        self.start_button.setObjectName("startFromMachine")
        self.start_button.setToolTip(
            "Copy the new machine translation into your correction, to edit it from there"
        )
        self.start_button.clicked.connect(self.start_from_machine)
        grid = QGridLayout()
        mine = _heading("Your correction (edit it here; kept until you choose)", self.kept)
        grid.addWidget(mine, 0, 0)
        grid.addWidget(_heading("Machine translation of the new source", self.machine), 0, 1)
        grid.addWidget(self.kept, 1, 0)
        grid.addWidget(self.machine, 1, 1)
        grid.addWidget(self.start_button, 2, 1, Qt.AlignmentFlag.AlignRight)
        self.buttons = QDialogButtonBox()
        role = QDialogButtonBox.ButtonRole
        self.keep_button = self.buttons.addButton("&Keep Mine", role.AcceptRole)
        self.keep_button.setObjectName("keepMine")
        self.keep_button.setToolTip("Keep your text as the translation of the new source")
        self.retranslate_button = self.buttons.addButton("&Re-translate", role.DestructiveRole)
        self.retranslate_button.setObjectName("retranslate")
        self.retranslate_button.setToolTip("Drop your text: the machine translation shows")
        self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.keep_button.clicked.connect(lambda: self._choose("keep"))
        self.retranslate_button.clicked.connect(lambda: self._choose("retranslate"))
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.diff, 2)
        layout.addWidget(legend)
        layout.addLayout(grid, 3)
        layout.addWidget(self.buttons)
        self.keep_button.setDefault(True)
        self.resize(760, 520)
        self.refresh()
        ctl.changed.connect(self.refresh)

    def refresh(self) -> None:
        """Show the block as the review has it now (the machine answer may arrive later)."""
        info = self.ctl.info(self.block_id)
        if info.state != "stale_edit" or info.source is None or info.base is None:
            self.reject()  # decided elsewhere, or the block changed again
            return
        self.diff.setHtml(
            f'<div style="white-space: pre-wrap">'
            f"{diff_html(word_diff(info.base.rstrip(), info.source.rstrip()))}</div>"
        )
        self._ending = (info.text or "")[len((info.text or "").rstrip()) :]
        if not self.kept.document().isModified():  # never over what the editor typed
            _set_text(self.kept, (info.text or "").rstrip())
        _set_text(self.machine, info.machine.rstrip() if info.machine else COMING)
        self.start_button.setEnabled(bool(info.machine))

    def merged(self) -> str | None:
        """The correction as the editor left it in the dialog (with its block's line ends);
        None when it was not touched."""
        if not self.kept.document().isModified():
            return None
        return self.kept.toPlainText().rstrip() + self._ending

    def start_from_machine(self) -> None:
        """The new machine translation into the correction, as one undoable edit of it."""
        info = self.ctl.info(self.block_id)
        if info.machine:
            cursor = self.kept.textCursor()
            cursor.select(QTextCursor.SelectionType.Document)
            cursor.insertText(info.machine.rstrip())
            self.kept.setFocus()

    def _kept_edited(self) -> None:
        merged = self.kept.document().isModified()
        self.keep_button.setText("&Keep My Merged Text" if merged else "&Keep Mine")

    def _choose(self, choice: str) -> None:
        self.accept()  # first: the choice changes the review, which would refresh this
        self.chosen.emit(choice)

    def done(self, result: int) -> None:
        with contextlib.suppress(RuntimeError, TypeError):  # already disconnected
            self.ctl.changed.disconnect(self.refresh)
        super().done(result)


def _browser(name: str, accessible: str) -> QTextBrowser:
    browser = QTextBrowser()
    browser.setObjectName(name)
    browser.setAccessibleName(accessible)
    browser.setOpenLinks(False)
    return browser


def _text(name: str, accessible: str) -> QPlainTextEdit:
    edit = QPlainTextEdit()
    edit.setObjectName(name)
    edit.setAccessibleName(accessible)
    edit.setReadOnly(True)
    edit.setTabChangesFocus(True)
    return edit


def _set_text(edit: QPlainTextEdit, text: str) -> None:
    if edit.toPlainText() != text:
        edit.setPlainText(text)


def _heading(text: str, buddy: QWidget) -> QLabel:
    label = QLabel(f"<b>{text}</b>")
    label.setBuddy(buddy)
    return label
