"""Crash safety: unsaved source and review edits are copied aside every few seconds, and what a
crash left behind is offered back at the next start.

One file per open document under ``data_dir()/autosave/`` (``<key>.json``): the source text, the
review (``Review.to_dict()``, edits of the target included), the document's path, the time and
the writing process. A clean save or close deletes it, so a file found at start-up belongs to
a run of the app that ended badly, unless its process is still running (a second window of the app).
The timer is the window's; :meth:`Autosaver.save` skips the write when nothing changed.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import logging
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastdesk.config.fileio import (
    MAX_DOCUMENT_STATE_BYTES,
    BrokenFile,
    FileError,
    atomic_write_text,
    load_json,
    set_aside,
)
from fastdesk.config.paths import data_dir

__all__ = [
    "AUTOSAVE_VERSION",
    "Autosaver",
    "Recovery",
    "Restored",
    "autosave_dir",
    "autosave_key",
    "discard",
    "pending",
    "restore",
]

log = logging.getLogger("fastdesk.review.autosave")

AUTOSAVE_VERSION = 1
_PREVIEW_CHARS = 120


def autosave_dir() -> Path:
    return data_dir() / "autosave"


def autosave_key(path: str | os.PathLike[str] | None, untitled: int = 1) -> str:
    """A file name for a document: a hash of its absolute path, or ``untitled-<n>``."""
    if path is None:
        return f"untitled-{untitled}"
    absolute = os.path.normcase(os.path.abspath(os.fspath(path)))
    return hashlib.sha256(absolute.encode("utf-8", "surrogatepass")).hexdigest()[:20]


class Autosaver:
    """Keeps one open document's unsaved state on disk; cheap to call on every timer tick."""

    def __init__(
        self,
        key: str,
        *,
        path: str | os.PathLike[str] | None = None,
        directory: str | os.PathLike[str] | None = None,
    ) -> None:
        if not key or "/" in key or "\\" in key or key.startswith("."):
            raise ValueError(f"not a usable autosave key: {key!r}")
        self.key = key
        self.path = Path(path) if path is not None else None  # the document's own path
        self._dir = Path(directory) if directory is not None else None
        self._last: str | None = None  # digest of what the file holds

    @classmethod
    def for_document(cls, path: str | os.PathLike[str] | None, untitled: int = 1) -> Autosaver:
        return cls(autosave_key(path, untitled), path=path)

    @property
    def file(self) -> Path:
        return (self._dir or autosave_dir()) / f"{self.key}.json"

    def save(self, source_text: str, review: Mapping[str, Any] | None = None) -> bool:
        """Write the unsaved state atomically; False (and no write) when it did not change."""
        body = json.dumps(review, ensure_ascii=False, sort_keys=True) if review else "null"
        digest = hashlib.sha256(
            f"{self.path}\0{body}\0".encode("utf-8", "surrogatepass")
            + source_text.encode("utf-8", "surrogatepass")
        ).hexdigest()
        if digest == self._last:
            return False
        payload = {
            "version": AUTOSAVE_VERSION,
            "path": str(self.path) if self.path is not None else None,
            "saved": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "pid": os.getpid(),
            "source": source_text,
            "review": review,
        }
        atomic_write_text(self.file, json.dumps(payload, ensure_ascii=False))
        self._last = digest
        return True

    def discard(self) -> None:
        """The document was saved or closed cleanly: nothing to recover any more."""
        with contextlib.suppress(FileNotFoundError):
            self.file.unlink()
        self._last = None


@dataclass(frozen=True)
class Recovery:
    """An autosave left by a run of the app that did not end cleanly (what start-up offers back)."""

    key: str
    file: Path
    path: Path | None  # the document's path (None: it was untitled)
    saved_at: dt.datetime  # aware, UTC
    preview: str  # the first non-blank line, shortened
    chars: int

    @property
    def label(self) -> str:
        name = self.path.name if self.path else "Untitled document"
        when = self.saved_at.astimezone().strftime("%Y-%m-%d %H:%M")
        return f"{name} (autosaved {when}): {self.preview}"


@dataclass(frozen=True)
class Restored:
    path: Path | None
    source_text: str
    review: dict[str, Any] | None  # Review.from_dict(...) input, or None


def pending(
    directory: str | os.PathLike[str] | None = None, *, include_running: bool = False
) -> list[Recovery]:
    """Autosaves left by crashed runs of the app, newest first. Files of running processes (this
    one, another window) are left out unless ``include_running``; unreadable ones are set aside."""
    folder = Path(directory) if directory is not None else autosave_dir()
    if not folder.is_dir():
        return []
    found = []
    for file in folder.glob("*.json"):
        data = _read(file)
        if data is None:
            continue
        if not include_running and _alive(data.get("pid")):
            continue
        found.append(_recovery(file, data))
    return sorted(found, key=lambda r: r.saved_at, reverse=True)


