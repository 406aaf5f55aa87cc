"""Compare Providers: ``fastdesk bench`` in the window.

Every configured provider and model translates the current document (or the bundled sample) N
times through the real engine, memory off, one choice after the other
(:mod:`fastdesk.translate.bench`).
A row appears as soon as its choice is done. The work runs in an :class:`AsyncRunner` (an asyncio
loop in a daemon thread): the GUI thread never waits on the network, and Stop or closing the
dialog cancels the requests in flight at once. "Use this model" stores the selected row's model
as the model for its provider (``Settings.models``) and tells the window (``settingsSaved``).

What the comparison spends is real money: every request goes into the window's cost ledger, and
when today's budget is spent the dialog asks before it starts.

Wiring: the window's command Translate → Compare Providers… (Ctrl+Shift+B, in the table of
commands, fastdesk.ui.window.commands) calls :func:`open_compare_dialog`.
Heavy modules (the engine, the SDKs) are imported when a comparison starts, not at start-up.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from PySide6.QtCore import QModelIndex, QSortFilterProxyModel, Qt, Signal
from PySide6.QtGui import QColor, QPalette, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from fastdesk.clock import milliseconds
from fastdesk.config.redact import redact
from fastdesk.config.settings import Settings, save_settings, saved_settings
from fastdesk.document.languages import language_name
from fastdesk.routing.concurrency import START
from fastdesk.routing.costs import CostLedger, Totals, counts_as_spend
from fastdesk.routing.pricing import PriceTable, format_cost
from fastdesk.ui.bridge.threads import AsyncRunner, error_text
from fastdesk.ui.panes.theme import text_colour
from fastdesk.ui.plain import ask, plain, tip

if TYPE_CHECKING:
    from fastdesk.translate.bench import BenchRow
    from fastdesk.translate.job import JobSpec

__all__ = ["CompareDialog", "CompareJob", "open_compare_dialog"]

log = logging.getLogger(__name__)

DEFAULT_RUNS = 3
MAX_RUNS = 20
SORT_ROLE = Qt.ItemDataRole.UserRole + 1
ROW_ROLE = Qt.ItemDataRole.UserRole + 2
ERROR_COLOUR = QColor("#d1242f")


@dataclass(frozen=True)
class Column:
    title: str
    tip: str
    numeric: bool = True


COLUMNS = (
    Column("Provider", "Who served the model", numeric=False),
    Column("Model", "Bold: the model fastdesk uses for that provider now", numeric=False),
    Column("First token p50", "Median time to the first token over every request"),
    Column("First token p90", "90th percentile of the time to the first token"),
    Column("Total p50", "Wall time of a whole-document run (median over the runs)"),
    Column("Tokens/s", "Completion tokens over streaming time, every request together"),
    Column("Cost/run", "Mean cost of one run (unknown when a price or the usage is unknown)"),
    Column("Flags", "Blocks flagged by the fidelity checks, per run"),
    Column("Errors", "Requests that got no answer over all runs"),
)
TOTAL_COLUMN = 4


@dataclass(frozen=True)
class CompareJob:
    """What one comparison runs on (a value: it is handed to the loop thread)."""

    text: str
    runs: int
    mode: str
    target_lang: str
    settings: Settings


def row_cells(row: BenchRow) -> list[tuple[str, object]]:
    """(text shown, value sorted on) per column; a missing figure sorts as the worst."""
    inf = math.inf
    tps = row.tokens_per_s
    cost = row.cost_per_run
    return [
        (row.provider, row.provider),
        (row.model or "(the server's model)", row.model.lower()),
        (milliseconds(row.ttfb_p50), inf if row.ttfb_p50 is None else row.ttfb_p50),
        (milliseconds(row.ttfb_p90), inf if row.ttfb_p90 is None else row.ttfb_p90),
        (milliseconds(row.total_p50), inf if row.total_p50 is None else row.total_p50),
        ("–" if tps is None else f"{tps:.0f}", -1.0 if tps is None else tps),
        ("unknown" if cost is None else format_cost(cost), inf if cost is None else cost),
        (f"{row.flags:g}", row.flags),
        (str(row.errors), row.errors),
    ]


class CompareDialog(QDialog):
    """Runs the comparison and shows its table; see the module docstring."""

    settingsSaved = Signal(object)  # Settings, after "Use this model"
    rowAdded = Signal(object)  # BenchRow, once shown
    comparisonEnded = Signal(str)  # "done", "stopped" or "failed"
    # from the loop thread (queued): run id first, so a stopped run's late signals are dropped
    _planned = Signal(int, int)
    _progressed = Signal(int, str, str, int, int)
    _row_ready = Signal(int, object)

    def __init__(
        self,
        settings: Settings,
        parent: QWidget | None = None,
        *,
        document: str = "",
        document_name: str = "",
        mode: str = "translate",
        target_lang: str = "fr",
        ledger: CostLedger | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("compareDialog")
        self.setWindowTitle("Compare providers")
        self.settings = settings
        self.document = document
        self.mode = mode
        self.target_lang = target_lang
        self.ledger = ledger
        self.runner = AsyncRunner(self)
        self.rows: list[BenchRow] = []
        self.spent = Totals()
        self._run_id = 0
        self._token: int | None = None
        self._total = 0
        self._closed = False
        for signal, slot in (
            (self._planned, self._on_planned),
            (self._progressed, self._on_progress),
            (self._row_ready, self._on_row),
        ):
            signal.connect(slot, Qt.ConnectionType.QueuedConnection)

        layout = QVBoxLayout(self)
        intro = QLabel(
            "Every configured provider and model translates the document in turn, with the "
            "translation memory off. Each run is billed like a translation."
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        layout.addLayout(self._build_form(document_name))
        layout.addLayout(self._build_run_row())
        self.status_label = plain(QLabel(""))  # model ids and servers' errors
        self.status_label.setObjectName("compareStatus")
        self.status_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.status_label)
        layout.addWidget(self._build_table(), 1)
        legend = QLabel(
            "Bold: the model fastdesk uses for that provider now. Select a row and press "
            "“Use this model” (or double-click it) to switch."
        )
        legend.setObjectName("compareLegend")
        legend.setWordWrap(True)
        legend.setEnabled(False)  # the palette's quieter text colour
        layout.addWidget(legend)
        self.note_label = plain(QLabel(""))  # a model id, an error saving the settings
        self.note_label.setObjectName("compareNote")
        self.note_label.setWordWrap(True)
        layout.addWidget(self.note_label)
        self.use_button = QPushButton("&Use this model")
        self.use_button.setObjectName("compareUseButton")
        self.use_button.setAutoDefault(False)
        self.use_button.setEnabled(False)
        self.use_button.setToolTip("Make the selected model the one fastdesk uses for its provider")
        self.use_button.clicked.connect(self.use_selected)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.buttons.addButton(self.use_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self.resize(940, 460)

    # ---- construction --------------------------------------------------------------------------

    def _build_form(self, document_name: str) -> QFormLayout:
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
        self.document_combo = QComboBox()
        self.document_combo.setObjectName("compareDocument")
        if self.document.strip():
            words = len(self.document.split())
            name = document_name or "the current document"
            self.document_combo.addItem(f"{name} ({words} words)", "current")
        self.document_combo.addItem("The sample document", "sample")
        form.addRow("&Document:", self.document_combo)
        if self.mode == "simplify":
            task = "Simplify (plain language)"
        else:
            task = f"Translate into {language_name(self.target_lang)} ({self.target_lang})"
        self.task_label = QLabel(task)
        self.task_label.setObjectName("compareTask")
        form.addRow("Task:", self.task_label)
        self.runs_spin = QSpinBox()
        self.runs_spin.setObjectName("compareRuns")
        self.runs_spin.setRange(1, MAX_RUNS)
        self.runs_spin.setValue(DEFAULT_RUNS)
        self.runs_spin.setToolTip("Runs per model: more runs give steadier medians")
        form.addRow("&Runs per model:", self.runs_spin)
        return form

    def _build_run_row(self) -> QHBoxLayout:
        self.run_button = QPushButton("Run &comparison")
        self.run_button.setObjectName("compareRunButton")
        self.run_button.setDefault(True)
        self.run_button.clicked.connect(self.start)
        self.run_button.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.stop_button = QPushButton("&Stop")
        self.stop_button.setObjectName("compareStopButton")
        self.stop_button.setAutoDefault(False)
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(self.stop)
        self.stop_button.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.progress = QProgressBar()
        self.progress.setObjectName("compareProgress")
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.progress.setTextVisible(True)
        self.progress.setFormat("%v of %m runs")
        self.progress.hide()
        row = self.run_row = QHBoxLayout()
        row.addWidget(self.run_button)
        row.addWidget(self.stop_button)
        row.addWidget(self.progress, 1)
        row.addStretch(1)  # holds the place of the progress bar while it is hidden
        return row

    def _build_table(self) -> QTableView:
        self.model = QStandardItemModel(0, len(COLUMNS), self)
        for i, column in enumerate(COLUMNS):
            header = QStandardItem(column.title)
            header.setToolTip(column.tip)
            self.model.setHorizontalHeaderItem(i, header)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(SORT_ROLE)
        self.table = QTableView()
        self.table.setObjectName("compareTable")
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(TOTAL_COLUMN, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().hide()
        columns = self.table.horizontalHeader()
        columns.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        columns.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.selectionModel().selectionChanged.connect(self._selection_changed)
        self.table.doubleClicked.connect(lambda _index: self.use_selected())
        return self.table

    # ---- running -------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._token is not None

    def job(self) -> CompareJob:
        use_sample = self.document_combo.currentData() == "sample"
        if use_sample:
            # the bench module loads with the engine, when a comparison starts (see the top)
            from fastdesk.translate.bench import sample_text

            text = sample_text()
        else:
            text = self.document
        return CompareJob(text, self.runs_spin.value(), self.mode, self.target_lang, self.settings)

    def confirm(self, question: str) -> bool:
        """Yes/No (tests replace this)."""
        answer = ask(self, "Compare providers", question)
        return answer == QMessageBox.StandardButton.Yes

    def start(self) -> None:
        """Start a comparison in the background (the table is cleared first)."""
        if self.running or self._closed:
            return
        budget = self.settings.daily_budget_usd
        if (
            self.ledger is not None
            and budget is not None
            and self.ledger.budget_state(budget) == "reached"
            and not self.confirm(self.ledger.budget_notice(budget) + "\n\nCompare anyway?")
        ):
            return
        job = self.job()
        self._run_id += 1
        run_id = self._run_id
        self.rows.clear()
        self.model.removeRows(0, self.model.rowCount())
        self.spent = Totals()
        self.note_label.clear()
        self._set_running(True)
        self.status_label.setText("Starting…")
        self._token = self.runner.submit(
            lambda: self._compare(run_id, job), lambda n, e: self._finished(run_id, n, e)
        )

    def stop(self) -> None:
        """Cancel the requests in flight; the rows already shown stay."""
        if self._token is None:
            return
        self.runner.cancel(self._token)
        self._token = None
        self._run_id += 1  # whatever the stopped run still sends is dropped
        self._set_running(False)
        self.status_label.setText("Stopped.")
        self.comparisonEnded.emit("stopped")

    def _set_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        self.stop_button.setEnabled(running)
        self.runs_spin.setEnabled(not running)
        self.document_combo.setEnabled(not running)
        self.progress.setVisible(running)
        self.run_row.setStretch(self.run_row.count() - 1, 0 if running else 1)
        if running:
            self.progress.setRange(0, 0)  # busy until the plan is known
            self.stop_button.setDefault(True)
        else:
            self.run_button.setDefault(True)

    async def _compare(self, run_id: int, job: CompareJob) -> int:
        """In the loop thread: every (provider, model) in turn; a row signal after each."""
        # Here, not at the top: the router, the engine and the SDKs load when a comparison
        # starts, not when the window opens.
        from fastdesk.routing.router import Router, options_from_settings
        from fastdesk.routing.stats import StatsStore
        from fastdesk.translate.bench import run_bench
        from fastdesk.translate.wiring import build_providers

        settings = job.settings
        providers = build_providers(settings)  # the providers `fastdesk bench` finds
        try:
            wanted = options_from_settings(settings)["models"]
            models = {name: ms for name, ms in wanted.items() if name in providers}
            pairs = Router(providers, models=models, stats=StatsStore.memory()).pairs()
            self._send(self._planned, run_id, len(pairs) * job.runs)
            pricing = PriceTable(settings.price_overrides or None)

            def progress(provider: str, model: str, n: int, runs: int) -> None:
                self._send(self._progressed, run_id, provider, model, n, runs)

            for provider, model in pairs:
                progress(provider, model, 0, job.runs)  # 0: warming up
                rows = await run_bench(
                    providers,
                    job.text,
                    targets=[(provider, model)],
                    models=models,
                    runs=job.runs,
                    mode=job.mode,
                    target_lang=job.target_lang,
                    pricing=pricing,
                    concurrency=settings.concurrency or START,  # a fixed pace: runs compare
                    progress=progress,
                )
                self._send(self._row_ready, run_id, rows[0])
            return len(pairs)
        finally:
            for provider_obj in providers.values():
                with contextlib.suppress(Exception):
                    await provider_obj.aclose()

    def _send(self, signal: Any, *args: object) -> None:
        """Emit from the loop thread, unless the dialog is closing (its C++ side may be gone)."""
        if not self._closed:
            with contextlib.suppress(RuntimeError):
                signal.emit(*args)

    # ---- results (GUI thread) ------------------------------------------------------------------

    def _on_planned(self, run_id: int, total: int) -> None:
        if run_id == self._run_id:
            self._total = total
            self.progress.setRange(0, max(total, 1))
            self.progress.setValue(0)

    def _on_progress(self, run_id: int, provider: str, model: str, n: int, runs: int) -> None:
        if run_id != self._run_id:
            return
        step = "warming up" if n == 0 else f"run {n} of {runs}"
        self.status_label.setText(f"{provider} · {model or 'server default'}: {step}…")
        if n > 0:
            self.progress.setValue(len(self.rows) * runs + n - 1)

    def _on_row(self, run_id: int, row: BenchRow) -> None:
        if run_id != self._run_id:
            return
        self.rows.append(row)
        self.progress.setValue(len(self.rows) * max(len(row.runs), 1))
        self._record_spend(row)
        self._add_row(row)
        self.rowAdded.emit(row)

    def _finished(self, run_id: int, count: int | None, error: BaseException | None) -> None:
        if run_id != self._run_id:
            return
        self._token = None
        self._set_running(False)
        if error is not None:
            text = str(error) if isinstance(error, LookupError) else error_text(error)
            self.status_label.setText(f"Comparison failed: {redact(text)}")
            self.comparisonEnded.emit("failed")
            return
        failed = sum(1 for r in self.rows if r.ok_runs == 0)
        summary = f"Done: {count} model{'s' if count != 1 else ''} compared"
        if failed:
            summary += f", {failed} without a successful run (see Errors)"
        self.status_label.setText(summary + ".")
        self.note_label.setText(f"This comparison cost {self.spent.text()}.")
        if self.proxy.rowCount():
            self.table.selectRow(0)  # the fastest: one click on "Use this model"
        self.comparisonEnded.emit("done")

    def _record_spend(self, row: BenchRow) -> None:
        """Every request of the comparison counts towards today's spend, as in the window."""
        for run in row.runs:
            for stats in run.requests:
                if self.ledger is not None:
                    self.ledger.record(stats)
                if counts_as_spend(stats):
                    known = stats.cost_usd is not None
                    self.spent = self.spent + Totals(
                        stats.cost_usd or 0.0, int(known), int(not known)
                    )
        self.note_label.setText(f"This comparison cost {self.spent.text()} so far.")

    def _add_row(self, row: BenchRow) -> None:
        items = []
        current = self.settings.model_for(row.provider, self.target_lang)
        for i, (text, key) in enumerate(row_cells(row)):
            item = QStandardItem(text)
            item.setData(key, SORT_ROLE)
            if COLUMNS[i].numeric:
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            items.append(item)
        items[0].setData(row, ROW_ROLE)
        items[1].setToolTip(
            tip(f"{row.provider} · {row.model} ({row.ok_runs} of {len(row.runs)} runs)")
        )
        if row.model and row.model == current:
            font = items[1].font()
            font.setBold(True)
            items[1].setFont(font)
            items[1].setToolTip(tip(f"fastdesk uses this model for {row.provider} now"))
        if row.errors:
            items[8].setForeground(self._error_colour())
            items[8].setToolTip(tip(redact(row.first_error or "failed")))
            if row.ok_runs == 0:
                for item in items[2:8]:
                    item.setForeground(self._error_colour())
        self.model.appendRow(items)

    def _error_colour(self) -> QColor:
        """The error red, readable (WCAG AA) on the table's rows in this theme."""
        roles = (QPalette.ColorRole.Base, QPalette.ColorRole.AlternateBase)
        return QColor(text_colour(ERROR_COLOUR.name(), self.table.palette(), *roles))

    # ---- choosing a model ----------------------------------------------------------------------

    def selected_row(self) -> BenchRow | None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return None
        return self._row_at(rows[0])

    def _row_at(self, index: QModelIndex) -> BenchRow | None:
        source = self.proxy.mapToSource(index)
        row: BenchRow | None = self.model.index(source.row(), 0).data(ROW_ROLE)  # None: no row
        return row

    def _selection_changed(self, *_args: object) -> None:
        row = self.selected_row()
        usable = row is not None and row.ok_runs > 0 and bool(row.model)
        in_use = row is not None and row.model == self.settings.model_for(
            row.provider, self.target_lang
        )
        self.use_button.setEnabled(usable and not in_use)
        if row is not None and in_use:
            self.use_button.setToolTip(tip(f"{row.provider} already uses {row.model}"))
        else:
            self.use_button.setToolTip(
                "Make the selected model the one fastdesk uses for its provider"
            )

    def use_selected(self) -> bool:
        """Store the selected row's model as its provider's model (read-modify-write)."""
        row = self.selected_row()
        if row is None or not row.model or row.ok_runs == 0:
            return False
        current = saved_settings()  # read only to be written: another window's changes stay
        models = {**current.models, row.provider: row.model}
        updated = dataclasses.replace(current, models=models)
        try:
            save_settings(updated)
        except (OSError, RuntimeError) as exc:
            self.note_label.setText(f"Not saved: {error_text(exc)}")
            return False
        self.settings = updated
        self._refresh_marks()
        self.note_label.setText(f"Saved: fastdesk now uses {row.model} for {row.provider}.")
        self.settingsSaved.emit(updated)
        return True

    def _refresh_marks(self) -> None:
        for r in range(self.model.rowCount()):
            item = self.model.item(r, 1)
            row = self.model.item(r, 0).data(ROW_ROLE)
            font = item.font()
            font.setBold(
                bool(row.model)
                and row.model == self.settings.model_for(row.provider, self.target_lang)
            )
            item.setFont(font)
        self._selection_changed()

    # ---- closing -------------------------------------------------------------------------------

    def done(self, result: int) -> None:
        """Closing cancels the comparison at once (the loop thread closes its connections)."""
        self._closed = True
        self._token = None
        self.runner.close(timeout=0.5)
        super().done(result)


