"""Blocks' back-translations beside their source: for an editor who does not read the target
language, the translation translated back (fastdesk.translate.quality.Reviewer.back_translate)
shows what it says, next to what the source says. For the block under the cursor, or each block
of the selection (in either pane); cached here while the app runs (and in the memory by the
engine), so asking again for the same translations sends nothing."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QObject
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QLabel,
    QPlainTextEdit,
    QWidget,
)

from fastdesk.ui.panes.accessible import name as accessible_name
from fastdesk.ui.panes.common import fixed_font

MAX_BLOCKS = 50  # a selection's first blocks: a back-translation each is a request
NO_ANSWER = "(no back-translation: no model answered)"

# a block: (its source, its translation, the translation back into the source's language)
Row = tuple[str, str, str]


class BackTranslationDialog(QDialog):
    """Source, translation back and translation of each block side by side, read only (the
    blocks apart by a blank line, the three boxes scrolled together); not modal."""

    def __init__(self, parent: QWidget, rows: Sequence[Row]) -> None:
        super().__init__(parent)
        self.setObjectName("backTranslationDialog")
        self.setWindowTitle(
            "Back-translation" if len(rows) == 1 else f"Back-translation of {len(rows)} blocks"
        )
        self.rows = list(rows)
        layout = QGridLayout(self)
        self.texts: dict[str, QPlainTextEdit] = {}
        columns = (
            ("source", "Source", 0),
            ("back", "Translation, translated back", 2),
            ("translation", "Translation", 1),
        )
        for column, (name, title, part) in enumerate(columns):
            box = QPlainTextEdit("\n\n".join(row[part].strip() for row in rows))
            box.setObjectName(f"backTranslation_{name}")
            accessible_name(box, title)
            box.setReadOnly(True)
            box.setFont(fixed_font())
            layout.addWidget(QLabel(f"<b>{title}</b>"), 0, column)
            layout.addWidget(box, 1, column)
            self.texts[name] = box
        bars = [box.verticalScrollBar() for box in self.texts.values()]
        for bar in bars:  # side by side: one scrolls, the others follow
            bar.valueChanged.connect(lambda value, me=bar: _follow(bars, me, value))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout.addWidget(buttons, 2, 0, 1, 3)
        self.resize(900, 320 if len(rows) == 1 else 560)


def _follow(bars: list, me: object, value: int) -> None:  # type: ignore[type-arg]
    for bar in bars:
        if bar is not me and bar.maximum():
            bar.setValue(round(value * bar.maximum() / max(1, me.maximum())))  # type: ignore[attr-defined]


def show_back_translation(parent: QWidget, rows: Sequence[Row]) -> BackTranslationDialog:
    """Show it (one at a time: a new one replaces the last)."""
    old = parent.findChild(BackTranslationDialog, "backTranslationDialog")
    if old is not None:
        old.close()
        old.deleteLater()
    dialog = BackTranslationDialog(parent, rows)
    dialog.show()
    return dialog


class BackTranslations(QObject):
    """Asks for the blocks' back-translations (``ask(block_id, text)``: the worker's) and shows
    them together once each answered; answers kept per language and translation."""

    def __init__(self, parent: QWidget, ask: Callable[[str, str], None]) -> None:
        super().__init__(parent)
        self._parent = parent
        self._ask = ask
        self._cache: dict[tuple[str, str], str] = {}  # (language, translation) → back
        self._rows: list[tuple[str, str, str]] = []  # the request on show: (block, source, text)
        self._lang = ""
        self._waiting: set[tuple[str, str]] = set()  # (block, text) asked, not answered yet

    def request(self, lang: str, blocks: Sequence[tuple[str, str, str]]) -> int:
        """Back-translate ``blocks`` (id, source, translation) from ``lang``; returns how many
        requests went (0: all known: shown at once)."""
        self._lang = lang
        self._rows = list(blocks[:MAX_BLOCKS])
        self._waiting = {
            (bid, text) for bid, _source, text in self._rows if (lang, text) not in self._cache
        }
        for bid, text in sorted(self._waiting):
            self._ask(bid, text)
        if not self._waiting:
            self._show()
        return len(self._waiting)

    def answered(self, block_id: str, text: str, back: str) -> bool | None:
        """The worker's answer. True: that completed the request, shown; False: completed,
        and no block has a back-translation; None: more to come (or an earlier request's)."""
        if (block_id, text) not in self._waiting:
            return None
        self._waiting.discard((block_id, text))
        if back:
            self._cache[(self._lang, text)] = back
        return None if self._waiting else self._show()

    def _show(self) -> bool:
        rows = [
            (src, text, self._cache.get((self._lang, text), NO_ANSWER))
            for _b, src, text in self._rows
        ]
        if all(back == NO_ANSWER for _s, _t, back in rows):
            return False
        show_back_translation(self._parent, rows)
        return True
