"""Reading files strictly and writing any file atomically.

Reading refuses what would be mangled or never end (binary data, text that is not UTF-8, folders,
devices such as /dev/zero, named pipes, files over a size limit) with one clear sentence, before
reading a byte; state files (settings, statistics, costs, reviews, autosaves) are parsed with
:func:`load_json` / :func:`load_toml`, which also refuse nesting no file of ours has. Writing goes
through a temporary file in the same folder and `os.replace`, so a reader or a crash never sees
half a file. A file the app cannot use (settings, cost totals, a review sidecar) is renamed aside
with :func:`set_aside`, never deleted, so the user can recover it.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import stat
import tempfile
import threading
import time
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar
from xml.etree import ElementTree

MAX_DOCUMENT_BYTES = 50 * 1024 * 1024
# Settings, glossaries, statistics, costs, model lists: kilobytes in practice.
MAX_STATE_BYTES = 16 * 1024 * 1024
# Sidecars and autosaves hold a whole document (and its review) as JSON.
MAX_DOCUMENT_STATE_BYTES = 4 * MAX_DOCUMENT_BYTES
# A file from a translation tool (XLIFF, PO, TMX): a document's worth of units and their
# translations; a larger one would grow a review file past MAX_DOCUMENT_STATE_BYTES, or fill the
# memory with gigabytes, for no translator's work.
MAX_INTERCHANGE_BYTES = 2 * MAX_DOCUMENT_BYTES
# An image the window's preview loads (a photo is a few MB; a crafted link may name anything).
MAX_IMAGE_BYTES = 32 * 1024 * 1024
# No file fastdesk writes nests deeper than a few levels; a crafted one of thousands would
# overflow the parser's stack (RecursionError) or any code walking it.
MAX_NESTING = 100

_V = TypeVar("_V")

_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)  # a named pipe that slipped past the check must not block
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


def _umask() -> int:
    """The process umask (read once at import, while nothing else runs)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


_NEW_FILE_MODE = 0o666 & ~_umask()


class FileError(Exception):
    """A file that could not be read (not a regular file, permissions, I/O); str() names the
    file and the reason.

    Such a file is left where it is: it may be fine once the cause is fixed.
    """

    def __init__(self, path: str | os.PathLike[str], reason: str, line: int | None = None) -> None:
        self.path = str(path)
        self.reason = reason
        self.line = line
        where = self.path if line is None else f"{self.path}, line {line}"
        super().__init__(f"{where}: {reason}")

    @property
    def detail(self) -> str:
        """The reason with its line, for a sentence that names the file itself."""
        return self.reason if self.line is None else f"{self.reason}, line {self.line}"


class BrokenFile(FileError):
    """A file that is there but cannot be used as it is: too large, not UTF-8, not valid JSON or
    TOML, nested too deeply, or (raised by its reader) the wrong shape. A state file in that
    case is set aside; ``line`` is set when the parser knew it."""


class DocumentError(FileError):
    """A file that cannot be opened as a Markdown document; str() names the file and the reason."""


def os_reason(exc: OSError) -> str:
    """The reason an OS call failed, in the command line's words (callers name the file)."""
    reasons = {
        errno.ENOENT: "no such file",
        errno.ELOOP: "symlink loop",
        errno.EACCES: "permission denied",
        errno.EPERM: "permission denied",
        errno.ENOTDIR: "a part of the path is not a folder",
        errno.EISDIR: "is a folder, not a file",
        errno.ENAMETOOLONG: "name too long",
        errno.ENOSPC: "no space left on the disk",
        errno.EROFS: "read-only file system",
        errno.EDQUOT: "disk quota exceeded",
        errno.EFBIG: "file too large for the disk or the process's limit",
    }
    return reasons.get(exc.errno or 0) or (exc.strerror or str(exc)).lower()


