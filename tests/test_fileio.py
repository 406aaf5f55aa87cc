"""fileio: strict reading (one clear reason per refusal), atomic writes, setting a file aside."""

from __future__ import annotations

import os
import stat
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

    monkeypatch.setattr(fileio.os, failing, fail)
    with pytest.raises(OSError, match="No space left"):
        atomic_write_text(path, "new content")
    monkeypatch.undo()
    assert path.read_bytes() == b"old content"
    assert [p.name for p in tmp_path.iterdir()] == ["out.md"]


# ---- set_aside -------------------------------------------------------------------------------


@pytest.fixture
def frozen_stamp(monkeypatch: pytest.MonkeyPatch) -> str:
    """Every call in the same second: the collision handling is what is tested."""
    monkeypatch.setattr(fileio.time, "strftime", lambda fmt, *_: "20260102-030405")
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
