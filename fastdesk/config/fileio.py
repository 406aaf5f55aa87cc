"""Reading Markdown files strictly and writing any file atomically.

Reading refuses what would be mangled (binary data, text that is not UTF-8, folders) with one
clear sentence; writing goes through a temporary file in the same folder and `os.replace`, so a
reader or a crash never sees half a file. A file the app cannot use (settings, cost totals, a
review sidecar) is renamed aside with :func:`set_aside`, never deleted, so the user can recover it.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from pathlib import Path
from xml.etree import ElementTree

MAX_DOCUMENT_BYTES = 50 * 1024 * 1024


def _umask() -> int:
    """The process umask (read once at import, while nothing else runs)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


_NEW_FILE_MODE = 0o666 & ~_umask()


class DocumentError(Exception):
    """A file that cannot be opened as a Markdown document; str() names the file and the reason."""

    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")


def decode_document(data: bytes, path: str | os.PathLike[str] = "<input>") -> str:
    """Bytes to text, exactly: line endings and a UTF-8 BOM are kept, so saving round-trips."""
    if b"\x00" in data[:65536]:
        raise DocumentError(path, "binary file (contains NUL bytes), not a Markdown document")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise DocumentError(
            path, f"not UTF-8 text (invalid byte 0x{data[exc.start]:02x} on line {line})"
        ) from None


def read_document(path: str | os.PathLike[str]) -> str:
    """Read a Markdown file as UTF-8 text without newline translation."""
    p = Path(path)
    if not p.exists():
        raise DocumentError(path, "no such file")
    if p.is_dir():
        raise DocumentError(path, "is a folder, not a file")
    try:
        size = p.stat().st_size
        if size > MAX_DOCUMENT_BYTES:
            raise DocumentError(
                path,
                f"too large ({size / 1e6:.0f} MB; the limit is {MAX_DOCUMENT_BYTES // 10**6} MB)",
            )
        data = p.read_bytes()
    except PermissionError:
        raise DocumentError(path, "permission denied") from None
    except OSError as exc:
        raise DocumentError(path, exc.strerror or str(exc)) from None
    return decode_document(data, path)


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write `data` to `path` so that `path` holds either the old or the new content, never half."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = _NEW_FILE_MODE  # what open() would give a new file (mkstemp's is 0600)
    with contextlib.suppress(FileNotFoundError):
        mode = target.stat().st_mode & 0o777
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
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


def xml_text(root: ElementTree.Element) -> str:
    """An XML document (XLIFF, TMX) as text: indented between elements only (a segment keeps
    its text), and a carriage return as ``&#13;``: XML readers turn a raw CRLF into LF, and a
    CRLF document's blocks must come back byte for byte (raw CRs occur only in text)."""
    ElementTree.indent(root, space=" ")
    text = ElementTree.tostring(root, encoding="unicode", xml_declaration=True)
    return text.replace("\r", "&#13;") + "\n"
