from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fastdesk.translate.events import Flag
from fastdesk.translate.memory import Memory, MemoryKey


def key(text: str = "Hello", lang: str = "fr") -> MemoryKey:
    return MemoryKey(text, "translate", lang, "1", "")


def test_round_trip_and_key_parts(tmp_path: Path) -> None:
    m = Memory(tmp_path / "m.sqlite3")
    assert m.put(key(), "Bonjour", provider="groq", model="a")
    assert m.get(key()).answer == "Bonjour"
    assert m.get(key(lang="de")) is None
    assert m.get(MemoryKey("Hello", "simplify", "fr", "1", "")) is None
    assert m.get(MemoryKey("Hello", "translate", "fr", "2", "")) is None
    assert m.get(MemoryKey("Hello", "translate", "fr", "1", "g2")) is None
    assert m.get(key(), model="b") is None
    assert m.get(key(), model="a").provider == "groq"


def test_blank_answer_is_never_stored(tmp_path: Path) -> None:
    m = Memory(tmp_path / "m.sqlite3")
    assert not m.put(key(), "  \n", provider="groq", model="a")
    assert m.get(key()) is None and m.count() == 0


def test_flags_survive(tmp_path: Path) -> None:
    m = Memory(tmp_path / "m.sqlite3")
    m.put(key(), "Bonjour", provider="groq", model="a", flags=(Flag("accents", "no accent"),))
    assert m.get(key()).flags == (Flag("accents", "no accent"),)


def test_forget_and_clear(tmp_path: Path) -> None:
    m = Memory(tmp_path / "m.sqlite3")
    m.put(key("a"), "A", provider="groq", model="x")
    m.put(key("a"), "A2", provider="groq", model="y")
    m.put(key("b"), "B", provider="groq", model="x")
    assert m.forget(key("a")) == 2
    assert m.get(key("a")) is None and m.get(key("b")) is not None
    m.clear()
    assert m.count() == 0


def test_size_is_bounded_least_recently_used_first(tmp_path: Path) -> None:
    m = Memory(tmp_path / "m.sqlite3", max_entries=20)
    for i in range(20):
        m.put(key(f"t{i}"), f"r{i}", provider="groq", model="x")
    assert m.get(key("t0")) is not None  # touched: now recently used
    for i in range(20, 30):
        m.put(key(f"t{i}"), f"r{i}", provider="groq", model="x")
    m.prune()
    assert m.count() <= 20
    assert m.get(key("t0")) is not None
    assert m.get(key("t1")) is None


def test_two_connections_share_it_in_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "m.sqlite3"
    app, cli = Memory(path), Memory(path)
    cli.put(key(), "Bonjour", provider="groq", model="a")
    assert app.get(key()).answer == "Bonjour"
    mode = sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_thread_safe_puts(tmp_path: Path) -> None:
    m = Memory(tmp_path / "m.sqlite3")

    def work(n: int) -> None:
        for i in range(50):
            m.put(key(f"{n}-{i}"), "x", provider="p", model="m")

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert m.count() == 200


# ---- a broken, locked or read-only memory never stops a translation -------------------------


def answer_of(m: Memory) -> str | None:
    hit = m.get(key())
    return None if hit is None else hit.answer


def _filled(path: Path, n: int = 400) -> Path:
    m = Memory(path)
    for i in range(n):
        m.put(key(f"paragraph {i} " * 10), "réponse " * 20, provider="groq", model="m")
    m.close()
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # everything in the main file
    db.close()
    return path


