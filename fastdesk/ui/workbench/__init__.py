"""The editor's workbench: the find bar, the outline and problems docks and the guide, wired to a
document view.

Why one object: the window names its commands (find, replace, outline, guide) and this is what
they call; the widgets live in their own modules and know nothing of the window.

A change to the translation an editor asks for here (keep generated text, restore a link from
the source) is typed into the raw target (:meth:`Workbench.edit_block`), so the one path of a
typed edit takes it: the block becomes the editor's correction, for the review and for undo.

Modules:

- ``find_bar``: the find and replace bar
- ``replace_preview``: the Replace All preview
- ``outline``: the outline dock: the document's headings
- ``problems``: the problems dock: every block that needs attention
- ``house``: the document's house in the window, and its style and glossary docks
- ``house_docks``: the House Style and Glossary docks' widgets
- ``project``: the project panel: a docs project's files by language
- ``project_run``: Translate Project in the window
- ``project_batch``: Translate Project's question: now, or in a batch at half price
- ``project_watch``: a project's target files on disk, watched
- ``guide``: the short guide (F1)
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QApplication, QMainWindow, QWidget

from fastdesk.document.blocks import parse, reparse
from fastdesk.document.outline import Heading
from fastdesk.document.text_ends import common_prefix, common_suffix
from fastdesk.project.layout import Project
from fastdesk.project.status import translated_units
from fastdesk.review.problems import (
    CONSISTENCY,
    Problem,
    ProblemList,
    excerpt,
    fix,
    step,
    use_everywhere,
)
from fastdesk.review.session import Change
from fastdesk.review.target_model import normalize
from fastdesk.translate.consistency import TermUse, Unit, glossary_drift
from fastdesk.ui.bridge.threads import gui_first
from fastdesk.ui.dialogs.glossary_drift import GlossaryDriftDialog
from fastdesk.ui.panes.common import plain_text, py_index
from fastdesk.ui.panes.render import qt_len
from fastdesk.ui.workbench.find_bar import FindBar, Pane
from fastdesk.ui.workbench.guide import GuideDialog
from fastdesk.ui.workbench.outline import OutlineDock
from fastdesk.ui.workbench.problems import ProblemsDock

if TYPE_CHECKING:
    from fastdesk.ui.document.view import DocumentView

__all__ = ["Workbench"]

OUTLINE_DELAY_MS = 250  # the outline follows typing after a short pause, not every keystroke
# The problems list follows the translation at most this often: a stream of answers would
# otherwise update it with every delivery (at 7,000 blocks its rows alone are ~2 ms to compare).
PROBLEMS_EVERY_MS = 500
EVERYWHERE_STEP = "Use This Translation Everywhere"  # the undo step of the consistency fix


class Workbench(QObject):
    """A child of the window: its connections (the application's focus signal) end with it."""

    def __init__(
        self,
        view: DocumentView,
        window: QMainWindow,
        shortcuts: Callable[[], list[tuple[str, str]]],
    ) -> None:
        """``shortcuts``: (what, keys) of the window's commands, for the guide."""
        super().__init__(window)
        self.view, self.window = view, window
        self._shortcuts = shortcuts
        self.find_bar = FindBar(self._editable)
        self.outline = OutlineDock(window)
        self.outline.hide()
        self.guide: GuideDialog | None = None
        self.drift_dialog: GlossaryDriftDialog | None = None
        self._pane: Pane = view.source  # the pane find applies to: the last one focused
        self._doc = parse("")
        self._timer = QTimer(window)
        self._timer.setSingleShot(True)
        self._timer.setInterval(OUTLINE_DELAY_MS)
        self._timer.timeout.connect(self.refresh_outline)
        view.source.document().contentsChanged.connect(self._timer.start)
        view.source.cursorPositionChanged.connect(self._follow_source)
        for pane in (view.target_editor, view.preview):
            pane.cursorPositionChanged.connect(lambda p=pane: self._follow_target(p))
        self.outline.chosen.connect(self.go_to_heading)
        self.outline.visibilityChanged.connect(lambda shown: shown and self._timer.start())
        self.problem_list = ProblemList(view.review_ctl.model)
        self.problems = ProblemsDock(self._excerpt, window)
        self.problems.hide()
        self._problems_timer = QTimer(window)
        self._problems_timer.setSingleShot(True)
        self._problems_timer.setInterval(PROBLEMS_EVERY_MS)
        self._problems_timer.timeout.connect(self.refresh_problems)
        view.session.subscribe(self._session_changed)
        view.target_updated.connect(self._problems_soon)
        self.problems.visibilityChanged.connect(self._problems_soon)
        self.problems.chosen.connect(self.go_to_problem)
        self.problems.restore.connect(self.restore_problem)
        view.flagged_blocks = self.flagged_blocks
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._focus_changed)

    def install(self) -> None:
        """The find bar under the panes, the outline on the left (before the layout is restored)."""
        layout = self.view.layout()
        if layout is not None:
            layout.addWidget(self.find_bar)
        self.window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.outline)
        self.window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.problems)
        self.refresh_outline()

    # ---- find ----------------------------------------------------------------------------------

    def find(self) -> None:
        self._open(replace=False)

    def replace(self) -> None:
        self._open(replace=True)

    def find_next(self) -> None:
        self._open_if_hidden()
        self.find_bar.find_next()

    def find_previous(self) -> None:
        self._open_if_hidden()
        self.find_bar.find_previous()

    def _open_if_hidden(self) -> None:
        if not self.find_bar.isVisible() or self.find_bar.pane is None:
            self._open(replace=False)

    def _open(self, *, replace: bool) -> None:
        self._focus_changed(None, self.window.focusWidget())  # (also while the window is inactive)
        pane = self._pane
        if replace and pane is self.view.preview:
            pane = self._editable(pane) or pane
        scope = "Source" if pane is self.view.source else "Translation"
        self.find_bar.open(pane, scope, replace=replace)

    def _editable(self, pane: Pane) -> Pane | None:
        """Replacing in the rendered translation goes on in its Markdown (the raw target)."""
        view = self.view
        if pane is view.preview:
            if not view.showing_raw:
                view.show_raw(True)
            return view.target_editor
        return pane

    def focus_pane(self) -> None:
        """The focus back to the pane last focused (find follows it), else the source."""
        pane = self._pane if self._pane.isVisible() else self.view.target_pane()
        (pane if pane.isVisible() else self.view.source).setFocus()

    def _focus_changed(self, _old: QWidget | None, new: QWidget | None) -> None:
        view = self.view
        for pane in (view.source, view.target_editor, view.preview):
            if new is pane:
                self._pane = pane

    # ---- outline -------------------------------------------------------------------------------

    def show_outline(self) -> None:
        self.outline.show()
        self.outline.raise_()
        self.refresh_outline()
        self.outline.tree.setFocus()

    def refresh_outline(self) -> None:
        """The outline of the source as it is now; parsed only while the outline is on show
        (the worker's parse when it is current, else an incremental one here)."""
        if not self.outline.isVisible():
            return
        text = plain_text(self.view.source.document())
        known = self.view.review_ctl.doc
        if known is not None and known.source == text:
            self._doc = known
        elif self._doc.source != text:
            self._doc = reparse(self._doc, text)
        self.outline.set_document(self._doc)
        self._follow_source()

    def go_to_heading(self, heading: Heading) -> None:
        """The heading at the top of both panes, the source cursor on it."""
        self.refresh_outline()
        self._show_block(heading.block_id, heading.index, heading.start)
        self.view.source.setFocus()

    def _show_block(self, block_id: str, index: int, start: int) -> None:
        """Block ``block_id`` (at ``index``, from character ``start`` of the source as parsed)
        at the top of both panes, their cursors on it."""
        view = self.view
        text = plain_text(view.source.document())
        _put_at_top(view.source, qt_len(text[:start]))
        keys = [seg.key for seg in view.source_blocks]
        index = keys.index(block_id) if block_id in keys else index
        pane = view.target_pane()
        starts = pane.starts()
        if 0 <= index < len(starts) - 1:
            _put_at_top(pane, starts[index])

    def _follow_source(self) -> None:
        if not self.outline.isVisible() or not self._doc.blocks:
            return
        text = plain_text(self.view.source.document())
        position = self.view.source.textCursor().position()
        offset = py_index(text, position)
        self.outline.follow(self._doc.block_at_offset(min(offset, len(self._doc.source))))

    def _follow_target(self, pane: Pane) -> None:
        if not self.outline.isVisible() or pane is not QApplication.focusWidget():
            return
        blocks = self.view.source_blocks
        index = pane.index_at(pane.textCursor().position())  # type: ignore[union-attr]  # a target pane: it has index_at
        if 0 <= index < len(blocks):
            try:
                self.outline.follow(self._doc.index_of(blocks[index].key))
            except KeyError:
                self.outline.follow(index)

    # ---- problems ------------------------------------------------------------------------------

    def show_problems(self) -> None:
        self.problems.show()
        self.problems.raise_()
        self.refresh_problems()
        self.problems.table.setFocus()

    def _session_changed(self, change: Change) -> None:
        """The session's stream: the problems list takes each change (shown or not), and
        follows soon when it names a block or the review."""
        self.problem_list.take(change)
        if change.blocks is None or change.blocks or change.review:
            self._problems_soon()

    def _problems_soon(self, *_args: object) -> None:
        """Something changed (or the dock came on show): the list follows within a moment."""
        if self.problems.isVisible() and not self._problems_timer.isActive():
            self._problems_timer.start()

    def refresh_problems(self, *, hidden_too: bool = False) -> None:
        """The list as the target model has it now (only while on show, unless asked)."""
        if not (hidden_too or self.problems.isVisible()):
            return
        with gui_first():  # the engine's thread waits: a pass is ~all Python, and short
            if self.problem_list.refresh():
                self.problems.set_problems(self.problem_list.rows)

    def flagged_blocks(self) -> int:
        """How many blocks the list has as flagged (the review summary shows this number)."""
        self.refresh_problems(hidden_too=True)
        return self.problems.counts["flagged"]

    def _excerpt(self, problem: Problem) -> str:
        model = self.view.review_ctl.model
        index = model.index_of(problem.block_id)  # None: gone since (the list follows soon)
        return excerpt(model.doc.blocks[index].text) if model.doc and index is not None else ""

    def go_to_problem(self, problem: Problem) -> None:
        """The block at the top of both panes, the cursor of the translation on it."""
        model = self.view.review_ctl.model
        index = model.index_of(problem.block_id)
        if model.doc is None or index is None:
            return
        block = model.doc.blocks[index]
        self._show_block(block.id, index, block.start)
        self.view.target_pane().setFocus()
        self.view.repaint_margins()

    def next_problem(self) -> Problem | None:
        return self._step(back=False)

    def previous_problem(self) -> Problem | None:
        return self._step(back=True)

    def _step(self, *, back: bool) -> Problem | None:
        """F8 / Shift+F8: the next (previous) row of the list from the block under the cursor."""
        self.refresh_problems(hidden_too=True)  # (the dock has every row the list made)
        dock = self.problems
        rows = dock.rows
        here = self._block_index()
        row = step(rows, here, dock.current_row(), back=back)
        if row is None:
            said = "No problems of the kinds shown (see the filters)" if dock.all else "No problems"
            self.view.message.emit(said, 4000)
            return None
        problem = rows[row]
        dock.select(row)
        self.go_to_problem(problem)
        reason = f": {problem.reason}" if problem.reason else ""
        self.view.message.emit(f"Problem {row + 1} of {len(rows)}: {problem.title}{reason}", 6000)
        return problem

    def _block_index(self) -> int:
        """Where the cursor is, as a block index of the target model's document (-1: before)."""
        key = self.view.places.block_under_cursor()
        index = self.view.review_ctl.model.index_of(key) if key else None
        return -1 if index is None else index

    def restore_problem(self, problem: Problem) -> bool:
        """Put the source's link target, code span or placeholder back, or the glossary's term
        in place of its wrong rendering, as the editor's edit (one undoable step); for a
        consistency row, give every block with its source its translation (one step too)."""
        if problem.check == CONSISTENCY:
            return self.use_everywhere(problem)
        new = fix(self.view.review_ctl.model, problem, self.problem_list.glossary)
        if new is None or not self.edit_block(problem.block_id, new):
            self.view.message.emit(
                "This cannot be restored automatically: correct it by hand", 5000
            )
            return False
        done = (
            "The glossary's term put in"
            if problem.check == "glossary"
            else (f"Restored from the source ({problem.title})")
        )
        self.view.message.emit(f"{done}, as your edit", 5000)
        self.refresh_problems()
        return True

    def use_everywhere(self, problem: Problem) -> bool:
        """The translation of ``problem``'s block given to every block of the document with
        the same source, as the editor's edits, undone together by one Undo."""
        edits = use_everywhere(self.view.review_ctl.model, problem)
        if not edits:
            self.view.message.emit("Every block with this source has this translation", 5000)
            return False
        # the edit of many blocks at once (as Replace All's): one step of the editor's undo
        self.view.target_editor.edit_blocks(EVERYWHERE_STEP, list(edits.items()))
        done = len(edits)
        self.view.message.emit(
            f"This translation used in {done} more block{'s' if done != 1 else ''}, as your edit",
            5000,
        )
        self.refresh_problems()
        return done > 0

    def show_glossary_drift(self) -> GlossaryDriftDialog | None:
        """Review ▸ Glossary Drift: each glossary term's renderings in the open document's
        translation and, when a docs project is open beside it, in its other pages, in every
        language (the pages as the disk and their review records have them). The dialog opens
        at once; the pages are read in its worker, and it fills when that ends."""
        glossary = self.problem_list.glossary
        if not glossary:
            self.view.message.emit("This document has no glossary", 5000)
            return None
        model, view = self.view.review_ctl.model, self.view
        doc = model.doc
        panel = getattr(self.window, "project", None)
        project = getattr(panel, "project", None)
        if not isinstance(project, Project):
            project = None
        here = page = view.path.resolve().as_posix() if view.path is not None else ""
        if project is not None and view.path is not None:
            with contextlib.suppress(ValueError):  # a page of the project: named as its pages
                page = view.path.resolve().relative_to(project.root.resolve()).as_posix()
        units = [
            Unit(page, i, b.line, b.text, shown, model.review.lang)
            for i, b in enumerate(doc.blocks if doc is not None else ())
            if b.translatable and (shown := model.review.shown_text(b.id)) is not None
        ]
        skip = (here, model.review.lang)

        def job() -> list[TermUse]:  # in the dialog's worker: the pages as the disk has them
            pages = translated_units(project, skip=skip) if project is not None else []
            return glossary_drift(units + pages, glossary)

        dialog = GlossaryDriftDialog(self.window)
        dialog.read(job)
        dialog.show()
        self.drift_dialog = dialog
        return dialog

    # ---- editing a block as the editor ---------------------------------------------------------

    def edit_block(self, key: str, text: str) -> bool:
        """Give block ``key`` the text ``text`` by typing the difference into the raw target
        (see the module docstring). False when the raw target does not show the block."""
        editor = self.view.target_editor
        while not editor.step(time.perf_counter() + 0.05):  # the hidden raw pane catches up
            pass
        keys = [seg.key for seg in editor.shown]
        if key not in keys:
            return False
        index = keys.index(key)
        old, new = editor.shown[index].text, normalize(text)
        head = common_prefix(old, new)
        tail = common_suffix(old, new, min(len(old), len(new)) - head)
        start = editor.block_range(index)[0] + qt_len(old[:head])
        cursor = QTextCursor(editor.document())
        cursor.setPosition(start)
        cursor.setPosition(
            start + qt_len(old[head : len(old) - tail]), QTextCursor.MoveMode.KeepAnchor
        )
        cursor.insertText(new[head : len(new) - tail])
        self.view.scheduler.kick()
        return True

    # ---- generated text (Expand Section) -------------------------------------------------------

    def keep_generated(self) -> None:
        """The section's generated text joins its translation as the editor's own correction:
        typed into the raw target after the block's text, so the one path of a typed edit
        takes it (the block becomes "edited", exported, undone by Revert My Edit)."""
        view = self.view
        found = self._generated()
        if found is None:
            return
        key, text = found
        shown = view.review_ctl.model.text_of(key)
        core = normalize(shown).rstrip(" \t\n")
        if not self.edit_block(key, core + "\n\n" + text.strip() + normalize(shown)[len(core) :]):
            view.message.emit("This section is not shown in the translation yet", 4000)
            return
        view.preview.set_expansion(key, None)
        view.scheduler.kick()
        view.message.emit("Generated text kept in the translation, as your edit", 4000)

    def discard_generated(self) -> None:
        found = self._generated()
        if found is not None:
            self.view.preview.set_expansion(found[0], None)
            self.view.scheduler.kick()
            self.view.message.emit("Generated text discarded", 4000)

    def _generated(self) -> tuple[str, str] | None:
        """(block id, generated text) of the section under the cursor, or None (said so)."""
        key = self.view.places.block_under_cursor()
        text = self.view.preview.expansions.get(key) if key else None
        if key is None or text is None:
            self.view.message.emit("No generated text in this section (Expand Section first)", 4000)
            return None
        return key, text

    # ---- guide ---------------------------------------------------------------------------------

    def show_guide(self) -> None:
        if self.guide is None:
            self.guide = GuideDialog(self._shortcuts(), self.window)
        self.guide.show()
        self.guide.raise_()


def _put_at_top(pane: Pane, position: int) -> None:
    """Cursor at ``position``, scrolled so that its line is the first on screen."""
    cursor = pane.textCursor()
    cursor.movePosition(QTextCursor.MoveOperation.End)
    pane.setTextCursor(cursor)
    pane.ensureCursorVisible()
    cursor.setPosition(position)
    pane.setTextCursor(cursor)
    pane.ensureCursorVisible()
