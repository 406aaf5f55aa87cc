"""Translation memory: SQLite in the cache dir, so reopening a document costs zero requests.

Keyed by (block text, mode, language, prompt version, glossary version) and model; a lookup
without a model takes the most recently used answer of any model. WAL mode lets the window and
the command line use it at once. Size is bounded: least recently used entries go first.
Empty or failed answers are never stored (the engine only offers complete ones; ``put`` refuses
blank text as a last guard).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from fastdesk.config.paths import cache_dir
from fastdesk.translate.events import Flag

DEFAULT_MAX_ENTRIES = 200_000

_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    key TEXT NOT NULL,
    model TEXT NOT NULL,
    provider TEXT NOT NULL,
    answer TEXT NOT NULL,
    flags TEXT NOT NULL DEFAULT '[]',
    created REAL NOT NULL,
    used REAL NOT NULL,
    PRIMARY KEY (key, model)
);
CREATE INDEX IF NOT EXISTS entries_used ON entries(used);
"""


@dataclass(frozen=True)
class MemoryKey:
    text: str
    mode: str
    lang: str
    prompt_version: str
    glossary_version: str = ""

    def digest(self) -> str:
        parts = (self.mode, self.lang, self.prompt_version, self.glossary_version, self.text)
        return hashlib.blake2b("\x1f".join(parts).encode(), digest_size=20).hexdigest()


@dataclass(frozen=True)
class Hit:
    answer: str
    provider: str
    model: str
    flags: tuple[Flag, ...]


class Memory:
    """Thread-safe (one connection, one lock); every call is a short transaction."""

    def __init__(self, path: Path | None = None, *, max_entries: int = DEFAULT_MAX_ENTRIES) -> None:
        self.path = path or cache_dir() / "memory.sqlite3"
        self.max_entries = max_entries
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=10)
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
            self._db.commit()
        self._puts = 0

    def get(self, key: MemoryKey, model: str | None = None) -> Hit | None:
        digest = key.digest()
        sql = "SELECT answer, provider, model, flags FROM entries WHERE key = ?"
        args: tuple[str, ...] = (digest,)
        if model:
            sql += " AND model = ?"
            args += (model,)
        sql += " ORDER BY used DESC LIMIT 1"
        with self._lock:
            row = self._db.execute(sql, args).fetchone()
            if row is None:
                return None
            self._db.execute(
                "UPDATE entries SET used = ? WHERE key = ? AND model = ?",
                (time.time(), digest, row[2]),
            )
            self._db.commit()
        flags = tuple(Flag(**f) for f in json.loads(row[3]))
        return Hit(answer=row[0], provider=row[1], model=row[2], flags=flags)

    def put(
        self,
        key: MemoryKey,
        answer: str,
        *,
        provider: str,
        model: str,
        flags: tuple[Flag, ...] = (),
    ) -> bool:
        """Store a complete answer; returns False (and stores nothing) for a blank one."""
        if not answer.strip() and key.text.strip():
            return False
        now = time.time()
        payload = json.dumps([{"check": f.check, "detail": f.detail} for f in flags])
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?, ?, ?, ?)",
                (key.digest(), model, provider, answer, payload, now, now),
            )
            self._db.commit()
            self._puts += 1
            if self._puts % max(1, min(500, self.max_entries // 10)) == 0:
                self._prune_locked()
        return True

    def forget(self, key: MemoryKey) -> int:
        """Drop every model's answer for this block, so the next run translates it afresh."""
        with self._lock:
            cur = self._db.execute("DELETE FROM entries WHERE key = ?", (key.digest(),))
            self._db.commit()
            return cur.rowcount

    def clear(self) -> None:
        with self._lock:
            self._db.execute("DELETE FROM entries")
            self._db.commit()
            self._db.execute("VACUUM")

    def count(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM entries").fetchone()[0])

    def prune(self) -> int:
        with self._lock:
            return self._prune_locked()

    def _prune_locked(self) -> int:
        excess = (
            int(self._db.execute("SELECT COUNT(*) FROM entries").fetchone()[0]) - self.max_entries
        )
        if excess <= 0:
            return 0
        self._db.execute(
            "DELETE FROM entries WHERE rowid IN "
            "(SELECT rowid FROM entries ORDER BY used ASC LIMIT ?)",
            (excess,),
        )
        self._db.commit()
        return excess

    def close(self) -> None:
        with self._lock, contextlib.suppress(sqlite3.Error):
            self._db.close()

    # ---- the source side, for exchange with translation tools (TMX) -------------------------
    # The entries table keys answers by a digest only; what a TMX file needs (the source text
    # and its languages) is kept beside it, for the answers fastdesk was told about.

    _SOURCES_SCHEMA = """
    CREATE TABLE IF NOT EXISTS sources (
        key TEXT PRIMARY KEY,
        text TEXT NOT NULL,
        mode TEXT NOT NULL,
        lang TEXT NOT NULL,
        prompt_version TEXT NOT NULL,
        glossary_version TEXT NOT NULL,
        source_lang TEXT NOT NULL
    );
    """

    def remember(self, keys: Iterable[MemoryKey], source_lang: str) -> None:
        """Record what these keys stand for, so their answers can be exported (TMX)."""
        rows = [
            (k.digest(), k.text, k.mode, k.lang, k.prompt_version, k.glossary_version, source_lang)
            for k in keys
        ]
        with self._lock:
            self._db.executescript(self._SOURCES_SCHEMA)
            self._db.executemany(
                "INSERT OR REPLACE INTO sources VALUES (?, ?, ?, ?, ?, ?, ?)", rows
            )
            self._db.commit()

    def translations(self, lang: str | None = None) -> list[tuple[MemoryKey, str, str]]:
        """(key, answer, source language) for every translation whose source is known, the
        most recently used answer per key; only ``lang``'s when given."""
        sql = (
            "SELECT s.text, s.mode, s.lang, s.prompt_version, s.glossary_version, s.source_lang,"
            " e.answer FROM sources s JOIN entries e ON e.key = s.key"
            " WHERE s.mode = 'translate'"
        )
        args: tuple[str, ...] = ()
        if lang:
            sql += " AND lower(s.lang) = lower(?)"
            args = (lang,)
        sql += " ORDER BY s.text, s.lang, e.used DESC"
        with self._lock:
            self._db.executescript(self._SOURCES_SCHEMA)
            rows = self._db.execute(sql, args).fetchall()
        out: dict[str, tuple[MemoryKey, str, str]] = {}
        for text, mode, tlang, pv, gv, slang, answer in rows:
            key = MemoryKey(text, mode, tlang, pv, gv)
            out.setdefault(key.digest(), (key, answer, slang))
        return list(out.values())

    def unknown_sources(self) -> int:
        """How many stored answers have no recorded source text (not exportable)."""
        with self._lock:
            self._db.executescript(self._SOURCES_SCHEMA)
            row = self._db.execute(
                "SELECT COUNT(DISTINCT key) FROM entries WHERE key NOT IN (SELECT key FROM sources)"
            ).fetchone()
        return int(row[0])
