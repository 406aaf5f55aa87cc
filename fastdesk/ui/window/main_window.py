"""The main window: the frame around one open document (fastdesk.ui.document.view).

It keeps the chrome: menus and toolbar (actions.py, built from the table in commands.py, whose
handlers are this window's methods and those of the objects it holds), the mode, language and
provider selectors, the status bar and the window's geometry (kept in the settings: geometry.py).
The document view holds the document and its translation; its file and review commands live in
fastdesk.ui.document.files and .review_commands. What the document's session and the engine say
(requests and their cost, failures, provider health, which providers exist, the budget, the
first-run panel while there is none) the window's NewsReader shows (news.py).
"""

from __future__ import annotations

import dataclasses
import functools
import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QFileDialog,
    QMainWindow,
    QMenu,
    QMessageBox,
)

import fastdesk
from fastdesk.clock import Clock, SystemClock
from fastdesk.config.settings import Settings, load_settings, save_settings, saved_settings
from fastdesk.project.batch_flow import Offer
from fastdesk.project.layout import Project
from fastdesk.review import autosave
from fastdesk.translate.job import JobSpec
from fastdesk.ui.bridge.translators import default_engine_factory, default_translator_factory
from fastdesk.ui.bridge.worker import EngineFactory, TranslatorFactory
from fastdesk.ui.document.files import FileCommands, warn
from fastdesk.ui.document.review_commands import ReviewCommands
from fastdesk.ui.document.view import DocumentView
from fastdesk.ui.panes.common import dropped_files, is_dark
from fastdesk.ui.panes.elided import ElidingStatusBar
from fastdesk.ui.panes.theme import apply_theme
from fastdesk.ui.plain import menu_text
from fastdesk.ui.review.controller import SIMPLIFY_KEY
from fastdesk.ui.window.actions import Actions
from fastdesk.ui.window.geometry import restore_geometry, saved_geometry
from fastdesk.ui.window.news import NewsReader
from fastdesk.ui.window.panels import Panels, PanelTable
from fastdesk.ui.window.recovery import RecoveryDialog
from fastdesk.ui.window.selectors import Selectors
from fastdesk.ui.window.status_bar import StatusPanel
from fastdesk.ui.workbench import Workbench
from fastdesk.ui.workbench.house import HouseKeeper
from fastdesk.ui.workbench.project import ProjectDock, ProjectPanel
from fastdesk.ui.workbench.project_batch import ask
from fastdesk.ui.workbench.project_run import ProjectRun

log = logging.getLogger("fastdesk.ui")


