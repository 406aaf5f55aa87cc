"""Review ▸ Glossary Drift: how each glossary term is rendered, per language and page (the
open document's translation, and the pages of the docs project open beside it): a term rendered
other than the glossary says, or two ways, drifts and comes first. The results are the core's
(fastdesk.translate.consistency.glossary_drift), the same the command line's report gives.

The project's pages are read from disk, and the drift worked out, in the dialog's worker (an
:class:`AsyncRunner`, as the project panel reads its status): the dialog opens at once, busy,
and fills when the worker ends; the window is never held by a large project."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QProgressBar,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from fastdesk.translate.consistency import NOT_FOUND, TermUse
from fastdesk.ui.bridge.threads import AsyncRunner, error_text

TERM, LANG, RENDERING, WHERE = range(4)
DRIFTS = "drifts"
FOLLOWED = "as the glossary says"
READING = "Reading the pages…"


def _pages(counts: dict[str, int]) -> str:
    return ", ".join(f"{page or 'this document'} ({n})" for page, n in counts.items())


class GlossaryDriftDialog(QDialog):
    """One row per term and language (drifting ones first, open), its renderings under it
    with the pages and how many blocks use each. :meth:`read` fills it from a worker."""

    filled = Signal()  # the rows are shown (or the reason they cannot be)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("glossaryDrift")
        self.setWindowTitle("Glossary Drift")
        self.tree = QTreeWidget()
        self.tree.setObjectName("glossaryDriftTree")
        self.tree.setHeaderLabels(["Term", "Language", "Rendered as", "Where (blocks)"])
        self.summary = QLabel()
        self.summary.setObjectName("glossaryDriftSummary")
        self.progress = QProgressBar()
        self.progress.setObjectName("glossaryDriftBusy")
        self.progress.setRange(0, 0)  # busy: how long the pages take is not known
        self.progress.setTextVisible(False)
        self.progress.hide()
        self._runner: AsyncRunner | None = None  # while a read goes on: its thread
        self._token: int | None = None
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.progress)
        layout.addWidget(self.tree)
        layout.addWidget(buttons)
        self.resize(760, 420)

    @property
    def busy(self) -> bool:
        return self._token is not None

    def read(self, job: Callable[[], Sequence[TermUse]]) -> None:
        """Run ``job`` (read the pages, work out the drift) in a worker thread of the dialog's
        (at the background priority: the GUI thread goes first); the dialog is busy until it
        ends, then shows its terms, and the thread ends with the read."""
        self._stop()

        async def run() -> Sequence[TermUse]:
            return job()

        self.tree.clear()
        self.summary.setText(READING)
        self.progress.show()
        self._runner = AsyncRunner(self)
        self._token = self._runner.submit(run, self._read)

    def _stop(self) -> None:
        """End the read's thread (a read still going is dropped)."""
        self._token = None
        if self._runner is not None:
            self._runner.close(timeout=0.5)
            self._runner = None

    def _read(self, uses: Any, error: BaseException | None) -> None:
        self._stop()
        self.progress.hide()
        if error is not None:
            self.summary.setText(f"The pages were not read: {error_text(error)}")
            self.filled.emit()
            return
        self.show_uses(uses)

    def show_uses(self, uses: Sequence[TermUse]) -> None:
        """The terms' rows, drifting ones first and open."""
        self.tree.clear()
        drifting = sum(u.drifts for u in uses)
        self.summary.setText(
            "No glossary term of these pages is used here"
            if not uses
            else f"{drifting} of {len(uses)} terms drift: rendered other than the glossary "
            "says, or several ways"
            if drifting
            else f"All {len(uses)} terms are rendered as the glossary says"
        )
        for use in sorted(uses, key=lambda u: (not u.drifts, u.term.casefold(), u.lang)):
            want = use.expected if use.expected is not None else f"{use.term} (kept)"
            top = QTreeWidgetItem([use.term, use.lang, want, DRIFTS if use.drifts else FOLLOWED])
            pages = use.pages()
            for text, _places in use.renderings:
                counts = {page: row[text] for page, row in pages.items() if text in row}
                top.addChild(
                    QTreeWidgetItem(
                        ["", "", text if text != NOT_FOUND else "(not found)", _pages(counts)]
                    )
                )
            self.tree.addTopLevelItem(top)
            top.setExpanded(use.drifts)
        for column in (TERM, LANG, RENDERING):
            self.tree.resizeColumnToContents(column)
        self.filled.emit()

    def done(self, result: int) -> None:
        """Closing stops the worker (a read still going is dropped)."""
        self._stop()
        super().done(result)
