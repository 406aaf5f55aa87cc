"""The main window: the source on the left, its live translation on the right.

Data flow (DESIGN.md): an edit → debounce (IME composition respected) → the worker thread's
LiveSession → throttled batches of target segments and events → the panes apply only what
changed, the status bar shows who answered, how fast and at what cost.

Revisions: every source sent to the worker gets a new number; a batch computed for an older one
is not shown (its target is kept, and shown once the worker has caught up).
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import gc
import logging
import re
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QEvent, QPoint, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent, QTextCursor
from PySide6.QtWidgets import (
    QComboBox,
    QCompleter,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

import fastdesk
from fastdesk.config.fileio import DocumentError, atomic_write_text, read_document
from fastdesk.config.paths import resource
from fastdesk.config.settings import Settings, load_settings, save_settings
from fastdesk.document.languages import LANGUAGES, language_name
from fastdesk.document.text_ends import common_prefix, common_suffix
from fastdesk.review import autosave
from fastdesk.review.model import STATE_STYLES, Review
from fastdesk.routing.costs import budget_state
from fastdesk.translate.events import (
    BlockFailed,
    EngineError,
    EngineEvent,
    Expansion,
    RequestDone,
    RevisionDone,
)
from fastdesk.ui.bridge import segments as render
from fastdesk.ui.bridge.threads import gui_first
from fastdesk.ui.bridge.worker import (
    EngineFactory,
    EngineWorker,
    SessionFactory,
    WorkerBatch,
    default_engine_factory,
    default_session_factory,
)
from fastdesk.ui.dialogs.compare import install_compare_action
from fastdesk.ui.document.disk_watch import DiskWatcher
from fastdesk.ui.panes.common import dropped_files, flat_scroll_bars, is_dark, plain_text
from fastdesk.ui.panes.highlighter import MarkdownHighlighter
from fastdesk.ui.panes.incremental import RenderScheduler
from fastdesk.ui.panes.preview import TargetPreview
from fastdesk.ui.panes.source_editor import SourceEditor
from fastdesk.ui.panes.sync_scroll import SyncScroller
from fastdesk.ui.panes.target_editor import TargetEditor
from fastdesk.ui.review.controller import SIMPLIFY_KEY, ReviewController, review_key
from fastdesk.ui.review.widgets import ReviewBar, ReviewMargin
from fastdesk.ui.window.actions import Actions
from fastdesk.ui.window.status import StatusPanel

log = logging.getLogger("fastdesk.ui")

MODES = (("translate", "Translate"), ("simplify", "Simplify"))
PROVIDER_LABELS = {
    "auto": "Auto (fastest)",
    "groq": "Groq",
    "cerebras": "Cerebras",
    "openai": "OpenAI-compatible",
}
UNTITLED = "Untitled"
SAMPLE_NAME = "Sample document"


def _b64(data: QByteArray) -> str:
    return base64.b64encode(bytes(data.data())).decode("ascii")


def _unb64(text: str | None) -> QByteArray | None:
    if not text:
        return None
    try:
        return QByteArray(base64.b64decode(text.encode("ascii"), validate=True))
    except (ValueError, UnicodeEncodeError):
        return None


class MainWindow(QMainWindow):
    """fastdesk's window. ``MainWindow()`` reads the settings (FASTDESK_HOME honoured).

    ``engine_factory``/``session_factory`` exist for tests and benchmarks: they run in the
    worker thread and default to the app's engine and LiveSession. ``warmup``: send warm-up
    requests (docs/routing.md §8); default: only with the app's own engine, since a warm-up
    would add a request to the counts of tests and benchmarks.
    """

    target_updated = Signal()  # the target panes finished applying what the worker sent

    def __init__(
        self,
        *,
        engine_factory: EngineFactory | None = None,
        session_factory: SessionFactory | None = None,
        settings: Settings | None = None,
        warmup: bool | None = None,
        offer_recovery: bool = True,
    ) -> None:
        super().__init__()
        if settings is None:
            settings, self.settings_warnings = load_settings()
        else:
            self.settings_warnings = []
        self.settings = settings
        self._engine_factory = engine_factory or default_engine_factory
        self._session_factory = session_factory or default_session_factory
        self.path: Path | None = None
        self.untitled_name = UNTITLED
        self.newline = "\n"
        self.revision = 0
        self._sent_source: str | None = None
        self._target: tuple[render.Segment, ...] = ()
        self._source_blocks: tuple[render.Segment, ...] = ()
        self._pending: frozenset[str] = frozenset()
        self._shown_source: tuple[render.Segment, ...] = ()
        self._shown_target: tuple[render.Segment, ...] = ()
        self._closing = False
        self.first_run: QWidget | None = None
        self.warmup_enabled = engine_factory is None if warmup is None else warmup
        self._health: tuple[Any, ...] = ()  # problems the user must fix (a refused key …)
        self._health_shown = ""
        self._live_target: tuple[render.Segment, ...] = ()  # the last target of a current batch
        self._streaming: frozenset[str] = frozenset()  # its blocks showing a partial answer
        self._target_streaming: frozenset[str] = frozenset()

        self.setObjectName("mainWindow")
        self.setAcceptDrops(True)
        self.review_ctl = ReviewController(
            lambda: plain_text(self.source.document()),
            lambda: (self.source.document().revision(), self.source.document().isModified()),
            self,
        )
        self._build_panes()
        self._build_selectors()
        self.status = StatusPanel(self.statusBar(), self)
        self.actions_ = Actions(self)
        self.actions_.build_menus(self)
        self.compare_action = install_compare_action(self)
        self.toolbar = self.actions_.build_toolbar(self)
        self.addToolBar(self.toolbar)
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        # Precise: a coarse timer may fire up to 5% late (15 ms of 300) on every edit.
        self._debounce.setTimerType(Qt.TimerType.PreciseTimer)
        self._debounce.setInterval(settings.debounce_ms)
        self._debounce.timeout.connect(self._debounced)
        self.source.document().contentsChanged.connect(self._source_changed)
        self.source.document().modificationChanged.connect(self.setWindowModified)
        self.source.composition_changed.connect(self._composition_changed)
        self.source.files_dropped.connect(self._open_dropped)
        self.scheduler.settled.connect(self._target_settled)
        self._wire_review()

        for action, on in (
            (self.actions_.live, settings.live),
            (self.actions_.sync_scroll, settings.window.get("sync", "1") == "1"),
        ):
            action.blockSignals(True)
            action.setChecked(on)
            action.blockSignals(False)
        self.sync.enabled = self.actions_.sync_scroll.isChecked()
        self._show_raw(settings.window.get("view") == "raw")
        self._update_title()
        self.resize(1200, 760)
        self._restore_layout()
        for warning in self.settings_warnings:
            self.status.show_error("Settings problem (defaults used)", warning)
        self.worker = self._start_worker()
        if offer_recovery:
            QTimer.singleShot(0, self.offer_recovery)

    # ---- construction --------------------------------------------------------------------------

    def _build_panes(self) -> None:
        dark = is_dark(self.palette())
        self.source = SourceEditor()
        self.source_highlighter = MarkdownHighlighter(self.source.document(), dark=dark)
        self.target_editor = TargetEditor()
        self.target_highlighter = MarkdownHighlighter(self.target_editor.document(), dark=dark)
        self.preview = TargetPreview()
        self.target_stack = QStackedWidget()
        self.target_stack.setObjectName("targetStack")
        self.target_stack.addWidget(self.preview)
        self.target_stack.addWidget(self.target_editor)
        self.source_title = QLabel()
        self.source_title.setObjectName("sourceTitle")
        self.target_title = QLabel()
        self.target_title.setObjectName("targetTitle")
        self.view_toggle = QToolButton()
        self.view_toggle.setObjectName("viewToggle")
        self.view_toggle.setAutoRaise(True)
        self.view_toggle.clicked.connect(self.toggle_target_view)
        left = _pane(self.source_title, self.source)
        right = _pane(self.target_title, self.target_stack, self.view_toggle)
        self.target_layout = right.layout()
        self.review_bar = ReviewBar()
        self.target_layout.addWidget(self.review_bar)
        ctl = self.review_ctl
        self.margins = [
            ReviewMargin(pane, ctl.state_of, ctl.tooltip_of)
            for pane in (self.target_editor, self.preview)
        ]
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("paneSplitter")
        self.splitter.addWidget(left)
        self.splitter.addWidget(right)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setSizes([600, 600])
        self.setCentralWidget(self.splitter)
        self.scheduler = RenderScheduler(self)
        self.scheduler.add(self.target_editor, lambda: self.showing_raw)
        self.scheduler.add(self.preview, lambda: self.target_stack.currentWidget() is self.preview)
        self.sync = SyncScroller(
            self.source, self.target_editor, self.preview, self.target_stack.currentWidget, self
        )
        self.scheduler.rendered.connect(self.sync.target_rendered)

    def _build_selectors(self) -> None:
        s = self.settings
        self.mode_selector = QComboBox()
        self.mode_selector.setObjectName("modeSelector")
        self.mode_selector.setToolTip("Mode (Ctrl+1 translate, Ctrl+2 simplify)")
        for code, label in MODES:
            self.mode_selector.addItem(label, code)
        self.mode_selector.setCurrentIndex(max(0, self.mode_selector.findData(s.mode)))
        self.mode_selector.currentIndexChanged.connect(self._spec_changed)

        self.language_selector = QComboBox()
        self.language_selector.setObjectName("languageSelector")
        self.language_selector.setToolTip("Target language: type a name or a code (Ctrl+L)")
        self.language_selector.setEditable(True)
        self.language_selector.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.language_selector.setMinimumContentsLength(24)
        self.language_selector.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.language_selector.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        for code in sorted(LANGUAGES, key=lambda c: LANGUAGES[c].lower()):
            self.language_selector.addItem(f"{LANGUAGES[code]} ({code})", code)
        completer = QCompleter(self.language_selector.model(), self.language_selector)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        self.language_selector.setCompleter(completer)
        self._select_language(s.target_language)
        self.language_selector.currentIndexChanged.connect(self._spec_changed)
        self.language_selector.lineEdit().editingFinished.connect(self._language_typed)

        self.provider_selector = QComboBox()
        self.provider_selector.setObjectName("providerSelector")
        self.provider_selector.setToolTip("Provider: auto picks the fastest configured one")
        self._fill_providers(() if s.provider == "auto" else (s.provider,), s.provider)
        self.provider_selector.currentIndexChanged.connect(self._spec_changed)

    def _select_language(self, code: str) -> None:
        index = self.language_selector.findData(code)
        if index < 0:
            self.language_selector.addItem(f"{language_name(code)} ({code})", code)
            index = self.language_selector.count() - 1
        self.language_selector.setCurrentIndex(index)

    def _language_typed(self) -> None:
        """Enter in the language box: a listed name or code, or any well-formed BCP-47 code."""
        text = self.language_selector.currentText().strip()
        combo = self.language_selector
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
        if index < 0 and _looks_like_code(text):
            self._select_language(text)
            return
        if index >= 0:
            combo.setCurrentIndex(index)
        else:  # not a language: show the current choice again
            combo.setEditText(combo.itemText(combo.currentIndex()))

    def _fill_providers(self, names: tuple[str, ...], selected: str) -> None:
        combo = self.provider_selector
        combo.blockSignals(True)
        combo.clear()
        for name in ("auto", *names):
            combo.addItem(PROVIDER_LABELS.get(name, name), name)
        index = combo.findData(selected)
        if index < 0:  # a provider chosen in the settings but not configured
            combo.addItem(f"{PROVIDER_LABELS.get(selected, selected)} (not configured)", selected)
            index = combo.count() - 1
        combo.setCurrentIndex(index)
        combo.blockSignals(False)

    # ---- worker ----------------------------------------------------------------------------

    def spec(self) -> Any:
        from fastdesk.translate.engine import JobSpec

        return JobSpec(
            mode=self.mode_selector.currentData() or "translate",
            target_lang=self.language_selector.currentData() or "fr",
            provider=self.provider_selector.currentData() or "auto",
        )

    def _start_worker(self) -> EngineWorker:
        worker = EngineWorker(
            self.spec(), engine_factory=self._engine_factory, session_factory=self._session_factory
        )
        # Queued explicitly: emitted from the worker's Python thread, run in the GUI thread.
        worker.batch.connect(self._on_batch, Qt.ConnectionType.QueuedConnection)
        worker.start()
        self._warm_up(worker)
        return worker

    def restart_engine(self) -> None:
        """Rebuild the engine (after keys or settings changed) and translate the source again."""
        old = self.worker
        with contextlib.suppress(RuntimeError):
            old.batch.disconnect(self._on_batch)
        old.stop(timeout=0.3)  # it ends on its own if slower; nothing of it reaches us now
        self.worker = self._start_worker()
        self._sent_source = None
        if self.live:
            self._send_update()

    def apply_settings(self, settings: Settings | None = None) -> None:
        """Settings were saved (the Settings dialog, the first-run panel): follow them."""
        self.settings = settings if settings is not None else load_settings()[0]
        self._debounce.setInterval(self.settings.debounce_ms)
        for combo, value in (
            (self.mode_selector, self.settings.mode),
            (self.provider_selector, self.settings.provider),
        ):
            combo.blockSignals(True)
            combo.setCurrentIndex(max(0, combo.findData(value)))
            combo.blockSignals(False)
        self.language_selector.blockSignals(True)
        self._select_language(self.settings.target_language)
        self.language_selector.blockSignals(False)
        self._update_title()
        # the new engine's events start at the next revision: they belong to this key's review
        self._review_warnings(self.review_ctl.switch(self.review_key(), self.revision + 1))
        self.restart_engine()
        self._refresh_target()

    def _send_update(self, *, force: bool = False) -> None:
        source = plain_text(self.source.document())
        if source == self._sent_source and not force:
            return
        self._sent_source = source
        self.revision += 1
        self.worker.update(source, self.revision)
        self.status.set_busy(True)

    def _spec_changed(self, *_args: object) -> None:
        self.preview.expansions.clear()  # they were written for the previous mode or language
        self._sent_source = plain_text(self.source.document())
        self.revision += 1
        self._review_warnings(self.review_ctl.switch(self.review_key(), self.revision))
        self._refresh_target()
        self.worker.set_spec(self.spec(), self._sent_source, self.revision)
        self.status.set_busy(True)
        self._update_title()
        self._save_settings(
            mode=self.spec().mode,
            target_language=self.spec().target_lang,
            provider=self.spec().provider,
        )

    @Slot(object)  # a declared slot: PySide's cross-thread delivery is safest with one
    def _on_batch(self, batch: WorkerBatch) -> None:
        with gui_first():
            self._apply_batch(batch)

    def _apply_batch(self, batch: WorkerBatch) -> None:
        if batch.doc is not None:
            self.review_ctl.set_doc(batch.doc, batch.revision)
        review_changed = self.review_ctl.apply_events(batch.events)
        if not batch.busy:
            self.review_ctl.idle()
        if review_changed:
            self._review_changed()
        for event in batch.events:
            self._on_event(event)
        if batch.health is not None:
            self._set_health(batch.health)
        if batch.providers is not None:
            self._fill_providers(batch.providers, self.provider_selector.currentData() or "auto")
            self._show_first_run(not batch.providers)
            _freeze_startup_objects()
        if batch.source is not None:
            self._source_blocks = batch.source
        if batch.target is not None:
            self._target = batch.target
            self._target_streaming = batch.streaming
        if batch.revision < self.revision:
            return  # computed for a source we no longer show: wait for the worker to catch up
        self._pending = batch.pending
        self.status.set_busy(batch.busy)
        if batch.source is not None or self._shown_source is not self._source_blocks:
            self._shown_source = self._source_blocks
            self.sync.set_source_blocks(self._source_blocks)
        self._live_target, self._streaming = self._target, self._target_streaming
        self._refresh_target()

    def _refresh_target(self) -> None:
        """Show the live target with the review on top (reviewer's text never streamed over)."""
        wanted = self.review_ctl.compose(self._live_target, self._streaming, self._pending)
        if wanted is not self._shown_target and wanted != self._shown_target:
            self._shown_target = wanted
            self.target_editor.want(wanted)
            self.preview.want(wanted)
            self.scheduler.kick()

    def _on_event(self, event: EngineEvent) -> None:
        if isinstance(event, RequestDone):
            self.status.request_done(event.stats)
            self._show_health()  # a success elsewhere must not hide a refused key
            self._check_budget()
        elif isinstance(event, EngineError) and event.kind == "startup":
            self.status.show_error("Translation is off: no provider could be set up", event.message)
        elif isinstance(event, EngineError):
            self.status.show_error(event.message, event.detail)
        elif isinstance(event, BlockFailed) and event.revision >= self.revision:
            self.statusBar().showMessage("A section could not be translated: see the error", 5000)
        elif isinstance(event, RevisionDone) and event.revision == self.revision:
            self._revision_done(event)
        elif isinstance(event, Expansion):
            self.preview.set_expansion(event.block_id, event.text)
            self.scheduler.kick()
            if event.done:
                self.statusBar().showMessage("Section expanded (marked as generated)", 4000)

    def _budget_reached(self) -> bool:
        budget = self.settings.daily_budget_usd
        return (
            budget is not None and budget_state(self.status.ledger.today().usd, budget) == "reached"
        )

    def _check_budget(self) -> None:
        """Near the daily budget: say so. Reached: pause Live (not saved: it is for today)."""
        budget = self.settings.daily_budget_usd
        if budget is None:
            return
        notice = self.status.ledger.budget_notice(budget)
        if notice:
            self.status.show_error(notice)
        if self._budget_reached() and self.live:
            self.actions_.live.blockSignals(True)
            self.actions_.live.setChecked(False)
            self.actions_.live.blockSignals(False)
            self._debounce.stop()

    # ---- warm start and provider health (docs/routing.md §3 and §8) ---------------------------

    def _warm_up(self, worker: EngineWorker | None = None) -> None:
        """Let the worker warm the top provider up (it sends only at start or after a long idle),
        unless warm-ups are off (settings: ``warmup = false``) or today's budget is spent."""
        if not self.warmup_enabled or not self.settings.warmup:
            return
        if not self._budget_reached():
            (worker or self.worker).warm_up()

    def _set_health(self, entries: tuple[Any, ...]) -> None:
        """Keep what the user must fix (a refused key, a missing model) on show until it is
        fixed; rate limits and cooldowns pass by themselves and are not shown."""
        self._health = tuple(e for e in entries if e.state in ("auth", "unavailable"))
        if not self._health and self._health_shown:
            if self.status.error_message == self._health_shown:
                self.status.clear_error()
            self._health_shown = ""
        self._show_health()

    def _show_health(self) -> None:
        if self._health and not self.status.error_message:
            entry = self._health[0]
            self._health_shown = _health_text(entry)
            self.status.show_error(self._health_shown, entry.message)

    def _revision_done(self, event: RevisionDone) -> None:
        if event.from_memory and not event.translated and not event.failed:
            self.status.from_memory(event.from_memory)

    def _target_settled(self) -> None:
        self.target_updated.emit()

    # ---- editing ------------------------------------------------------------------------------

    def _source_changed(self) -> None:
        if self.live and not self.source.composing:
            self._debounce.start()

    def _composition_changed(self, composing: bool) -> None:
        if composing:
            self._debounce.stop()
        elif self.live:
            self._debounce.start()

    def _debounced(self) -> None:
        if not self.source.composing and self.live:
            self._send_update()

    @property
    def live(self) -> bool:
        return self.actions_.live.isChecked()

    def set_live(self, on: bool) -> None:
        self._save_settings(live=on)
        if on:
            self._send_update()
        else:
            self._debounce.stop()

    def translate_now(self) -> None:
        """Send the source now (also retries blocks that failed)."""
        self._debounce.stop()
        if self._budget_reached() and not self._confirm_over_budget():
            return
        self._send_update(force=True)

    def _block_under_cursor(self) -> str | None:
        widget = self.focusWidget()
        if widget is self.target_editor or widget is self.preview:
            index = widget.index_at(widget.textCursor().position())
        else:
            index = self.sync.source_block_index(self.source.textCursor().position())
        if index is None or not 0 <= index < len(self._source_blocks):
            return None
        return self._source_blocks[index].key

    def retranslate_section(self) -> None:
        block_id = self._block_under_cursor()
        if block_id:
            self.worker.retranslate([block_id])
            self.status.set_busy(True)

    def expand_section(self) -> None:
        """Ask the model to elaborate the section under the cursor (shown marked as generated)."""
        block_id = self._block_under_cursor()
        if not block_id:
            return
        self._show_raw(False)
        self.worker.expand(block_id)
        self.statusBar().showMessage("Expanding the section…", 3000)

    def set_mode(self, mode: str) -> None:
        self.mode_selector.setCurrentIndex(max(0, self.mode_selector.findData(mode)))

    def set_language(self, code: str) -> None:
        self._select_language(code)

    def focus_language(self) -> None:
        self.language_selector.setFocus()
        self.language_selector.lineEdit().selectAll()

    def focus_provider(self) -> None:
        self.provider_selector.setFocus()
        self.provider_selector.showPopup()

    def focus_source(self) -> None:
        self.source.setFocus()

    def focus_target(self) -> None:
        self.target_stack.currentWidget().setFocus()

    def copy_focused(self) -> None:
        widget = self.focusWidget()
        (widget if hasattr(widget, "copy") else self.source).copy()

    def select_all_focused(self) -> None:
        widget = self.focusWidget()
        (widget if hasattr(widget, "selectAll") else self.source).selectAll()

    # ---- target view --------------------------------------------------------------------------

    @property
    def showing_raw(self) -> bool:
        return self.target_stack.currentWidget() is self.target_editor

    def toggle_target_view(self) -> None:
        self._show_raw(not self.showing_raw)
        self._save_window(view="raw" if self.showing_raw else "rendered")

    def _show_raw(self, raw: bool) -> None:
        self.target_stack.setCurrentWidget(self.target_editor if raw else self.preview)
        label = "Show rendered" if raw else "Show Markdown"
        self.view_toggle.setText(label)
        self.view_toggle.setToolTip(f"{label} (Ctrl+R)")
        if hasattr(self, "actions_"):
            self.actions_.toggle_view.setText(label)
        self.scheduler.kick()
        self.sync.target_rendered()

    def set_sync_scroll(self, on: bool) -> None:
        self.sync.enabled = on
        self._save_window(sync="1" if on else "0")

    # ---- files --------------------------------------------------------------------------------

    def open_file(self, path: str | Path) -> bool:
        """Open a Markdown file as the source (no question asked: callers confirm first)."""
        try:
            text = read_document(path)
        except DocumentError as exc:
            self._warn("Cannot open the file", str(exc))
            return False
        self._load(text, Path(path).expanduser().absolute())
        self._save_settings(recent=self.path)
        return True

    def open_sample(self) -> None:
        if not self._confirm_discard():
            return
        self._load(resource("sample.md").read_text(encoding="utf-8"), None, name=SAMPLE_NAME)

    def new_document(self) -> None:
        if self._confirm_discard():
            self._load("", None)

    def _load(
        self,
        text: str,
        path: Path | None,
        *,
        name: str = UNTITLED,
        restored: Review | None = None,
        autosave_key: str | None = None,
        modified: bool = False,
    ) -> None:
        """Show ``text`` as the source. The previous document's review is saved first; this
        one's is read from its review file (or ``restored`` from a crash-recovery copy)."""
        self._review_problems(self.review_ctl.leave())
        self.newline = "\r\n" if "\r\n" in text else "\n"
        self.path = path
        self.untitled_name = name
        self.preview.expansions.clear()
        warnings = self.review_ctl.open(
            path,
            self.review_key(),
            floor=self.revision + 1,
            restored=restored,
            autosave_key=autosave_key,
        )
        self._review_warnings(warnings)
        self.disk.watch(path, text if path is not None else None)
        self.source.setPlainText(render.normalize(text))
        self.source.document().setModified(modified)
        self.source.moveCursor(QTextCursor.MoveOperation.Start)
        self._update_title()
        self._debounce.stop()
        if self.live:
            self._send_update()

    def open_dialog(self) -> None:
        if not self._confirm_discard():
            return
        start = str(self.path.parent) if self.path else str(Path.home())
        path, _ = QFileDialog.getOpenFileName(
            self,
            "Open Markdown",
            start,
            "Markdown (*.md *.markdown *.mdown *.mkd *.txt);;All files (*)",
        )
        if path:
            self.open_file(path)

    def _open_dropped(self, files: list[str]) -> None:
        if files and self._confirm_discard():
            self.open_file(files[0])

    def save(self) -> bool:
        if self.path is None:
            return self.save_as()
        return self._write_source(self.path)

    def save_as(self) -> bool:
        start = str(self.path) if self.path else str(Path.home() / "untitled.md")
        path, _ = QFileDialog.getSaveFileName(self, "Save Markdown", start, "Markdown (*.md)")
        if not path:
            return False
        return self._write_source(Path(path))

    def _write_source(self, path: Path) -> bool:
        text = plain_text(self.source.document())
        try:
            atomic_write_text(
                path, text.replace("\n", self.newline) if self.newline != "\n" else text
            )
        except OSError as exc:
            self._warn("Cannot save the file", f"{path}: {exc.strerror or exc}")
            return False
        if path != self.path:
            self.disk.watch(path, text)
        else:
            self.disk.known(text)
        self.path = path
        self.source.document().setModified(False)
        self._review_problems(self.review_ctl.saved(path, text))
        self._update_title()
        self._save_settings(recent=path)
        self.statusBar().showMessage(f"Saved {path.name}", 3000)
        return True

    def translation_text(self) -> str:
        """The whole target as exported: the reviewer's corrections, else the translation,
        else (not translated yet) the source; line ends as in the source file."""
        text = self.review_ctl.target_text()
        return text.replace("\n", self.newline) if self.newline != "\n" else text

    def export_translation(self, path: str | Path) -> bool:
        try:
            self.review_ctl.export_target(path, newline=self.newline)
        except OSError as exc:
            self._warn("Cannot export the translation", f"{path}: {exc.strerror or exc}")
            return False
        self.statusBar().showMessage(f"Translation written to {Path(path).name}", 4000)
        return True

    def export_dialog(self) -> None:
        if self._pending:
            answer = QMessageBox.question(
                self,
                "Export translation",
                f"{len(self._pending)} section(s) are not translated yet and will be exported "
                "as they stand. Export anyway?",
            )
            if answer != QMessageBox.StandardButton.Yes:
                return
        suggested = self.review_ctl.export_path()
        if self.path is None:
            suggested = Path.home() / suggested.name
        path, _ = QFileDialog.getSaveFileName(
            self, "Export translation", str(suggested), "Markdown (*.md)"
        )
        if path:
            self.export_translation(path)

    # ---- review (docs/review.md) ---------------------------------------------------------------

    def review_key(self) -> str:
        """Which review the target belongs to: the language, or "simplify"."""
        return review_key(
            self.mode_selector.currentData() or "translate",
            self.language_selector.currentData() or "fr",
        )

    @property
    def review(self) -> Review:
        """The active review (of the current document, in the current mode and language)."""
        return self.review_ctl.review

    def _wire_review(self) -> None:
        ctl = self.review_ctl
        ctl.changed.connect(self._review_changed)
        ctl.stale.connect(self._went_stale)
        self.target_editor.user_edited.connect(self._target_edited)
        for margin in self.margins:
            margin.clicked.connect(self._margin_clicked)
        self.review_bar.show_requested.connect(lambda: self.go_to_block(self._current_stale()))
        self.review_bar.retranslate_requested.connect(lambda: self._resolve_current("retranslate"))
        self.review_bar.keep_requested.connect(lambda: self._resolve_current("keep"))
        self._margin_timer = QTimer(self)  # while the target re-renders: ~15 repaints a second
        self._margin_timer.setSingleShot(True)
        self._margin_timer.setInterval(60)
        self._margin_timer.timeout.connect(self._repaint_margins)
        self.scheduler.rendered.connect(self._repaint_margins_soon)
        self.scheduler.settled.connect(self._repaint_margins)
        self._review_timer = QTimer(self)  # the summary counts every block: at most ~8 a second
        self._review_timer.setSingleShot(True)
        self._review_timer.setInterval(120)
        self._review_timer.timeout.connect(self._update_review_bar)
        self.disk = DiskWatcher(self)
        self.disk.changed.connect(self._disk_changed)
        self.disk.vanished.connect(self._disk_vanished)
        ctl.switch(self.review_key(), 0)  # the language the window starts in
        self._update_review_bar()

    def _review_changed(self) -> None:
        self._repaint_margins_soon()
        if not self._review_timer.isActive():
            self._review_timer.start()

    def _repaint_margins_soon(self) -> None:
        if not self._margin_timer.isActive():
            self._margin_timer.start()

    def _repaint_margins(self) -> None:
        for margin in self.margins:
            margin.update()

    def _update_review_bar(self) -> None:
        self.review_bar.set_summary(self.review_ctl.summary())
        self.review_bar.set_stale(len(self.review_ctl.stale_blocks()))

    def _review_warnings(self, warnings: list[str]) -> None:
        for warning in warnings:
            self.status.show_error("Review file problem", warning)

    def _review_problems(self, problems: list[str]) -> None:
        for problem in problems:
            self.status.show_error("The review file could not be written", problem)

    def _went_stale(self, block_ids: list[str]) -> None:
        count = len(block_ids)
        self.statusBar().showMessage(
            f"Source changed under {count} edit{'s' if count != 1 else ''}: "
            "re-translate or keep yours",
            8000,
        )

    def _target_edited(self, position: int, _removed: int, _added: int) -> None:
        """The user typed in the raw target: the touched blocks become "edited"."""
        editor = self.target_editor
        view = editor.shown_view()
        text = plain_text(editor.document())
        changes = self.review_ctl.user_edit(view, text, py_index(text, position))
        if not changes and text != view.text:
            editor.undo_user_edit()  # typed into an empty pane: no block to keep it
            return
        editor.take_user_edit(view, changes)
        self._refresh_target()
        editor.want(self._shown_target)  # even when equal: what it wanted before is outdated

    def _margin_clicked(self, block_id: str, where: QPoint) -> None:
        self.review_menu(block_id).popup(where)

    def review_menu(self, block_id: str) -> QMenu:
        """The choices for one block (the margin's click): approve, revert, re-translate, and
        for a block whose source changed under an edit, re-translate or keep mine."""
        info = self.review_ctl.info(block_id)
        menu = QMenu(self)
        menu.setObjectName("blockReviewMenu")
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        title = menu.addAction(STATE_STYLES[info.state].label.capitalize())
        title.setEnabled(False)
        menu.addSeparator()

        def add(text: str, slot: Any, enabled: bool = True) -> None:
            action = menu.addAction(text)
            action.setEnabled(enabled)
            action.triggered.connect(lambda _checked=False: slot())

        if info.state == "stale_edit":
            add("Re-translate (drop my edit)", lambda: self.resolve_block(block_id, "retranslate"))
            add("Keep Mine", lambda: self.resolve_block(block_id, "keep"))
            return menu
        if info.approved:
            add("Withdraw Approval", lambda: self.unapprove_block(block_id))
        else:
            ready = info.state not in ("pending", "in_flight", "copy")
            add("Approve", lambda: self.approve_block(block_id), ready)
        if info.edited:
            add("Revert My Edit", lambda: self.revert_block(block_id))
        add("Re-translate", lambda: self._retranslate([block_id]), info.state != "copy")
        return menu

    def _review_block(self) -> str | None:
        """The block under the cursor of the focused pane (target panes by what they show)."""
        widget = self.focusWidget()
        for pane in (self.target_editor, self.preview):
            if widget is pane and pane.shown:
                return pane.shown[pane.index_at(pane.textCursor().position())].key or None
        return self._block_under_cursor()

    def approve_block(self, block_id: str | bool | None = None) -> bool:
        key = block_id if isinstance(block_id, str) else self._review_block()
        if not key:
            return False
        if self.review_ctl.approve(key):
            self.statusBar().showMessage("Block approved", 2000)
            self._refresh_target()
            return True
        state = self.review_ctl.state_of(key)
        reason = {
            "stale_edit": "its source changed since your edit: re-translate or keep yours first",
            "pending": "it is not translated yet",
            "in_flight": "it is being translated",
            "copy": "it is kept as is (code, front matter…)",
            "approved": "it is approved already",
        }.get(state, "nothing to approve")
        self.statusBar().showMessage(f"Not approved: {reason}", 5000)
        return False

    def unapprove_block(self, block_id: str) -> bool:
        return self.review_ctl.unapprove(block_id)

    def approve_all(self) -> int:
        count = self.review_ctl.approve_all()
        summary = self.review_ctl.summary()
        rest = []
        if summary.flagged:
            rest.append(f"{summary.flagged} flagged")
        if summary.stale:
            rest.append(f"{summary.stale} with a changed source")
        if summary.pending or summary.in_flight:
            rest.append(f"{summary.pending + summary.in_flight} not translated yet")
        note = f"; left for you: {', '.join(rest)}" if rest else ""
        self.statusBar().showMessage(f"Approved {count} block(s){note}", 6000)
        self._refresh_target()
        return count

    def revert_block(self, block_id: str | bool | None = None) -> bool:
        key = block_id if isinstance(block_id, str) else self._review_block()
        if not key or not self.review_ctl.revert(key):
            return False
        self._refresh_target()
        return True

    def resolve_block(self, block_id: str, choice: str) -> None:
        """ "Source changed since your edit": ``"retranslate"`` or ``"keep"``."""
        if self.review_ctl.resolve(block_id, choice):
            self._retranslate([block_id])
        self._refresh_target()

    def _retranslate(self, block_ids: list[str]) -> None:
        self.worker.retranslate(block_ids)
        self.status.set_busy(True)

    def _current_stale(self) -> str | None:
        stale = self.review_ctl.stale_blocks()
        here = self._review_block()
        return here if here in stale else (stale[0] if stale else None)

    def _resolve_current(self, choice: str) -> None:
        block_id = self._current_stale()
        if block_id:
            self.go_to_block(block_id)
            self.resolve_block(block_id, choice)

    def go_to_block(self, block_id: str | None) -> None:
        """Scroll the target pane to a block and put its cursor there."""
        pane = self.target_stack.currentWidget()
        keys = [seg.key for seg in pane.shown]
        if block_id not in keys:
            return
        index = keys.index(block_id)
        if pane is self.target_editor:
            cursor = self.target_editor.textCursor()
            cursor.setPosition(self.target_editor.block_range(index)[0])
            self.target_editor.setTextCursor(cursor)
            self.target_editor.centerCursor()
        else:
            span = self.preview.block_span(index)
            if span is not None:
                self.preview.verticalScrollBar().setValue(round(span[0]) - 24)
            cursor = QTextCursor(self.preview.document())
            cursor.setPosition(self.preview.block_start(index))
            self.preview.setTextCursor(cursor)
        pane.setFocus()
        self._repaint_margins()

    def next_issue(self) -> str | None:
        """Go to the next block that needs a look: flagged, or source changed under an edit."""
        pane = self.target_stack.currentWidget()
        keys = [seg.key for seg in pane.shown]
        if not keys:
            return None
        here = self._review_block()
        start = keys.index(here) + 1 if here in keys else 0
        for key in keys[start:] + keys[:start]:
            if self.review_ctl.state_of(key) in ("flagged", "stale_edit"):
                self.go_to_block(key)
                return key
        self.statusBar().showMessage("No flagged block, no changed source: nothing to check", 4000)
        return None

    def show_review_summary(self) -> QMessageBox:
        s = self.review_ctl.summary()
        lines = [
            f"Blocks to review: {s.blocks}",
            f"Approved: {s.approved}",
            f"Edited (not approved yet): {s.edited}",
            f"Flagged (failed a check): {s.flagged}",
            f"Source changed since your edit: {s.stale}",
            f"Not translated yet: {s.pending + s.in_flight}",
        ]
        if s.detached:
            lines.append(f"Edits of deleted blocks (kept aside): {s.detached}")
        box = QMessageBox(
            QMessageBox.Icon.Information,
            "Review summary",
            str(s),
            QMessageBox.StandardButton.Ok,
            self,
        )
        box.setObjectName("reviewSummaryBox")
        box.setInformativeText("\n".join(lines))
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        return box

    def export_bilingual(self, path: str | Path) -> bool:
        """The bilingual review page (standalone HTML) for people without fastdesk."""
        try:
            self.review_ctl.export_bilingual(path)
        except OSError as exc:
            self._warn("Cannot export the review page", f"{path}: {exc.strerror or exc}")
            return False
        self.statusBar().showMessage(f"Review page written to {Path(path).name}", 4000)
        return True

    def export_bilingual_dialog(self) -> None:
        suggested = self.review_ctl.html_export_path()
        if self.path is None:
            suggested = Path.home() / suggested.name
        path, _ = QFileDialog.getSaveFileName(
            self, "Export bilingual review", str(suggested), "HTML page (*.html)"
        )
        if path:
            self.export_bilingual(path)

    # ---- crash recovery and changes on disk ------------------------------------------------------

    def offer_recovery(self) -> QDialog | None:
        """At start-up: what a crashed session left unsaved, offered back (restore or discard)."""
        if self._closing:
            return None
        found = autosave.pending()
        if not found:
            return None
        from fastdesk.ui.window.recovery import RecoveryDialog

        dialog = RecoveryDialog(found, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.restore_requested.connect(self.restore_recovery)
        dialog.open()
        return dialog

    def restore_recovery(self, recovery: autosave.Recovery) -> bool:
        """Reopen an autosaved document: its unsaved text (modified) and its review."""
        if not self._confirm_discard():
            return False
        try:
            restored = autosave.restore(recovery)
        except (OSError, KeyError) as exc:
            self._warn("Cannot restore", f"{recovery.file}: {exc}")
            return False
        review: Review | None = None
        if restored.review is not None:
            try:
                review = Review.from_dict(restored.review, restored.path)
            except ValueError as exc:
                self._warn("The review could not be restored (the text is)", str(exc))
        if review is not None:
            self._select_review_key(review.lang)
        self._load(
            restored.source_text,
            restored.path,
            restored=review,
            autosave_key=recovery.key,
            modified=True,
        )
        self.statusBar().showMessage(f"Restored {recovery.label}", 6000)
        return True

    def _select_review_key(self, key: str) -> None:
        if key == SIMPLIFY_KEY:
            self.set_mode("simplify")
        else:
            self.set_mode("translate")
            self.set_language(key)

    def _disk_changed(self, text: str) -> None:
        """Another program changed the open file: reload it (asking first when the source has
        unsaved changes); the review is re-aligned block by block."""
        new = render.normalize(text)
        if new == plain_text(self.source.document()):
            return
        name = self.path.name if self.path else self.untitled_name
        if self.source.document().isModified() and self._ask_reload() != "reload":
            self.statusBar().showMessage(
                f"{name} changed on disk; your version is kept (saving will replace it)", 8000
            )
            return
        self.newline = "\r\n" if "\r\n" in text else "\n"
        self._replace_source(new)
        self.source.document().setModified(False)
        self.review_ctl.realign_now(new, self.revision + 1)
        self._refresh_target()
        self._debounce.stop()
        if self.live:
            self._send_update()
        self.statusBar().showMessage(
            f"{name} was changed on disk: reloaded, review re-aligned", 6000
        )

    def _replace_source(self, new: str) -> None:
        """Replace only what differs (one undoable edit): the view and cursor stay put."""
        doc = self.source.document()
        old = plain_text(doc)
        head = common_prefix(old, new)
        tail = common_suffix(old, new, min(len(old), len(new)) - head)
        start = render.qt_len(old[:head])
        end = start + render.qt_len(old[head : len(old) - tail])
        cursor = QTextCursor(doc)
        cursor.beginEditBlock()
        cursor.setPosition(start)
        cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        cursor.insertText(new[head : len(new) - tail])
        cursor.endEditBlock()

    def _disk_vanished(self, path: str) -> None:
        self.source.document().setModified(True)  # closing asks; saving writes it again
        self.statusBar().showMessage(
            f"{Path(path).name} was deleted or moved on disk; save to write it again", 8000
        )

    def _ask_reload(self) -> str:
        """'reload' or 'keep' (tests replace this)."""
        name = self.path.name if self.path else self.untitled_name
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "File changed on disk",
            f"{name} was changed by another program, and you have unsaved changes.",
            QMessageBox.StandardButton.NoButton,
            self,
        )
        box.setInformativeText(
            "Reload it from disk (your unsaved changes to the source are lost; your review is "
            "re-aligned), or keep your version (saving will replace the file)?"
        )
        reload = box.addButton("Reload", QMessageBox.ButtonRole.DestructiveRole)
        box.addButton("Keep Mine", QMessageBox.ButtonRole.RejectRole)
        box.exec()
        return "reload" if box.clickedButton() is reload else "keep"

    def fill_recent_menu(self, menu: QMenu) -> None:
        menu.clear()
        for entry in self.settings.recent_files:
            action = menu.addAction(entry)
            action.triggered.connect(lambda _checked=False, p=entry: self._open_recent(p))
        if not self.settings.recent_files:
            menu.addAction("No recent files").setEnabled(False)

    def _open_recent(self, path: str) -> None:
        if self._confirm_discard():
            self.open_file(path)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if dropped_files(event):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        files = dropped_files(event)
        if files:
            event.acceptProposedAction()
            self._open_dropped(files)

    # ---- dialogs and hooks -----------------------------------------------------------------------

    def open_settings(self) -> None:
        """The Settings dialog (keys, models, preferences); saving restarts the engine."""
        from fastdesk.ui.dialogs.settings import SettingsDialog

        dialog = SettingsDialog(self.settings, self, ledger=self.status.ledger)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.settingsSaved.connect(self.apply_settings)
        dialog.keysChanged.connect(self.restart_engine)
        dialog.open()

    def _show_first_run(self, show: bool) -> None:
        """No provider configured: say how to get going, above the target pane."""
        if not show:
            if self.first_run is not None:
                self.first_run.hide()
            return
        if self.first_run is None:
            from fastdesk.ui.window.first_run import FirstRunPanel

            panel = FirstRunPanel(self)
            panel.openSettingsRequested.connect(self.open_settings)
            panel.localServerChosen.connect(lambda _url, _model: self.apply_settings())
            self.target_layout.insertWidget(1, panel)
            self.first_run = panel
        self.first_run.show()

    def about(self) -> None:
        QMessageBox.about(
            self,
            "About fastdesk",
            f"<h3>fastdesk {fastdesk.__version__}</h3>"
            "<p>Live Markdown translation and plain-language rewriting on very fast LLM "
            "providers (Groq, Cerebras, any OpenAI-compatible server).</p>"
            "<p>Edits are translated block by block; answers you have seen before come from "
            "the translation memory at no cost.</p>",
        )

    def _warn(self, title: str, text: str) -> None:
        box = QMessageBox(
            QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Ok, self
        )
        box.setObjectName("warningBox")
        box.open()  # not exec(): never blocks callers such as open_file()

    def _ask_save(self) -> str:
        """'save', 'discard' or 'cancel' (tests replace this)."""
        answer = QMessageBox.question(
            self,
            "Unsaved changes",
            f"Save the changes to {self.path.name if self.path else self.untitled_name}?",
            QMessageBox.StandardButton.Save
            | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save,
        )
        return {
            QMessageBox.StandardButton.Save: "save",
            QMessageBox.StandardButton.Discard: "discard",
        }.get(answer, "cancel")

    def _confirm_over_budget(self) -> bool:
        answer = QMessageBox.question(
            self,
            "Daily budget reached",
            self.status.ledger.budget_notice(self.settings.daily_budget_usd)
            + "\n\nTranslate anyway?",
        )
        return answer == QMessageBox.StandardButton.Yes

    def _confirm_discard(self) -> bool:
        """True when the current source may be replaced (saved, discarded or unmodified)."""
        if not self.source.document().isModified():
            return True
        answer = self._ask_save()
        if answer == "save":
            return self.save()
        return answer == "discard"

    # ---- settings and layout -------------------------------------------------------------------

    def _save_settings(self, *, recent: Path | None = None, **changes: Any) -> None:
        """Read-modify-write, so that values saved elsewhere (the Settings dialog) survive."""
        current, _warnings = load_settings()
        if recent is not None:
            current = current.with_recent_file(recent)
        if changes:
            current = dataclasses.replace(current, **changes)
        if current == self.settings and recent is None and not changes:
            return
        try:
            save_settings(current)
        except (OSError, RuntimeError) as exc:
            log.warning("settings not saved: %s", exc)
        self.settings = current

    def _save_window(self, **values: str) -> None:
        window = dict(load_settings()[0].window)
        window.update(values)
        self._save_settings(window=window)

    def _restore_layout(self) -> None:
        window = self.settings.window
        geometry = _unb64(window.get("geometry"))
        if geometry is not None:
            self.restoreGeometry(geometry)
        state = _unb64(window.get("state"))
        if state is not None:
            self.restoreState(state)
        splitter = _unb64(window.get("splitter"))
        if splitter is not None:
            self.splitter.restoreState(splitter)

    def _layout_values(self) -> dict[str, str]:
        return {
            "geometry": _b64(self.saveGeometry()),
            "state": _b64(self.saveState()),
            "splitter": _b64(self.splitter.saveState()),
            "view": "raw" if self.showing_raw else "rendered",
            "sync": "1" if self.sync.enabled else "0",
        }

    def _update_title(self) -> None:
        name = self.path.name if self.path else self.untitled_name
        self.setWindowTitle(f"{name}[*] — fastdesk")
        self.source_title.setText(f"Source — {name}")
        mode = self.mode_selector.currentData()
        lang = self.language_selector.currentData() or ""
        if mode == "simplify":
            self.target_title.setText("Plain-language version")
        else:
            self.target_title.setText(f"Translation — {language_name(lang)}")

    # ---- Qt events -----------------------------------------------------------------------------

    def changeEvent(self, event: QEvent) -> None:
        activated = event.type() == QEvent.Type.ActivationChange and self.isActiveWindow()
        if activated and hasattr(self, "worker") and not self._closing:
            self._warm_up()  # back after a break: the worker decides whether it was long
        if event.type() == QEvent.Type.PaletteChange:
            dark = is_dark(self.palette())
            self.source_highlighter.set_dark(dark)
            self.target_highlighter.set_dark(dark)
            for pane in (self.source, self.target_editor):
                flat_scroll_bars(pane)
            self.preview.apply_palette()
            self.scheduler.kick()
        super().changeEvent(event)

    def closeEvent(self, event: QCloseEvent) -> None:
        """Unsaved edits ask first; then in-flight requests are cancelled (within a second)."""
        if not self._closing and not self._confirm_discard():
            event.ignore()
            return
        self._closing = True
        self._debounce.stop()
        self.disk.watch(None, None)
        self._review_problems(self.review_ctl.close())  # review file written, copy removed
        try:
            self._save_window(**self._layout_values())
        except Exception:  # never keep the window open because settings could not be written
            log.exception("window layout not saved")
        with contextlib.suppress(RuntimeError):
            self.worker.batch.disconnect(self._on_batch)
        if not self.worker.stop(timeout=0.8):
            log.warning("the engine thread did not stop in time; leaving it behind")
        self.status.close()
        event.accept()


def _pane(title: QLabel, body: QWidget, corner: QWidget | None = None) -> QWidget:
    """A pane: a small header line (title, optional button on the right) above the body."""
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(2)
    head = QWidget()
    head.setFixedHeight(max(28, title.sizeHint().height() + 8))
    header = QHBoxLayout(head)
    header.setContentsMargins(6, 0, 2, 0)
    font = title.font()
    font.setBold(True)
    title.setFont(font)
    header.addWidget(title, 1)
    if corner is not None:
        corner.setMaximumHeight(head.height() - 2)
        header.addWidget(corner)
    layout.addWidget(head)
    layout.addWidget(body, 1)
    return box


def _health_text(entry: Any) -> str:
    """One short line for the status bar (the router's own sentence is the detail)."""
    if entry.state == "auth":
        return f"{entry.provider}: the API key was refused — open Settings"
    return f"{entry.provider}/{entry.model}: model not available — choose another in Settings"


def py_index(text: str, position: int) -> int:
    """A Qt (UTF-16) position in ``text`` as a Python index."""
    if text.isascii():
        return position
    return len(text.encode("utf-16-le")[: 2 * position].decode("utf-16-le", "ignore"))


def _freeze_startup_objects() -> None:
    """Move everything alive once the engine is built (Qt, the SDKs, pydantic models …) out of
    the garbage collector's reach: a full collection then scans only what the session made,
    which took it from ~50 ms (three stalled frames) to a few ms in benchmarks/bench_ui.py.
    No gc.collect() first: that alone would stall for as long. Once per process."""
    global _frozen
    if not _frozen:
        _frozen = True
        gc.freeze()


_frozen = False


def _looks_like_code(text: str) -> bool:
    return bool(re.fullmatch(r"[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*", text))
