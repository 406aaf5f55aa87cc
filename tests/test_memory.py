from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

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
