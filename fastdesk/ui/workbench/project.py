"""The project panel (objectName ``projectView``): a docs project's source files by language,
each cell what `fastdesk status` says of that pair (up to date / N stale / missing / N flagged /
approved %). A click opens that file in that language.

The figures come from the core (fastdesk.project.status.read_status), read off the GUI thread
(a 50-file, 3-language project takes ~0.15 s: benchmarks/bench_project.py), again for the one
file the window saves, and for the pairs whose target file another program changed
(``project_watch``). The panel shows; :class:`ProjectPanel` opens and refreshes.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QPalette
from PySide6.QtWidgets import (
    QDockWidget,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from fastdesk.config.fileio import DocumentError, os_error_line
from fastdesk.document.languages import is_bcp47, language_name
from fastdesk.project.layout import (
    CONFIG_NAME,
    Project,
    ProjectError,
    find_project,
    publish_hint,
    set_languages,
)
from fastdesk.project.record import WrittenRecord
from fastdesk.project.status import ProjectStatus, describe, read_status, totals
from fastdesk.project.sync import Pair, open_pair, write_target
from fastdesk.review.model import STATE_STYLES, Review, review_path, save_review
from fastdesk.ui.bridge.threads import AsyncRunner
from fastdesk.ui.panes.accessible import name
from fastdesk.ui.panes.theme import text_colour
from fastdesk.ui.plain import escape, tip
from fastdesk.ui.workbench.project_watch import Signature, TargetWatch, signatures

log = logging.getLogger("fastdesk.ui")

_PAIR = Qt.ItemDataRole.UserRole
# a cell's colour: the review margin's (fastdesk.review.model.STATE_STYLES) for the same idea
_COLOURS = {
    "up_to_date": STATE_STYLES["approved"].colour,
    "stale": STATE_STYLES["stale_edit"].colour,
    "missing": STATE_STYLES["pending"].colour,
    "conflict": STATE_STYLES["flagged"].colour,
}


def cell_text(entry: dict[str, object]) -> str:
    """The short form of describe() for a narrow column: "✓ 40%" (up to date, 40% approved),
    "3 stale · 0% · ⚑1" (one flagged), "missing", "conflict"; the tooltip says it in full."""
    state = entry["state"]
    if state in ("missing", "conflict"):
        return str(state)
    head = "✓" if state == "up_to_date" else f"{entry['stale']} stale ·"
    text = f"{head} {entry['approved_percent']}%"
    return f"{text} · ⚑{entry['flagged']}" if entry["flagged"] else text


NO_PROJECT = (
    "No project open. A docs project is a folder of Markdown pages (MkDocs, Docusaurus, Hugo, "
    "or one folder per language): open one to see each page in each language, what is up to "
    "date and what is missing. From the command line: fastdesk FOLDER."
)


class ProjectDock(QDockWidget):
    """``chosen(source, lang)`` when the user clicks (or presses Enter on) a cell."""

    chosen = Signal(object, str)
    open_requested = Signal()  # the empty state's button: choose a folder to open

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Project", parent)
        self.setObjectName("projectView")
        box = QWidget()
        layout = QVBoxLayout(box)
        layout.setContentsMargins(4, 4, 4, 4)
        self.summary = QLabel()
        self.summary.setObjectName("projectSummary")
        self.summary.setWordWrap(True)
        self.tree = QTreeWidget()
        self.tree.setObjectName("projectTree")
        name(self.tree, "Project files", "Each page and its state in each language; Enter opens")
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.itemClicked.connect(self._picked)
        self.tree.itemActivated.connect(self._picked)
        self.empty = QLabel(NO_PROJECT)  # what to do, while no project is open
        self.empty.setObjectName("projectEmpty")
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.open_button = QPushButton("Open a Docs Folder…")
        self.open_button.setObjectName("projectOpen")
        self.open_button.clicked.connect(self.open_requested)
        layout.addWidget(self.summary)
        layout.addWidget(self.empty)
        layout.addWidget(self.open_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.tree, 1)
        self.setWidget(box)
        self.project: Project | None = None
        self.tree.hide()
        self.summary.hide()
        self.rows: dict[PurePosixPath, QTreeWidgetItem] = {}
        self.entries: dict[tuple[str, str], dict[str, object]] = {}
        self.hint: str | None = None  # how to keep the review files out of the published site

    def set_project(self, project: Project) -> None:
        """One row per source file, one column per language (filled by set_status)."""
        self.project = project
        self.entries = {}
        self.hint = publish_hint(project)
        self.empty.hide()
        self.open_button.hide()
        self.tree.show()
        self.summary.show()
        self.tree.clear()
        langs = project.languages
        self.tree.setColumnCount(1 + len(langs))
        self.tree.setHeaderLabels(["File", *langs])
        header = self.tree.headerItem()
        for n, lang in enumerate(langs, 1):
            header.setToolTip(n, language_name(lang))
        self.rows = {}
        top = _common_folder(project)
        for source in project.sources():
            shown = source.relative_to(top).as_posix() if top else source.as_posix()
            item = QTreeWidgetItem([shown, *("…" for _ in langs)])
            item.setData(0, _PAIR, source)
            item.setToolTip(0, tip(source.as_posix()))
            self.tree.addTopLevelItem(item)
            self.rows[source] = item
        head = self.tree.header()
        # the file names whole (a narrow panel scrolls sideways), measured once: fitting the
        # column to its contents would ask every row again on each change of a cell
        metrics = self.tree.fontMetrics()
        widest = max((metrics.horizontalAdvance(i.text(0)) for i in self.rows.values()), default=0)
        head.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        head.resizeSection(0, widest + 2 * metrics.horizontalAdvance("M"))
        head.setMinimumSectionSize(40)
        for n in range(1, len(langs) + 1):
            head.setSectionResizeMode(n, QHeaderView.ResizeMode.ResizeToContents)
        head.setStretchLastSection(False)
        self._summarise()

    def set_status(self, status: ProjectStatus) -> None:
        """Each pair's cell from its status (the others keep theirs)."""
        project = self.project
        if project is None or status.project.root != project.root:
            return
        column = {lang: n for n, lang in enumerate(project.languages, 1)}
        for entry in status.files:
            source, lang = PurePosixPath(str(entry["source"])), str(entry["lang"])
            item, n = self.rows.get(source), column.get(lang)
            if item is None or n is None:
                continue
            self.entries[(source.as_posix(), lang)] = entry
            item.setText(n, cell_text(entry))
            item.setToolTip(n, tip(f"{entry['target']} ({language_name(lang)}): {describe(entry)}"))
            self._colour(item, n, str(entry["state"]))
            item.setData(n, _PAIR, (source, lang))
        self._summarise()

    def _colour(self, item: QTreeWidgetItem, column: int, state: str) -> None:
        """The state's colour, readable (WCAG AA) on the list's rows in this theme."""
        colour = text_colour(
            _COLOURS.get(state, "#6e7781"),
            self.tree.palette(),
            QPalette.ColorRole.Base,
            QPalette.ColorRole.AlternateBase,
        )
        item.setForeground(column, QBrush(QColor(colour)))

    def apply_palette(self) -> None:
        """The theme changed: each cell's colour again (the window calls it)."""
        project = self.project
        if project is None:
            return
        column = {lang: n for n, lang in enumerate(project.languages, 1)}
        for (source, lang), entry in self.entries.items():
            item, n = self.rows.get(PurePosixPath(source)), column.get(lang)
            if item is not None and n is not None:
                self._colour(item, n, str(entry["state"]))

    def entry(self, source: PurePosixPath | str, lang: str) -> dict[str, object] | None:
        return self.entries.get((PurePosixPath(source).as_posix(), lang))

    def mark_current(self, source: PurePosixPath | None, lang: str) -> None:
        """Select the cell of the document on show (none: no selection)."""
        item = self.rows.get(source) if source is not None else None
        project = self.project
        self.tree.blockSignals(True)
        try:
            if item is None or project is None or lang not in project.languages:
                self.tree.clearSelection()
            else:
                self.tree.setCurrentItem(item, 1 + project.languages.index(lang))
        finally:
            self.tree.blockSignals(False)

    def _summarise(self) -> None:
        project = self.project
        if project is None:
            self.summary.setText("")
            return
        t = totals(self.entries.values())
        langs = escape(", ".join(project.languages))  # a project's words: shown as they are
        self.summary.setText(
            f"<b>{escape(project.root.name)}</b> — {escape(project.layout)}, "
            f"{escape(project.source_lang)} → {langs}<br>"
            f"{t['up_to_date']} up to date, {t['stale']} stale, {t['missing']} missing · "
            f"{t['stale_blocks']} blocks to translate, {t['flagged_blocks']} flagged"
        )
        self.summary.setToolTip(tip(self.hint or ""))
        if self.hint:
            self.summary.setText(f"{self.summary.text()}<br><i>{escape(self.hint)}</i>")

    def _picked(self, item: QTreeWidgetItem, column: int) -> None:
        project = self.project
        if project is None:
            return
        source = item.data(0, _PAIR)
        if not isinstance(source, PurePosixPath):
            return
        if column >= 1:
            lang = project.languages[column - 1]
        else:  # the file's name: its first language not up to date, else the first
            states = [(lang, self.entry(source, lang)) for lang in project.languages]
            lang = next(
                (x for x, e in states if e is not None and e["state"] != "up_to_date"),
                project.languages[0],
            )
        self.chosen.emit(source, lang)


