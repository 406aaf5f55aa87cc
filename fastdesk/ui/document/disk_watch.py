"""Noticing that another program changed a file on disk: the open document, a project's targets.

QFileSystemWatcher loses a file that is replaced by a rename (what atomic saves do, ours and
most editors'), so each file's folder is watched too and the file re-added. Events come in
bursts while a file is written: they are coalesced (``PathWatch``), then the file is read and
compared with what we last loaded or saved, so that our own saves and a mere touch are not
"changes".
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

from fastdesk.config.fileio import DocumentError, read_document
from fastdesk.ui.panes.render import normalize

SETTLE_MS = 150


class PathWatch(QObject):
    """Files and the folders they are in, watched; ``settled(paths)`` once ``SETTLE_MS`` pass
    with no further event, with the watched paths (files or folders) that had one."""

    settled = Signal(list)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.files: tuple[Path, ...] = ()
        self._poked: set[str] = set()
        self._watcher = QFileSystemWatcher(self)
        self._watcher.fileChanged.connect(self._poke)
        self._watcher.directoryChanged.connect(self._poke)
        self._settle = QTimer(self)
        self._settle.setSingleShot(True)
        self._settle.setInterval(SETTLE_MS)
        self._settle.timeout.connect(self._settled)

    def watch(self, files: Iterable[Path]) -> None:
        """Follow ``files`` (and their folders) instead of what was followed before."""
        watched = self._watcher.files() + self._watcher.directories()
        if watched:
            self._watcher.removePaths(watched)
        self.files = tuple(dict.fromkeys(files))
        self._poked.clear()
        self._settle.stop()
        self.rewatch()

    def rewatch(self) -> None:
        """Watch again what exists now (a file replaced by a rename, a folder made since)."""
        watched = set(self._watcher.files() + self._watcher.directories())
        wanted = dict.fromkeys(p for f in self.files for p in (f, f.parent))
        new = [str(p) for p in wanted if str(p) not in watched and p.exists()]
        if new:
            self._watcher.addPaths(new)

    def _poke(self, path: str) -> None:
        self._poked.add(path)
        self._settle.start()

    def _settled(self) -> None:
        poked, self._poked = sorted(self._poked), set()
        self.settled.emit(poked)


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
        self._paths = PathWatch(self)
        self._paths.settled.connect(lambda _paths: self.check())

    def watch(self, path: Path | None, text: str | None) -> None:
        """Follow ``path`` (None: nothing), whose content is ``text`` as we loaded it."""
        self.path = path
        self._known = normalize(text) if text is not None else None
        self._gone = False
        self._paths.watch([] if path is None else [path])

    def known(self, text: str) -> None:
        """We wrote ``text`` to the file ourselves (a save)."""
        self._known = normalize(text)
        self._gone = False
        self._paths.rewatch()

    def check(self) -> None:
        """Read the file and report a change (also called directly by tests)."""
        if self.path is None:
            return
        self._paths.rewatch()  # replaced by a rename: watch the new file
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
