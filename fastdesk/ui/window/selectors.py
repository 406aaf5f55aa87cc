"""The toolbar's three choices: mode, target language (a name or any BCP-47 code can be typed)
and provider. Together they are the job spec the document is translated with."""

from __future__ import annotations

import re
from collections.abc import Sequence

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QComboBox, QCompleter, QLineEdit, QSizePolicy

from fastdesk.config.settings import Settings
from fastdesk.document.languages import LANGUAGES
from fastdesk.providers.factory import not_configured
from fastdesk.translate.job import JobSpec
from fastdesk.ui.language_box import fill_languages, show_language
from fastdesk.ui.panes.accessible import name

# the settings' review (auto | on | off) as a job's (None: when the rate budget allows)
REVIEW: dict[str, bool | None] = {"auto": None, "on": True, "off": False}

MODES = (("translate", "Translate"), ("simplify", "Simplify"))
PROVIDER_LABELS = {
    "auto": "Auto (fastest)",
    "groq": "Groq",
    "cerebras": "Cerebras",
    "openai": "OpenAI-compatible",
}


class Selectors(QObject):
    """The mode, language and provider combo boxes; ``changed`` when the user picks another."""

    changed = Signal()

    def __init__(self, settings: Settings, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.review = REVIEW[settings.review]
        self.mode = QComboBox()
        self.mode.setObjectName("modeSelector")
        self.mode.setToolTip("Mode (Ctrl+1 translate, Ctrl+2 simplify)")
        for code, label in MODES:
            self.mode.addItem(label, code)
        self.mode.setCurrentIndex(max(0, self.mode.findData(settings.mode)))
        self.mode.currentIndexChanged.connect(self.changed)
        name(self.mode, "Mode")

        self.language = combo = QComboBox()
        combo.setObjectName("languageSelector")
        combo.setToolTip("Target language: type a name or a code (Ctrl+L)")
        combo.setEditable(True)
        name(combo, "Target language", "Type a name or a code")
        combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        combo.setMinimumContentsLength(24)
        combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        combo.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        fill_languages(combo)
        completer = QCompleter(combo.model(), combo)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        combo.setCompleter(completer)
        self.select_language(settings.target_language)
        combo.currentIndexChanged.connect(self.changed)
        self._line_edit().editingFinished.connect(self._language_typed)

        self.provider = QComboBox()
        self.provider.setObjectName("providerSelector")
        self.provider.setToolTip("Provider: auto picks the fastest configured one")
        name(self.provider, "Provider")
        chosen = settings.provider
        self.fill_providers(() if chosen == "auto" else (chosen,), chosen)
        self.provider.currentIndexChanged.connect(self.changed)

    @property
    def widgets(self) -> tuple[QComboBox, QComboBox, QComboBox]:
        return self.mode, self.language, self.provider

    def spec(self) -> JobSpec:
        return JobSpec(
            mode=self.mode.currentData() or "translate",
            target_lang=self.language.currentData() or "fr",
            provider=self.provider.currentData() or "auto",
            review=self.review,
        )

    def set_mode(self, mode: str) -> None:
        self.mode.setCurrentIndex(max(0, self.mode.findData(mode)))

    def select_language(self, code: str) -> None:
        show_language(self.language, code)

    def follow(self, settings: Settings) -> None:
        """Show what the settings say, without ``changed`` (the caller acts on the whole)."""
        self.review = REVIEW[settings.review]
        for combo, value in ((self.mode, settings.mode), (self.provider, settings.provider)):
            combo.blockSignals(True)
            combo.setCurrentIndex(max(0, combo.findData(value)))
            combo.blockSignals(False)
        self.language.blockSignals(True)
        self.select_language(settings.target_language)
        self.language.blockSignals(False)

    def fill_providers(self, names: Sequence[str], selected: str) -> None:
        """ "Auto" and the configured providers; a chosen one that is not configured says so."""
        combo = self.provider
        combo.blockSignals(True)
        combo.clear()
        for provider in ("auto", *names):
            combo.addItem(PROVIDER_LABELS.get(provider, provider), provider)
        index = combo.findData(selected)
        if index < 0:  # a provider chosen in the settings but not configured
            combo.addItem(f"{PROVIDER_LABELS.get(selected, selected)} (not configured)", selected)
            index = combo.count() - 1
            combo.setItemData(index, not_configured([selected]), Qt.ItemDataRole.ToolTipRole)
        combo.setCurrentIndex(index)
        combo.blockSignals(False)

    def focus_language(self) -> None:
        self.language.setFocus()
        self._line_edit().selectAll()

    def focus_provider(self) -> None:
        self.provider.setFocus()
        self.provider.showPopup()

    def _line_edit(self) -> QLineEdit:
        edit = self.language.lineEdit()
        assert edit is not None  # the language box is editable
        return edit

    def _language_typed(self) -> None:
        """Enter in the language box: a listed name or code, or any well-formed BCP-47 code."""
        combo = self.language
        text = combo.currentText().strip()
        index = combo.findText(text, Qt.MatchFlag.MatchFixedString)
        if index < 0:
            for i in range(combo.count()):
                code = combo.itemData(i)
                if text.lower() in (
                    code.lower(),
                    f"({code.lower()})",
                    LANGUAGES.get(code, "").lower(),
                ):
                    index = i
                    break
        if index < 0 and text:
            index = combo.findText(self._completion(text), Qt.MatchFlag.MatchFixedString)
        if index < 0 and _looks_like_code(text):
            self.select_language(text)
            return
        if index >= 0:
            combo.setCurrentIndex(index)
        else:  # not a language: show the current choice again
            combo.setEditText(combo.itemText(combo.currentIndex()))

    def _completion(self, text: str) -> str:
        """What Enter picks for ``text``: the match highlighted in the completer's list, else
        the first that starts with it ("Span": Spanish, not Mexican Spanish), else the first."""
        completer = self.language.completer()
        if completer is None:
            return ""
        popup = completer.popup()
        if popup is not None and popup.isVisible() and popup.currentIndex().isValid():
            return str(popup.currentIndex().data())
        completer.setCompletionPrefix(text)
        found = []
        for row in range(completer.completionCount()):
            completer.setCurrentRow(row)
            found.append(completer.currentCompletion())
        starting = [name for name in found if name.lower().startswith(text.lower())]
        return (starting or found or [""])[0]


def _looks_like_code(text: str) -> bool:
    return bool(re.fullmatch(r"[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*", text))
