"""State files never stop a run: a limits database holding rows of the wrong type or out of any
sense, or a damaged one, is set aside once (one line) and made afresh, and the next run works
without a word; temporary files a killed run left behind are removed by the next write in that
folder (ours only, and only old ones)."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fastdesk.cli.main import run
from fastdesk.config import fileio
from fastdesk.routing.shared_budget import default_path
from tests.emulator import Emulator
from tests.project_kit import answer_in_language, use_emulator, write


@pytest.fixture
def emu(monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    with Emulator(answer=answer_in_language) as e:
        use_emulator(monkeypatch, e)
        yield e


def poisoned(path: Path, table: str, row: tuple[object, ...]) -> None:
    """A limits file as a run makes it, with one row of someone else's making."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE sent (id INTEGER PRIMARY KEY, owner TEXT, account TEXT, provider TEXT,"
        " model TEXT, at REAL, tokens REAL);"
        "CREATE TABLE blocked (owner TEXT, account TEXT, provider TEXT, model TEXT, until REAL,"
        " why TEXT, PRIMARY KEY (owner, account, provider, model));"
        "CREATE TABLE learned (account TEXT, provider TEXT, model TEXT, field TEXT,"
        " value INTEGER, origin TEXT, PRIMARY KEY (account, provider, model, field));"
        "CREATE TABLE retired (provider TEXT, model TEXT, replacement TEXT, read TEXT,"
        " PRIMARY KEY (provider, model));"
    )
    marks = ",".join("?" * len(row))
    db.execute(f"INSERT INTO {table} VALUES ({marks})", row)
    db.commit()
    db.close()


@pytest.mark.parametrize(
    "value", ["lots", 1e300, "2026-12-02T12:00"], ids=["lots", "1e300", "text-time"]
)
def test_a_limits_row_not_ours_is_set_aside_once_and_the_next_run_says_nothing(
    tmp_path: Path, emu: Emulator, capsys: pytest.CaptureFixture[str], value: object
) -> None:
    doc = write(tmp_path / "doc.md", "# Step one\n\nStep two of the guide.\n")
    out = tmp_path / "out.md"
    args = ["translate", str(doc), "--to", "fr", "-o", str(out), "--no-memory"]
    assert run(args) == 0  # a first run makes the file and books its requests
    capsys.readouterr()
    path = default_path()
    db = sqlite3.connect(path)  # someone else's row, on the run's own key
    ((account, provider, model),) = db.execute(
        "SELECT DISTINCT account, provider, model FROM sent"
    ).fetchall()
    at, tokens = (time.time(), value) if value == "lots" else (value, 10.0)
    db.execute(
        "INSERT INTO sent (owner, account, provider, model, at, tokens) VALUES (?, ?, ?, ?, ?, ?)",
        ("someone", account, provider, model, at, tokens),
    )
    db.commit()
    db.close()
    assert run(args) == 0
    err = capsys.readouterr().err
    said = [line for line in err.splitlines() if "limits.sqlite" in line]
    assert len(said) == 1 and "kept as limits.sqlite.broken-" in said[0], err
    assert "Traceback" not in err
    assert list(path.parent.glob("limits.sqlite.broken-*"))
    assert run(args) == 0  # the new file: no word
    assert "limits.sqlite" not in capsys.readouterr().err


def test_a_damaged_limits_file_is_set_aside_once(
    tmp_path: Path, emu: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    path = default_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"this is not a database, only bytes\x00\x01" * 200)
    doc = write(tmp_path / "doc.md", "Step two of the guide.\n")
    args = ["translate", str(doc), "--to", "fr", "-o", str(tmp_path / "o.md"), "--no-memory"]
    assert run(args) == 0
    err = capsys.readouterr().err
    said = [line for line in err.splitlines() if "limits.sqlite" in line]
    assert len(said) == 1 and "a new one started" in said[0]
    assert run(args) == 0
    assert "limits.sqlite" not in capsys.readouterr().err


