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
import stat
import tempfile
import time
import tomllib
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
        raise BrokenFile(path, f"too large ({_mb(st.st_size)}; the limit is {_mb(max_bytes)})")


def _stat(path: str | os.PathLike[str], max_bytes: int) -> None:
    """Raise what reading ``path`` would meet, from its metadata alone."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise FileError(path, os_reason(exc)) from None
    except ValueError:  # an embedded NUL byte
        raise BrokenFile(path, "not a valid file name") from None
    _check(path, st, max_bytes)


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
    try:
        _check(path, os.fstat(fd), max_bytes)
        with os.fdopen(os.dup(fd), "rb") as fh:
            data = fh.read(max_bytes + 1)
    except OSError as exc:
        raise FileError(path, os_reason(exc)) from None
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise BrokenFile(path, f"too large (over {_mb(max_bytes)}, the limit)")
    return data


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
    data = read_file_bytes(path, max_bytes)
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
    # the temporary file's name is bounded: a long name (a 248-character page) must not make
    # it longer than the file system allows when the file's own name fits
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name[:120]}.", suffix=".tmp", dir=target.parent)
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
