"""A docs project's target files on disk, watched: a translator editing guide.fr.md in another
editor while the window stays in front is seen without a Save or a click.

The targets and their folders are watched (``PathWatch``, as the open document is); a burst of
events is coalesced, then only the targets under what was touched are looked at, and only those
whose file changed (size, time, inode; appeared or gone) are reported, so that the sidecars and
sources written beside them (suffix layouts) and a mere touch of a folder re-read nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath

from PySide6.QtCore import QObject, Signal

from fastdesk.project.layout import Project
from fastdesk.ui.document.disk_watch import PathWatch

Signature = tuple[int, int, int] | None  # (size, mtime ns, inode); None: no such file
PairKey = tuple[PurePosixPath, str]  # (source, language)


def signature(path: Path) -> Signature:
    """What changes when a file is written or replaced (cheap: one stat)."""
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino)


def signatures(project: Project, pairs: Iterable[PairKey]) -> dict[Path, Signature]:
    """The target files' signatures of ``pairs`` now (taken before they are read)."""
    return {(path := project.root / project.target(s, lang)): signature(path) for s, lang in pairs}


class TargetWatch(QObject):
    """``changed(pairs)``: the (source, language) pairs whose target file changed on disk."""

    changed = Signal(list)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.project: Project | None = None
        self._targets: dict[Path, PairKey] = {}
        self._seen: dict[Path, Signature] = {}
        self._paths = PathWatch(self)
        self._paths.settled.connect(self.check)

    def watch(self, project: Project | None) -> None:
        """Follow ``project``'s targets (None: nothing); what they are now is not a change."""
        self.project = project
        self._targets = {}
        if project is not None:
            self._targets = {
                project.root / project.target(source, lang): (source, lang)
                for source in project.sources()
                for lang in project.languages
            }
        self._seen = {path: signature(path) for path in self._targets}
        self._paths.watch(self._watched())

    def seen(self, found: Mapping[Path, Signature]) -> None:
        """A read took these files as they were (their signatures before it read them)."""
        self._seen.update((p, sig) for p, sig in found.items() if p in self._targets)

    def _watched(self) -> list[Path]:
        """The targets, and for one whose folder does not exist yet (docs/fr/sub/) the nearest
        folder of the project that does, to hear of it being made."""
        if self.project is None:
            return []
        root, out = self.project.root, list(self._targets)
        for folder in {p.parent for p in self._targets}:
            while not folder.exists() and folder != root and root in folder.parents:
                folder = folder.parent
            out.append(folder)
        return out

    def check(self, touched: Iterable[str] = ()) -> None:
        """Report the targets under ``touched`` (files or folders; none: all) that changed."""
        places = [Path(p) for p in touched]
        self._paths.rewatch()  # a file replaced by a rename, a folder made since
        changed: list[PairKey] = []
        for path, pair in self._targets.items():
            if places and not any(p == path or p in path.parents for p in places):
                continue
            now = signature(path)
            if now != self._seen.get(path):
                self._seen[path] = now
                changed.append(pair)
        if changed:
            self.changed.emit(changed)
