"""Translate Project in the window: every page of the open docs project in each of its
languages, as `fastdesk translate DIR` does (fastdesk.project.run, the same engine settings),
on a background thread with its progress and a Stop.

Each (page, language) is written as soon as it is done (fastdesk.project.run.finish), so a Stop
keeps what was finished; the rest waits for the next run (its answers are in the memory).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QLabel, QProgressDialog, QWidget

from fastdesk.clock import Clock, SystemClock, duration
from fastdesk.project import status
from fastdesk.project.batch_flow import Offer, prepare, used_up
from fastdesk.project.batch_run import collect
from fastdesk.project.layout import Project
from fastdesk.project.lock import project_lock
from fastdesk.project.record import WrittenRecord
from fastdesk.project.run import (
    PairOutcome,
    finish,
    labels_pending,
    relink,
    translate_labels,
    translate_pairs,
)
from fastdesk.project.sync import link_anchors
from fastdesk.ui.bridge.threads import AsyncRunner, error_text
from fastdesk.ui.workbench.project_batch import submitted_text

if TYPE_CHECKING:
    from fastdesk.translate.engine import Engine
    from fastdesk.translate.events import RequestDone
    from fastdesk.translate.job import JobSpec


@dataclasses.dataclass
class RunTally:
    """What a run did so far (counted in the loop thread, read in the GUI thread at the end)."""

    total: int = 0
    done: int = 0
    written: int = 0
    up_to_date: int = 0  # pages that needed nothing (done at once: not in the pace)
    failed: list[str] = dataclasses.field(default_factory=list)
    note: str = ""  # said instead (a batch job submitted: nothing written yet)

    def summary(self, stopped: bool = False) -> str:
        """ "Project translated: 12 of 12 pages written" (pages: a page in one language)."""
        if self.note and not stopped:
            return self.note
        head = "Stopped" if stopped else "Project translated"
        text = f"{head}: {self.written} of {self.total} pages written"
        if self.failed:
            text += f", {len(self.failed)} not written (see the error)"
        return text


def progress_text(page: str, done: int, total: int, up_to_date: int, elapsed: float) -> str:
    """ "Translating docs/guide.md → fr" then "3 of 68 pages done · about 4 min left"."""
    head = f"Translating {page}" if page else "Translating…"
    line = f"{done} of {total} pages done"
    translated, left = done - up_to_date, total - done
    if translated > 0 and left > 0:
        line += f" · about {duration(elapsed / translated * left, rough=True)} left"
    elif left > 0:
        line += " · time left: after the first page"
    return f"{head}\n{line}"


class ProjectRun(QObject):
    """``start(project)`` runs it; ``progress`` shows it; ``stop()`` ends it. ``finished``
    says what was done (one line), ``failed_pages`` the reasons of pages not written."""

    progressed = Signal(int, int)  # pages done, pages in all (from the loop thread: queued)
    working = Signal(str)  # the page an answer just came for, "docs/guide.md → fr" (queued)
    # every request's stats (a batch job's answers at the batch price), for the status bar's
    # costs (from the loop thread: queued)
    request_done = Signal(object)
    finished = Signal(str)
    failed_pages = Signal(str, str)  # one line, the reasons
    # the provider has a Batch API: (project, batch_flow.Offer) to ask about, then
    # start(project, choice) (fastdesk.ui.workbench.project_batch.ask)
    offered = Signal(object, object)

    def __init__(
        self,
        engine_factory: Callable[[], Engine],
        spec: Callable[[], JobSpec],
        parent: QWidget,
        *,
        clock: Clock | None = None,
    ) -> None:
        """``clock``: the window's one clock (the time left is measured on it)."""
        super().__init__(parent)
        self.clock: Clock = clock or SystemClock()
        self._started = 0.0
        self._page = ""
        self._engine_factory = engine_factory
        self._spec = spec
        self._runner = AsyncRunner(self)
        self._token: int | None = None
        self.tally = RunTally()
        self.progress: QProgressDialog | None = None
        self._parent = parent
        self.progressed.connect(self._show_progress, Qt.ConnectionType.QueuedConnection)
        self.working.connect(self._show_page, Qt.ConnectionType.QueuedConnection)

    @property
    def running(self) -> bool:
        return self._token is not None

    def start(self, project: Project, choice: str | None = None) -> bool:
        """Translate every page of ``project`` that needs it; False when a run is under way.
        With a Batch API at hand, an ended job's answers are taken in; else ``choice`` None
        asks first (``offered``), ``"batch"`` submits a job, ``"live"`` runs now."""
        if self.running:
            return False
        self.tally = tally = RunTally()
        base = self._spec()
        specs = {
            lang: dataclasses.replace(
                base, mode="translate", target_lang=lang, source_lang=project.source_lang
            )
            for lang in project.languages
        }
        progress = QProgressDialog(self._parent)
        progress.setObjectName("projectRunProgress")
        progress.setWindowTitle("Translate Project")
        label = QLabel(f"Translating {project.root.name}…")
        label.setObjectName("projectRunLabel")
        label.setWordWrap(True)
        progress.setLabel(label)
        progress.setCancelButtonText("&Stop")
        progress.setRange(0, 0)
        # wide enough for its title and a page's path on one line (it was 200 px: "Transl…")
        progress.setMinimumWidth(label.fontMetrics().horizontalAdvance("M") * 34)
        progress.setMinimumDuration(0)
        progress.setAutoClose(False)
        progress.setAutoReset(False)
        progress.canceled.connect(self.stop)
        progress.show()
        self._started, self._page = self.clock.monotonic(), ""
        self.progress = progress
        factory = self._engine_factory

        async def run() -> RunTally | Offer:
            with project_lock(project.root):  # one run at a time (ProjectBusy: said, not run)
                return await locked()

        async def locked() -> RunTally | Offer:
            record = WrittenRecord(project.root)
            pairs = status.load_pairs(project, record)
            link_anchors(pairs)  # the pages up to date are written with the links they have
            tally.total = len(pairs)
            needy = [p for p in pairs if p.needed()]

            def done(outcome: PairOutcome) -> None:
                state, reason = finish(outcome, record)
                tally.done += 1
                tally.written += state in ("ok", "partial")
                if reason and state in ("failed", "skipped"):
                    tally.failed.append(reason)
                self.progressed.emit(tally.done, tally.total)

            def said(event: RequestDone) -> None:
                self.request_done.emit(event.stats)

            for pair in pairs:
                if not pair.needed():
                    tally.up_to_date += 1
                    done(PairOutcome(pair))
            if not needy and not labels_pending(project):
                record.save()
                return tally
            engine = factory()
            engine.backfill = True  # nobody waits for a block of a project run: larger packs
            try:
                # no page stale, labels lacking (as the command line): they go live, no offer
                batch = await prepare(engine, project, needy, specs, choice) if needy else None
                if batch is not None and batch.offer is not None:
                    return batch.offer  # asked in the GUI thread, then started again
                if batch is not None and batch.submitted:
                    tally.note = submitted_text(batch.submitted)
                elif batch is not None and batch.answers is not None and batch.store:
                    await collect(  # the labels too, live, as below
                        engine, project, needy, specs, batch.answers, on_request=said, on_pair=done
                    )
                    if not tally.failed:
                        used_up(batch.store)
                else:
                    await translate_pairs(
                        engine,
                        needy,
                        specs,
                        on_request=said,
                        on_pair=done,
                        on_active=lambda pair: self.working.emit(f"{pair.source} → {pair.lang}"),
                    )
                    await translate_labels(engine, project, specs, on_request=said)
                tally.failed += relink(pairs, record)
            finally:
                record.save()
                await engine.router.aclose()
                if engine.memory is not None:
                    engine.memory.close()
            return tally

        self._token = self._runner.submit(run, lambda r, e: self._done(r, e, project))
        return True

    def stop(self) -> None:
        """End the run: what is finished stays written, the rest waits for the next run."""
        if self._token is None:
            return
        self._runner.cancel(self._token)
        self._token = None
        self._close_progress()
        self.finished.emit(self.tally.summary(stopped=True))

    def close(self) -> None:
        self._runner.close(timeout=0.5)

    def _show_page(self, page: str) -> None:
        if page != self._page:
            self._page = page
            self._show_progress(self.tally.done, self.tally.total)

    def _show_progress(self, done: int, total: int) -> None:
        """The page being translated, pages done and about how long the rest takes (from the
        pace of the pages translated so far; the pages already up to date do not count)."""
        if self.progress is None:
            return
        self.progress.setMaximum(total)
        self.progress.setValue(done)
        self.progress.setLabelText(
            progress_text(
                self._page,
                done,
                total,
                self.tally.up_to_date,
                self.clock.monotonic() - self._started,
            )
        )

    def _done(self, result: Any, error: BaseException | None, project: Project) -> None:
        self._token = None
        self._close_progress()
        if error is not None:
            self.failed_pages.emit("Translate Project failed", error_text(error))
            return
        if isinstance(result, Offer):
            self.offered.emit(project, result)
            return
        tally: RunTally = result
        if tally.failed:
            self.failed_pages.emit(tally.summary(), "\n".join(tally.failed))
        self.finished.emit(tally.summary())

    def _close_progress(self) -> None:
        if self.progress is not None:
            progress, self.progress = self.progress, None
            progress.canceled.disconnect(self.stop)
            progress.close()
            progress.deleteLater()