# ---- the window's side ------------------------------------------------------------------------


class _Job(Protocol):
    def spec(self) -> JobSpec: ...


class _Document(Protocol):
    @property
    def name(self) -> str: ...

    def text(self) -> str: ...


class _Status(Protocol):
    @property
    def ledger(self) -> CostLedger: ...


@runtime_checkable
class CompareHost(Protocol):
    """What the dialog reads of the main window: its settings, the job on show, the document on
    show, today's cost ledger, and where saved settings go. A protocol, because the dialogs sit
    below ``ui/window`` (which opens them) and never import it."""

    @property
    def settings(self) -> Settings: ...

    @property
    def selectors(self) -> _Job: ...

    @property
    def document_view(self) -> _Document: ...

    @property
    def status(self) -> _Status: ...

    def apply_settings(self, settings: Settings) -> None: ...


def open_compare_dialog(window: QMainWindow) -> CompareDialog:
    """Open (or raise) the dialog on the window's document, mode and language."""
    if not isinstance(window, CompareHost):
        raise TypeError(f"{type(window).__name__} is not a window Compare Providers can open on")
    existing = window.findChild(CompareDialog, "compareDialog")
    if existing is not None and existing.isVisible():
        existing.raise_()
        existing.activateWindow()
        return existing
    spec = window.selectors.spec()
    view = window.document_view
    dialog = CompareDialog(
        window.settings,
        window,
        document=view.text(),
        document_name=view.name,
        mode=spec.mode,
        target_lang=spec.target_lang,
        ledger=window.status.ledger,
    )
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.settingsSaved.connect(window.apply_settings)
    dialog.open()
    return dialog
