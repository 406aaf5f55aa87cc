"""The Settings dialog: keys per provider (stored in the OS keyring only), a connection test that
lists the provider's models with the round-trip time, and the settings users change.

Nothing here waits on the network in the GUI thread: "Test connection" runs in
:class:`AsyncRunner` (an asyncio loop in a daemon thread); the result comes back as a queued
signal. While that thread lives, Python's cyclic garbage collector runs on the GUI thread only
(:func:`hold_gc_on_gui_thread`): Qt objects must never be finalised from another thread. Keys are
never written anywhere but the keyring (:mod:`fastdesk.config.keys`); with no usable
keyring the dialog says so and names the environment variables instead.

Wiring (the window)::

    dialog = SettingsDialog(self.settings, self, ledger=self.ledger)   # ledger optional
    dialog.settingsSaved.connect(self.apply_settings)   # Settings, after Save (keys included)
    dialog.keysChanged.connect(self.restart_engine)     # a key was deleted, then Cancel
    dialog.open()
"""

from __future__ import annotations

import dataclasses
import logging
import re

from PySide6.QtCore import QLocale, Qt, Signal
from PySide6.QtGui import QDoubleValidator
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from fastdesk.config import keys
from fastdesk.config.settings import (
    DEFAULT_MODELS,
    PROVIDER_NAMES,
    Settings,
    glossary_file,
    save_settings,
    saved_settings,
)
from fastdesk.document.languages import LANGUAGES
from fastdesk.routing import costs, models
from fastdesk.routing.pricing import PriceTable
from fastdesk.translate.memory import Memory
from fastdesk.ui.bridge.threads import AsyncRunner, error_text
from fastdesk.ui.language_box import fill_languages, show_language
from fastdesk.ui.panes.accessible import name as accessible_name
from fastdesk.ui.panes.accessible import name_popups
from fastdesk.ui.panes.theme import text_colour
from fastdesk.ui.plain import ask, escape, plain, tip

__all__ = ["SettingsDialog"]

log = logging.getLogger(__name__)

PROVIDER_TITLES = {
    "groq": "Groq",
    "cerebras": "Cerebras",
    "openai": "OpenAI-compatible server (Ollama, llama.cpp, vLLM, LM Studio)",
}
KEY_HINTS = {
    "groq": "Paste your Groq key (gsk_…) from console.groq.com/keys",
    "cerebras": "Paste your Cerebras key (csk-…) from cloud.cerebras.ai",
    "openai": "Only if the server asks for one",
}
PROVIDER_CHOICES = (
    ("auto", "Automatic (the fastest configured provider)"),
    ("groq", "Groq"),
    ("cerebras", "Cerebras"),
    ("openai", "OpenAI-compatible server"),
)
MODES = (("translate", "Translate"), ("simplify", "Simplify (plain language)"))
# the window's reviewer pass (docs/quality.md), as config.settings.REVIEW_CHOICES
REVIEW_CHOICES = (
    ("auto", "When the rate budget allows (your own rate limits)"),
    ("on", "On"),
    ("off", "Off"),
)
THEME_CHOICES = (("system", "As the system"), ("light", "Light"), ("dark", "Dark"))
_CODE = re.compile(r"^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$")
_CODE_IN_PARENS = re.compile(r"\(([A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*)\)\s*$")
SHOWN_MODELS = 3  # model names spelled out in a test result


# ---- the dialog ---------------------------------------------------------------------------------


