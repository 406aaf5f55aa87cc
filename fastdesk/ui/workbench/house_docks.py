"""The House Style and Glossary docks' widgets (objectNames ``styleView``, ``glossaryView``):
they show and signal; fastdesk.ui.workbench.house.HouseKeeper reads and writes the files."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDockWidget,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from fastdesk.ui.panes.accessible import name
from fastdesk.ui.plain import plain

__all__ = ["LEVELS", "LEVEL_MEANINGS", "GlossaryDock", "StyleDock"]

_KEPT = "(kept as it is)"
LEVELS = ("plain", "A1", "A2", "B1", "B2", "C1", "C2", "grade 4", "grade 6", "grade 8")
# what each level asks of the rewrite (CEFR: the Council of Europe's six levels of a language;
# grades: US school grades, as readability formulas such as Flesch-Kincaid count them)
LEVEL_MEANINGS = {
    "plain": "plain language: everyday words, short sentences",
    "A1": "beginner: the commonest words, very short sentences",
    "A2": "elementary: simple everyday language",
    "B1": "intermediate: clear standard language",
    "B2": "upper intermediate: most texts, some abstract",
    "C1": "advanced: complex texts, lightly eased",
    "C2": "proficient: close to the original",
    "grade 4": "US school grade 4, about age 9",
    "grade 6": "US school grade 6, about age 11",
    "grade 8": "US school grade 8, about age 13",
}
LEVELS_EXPLAINED = (
    "Simplify rewrites for this reader: A1 (beginner) to C2 (proficient) are the European "
    "(CEFR) levels; a grade is a US school year."
)
_LEVEL_FILE = "The level the style file's Simplify section names (plain language without one)"


class StyleDock(QDockWidget):
    """``save(text)`` when Save is pressed; ``edited(text)`` as the text changes;
    ``level_chosen(label)`` when a reading level is picked for simplify ("": the file's)."""

    save = Signal(str)
    edited = Signal(str)
    level_chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("House Style", parent)
        self.setObjectName("styleView")
        body = QWidget()
        layout = QVBoxLayout(body)
        self.where = plain(QLabel())  # file names, a project's words: shown as they are
        self.where.setObjectName("styleFile")
        self.where.setWordWrap(True)
        self.editor = QPlainTextEdit()
        self.editor.setObjectName("styleText")
        name(
            self.editor,
            "House style instructions",
            "Markdown: a section for all languages, one per language code, one for Simplify",
        )
        self.editor.setPlaceholderText(
            "## All languages\nAudience, tone, units…\n\n## fr\nVouvoyez le lecteur.\n\n"
            "## Simplify\nReading level: B1"
        )
        self.impact = plain(QLabel())
        self.impact.setObjectName("styleImpact")
        self.impact.setWordWrap(True)
        self.save_button = QPushButton("&Save Style")
        self.save_button.setObjectName("styleSave")
        self.level = QComboBox()
        self.level.setObjectName("readingLevel")
        self.level.setToolTip("What Simplify aims at, in this window (the style file's otherwise)")
        self.level.addItem("the style file's level", "")
        self.level.setItemData(0, _LEVEL_FILE, Qt.ItemDataRole.ToolTipRole)
        for label in LEVELS:
            self._add_level(label)
        # as narrow as a short choice: the popup shows each whole, with what it means
        self.level.setMinimumContentsLength(16)
        self.level.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.level.currentIndexChanged.connect(
            lambda _i: self.level_chosen.emit(self.level.currentData() or "")
        )
        name(self.level, "Reading level for Simplify", LEVELS_EXPLAINED)
        self.level_label = QLabel("Simplify &for:")
        self.level_label.setBuddy(self.level)
        self.level_help = QLabel(LEVELS_EXPLAINED)
        self.level_help.setObjectName("readingLevelHelp")
        self.level_help.setWordWrap(True)
        self.level_row = QWidget()
        level_row = QVBoxLayout(self.level_row)
        level_row.setContentsMargins(0, 0, 0, 0)
        chooser = QHBoxLayout()
        chooser.addWidget(self.level_label)
        chooser.addWidget(self.level, 1)
        level_row.addLayout(chooser)
        level_row.addWidget(self.level_help)
        row = QHBoxLayout()
        row.addWidget(self.impact, 1)
        row.addWidget(self.save_button)
        layout.addWidget(self.where)
        layout.addWidget(self.level_row)
        layout.addWidget(self.editor, 1)
        layout.addLayout(row)
        self.setWidget(body)
        self.path: Path | None = None  # the file shown
        self.editor.textChanged.connect(lambda: self.edited.emit(self.editor.toPlainText()))
        self.save_button.clicked.connect(lambda: self.save.emit(self.editor.toPlainText()))

    def _add_level(self, label: str) -> None:
        meaning = LEVEL_MEANINGS.get(label, "")
        self.level.addItem(f"{label} — {meaning}" if meaning else label, label)
        if meaning:
            self.level.setItemData(self.level.count() - 1, meaning, Qt.ItemDataRole.ToolTipRole)

    def show_mode(self, mode: str) -> None:
        """The reading level is Simplify's: shown in that mode only."""
        self.level_row.setVisible(mode == "simplify")

    def show_level(self, label: str) -> None:
        """Show ``label`` chosen ("": the file's), without saying so (a saved choice)."""
        index = self.level.findData(label)
        self.level.blockSignals(True)
        if index < 0:
            self._add_level(label)
            index = self.level.count() - 1
        self.level.setCurrentIndex(index)
        self.level.blockSignals(False)

    def show_file(self, path: Path, text: str, exists: bool) -> None:
        """The file's text, unless the user's unsaved edit of that same file is showing."""
        label = str(path) if exists else f"{path} (saving creates it)"
        if self.editor.document().isModified() and self.path == path:
            self.where.setText(label)
            return
        self.path = path
        self.where.setText(label)
        self.editor.blockSignals(True)
        self.editor.setPlainText(text)
        self.editor.document().setModified(False)
        self.editor.blockSignals(False)
        self.impact.setText("")


class GlossaryDock(QDockWidget):
    """The entries for one language. ``add(source, target)``, ``remove(source)``,
    ``import_file()`` and ``export_file()`` are the user's requests."""

    add = Signal(str, str)
    remove = Signal(str)
    import_file = Signal()
    export_file = Signal()
    take_suggestion = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Glossary", parent)
        self.setObjectName("glossaryView")
        body = QWidget()
        layout = QVBoxLayout(body)
        self.where = plain(QLabel())
        self.where.setObjectName("glossaryFile")
        self.where.setWordWrap(True)
        self.table = QTableWidget(0, 2)
        self.table.setObjectName("glossaryTable")
        name(
            self.table,
            "Glossary entries",
            "Source term and its translation; edit a translation in place",
        )
        self.table.setHorizontalHeaderLabels(["Source", "Translation"])
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.itemChanged.connect(self._changed)
        self.source = QLineEdit()
        self.source.setObjectName("glossarySource")
        self.source.setPlaceholderText("term in the source")
        name(self.source, "New entry: term in the source")
        self.target = QLineEdit()
        self.target.setObjectName("glossaryTarget")
        self.target.setPlaceholderText("its translation")
        name(self.target, "New entry: its translation", "Enter adds the entry")
        self.target.returnPressed.connect(self._add)
        add = QPushButton("&Add")
        add.setObjectName("glossaryAdd")
        add.clicked.connect(self._add)
        entry = QHBoxLayout()
        entry.addWidget(self.source)
        entry.addWidget(self.target)
        entry.addWidget(add)
        buttons = QHBoxLayout()
        for text, object_name, signal in (
            ("&Delete", "glossaryDelete", None),
            ("&Import…", "glossaryImport", self.import_file),
            ("E&xport…", "glossaryExport", self.export_file),
        ):
            button = QPushButton(text)
            button.setObjectName(object_name)
            if signal is None:
                button.clicked.connect(self._delete)
            else:
                button.clicked.connect(signal.emit)
            buttons.addWidget(button)
        buttons.addStretch(1)
        self.message = plain(QLabel())
        self.message.setObjectName("glossaryMessage")
        self.message.setWordWrap(True)
        # an entry the editor's corrections keep making ("you changed … 3 times")
        self.suggestion = plain(QLabel())  # the editor's words, the project's terms
        self.suggestion.setObjectName("glossarySuggestion")
        self.suggestion.setWordWrap(True)
        self.suggest_add = QPushButton("Add &It")
        self.suggest_add.setObjectName("glossarySuggestAdd")
        self.suggest_add.clicked.connect(self.take_suggestion.emit)
        suggested = QHBoxLayout()
        suggested.addWidget(self.suggestion, 1)
        suggested.addWidget(self.suggest_add)
        for part in (self.where, self.table):
            layout.addWidget(part)
        layout.addLayout(entry)
        layout.addLayout(buttons)
        layout.addLayout(suggested)
        layout.addWidget(self.message)
        self.show_suggestion("")
        self.setWidget(body)

    def set_entries(self, where: str, rows: list[tuple[str, str | None]]) -> None:
        """(source, translation) rows; a translation None is a kept term (not editable)."""
        self.where.setText(where)
        self.table.blockSignals(True)
        self.table.setRowCount(len(rows))
        for n, (source, target) in enumerate(rows):
            left = QTableWidgetItem(source)
            left.setFlags(left.flags() & ~Qt.ItemFlag.ItemIsEditable)
            right = QTableWidgetItem(_KEPT if target is None else target)
            if target is None:
                right.setFlags(right.flags() & ~Qt.ItemFlag.ItemIsEditable)
            self.table.setItem(n, 0, left)
            self.table.setItem(n, 1, right)
        self.table.blockSignals(False)

    def show_suggestion(self, text: str) -> None:
        self.suggestion.setText(text)
        self.suggestion.setVisible(bool(text))
        self.suggest_add.setVisible(bool(text))

    def prefill(self, source: str, target: str) -> None:
        self.source.setText(source)
        self.target.setText(target)
        self.target.setFocus()
        self.target.selectAll()

    def _add(self) -> None:
        if self.source.text().strip() and self.target.text().strip():
            self.add.emit(self.source.text(), self.target.text())

    def _delete(self) -> None:
        row = self.table.currentRow()
        item = self.table.item(row, 0) if row >= 0 else None
        if item is not None:
            self.remove.emit(item.text())

    def _changed(self, item: QTableWidgetItem) -> None:
        source = self.table.item(item.row(), 0)
        if item.column() == 1 and source is not None and item.text().strip():
            self.add.emit(source.text(), item.text())
