"""The document's house in the window (fastdesk.project.house: its project, glossary, house style
and corrections): who holds it, and the two docks over its files, its style and its glossary.

The Style dock (objectName ``styleView``) edits ``.fastdesk-style.md`` and says, as the text
changes, how many blocks of the document saving it makes stale in the current language. The
Glossary dock (``glossaryView``) lists the forced translations and kept terms for the current
language; adding, changing, deleting, importing (TBX, CSV, TSV) and exporting (CSV) write the
project's glossary file (fastdesk.translate.glossary_edit), so the team gets them with the next
pull. :class:`HouseKeeper` owns the document's house (fastdesk.project.house): every job the
window starts goes through :meth:`HouseKeeper.apply`, and a saved change re-plans the document
(the memory answers the blocks the change does not touch).

The house is read in the engine's thread (EngineWorker.rehouse: a 100,000-term glossary takes
about 2 s, which froze the window when read here), in order with the document's updates: the
engine plans a document just opened with its house from the first request, and the window
takes the house (docks, problems) when it arrives.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QFileDialog,
    QMainWindow,
    QMenu,
    QPlainTextEdit,
)

from fastdesk.config.fileio import FileError, atomic_write_text, os_error_line, read_state_text
from fastdesk.config.settings import Settings
from fastdesk.document.blocks import parse
from fastdesk.document.languages import language_name
from fastdesk.project.house import House, house_for
from fastdesk.review.corrections import Proposal, propose_entries, review_corrections
from fastdesk.review.problems import ProblemList, other_pairs
from fastdesk.translate.glossary import GlossaryError, read_house_text
from fastdesk.translate.glossary_edit import (
    add_translation,
    glossary_to_write,
    remove_translation,
)
from fastdesk.translate.glossary_formats import read_exchange, write_table
from fastdesk.translate.job import JobSpec
from fastdesk.translate.language import source_language
from fastdesk.translate.readability import ReadingLevel, compare
from fastdesk.translate.style import STYLE_FILE, Style, blocks_affected, parse_style
from fastdesk.translate.term_align import guess_rendering
from fastdesk.ui.workbench.house_docks import GlossaryDock, StyleDock

if TYPE_CHECKING:
    from fastdesk.ui.document.view import DocumentView

__all__ = ["HouseKeeper"]

log = logging.getLogger(__name__)

READABILITY_DELAY_MS = 300
# a measure holds the GIL (a parse of both texts, ~0.5 s at 4,000 blocks): during a long fill the
# next one waits this many times the last one's length, so it takes at most ~1/10 of the time
READABILITY_SPACING = 10
LONG_TEXT = 50_000  # characters (~500 blocks): while such a document fills, no measure at all


def readability_line(source: str, target: str, lang: str | None) -> tuple[str, str]:
    """(status line, its detail) of the reading ease of ``source`` and ``target``; ("", "")
    for a language without a formula."""
    entry = compare(source, target, lang or source_language(source) or "en")
    if entry is None:
        return "", ""
    line = f"Reading ease {entry['before']:g} → {entry['after']:g}"
    if entry["harder"]:
        line += " (harder!)"
    return line, f"{entry['formula']}: about 0-100, higher is easier"


IGNORED_MS = 15_000  # how long the status bar says a house file was left out (the log keeps it)


class HouseKeeper(QObject):
    """The current document's house, its two docks, and the commands that show them.
    ``readability_changed(line, detail)``: simplify's reading ease, for the status bar."""

    readability_changed = Signal(str, str)
    _measured = Signal(int, str, str)  # (request, line, detail), from the measuring thread
    _read = Signal(int, object)  # (request, House), from the engine's thread

    def __init__(
        self,
        view: DocumentView,
        window: QMainWindow,
        spec: Callable[[], JobSpec],
        settings: Callable[[], Settings],
        problems: ProblemList,
        save: Callable[..., None] = lambda **_changes: None,
    ) -> None:
        """``spec``: the selectors' job (mode, language, provider), before the house;
        ``save(**changes)``: keep settings (the reading level chosen here)."""
        super().__init__(window)
        self.view, self.window = view, window
        self._spec, self._settings, self._problems = spec, settings, problems
        self.house = House(None)
        self.style_dock = StyleDock(window)
        self.style_dock.show_mode(spec().mode)  # the reading level: Simplify's only
        self.glossary_dock = GlossaryDock(window)
        for dock in (self.style_dock, self.glossary_dock):
            dock.hide()
            dock.visibilityChanged.connect(self._shown)
        self.style_dock.edited.connect(self._style_edited)
        self.style_dock.save.connect(self.save_style)
        self.style_dock.level_chosen.connect(self.set_level)
        self._save = save
        saved = settings().reading_level  # the window's, for simplify: beats the file's
        self.level: ReadingLevel | None = ReadingLevel.parse(saved) if saved else None
        self.style_dock.show_level(saved)
        self.glossary_dock.add.connect(self.add_entry)
        self.glossary_dock.remove.connect(self.remove_entry)
        self.glossary_dock.import_file.connect(self.import_dialog)
        self.glossary_dock.export_file.connect(self.export_dialog)
        self.glossary_dock.take_suggestion.connect(self.take_suggestion)
        self.suggested: Proposal | None = None
        self._suggest = QTimer(self)  # approvals come in bursts (Approve All): once after them
        self._suggest.setSingleShot(True)
        self._suggest.setInterval(READABILITY_DELAY_MS)
        self._suggest.timeout.connect(self._show_suggestion)
        view.review_ctl.changed.connect(self._suggest.start)
        view.review_ctl.changed.connect(self.teach)  # cheap: the blocks with an editor's record
        for pane in (view.source, view.target_editor):  # right-click: Add to Glossary
            pane.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
            pane.customContextMenuRequested.connect(
                lambda at, p=pane: self.context_menu(p).exec(p.mapToGlobal(at))
            )
        view.renamed.connect(self.refresh)
        self._readability = QTimer(self)  # the target settles in bursts: once after them
        self._readability.setSingleShot(True)
        self._readability.setInterval(READABILITY_DELAY_MS)
        self._readability.timeout.connect(self._measure_soon)
        self._generation, self._measuring, self._again = 0, False, False
        self._next_measure = 0.0  # on the view's clock: not before (see READABILITY_SPACING)
        self._spaced = QTimer(self)  # the measure put off until then
        self._spaced.setSingleShot(True)
        self._spaced.timeout.connect(self._measure_soon)
        self._measured.connect(self._show_measure)
        view.target_updated.connect(self._readability.start)
        self._busy = False
        view.busy.connect(self._busy_changed)
        self.load: Callable[[Path | None, Settings], House] = house_for  # tests hold it
        self._reads = self._taken = 0  # the newest read asked for, and the newest taken
        self._engine_house = self.house  # engine's thread: what its jobs were made with
        self._read.connect(self._take_house)

    def _shown(self, shown: bool) -> None:
        if shown:
            self.fill()

    def install(self) -> None:
        for dock in (self.style_dock, self.glossary_dock):
            self.window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
        self.window.tabifyDockWidget(self.style_dock, self.glossary_dock)

    def apply(self, spec: JobSpec) -> JobSpec:
        """The job with the document's glossary, house style and the editor's corrections, and
        the reading level chosen in the window."""
        self.teach()
        return self.job_with(self.house, spec)

    def job_with(self, house: House, spec: JobSpec) -> JobSpec:
        """``spec`` with ``house`` (none for an untitled document) and the reading level; also
        called in the engine's thread (it reads no widget)."""
        if house.place is not None:
            job = house.apply(spec)
        else:
            job = dataclasses.replace(
                spec, glossary=None, style=None, examples=None, dialect="commonmark"
            )
        level = self.level
        if level is not None and job.mode == "simplify":
            job = dataclasses.replace(job, style=(job.style or Style()).with_level(level))
        return job

    def set_level(self, label: str) -> None:
        """Simplify's reading level in this window ("": the style file's); simplifying again."""
        level = ReadingLevel.parse(label) if label else None
        if level == self.level:
            return
        self.level = level
        self._save(reading_level=level.label if level is not None else "")
        if self._spec().mode == "simplify" and self.view.engine_started:
            self.view.respec()

    # ---- the house ---------------------------------------------------------------------------

    @property
    def loading(self) -> bool:
        """Whether a house asked for has not arrived yet."""
        return self._taken != self._reads

    def refresh(self) -> None:
        """Find the house of the document again (opened, saved as, a house file written), in
        the engine's thread; a change re-plans the document (see the module docstring)."""
        self._reads += 1
        request, path, settings = self._reads, self.view.path, self._settings()
        if not self.view.engine_started:  # no engine to plan yet: read here
            self._engine_house = house = self._load(path, settings)
            self._take_house(request, house)
            return

        def read() -> tuple[Callable[[JobSpec], JobSpec], bool]:  # in the engine's thread
            house = self._load(path, settings)
            changed = not house.same_as(self._engine_house)
            self._engine_house = house
            with contextlib.suppress(RuntimeError):  # the window closed meanwhile
                self._read.emit(request, house)
            return lambda spec: self.job_with(house, spec), changed

        self.view.worker.rehouse(read, self.view.text())

    def _load(self, path: Path | None, settings: Settings) -> House:
        try:
            return self.load(path, settings)
        except Exception:  # a bug here must not stop the window: no house, the log says why
            log.warning("the house of %s not read", path, exc_info=True)
            return House(path)

    def _take_house(self, request: int, house: House) -> None:
        """The house read for ``request`` (the engine plans with it already)."""
        if request != self._reads:
            return  # a newer read is under way
        self._taken = request
        said, self.house = self.house.ignored, house
        if house.ignored and house.ignored != said:  # a refused house file: say it once
            self.view.message.emit(" · ".join(house.ignored), IGNORED_MS)
        self._problems.set_glossary(house.glossary)
        self.teach()
        self.fill()

    def teach(self) -> None:
        """The open document's approved corrections (unsaved ones too) into the examples the
        next request picks from: a new approval teaches at once."""
        review = self.view.review  # its lang: the language, or "simplify" (no examples)
        if self.house.place is None or review.lang == "simplify":
            return
        bank = self.house.examples(review.lang)
        if bank is not None:
            bank.update(review_corrections(review))

    def fill(self) -> None:
        """The docks as the house is now (only those on show)."""
        self.style_dock.show_mode(self._spec().mode)
        if self.style_dock.isVisible():
            path = self._style_path()
            exists = path is not None and path.is_file()
            text = ""
            if exists and path is not None:
                try:
                    text = read_house_text(path, self.house.top)
                except FileError as exc:
                    self.style_dock.impact.setText(str(exc))
            if path is not None:
                self.style_dock.show_file(path, text, exists)
            self.style_dock.setEnabled(path is not None)
        if self.glossary_dock.isVisible():
            self._fill_glossary()

    def _lang(self) -> str:
        return self._spec().target_lang

    def _style_path(self) -> Path | None:
        if self.house.style is not None and self.house.style.path is not None:
            return self.house.style.path
        folder = self.house.top or (self.view.path.parent if self.view.path else None)
        return folder / STYLE_FILE if folder is not None else None

    def _glossary_path(self) -> Path | None:
        if self.view.path is None:
            return None
        return glossary_to_write(self.view.path, self.house.top)

    def _fill_glossary(self) -> None:
        lang, glossary = self._lang(), self.house.glossary
        rows: list[tuple[str, str | None]] = []
        if glossary is not None:
            rows += sorted(glossary.terms_for(lang).items(), key=lambda r: r[0].casefold())
            rows += [(term, None) for term in sorted(glossary.keep_for(lang), key=str.casefold)]
        path = self._glossary_path()
        where = f"{language_name(lang)} ({lang}) · {path}" if path else "Save the document first"
        self.glossary_dock.set_entries(where, rows)
        self.glossary_dock.setEnabled(path is not None)
        self._show_suggestion()

    def suggestions(self) -> list[Proposal]:
        """Entries the editor's approved corrections keep making (this document's, unsaved
        ones too, and the project's), that the glossary does not say yet."""
        lang = self._lang()
        if self._spec().mode != "translate":
            return []
        bank = self.house.examples(lang)
        found = [*(bank.examples if bank else ()), *review_corrections(self.view.review)]
        return [
            p for p in propose_entries(found, lang, glossary=self.house.glossary) if p.source_term
        ]

    def _show_suggestion(self) -> None:
        if not self.glossary_dock.isVisible():
            return
        found = self.suggestions()
        self.suggested = found[0] if found else None
        self.glossary_dock.show_suggestion(self.suggested.message() if self.suggested else "")

    def take_suggestion(self) -> None:
        """The suggested entry (its source term → the editor's word), into the glossary."""
        if self.suggested is not None and self.suggested.source_term:
            self.add_entry(self.suggested.source_term, self.suggested.after)

    def _busy_changed(self, busy: bool) -> None:
        if busy == self._busy:
            return  # the view says busy with every delivery of the work: only a change counts
        self._busy = busy
        self._readability.start()

    def _measure_soon(self) -> None:
        """Simplify: measure the reading ease of the source and the target on a thread of its
        own (hyphenation dictionaries and language identification are slow to load and, for a
        long document, to run); the status bar gets the line when it is ready."""
        self._generation += 1
        if self._spec().mode != "simplify":
            self.readability_changed.emit("", "")
            return
        if self._measuring:
            self._again = True
            return
        if self.view.source.document().characterCount() > LONG_TEXT:
            counts = self.view.review_ctl.summary()  # (kept up to date: not a count afresh)
            if self._busy or counts.in_flight + counts.pending:
                return  # a long document's fill: measured when it is over (busy goes off)
        wait = self._next_measure - self.view.clock.monotonic()
        if wait > 0:  # the last measure was long: once the spacing is over
            self._spaced.start(max(READABILITY_DELAY_MS, round(wait * 1000)))
            return
        view, project = self.view, self.house.project
        args = (
            view.clock.monotonic(),  # the GUI thread's part counts too
            self._generation,
            view.text(),
            view.review_ctl.target_text(),
            project.source_lang if project else None,
        )
        self._measuring = True
        threading.Thread(target=self._measure, args=args, daemon=True).start()

    def _measure(
        self, started: float, generation: int, source: str, target: str, lang: str | None
    ) -> None:
        clock = self.view.clock
        try:
            line, detail = readability_line(source, target, lang)
        except Exception:  # a bug here must not stop the window: no line, the log says why
            log.warning("reading ease not measured", exc_info=True)
            line, detail = "", ""
        took = clock.monotonic() - started
        self._next_measure = started + READABILITY_SPACING * took
        with contextlib.suppress(RuntimeError):  # the window closed meanwhile
            self._measured.emit(generation, line, detail)

    def _show_measure(self, generation: int, line: str, detail: str) -> None:
        self._measuring = False
        if generation == self._generation:
            self.readability_changed.emit(line, detail)
        if self._again:
            self._again = False
            self._measure_soon()

    # ---- commands ------------------------------------------------------------------------------

    def show_style(self) -> None:
        self.style_dock.show()
        self.style_dock.raise_()
        self.fill()
        self.style_dock.editor.setFocus()

    def show_glossary(self) -> None:
        self.glossary_dock.show()
        self.glossary_dock.raise_()
        self.fill()
        self.glossary_dock.table.setFocus()

    def context_menu(self, pane: QPlainTextEdit) -> QMenu:
        """The pane's usual menu, and the window's Add to Glossary under it."""
        menu = pane.createStandardContextMenu()
        menu.setParent(pane, menu.windowFlags())
        action = self.window.findChild(QAction, "actionAddToGlossary")
        if action is not None:
            menu.addSeparator()
            menu.addAction(action)
        return menu

    def add_to_glossary(self) -> None:
        """The source pane's selection as a new entry, the target pane's selection (if any)
        as its translation, for the user to confirm with Enter."""
        source = self.view.source.textCursor().selectedText().strip()
        target = self.view.target_pane().textCursor().selectedText().strip()
        if source and not target:
            target = self._guess(source)
        self.show_glossary()
        self.glossary_dock.prefill(source, target)

    def _guess(self, term: str) -> str:
        """The words of the block's translation that likely render ``term`` (a proposal,
        selected in the field: fastdesk.translate.term_align)."""
        model = self.view.review_ctl.model
        key = self.view.places.block_under_cursor()
        if key is None or model.doc is None or model.index_of(key) is None:
            return ""
        shown = self.view.review.shown_text(key)
        if not shown:
            return ""
        return guess_rendering(model.doc.by_id(key).text, shown, term, other_pairs(model, key))

    # ---- writing ---------------------------------------------------------------------------------

    def _style_edited(self, text: str) -> None:
        doc = self.view.review_ctl.doc or parse(self.view.text())
        spec = self._spec()
        count = blocks_affected(
            doc, self.house.style, parse_style(text), spec.mode, spec.target_lang
        )
        what = "this language" if spec.mode == "translate" else "simplify"
        self.style_dock.impact.setText(
            f"Saving sends {count} blocks of this document again ({what})"
            if count
            else "No block of this document changes"
        )

    def save_style(self, text: str) -> None:
        path = self._style_path()
        if path is None:
            return
        try:
            atomic_write_text(path, text if text.endswith("\n") or not text else text + "\n")
        except OSError as exc:
            self.style_dock.impact.setText(os_error_line(path, exc, "not saved"))
            return
        self.style_dock.editor.document().setModified(False)
        self.refresh()
        self.style_dock.impact.setText(f"Saved {path.name}")

    def add_entry(self, source: str, target: str) -> None:
        self._write(lambda path: add_translation(path, self._lang(), source, target), source)

    def remove_entry(self, source: str) -> None:
        def remove(path: Path) -> bool:
            if not remove_translation(path, self._lang(), source):
                raise GlossaryError(path, None, f'"{source}" is not in this file for this language')
            return True

        self._write(remove, source)

    def _write(self, change: Callable[[Path], bool], what: str) -> None:
        path = self._glossary_path()
        if path is None:
            return
        try:
            change(path)
        except (GlossaryError, OSError) as exc:
            self.glossary_dock.message.setText(str(exc))
            return
        self.glossary_dock.message.setText(f'"{what}": written to {path.name}')
        self.glossary_dock.source.clear()
        self.glossary_dock.target.clear()
        self.refresh()

    def import_dialog(self) -> None:
        name, _filter = QFileDialog.getOpenFileName(
            self.window, "Import Glossary", "", "Glossaries (*.tbx *.csv *.tsv *.tab)"
        )
        if name:
            self.import_path(Path(name))

    def import_path(self, source: Path) -> int:
        """Every entry of a TBX/CSV/TSV file for the current language, into the project's
        glossary file; how many were new or changed."""
        lang, target = self._lang(), self._glossary_path()
        if target is None:
            return 0
        try:
            _keep, tables = read_exchange(source, read_state_text(source))
            entries = {**tables.get(lang.split("-")[0], {}), **tables.get(lang.lower(), {})}
            added = sum(add_translation(target, lang, s, t) for s, t in entries.items())
        except (GlossaryError, FileError, OSError) as exc:
            self.glossary_dock.message.setText(str(exc))
            return 0
        self.glossary_dock.message.setText(f"{added} entries imported from {source.name}")
        self.refresh()
        return added

    def export_dialog(self) -> None:
        name, _filter = QFileDialog.getSaveFileName(
            self.window, "Export Glossary", "glossary.csv", "CSV (*.csv)"
        )
        if name:
            self.export_path(Path(name))

    def export_path(self, path: Path) -> None:
        """The current language's forced translations as CSV with a header of language codes
        (what `glossary_formats` reads back)."""
        lang = self._lang()
        glossary = self.house.glossary
        project = self.house.project
        rows: list[Sequence[str]] = [[project.source_lang if project else "en", lang]]
        rows += sorted((glossary.terms_for(lang) if glossary else {}).items())
        rows += [[term, ""] for term in (glossary.keep_for(lang) if glossary else ())]
        try:
            atomic_write_text(path, write_table(rows))
        except OSError as exc:
            self.glossary_dock.message.setText(os_error_line(path, exc, "not written"))
            return
        self.glossary_dock.message.setText(f"Exported to {path.name}")
