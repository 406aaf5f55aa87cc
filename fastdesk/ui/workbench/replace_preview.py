"""The Replace All preview (objectName ``replacePreview``): each change in its line, old → new,
ticked; the editor skips one by unticking it (Space), keeps one by ticking it, or takes all.

Why a preview: a blind Replace All turned "Pull requests" into "demande de fusions". The
changes come from the core's plan (fastdesk.document.find.plan); the bar replaces the ticked
ones in one undoable step.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from fastdesk.document.find import Change
from fastdesk.ui.plain import tip


class ReplacePreview(QDialog):
    """Changes to accept or skip; ``chosen()`` gives the indices of the accepted ones."""

    def __init__(self, changes: list[Change], where: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("replacePreview")
        self.setWindowTitle("Replace All: preview")
        self.resize(640, 420)
        self.changes = changes
        code = sum(change.verbatim for change in changes)
        marked = f" ({code} in code or link targets: marked)" if code else ""
        head = QLabel(
            f"{len(changes)} change{'s' if len(changes) != 1 else ''} in {where}{marked}. "
            "Untick a change to skip it (Space), then Replace."
        )
        head.setWordWrap(True)
        self.list = QListWidget()
        self.list.setObjectName("replaceChanges")
        self.list.setUniformItemSizes(True)
        for change in changes:
            item = QListWidgetItem(_line(change))
            item.setToolTip(tip(f"{change.old!r} → {change.new!r}"))
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked)
            self.list.addItem(item)
        self.list.setCurrentRow(0)
        self.list.itemChanged.connect(self._update)
        self.list.itemActivated.connect(self._toggle)  # Enter or a double click
        buttons = QDialogButtonBox()
        self.replace_button = buttons.addButton("Replace", QDialogButtonBox.ButtonRole.AcceptRole)
        self.replace_button.setObjectName("replaceChosen")
        self.all_button = QPushButton("Tick All")
        self.all_button.setObjectName("replaceTickAll")
        self.none_button = QPushButton("Untick All")
        self.none_button.setObjectName("replaceTickNone")
        buttons.addButton(self.all_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(self.none_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.all_button.clicked.connect(lambda: self.tick_all(True))
        self.none_button.clicked.connect(lambda: self.tick_all(False))
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(head)
        layout.addWidget(self.list, 1)
        layout.addWidget(buttons)
        self._update()

    def chosen(self) -> list[int]:
        """The indices (in the plan's order) of the ticked changes."""
        return [
            k
            for k in range(self.list.count())
            if self.list.item(k).checkState() == Qt.CheckState.Checked
        ]

    def tick(self, index: int, on: bool) -> None:
        state = Qt.CheckState.Checked if on else Qt.CheckState.Unchecked
        self.list.item(index).setCheckState(state)

    def tick_all(self, on: bool) -> None:
        for k in range(self.list.count()):
            self.tick(k, on)

    def _toggle(self, item: QListWidgetItem) -> None:
        self.tick(self.list.row(item), item.checkState() != Qt.CheckState.Checked)

    def _update(self) -> None:
        count = len(self.chosen())
        self.replace_button.setText(f"Replace {count}" if count else "Replace")
        self.replace_button.setEnabled(count > 0)


def _line(change: Change) -> str:
    """One row: "…words before [old → new] words after…" in plain text (the list shows text)."""
    before = ("…" if change.before else "") + change.before
    after = change.after + ("…" if change.after else "")
    mark = "(code or link target) " if change.verbatim else ""
    return f"{mark}{before}[{_shown(change.old)} → {_shown(change.new)}]{after}"


def _shown(text: str) -> str:
    return text.replace("\n", "⏎")
