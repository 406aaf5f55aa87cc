"""fileio: strict reading (one clear reason per refusal), atomic writes, setting a file aside."""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from fastdesk.config import fileio
from fastdesk.config.fileio import (
    DocumentError,
    atomic_write_bytes,
    atomic_write_text,
    read_document,
    set_aside,
)

# ---- read_document ---------------------------------------------------------------------------


def test_reads_exactly_what_is_on_disk(tmp_path: Path) -> None:
    """A BOM and CRLF line endings survive, so saving what was read round-trips byte for byte."""
    path = tmp_path / "a.md"
    path.write_bytes("\ufeff# Titre\r\n\r\nÉté.\r\n".encode())
    assert read_document(path) == "\ufeff# Titre\r\n\r\nÉté.\r\n"


def test_binary_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "image.md"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(DocumentError) as info:
        read_document(path)
    assert info.value.path == str(path)
    assert "binary file" in info.value.reason
    assert str(info.value).startswith(f"{path}: ")


def test_text_that_is_not_utf8_names_the_byte_and_the_line(tmp_path: Path) -> None:
    path = tmp_path / "latin1.md"
    path.write_bytes("# Title\n\nfine\ncaf\u00e9\n".encode("latin-1"))
    with pytest.raises(DocumentError) as info:
        read_document(path)
    assert info.value.reason == "not UTF-8 text (invalid byte 0xe9 on line 4)"


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(DocumentError) as info:
        read_document(tmp_path / "nowhere.md")
    assert info.value.reason == "no such file"


def test_folder(tmp_path: Path) -> None:
    with pytest.raises(DocumentError) as info:
        read_document(tmp_path)
    assert info.value.reason == "is a folder, not a file"


def test_too_large_is_refused_before_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fileio, "MAX_DOCUMENT_BYTES", 2_000_000)
    path = tmp_path / "big.md"
    with path.open("wb") as fh:  # sparse: 3 MB on paper, nothing written
        fh.truncate(3_000_000)
    with pytest.raises(DocumentError) as info:
        read_document(path)
    assert info.value.reason == "too large (3 MB; the limit is 2 MB)"


# ---- atomic writes ---------------------------------------------------------------------------


def test_atomic_write_replaces_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "out.md"
    atomic_write_text(path, "one\r\n")
    atomic_write_text(path, "deux\n")
    assert path.read_bytes() == b"deux\n"
    assert [p.name for p in path.parent.iterdir()] == ["out.md"]


def test_atomic_write_keeps_the_file_mode(tmp_path: Path) -> None:
    path = tmp_path / "script.sh"
    path.write_bytes(b"old")
    path.chmod(0o751)
    atomic_write_bytes(path, b"new")
    assert path.read_bytes() == b"new"
    assert stat.S_IMODE(path.stat().st_mode) == 0o751


