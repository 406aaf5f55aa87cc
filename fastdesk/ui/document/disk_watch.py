"""Noticing that another program changed the open document on disk.

QFileSystemWatcher loses a file that is replaced by a rename (what atomic saves do, ours and
most editors'), so the folder is watched too and the file re-added. Events come in bursts while
a file is written: they are coalesced, then the file is read and compared with what we last
loaded or saved, so that our own saves and a mere touch are not "changes".
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

from fastdesk.config.fileio import DocumentError, read_document
from fastdesk.ui.bridge.segments import normalize

SETTLE_MS = 150


class DiskWatcher(QObject):
    """Watches one file; ``changed(text)`` (as read, line ends untouched) when its content
    differs from what we know."""

    changed = Signal(str)
    vanished = Signal(str)  # the file was deleted or moved away (its path)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.path: Path | None = None
        self._known: str | None = None
        self._gone = False
        self._watcher = QFileSystemWatcher(self)
        self._watcher.fileChanged.connect(self._poke)
        self._watcher.directoryChanged.connect(self._poke)
        self._settle = QTimer(self)
        self._settle.setSingleShot(True)
        self._settle.setInterval(SETTLE_MS)
        self._settle.timeout.connect(self.check)

    def watch(self, path: Path | None, text: str | None) -> None:
        """Follow ``path`` (None: nothing), whose content is ``text`` as we loaded it."""
        watched = self._watcher.files() + self._watcher.directories()
        if watched:
            self._watcher.removePaths(watched)
        self.path = path
        self._known = normalize(text) if text is not None else None
        self._gone = False
        self._settle.stop()
        if path is not None:
            self._add()

    def known(self, text: str) -> None:
        """We wrote ``text`` to the file ourselves (a save)."""
        self._known = normalize(text)
        self._gone = False
        self._add()

    def _add(self) -> None:
        if self.path is None:
            return
        watched = set(self._watcher.files() + self._watcher.directories())
        for item in (self.path, self.path.parent):
            if item.exists() and str(item) not in watched:
                self._watcher.addPath(str(item))

    def _poke(self, _path: str) -> None:
        self._settle.start()

    def check(self) -> None:
        """Read the file and report a change (also called directly by tests)."""
        if self.path is None:
            return
        self._add()  # replaced by a rename: watch the new file
        if not self.path.exists():
            if not self._gone:
                self._gone = True
                self.vanished.emit(str(self.path))
            return
        self._gone = False
        try:
            raw = read_document(self.path)
        except (DocumentError, OSError):
            return  # half written, or unreadable for now: the next event tells
        text = normalize(raw)
        if text != self._known:
            self._known = text
            self.changed.emit(raw)