def os_error_line(path: str | os.PathLike[str], exc: OSError, doing: str = "") -> str:
    """One line for a file operation that failed, the same in the window, the command line and
    the logs: ``path: reason``, or ``path: doing: reason`` when ``doing`` says what failed
    ("not written"); the reason is :func:`os_reason`'s."""
    return f"{path}: {doing}: {os_reason(exc)}" if doing else f"{path}: {os_reason(exc)}"


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "is a folder, not a file"
    if stat.S_ISFIFO(mode):
        return "is a named pipe, not a regular file"
    if stat.S_ISSOCK(mode):
        return "is a socket, not a regular file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "is a device, not a regular file"
    return "is not a regular file"


def _mb(n: int) -> str:
    return f"{n / 1e6:.0f} MB" if n >= 1e6 else f"{n / 1e3:.0f} kB"


def _check(path: str | os.PathLike[str], st: os.stat_result, max_bytes: int) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise FileError(path, _kind(st.st_mode))
    if st.st_size > max_bytes:
        size, limit = _mb(st.st_size), _mb(max_bytes)
        if size == limit:  # 65,601 bytes against 65,536 are both "66 kB": say the bytes
            size, limit = f"{st.st_size:,} bytes", f"{max_bytes:,} bytes"
        raise BrokenFile(path, f"too large ({size}; the limit is {limit})")


def _metadata(
    path: str | os.PathLike[str],
    look: Callable[[str | os.PathLike[str]], os.stat_result] | None = None,
    name: str | os.PathLike[str] | None = None,
) -> os.stat_result:
    """``look(path)`` (``os.lstat``; none: ``os.stat``); FileError or BrokenFile naming
    ``name`` (else ``path``) for anything but a missing file."""
    try:
        return (look or os.stat)(path)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise FileError(name or path, os_reason(exc)) from None
    except ValueError:  # an embedded NUL byte
        raise BrokenFile(name or path, "not a valid file name") from None


def _stat(path: str | os.PathLike[str], max_bytes: int) -> None:
    """Raise what reading ``path`` would meet, from its metadata alone."""
    _check(path, _metadata(path), max_bytes)


def regular_file_problem(path: str | os.PathLike[str], max_bytes: int) -> str | None:
    """Why ``path`` cannot be read as a regular file of at most ``max_bytes``, or None when it can.

    Only looks (``stat``, following symlinks), never opens: a device, a named pipe or a huge
    file is refused at once instead of blocking or filling memory. The window's preview asks
    this (with MAX_IMAGE_BYTES) before loading an image and shows the reason in its place;
    :func:`read_file_bytes` asks the same of every file it reads.
    """
    try:
        _stat(path, max_bytes)
    except FileNotFoundError:
        return "no such file"
    except FileError as exc:
        return exc.reason
    return None


def read_file_bytes(path: str | os.PathLike[str], max_bytes: int) -> bytes:
    """The bytes of a regular file of at most ``max_bytes``; raises at once for anything else.

    Missing: :class:`FileNotFoundError` (callers use their defaults); too large:
    :class:`BrokenFile`; not a regular file (a folder, a device, a named pipe), no permission or
    an I/O error: :class:`FileError` (left where it is: not ours to move). The type and
    size are checked before opening (opening some devices has effects) and again on the open
    file, and reading stops past the limit (a file that grows meanwhile).
    """
    _stat(path, max_bytes)
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise FileError(path, os_reason(exc)) from None
    return _read_open(path, fd, max_bytes)


def _read_open(
    path: str | os.PathLike[str], fd: int, max_bytes: int, checked: os.stat_result | None = None
) -> bytes:
    """The bytes of the file open as ``fd`` (closed here), checked again on the open file (and
    the same file as ``checked``, when given), reading no more than the limit."""
    try:
        opened = os.fstat(fd)
        if checked is not None and (opened.st_dev, opened.st_ino) != (
            checked.st_dev,
            checked.st_ino,
        ):
            raise Outside(path, "was replaced while it was read: not read")
        _check(path, opened, max_bytes)
        with os.fdopen(os.dup(fd), "rb") as fh:
            data = fh.read(max_bytes + 1)
    except OSError as exc:
        raise FileError(path, os_reason(exc)) from None
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise BrokenFile(path, f"too large (over {_mb(max_bytes)}, the limit)")
    return data


class Outside(FileError):
    """A file that leads outside the folder it must lie in (a symlink out, or one swapped while
    it was opened): not read."""