def restore(recovery: Recovery) -> Restored:
    """What to reopen: the document's path, its unsaved text and its review. The file stays
    until the window's own Autosaver for the document replaces or discards it."""
    data = _read(recovery.file)
    if data is None:
        raise FileNotFoundError(f"{recovery.file} is gone or unreadable")
    path = data.get("path")
    review = data.get("review")
    return Restored(
        Path(path) if isinstance(path, str) else None,
        data["source"],
        review if isinstance(review, dict) else None,
    )


def discard(recovery: Recovery) -> None:
    """The user declined this recovery."""
    with contextlib.suppress(FileNotFoundError):
        recovery.file.unlink()


_MAX_PID = 2**31 - 1  # pid_t: anything larger is not a process this machine ever had


def _read(file: Path) -> dict[str, Any] | None:
    """The autosave's data, checked field by field; one that is not ours is set aside."""
    try:
        data = load_json(file, MAX_DOCUMENT_STATE_BYTES)
    except FileNotFoundError:
        return None
    except BrokenFile as exc:
        _set_aside_not_ours(file, exc.detail)
        return None
    except FileError as exc:
        log.warning("autosave %s is unreadable (%s); left as it is", file.name, exc.reason)
        return None
    problem = _problem(data)
    if problem is not None:
        _set_aside_not_ours(file, problem)
        return None
    return dict(data)


def _set_aside_not_ours(file: Path, problem: str) -> None:
    """An autosave this fastdesk cannot read is set aside (never deleted: it may hold text)."""
    kept = set_aside(file)
    where = f"kept as {kept.name}" if kept else "it could not be moved aside"
    log.warning("autosave %s is not one this fastdesk reads (%s); %s", file.name, problem, where)


def _problem(data: Any) -> str | None:
    """What is wrong with an autosave's fields, or None."""
    if not isinstance(data, dict):
        return "not a JSON object"
    if data.get("version") != AUTOSAVE_VERSION:
        return f"version {data.get('version')!r:.20}"
    if not isinstance(data.get("source"), str):
        return "no source text"
    if not isinstance(data.get("path"), str | None):
        return "a path that is not text"
    if not isinstance(data.get("review"), dict | None):
        return "a review that is not an object"
    if not isinstance(data.get("saved", ""), str):
        return "a time that is not text"
    pid = data.get("pid")
    if isinstance(pid, bool) or not isinstance(pid, int | None):
        return "a process id that is not a number"
    return None  # a number that is no process (0, huge) just means "not running": offered back


def _recovery(file: Path, data: Mapping[str, Any]) -> Recovery:
    saved = _saved_at(file, data.get("saved"))
    source: str = data["source"]
    first = next((line.strip() for line in source.splitlines() if line.strip()), "")
    preview = first if len(first) <= _PREVIEW_CHARS else first[: _PREVIEW_CHARS - 1] + "…"
    path = data.get("path")
    return Recovery(
        key=file.stem,
        file=file,
        path=Path(path) if isinstance(path, str) else None,
        saved_at=saved,
        preview=preview,
        chars=len(source),
    )


def _saved_at(file: Path, value: object) -> dt.datetime:
    """When it was saved (aware); a time that does not parse, or that no local clock can show
    (a crafted year 1 or 9999), is the file's own time."""
    try:
        saved = dt.datetime.fromisoformat(str(value))
        if saved.tzinfo is None:
            saved = saved.replace(tzinfo=dt.UTC)
        saved.astimezone()  # what the label does
        return saved
    except (ValueError, OverflowError, OSError):
        return dt.datetime.fromtimestamp(file.stat().st_mtime, dt.UTC)


def _alive(pid: object) -> bool:
    """Whether the process that wrote an autosave still runs (then it is not a crash's)."""
    if isinstance(pid, bool) or not isinstance(pid, int) or not 0 < pid <= _MAX_PID:
        return False
    if pid == os.getpid():
        return True
    return _process_exists(pid)


# One definition per system, chosen by sys.platform, which the type checker reads too (ctypes.windll
# exists only on Windows).
if sys.platform == "win32":  # pragma: no cover - exercised on Windows only

    def _process_exists(pid: int) -> bool:
        # os.kill on Windows terminates; ask the kernel instead.
        import ctypes

        kernel32 = ctypes.windll.kernel32
        handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
        if not handle:
            return False
        try:
            code = ctypes.c_ulong()
            ok = kernel32.GetExitCodeProcess(handle, ctypes.byref(code))
            return bool(ok) and code.value == 259  # STILL_ACTIVE
        finally:
            kernel32.CloseHandle(handle)

else:

    def _process_exists(pid: int) -> bool:
        try:
            os.kill(pid, 0)  # signal 0: existence check only
        except ProcessLookupError:
            return False
        except PermissionError:
            return True  # exists, owned by someone else
        except (OSError, OverflowError):  # OverflowError: a pid too large for the system's pid_t
            return False
        return True
