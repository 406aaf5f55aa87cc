"""Undo and redo of the editor's own work in the target, step by step: typing, replace and
replace all, revert my edit, approve, approve all, withdraw an approval, keep mine / re-translate.

A step is the reviewer's records of the blocks it touched, before and after
(``Review.snapshot``); undo and redo put one or the other back through the target model
(``TargetModel.restore``), the one way in. No step keeps text for a pane: the panes converge to
the model as after any change of the review. Why not the pane's own undo: the translation
streams into it, and undoing would rewrite the machine's text instead of the editor's.

One QUndoStack per review (a language, or simplify) in a QUndoGroup whose active stack is the
active review's (the controller keeps them); a new document starts with empty stacks.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import shiboken6
from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QUndoCommand
from PySide6.QtWidgets import QApplication, QWidget

from fastdesk.review.model import Snapshot

if TYPE_CHECKING:
    from collections.abc import Sequence

    from PySide6.QtCore import SignalInstance
    from PySide6.QtGui import QTextDocument, QUndoGroup

__all__ = ["EditHistory", "HistoryHost", "ReviewStep", "Typed"]


class UndoPane(Protocol):
    """The raw target pane as the history uses it: its undo keys and its many-block edits."""

    @property
    def undo_requested(self) -> SignalInstance: ...

    @property
    def redo_requested(self) -> SignalInstance: ...

    @property
    def blocks_edited(self) -> SignalInstance: ...

    def all_at_once(self) -> AbstractContextManager[object]: ...


class UndoSource(Protocol):
    """The source pane as the history uses it: its own undo."""

    def undo(self) -> None: ...

    def redo(self) -> None: ...

    def document(self) -> QTextDocument: ...


class StepTaker(Protocol):
    """The review controller as the history uses it: its undo group, and many blocks' edits as
    one step. A protocol, so that undo (which the controller imports) does not import it back."""

    key: str
    undo_group: QUndoGroup

    def begin_group(self, label: str) -> None: ...

    def take_edits(self, key: str, changes: Sequence[tuple[str, str]]) -> int: ...

    def end_group(self) -> None: ...


class HistoryHost(Protocol):
    """What the history needs of the document (the document view): its review controller
    (the reviewer's steps, and through it the session), its panes, and which one has the
    focus. A protocol, so that undo does not import the view."""

    @property
    def review_ctl(self) -> StepTaker: ...

    @property
    def target_editor(self) -> UndoPane: ...

    @property
    def source(self) -> UndoSource: ...

    def focused_target_pane(self) -> object | None: ...

    def refresh_target(self) -> None: ...


_TYPING = 1  # QUndoCommand.id() of typing steps: consecutive keystrokes merge


@dataclass(frozen=True)
class Typed:
    """Where a typed edit of the raw target went (Qt positions), to merge keystrokes: one
    character typed or deleted, in one block, where the previous one ended."""

    block_id: str
    position: int
    removed: int
    added: int

    @property
    def end(self) -> int:
        return self.position + self.added

    def follows(self, previous: Typed) -> bool:
        if self.block_id != previous.block_id or self.removed + self.added != 1:
            return False
        backspace = self.added == 0 and self.position + self.removed == previous.end
        return self.position == previous.end or backspace


class ReviewStep(QUndoCommand):
    """One step of the editor's: ``put_back`` gets ``before`` on undo, ``after`` on redo, and
    says which blocks changed. It is pushed once done, so the first redo (QUndoStack.push calls
    it) does nothing. A step that changes nothing any more (its blocks' source changed since:
    their ids are gone) leaves the stack, so the next Ctrl+Z does something."""

    def __init__(
        self,
        text: str,
        before: Snapshot,
        after: Snapshot,
        put_back: Callable[[Snapshot], list[str]],
        typed: Typed | None = None,
    ) -> None:
        super().__init__(text)
        self.before, self.after = before, after
        self._put_back = put_back
        self.typed = typed
        self._done = True

    def redo(self) -> None:
        if self._done:
            self._done = False
            return
        self.setObsolete(not self._put_back(self.after))

    def undo(self) -> None:
        self.setObsolete(not self._put_back(self.before))

    def id(self) -> int:
        single = self.typed is not None and self.typed.removed + self.typed.added == 1
        return _TYPING if single else -1

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not (isinstance(other, ReviewStep) and self.typed and other.typed):
            return False
        if not other.typed.follows(self.typed):
            return False
        self.after, self.typed = other.after, other.typed
        self.setObsolete(self.before == self.after)  # typed and deleted again: no step left
        return True


class EditHistory(QObject):
    """Edit → Undo and Redo (Ctrl+Z, Ctrl+Shift+Z) for the pane with the focus: in the target
    panes the editor's steps, elsewhere the source's own undo. Keeps the two actions enabled
    as the focused side allows."""

    def __init__(self, view: HistoryHost, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.view = view
        self.group = view.review_ctl.undo_group
        self._actions: tuple[QAction, QAction] | None = None
        view.target_editor.undo_requested.connect(self.undo)
        view.target_editor.redo_requested.connect(self.redo)
        view.target_editor.blocks_edited.connect(self._blocks_edited)

    def _blocks_edited(self, label: str, changes: list[tuple[str, str]]) -> None:
        """The user's edit of many blocks at once (Replace All): the editor's own corrections,
        one step of the editor's undo named ``label``; the panes follow the model."""
        ctl = self.view.review_ctl
        ctl.begin_group(label)
        try:
            ctl.take_edits(ctl.key, changes)
        finally:
            ctl.end_group()
        self.view.refresh_target()

    def in_target(self) -> bool:
        return self.view.focused_target_pane() is not None

    def undo(self) -> None:
        if self.in_target():
            with self.view.target_editor.all_at_once():  # (a Replace All's: ~1,600 blocks)
                self.group.undo()
        else:
            self.view.source.undo()

    def redo(self) -> None:
        if self.in_target():
            with self.view.target_editor.all_at_once():
                self.group.redo()
        else:
            self.view.source.redo()

    def bind(self, undo: QAction, redo: QAction) -> None:
        """Keep ``undo`` and ``redo`` enabled when the focused side has something to do."""
        self._actions = (undo, redo)
        doc = self.view.source.document()
        for signal in (
            doc.undoAvailable,
            doc.redoAvailable,
            self.group.canUndoChanged,
            self.group.canRedoChanged,
        ):
            signal.connect(self._update)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._focus_changed)
        self._update()

    def _focus_changed(self, _old: QWidget | None, _new: QWidget | None) -> None:
        if shiboken6.isValid(self.view):  # focus moves while a closing window is taken down
            self._update()

    def _update(self, *_args: object) -> None:
        if self._actions is None:
            return
        undo, redo = self._actions
        if self.in_target():
            undo.setEnabled(self.group.canUndo())
            redo.setEnabled(self.group.canRedo())
            hint = self.group.undoText()
            undo.setStatusTip(f"Undo: {hint}" if hint else "Undo the last edit")
        else:
            doc = self.view.source.document()
            undo.setEnabled(doc.isUndoAvailable())
            redo.setEnabled(doc.isRedoAvailable())
            undo.setStatusTip("Undo the last edit")