class _ProviderBox(QGroupBox):
    """One provider: its key (and base URL), a connection test, the model to use."""

    def __init__(self, name: str, dialog: SettingsDialog) -> None:
        super().__init__(PROVIDER_TITLES[name])
        self.name = name
        self.dialog = dialog
        self.setObjectName(f"{name}Box")
        # Word-wrapped labels stay out of the form: QFormLayout over-allocates their height.
        outer = QVBoxLayout(self)
        form = self.form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        outer.addLayout(form)

        self.url_edit: QLineEdit | None = None
        if name == "openai":
            self.url_edit = QLineEdit()
            self.url_edit.setObjectName("openaiUrlEdit")
            self.url_edit.setPlaceholderText("http://127.0.0.1:11434/v1")
            self.url_edit.setText(dialog.settings.base_urls.get("openai", ""))
            self.url_edit.setToolTip("The server's OpenAI-compatible base URL, ending in /v1")
            form.addRow("Base &URL:", self.url_edit)

        self.key_edit = QLineEdit()
        self.key_edit.setObjectName(f"{name}KeyEdit")
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_edit.setClearButtonEnabled(True)
        self.key_edit.setPlaceholderText(KEY_HINTS[name])
        title = PROVIDER_TITLES[name].split(" (")[0]  # "OpenAI-compatible server"
        accessible_name(self.key_edit, f"{title} API key", KEY_HINTS[name])
        self.delete_button = QPushButton("Delete stored key")
        self.delete_button.setObjectName(f"{name}DeleteKeyButton")
        accessible_name(self.delete_button, f"Delete the stored {title} key")
        self.delete_button.setAutoDefault(False)
        self.delete_button.clicked.connect(self.delete_key)
        key_row = QHBoxLayout()
        key_row.addWidget(self.key_edit, 1)
        key_row.addWidget(self.delete_button)
        form.addRow(
            _buddy("API &key:" if name != "openai" else "API key (o&ptional):", self.key_edit),
            key_row,
        )
        self.key_state = QLabel()
        self.key_state.setObjectName(f"{name}KeyState")
        self.key_state.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        form.addRow("", self.key_state)

        self.model_combo = QComboBox()
        self.model_combo.setObjectName(f"{name}ModelCombo")
        self.model_combo.setEditable(True)
        self.model_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.model_combo.setMinimumContentsLength(28)
        self.model_combo.setToolTip("Pick a listed model or type any id the provider serves")
        accessible_name(self.model_combo, f"{title} model", "A listed model or any id it serves")
        self.model_combo.currentTextChanged.connect(self._show_price)
        self.test_button = QPushButton("&Test connection")
        self.test_button.setObjectName(f"{name}TestButton")
        accessible_name(self.test_button, f"Test the {title} connection")
        self.test_button.setAutoDefault(False)
        self.test_button.setToolTip("List the provider's models with these settings")
        self.test_button.clicked.connect(self.test_connection)
        model_row = QHBoxLayout()
        model_row.addWidget(self.model_combo, 1)
        model_row.addWidget(self.test_button)
        form.addRow(_buddy("&Model:", self.model_combo), model_row)
        self.price_label = plain(QLabel())
        self.price_label.setObjectName(f"{name}PriceLabel")
        self.result_label = plain(QLabel())  # a server's answer: model ids, its error
        self.result_label.setObjectName(f"{name}TestResult")
        self.result_label.setWordWrap(True)
        self.result_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.result_label.hide()
        form.addRow("", self.price_label)
        # retired or not; each rate limit and where it came from (a server's headers)
        self.limits_label = plain(QLabel())
        self.limits_label.setObjectName(f"{name}LimitsLabel")
        self.limits_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        form.addRow("", self.limits_label)
        outer.addWidget(self.result_label)

        self._token: int | None = None
        self.refresh_key_state()
        # The user's own choice, not model_for(): a per-language preference or an environment
        # variable shown here would be saved as the general choice.
        chosen = dialog.settings.models.get(name) or DEFAULT_MODELS.get(name, "")
        self._fill_models(self._cached_rows(), chosen)

    # -- keys ----------------------------------------------------------------------------------

    def refresh_key_state(self) -> None:
        """Say where the key comes from (environment wins), masked; enable what can be done."""
        env_name = keys.ENV_VARS[self.name]
        env = keys.env_key(self.name)
        stored = keys.stored_key(self.name) if self.dialog.keyring_ok else None
        self.has_stored = stored is not None
        parts: list[str] = []
        if env:
            parts.append(f"Using {env_name} ({keys.mask(env)}): the environment wins.")
        if stored:
            parts.append(f"Stored in the OS keyring: {keys.mask(stored)}.")
        elif not env:
            parts.append("No key stored." if self.dialog.keyring_ok else f"No key: set {env_name}.")
        self.key_state.setText(" ".join(parts))
        self.key_edit.setEnabled(self.dialog.keyring_ok)
        if not self.dialog.keyring_ok:
            self.key_edit.setPlaceholderText(f"No keyring: set {env_name} instead")
        elif stored:
            self.key_edit.setPlaceholderText("Paste a new key to replace the stored one")
        self.delete_button.setEnabled(self.dialog.keyring_ok and stored is not None)

    def typed_key(self) -> str:
        return self.key_edit.text().strip()

    def delete_key(self) -> None:
        title = PROVIDER_TITLES[self.name].split(" (")[0]
        if not self.dialog.confirm(f"Delete the stored {title} key from the OS keyring?"):
            return
        try:
            deleted = keys.delete_key(self.name)
        except (keys.KeysError, ValueError) as exc:
            self.show_result(f"Not deleted: {error_text(exc)}", ok=False)
            return
        self.dialog.keys_changed = True
        self.refresh_key_state()
        self.show_result("Key deleted." if deleted else "There was no stored key.", ok=True)

    def store_typed_key(self) -> bool:
        """Store a typed key (Save); False with the reason shown when it could not be."""
        key = self.typed_key()
        if not key:
            return True
        try:
            keys.set_key(self.name, key)
        except (keys.KeysError, ValueError) as exc:
            self.show_result(f"Key not stored: {error_text(exc)}", ok=False)
            self.key_edit.setFocus()
            return False
        self.key_edit.clear()
        self.dialog.keys_changed = True
        self.refresh_key_state()
        return True

    # -- connection test -----------------------------------------------------------------------

    def base_url(self) -> str | None:
        if self.url_edit is not None:
            return self.url_edit.text().strip() or self.dialog.settings.base_url_for("openai")
        return self.dialog.settings.base_url_for(self.name)

    def test_connection(self) -> None:
        """List the models in the background; the button says so until the answer comes."""
        if self._token is not None:
            return
        name = self.name  # the loop thread gets plain values, never a reference to this widget
        key = self.typed_key() or keys.get_key(name)
        base_url = self.base_url()
        prices = self.dialog.prices
        self.test_button.setEnabled(False)
        self.test_button.setText("Testing…")
        self.show_result("Connecting…", ok=None)
        self._token = self.dialog.runner.submit(
            lambda: models.probe(name, api_key=key, base_url=base_url, prices=prices),
            self._tested,
        )

    def _tested(self, probe: models.Probe | None, error: BaseException | None) -> None:
        self._token = None
        self.test_button.setEnabled(True)
        self.test_button.setText("&Test connection")
        if error is not None or probe is None:
            self.show_result(f"Failed: {error_text(error or RuntimeError('no answer'))}", ok=False)
            return
        ids = [row.id for row in probe.rows]
        shown = ", ".join(ids[:SHOWN_MODELS]) + (", …" if len(ids) > SHOWN_MODELS else "")
        count = f"{len(ids)} model" + ("" if len(ids) == 1 else "s")
        self.show_result(
            f"Connected in {probe.round_trip_ms:.0f} ms · {count}" + (f": {shown}" if ids else ""),
            ok=True,
        )
        self.result_label.setToolTip(tip("\n".join(ids)))
        self._fill_models(probe.rows, self.model_combo.currentText().strip())

    def show_result(self, text: str, *, ok: bool | None) -> None:
        color = {True: "#1a7f37", False: "#d1242f", None: ""}[ok]
        if color:  # readable (WCAG AA) on this theme's dialog
            color = text_colour(color, self.result_label.palette())
        self.result_label.setStyleSheet(f"color: {color};" if color else "")
        self.result_label.setText(text)
        self.result_label.show()

    # -- models --------------------------------------------------------------------------------

    def _cached_rows(self) -> list[models.ModelRow]:
        base_url = self.url_edit.text().strip() if self.url_edit is not None else None
        rows = models.cached_models(
            self.name, max_age=None, base_url=base_url or None, prices=self.dialog.prices
        )
        return rows or []

    def _fill_models(self, rows: list[models.ModelRow], current: str) -> None:
        combo = self.model_combo
        combo.blockSignals(True)
        combo.clear()
        ids = [row.id for row in rows]
        default = DEFAULT_MODELS.get(self.name, "")
        for model_id in (*ids, default, current):
            if model_id and combo.findText(model_id, Qt.MatchFlag.MatchFixedString) < 0:
                row = models.model_row(self.name, model_id, self.dialog.prices)
                combo.addItem(model_id)
                price = tip(row.price_text())
                combo.setItemData(combo.count() - 1, price, Qt.ItemDataRole.ToolTipRole)
        combo.setEditText(current)
        edit = combo.lineEdit()
        if not current and self.name == "openai" and edit is not None:
            edit.setPlaceholderText("the server's first model")
        combo.blockSignals(False)
        self._show_price(current)

    def _show_price(self, text: str) -> None:
        """The model's price, whether it was found retired, and its rate limits with where
        each came from (the table, your settings, or the server's headers on a given day)."""
        model_id = text.strip()
        price = models.model_row(self.name, model_id, self.dialog.prices) if model_id else None
        self.price_label.setText(price.price_text() if price else "")
        self.form.setRowVisible(self.price_label, price is not None)
        lines: list[str] = []
        if model_id and self.name != "openai":
            from fastdesk.config.keys import get_key
            from fastdesk.routing.pace import settings_lines

            key = self.key_edit.text().strip() or get_key(self.name)
            lines = settings_lines(self.name, model_id, key, self.dialog.settings.rate_limits)
        self.limits_label.setText("\n".join(lines))
        self.form.setRowVisible(self.limits_label, bool(lines))

    def chosen_model(self) -> str:
        return self.model_combo.currentText().strip()


