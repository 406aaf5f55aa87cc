"""The first-run panel: shown while no provider is configured, it says how to get going — a Groq
or Cerebras key (opens the Settings dialog) or a model server on this computer (Ollama is looked
for on 127.0.0.1:11434, off the GUI thread, and offered with a "Use it" button).

Wiring (the window)::

    panel = FirstRunPanel(self)
    panel.openSettingsRequested.connect(self.open_settings)
    panel.settingsSaved.connect(self.apply_settings)
    self.document_view.insert_notice(panel)  # above the target pane; hidden once configured

"Use it" saves ``base_urls["openai"]`` and ``models["openai"]``, then emits
``settingsSaved(settings)`` with what it saved (the window follows them without reading the file
again, as after the Settings dialog) and ``localServerChosen(url, model)``.
"""

from __future__ import annotations

import html
import logging

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QHideEvent, QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from fastdesk.config import keys
from fastdesk.config.local_servers import (
    OLLAMA_BASE,
    detect_ollama,
    openai_base_url,
    use_local_server,
)
from fastdesk.config.settings import Settings, saved_settings
from fastdesk.ui.bridge.threads import AsyncRunner, error_text
from fastdesk.ui.panes.theme import text_colour
from fastdesk.ui.plain import escape

__all__ = ["FirstRunPanel", "needs_first_run"]

log = logging.getLogger(__name__)

SUGGESTED_MODEL = "qwen3:8b"


def needs_first_run(settings: Settings | None = None) -> bool:
    """True when no provider is configured: no Groq/Cerebras key (environment or keyring) and no
    OpenAI-compatible server URL. Reads the keyring (may take a moment on a locked one)."""
    settings = settings if settings is not None else saved_settings()
    if settings.base_url_for("openai"):
        return False
    return not any(keys.get_key(name) for name in ("groq", "cerebras"))


