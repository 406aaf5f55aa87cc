"""What the window shows of its engine: the document's session as it streams (requests and
their cost, errors and waits, failures, the revision settled, the retry countdown), what a
delivery says beyond the document (provider health, which providers exist, notices, the estimate),
the daily budget that follows from the requests (docs/routing.md §3), and while no provider is
configured the first-run panel (fastdesk.ui.window.first_run) above the target pane.

Health: what the user must fix (a refused key, a missing model) stays on show until it is fixed;
rate limits and cooldowns pass by themselves and are not shown.
"""

from __future__ import annotations

import gc
from collections.abc import Callable

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMessageBox, QStatusBar, QWidget

from fastdesk.config.settings import Settings
from fastdesk.review.session import Change
from fastdesk.routing.costs import budget_state
from fastdesk.routing.health import HealthEntry
from fastdesk.translate.events import EngineError, EngineEvent, RequestDone, RevisionDone, Waiting
from fastdesk.ui.bridge.delivery import Delivery
from fastdesk.ui.document.files import SAMPLE_NAME
from fastdesk.ui.document.view import DocumentView
from fastdesk.ui.window.selectors import Selectors
from fastdesk.ui.window.status_bar import StatusPanel


class NewsReader:
    """Reads the document session's stream (subscribed) and ``engine_news`` into the status bar,
    the provider selector and (no provider configured) the first-run panel. ``live``: the Live
    toggle, paused when the budget is reached; ``open_settings``, ``apply_settings``: the
    window's, for the first-run panel's buttons."""

    def __init__(
        self,
        window: QWidget,
        view: DocumentView,
        *,
        status: StatusPanel,
        status_bar: QStatusBar,
        selectors: Selectors,
        settings: Callable[[], Settings],
        live: QAction,
        open_settings: Callable[[], None],
        apply_settings: Callable[[Settings], None],
    ) -> None:
        self._window = window
        self._view = view
        self._status = status
        self._status_bar = status_bar
        self._selectors = selectors
        self._settings = settings
        self._live = live
        self._open_settings = open_settings
        self._apply_settings = apply_settings
        self.first_run: QWidget | None = None
        self._health: tuple[HealthEntry, ...] = ()  # problems the user must fix (a refused key)
        self._health_shown = ""

    def document_changed(self, change: Change) -> None:
        """The document's session: requests, errors and waits, failures of the current
        revision, the revision settled (the session judged what is current), the countdown of
        the retry of failed blocks."""
        if change.retry is not None:
            self._status.set_retry(change.retry)
        for event in change.news:
            self._on_event(event)
        self._status.end_wait_unless(self._view.session.backlog.waits)
        if change.review:
            self._status.set_score(self._view.session.model.document_score())
        if change.failed:
            self._status_bar.showMessage("A section could not be translated: see the error", 5000)
        if change.revision_done is not None:
            self._revision_done(change.revision_done)

    def engine_news(self, delivery: Delivery) -> None:
        """What a delivery says beyond the document: health, the providers, notices."""
        if delivery.health is not None:
            self._set_health(delivery.health)
        for notice in delivery.notices:  # each once: the memory not in use, a key over plain http
            self._status.show_error(notice)
        if delivery.estimate:  # "about 4 min at Groq free tier, 8,000 tokens/min; add Cerebras …"
            self._status_bar.showMessage(delivery.estimate, 15000)
        if delivery.providers is not None:
            self._selectors.fill_providers(
                delivery.providers, self._selectors.provider.currentData() or "auto"
            )
            self.show_first_run(not delivery.providers)
            _freeze_startup_objects()

    def _on_event(self, event: EngineEvent) -> None:
        if isinstance(event, RequestDone):
            self._status.request_done(event.stats)
            self._show_health()  # a success elsewhere must not hide a refused key
            self.check_budget()
        elif isinstance(event, EngineError) and event.kind == "startup":
            self._status.show_error(
                "Translation is off: no provider could be set up", event.message
            )
        elif isinstance(event, EngineError):
            self._status.show_error(event.message, event.detail)
        elif isinstance(event, Waiting):
            self._status.waiting(event)

    def _revision_done(self, event: RevisionDone) -> None:
        if event.from_memory and not event.translated and not event.failed:
            self._status.from_memory(event.from_memory)

    # ---- no provider configured -------------------------------------------------------------

    def show_first_run(self, show: bool) -> None:
        """No provider configured: say how to get going, above the target pane."""
        if not show:
            if self.first_run is not None:
                self.first_run.hide()
            return
        if self.first_run is None:
            # loads only without a provider (its local-server probe imports httpx): start-up
            from fastdesk.ui.window.first_run import FirstRunPanel

            panel = FirstRunPanel(self._window)
            panel.openSettingsRequested.connect(self._open_settings)
            panel.settingsSaved.connect(self._apply_settings)
            self._view.insert_notice(panel)
            self._view.renamed.connect(self._describe_first_run)
            self.first_run = panel
        self._describe_first_run()
        self.first_run.show()

    def _describe_first_run(self) -> None:
        from fastdesk.ui.window.first_run import FirstRunPanel  # see show_first_run

        view = self._view
        if isinstance(self.first_run, FirstRunPanel):
            sample = view.path is None and view.name == SAMPLE_NAME
            named = view.path is not None or bool(view.text().strip())
            self.first_run.describe_document(sample=sample, name=view.name if named else "")

    # ---- the daily budget --------------------------------------------------------------------

    def budget_reached(self) -> bool:
        budget = self._settings().daily_budget_usd
        return (
            budget is not None
            and budget_state(self._status.ledger.today().usd, budget) == "reached"
        )

    def check_budget(self) -> None:
        """Near the daily budget: say so. Reached: pause Live (not saved: it is for today)."""
        budget = self._settings().daily_budget_usd
        if budget is None:
            return
        notice = self._status.ledger.budget_notice(budget)
        if notice:
            self._status.show_error(notice)
        if self.budget_reached() and self._live.isChecked():
            self._live.blockSignals(True)
            self._live.setChecked(False)
            self._live.blockSignals(False)
            self._view.sending.stop()

    def confirm_over_budget(self) -> bool:
        answer = QMessageBox.question(
            self._window,
            "Daily budget reached",
            self._status.ledger.budget_notice(self._settings().daily_budget_usd)
            + "\n\nTranslate anyway?",
        )
        return answer == QMessageBox.StandardButton.Yes

    # ---- provider health (docs/routing.md §3) ------------------------------------------------

    def _set_health(self, entries: tuple[HealthEntry, ...]) -> None:
        self._health = tuple(e for e in entries if e.state in ("auth", "unavailable"))
        if not self._health and self._health_shown:
            if self._status.error_message == self._health_shown:
                self._status.clear_error()
            self._health_shown = ""
        self._show_health()

    def _show_health(self) -> None:
        if self._health and not self._status.error_message:
            entry = self._health[0]
            self._health_shown = _health_text(entry)
            self._status.show_error(self._health_shown, entry.message)


def _health_text(entry: HealthEntry) -> str:
    """One short line for the status bar (the router's own sentence is the detail)."""
    if entry.state == "auth":
        return f"{entry.provider}: the API key was refused — open Settings"
    return f"{entry.provider}/{entry.model}: model not available — choose another in Settings"


def _freeze_startup_objects() -> None:
    """Move everything alive once the engine is built (Qt, the SDKs, pydantic models …) out of
    the garbage collector's reach: a full collection then scans only what the app made since,
    which took it from ~50 ms (three stalled frames) to a few ms in benchmarks/bench_ui.py.
    No gc.collect() first: that alone would stall for as long. Once per process."""
    global _frozen
    if not _frozen:
        _frozen = True
        gc.freeze()


_frozen = False
