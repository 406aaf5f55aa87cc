"""One run per project at a time: ``.fastdesk/run.lock`` at the project root.

Why: two runs on one project pay twice for the same blocks and race on the written record
(``.fastdesk/written.json``): the later save drops what the earlier one wrote. The lock is the
operating system's (``flock``; ``msvcrt.locking`` on Windows), so it goes with the process that
holds it, a crash included; the file only says who holds it, for the message.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

from fastdesk.config.fileio import atomic_write_text, os_error_line
from fastdesk.config.redact import printable
from fastdesk.project.confine import within

__all__ = ["LOCK_PATH", "ProjectBusy", "project_lock"]

LOCK_PATH = Path(".fastdesk") / "run.lock"


class ProjectBusy(Exception):
    """Another run holds the project: one line naming it (exit status 2, nothing sent)."""


def _try_lock(fd: int) -> bool:
    if sys.platform == "win32":  # pragma: no cover - Windows
        import msvcrt

        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _holder(path: Path) -> str:
    """Who holds the lock, as its file says (best effort: it may be half written)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8")[:1000])
        return f"pid {int(data['pid'])} on {printable(str(data['host']), 64)}"
    except (OSError, ValueError, KeyError, TypeError):
        return "another process"


def _ignored(path: Path) -> None:
    """``.fastdesk/.gitignore`` names the lock, so a CI job that commits the record (the
    written record and the sidecars) does not commit the lock file with it."""
    ignore = path.parent / ".gitignore"
    if not ignore.exists() and not ignore.is_symlink():
        atomic_write_text(
            ignore, f"# a run's lock (fastdesk): not part of the record\n{path.name}\n"
        )


@contextlib.contextmanager
def project_lock(root: Path) -> Iterator[None]:
    """Hold the project's run lock for the ``with`` block; ProjectBusy when another run
    holds it. A lock file that would lie outside the project (a symlinked ``.fastdesk``) is
    refused the same way: nothing is written through it."""
    path = root / LOCK_PATH
    if not within(root, path):
        raise ProjectBusy(f"{path}: leads outside the project (a symlink); nothing was run")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _ignored(path)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
    except OSError as exc:
        raise ProjectBusy(os_error_line(path, exc, "the run lock cannot be made")) from None
    try:
        if not _try_lock(fd):
            raise ProjectBusy(
                f"{root}: another fastdesk run is translating this project ({_holder(path)}, "
                f"{path}); try again when it is done"
            )
        me = json.dumps({"pid": os.getpid(), "host": socket.gethostname()})
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            os.lseek(fd, 0, os.SEEK_SET)
            os.write(fd, me.encode("utf-8"))
        yield
    finally:
        os.close(fd)  # releases the lock
