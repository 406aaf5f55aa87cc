"""The file commands of a document: new, open (a dialog, a recent file, a dropped one, the
sample), save, save as, export, restoring what a crash left, and reloading what another program
changed on disk. Each asks first when unsaved edits would be lost."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from fastdesk.config.fileio import DocumentError, atomic_write_text, read_document
from fastdesk.config.paths import resource
from fastdesk.review import autosave
from fastdesk.review.model import Review
from fastdesk.ui.bridge import segments as render
from fastdesk.ui.document.view import DocumentView

SAMPLE_NAME = "Sample document"
MARKDOWN_FILTER = "Markdown (*.md *.markdown *.mdown *.mkd *.txt);;All files (*)"


def warn(parent: QWidget, title: str, text: str) -> None:
    """A warning that never blocks its caller (open(), not exec()): open_file() returns."""
    box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Ok, parent)
    box.setObjectName("warningBox")
    box.open()


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
    ``select_review_key(key)`` switches the mode and language to a restored review's."""

    def __init__(
        self,
        view: DocumentView,
        parent: QWidget,
        *,
        remember: Callable[[Path], None],
        select_review_key: Callable[[str], None],
    ) -> None:
        self.view = view
        self.parent = parent
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
            warn(self.parent, "Cannot save the file", f"{path}: {exc.strerror or exc}")
            return False
        view.saved(path, text)
        self._remember(path)
        view.message.emit(f"Saved {path.name}", 3000)
        return True

    def export_translation(self, path: str | Path) -> bool:
        try:
            self.view.review_ctl.export_target(path, newline=self.view.newline)
        except OSError as exc:
            warn(self.parent, "Cannot export the translation", f"{path}: {exc.strerror or exc}")
            return False
        self.view.message.emit(f"Translation written to {Path(path).name}", 4000)
        return True

    def export_dialog(self) -> None:
        if not self._confirm_unfinished(*self.view.review_ctl.model.unfinished()):
            return
        suggested = self.view.review_ctl.export_path()
        path = export_path(
            self.parent, self.view, suggested, "Export translation", "Markdown (*.md)"
        )
        if path:
            self.export_translation(path)

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
        answer = QMessageBox.question(
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
        box.exec()
        return "reload" if box.clickedButton() is reload else "keep"