def _half(path: Path) -> None:
    _filled(path)
    with path.open("r+b") as fh:
        fh.truncate(path.stat().st_size // 2)


def _garbage(path: Path) -> None:
    path.write_bytes(bytes(range(256)) * 64)


def _folder(path: Path) -> None:
    path.mkdir()
    (path / "inside").write_text("the user's", encoding="utf-8")


def _wrong_schema(path: Path) -> None:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE entries (id INTEGER PRIMARY KEY, text TEXT)")
    db.commit()
    db.close()


@pytest.mark.parametrize("damage", [_half, _garbage, _folder, _wrong_schema])
def test_a_broken_memory_is_set_aside_and_a_fresh_one_made(
    tmp_path: Path, damage: Callable[[Path], None], caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "memory.sqlite3"
    damage(path)
    before = sorted(p.name for p in tmp_path.iterdir())
    m = Memory(path)
    assert m.available
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("memory.sqlite3.broken-")]
    assert len(kept) == 1
    assert m.notice is not None and "was broken" in m.notice and kept[0].name in m.notice
    assert [r.getMessage() for r in caplog.records if r.levelname == "WARNING"] == [m.notice]
    assert m.put(key(), "Bonjour", provider="groq", model="a")
    assert answer_of(m) == "Bonjour"
    m.close()
    assert Memory(path).notice is None  # the next run is clean
    assert "memory.sqlite3" in before


def test_damage_met_while_running_renews_the_memory(tmp_path: Path) -> None:
    """A damaged page may only show when it is read: then too it is set aside, not raised."""
    path = tmp_path / "memory.sqlite3"
    m = Memory(path)

    class Damaged:
        def execute(self, *args: object) -> object:
            error = sqlite3.DatabaseError("database disk image is malformed")
            error.sqlite_errorname = "SQLITE_CORRUPT"
            raise error

        def close(self) -> None:
            pass

    m._db = Damaged()  # type: ignore[assignment]
    assert m.get(key()) is None
    assert m.available and m.notice is not None and "was broken" in m.notice
    assert m.put(key(), "Bonjour", provider="groq", model="a")
    assert answer_of(m) == "Bonjour"


def test_a_memory_locked_by_another_process_means_this_run_without_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import subprocess
    import sys

    from fastdesk.translate import memory as memory_module

    monkeypatch.setattr(memory_module, "LOCK_TIMEOUT_S", 0.3)
    path = _filled(tmp_path / "memory.sqlite3", 5)
    # A lock is waited for by the connection that meets it (its busy timeout); counting the
    # connections opened tells how many waits there can have been, with no stopwatch.
    connections: list[object] = []
    real_connect = sqlite3.connect

    def counting_connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        connections.append(kwargs.get("timeout"))
        return real_connect(*args, **kwargs)

    monkeypatch.setattr("fastdesk.translate.memory.sqlite3.connect", counting_connect)
    content = path.read_bytes()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys, time\n"
            f"db = sqlite3.connect({str(path)!r}, isolation_level=None)\n"
            "db.execute('BEGIN EXCLUSIVE'); print('held', flush=True); time.sleep(30)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        m = Memory(path)
        assert m.put(key("new"), "Nouveau", provider="groq", model="a") is False
        assert not m.available
        assert m.notice is not None and "locked by another program" in m.notice
        assert "this run goes without memory" in m.notice
        assert m.get(key("paragraph 1 " * 10)) is None  # no second wait
        assert m.count() == 0 and m.clear() is False
        # one connection met the lock and waited its timeout, once; it was closed, and no call
        # after it opened another: nothing waited a second time
        assert connections == [0.3] and m._db is None
        m.close()
    finally:
        holder.kill()
        holder.wait()
    assert path.read_bytes() == content  # left as it was, not set aside
    assert not list(tmp_path.glob("*.broken-*"))


def test_a_full_disk_while_storing_means_the_rest_of_the_run_without_memory(
    tmp_path: Path,
) -> None:
    m = Memory(tmp_path / "memory.sqlite3")

    class Full:
        def execute(self, *args: object) -> object:
            error = sqlite3.OperationalError("database or disk is full")
            error.sqlite_errorname = "SQLITE_FULL"
            raise error

        def close(self) -> None:
            pass

    m._db = Full()  # type: ignore[assignment]
    assert m.put(key(), "Bonjour", provider="groq", model="a") is False
    assert not m.available and "the disk is full" in (m.notice or "")
    assert not list(tmp_path.glob("*.broken-*"))


def test_a_read_only_memory_means_this_run_without_it(tmp_path: Path) -> None:
    """Made for real: a child without root's override of file permissions."""
    import subprocess
    import sys

    from tests.hostile import REPO, powerless, read_only

    prefix = powerless()
    path = _filled(tmp_path / "memory.sqlite3", 5)
    script = (
        "from pathlib import Path\n"
        "from fastdesk.translate.memory import Memory, MemoryKey\n"
        f"m = Memory(Path({str(path)!r}))\n"
        "k = MemoryKey('x', 'translate', 'fr', '1', '')\n"
        "print(m.put(k, 'y', provider='p', model='m'), m.available)\n"
        "print(m.notice)\n"
    )
    with read_only(path, tmp_path):
        before = path.read_bytes()
        child = subprocess.run(
            [*prefix, sys.executable, "-c", script],
            capture_output=True,
            text=True,
            cwd=REPO,
            timeout=60,
            check=False,
        )
        assert path.read_bytes() == before
    assert child.returncode == 0, child.stderr
    first, notice = child.stdout.splitlines()
    assert first == "False False"
    assert "cannot be used" in notice and "this run goes without memory" in notice
    assert "Traceback" not in child.stderr
    assert not list(tmp_path.glob("*.broken-*"))


def test_rows_not_of_our_making_are_misses_not_crashes(tmp_path: Path) -> None:
    path = tmp_path / "memory.sqlite3"
    m = Memory(path)
    m.put(key("a"), "A", provider="groq", model="x")
    m.put(key("b"), "B", provider="groq", model="x")
    m.put(key("c"), "C", provider="groq", model="x")
    db = sqlite3.connect(path)
    db.execute("UPDATE entries SET flags = ? WHERE key = ?", ("[" * 5000, key("a").digest()))
    db.execute("UPDATE entries SET flags = '[{\"nope\": 1}]' WHERE key = ?", (key("b").digest(),))
    db.execute("UPDATE entries SET answer = X'00ff' WHERE key = ?", (key("c").digest(),))
    db.commit()
    db.close()
    assert m.get(key("a")) is None and m.get(key("b")) is None and m.get(key("c")) is None
    assert m.available and m.notice is None