@pytest.mark.parametrize("failing", ["fsync", "replace"])
def test_a_failed_write_keeps_the_old_content_and_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    path = tmp_path / "out.md"
    path.write_bytes(b"old content")

    def fail(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(f"fastdesk.config.fileio.os.{failing}", fail)
    with pytest.raises(OSError, match="No space left"):
        atomic_write_text(path, "new content")
    monkeypatch.undo()
    assert path.read_bytes() == b"old content"
    assert [p.name for p in tmp_path.iterdir()] == ["out.md"]


# ---- set_aside -------------------------------------------------------------------------------


@pytest.fixture
def frozen_stamp(monkeypatch: pytest.MonkeyPatch) -> str:
    """Every call in the same second: the collision handling is what is tested."""
    monkeypatch.setattr("fastdesk.config.fileio.time.strftime", lambda fmt, *_: "20260102-030405")
    return "20260102-030405"


def test_set_aside_renames_and_keeps_the_content(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    path.write_bytes(b"not = [toml")
    kept = set_aside(path)
    assert kept is not None and kept.parent == tmp_path
    assert kept.name.startswith("settings.toml.broken-")
    assert kept.read_bytes() == b"not = [toml"
    assert not path.exists()


def test_set_aside_never_overwrites_an_earlier_one(tmp_path: Path, frozen_stamp: str) -> None:
    path = tmp_path / "costs.json"
    for content in (b"first", b"second", b"third"):
        path.write_bytes(content)
        set_aside(path)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == {
        f"costs.json.broken-{frozen_stamp}": b"first",
        f"costs.json.broken-{frozen_stamp}-1": b"second",
        f"costs.json.broken-{frozen_stamp}-2": b"third",
    }


def test_set_aside_gives_up_when_every_name_is_taken(tmp_path: Path, frozen_stamp: str) -> None:
    path = tmp_path / "x.json"
    path.write_bytes(b"broken")
    for n in range(100):
        (tmp_path / (f"x.json.broken-{frozen_stamp}" + (f"-{n}" if n else ""))).touch()
    assert set_aside(path) is None
    assert path.read_bytes() == b"broken"


def test_set_aside_of_a_file_that_cannot_be_moved_returns_none(tmp_path: Path) -> None:
    assert set_aside(tmp_path / "gone.json") is None
    assert os.listdir(tmp_path) == []


def test_a_new_file_gets_the_usual_permissions_not_mkstemps_private_ones(tmp_path) -> None:
    import os
    import stat

    from fastdesk.config.fileio import atomic_write_text

    old = os.umask(0o022)
    os.umask(old)
    target = tmp_path / "guide.fr.md"
    atomic_write_text(target, "Bonjour\n")
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~old


# ---- hostile paths: only regular files are read, at once --------------------------------------


def _special(kind: str, tmp_path: Path) -> Path:
    """A special file made on the fly (a .md name, as a user would pass it)."""
    import socket

    path = tmp_path / f"{kind}.md"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero-link":
        path.symlink_to("/dev/zero")
    elif kind == "dev-null":
        path = Path("/dev/null")
    elif kind == "socket":
        path = tmp_path / "s.md"  # AF_UNIX paths are short
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(path))
        sock.close()
    elif kind == "loop":
        path.symlink_to(tmp_path / "loop-b.md")
        (tmp_path / "loop-b.md").symlink_to(path)
    return path


def at_once(call: Callable[[], object], seconds: float = 5.0) -> object:
    """``call()``'s result or exception, failing the test (not hanging it) if it blocks."""
    import threading

    box: dict[str, object] = {}

    def run() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:
            box["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"blocked for over {seconds} s"
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["value"]


@pytest.mark.parametrize(
    ("kind", "reason"),
    [
        ("fifo", "is a named pipe, not a regular file"),
        ("dev-zero-link", "is a device, not a regular file"),
        ("dev-null", "is a device, not a regular file"),
        ("socket", "is a socket, not a regular file"),
        ("loop", "symlink loop"),
    ],
)
def test_special_files_are_refused_at_once_with_their_reason(
    kind: str, reason: str, tmp_path: Path
) -> None:
    """/dev/zero once grew to 11.7 GB in 20 s and a FIFO hung forever: now neither is opened."""
    path = _special(kind, tmp_path)
    with pytest.raises(DocumentError) as info:
        at_once(lambda: read_document(path))
    assert info.value.reason == reason and str(path) in str(info.value)
    assert at_once(lambda: fileio.regular_file_problem(path, 1000)) == reason


def test_a_fifo_slipped_in_after_the_check_does_not_block(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The open file is checked again (fstat) and opened without blocking: no race hangs."""
    fifo = tmp_path / "late.md"
    os.mkfifo(fifo)
    monkeypatch.setattr(fileio, "_stat", lambda path, max_bytes: None)  # the check "passed"
    with pytest.raises(fileio.FileError, match="named pipe"):
        at_once(lambda: fileio.read_file_bytes(fifo, 1000))


def test_a_file_that_grows_past_the_limit_while_read_is_cut_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "growing.md"
    path.write_bytes(b"x" * 5000)
    real_check = fileio._check
    monkeypatch.setattr(fileio, "_stat", lambda path, max_bytes: None)
    monkeypatch.setattr(fileio, "_check", lambda path, st, max_bytes: None)
    with pytest.raises(fileio.BrokenFile, match="too large"):
        fileio.read_file_bytes(path, 1000)
    monkeypatch.setattr(fileio, "_check", real_check)


def test_a_folder_in_the_path_that_cannot_be_searched_is_permission_denied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As root the kernel never refuses, so the refusal itself is simulated (the subprocess
    tests in test_faults.py make the real one without root's override)."""
    import errno

    def refuse(path: object, *args: object, **kwargs: object) -> os.stat_result:
        raise PermissionError(errno.EACCES, "Permission denied", str(path))

    monkeypatch.setattr(os, "stat", refuse)
    with pytest.raises(DocumentError) as info:
        read_document(tmp_path / "locked" / "a.md")
    assert info.value.reason == "permission denied"


def test_regular_file_problem_accepts_a_small_regular_file_and_measures_the_limit(
    tmp_path: Path,
) -> None:
    image = tmp_path / "pic.png"
    image.write_bytes(b"\x89PNG" + b"\x00" * 2000)
    assert fileio.regular_file_problem(image, 4000) is None
    assert fileio.regular_file_problem(image, 1000) == "too large (2 kB; the limit is 1 kB)"
    assert fileio.regular_file_problem(tmp_path / "none.png", 1000) == "no such file"
    assert fileio.regular_file_problem(tmp_path, 1000) == "is a folder, not a file"
    assert fileio.regular_file_problem(str(tmp_path) + "/a\x00b", 1000) == "not a valid file name"
    link = tmp_path / "link.png"
    link.symlink_to(image)  # a symlink to a regular file is fine
    assert fileio.regular_file_problem(link, 4000) is None


# ---- state files: bounded nesting -------------------------------------------------------------


@pytest.mark.parametrize(
    ("loader", "text"),
    [
        (fileio.load_json, "[" * 3000 + "]" * 3000),
        (fileio.load_json, '{"a":' * 3000 + "1" + "}" * 3000),
        (fileio.load_json, "[" * 150 + "]" * 150),  # parses, but deeper than any file of ours
        (fileio.load_toml, "a = " + "[" * 3000 + "]" * 3000),
        (fileio.load_toml, "a = " + "{b = " * 3000 + "1" + "}" * 3000),
    ],
)
def test_deeply_nested_state_files_are_broken_not_a_recursion_error(
    tmp_path: Path, loader: object, text: str
) -> None:
    path = tmp_path / "state"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(fileio.BrokenFile) as info:
        loader(path)  # type: ignore[operator]
    assert info.value.reason == f"nested more than {fileio.MAX_NESTING} levels deep"


def test_state_loaders_say_what_and_where(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text('{"a": 1,\n "b": }', encoding="utf-8")
    with pytest.raises(fileio.BrokenFile) as info:
        fileio.load_json(path)
    assert info.value.line == 2 and info.value.reason.startswith("not valid JSON: ")
    assert str(info.value).startswith(f"{path}, line 2: not valid JSON")
    path.write_text('a = 1\nb = "open\n', encoding="utf-8")
    with pytest.raises(fileio.BrokenFile) as info:
        fileio.load_toml(path)
    assert info.value.line == 2 and info.value.reason.startswith("invalid TOML: ")
    path.write_bytes(b'a = "caf\xe9"\n')
    with pytest.raises(fileio.BrokenFile, match="not UTF-8"):
        fileio.load_toml(path)
    assert fileio.load_toml(_write(tmp_path / "bom.toml", b"\xef\xbb\xbfa = 1\n")) == {"a": 1}
    with pytest.raises(FileNotFoundError):
        fileio.load_json(tmp_path / "absent.json")
    with pytest.raises(fileio.FileError, match="is a folder") as folder:
        fileio.load_json(tmp_path)
    assert not isinstance(folder.value, fileio.BrokenFile)  # not ours to move


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


# ---- writable_problem: refused before any work ------------------------------------------------


def test_writable_problem_names_the_file_and_the_reason(tmp_path: Path) -> None:
    afile = _write(tmp_path / "afile", b"x")
    assert fileio.writable_problem(tmp_path / "new" / "deeper" / "out.md") is None
    assert fileio.writable_problem(afile) is None  # replacing a file is fine
    assert fileio.writable_problem(tmp_path) == f"{tmp_path}: is a folder, not a file"
    assert fileio.writable_problem(afile / "out.md") == (
        f"{afile}: is a file, not a folder, so {afile / 'out.md'} cannot be written"
    )
    assert fileio.writable_problem(Path("/dev/null")) == (
        "/dev/null: is a device, not a regular file"
    )
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    assert fileio.writable_problem(loop / "out.md") == (
        f"{loop / 'out.md'}: cannot be written: symlink loop"
    )
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".fastdesk-probe")] == []


def test_writable_problem_reports_a_folder_that_refuses_new_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    def refuse(*args: object, **kwargs: object) -> tuple[int, str]:
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    assert fileio.writable_problem(tmp_path / "out.md") == (
        f"{tmp_path}: cannot write there: read-only file system"
    )
    assert fileio.writable_problem(tmp_path / "sub" / "out.md") == (
        f"{tmp_path}: cannot create {tmp_path / 'sub'}: read-only file system"
    )


def test_an_os_error_is_one_line_naming_the_file_and_the_reason_in_plain_words(
    tmp_path: Path,
) -> None:
    """The window, the command line and the project's lock all say a failed file operation in
    this one shape, with os_reason's words rather than the C library's."""
    import errno

    full = OSError(errno.ENOSPC, "No space left on device")
    path = tmp_path / "a.md"
    assert fileio.os_error_line(path, full) == f"{path}: no space left on the disk"
    denied = PermissionError(errno.EACCES, "Permission denied", str(path))
    line = fileio.os_error_line(path, denied, "not written")
    assert line == f"{path}: not written: permission denied"
    odd = OSError(errno.EIO, "Input/output error")
    assert fileio.os_error_line("x", odd) == "x: input/output error"
