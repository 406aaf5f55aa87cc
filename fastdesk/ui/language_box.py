"""A language box: every language the app offers by name, and any other BCP-47 code on demand.

The toolbar's selector, the second target pane and the Settings dialog each have one; here,
below all three, so that none imports another for it.
"""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox

from fastdesk.document.languages import LANGUAGES, language_name


def fill_languages(combo: QComboBox) -> None:
    """Every language the app offers, by name, with its code as the item's data."""
    for code in sorted(LANGUAGES, key=lambda c: LANGUAGES[c].lower()):
        combo.addItem(f"{LANGUAGES[code]} ({code})", code)


def show_language(combo: QComboBox, code: str) -> None:
    """Select ``code`` in a language box (added when it is not listed: any BCP-47 code)."""
    index = combo.findData(code)
    if index < 0:
        combo.addItem(f"{language_name(code)} ({code})", code)
        index = combo.count() - 1
    combo.setCurrentIndex(index)
