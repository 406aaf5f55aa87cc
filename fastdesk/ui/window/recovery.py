"""At start-up, what a crash left behind (fastdesk.review.autosave.pending()) is offered back.

The dialog only lists and asks; restoring is the window's job (it owns the document). Declining
one deletes its copy; "Later" keeps them all for the next start.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
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

from fastdesk.review.autosave import Recovery, discard
from fastdesk.ui.plain import tip


class RecoveryDialog(QDialog):
    """Lists pending recoveries; Restore (the selected one), Discard (the selected ones), Later."""

    restore_requested = Signal(object)  # Recovery

    def __init__(self, recoveries: Sequence[Recovery], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("recoveryDialog")
        self.setWindowTitle("Recover unsaved work")
        self.setMinimumWidth(560)
        layout = QVBoxLayout(self)
        intro = QLabel(
            "fastdesk did not close properly last time. These documents had changes that were "
            "not saved (your corrections of the translation included):"
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.list = QListWidget()
        self.list.setObjectName("recoveryList")
        self.list.setSelectionMode(QListWidget.SelectionMode.ExtendedSelection)
        for recovery in recoveries:
            item = QListWidgetItem(recovery.label)
            item.setData(Qt.ItemDataRole.UserRole, recovery)
            item.setToolTip(tip(f"{recovery.path or 'Untitled'} — {recovery.chars} characters"))
            self.list.addItem(item)
        self.list.setCurrentRow(0)
        self.list.itemDoubleClicked.connect(lambda _item: self.restore_selected())
        layout.addWidget(self.list)
        buttons = QDialogButtonBox()
        self.restore_button = self._button(buttons, "recoveryRestore", "&Restore", True)
        self.discard_button = self._button(buttons, "recoveryDiscard", "&Discard", False)
        self.later_button = self._button(buttons, "recoveryLater", "Decide &Later", False)
        self.restore_button.clicked.connect(self.restore_selected)
        self.discard_button.clicked.connect(self.discard_selected)
        self.later_button.clicked.connect(self.reject)
        self.list.itemSelectionChanged.connect(self._enable)
        layout.addWidget(buttons)
        self._enable()

    @staticmethod
    def _button(box: QDialogButtonBox, name: str, text: str, default: bool) -> QPushButton:
        button = QPushButton(text)
        button.setObjectName(name)
        button.setDefault(default)
        box.addButton(button, QDialogButtonBox.ButtonRole.ActionRole)
        return button

    def recoveries(self) -> list[Recovery]:
        return [self.list.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.list.count())]

    def _selected(self) -> list[QListWidgetItem]:
        return self.list.selectedItems()

    def _enable(self) -> None:
        count = len(self._selected())
        self.restore_button.setEnabled(count == 1)
        self.discard_button.setEnabled(count > 0)

    def restore_selected(self) -> None:
        items = self._selected()
        if len(items) != 1:
            return
        recovery = items[0].data(Qt.ItemDataRole.UserRole)
        self.accept()
        self.restore_requested.emit(recovery)

    def discard_selected(self) -> None:
        for item in self._selected():
            discard(item.data(Qt.ItemDataRole.UserRole))
            self.list.takeItem(self.list.row(item))
        if self.list.count() == 0:
            self.accept()
        else:
            self.list.setCurrentRow(0)
