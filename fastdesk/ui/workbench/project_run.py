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
from PySide6.QtWidgets import QProgressDialog, QWidget

from fastdesk.project import status
from fastdesk.project.layout import Project
from fastdesk.project.lock import project_lock
from fastdesk.project.record import WrittenRecord
from fastdesk.project.run import PairOutcome, finish, translate_pairs
from fastdesk.ui.bridge.threads import AsyncRunner, error_text

if TYPE_CHECKING:
    from fastdesk.translate.engine import Engine, JobSpec


@dataclasses.dataclass
class RunTally:
    """What a run did so far (counted in the loop thread, read in the GUI thread at the end)."""

    total: int = 0
    done: int = 0
    written: int = 0
    failed: list[str] = dataclasses.field(default_factory=list)

    def summary(self, stopped: bool = False) -> str:
        """ "Project translated: 12 of 12 pages written" (pages: a page in one language)."""
        head = "Stopped" if stopped else "Project translated"
        text = f"{head}: {self.written} of {self.total} pages written"
        if self.failed:
            text += f", {len(self.failed)} not written (see the error)"
        return text


class ProjectRun(QObject):
    """``start(project)`` runs it; ``progress`` shows it; ``stop()`` ends it. ``finished``
    says what was done (one line), ``failed_pages`` the reasons of pages not written."""

    progressed = Signal(int, int)  # pages done, pages in all (from the loop thread: queued)
    finished = Signal(str)
    failed_pages = Signal(str, str)  # one line, the reasons

    def __init__(
        self,
        engine_factory: Callable[[], Engine],
        spec: Callable[[], JobSpec],
        parent: QWidget,
    ) -> None:
        super().__init__(parent)
        self._engine_factory = engine_factory
        self._spec = spec
        self._runner = AsyncRunner(self)
        self._token: int | None = None
        self.tally = RunTally()
        self.progress: QProgressDialog | None = None
        self._parent = parent
        self.progressed.connect(self._show_progress, Qt.ConnectionType.QueuedConnection)

    @property
    def running(self) -> bool:
        return self._token is not None

    def start(self, project: Project) -> bool:
        """Translate every page of ``project`` that needs it; False when a run is under way."""
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
        progress = QProgressDialog(f"Translating {project.root.name}…", "&Stop", 0, 0, self._parent)
        progress.setObjectName("projectRunProgress")
        progress.setWindowTitle("Translate Project")
        progress.setMinimumDuration(0)
        progress.setAutoClose(False)
        progress.setAutoReset(False)
        progress.canceled.connect(self.stop)
        progress.show()
        self.progress = progress
        factory = self._engine_factory

        async def run() -> RunTally:
            with project_lock(project.root):  # one run at a time (ProjectBusy: said, not run)
                return await locked()

        async def locked() -> RunTally:
            record = WrittenRecord(project.root)
            pairs = status.load_pairs(project, record)
            tally.total = len(pairs)
            needy = [p for p in pairs if p.needed()]

            def done(outcome: PairOutcome) -> None:
                state, reason = finish(outcome, record)
                tally.done += 1
                tally.written += state in ("ok", "partial")
                if reason and state in ("failed", "skipped"):
                    tally.failed.append(reason)
                self.progressed.emit(tally.done, tally.total)

            for pair in pairs:
                if not pair.needed():
                    done(PairOutcome(pair))
            if not needy:
                record.save()
                return tally
            engine = factory()
            try:
                await translate_pairs(engine, needy, specs, on_pair=done)
            finally:
                record.save()
                await engine.router.aclose()
                if engine.memory is not None:
                    engine.memory.close()
            return tally

        self._token = self._runner.submit(run, self._done)
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

    def _show_progress(self, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress.setMaximum(total)
            self.progress.setValue(done)
            self.progress.setLabelText(f"Translating: {done} of {total} pages done")

    def _done(self, result: Any, error: BaseException | None) -> None:
        self._token = None
        self._close_progress()
        if error is not None:
            self.failed_pages.emit("Translate Project failed", error_text(error))
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
