"""A block's back-translation beside its source: for an editor who does not read the target
language, the translation translated back (fastdesk.translate.quality.Reviewer.back_translate)
shows what it says, next to what the source says."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QLabel,
    QPlainTextEdit,
    QWidget,
)

from fastdesk.ui.panes.common import fixed_font


class BackTranslationDialog(QDialog):
    """Source, translation and back-translation of one block, read only; not modal."""

    def __init__(self, parent: QWidget, source: str, translation: str, back: str) -> None:
        super().__init__(parent)
        self.setObjectName("backTranslationDialog")
        self.setWindowTitle("Back-translation")
        layout = QGridLayout(self)
        self.texts: dict[str, QPlainTextEdit] = {}
        for column, (name, title, text) in enumerate(
            (
                ("source", "Source", source),
                ("back", "Translation, translated back", back),
                ("translation", "Translation", translation),
            )
        ):
            box = QPlainTextEdit(text.strip())
            box.setObjectName(f"backTranslation_{name}")
            box.setReadOnly(True)
            box.setFont(fixed_font())
            layout.addWidget(QLabel(f"<b>{title}</b>"), 0, column)
            layout.addWidget(box, 1, column)
            self.texts[name] = box
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout.addWidget(buttons, 2, 0, 1, 3)
        self.resize(900, 320)


def show_back_translation(
    parent: QWidget, source: str, translation: str, back: str
) -> BackTranslationDialog:
    """Show it (one at a time: a new one replaces the last)."""
    old = parent.findChild(BackTranslationDialog, "backTranslationDialog")
    if old is not None:
        old.close()
        old.deleteLater()
    dialog = BackTranslationDialog(parent, source, translation, back)
    dialog.show()
    return dialog