def read_confined(
    path: str | os.PathLike[str], root: str | os.PathLike[str], max_bytes: int
) -> bytes:
    """The bytes of ``path`` only when it lies inside ``root`` as the disk has it: resolved once,
    symlinks followed, refused (:class:`Outside`) when the file it names is outside ``root``;
    then that resolved file is opened without following a link (``O_NOFOLLOW``) and the opened
    file's identity compared with the one checked, so a link swapped in between is not read
    either. Otherwise as :func:`read_file_bytes` (type and size checked before reading).

    Why: a project's own files (its configuration, house style, glossary, review sidecars) are
    someone else's; one committed as a symlink to ``~/.ssh/id_rsa`` must not be read and sent.
    """
    try:
        real = os.path.realpath(path)
        top = os.path.realpath(root)
    except (OSError, RuntimeError, ValueError):
        raise Outside(path, "cannot be resolved (a symlink loop?): not read") from None
    if not (real == top or real.startswith(top.rstrip(os.sep) + os.sep)):
        where = f"a symlink to {real}" if os.path.islink(path) else real
        raise Outside(path, f"leads outside the project ({where}): not read")
    before = _metadata(real, os.lstat, path)
    if stat.S_ISLNK(before.st_mode):  # swapped for a link since it was resolved
        raise Outside(path, "changed into a symlink while it was read: not read")
    _check(path, before, max_bytes)
    try:
        fd = os.open(real, _OPEN_FLAGS | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        raise
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Outside(path, "changed into a symlink while it was read: not read") from None
        raise FileError(path, os_reason(exc)) from None
    return _read_open(path, fd, max_bytes, before)


def decode_document(data: bytes, path: str | os.PathLike[str] = "<input>") -> str:
    """Bytes to text, exactly: line endings and a UTF-8 BOM are kept, so saving round-trips."""
    if b"\x00" in data[:65536]:
        raise DocumentError(path, "binary file (contains NUL bytes), not a Markdown document")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DocumentError(path, _not_utf8(data, exc)) from None


def _not_utf8(data: bytes, exc: UnicodeDecodeError) -> str:
    line = data[: exc.start].count(b"\n") + 1
    return f"not UTF-8 text (invalid byte 0x{data[exc.start]:02x} on line {line})"


def read_document(path: str | os.PathLike[str]) -> str:
    """Read a Markdown file as UTF-8 text without newline translation (regular files only)."""
    try:
        data = read_file_bytes(path, MAX_DOCUMENT_BYTES)
    except FileNotFoundError:
        raise DocumentError(path, "no such file") from None
    except FileError as exc:
        raise DocumentError(path, exc.reason) from None
    return decode_document(data, path)


# ---- state files -------------------------------------------------------------------------------


def _nested_deeper_than(value: object, limit: int) -> bool:
    """Whether containers nest more than ``limit`` deep (iterative: no recursion to overflow)."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def read_state_text(path: str | os.PathLike[str], max_bytes: int = MAX_STATE_BYTES) -> str:
    """A small file's text (UTF-8, a BOM allowed), read as :func:`read_file_bytes` does."""
    return decode_state_text(read_file_bytes(path, max_bytes), path)


def decode_state_text(data: bytes, path: str | os.PathLike[str]) -> str:
    """A state file's bytes as text (UTF-8, a BOM allowed); BrokenFile naming the line."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        reason = f"not UTF-8 text (invalid byte 0x{data[exc.start]:02x})"
        raise BrokenFile(path, reason, line) from None


def _bounded(value: _V, path: str | os.PathLike[str]) -> _V:
    if _nested_deeper_than(value, MAX_NESTING):
        raise BrokenFile(path, f"nested more than {MAX_NESTING} levels deep")
    return value


def parse_json(text: str, path: str | os.PathLike[str]) -> Any:
    """JSON text to its value; not JSON, or nested deeper than MAX_NESTING: BrokenFile."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise BrokenFile(path, f"nested more than {MAX_NESTING} levels deep") from None
    except json.JSONDecodeError as exc:
        raise BrokenFile(path, f"not valid JSON: {exc.msg}", exc.lineno) from None
    except ValueError as exc:  # e.g. a number too long to convert
        raise BrokenFile(path, f"not valid JSON: {exc}") from None
    return _bounded(value, path)


def parse_toml(text: str, path: str | os.PathLike[str]) -> dict[str, Any]:
    """TOML text to its tables; invalid, or nested deeper than MAX_NESTING: BrokenFile."""
    try:
        value = tomllib.loads(text)
    except RecursionError:
        raise BrokenFile(path, f"nested more than {MAX_NESTING} levels deep") from None
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        line: int | None = None
        head, sep, tail = message.rpartition(" (at line ")
        if sep and tail.endswith(")"):
            with contextlib.suppress(ValueError):
                line = int(tail.split(",", 1)[0])
            message = head
        raise BrokenFile(path, f"invalid TOML: {message}", line) from None
    return _bounded(value, path)


def has_lone_surrogate(value: object) -> bool:
    """Whether any text in a JSON value holds a lone surrogate (``"\\udfff"`` is valid JSON but
    not Unicode text: it cannot be written back as UTF-8)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def load_json(path: str | os.PathLike[str], max_bytes: int = MAX_STATE_BYTES) -> Any:
    """A state file's JSON value, read strictly (see :func:`read_file_bytes` for the errors);
    the caller checks its shape (and raises BrokenFile itself when it is wrong)."""
    return parse_json(read_state_text(path, max_bytes), path)


def load_toml(path: str | os.PathLike[str], max_bytes: int = MAX_STATE_BYTES) -> dict[str, Any]:
    """A TOML file's tables, read strictly (as :func:`load_json`)."""
    return parse_toml(read_state_text(path, max_bytes), path)


def _nearest_existing(folder: Path) -> tuple[Path, int] | str:
    """The folder, or its nearest ancestor that exists, with its mode; or why it cannot be
    looked at."""
    for existing in (folder, *folder.parents):
        try:
            return existing, os.stat(existing).st_mode
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError as exc:
            return os_error_line(existing, exc, "cannot write there")
    return f"{folder}: no folder of its path exists"


def writable_problem(path: str | os.PathLike[str]) -> str | None:
    """Why :func:`atomic_write_bytes` could not write ``path``, or None: a folder or a device in
    its place, a file where a folder must be, a folder that refuses new files. One line naming
    the file; asked before work whose result would be lost (a full disk still fails later)."""
    target = Path(path)
    try:
        st = os.stat(target)
    except (FileNotFoundError, NotADirectoryError):
        pass
    except OSError as exc:
        return os_error_line(target, exc, "cannot be written")
    else:
        if stat.S_ISDIR(st.st_mode):
            return f"{target}: is a folder, not a file"
        if not stat.S_ISREG(st.st_mode):  # os.replace would put a file in a device's place
            return f"{target}: {_kind(st.st_mode)}"
    folder = Path(os.path.abspath(target)).parent
    found = _nearest_existing(folder)
    if isinstance(found, str):
        return found
    existing, mode = found
    if not stat.S_ISDIR(mode):
        return f"{existing}: is a file, not a folder, so {target} cannot be written"
    try:  # the only test that holds for every cause (read-only mounts, ACLs, root or not)
        fd, probe = tempfile.mkstemp(prefix=".fastdesk-probe-", dir=existing)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        verb = "cannot write there" if existing == folder else f"cannot create {folder}"
        return os_error_line(existing, exc, verb)
    return None


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write `data` to `path` so that `path` holds either the old or the new content, never half."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = _NEW_FILE_MODE  # what open() would give a new file (mkstemp's is 0600)
    with contextlib.suppress(FileNotFoundError):
        mode = target.stat().st_mode & 0o777
    _sweep(target.parent)
    # the temporary file's name is bounded: a long name (a 248-character page) must not make
    # it longer than the file system allows when the file's own name fits; it names this
    # process, so that the next run can tell a killed writer's leftover from a live one's
    fd, tmp = tempfile.mkstemp(
        prefix=f".{target.name[:120]}.{_TEMP_MARK}{os.getpid()}-", suffix=".tmp", dir=target.parent
    )
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _fsync_folder(target.parent)


_TEMP_MARK = "fastdesk-"
# what atomic_write_bytes leaves behind when killed mid-write: ours (with the writer's pid), and
# the names of versions before the pid was in them (mkstemp's 8 random characters)
_OUR_TEMP = re.compile(r"^\..+\.(?:fastdesk-(?P<pid>\d+)-)?[a-z0-9_]{8}\.tmp$")
STALE_TEMP_S = 15 * 60  # no write takes this long: older is a killed run's, whoever it was
DEAD_WRITER_S = 60  # a writer of this computer that is gone, and not a moment ago
_swept: set[str] = set()  # the folders this process has swept already (once each)
_swept_lock = threading.Lock()


def _sweep(folder: Path) -> None:
    """Remove the temporary files a killed run left in ``folder`` (ours only: our name
    pattern, and old, or of a writer no longer running); once a folder per process, best
    effort. Why: a ``kill -9`` between the write and the rename left ``.page.md.XXXX.tmp``
    beside the targets for ever."""
    key = os.path.abspath(folder)
    with _swept_lock:
        if key in _swept:
            return
        _swept.add(key)
    try:
        names = os.listdir(folder)
    except OSError:
        return
    now = time.time()
    for name in names:
        found = _OUR_TEMP.match(name)
        if found is None:
            continue
        path = os.path.join(folder, name)
        with contextlib.suppress(OSError):
            st = os.lstat(path)
            if not stat.S_ISREG(st.st_mode):
                continue
            age = now - st.st_mtime
            pid = int(found["pid"]) if found["pid"] else None
            gone = pid is not None and pid != os.getpid() and not _running(pid)
            if age > STALE_TEMP_S or (gone and age > DEAD_WRITER_S):
                os.unlink(path)


def _running(pid: int) -> bool:
    """Whether a process ``pid`` runs on this computer (one we may not signal does)."""
    if os.name == "nt":  # pragma: no cover - os.kill would end it there: the age decides
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True
    return True


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable (the cost ledger is money); best effort, POSIX only."""
    if os.name == "nt":  # pragma: no cover - Windows cannot open a folder for fsync
        return
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """UTF-8, newlines exactly as in `text`."""
    atomic_write_bytes(path, text.encode("utf-8"))


def set_aside(path: Path) -> Path | None:
    """Rename a file we cannot use to ``<name>.broken-<timestamp>`` (never over another one).

    Keeping it rather than deleting it lets the user recover what they had. Returns the new path,
    or None when it could not be moved (the caller says so and carries on).
    """
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for n in range(100):
        target = path.with_name(f"{path.name}.broken-{stamp}" + (f"-{n}" if n else ""))
        if not target.exists():
            try:
                os.replace(path, target)
            except OSError:
                return None
            return target
    return None


def sqlite_damaged(exc: BaseException) -> bool:
    """Whether an SQLite error says the file is damaged or not a database (to be set aside
    and made afresh), not that it is busy, read-only or on a full disk (to go without)."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    return name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB"))


def read_xml(path: str | os.PathLike[str], max_bytes: int) -> ElementTree.Element:
    """The root of an XML file read as :func:`read_file_bytes` reads (a regular file of at most
    ``max_bytes``: a named pipe or a device refused before reading); FileError (whose message
    names the file) for a file that cannot be read or is not XML."""
    try:
        return ElementTree.fromstring(read_file_bytes(path, max_bytes))
    except FileNotFoundError:
        raise FileError(path, "no such file") from None
    except ElementTree.ParseError as exc:
        raise BrokenFile(path, f"not readable XML ({exc})") from None


def xml_text(root: ElementTree.Element) -> str:
    """An XML document (XLIFF, TMX) as text: indented between elements only (a segment keeps
    its text), and a carriage return as ``&#13;``: XML readers turn a raw CRLF into LF, and a
    CRLF document's blocks must come back byte for byte (raw CRs occur only in text)."""
    ElementTree.indent(root, space=" ")
    text = ElementTree.tostring(root, encoding="unicode", xml_declaration=True)
    return text.replace("\r", "&#13;") + "\n"
