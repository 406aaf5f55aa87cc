"""The file commands of a document: new, open (a dialog, a recent file, a dropped one, the
sample), save, save as, export, restoring what a crash left, and reloading what another program
changed on disk. Each asks first when unsaved edits would be lost."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Protocol

from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from fastdesk.config.fileio import DocumentError, atomic_write_text, os_error_line, read_document
from fastdesk.config.paths import resource
from fastdesk.project.layout import Project
from fastdesk.project.sync import copy_text
from fastdesk.review import autosave
from fastdesk.review.export import export_target, export_translation_html
from fastdesk.review.model import Review
from fastdesk.ui.document.view import DocumentView
from fastdesk.ui.panes import render
from fastdesk.ui.plain import ask, plain_box


class ProjectPlace(Protocol):
    """What the file commands ask of the open project (the window's project panel,
    fastdesk.ui.workbench.project.ProjectPanel, which sits above this layer)."""

    def place(self, path: Path | None) -> tuple[Project, PurePosixPath] | None:
        """The open project and the path in it of the source at ``path`` (None: not one)."""
        ...

    def write_target(self, path: Path, done: str = "Exported") -> None:
        """Write the target of the source at ``path`` where the layout says (the status bar
        says how it went)."""
        ...


SAMPLE_NAME = "Sample document"
MARKDOWN_FILTER = "Markdown (*.md *.markdown *.mdown *.mkd *.txt);;All files (*)"


def warn(parent: QWidget, title: str, text: str) -> None:
    """A warning that never blocks its caller (open(), not exec()): open_file() returns."""
    box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Ok, parent)
    box.setObjectName("warningBox")
    plain_box(box).open()  # names a file and says why: shown as it is


EXPORT_KINDS = "Markdown (*.md);;HTML page, the translation alone (*.html *.htm)"


def export_path(parent: QWidget, view: DocumentView, suggested: Path, title: str, kind: str) -> str:
    """Where to export (a save dialog; untitled documents suggest the home folder); "" if none."""
    if view.path is None:
        suggested = Path.home() / suggested.name
    path, _ = QFileDialog.getSaveFileName(parent, title, str(suggested), kind)
    return path


def unfinished_text(waiting: int, failed: int, flagged: int) -> str:
    """What an export of an unfinished translation would hold, in words ("" when finished)."""
    parts = [
        f"{n} {what}"
        for n, what in (
            (waiting, "not translated yet"),
            (failed, "failed"),
            (flagged, "flagged by a check"),
        )
        if n
    ]
    if not parts:
        return ""
    total = waiting + failed + flagged
    noun = "block is" if total == 1 else "blocks are"
    return f"{total} {noun} unfinished: " + ", ".join(parts) + "."


class FileCommands:
    """Open, save and export ``view``'s document. ``remember(path)`` adds a recent file;
    ``select_review_key(key)`` switches the mode and language to a restored review's;
    ``project()`` is the window's project panel."""

    def __init__(
        self,
        view: DocumentView,
        parent: QWidget,
        *,
        remember: Callable[[Path], None],
        select_review_key: Callable[[str], None],
        project: Callable[[], ProjectPlace | None] = lambda: None,
    ) -> None:
        self.view = view
        self.parent = parent
        self._project = project  # the window's project panel (Export in a project)
        self._remember = remember
        self._select_review_key = select_review_key
        view.files_dropped.connect(self.open_dropped)
        view.disk.changed.connect(self._disk_changed)
        view.disk.vanished.connect(self._disk_vanished)

    # ---- opening -------------------------------------------------------------------------------

    def open_file(self, path: str | Path) -> bool:
        """Open a Markdown file as the source (no question asked: callers confirm first)."""
        try:
            text = read_document(path)
        except DocumentError as exc:
            warn(self.parent, "Cannot open the file", str(exc))
            return False
        absolute = Path(path).expanduser().absolute()
        self.view.load(text, absolute)
        self._remember(absolute)
        return True

    def new_document(self) -> None:
        if self.confirm_discard():
            self.view.load("", None)

    def open_sample(self) -> None:
        if not self.confirm_discard():
            return
        self.view.load(resource("sample.md").read_text(encoding="utf-8"), None, name=SAMPLE_NAME)

    def open_dialog(self) -> None:
        if not self.confirm_discard():
            return
        path = self.view.path
        start = str(path.parent) if path else str(Path.home())
        chosen, _ = QFileDialog.getOpenFileName(
            self.parent, "Open Markdown", start, MARKDOWN_FILTER
        )
        if chosen:
            self.open_file(chosen)

    def open_recent(self, path: str) -> None:
        if self.confirm_discard():
            self.open_file(path)

    def open_dropped(self, files: list[str]) -> None:
        if files and self.confirm_discard():
            self.open_file(files[0])

    def restore(self, recovery: autosave.Recovery) -> bool:
        """Reopen an autosaved document: its unsaved text (modified) and its review."""
        if not self.confirm_discard():
            return False
        try:
            restored = autosave.restore(recovery)
        except (OSError, KeyError) as exc:
            warn(self.parent, "Cannot restore", f"{recovery.file}: {exc}")
            return False
        review: Review | None = None
        if restored.review is not None:
            try:
                review = Review.from_dict(restored.review, restored.path)
            except ValueError as exc:
                warn(self.parent, "The review could not be restored (the text is)", str(exc))
        if review is not None:
            self._select_review_key(review.lang)
        self.view.load(
            restored.source_text,
            restored.path,
            restored=review,
            autosave_key=recovery.key,
            modified=True,
        )
        self.view.message.emit(f"Restored {recovery.label}", 6000)
        return True

    # ---- saving and exporting ------------------------------------------------------------------

    def save(self) -> bool:
        if self.view.path is None:
            return self.save_as()
        return self._write_source(self.view.path)

    def save_as(self) -> bool:
        start = str(self.view.path) if self.view.path else str(Path.home() / "untitled.md")
        path, _ = QFileDialog.getSaveFileName(
            self.parent, "Save Markdown", start, "Markdown (*.md)"
        )
        if not path:
            return False
        return self._write_source(Path(path))

    def _write_source(self, path: Path) -> bool:
        view = self.view
        text = view.text()
        try:
            atomic_write_text(
                path, text.replace("\n", view.newline) if view.newline != "\n" else text
            )
        except OSError as exc:
            warn(self.parent, "Cannot save the file", os_error_line(path, exc))
            return False
        view.saved(path, text)
        self._remember(path)
        view.message.emit(f"Saved {path.name}", 3000)
        return True

    def export_translation(self, path: str | Path) -> bool:
        try:
            self.view.review_ctl.export_target(path, newline=self.view.newline)
        except OSError as exc:
            warn(self.parent, "Cannot export the translation", os_error_line(path, exc))
            return False
        self.view.message.emit(f"Translation written to {Path(path).name}", 4000)
        return True

    def export_translation_html(self, path: str | Path) -> bool:
        """The translation alone as an HTML page (the bilingual page is Export Bilingual)."""
        text, key = self.view.review_ctl.target_text(), self.view.review_key()
        lang = "und" if key == "simplify" else key  # (plain language: the source's language)
        try:
            export_translation_html(text, lang, path, title=self.view.name)
        except OSError as exc:
            warn(self.parent, "Cannot export the translation", os_error_line(path, exc))
            return False
        self.view.message.emit(f"Translation written to {Path(path).name} (HTML)", 4000)
        return True

    def export_dialog(self) -> None:
        """Where to write the translation: in a docs project, the layout's target is proposed
        (and written as Save writes it); elsewhere a copy beside the source."""
        if not self._confirm_unfinished(*self.view.review_ctl.model.unfinished()):
            return
        place = self._in_project()
        if place is not None:
            project, source = place
            suggested = project.root / project.target(source, self.view.review_key())
        else:
            suggested = self.view.review_ctl.export_path()
        path = export_path(self.parent, self.view, suggested, "Export translation", EXPORT_KINDS)
        if not path:
            return
        if Path(path).suffix.lower() in (".html", ".htm"):  # the translation alone, as a page
            self.export_translation_html(path)
        elif place is None:
            self.export_translation(path)
        else:
            self.export_in_project(*place, Path(path))

    def _in_project(self) -> tuple[Project, PurePosixPath] | None:
        """The open project and the source's path in it, when the document on show is one of
        its sources and the language on show one of its languages."""
        panel = self._project()
        place = panel.place(self.view.path) if panel is not None else None
        if place is None or self.view.review_key() not in place[0].languages:
            return None
        return place

    def export_in_project(self, project: Project, source: PurePosixPath, chosen: Path) -> bool:
        """The layout's target: written as Save writes it (links rebased, the record kept;
        the source is saved first when it has unsaved edits, for the target is written from
        it). Another path: a copy with its links rebased for that folder, after a warning
        when the layout would read that file as a new source page."""
        lang = self.view.review_key()
        target = project.root / project.target(source, lang)
        chosen = chosen.expanduser().absolute()
        if chosen.resolve() != target.resolve():
            try:
                relative = os.path.relpath(chosen.resolve(), project.root)
                rel = PurePosixPath(Path(relative).as_posix())
            except ValueError:  # another drive: no relative link reaches the project
                return self.export_translation(chosen)
            if not project.reads_as_source(rel):
                return self._export_copy(project, source, lang, chosen, rel)
            answer = self._ask_source_clash(rel, project.target(source, lang))
            if answer == "anyway":
                return self._export_copy(project, source, lang, chosen, rel)
            if answer != "target":
                return False
        panel = self._project()
        if panel is None:
            return False
        if self.view.source.document().isModified():
            if self._ask_save_first() != "save":
                return False
            return self.save()  # in a project, Save writes the target too
        panel.write_target(project.root / source)  # the status bar says how it went
        return True

    def _export_copy(
        self, project: Project, source: PurePosixPath, lang: str, chosen: Path, rel: PurePosixPath
    ) -> bool:
        # written as the target is (fastdesk.project.sync.copy_text), links for its folder
        text = copy_text(project, source, lang, self.view.review_ctl.synced(), rel)
        try:
            export_target(text, chosen, newline=self.view.newline)
        except OSError as exc:
            warn(self.parent, "Cannot export the translation", os_error_line(chosen, exc))
            return False
        self.view.message.emit(f"Translation written to {chosen.name} (links for its folder)", 4000)
        return True

    def _ask_source_clash(self, chosen: PurePosixPath, target: PurePosixPath) -> str:
        """'target' (write the layout's target instead), 'anyway' or 'cancel' (tests replace
        this)."""
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            "Export translation",
            f"{chosen} would be read as a new source page of the project, not as a "
            f"translation: its target in this layout is {target}.",
            QMessageBox.StandardButton.NoButton,
            self.parent,
        )
        box.setObjectName("exportSourceClash")
        there = box.addButton(f"Write {target.name} Instead", QMessageBox.ButtonRole.AcceptRole)
        anyway = box.addButton("Export Anyway", QMessageBox.ButtonRole.DestructiveRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(there)
        plain_box(box).exec()
        box.deleteLater()
        clicked = box.clickedButton()
        return "target" if clicked is there else "anyway" if clicked is anyway else "cancel"

    def _ask_save_first(self) -> str:
        """'save' or 'cancel': the target is written from the source as saved (tests replace
        this)."""
        answer = ask(
            self.parent,
            "Export translation",
            f"The target is written from the saved source: save {self.view.name} first?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save,
        )
        return "save" if answer == QMessageBox.StandardButton.Save else "cancel"

    def _confirm_unfinished(self, waiting: int, failed: int, flagged: int) -> bool:
        """True when nothing is unfinished, or the user chose Export Anyway."""
        text = unfinished_text(waiting, failed, flagged)
        if not text:
            return True
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Export translation",
            text,
            QMessageBox.StandardButton.NoButton,
            self.parent,
        )
        box.setObjectName("exportUnfinished")
        box.setInformativeText("They will be exported as they stand.")
        anyway = box.addButton("Export Anyway", QMessageBox.ButtonRole.AcceptRole)
        cancel = box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(cancel)
        box.exec()
        box.deleteLater()
        return box.clickedButton() is anyway

    # ---- unsaved edits -------------------------------------------------------------------------

    def confirm_discard(self) -> bool:
        """True when the current source may be replaced (saved, discarded or unmodified)."""
        if not self.view.source.document().isModified():
            return True
        answer = self._ask_save()
        if answer == "save":
            return self.save()
        return answer == "discard"

    def _ask_save(self) -> str:
        """'save', 'discard' or 'cancel' (tests replace this)."""
        answer = ask(
            self.parent,
            "Unsaved changes",
            f"Save the changes to {self.view.name}?",
            QMessageBox.StandardButton.Save
            | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save,
        )
        return {
            QMessageBox.StandardButton.Save: "save",
            QMessageBox.StandardButton.Discard: "discard",
        }.get(answer, "cancel")

    # ---- changes on disk -----------------------------------------------------------------------

    def _disk_changed(self, text: str) -> None:
        """Another program changed the open file: reload it (asking first when the source has
        unsaved changes); the review is re-aligned block by block."""
        view = self.view
        if render.normalize(text) == view.text():
            return
        name = view.name
        if view.source.document().isModified() and self._ask_reload() != "reload":
            view.message.emit(
                f"{name} changed on disk; your version is kept (saving will replace it)", 8000
            )
            return
        view.reload(text)
        view.message.emit(f"{name} was changed on disk: reloaded, review re-aligned", 6000)

    def _disk_vanished(self, path: str) -> None:
        self.view.source.document().setModified(True)  # closing asks; saving writes it again
        self.view.message.emit(
            f"{Path(path).name} was deleted or moved on disk; save to write it again", 8000
        )

    def _ask_reload(self) -> str:
        """'reload' or 'keep' (tests replace this)."""
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "File changed on disk",
            f"{self.view.name} was changed by another program, and you have unsaved changes.",
            QMessageBox.StandardButton.NoButton,
            self.parent,
        )
        box.setInformativeText(
            "Reload it from disk (your unsaved changes to the source are lost; your review is "
            "re-aligned), or keep your version (saving will replace the file)?"
        )
        reload = box.addButton("Reload", QMessageBox.ButtonRole.DestructiveRole)
        box.addButton("Keep Mine", QMessageBox.ButtonRole.RejectRole)
        plain_box(box).exec()
        return "reload" if box.clickedButton() is reload else "keep"