class MainWindow(QMainWindow):
    """fastdesk's window. ``MainWindow()`` reads the settings (FASTDESK_HOME honoured).

    ``engine_factory``/``translator_factory`` exist for tests and benchmarks: they run in the
    worker thread and default to the app's engine and LiveTranslator. ``warmup``: send warm-up
    requests (docs/routing.md §8); default: only with the app's own engine, since a warm-up
    would add a request to the counts of tests and benchmarks. ``clock``: the one clock of the
    window and its engine (fastdesk.clock; made here when not given): a test's engine factory
    builds its router on the same one.
    """

    def __init__(
        self,
        *,
        engine_factory: EngineFactory | None = None,
        translator_factory: TranslatorFactory | None = None,
        settings: Settings | None = None,
        warmup: bool | None = None,
        offer_recovery: bool = True,
        clock: Clock | None = None,
    ) -> None:
        super().__init__()
        self.clock: Clock = clock or SystemClock()
        if settings is None:
            settings, self.settings_warnings = load_settings()
        else:
            self.settings_warnings = []
        self.settings = settings
        self._closing = False
        self.warmup_enabled = engine_factory is None if warmup is None else warmup

        self.setObjectName("mainWindow")
        self.setAcceptDrops(True)
        self.selectors = Selectors(settings, self)
        self.document_view = view = DocumentView(
            spec=self._job,
            live=lambda: self.live,
            debounce_ms=settings.debounce_ms,
            engine_factory=engine_factory or self._app_engine_factory(self.clock),
            translator_factory=translator_factory or default_translator_factory,
            clock=self.clock,
            parent=self,
        )
        self.setCentralWidget(view)
        self.setStatusBar(ElidingStatusBar(self))  # long passing messages elide
        self.status = StatusPanel(self.statusBar(), self, clock=self.clock)
        self.files = FileCommands(
            view,
            self,
            remember=self._remember_file,
            select_review_key=self._select_review_key,
            project=lambda: self.project,
        )
        self.review_commands = ReviewCommands(view, self)
        self.workbench = Workbench(view, self, lambda: self.actions_.shortcut_rows())
        self.house = HouseKeeper(
            view,
            self,
            self.selectors.spec,
            lambda: self.settings,
            self.workbench.problem_list,
            save=lambda **changes: self._save_settings(**changes),
        )
        self.house.readability_changed.connect(self.status.set_readability)
        # panels by keyboard: F6, their shortcuts, the focus frame
        self.panels = Panels(
            self, view, self.workbench, lambda: self.toolbar, lambda: self.panel_table()
        )
        self.actions_ = Actions(self)  # every command of the table, run by this window
        self.actions_.build_menus(self.menuBar())
        self.news = NewsReader(
            self,
            view,
            status=self.status,
            status_bar=self.statusBar(),
            selectors=self.selectors,
            settings=lambda: self.settings,
            live=self.actions_.live,
            open_settings=self.open_settings,
            apply_settings=self.apply_settings,
        )
        self.workbench.install()
        self.house.install()
        self.project = self._install_project()
        self.project_run = ProjectRun(
            engine_factory or self._app_engine_factory(None),
            self.selectors.spec,
            self,
            clock=self.clock,
        )
        self.toolbar = self.actions_.build_toolbar(self, self.selectors.widgets)
        self.addToolBar(self.toolbar)
        self.panels.install()
        self._wire()

        for action, on in (
            (self.actions_.live, settings.live),
            (self.actions_.sync_scroll, settings.window.get("sync", "1") == "1"),
            (self.actions_.dark_theme, settings.theme == "dark"),
        ):
            action.blockSignals(True)
            action.setChecked(on)
            action.blockSignals(False)
        view.sync.enabled = self.actions_.sync_scroll.isChecked()
        view.show_raw(settings.window.get("view") == "raw")
        self._update_title()
        self.resize(1200, 760)
        restore_geometry(self, view.splitter, self.settings.window)
        for warning in self.settings_warnings:
            self.status.show_error("Settings problem (defaults used)", warning)
        view.start_engine()
        self._warm_up()
        if offer_recovery:
            QTimer.singleShot(0, self.offer_recovery)

    # ---- construction --------------------------------------------------------------------------

    def _wire(self) -> None:
        view, actions = self.document_view, self.actions_
        self.review_commands.history.bind(actions.undo, actions.redo)
        view.message.connect(self.statusBar().showMessage)
        view.problem.connect(self.status.show_error)
        self.status.retry_button.clicked.connect(view.blocks.retry_failed)
        view.busy.connect(self.status.set_busy)
        view.filled_changed.connect(self.status.set_filled)
        view.session.subscribe(self.news.document_changed)
        view.engine_news.connect(self.news.engine_news)
        view.renamed.connect(self._update_title)
        view.modified_changed.connect(self.setWindowModified)
        view.raw_changed.connect(self._raw_changed)
        view.toggle_view_requested.connect(self.toggle_target_view)
        view.typing.connect(lambda: self._warm_up(active=True))  # warm while the editor types
        self.selectors.changed.connect(self._spec_changed)
        view.file_saved.connect(self.project.saved)
        self.project.message.connect(self.statusBar().showMessage)
        self.project_run.finished.connect(self._project_ran)
        self.project_run.offered.connect(self._ask_batch)
        self.project_run.request_done.connect(
            self.status.request_done, Qt.ConnectionType.QueuedConnection
        )
        self.project_run.failed_pages.connect(self.status.show_error)
        view.second.toggled.connect(self._second_pane_toggled)
        view.renamed.connect(self.project.follow)
        self.selectors.changed.connect(self.project.follow)

    # ---- the job spec and the engine -----------------------------------------------------------

    def set_mode(self, mode: str) -> None:
        self.selectors.set_mode(mode)

    def set_language(self, code: str) -> None:
        self.selectors.select_language(code)

    def _select_review_key(self, key: str) -> None:
        if key == SIMPLIFY_KEY:
            self.set_mode("simplify")
        else:
            self.set_mode("translate")
            self.set_language(key)

    def _job(self) -> JobSpec:
        """The selectors' job with the document's house (glossary, style, corrections)."""
        spec = self.selectors.spec()
        house = getattr(self, "house", None)  # none yet while the view is built
        return house.apply(spec) if house is not None else spec

    def _spec_changed(self) -> None:
        self.document_view.respec()
        self.house.style_dock.show_mode(self.selectors.spec().mode)
        self._update_title()
        spec = self.selectors.spec()
        self._save_settings(
            mode=spec.mode, target_language=spec.target_lang, provider=spec.provider
        )

    def restart_engine(self) -> None:
        """Rebuild the engine (after keys or settings changed) and translate the source again."""
        view = self.document_view
        view.stop_engine(timeout=0.3)  # it ends on its own if slower; nothing of it reaches us
        view.start_engine()
        self._warm_up()
        view.resend()

    def _app_engine_factory(self, clock: Clock | None) -> EngineFactory:
        """The app's engine built from the window's settings as they are when it is built (a
        restart after Settings takes the new ones), not from the file read again."""
        return functools.partial(default_engine_factory, clock, lambda: self.settings)

    def apply_settings(self, settings: Settings) -> None:
        """Settings were saved (the Settings dialog, Compare Providers, the first-run panel):
        follow them. They become the window's copy, which every part reads from then on."""
        self.settings = settings
        self._apply_theme()
        view = self.document_view
        view.sending.set_debounce(self.settings.debounce_ms)
        self.selectors.follow(self.settings)
        self._update_title()
        view.switch_review()  # the new engine's events belong to this key's review
        self.restart_engine()
        view.refresh_target()

    def _warm_up(self, *, active: bool = False) -> None:
        """Let the worker warm the top provider up (it sends only at start, after a long idle, or
        when typing resumes after a quiet spell: ``active``), unless warm-ups are off (settings:
        ``warmup = false``) or today's budget is spent."""
        if not self.warmup_enabled or not self.settings.warmup:
            return
        if not self.news.budget_reached() and self.document_view.engine_started:
            self.document_view.worker.warm_up(active=active)

    # ---- Live, the target view, focus ----------------------------------------------------------

    @property
    def live(self) -> bool:
        return self.actions_.live.isChecked()

    def set_live(self, on: bool) -> None:
        self._save_settings(live=on)
        if on:
            self.document_view.send_update()
        else:
            self.document_view.sending.stop()

    def translate_now(self) -> None:
        """Send the source now (also retries blocks that failed)."""
        self.document_view.sending.stop()
        if self.news.budget_reached() and not self.news.confirm_over_budget():
            return
        self.document_view.send_update(force=True)

    def toggle_target_view(self) -> None:
        view = self.document_view
        view.show_raw(not view.showing_raw)
        self._save_window(view="raw" if view.showing_raw else "rendered")

    def set_second_pane(self, on: bool) -> None:
        """A second translation beside the first: in the project's next language, else in
        another common one (its own box changes it)."""
        second = self.document_view.second
        if not on:
            second.close()
            return
        main = self.selectors.spec().target_lang
        project = self.project.project
        choices = [*(project.languages if project else ()), "de", "fr", "es"]
        second.open(next(lang for lang in choices if lang != main))

    def _second_pane_toggled(self, on: bool) -> None:
        self.actions_.second_pane.blockSignals(True)
        self.actions_.second_pane.setChecked(on)
        self.actions_.second_pane.blockSignals(False)

    def _raw_changed(self, raw: bool) -> None:
        self.actions_.toggle_view.setText("Show re&ndered" if raw else "Show &Markdown")

    def set_dark_theme(self, on: bool) -> None:
        """View → Dark Theme: dark or light colours at once, kept in the settings."""
        self._save_settings(theme="dark" if on else "light")
        self._apply_theme()

    def _apply_theme(self) -> None:
        """The settings' theme, live (the panes follow the palette: see changeEvent)."""
        app = QApplication.instance()
        if isinstance(app, QApplication):
            apply_theme(app, self.settings.theme)
        self.actions_.dark_theme.blockSignals(True)
        self.actions_.dark_theme.setChecked(self.settings.theme == "dark")
        self.actions_.dark_theme.blockSignals(False)

    def _follow_palette(self) -> None:
        view = self.document_view
        if view.source_highlighter.dark != is_dark(view.palette()):
            view.apply_palette()

    def set_sync_scroll(self, on: bool) -> None:
        self.document_view.sync.enabled = on
        self._save_window(sync="1" if on else "0")

    def copy_focused(self) -> None:
        widget = self.focusWidget()
        (widget if hasattr(widget, "copy") else self.document_view.source).copy()

    def select_all_focused(self) -> None:
        widget = self.focusWidget()
        (widget if hasattr(widget, "selectAll") else self.document_view.source).selectAll()

    # ---- files: opening, recent files, crash recovery, drops ----------------------------------

    def open_file(self, path: str | Path) -> bool:
        """Open a Markdown file as the source (no question asked: callers confirm first)."""
        return self.files.open_file(path)

    # ---- a docs project (fastdesk.ui.workbench.project) ----------------------------------------

    def _install_project(self) -> ProjectPanel:
        dock = ProjectDock(self)
        dock.hide()
        dock.open_requested.connect(self.show_project)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)
        panel = ProjectPanel(
            dock,
            current=lambda: (self.document_view.path, self.document_view.review_key()),
            open_pair=self._open_in_language,
            review=self.document_view.review_ctl.synced,
            take_edits=self._take_edits,
            warn=lambda title, text: warn(self, title, text),
            parent=self,
        )
        panel.languages_set.connect(self.open_project)  # its languages named: open it now
        return panel

    def open_project(self, folder: str | Path) -> bool:
        """Show a docs project's files by language; its index page opens unless the
        document on show is one of its pages."""
        project = self.project.open(folder)
        if project is None:
            return False
        home = project.home_page()  # the index page first (index.md, README.md, _index.md)
        if home is not None and self.project.source_of(self.document_view.path) is None:
            lang = self.selectors.spec().target_lang
            self.project.choose(home, lang if lang in project.languages else project.languages[0])
        return True

    def show_project(self) -> None:
        """The project panel; with no project open, first the folder to open as one."""
        if self.project.project is None:
            start = str(self.document_view.path.parent if self.document_view.path else Path.home())
            folder = QFileDialog.getExistingDirectory(self, "Open a docs project", start)
            if not folder or not self.open_project(folder):
                return
        self.project.dock.show()
        self.project.dock.raise_()
        self.project.dock.tree.setFocus()

    def panel_table(self) -> PanelTable:
        """Each panel by its command's name, with the method that shows it."""
        bench, house = self.workbench, self.house
        return {
            "outline": (bench.outline, bench.show_outline),
            "problems": (bench.problems, bench.show_problems),
            "project": (self.project.dock, self.show_project),
            "style": (house.style_dock, house.show_style),
            "glossary": (house.glossary_dock, house.show_glossary),
        }

    def translate_project(self) -> None:
        """Translate Project: every page of the project in each of its languages, in the
        background with its progress and a Stop (a folder to open first, without one)."""
        if self.project.project is None:
            self.show_project()
        project = self.project.project
        if project is None or not self.project_run.start(project):
            return
        self.project.dock.show()

    def _ask_batch(self, project: Project, offer: Offer) -> None:
        """Translate Project with a Batch API at hand: now, or in a batch (both costs)."""
        ask(self, offer, lambda choice: self.project_run.start(project, choice))

    def _project_ran(self, summary: str) -> None:
        self.statusBar().showMessage(summary, 10000)
        self.project.refresh()

    def _take_edits(self, lang: str, edits: list[tuple[str, str]]) -> None:
        """A translator's edits of the target on disk, into the document's review."""
        view = self.document_view
        taken = view.review_ctl.take_edits(lang, edits)
        if taken:
            view.refresh_target()
            view.message.emit(f"{taken} block(s) edited in the target file taken in", 6000)

    def _open_in_language(self, path: Path, lang: str) -> bool:
        """Open ``path`` translated into ``lang`` (asking first about unsaved edits)."""
        same = self.document_view.path is not None and self.document_view.path == path
        if not same and not self.files.confirm_discard():
            return False
        self._select_review_key(lang)
        return True if same else self.open_file(path)

    def fill_recent_menu(self, menu: QMenu) -> None:
        menu.clear()
        for entry in self.settings.recent_files:
            action = menu.addAction(menu_text(entry))
            action.triggered.connect(lambda _checked=False, p=entry: self.files.open_recent(p))
        if not self.settings.recent_files:
            menu.addAction("No recent files").setEnabled(False)

    def offer_recovery(self) -> QDialog | None:
        """At start-up: what a crashed run of the app left unsaved, offered back (restore or
        discard)."""
        if self._closing:
            return None
        found = autosave.pending()
        if not found:
            return None

        dialog = RecoveryDialog(found, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.restore_requested.connect(self.files.restore)
        dialog.open()
        return dialog

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if dropped_files(event):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        files = dropped_files(event)
        if files:
            event.acceptProposedAction()
            self.files.open_dropped(files)

    # ---- dialogs and hooks -----------------------------------------------------------------------

    def compare_providers(self) -> None:
        """Time every configured provider and model on this document (Compare Providers…)."""
        from fastdesk.ui.dialogs.compare import open_compare_dialog  # loads when opened: start-up

        open_compare_dialog(self)

    def open_settings(self) -> None:
        """The Settings dialog (keys, models, preferences); saving restarts the engine."""
        from fastdesk.ui.dialogs.settings import SettingsDialog  # loads when opened: start-up

        dialog = SettingsDialog(self.settings, self, ledger=self.status.ledger)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.settingsSaved.connect(self.apply_settings)
        dialog.keysChanged.connect(self.restart_engine)
        dialog.open()

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

    # ---- settings and geometry -------------------------------------------------------------

    def _remember_file(self, path: Path) -> None:
        self._save_settings(recent=path)

    def _save_settings(
        self, *, recent: Path | None = None, window: dict[str, str] | None = None, **changes: Any
    ) -> None:
        """Read-modify-write, so that values saved elsewhere (another window, the command line)
        survive: the file is read here only to be written. ``window``: layout values laid over
        the saved ones."""
        current = saved_settings()
        if recent is not None:
            current = current.with_recent_file(recent)
        if window is not None:
            changes["window"] = {**current.window, **window}
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
        self._save_settings(window=values)

    def _geometry_values(self) -> dict[str, str]:
        view = self.document_view
        return {
            **saved_geometry(self, view.splitter),
            "view": "raw" if view.showing_raw else "rendered",
            "sync": "1" if view.sync.enabled else "0",
        }

    def _update_title(self) -> None:
        self.setWindowTitle(f"{self.document_view.name}[*] — fastdesk")
        self.document_view.update_titles()

    # ---- Qt events -----------------------------------------------------------------------------

    def changeEvent(self, event: QEvent) -> None:
        activated = event.type() == QEvent.Type.ActivationChange and self.isActiveWindow()
        if activated and self.document_view.engine_started and not self._closing:
            self._warm_up()  # back after a break: the worker decides whether it was long
            self.project.refresh()  # files may have changed meanwhile (a translator's tool)
        if event.type() == QEvent.Type.PaletteChange:
            self.document_view.apply_palette()
            self.status.apply_palette()
            self.project.dock.apply_palette()
            # the application's palette reaches the children after the window: check again
            QTimer.singleShot(0, self._follow_palette)
        super().changeEvent(event)

    def closeEvent(self, event: QCloseEvent) -> None:
        """Unsaved edits ask first; then in-flight requests are cancelled (within a second)."""
        if not self._closing and not self.files.confirm_discard():
            event.ignore()
            return
        self._closing = True
        self.document_view.close_document()
        try:
            self._save_window(**self._geometry_values())
        except Exception:  # never keep the window open because settings could not be written
            log.exception("window layout not saved")
        if not self.document_view.stop_engine(timeout=0.8):
            log.warning("the engine thread did not stop in time; leaving it behind")
        self.status.close()
        self.project_run.close()
        self.project.close()
        event.accept()