def test_a_retired_models_row_of_the_wrong_type_is_set_aside(tmp_path: Path) -> None:
    from fastdesk.routing.shared_budget import SharedBudget

    path = tmp_path / "limits.sqlite"
    poisoned(path, "retired", ("groq", "old", "new", b"\x00\xff"))  # a blob for a day
    shared = SharedBudget(path)
    assert shared.retired() == {}  # read from the new file
    shared.retire("groq", "old", "new")
    assert list(shared.retired()) == [("groq", "old")]
    shared.close()
    assert len(list(tmp_path.glob("limits.sqlite.broken-*"))) == 1


# ---- temporary files of a killed run ------------------------------------------------------


def test_the_next_write_removes_a_killed_runs_old_temporary_files_only(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    old = folder / ".page163.md.x1y2z3ab.tmp"  # what a run killed mid-write left (before 0.x)
    old.write_text("half a page", encoding="utf-8")
    hour_ago = time.time() - 3600
    os.utime(old, (hour_ago, hour_ago))
    dead = folder / ".guide.md.fastdesk-999999999-k2j4h6g8.tmp"  # a killed writer's
    dead.write_text("half", encoding="utf-8")
    minutes_ago = time.time() - 120
    os.utime(dead, (minutes_ago, minutes_ago))
    alive = folder / f".index.md.fastdesk-{os.getppid()}-a1b2c3d4.tmp"  # a live writer's
    alive.write_text("being written", encoding="utf-8")
    os.utime(alive, (minutes_ago, minutes_ago))
    fresh = folder / ".other.md.a1b2c3d4.tmp"  # a writer at work right now
    fresh.write_text("being written", encoding="utf-8")
    theirs = folder / "notes.tmp"  # not our pattern
    theirs.write_text("someone's", encoding="utf-8")
    os.utime(theirs, (hour_ago, hour_ago))
    fileio.atomic_write_text(folder / "page163.fr.md", "# Page\n")
    assert not old.exists() and not dead.exists()
    assert fresh.exists() and theirs.exists() and alive.exists()
    assert (folder / "page163.fr.md").read_text(encoding="utf-8") == "# Page\n"


def test_the_lock_holders_line_shows_a_lock_files_control_characters_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from fastdesk.project.layout import find_project
    from fastdesk.project.lock import project_lock
    from tests.project_kit import make_project

    site = make_project(tmp_path / "site", "mkdocs-suffix")
    with project_lock(find_project(site).root):
        lock = site / ".fastdesk" / "run.lock"
        host = "ci\x1b[2J\x1b[H\nfastdesk: all 2 pages written\u202e"
        with lock.open("r+", encoding="utf-8") as fh:  # the same file: the lock holds
            fh.truncate(0)
            fh.write(json.dumps({"pid": 4242, "host": host}))
        assert run(["translate", str(site)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "\x1b" not in err and "\u202e" not in err
    assert "pid 4242 on ci\\x1b[2J\\x1b[H\\nfastdesk: all 2 pages written\\u202e" in err


def test_a_limits_file_another_process_is_setting_up_is_waited_for_not_given_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two processes started together both set the shared limits file up: the one that finds
    it locked waits for the other (as long as a few seconds) and shares, instead of giving
    sharing up and sending a whole minute's requests of its own."""
    from fastdesk.routing.shared_budget import SharedBudget

    path = tmp_path / "limits.sqlite"
    holder = sqlite3.connect(path, isolation_level=None, timeout=0)
    holder.execute("BEGIN EXCLUSIVE")  # the other process, mid-way through its set-up
    pauses: list[float] = []

    def pause(seconds: float) -> None:  # the other's set-up ends while this one waits
        pauses.append(seconds)
        if holder.in_transaction:
            holder.execute("COMMIT")

    connect = sqlite3.connect

    def quick(*args: Any, **kwargs: Any) -> sqlite3.Connection:  # not sqlite's 5 s busy wait
        return connect(*args, **{**kwargs, "timeout": 0.01})

    monkeypatch.setattr(sqlite3, "connect", quick)
    row = SharedBudget(path, pause=pause).book(("k", "groq", "m"), time.time(), 10.0)
    holder.close()
    assert pauses  # it found the file held, and waited
    assert row is not None  # and shares: the request is in the file the others read