class SettingsDialog(QDialog):
    """Keys, models and preferences. ``settingsSaved(Settings)`` after Save; ``keysChanged()``
    when keys changed but nothing was saved (a key deleted, then Cancel)."""

    settingsSaved = Signal(object)
    keysChanged = Signal()

    def __init__(
        self,
        settings: Settings | None = None,
        parent: QWidget | None = None,
        *,
        ledger: costs.CostLedger | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("settingsDialog")
        self.setWindowTitle("fastdesk settings")
        self.settings = settings if settings is not None else saved_settings()
        self.ledger = ledger
        self.prices = PriceTable(self.settings.price_overrides)
        self.runner = AsyncRunner(self)
        self.keys_changed = False
        self.saved = False
        self.keyring_ok, self.keyring_reason = keys.keyring_available()

        tabs = QTabWidget()
        tabs.setObjectName("settingsTabs")
        accessible_name(tabs, "Settings pages")
        tabs.addTab(self._providers_page(), "&Providers and keys")
        tabs.addTab(self._translation_page(), "T&ranslation")
        self.tabs = tabs

        self.error_label = plain(QLabel())  # names a file or a value and says why
        self.error_label.setObjectName("settingsError")
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet(f"color: {text_colour('#d1242f', self.palette())};")
        self.error_label.hide()
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        save = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        save.setDefault(True)

        layout = QVBoxLayout(self)
        layout.addWidget(tabs, 1)
        layout.addWidget(self.error_label)
        layout.addWidget(self.buttons)
        name_popups(self)  # each form's combo boxes, their lists and typing fields
        self.resize(720, 600)

    # -- pages ---------------------------------------------------------------------------------

    def _providers_page(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        self.keyring_notice = QLabel()
        self.keyring_notice.setObjectName("keyringNotice")
        self.keyring_notice.setWordWrap(True)
        self.keyring_notice.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        if self.keyring_ok:
            self.keyring_notice.setText(
                "Keys are stored in your system's keyring, never in a file. Keys set in "
                "environment variables win over stored ones."
            )
        else:
            names = ", ".join(keys.ENV_VARS[p] for p in PROVIDER_NAMES)
            self.keyring_notice.setText(
                f"<b>Keys cannot be stored on this computer</b>: {escape(self.keyring_reason)}."
                f"<br>Set them in environment variables before starting fastdesk instead "
                f"({names}). fastdesk never writes keys to a file."
            )
            self.keyring_notice.setStyleSheet(
                "QLabel { background: #fff8c5; color: #3d2e00; border: 1px solid #d4a72c;"
                " border-radius: 4px; padding: 6px; }"
            )
        layout.addWidget(self.keyring_notice)
        self.boxes = {name: _ProviderBox(name, self) for name in PROVIDER_NAMES}
        for box in self.boxes.values():
            layout.addWidget(box)
        layout.addStretch(1)
        return page

    def _translation_page(self) -> QWidget:
        s = self.settings
        page = QWidget()
        form = QFormLayout(page)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)

        self.language_combo = QComboBox()
        self.language_combo.setObjectName("defaultLanguage")
        self.language_combo.setEditable(True)
        self.language_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        fill_languages(self.language_combo)
        show_language(self.language_combo, s.target_language)
        form.addRow("Target &language:", self.language_combo)

        self.mode_combo = QComboBox()
        self.mode_combo.setObjectName("defaultMode")
        for code, label in MODES:
            self.mode_combo.addItem(label, code)
        self.mode_combo.setCurrentIndex(max(0, self.mode_combo.findData(s.mode)))
        form.addRow("Mo&de:", self.mode_combo)

        self.provider_combo = QComboBox()
        self.provider_combo.setObjectName("defaultProvider")
        for code, label in PROVIDER_CHOICES:
            self.provider_combo.addItem(label, code)
        self.provider_combo.setCurrentIndex(max(0, self.provider_combo.findData(s.provider)))
        form.addRow("Pro&vider:", self.provider_combo)

        self.theme_combo = QComboBox()
        self.theme_combo.setObjectName("themeCombo")
        for code, label in THEME_CHOICES:
            self.theme_combo.addItem(label, code)
        self.theme_combo.setCurrentIndex(max(0, self.theme_combo.findData(s.theme)))
        self.theme_combo.setToolTip("Applied when you save; also View → Dark Theme")
        form.addRow("T&heme:", self.theme_combo)

        self.live_check = QCheckBox("Translate while I &type (live)")
        self.live_check.setObjectName("liveCheck")
        self.live_check.setChecked(s.live)
        form.addRow("", self.live_check)

        self.debounce_spin = QSpinBox()
        self.debounce_spin.setObjectName("debounceSpin")
        self.debounce_spin.setRange(0, 10_000)
        self.debounce_spin.setSingleStep(50)
        self.debounce_spin.setSuffix(" ms")
        self.debounce_spin.setValue(s.debounce_ms)
        self.debounce_spin.setToolTip("The longest wait after a keystroke; a sentence end: none")
        self.debounce_spin.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        form.addRow("&Wait after typing:", self.debounce_spin)

        self.hedging_check = QCheckBox("&Hedge slow requests: ask a second provider as well")
        self.hedging_check.setObjectName("hedgingCheck")
        self.hedging_check.setChecked(s.hedging)
        hedging_note = QLabel("This may double the cost of slow requests.")
        hedging_note.setObjectName("hedgingNote")
        hedging_note.setEnabled(False)
        hedging = QVBoxLayout()
        hedging.setSpacing(2)
        hedging.addWidget(self.hedging_check)
        hedging.addWidget(hedging_note)
        form.addRow("", hedging)

        self.warmup_check = QCheckBox(
            "Warm the provider up when the window opens or after a long &idle"
        )
        self.warmup_check.setObjectName("warmupCheck")
        self.warmup_check.setChecked(s.warmup)
        self.warmup_check.setToolTip(
            "A one-token request, so your first edit does not pay the provider's cold start."
        )
        form.addRow("", self.warmup_check)

        self.budget_edit = QLineEdit()
        self.budget_edit.setObjectName("budgetEdit")
        self.budget_edit.setPlaceholderText("no limit")
        self.budget_edit.setMaximumWidth(140)
        validator = QDoubleValidator(0.0, 1_000_000.0, 4, self.budget_edit)
        validator.setNotation(QDoubleValidator.Notation.StandardNotation)
        validator.setLocale(QLocale.c())
        self.budget_edit.setValidator(validator)
        if s.daily_budget_usd is not None:
            self.budget_edit.setText(f"{s.daily_budget_usd:g}")
        self.budget_edit.setToolTip(
            "When today's spending reaches it, live translation pauses and a manual "
            "translation asks first. Empty: no limit."
        )
        budget_row = QHBoxLayout()
        budget_row.addWidget(self.budget_edit)
        budget_row.addWidget(QLabel("USD a day"))
        budget_row.addStretch(1)
        form.addRow(_buddy("Daily &budget:", self.budget_edit), budget_row)
        self.spent_label = QLabel(self._spent_text())
        self.spent_label.setObjectName("spentToday")
        self.spent_label.setEnabled(False)
        form.addRow("", self.spent_label)

        self.glossary_edit = QLineEdit(s.glossary_path)
        self.glossary_edit.setObjectName("glossaryEdit")
        self.glossary_edit.setPlaceholderText(
            str(glossary_file(dataclasses.replace(s, glossary_path="")))
        )
        browse = QPushButton("Br&owse…")
        browse.setObjectName("glossaryBrowse")
        browse.setAutoDefault(False)
        browse.clicked.connect(self.choose_glossary)
        glossary_row = QHBoxLayout()
        glossary_row.addWidget(self.glossary_edit, 1)
        glossary_row.addWidget(browse)
        form.addRow(_buddy("&Glossary file:", self.glossary_edit), glossary_row)

        self.review_combo = QComboBox()
        self.review_combo.setObjectName("reviewCombo")
        for code, label in REVIEW_CHOICES:
            self.review_combo.addItem(label, code)
        self.review_combo.setCurrentIndex(max(0, self.review_combo.findData(s.review)))
        self.review_combo.setToolTip(
            "A second model reviews each translated block: errors underlined, a score per block"
            " and for the document. Automatic: only when the rate limits are your own tier's"
            " (a free tier's requests go to translations)."
        )
        form.addRow(_buddy("&Quality review:", self.review_combo), self.review_combo)
        self.review_model_edit = QLineEdit(s.review_model)
        self.review_model_edit.setObjectName("reviewModelEdit")
        self.review_model_edit.setPlaceholderText(
            "the fastest configured model (another than the translator's)"
        )
        self.review_model_edit.setToolTip("provider/model, e.g. cerebras/gpt-oss-120b")
        form.addRow(_buddy("Revi&ewer model:", self.review_model_edit), self.review_model_edit)

        self.memory_label = QLabel(self._memory_text())
        self.memory_label.setObjectName("memoryCount")
        clear = QPushButton("&Clear…")
        clear.setObjectName("clearMemory")
        clear.setAutoDefault(False)
        clear.setToolTip("Forget every stored translation: the next edits are translated afresh.")
        clear.clicked.connect(self.clear_memory)
        memory_row = QHBoxLayout()
        memory_row.addWidget(self.memory_label, 1)
        memory_row.addWidget(clear)
        form.addRow("Translation memory:", memory_row)
        return page

    def _memory_text(self) -> str:
        memory = Memory()
        try:
            return f"{memory.count()} stored translations"
        finally:
            memory.close()

    def clear_memory(self) -> None:
        """Empty the translation memory (after a yes)."""

        if not self.confirm("Forget every stored translation? Nothing else is changed."):
            return
        memory = Memory()
        try:
            memory.clear()
        finally:
            memory.close()
        self.memory_label.setText(self._memory_text())

    def _spent_text(self) -> str:
        today = self.ledger.today() if self.ledger is not None else costs.today_totals()
        return f"Spent today: {today.text()}"

    # -- actions -------------------------------------------------------------------------------

    def confirm(self, question: str) -> bool:
        """Yes/No (tests replace this)."""
        answer = ask(self, "fastdesk settings", question)
        return answer == QMessageBox.StandardButton.Yes

    def choose_glossary(self) -> None:
        start = self.glossary_edit.text().strip() or self.glossary_edit.placeholderText()
        path, _filter = QFileDialog.getOpenFileName(
            self, "Glossary file", start, "Glossaries (*.toml);;All files (*)"
        )
        if path:
            self.glossary_edit.setText(path)

    def language_code(self) -> str | None:
        """The chosen code: a listed entry, ``Name (code)``, a bare code, or a listed name."""
        combo = self.language_combo
        text = combo.currentText().strip()
        index = combo.currentIndex()
        if index >= 0 and text == combo.itemText(index):
            listed: str | None = combo.itemData(index)
            return listed
        match = _CODE_IN_PARENS.search(text)
        if match:
            return match.group(1)
        if _CODE.match(text):
            return text
        for code, name in LANGUAGES.items():
            if name.lower() == text.lower():
                return code
        return None

    def budget(self) -> tuple[bool, float | None]:
        text = self.budget_edit.text().strip().replace(",", ".")
        if not text:
            return True, None
        try:
            value = float(text)
        except ValueError:
            return False, None
        return value >= 0, value

    def collect(self, base: Settings) -> Settings:
        """``base`` (the file as it is now) with the dialog's values; ValueError for a bad one."""
        language = self.language_code()
        if language is None:
            self.tabs.setCurrentIndex(1)
            self.language_combo.setFocus()
            raise ValueError("the target language must be a language code such as fr or pt-BR")
        ok, budget = self.budget()
        if not ok:
            self.tabs.setCurrentIndex(1)
            self.budget_edit.setFocus()
            raise ValueError("the daily budget must be an amount in USD, or empty for no limit")
        review_model = self.review_model_edit.text().strip()
        provider, _sep, model = review_model.partition("/")
        if review_model and (provider not in PROVIDER_NAMES or not model.strip()):
            self.tabs.setCurrentIndex(1)
            self.review_model_edit.setFocus()
            names = ", ".join(PROVIDER_NAMES)
            raise ValueError(
                f"the reviewer model must be provider/model ({names}), or empty for the fastest"
            )
        chosen = dict(base.models)
        for name, box in self.boxes.items():
            model = box.chosen_model()
            if model and model != DEFAULT_MODELS.get(name, ""):
                chosen[name] = model
            else:
                chosen.pop(name, None)
        base_urls = dict(base.base_urls)
        url = self.boxes["openai"].url_edit.text().strip() if self.boxes["openai"].url_edit else ""
        if url:
            base_urls["openai"] = url
        else:
            base_urls.pop("openai", None)
        return dataclasses.replace(
            base,
            target_language=language,
            mode=self.mode_combo.currentData(),
            provider=self.provider_combo.currentData(),
            models=chosen,
            base_urls=base_urls,
            debounce_ms=self.debounce_spin.value(),
            live=self.live_check.isChecked(),
            hedging=self.hedging_check.isChecked(),
            warmup=self.warmup_check.isChecked(),
            daily_budget_usd=budget,
            glossary_path=self.glossary_edit.text().strip(),
            review=self.review_combo.currentData(),
            review_model=review_model,
            theme=self.theme_combo.currentData(),
        )

    def show_error(self, text: str) -> None:
        self.error_label.setText(text)
        self.error_label.show()

    def accept(self) -> None:
        """Store typed keys, save the settings (read-modify-write), tell the window, close."""
        self.error_label.hide()
        try:
            updated = self.collect(saved_settings())  # read only to be written
        except ValueError as exc:
            self.show_error(f"Not saved: {exc}.")
            return
        for name, box in self.boxes.items():
            if not box.store_typed_key():
                self.tabs.setCurrentIndex(0)
                self.show_error(f"Not saved: the {name} key could not be stored (see above).")
                return
        try:
            save_settings(updated)
        except (OSError, RuntimeError) as exc:
            self.show_error(f"Not saved: {error_text(exc)}")
            return
        self.settings = updated
        self.saved = True
        self.settingsSaved.emit(updated)
        super().accept()

    def done(self, result: int) -> None:
        self.runner.close()
        if self.keys_changed and not self.saved:
            self.keysChanged.emit()
        super().done(result)


def _buddy(text: str, widget: QWidget) -> QLabel:
    """A form label whose mnemonic focuses ``widget`` (addRow only does that for a widget)."""
    label = QLabel(text)
    label.setBuddy(widget)
    return label
