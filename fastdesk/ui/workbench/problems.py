"""The problems dock (objectName ``problemsView``): every block that needs the editor's attention.

The rows come from the core (fastdesk.review.problems, derived from the target model); the dock
shows them, filters them by kind and says when one is clicked. The table model updates only the
rows between the unchanged start and end of the list, so the view keeps its place and selection
while a long document streams in, and it makes the text of a row only when the row is on screen.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QDockWidget,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QScrollArea,
    QToolButton,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from fastdesk.document.text_ends import common_prefix, common_suffix
from fastdesk.review.problems import CONSISTENCY, KIND_LABELS, KINDS, Problem, block_counts
from fastdesk.ui.panes.accessible import name
from fastdesk.ui.plain import tip

ModelIndex = QModelIndex | QPersistentModelIndex
LINE, PROBLEM, DETAIL, BLOCK, FIX = range(5)
_HEADERS = ("Line", "Problem", "Detail", "Block", "")
FIX_TEXT = "Restore from source"
GLOSSARY_FIX_TEXT = "Use the glossary's term"
EVERYWHERE_TEXT = "Use this translation everywhere"


def fix_text(problem: Problem) -> str:
    """What the row's fix says ("" when it has none)."""
    if not problem.restorable:
        return ""
    if problem.check == CONSISTENCY:
        return EVERYWHERE_TEXT
    return GLOSSARY_FIX_TEXT if problem.check == "glossary" else FIX_TEXT


