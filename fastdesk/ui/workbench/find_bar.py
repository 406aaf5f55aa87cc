"""The find and replace bar (objectName ``findBar``): a bar under the panes, not a dialog.

It searches the pane it was opened in (the source, or the translation) with the core's matcher
(fastdesk.document.find). Replacing edits that pane as the user's typing would: in the source an
undoable edit of the source (Replace All: one edit block); in the translation the blocks the
matches are in become the editor's own corrections, each as a typed edit of it would, all at
once (fastdesk.document.find.replace_in_blocks) as one step of the editor's undo, and the raw
target shows them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent, QTextCursor
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QSizePolicy,
    QTextEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from fastdesk.document.blocks import parse
from fastdesk.document.find import (
    BadPattern,
    Change,
    Query,
    find_all,
    plan,
    replace_in_blocks,
    replacement,
    summary,
    verbatim_count,
)
from fastdesk.ui.panes.accessible import name
from fastdesk.ui.panes.common import plain_text, py_index
from fastdesk.ui.panes.render import qt_len
from fastdesk.ui.panes.target_editor import TargetEditor
from fastdesk.ui.plain import tip
from fastdesk.ui.workbench.replace_preview import ReplacePreview

Pane = QPlainTextEdit | QTextEdit
Span = tuple[int, int]  # Qt (UTF-16) positions


class FindBar(QFrame):
    """Find (Ctrl+F), replace (Ctrl+H), next/previous (F3/Shift+F3), with a count of matches.

    ``editable(pane)`` gives the pane replacements go to: the pane itself, or for the rendered
    translation the raw target (the caller shows it); None when nothing there can be replaced.
    """

    def __init__(
        self,
        editable: Callable[[Pane], Pane | None] = lambda pane: pane,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("findBar")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)  # one line
        self._editable = editable
        self.pane: Pane | None = None
        self.scope = QLabel()
        self.scope.setObjectName("findScope")
        self.find_edit = _line("findText", "Find")
        self.replace_edit = _line("replaceText", "Replace with")
        self.case = _toggle("findCase", "Aa", "Match case")
        self.word = _toggle("findWord", "W", "Whole words only")
        self.regex = _toggle("findRegex", ".*", "Regular expression (\\1 in the replacement)")
        self.preserve = _toggle(
            "findPreserveCase", "AB", "Preserve case: the replacement takes each match's case"
        )
        self.code = _toggle(
            "findInCode",
            "{ }",
            "In code and link targets too: code spans and blocks, link targets, URLs and "
            "identifiers are passed over unless this is on",
        )
        self.count = QLabel()
        self.count.setObjectName("findCount")
        self.count.setMinimumWidth(110)
        self.count.setWordWrap(True)  # "3 of 12 matches (4 in code)" wraps in a narrow window
        self.result = QLabel()  # what the last Replace All did ("Replaced 12 in 9 blocks")
        self.result.setObjectName("replaceResult")
        self.preview: ReplacePreview | None = None
        prev = _button("findPrevious", "↑", "Previous match (Shift+F3)", self.find_previous)
        nxt = _button("findNext", "↓", "Next match (F3)", self.find_next)
        self.replace_button = _button("replaceOne", "Replace", "Replace this match", self.replace)
        self.replace_all_button = _button(
            "replaceAll", "All…", "Replace every match: a preview first", self.preview_all
        )
        close = _button("findClose", "✕", "Close (Esc)", self.hide)
        # Two rows, as in VS Code: find, then replace (shown when replacing), so that the bar
        # fits a 1,024 px window beside the panels (one row asked 891 px)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 3, 6, 3)
        layout.setSpacing(2)
        find_row, self.replace_row = QHBoxLayout(), QWidget()
        replace_row = QHBoxLayout(self.replace_row)
        replace_row.setContentsMargins(0, 0, 0, 0)
        for row in (find_row, replace_row):
            row.setSpacing(4)
        for widget in (self.scope, self.find_edit, self.case, self.word, self.regex, self.code):
            find_row.addWidget(widget)
        for widget in (self.count, prev, nxt, close):
            find_row.addWidget(widget)
        for widget in (self.replace_edit, self.preserve, self.replace_button):
            replace_row.addWidget(widget)
        for widget in (self.replace_all_button, self.result):
            replace_row.addWidget(widget)
        self.result.setWordWrap(True)
        find_row.setStretch(1, 1)
        replace_row.setStretch(0, 1)
        layout.addLayout(find_row)
        layout.addWidget(self.replace_row)
        self.find_edit.textChanged.connect(self.update_count)
        self.find_edit.returnPressed.connect(self.find_next)
        self.replace_edit.returnPressed.connect(self.replace)
        for toggle in (self.case, self.word, self.regex, self.code):
            toggle.toggled.connect(self.update_count)
        for edit in (self.find_edit, self.replace_edit):
            edit.textChanged.connect(self.result.clear)
        self.hide()

    # ---- opening -------------------------------------------------------------------------------

    def open(self, pane: Pane, scope: str, *, replace: bool = False) -> None:
        """Show the bar for ``pane`` (named ``scope`` in the bar), the selection as the query."""
        self.pane = pane
        self.scope.setText(scope)
        selected = pane.textCursor().selectedText()
        if selected and "\u2029" not in selected:
            self.find_edit.setText(selected)
        self.set_replacing(replace)
        self.show()
        self.find_edit.setFocus()
        self.find_edit.selectAll()
        self.update_count()

    def set_replacing(self, on: bool) -> None:
        self.replace_row.setVisible(on)
        self.result.clear()

    def query(self) -> Query:
        return Query(
            self.find_edit.text(),
            case=self.case.isChecked(),
            word=self.word.isChecked(),
            regex=self.regex.isChecked(),
            preserve_case=self.preserve.isChecked(),
            code=self.code.isChecked(),
        )

    # ---- finding -------------------------------------------------------------------------------

    def matches(self, pane: Pane | None = None) -> list[Span]:
        """The matches in ``pane`` (default: the bar's), as Qt positions; [] for a bad pattern."""
        pane = pane or self.pane
        if pane is None:
            return []
        text = plain_text(pane.document())
        try:
            found = find_all(text, self.query())
        except BadPattern:
            return []
        return _qt_spans(text, [(m.start(), m.end()) for m in found])

    def update_count(self) -> None:
        try:
            self.query().pattern()
        except BadPattern as exc:
            self.count.setText("Bad pattern")
            self.count.setToolTip(tip(str(exc)))
            return
        self.count.setToolTip("")
        spans = self.matches()
        if not self.find_edit.text():
            self.count.setText("")
        elif not spans:
            self.count.setText("No matches")
        else:
            current = self._current(spans)
            where = f"{current + 1} of " if current is not None else ""
            self.count.setText(f"{where}{len(spans)} match{'es' if len(spans) != 1 else ''}")
        skipped = self._skipped()
        if skipped:  # said, so that a count that leaves them out is not a surprise
            self.count.setText(f"{self.count.text() or 'No matches'} (+{skipped} in code)")
            self.count.setToolTip(
                f"{skipped} more in code or link targets, passed over: {{ }} counts them too"
            )

    def _skipped(self) -> int:
        if self.pane is None or not self.find_edit.text():
            return 0
        try:
            return verbatim_count(plain_text(self.pane.document()), self.query())
        except BadPattern:
            return 0

    def find_next(self) -> bool:
        return self._go(backwards=False)

    def find_previous(self) -> bool:
        return self._go(backwards=True)

    def _go(self, *, backwards: bool) -> bool:
        """Select the next (previous) match after (before) the cursor, wrapping around."""
        pane, spans = self.pane, self.matches()
        if pane is None or not spans:
            self.update_count()
            return False
        cursor = pane.textCursor()
        if backwards:
            here = cursor.selectionStart()
            before = [s for s in spans if s[0] < here]
            start, end = before[-1] if before else spans[-1]
        else:
            here = cursor.selectionEnd() if cursor.hasSelection() else cursor.position()
            after = [s for s in spans if s[0] >= here]
            start, end = after[0] if after else spans[0]
        _select(pane, start, end)
        self.update_count()
        return True

    def _current(self, spans: list[Span]) -> int | None:
        if self.pane is None:
            return None
        cursor = self.pane.textCursor()
        selected = (cursor.selectionStart(), cursor.selectionEnd())
        return spans.index(selected) if selected in spans else None

    # ---- replacing -----------------------------------------------------------------------------

    def replace(self) -> None:
        """Replace the selected match (if the selection is one), then go to the next."""
        target = self._target()
        if target is None:
            return
        spans = self.matches(target)
        cursor = target.textCursor()
        selected = (cursor.selectionStart(), cursor.selectionEnd())
        if selected in spans:
            self._replace_spans(target, [selected])
        self.find_next()

    def preview_all(self) -> ReplacePreview | None:
        """Replace All, after a preview of each change (the dialog, shown non-modal; its
        Replace replaces the ticked ones); None when there is nothing to replace."""
        target = self._target()
        changes = self.plan(target) if target is not None else None
        if target is None or changes is None:
            return None
        if not changes:
            self.result.setText(summary(0))
            return None
        where = "the translation" if isinstance(target, TargetEditor) else "the source"
        dialog = ReplacePreview(changes, where, self.window())
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(lambda: self.replace_all(dialog.chosen()))
        dialog.destroyed.connect(lambda: setattr(self, "preview", None))
        self.preview = dialog
        dialog.open()
        return dialog

    def plan(self, pane: Pane) -> list[Change] | None:
        """The changes Replace All would make in ``pane``; None for a bad pattern or
        replacement (the bar says which)."""
        try:
            self.query().pattern()
        except BadPattern:
            return None  # (the count says "Bad pattern")
        view = pane.shown_view() if isinstance(pane, TargetEditor) else None
        text = view.text if view is not None else plain_text(pane.document())
        try:
            return plan(text, self.query(), self.replace_edit.text(), view)
        except BadPattern as exc:
            self._bad_replacement(exc)
            return None

    def replace_all(self, only: list[int] | None = None) -> int:
        """Replace every match (``only``: those of these indices); returns how many (one
        undoable step). The bar says what was done: "Replaced 12 in 9 blocks"."""
        target = self._target()
        if target is None:
            return 0
        if isinstance(target, TargetEditor):
            done = self._replace_in_blocks(target, only)
        else:
            spans = self.matches(target)
            if only is not None:
                chosen = set(only)
                spans = [span for k, span in enumerate(spans) if k in chosen]
            blocks = _blocks_of(plain_text(target.document()), spans)
            done = (len(spans), blocks) if self._replace_spans(target, spans) else None
        if done is None:
            return 0  # (the bar says why: its count would hide it)
        count, blocks = done
        self.update_count()
        self.result.setText(summary(count, blocks))
        return count

    def _replace_in_blocks(
        self, pane: TargetEditor, only: list[int] | None
    ) -> tuple[int, int] | None:
        """Every match in the translation at once, as the editor's corrections of its blocks;
        how many and in how many blocks; None for a bad replacement."""
        query = self.query()
        try:
            query.pattern()
        except BadPattern:
            return 0, 0  # (the count says "Bad pattern")
        try:
            chosen = None if only is None else set(only)
            changes, count = replace_in_blocks(
                pane.shown_view(), query, self.replace_edit.text(), chosen
            )
        except BadPattern as exc:
            self._bad_replacement(exc)
            return None
        pane.edit_blocks("Replace All", changes)
        return count, len(changes)

    def _bad_replacement(self, exc: BadPattern) -> None:
        self.count.setText("Bad replacement")
        self.count.setToolTip(tip(str(exc)))

    def _target(self) -> Pane | None:
        if self.pane is None:
            return None
        target = self._editable(self.pane)
        if target is not None and target is not self.pane:
            self.pane = target  # the rendered translation: replacing goes on in its Markdown
            self.update_count()
        return target

    def _replace_spans(self, pane: Pane, spans: list[Span]) -> bool:
        """From the last to the first, so earlier positions stay where they were; False for a
        bad replacement."""
        if not spans:  # (none, or a bad pattern: the count says which)
            return True
        text = plain_text(pane.document())
        query, template = self.query(), self.replace_edit.text()
        matches = find_all(text, query)
        found = dict(zip(_qt_spans(text, [m.span() for m in matches]), matches, strict=True))
        try:
            news = [(span, replacement(found[span], query, template)) for span in spans]
        except BadPattern as exc:
            self._bad_replacement(exc)
            return False
        # One undoable step. The source: one edit block (the view parses it once). The target:
        # one match is a typed edit, attributed to its block and recorded as one.
        cursor = QTextCursor(pane.document())
        with _edit_block(cursor):
            for (start, end), new in reversed(news):
                cursor.setPosition(start)
                cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
                cursor.insertText(new)
        pane.setTextCursor(cursor)
        return True

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape:
            self.hide()
            if self.pane is not None:
                self.pane.setFocus()
            return
        super().keyPressEvent(event)


@contextlib.contextmanager
def _edit_block(cursor: QTextCursor) -> Iterator[None]:
    cursor.beginEditBlock()
    try:
        yield
    finally:
        cursor.endEditBlock()


def _blocks_of(text: str, spans: list[Span]) -> int:
    """How many of the text's Markdown blocks (paragraphs, list items…) the spans start in."""
    if not spans:
        return 0
    doc = parse(text)
    starts = [py_index(text, start) for start, _end in spans]
    return len({doc.block_at_offset(min(start, len(text))) for start in starts})


def _qt_spans(text: str, spans: list[tuple[int, int]]) -> list[Span]:
    """Python index spans → UTF-16 spans (the same when the text is ASCII)."""
    if text.isascii():
        return spans
    out, pos, qpos = [], 0, 0
    for start, end in spans:
        qpos += qt_len(text[pos:start])
        qend = qpos + qt_len(text[start:end])
        out.append((qpos, qend))
        pos, qpos = end, qend
    return out


def _select(pane: Pane, start: int, end: int) -> None:
    cursor = pane.textCursor()
    cursor.setPosition(start)
    cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
    pane.setTextCursor(cursor)
    pane.ensureCursorVisible()


def _line(object_name: str, placeholder: str) -> QLineEdit:
    edit = QLineEdit()
    edit.setObjectName(object_name)
    edit.setPlaceholderText(placeholder)
    name(edit, placeholder)
    edit.setClearButtonEnabled(True)
    edit.setMinimumWidth(180)
    return edit


def _toggle(object_name: str, text: str, tip: str) -> QToolButton:
    button = QToolButton()
    button.setObjectName(object_name)
    button.setText(text)
    button.setToolTip(tip)
    name(button, tip.split(":")[0].split(" (")[0])
    button.setCheckable(True)
    button.setAutoRaise(True)
    return button


def _button(object_name: str, text: str, tip: str, slot: Callable[[], object]) -> QToolButton:
    button = QToolButton()
    button.setObjectName(object_name)
    button.setText(text)
    button.setToolTip(tip)
    name(button, tip.split(":")[0].split(" (")[0])
    button.setAutoRaise(True)
    button.clicked.connect(lambda _checked=False: slot())
    return button