class ProjectPanel(QObject):
    """The open project: its dock, reading its status off the GUI thread, opening its files.

    ``current()`` is the document on show (its path, or None) and its review key;
    ``open_pair(path, lang)`` opens a source in a language (after asking about unsaved edits)
    and returns whether it did; ``review()`` is the review on show, aligned with the editor;
    ``take_edits(lang, [(block id, text)])`` gives the document on show a translator's edits of
    its target (its reviews are the window's, newer than the sidecar: they must hear of them).
    """

    opened = Signal()  # a project was opened (its status is on its way)
    # a project's languages were just named (its .fastdesk.toml written): open it again
    languages_set = Signal(str)
    refreshed = Signal()  # a status read reached the dock
    message = Signal(str, int)  # for the status bar (text, milliseconds)

    def __init__(
        self,
        dock: ProjectDock,
        *,
        current: Callable[[], tuple[Path | None, str]],
        open_pair: Callable[[Path, str], bool],
        review: Callable[[], Review],
        take_edits: Callable[[str, list[tuple[str, str]]], None],
        warn: Callable[[str, str], None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.dock = dock
        self.project: Project | None = None
        self._current = current
        self._open_pair = open_pair
        self._review = review
        self._take_edits = take_edits
        self._warn = warn
        self._runner = AsyncRunner(self)
        self._reads = 0  # reads in flight (tests wait for none)
        self.watch = TargetWatch(self)  # the targets on disk: another editor's changes
        self.watch.changed.connect(self.refresh_pairs)
        dock.chosen.connect(self.choose)

    @property
    def reading(self) -> bool:
        return self._reads > 0

    def open(self, folder: str | os.PathLike[str]) -> Project | None:
        """Read the folder's layout and show its files; None (said why) when it is not one."""
        try:
            project = find_project(folder)
        except ProjectError as exc:
            self._warn("Not a docs project", str(exc))
            return None
        if not project.languages:
            self._offer_languages(project)
            return None
        self.project = project
        self.watch.watch(project)
        self.dock.set_project(project)
        self.dock.show()
        self.dock.raise_()
        self._read(None)
        self.opened.emit()
        return project

    def _offer_languages(self, project: Project) -> None:
        """A project that names no target language: offer the language on show, written to
        its .fastdesk.toml in one click (the toolbar already names it), instead of refusing."""
        key = self._current()[1]
        lang = key if key != "simplify" and is_bcp47(key) else "fr"
        name = language_name(lang)
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "No target languages",
            f"{project.root.name} names no language to translate into. Translate it into "
            f'{name}? fastdesk writes languages = ["{lang}"] to its {CONFIG_NAME} '
            "(add more there later).",
            QMessageBox.StandardButton.Cancel,
            self.dock.window(),
        )
        box.setObjectName("languagesBox")
        accept = box.addButton(f"Translate into {name}", QMessageBox.ButtonRole.AcceptRole)
        accept.setObjectName("setLanguages")

        def chosen() -> None:
            if box.clickedButton() is not accept:
                return
            try:
                set_languages(project.root, (lang,))
            except ProjectError as exc:
                self._warn("Languages not set", str(exc))
                return
            self.languages_set.emit(str(project.root))

        box.finished.connect(lambda _result: chosen())
        box.open()

    def refresh(self, sources: Iterable[PurePosixPath] | None = None) -> None:
        """Read the status again (of ``sources`` only, when given) in the background; a whole
        read while one is under way waits for nothing (it would read the same)."""
        wanted = None if sources is None else list(sources)
        if wanted is None and self.reading:
            return
        self._read(wanted)

    def refresh_pairs(self, pairs: Iterable[tuple[PurePosixPath, str]]) -> None:
        """Read again, in the background, only these (source, language) pairs (their target
        changed on disk)."""
        wanted = list(pairs)
        self._run(lambda project: _read(project, pairs=wanted))

    def _read(self, sources: list[PurePosixPath] | None) -> None:
        self._run(lambda project: _read(project, sources))

    def saved(self, path: Path) -> None:
        """The window wrote ``path`` and its review: if it is a source of the project, its
        target in the language on show is written too (as `fastdesk translate DIR` would,
        with no request), then its cells are read again."""
        self.write_target(path, "Saved")

    def write_target(self, path: Path, done: str = "Exported") -> None:
        """Write the target of the source at ``path`` in the language on show from its review
        (links rebased, the record kept), off the GUI thread; the status bar says what
        happened, starting with ``done``."""
        project, source = self.project, self.source_of(path)
        if project is None or source is None:
            return
        lang = self._current()[1]
        if lang in project.languages:
            # in a project the machine answers are the record too (as the command line keeps
            # them), not only the reviewer's work: the sidecar holds this language's review
            review = self._review()
            try:
                save_review(review)
            except OSError as exc:
                where = review_path(review.source_path or path)
                self.message.emit(os_error_line(where, exc, "not written"), 8000)
                return

        def job(project: Project) -> _Done:
            if lang not in project.languages:
                return _read(project, [source])
            pair = write_target(project, source, lang)
            read = _read(project, [source])
            return replace(read, note=_written(pair, done), taken=(path, lang, pair.taken))

        self._run(job)

    def _run(self, job: Callable[[Project], _Done]) -> None:
        project = self.project
        if project is None:
            return

        async def run() -> _Done:
            return job(project)

        self._reads += 1
        self._runner.submit(run, self._read_done)

    def _read_done(self, result: Any, error: BaseException | None) -> None:
        self._reads -= 1
        if error is not None:
            reason = str(error) if isinstance(error, DocumentError | OSError) else repr(error)
            log.warning("project status not read: %s", reason)
            self.dock.summary.setText(f"Status not read: {reason}")
        elif isinstance(result, _Done):
            if result.taken is not None:
                path, lang, taken = result.taken
                if taken and self._current()[0] == path:  # still on show: its review too
                    self._take_edits(lang, taken)
            self.watch.seen(result.seen)
            self.dock.set_status(result.status)
            self.follow()
            if result.note:
                self.message.emit(result.note, 6000)
        self.refreshed.emit()

    def source_of(self, path: Path | None) -> PurePosixPath | None:
        project = self.project
        if project is None or path is None:
            return None
        try:
            rel = PurePosixPath(path.resolve().relative_to(project.root).as_posix())
        except ValueError:
            return None
        return rel if rel in self.dock.rows else None

    def place(self, path: Path | None) -> tuple[Project, PurePosixPath] | None:
        """The open project and the path in it of the source at ``path`` (None: not one)."""
        source = self.source_of(path)
        return None if self.project is None or source is None else (self.project, source)

    def follow(self) -> None:
        """The dock selects the document on show."""
        path, lang = self._current()
        self.dock.mark_current(self.source_of(path), lang)

    def choose(self, source: PurePosixPath, lang: str) -> bool:
        """Open ``source`` in ``lang``: what a translator changed in its target on disk becomes
        the editor's corrections first (as `fastdesk translate DIR` would take it in)."""
        project = self.project
        if project is None:
            return False
        path = project.root / source
        on_show = self._current()[0] == path
        taken = take_in_hand_edits(project, source, lang, save=not on_show)
        done = self._open_pair(path, lang)
        if on_show and taken:  # its reviews are the window's: they take the edits
            self._take_edits(lang, taken)
        self.follow()
        return done

    def close(self) -> None:
        """Stop following the project's files before the runner closes: a change heard after
        it (the watch's settle timer) would otherwise ask a closed runner for a read."""
        self.watch.watch(None)
        self.project = None
        self._runner.close(timeout=0.5)


def _common_folder(project: Project) -> PurePosixPath | None:
    """The one source folder every file is under (docs/), left out of the names shown."""
    folders = {r.source for r in project.roots}
    if len(folders) != 1:
        return None
    (folder,) = folders
    return PurePosixPath(folder) if folder else None


@dataclass(frozen=True)
class _Done:
    """A background job's outcome: the cells, the target files as they were read (for the
    watch), a note for the status bar, and the edits a Save took in from the target on disk
    ((source path, language, edits), None: no write)."""

    status: ProjectStatus
    seen: dict[Path, Signature] = field(default_factory=dict)
    note: str = ""
    taken: tuple[Path, str, list[tuple[str, str]]] | None = None


def _read(
    project: Project,
    sources: Iterable[PurePosixPath] | None = None,
    *,
    pairs: list[tuple[PurePosixPath, str]] | None = None,
) -> _Done:
    """Read the status (every pair, of ``sources``, or ``pairs``), the targets' signatures
    taken first: a change made while it reads is still a change for the watch."""
    if pairs is None:
        chosen = project.sources() if sources is None else list(sources)
        pairs = [(s, lang) for s in chosen for lang in project.languages]
    seen = signatures(project, pairs)
    return _Done(read_status(project, pairs=pairs), seen)


def take_in_hand_edits(
    project: Project, source: PurePosixPath, lang: str, *, save: bool = True
) -> list[tuple[str, str]]:
    """The target's blocks edited by hand since fastdesk wrote it, as (block id, text); with
    ``save``, into the source's review file (the window reads it when it opens the file)."""
    try:
        pair = open_pair(project, source, lang, WrittenRecord(project.root))
    except DocumentError:
        return []  # opening the file says why
    if save and pair.hand_edits and not pair.conflict:
        pair.save_review()
    return pair.taken


def _written(pair: Pair, done: str) -> str:
    """What Save (or Export) did to the target, in a few words."""
    if pair.conflict:
        return f"{pair.target} not written: {pair.conflict}"
    missing = len(pair.missing())
    if missing:
        noun = "block has" if missing == 1 else "blocks have"
        return f"{pair.target} not written yet: {missing} {noun} no translation"
    return f"{done}; {pair.target} written"