class ProblemsModel(QAbstractTableModel):
    """The shown rows; ``excerpt(problem)`` gives a row's block text (asked for rows on screen)."""

    def __init__(self, excerpt: Callable[[Problem], str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows: list[Problem] = []
        self._excerpt = excerpt

    def set_rows(self, rows: Sequence[Problem]) -> None:
        """Replace only what changed between the unchanged head and tail of the list; as many
        rows as before (blocks moving on from one kind to the next as their answers come in):
        their data changed, no rows removed or inserted, so the view keeps its layout."""
        old = self.rows
        head = common_prefix(old, rows)
        tail = common_suffix(old, rows, min(len(old), len(rows)) - head)
        if len(old) == len(rows):
            if len(old) - tail > head:
                old[head : len(old) - tail] = rows[head : len(rows) - tail]
                last = self.index(len(old) - tail - 1, len(_HEADERS) - 1)
                self.dataChanged.emit(self.index(head, 0), last)
            return
        if len(old) - tail > head:
            self.beginRemoveRows(QModelIndex(), head, len(old) - tail - 1)
            del old[head : len(old) - tail]
            self.endRemoveRows()
        if len(rows) - tail > head:
            self.beginInsertRows(QModelIndex(), head, len(rows) - tail - 1)
            old[head:head] = rows[head : len(rows) - tail]
            self.endInsertRows()

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008 - Qt's default
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(_HEADERS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> object:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return _HEADERS[section]
        return None

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid() or not 0 <= index.row() < len(self.rows):
            return None
        problem, column = self.rows[index.row()], index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if column == LINE:
                return str(problem.line)
            if column == PROBLEM:
                return problem.title
            if column == DETAIL:
                return problem.reason
            if column == BLOCK:
                return self._excerpt(problem)
            return fix_text(problem)
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == FIX and problem.check == "glossary":
                return "Replace the term's translation by the glossary's, as your edit"
            if column == FIX:
                return "Put the source's version back, as your edit" if problem.restorable else None
            # a reviewer's verdict, an answer's excerpt: shown as text
            return tip(f"{problem.title}: {problem.reason}" if problem.reason else problem.title)
        if role == Qt.ItemDataRole.AccessibleTextRole:  # an empty cell still says something
            shown = self.data(index, Qt.ItemDataRole.DisplayRole)
            return shown or ("no fix" if column == FIX else "none")
        if role == Qt.ItemDataRole.ForegroundRole and column == FIX:
            # the theme's link colour now (one read when the model was made kept the light
            # theme's blue on the dark theme's rows: 1.8:1)
            return QApplication.palette().color(QPalette.ColorRole.Link)
        if role == Qt.ItemDataRole.UserRole:
            return problem
        return None


class ProblemsDock(QDockWidget):
    """``chosen(Problem)`` when a row is clicked (or Enter pressed on it); ``restore(Problem)``
    when its Restore from source is clicked."""

    chosen = Signal(object)
    restore = Signal(object)

    def __init__(self, excerpt: Callable[[Problem], str], parent: QWidget | None = None) -> None:
        super().__init__("Problems", parent)
        self.setObjectName("problemsView")
        self.all: tuple[Problem, ...] = ()
        self.counts = block_counts(())  # blocks of each kind: every label shows these
        self.kinds = set(KINDS)
        self._before: set[str] = set()  # the kinds shown when a filter button was pressed
        self.filters: dict[str, QToolButton] = {}
        bar = QHBoxLayout()
        bar.setContentsMargins(4, 2, 4, 2)
        for kind in KINDS:
            button = QToolButton()
            button.setObjectName(f"problemsFilter_{kind}")
            button.setCheckable(True)
            button.setChecked(True)
            button.setAutoRaise(True)
            button.setToolTip(
                f"Show only the blocks: {KIND_LABELS[kind].lower()} (click again: show all)"
            )
            button.toggled.connect(lambda on, k=kind: self._filter(k, on))
            button.pressed.connect(lambda: setattr(self, "_before", set(self.kinds)))
            button.clicked.connect(lambda _on, k=kind: self.show_only(k))
            self.filters[kind] = button
            bar.addWidget(button)
        bar.addStretch(1)
        self.restore_button = QToolButton()  # the same as a click on the row's link, by keys
        self.restore_button.setObjectName("problemsRestore")
        self.restore_button.setText(FIX_TEXT)
        self.restore_button.setToolTip("Put the source's version back in the selected block")
        self.restore_button.clicked.connect(self._restore_current)
        bar.addWidget(self.restore_button)
        self.count = QLabel()
        self.count.setObjectName("problemsCount")
        self.model = ProblemsModel(excerpt, self)
        self.table = QTreeView()
        self.table.setObjectName("problemsTable")
        name(self.table, "Problems", "Blocks that need a look; Enter goes to one")
        self.table.setModel(self.model)
        self.table.setRootIsDecorated(False)
        self.table.setUniformRowHeights(True)
        self.table.setAlternatingRowColors(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        # Widths are set, never fitted to the contents: fitting asks every row for its text
        # (thousands of them, on every update of a long document's list).
        header = self.table.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(DETAIL, QHeaderView.ResizeMode.Stretch)
        em = self.fontMetrics().horizontalAdvance("M")
        for column, width in ((LINE, 5 * em), (PROBLEM, 16 * em), (BLOCK, 20 * em)):
            header.resizeSection(column, width)
        header.resizeSection(FIX, self.fontMetrics().horizontalAdvance(EVERYWHERE_TEXT) + 2 * em)
        self.table.clicked.connect(self._clicked)
        self.table.activated.connect(self._activated)
        self.table.selectionModel().currentChanged.connect(self._enable_restore)
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(self._filter_row(bar))
        layout.addWidget(self.table)
        self.setWidget(body)
        self._label_filters()

    def _filter_row(self, bar: QHBoxLayout) -> QHBoxLayout:
        """The filters in a strip that scrolls sideways when the dock is narrower than they
        are (ten kinds with a reviewer model's: the window could not be narrower than 1,090
        px), the count beside it, always whole."""
        inner = QWidget()
        inner.setLayout(bar)
        strip = QScrollArea()
        strip.setObjectName("problemsFilters")
        strip.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # a frame, not a stop: its buttons are
        strip.setWidget(inner)
        strip.setWidgetResizable(True)
        strip.setFrameShape(QFrame.Shape.NoFrame)
        strip.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        strip.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        room = inner.sizeHint().height() + strip.horizontalScrollBar().sizeHint().height()
        strip.setFixedHeight(room)
        strip.setMinimumWidth(0)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 4, 0)
        row.addWidget(strip, 1)
        row.addWidget(self.count)
        return row

    # ---- rows ----------------------------------------------------------------------------------

    def set_problems(self, rows: tuple[Problem, ...]) -> None:
        if rows is not self.all:
            self.counts = block_counts(rows)
        self.all = rows
        self._show()

    def show_only(self, kind: str) -> None:
        """A click on a filter: only that kind's rows; on the kind already alone: all rows."""
        wanted = set(KINDS) if self._before == {kind} else {kind}
        for other, button in self.filters.items():
            button.blockSignals(True)
            button.setChecked(other in wanted)
            button.blockSignals(False)
        self.kinds = wanted
        self._before = set(wanted)
        self._show()

    @property
    def rows(self) -> list[Problem]:
        """The rows on show (the filters applied), in document order."""
        return self.model.rows

    def current_row(self) -> int | None:
        index = self.table.currentIndex()
        return index.row() if index.isValid() else None

    def select(self, row: int) -> None:
        """Make ``row`` the current one and scroll to it (no signal: the caller moves)."""
        index = self.model.index(row, PROBLEM)
        self.table.setCurrentIndex(index)
        self.table.scrollTo(index)

    def _filter(self, kind: str, on: bool) -> None:
        if on:
            self.kinds.add(kind)
        else:
            self.kinds.discard(kind)
        self._show()

    def _show(self) -> None:
        kinds = self.kinds
        shown = [p for p in self.all if p.kind in kinds] if len(kinds) < len(KINDS) else self.all
        self.model.set_rows(shown)
        self._label_filters()
        self._enable_restore()

    def _label_filters(self) -> None:
        counts = self.counts
        for kind, button in self.filters.items():
            button.setText(f"{KIND_LABELS[kind]} {counts[kind]}")
        total = counts[""]
        self.count.setText(
            "No problems" if not total else f"{total} block{'s' if total != 1 else ''}"
        )

    def current(self) -> Problem | None:
        row = self.current_row()
        return self.rows[row] if row is not None and row < len(self.rows) else None

    def _enable_restore(self, *_args: object) -> None:
        """The row's fix, by keys: the button says what the row's link says (Tab reaches it
        from the list; the link itself is a cell, only a click)."""
        problem = self.current()
        self.restore_button.setEnabled(problem is not None and problem.restorable)
        self.restore_button.setText((fix_text(problem) if problem is not None else "") or FIX_TEXT)

    def _restore_current(self) -> None:
        problem = self.current()
        if problem is not None and problem.restorable:
            self.restore.emit(problem)

    # ---- clicks --------------------------------------------------------------------------------

    def _clicked(self, index: QModelIndex) -> None:
        problem = index.data(Qt.ItemDataRole.UserRole)
        if not isinstance(problem, Problem):
            return
        if index.column() == FIX and problem.restorable:
            self.restore.emit(problem)
        else:
            self.chosen.emit(problem)

    def _activated(self, index: QModelIndex) -> None:
        problem = index.data(Qt.ItemDataRole.UserRole)
        if isinstance(problem, Problem):
            self.chosen.emit(problem)