class FirstRunPanel(QWidget):
    """What to do when nothing is configured. Emits ``openSettingsRequested()`` and, after
    saving the choice, ``settingsSaved(Settings)`` and ``localServerChosen(openai base URL,
    model)``."""

    openSettingsRequested = Signal()
    settingsSaved = Signal(object)  # the Settings saved, as the Settings dialog's
    localServerChosen = Signal(str, str)

    def __init__(
        self, parent: QWidget | None = None, *, ollama_base: str = OLLAMA_BASE, timeout: float = 0.3
    ) -> None:
        super().__init__(parent)
        self.setObjectName("firstRunPanel")
        self.ollama_base = ollama_base.rstrip("/")
        self.timeout = timeout
        self.runner = AsyncRunner(self)
        self.models: list[str] | None = None
        self.detecting = False
        self.searched = False  # a detection has finished at least once
        self._token: int | None = None

        card = QFrame()
        card.setObjectName("firstRunCard")
        card.setFrameShape(QFrame.Shape.StyledPanel)
        card.setMaximumWidth(620)
        card.setStyleSheet(
            "QFrame#firstRunCard { background: palette(base); border: 1px solid palette(mid);"
            " border-radius: 8px; }"
        )
        layout = QVBoxLayout(card)
        layout.setContentsMargins(22, 16, 22, 18)
        layout.setSpacing(8)

        title = QLabel("<h2>Connect a translation provider</h2>")
        title.setObjectName("firstRunTitle")
        layout.addWidget(title)
        self.intro = _text("")
        self.intro.setObjectName("firstRunIntro")
        self.describe_document(sample=False)
        layout.addWidget(self.intro)

        layout.addSpacing(8)
        layout.addWidget(_heading("1. A Groq or Cerebras key"))
        layout.addWidget(
            _text(
                'Create a key at <a href="https://console.groq.com/keys">console.groq.com/keys</a>'
                ' or <a href="https://cloud.cerebras.ai">cloud.cerebras.ai</a>, then paste it '
                "in Settings. It is kept in your system's keyring.",
                links=True,
            )
        )
        self.add_key_button = QPushButton("&Add a key…")
        self.add_key_button.setObjectName("addKeyButton")
        self.add_key_button.clicked.connect(self.openSettingsRequested)
        layout.addLayout(_left(self.add_key_button))

        layout.addSpacing(8)
        layout.addWidget(_heading("2. A model server on this computer"))
        self.local_status = _text("", links=True)
        self.local_status.setObjectName("localServerStatus")
        layout.addWidget(self.local_status)
        self.model_combo = QComboBox()
        self.model_combo.setObjectName("localModelSelector")
        self.model_combo.setMinimumContentsLength(20)
        self.use_button = QPushButton("&Use it")
        self.use_button.setObjectName("useLocalServerButton")
        self.use_button.clicked.connect(self.use_local_server)
        self.again_button = QPushButton("&Look again")
        self.again_button.setObjectName("detectAgainButton")
        self.again_button.clicked.connect(self.detect)
        row = QHBoxLayout()
        row.addWidget(self.model_combo)
        row.addWidget(self.use_button)
        row.addWidget(self.again_button)
        row.addStretch(1)
        layout.addLayout(row)

        layout.addSpacing(8)
        layout.addWidget(_heading("Or, for scripts"))
        layout.addWidget(
            _text(
                "Set <code>GROQ_API_KEY</code> or <code>CEREBRAS_API_KEY</code> (or "
                "<code>FASTDESK_OPENAI_BASE_URL</code> for any OpenAI-compatible server) before "
                "starting fastdesk."
            )
        )
        self.error_label = _text("")
        self.error_label.setObjectName("firstRunError")
        self.error_label.setStyleSheet(f"color: {text_colour('#d1242f', self.palette())};")
        self.error_label.hide()
        layout.addWidget(self.error_label)

        # Centred by stretches, not by an alignment flag: an aligned widget gets its size hint
        # and its word-wrapped labels are cut; an expanding one gets a height for its width.
        card.setMinimumWidth(420)
        card.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Maximum)
        middle = QHBoxLayout()
        middle.addStretch(1)
        middle.addWidget(card, 100)
        middle.addStretch(1)
        outer = QVBoxLayout(self)
        outer.addStretch(1)
        outer.addLayout(middle)
        outer.addStretch(2)
        self._show_state()

    def describe_document(self, *, sample: bool, name: str = "") -> None:
        """Say what will be translated: the sample only when it is the document on show (the
        first start opens it; later starts open what was last open, or nothing)."""
        if sample:
            what = "The sample document is translated"
        elif name:
            what = f"<b>{html.escape(name)}</b> is translated"
        else:
            what = "What you type or open on the left is translated"
        self.intro.setText(
            "fastdesk translates with very fast hosted models (Groq or Cerebras: both have "
            f"free tiers) or with a model running on this computer. {what} as soon as one is "
            "set up."
        )

    # -- detection -----------------------------------------------------------------------------

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self.models is None and not self.detecting:
            self.detect()

    def hideEvent(self, event: QHideEvent) -> None:
        super().hideEvent(event)
        if self._token is not None:  # hidden for good, most likely: stop looking
            self.runner.cancel(self._token)
            self._token = None
            self.detecting = False
            self._show_state()

    def detect(self) -> None:
        """Look for Ollama in the background (returns at once)."""
        if self.detecting:
            return
        self.detecting = True
        self._show_state()
        base, timeout = self.ollama_base, self.timeout
        self._token = self.runner.submit(
            lambda: detect_ollama(base, timeout=timeout), self._detected
        )

    def _detected(self, models: list[str] | None, error: BaseException | None) -> None:
        self._token = None
        self.detecting = False
        if error is not None:
            log.warning("local server detection failed: %s", error_text(error))
        self.models = None if error is not None else models
        self.searched = True
        self._show_state()

    def _show_state(self) -> None:
        where = self.ollama_base.removeprefix("http://")
        found = bool(self.models)
        self.model_combo.setVisible(found)
        self.use_button.setVisible(found)
        self.again_button.setVisible(not self.detecting)
        self.again_button.setEnabled(not self.detecting)
        if self.detecting:
            self.local_status.setText(f"Looking for Ollama on {where}…")
        elif found:
            count = len(self.models or ())
            self.local_status.setText(
                f"<b>Ollama is running on {where}</b> with {count} "
                f"model{'' if count == 1 else 's'}. Pick one and use it: no key needed, "
                "nothing leaves this computer."
            )
            current = self.model_combo.currentText()
            self.model_combo.clear()
            self.model_combo.addItems(self.models or [])
            if current in (self.models or []):
                self.model_combo.setCurrentText(current)
        elif self.models == []:
            self.local_status.setText(
                f"Ollama is running on {where} but has no model yet. Pull one, e.g. "
                f"<code>ollama pull {SUGGESTED_MODEL}</code>, then look again."
            )
        elif self.searched:
            self.local_status.setText(
                f"No Ollama found on {where}. Install it from "
                '<a href="https://ollama.com">ollama.com</a> and pull a model '
                f"(<code>ollama pull {SUGGESTED_MODEL}</code>), or enter the address of any "
                "OpenAI-compatible server (llama.cpp, vLLM, LM Studio) in Settings."
            )
        else:
            self.local_status.setText(f"Ollama on {where} has not been looked for yet.")

    # -- choosing it ---------------------------------------------------------------------------

    def use_local_server(self) -> None:
        """Save the server and model in the settings, then tell the window."""
        model = self.model_combo.currentText().strip()
        url = openai_base_url(self.ollama_base)
        try:
            saved = use_local_server(url, model)
        except (OSError, RuntimeError) as exc:
            self.error_label.setText(f"Not saved: {escape(error_text(exc))}")
            self.error_label.show()
            return
        self.error_label.hide()
        self.settingsSaved.emit(saved)
        self.localServerChosen.emit(url, model)

    def shutdown(self) -> None:
        """Stop any detection in flight (the window calls this before dropping the panel)."""
        self.runner.close()


def _text(html: str, *, links: bool = False) -> QLabel:
    label = QLabel(html)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setOpenExternalLinks(True)
    flags = Qt.TextInteractionFlag.TextSelectableByMouse
    if links or "<a " in html:
        flags |= Qt.TextInteractionFlag.LinksAccessibleByMouse
    label.setTextInteractionFlags(flags)
    return label


def _heading(text: str) -> QLabel:
    label = QLabel(f"<b>{text}</b>")
    label.setTextFormat(Qt.TextFormat.RichText)
    return label


def _left(widget: QWidget) -> QHBoxLayout:
    row = QHBoxLayout()
    row.addWidget(widget)
    row.addStretch(1)
    return row
