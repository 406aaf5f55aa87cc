"""Translation memory: SQLite in the cache dir, so reopening a document costs zero requests.

Keyed by (block text, mode, language, prompt version, glossary version, house style version)
and model; a lookup
without a model takes the most recently used answer of any model. WAL mode lets the window and
the command line use it at once. Size is bounded: least recently used entries go first.
Empty or failed answers are never stored (the engine only offers complete ones; ``put`` refuses
blank text as a last guard).

The memory is a cache, so it never stops a translation. A broken one (not a database, damaged,
a folder in its place, a schema not ours) is set aside as ``memory.sqlite3.broken-<time>`` and
a fresh one made; one that is locked by another program for LOCK_TIMEOUT_S, read-only or on a
full disk makes the rest of the run go without memory. Either way one warning is logged and
:attr:`Memory.notice` holds the same line for the window's status bar.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import sqlite3
import stat
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from fastdesk.config.fileio import os_reason, set_aside, sqlite_damaged
from fastdesk.config.paths import cache_dir
from fastdesk.translate.events import Flag

log = logging.getLogger(__name__)

DEFAULT_MAX_ENTRIES = 200_000
# The provider (and model) name of answers taken from a file (TMX): they are evicted before any
# answer of the user's own, so importing never costs the user a translation they paid for.
IMPORTED = "tmx"
LOCK_TIMEOUT_S = 10.0  # how long a write waits for another program's lock, once per run
_COLUMNS = ("key", "model", "provider", "answer", "flags", "created", "used")
_T = TypeVar("_T")

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
CREATE TABLE IF NOT EXISTS sources (
    key TEXT PRIMARY KEY,
    text TEXT NOT NULL,
    mode TEXT NOT NULL,
    lang TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    glossary_version TEXT NOT NULL,
    source_lang TEXT NOT NULL,
    style_version TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS reviews (
    key TEXT PRIMARY KEY,
    review TEXT NOT NULL,
    used REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS reviews_used ON reviews(used);
"""
_REMEMBER = (
    "INSERT OR REPLACE INTO sources (key, text, mode, lang, prompt_version, glossary_version,"
    " source_lang, style_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)


def default_path() -> Path:
    """Where the memory lives (the cache dir: deleting it costs only requests)."""
    return cache_dir() / "memory.sqlite3"


@dataclass(frozen=True)
class MemoryKey:
    text: str
    mode: str
    lang: str
    prompt_version: str
    glossary_version: str = ""
    style_version: str = ""  # the house style's digest (translate.style); "" without one

    def digest(self) -> str:
        parts: tuple[str, ...] = (
            self.mode,
            self.lang,
            self.prompt_version,
            self.glossary_version,
            self.text,
        )
        if self.style_version:  # without a style, the keys of earlier versions still match
            parts += (self.style_version,)
        return hashlib.blake2b("\x1f".join(parts).encode(), digest_size=20).hexdigest()


@dataclass(frozen=True)
class Hit:
    answer: str
    provider: str
    model: str
    flags: tuple[Flag, ...]


class _Broken(Exception):
    """The file is not a usable memory: set it aside and start a new one."""


class _Unavailable(Exception):
    """The memory cannot be used now (locked, read-only, disk full): go without it."""


def _classify(exc: sqlite3.Error) -> Exception:
    name = getattr(exc, "sqlite_errorname", "") or ""
    if sqlite_damaged(exc):
        return _Broken(f"damaged or not a database: {exc}")
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        return _Unavailable(f"locked by another program for over {LOCK_TIMEOUT_S:g} s")
    if name.startswith("SQLITE_READONLY"):
        return _Unavailable("read-only")
    if name.startswith("SQLITE_FULL"):
        return _Unavailable("the disk is full")
    return _Unavailable(str(exc) or type(exc).__name__)


class Memory:
    """Thread-safe (one connection, one lock); every call is a short transaction.

    Never raises for the state of its file: an unusable memory answers nothing and stores
    nothing (see the module docstring); :attr:`available` says whether it is in use.
    """

    def __init__(self, path: Path | None = None, *, max_entries: int = DEFAULT_MAX_ENTRIES) -> None:
        self.path = path or default_path()
        self.max_entries = max_entries
        self.notice: str | None = None  # the one line the user was told, if any
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._puts = 0
        with self._lock:
            self._start()

    @property
    def available(self) -> bool:
        return self._db is not None

    # ---- opening and failing -------------------------------------------------------------------

    def _start(self) -> None:
        try:
            self._db = self._open()
        except _Broken as exc:
            self._replace(str(exc))
        except _Unavailable as exc:
            self._without(str(exc))

    def _open(self) -> sqlite3.Connection:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise _Unavailable(os_reason(exc)) from None
        else:
            if not stat.S_ISREG(st.st_mode):
                what = "a folder" if stat.S_ISDIR(st.st_mode) else "a special file"
                raise _Broken(f"{what}, not a database")
        try:
            db = sqlite3.connect(self.path, check_same_thread=False, timeout=LOCK_TIMEOUT_S)
        except sqlite3.Error as exc:
            raise _classify(exc) from None
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            columns = tuple(row[1] for row in db.execute("PRAGMA table_info(entries)"))
            if columns and columns != _COLUMNS:
                raise _Broken(f"not a fastdesk memory: its entries are {', '.join(columns)}")
            db.executescript(_SCHEMA)
            sources = {row[1] for row in db.execute("PRAGMA table_info(sources)")}
            if "style_version" not in sources:  # a memory from before house styles
                db.execute("ALTER TABLE sources ADD COLUMN style_version TEXT NOT NULL DEFAULT ''")
            db.commit()
            db.execute("SELECT COUNT(*) FROM entries").fetchone()  # walks an index: cheap
        except sqlite3.Error as exc:
            db.close()
            raise _classify(exc) from None
        except _Broken:
            db.close()
            raise
        return db

    def _replace(self, reason: str) -> None:
        """Set the broken file (and its journal) aside and start a new memory."""
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            self._db = None
        kept = set_aside(self.path)
        if kept is None:
            self._without(f"broken ({reason}) and it could not be moved aside")
            return
        wal = self.path.with_name(self.path.name + "-wal")  # the broken one's journal, kept too
        if wal.exists() and set_aside(wal) is None:
            with contextlib.suppress(OSError):
                wal.unlink()
        with contextlib.suppress(OSError):  # an index SQLite rebuilds
            self.path.with_name(self.path.name + "-shm").unlink()
        try:
            self._db = self._open()
        except (_Broken, _Unavailable) as exc:
            self._without(f"a new one could not be made: {exc}")
            return
        self._tell(
            f"translation memory {self.path} was broken ({reason}); it was kept as {kept.name} "
            "and a new one started"
        )

    def _without(self, reason: str) -> None:
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            self._db = None
        self._tell(
            f"translation memory {self.path} cannot be used ({reason}); "
            "this run goes without memory"
        )

    def _tell(self, message: str) -> None:
        self.notice = message
        log.warning("%s", message)

    def _do(self, work: Callable[[sqlite3.Connection], _T], default: _T) -> _T:
        """Run ``work`` under the lock; a failure stops (or renews) the memory, never raises."""
        with self._lock:
            if self._db is None:
                return default
            try:
                return work(self._db)
            except sqlite3.Error as exc:
                problem = _classify(exc)
                if isinstance(problem, _Broken):
                    self._replace(str(problem))
                else:
                    self._without(str(problem))
                return default

    # ---- use ---------------------------------------------------------------------------------

    def get(self, key: MemoryKey, model: str | None = None) -> Hit | None:
        digest = key.digest()
        sql = "SELECT answer, provider, model, flags FROM entries WHERE key = ?"
        args: tuple[str, ...] = (digest,)
        if model:
            sql += " AND model = ?"
            args += (model,)
        sql += " ORDER BY used DESC LIMIT 1"

        def work(db: sqlite3.Connection) -> Hit | None:
            row = db.execute(sql, args).fetchone()
            if row is None:
                return None
            db.execute(
                "UPDATE entries SET used = ? WHERE key = ? AND model = ?",
                (time.time(), digest, row[2]),
            )
            db.commit()
            return _hit(row)

        return self._do(work, None)

    def put(
        self,
        key: MemoryKey,
        answer: str,
        *,
        provider: str,
        model: str,
        flags: tuple[Flag, ...] = (),
        source_lang: str | None = None,
    ) -> bool:
        """Store a complete answer; returns False (and stores nothing) for a blank one, or when
        the memory is not in use. ``source_lang``: the source's language, recorded with the
        source text (see ``remember``) in the same transaction."""
        if not answer.strip() and key.text.strip():
            return False
        now = time.time()
        payload = json.dumps([{"check": f.check, "detail": f.detail} for f in flags])

        def work(db: sqlite3.Connection) -> bool:
            db.execute(
                "INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?, ?, ?, ?)",
                (key.digest(), model, provider, answer, payload, now, now),
            )
            if source_lang:
                db.execute(_REMEMBER, _source_row(key, source_lang))
            db.commit()
            self._puts += 1
            if self._puts % max(1, min(500, self.max_entries // 10)) == 0:
                self._prune(db)
            return True

        return self._do(work, False)

    def put_all(
        self,
        entries: Iterable[tuple[MemoryKey, str, tuple[Flag, ...], str]],
        *,
        provider: str,
        model: str,
    ) -> int | None:
        """Store every (key, answer, flags, source language) of an import, their source texts
        recorded, and bring the memory back within its limit: one transaction, all or nothing
        (an interruption, Ctrl+C included, or a failure rolls it all back). How many were
        stored; None when the memory is not in use or the transaction failed."""
        now = time.time()

        def work(db: sqlite3.Connection) -> int:
            stored = 0
            try:
                for key, answer, flags, source_lang in entries:
                    if not answer.strip() and key.text.strip():
                        continue
                    payload = json.dumps([{"check": f.check, "detail": f.detail} for f in flags])
                    db.execute(
                        "INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (key.digest(), model, provider, answer, payload, now, now),
                    )
                    db.execute(_REMEMBER, _source_row(key, source_lang))
                    stored += 1
                self._prune(db, commit=False)
                db.commit()
            except BaseException:
                db.rollback()
                raise
            return stored

        return self._do(work, None)

    # ---- reviews (fastdesk.translate.quality): a table of their own, made where it is missing,
    # so a memory from before reviews opens as it is

    def get_review(self, key: str, *, touch: bool = True) -> str | None:
        """The cached review (its JSON) under ``key`` (quality.review_key), or None.
        ``touch=False``: only read (``fastdesk status`` writes nothing)."""

        def work(db: sqlite3.Connection) -> str | None:
            row = db.execute("SELECT review FROM reviews WHERE key = ?", (key,)).fetchone()
            if row is None or not isinstance(row[0], str):
                return None
            if touch:
                db.execute("UPDATE reviews SET used = ? WHERE key = ?", (time.time(), key))
                db.commit()
            return row[0]

        return self._do(work, None)

    def put_review(self, key: str, review: str) -> bool:
        def work(db: sqlite3.Connection) -> bool:
            db.execute(
                "INSERT OR REPLACE INTO reviews VALUES (?, ?, ?)", (key, review, time.time())
            )
            db.commit()
            return True

        return self._do(work, False)

    def forget(self, key: MemoryKey) -> int:
        """Drop every model's answer for this block, so the next run translates it afresh."""

        def work(db: sqlite3.Connection) -> int:
            cur = db.execute("DELETE FROM entries WHERE key = ?", (key.digest(),))
            db.commit()
            return cur.rowcount

        return self._do(work, 0)

    def clear(self) -> bool:
        """Forget everything; False when the memory is not in use (:attr:`notice` says why)."""

        def work(db: sqlite3.Connection) -> bool:
            db.execute("DELETE FROM entries")
            db.execute("DELETE FROM reviews")
            db.commit()
            db.execute("VACUUM")
            return True

        return self._do(work, False)

    def count(self) -> int:
        return self._do(lambda db: int(db.execute("SELECT COUNT(*) FROM entries").fetchone()[0]), 0)

    def prune(self) -> int:
        return self._do(self._prune, 0)

    def _prune(self, db: sqlite3.Connection, *, commit: bool = True) -> int:
        """Evict down to the limit (imported answers first); ``commit=False`` inside a
        caller's transaction."""
        reviews = int(db.execute("SELECT COUNT(*) FROM reviews").fetchone()[0]) - self.max_entries
        if reviews > 0:
            db.execute(
                "DELETE FROM reviews WHERE rowid IN "
                "(SELECT rowid FROM reviews ORDER BY used ASC LIMIT ?)",
                (reviews,),
            )
            if commit:
                db.commit()
        excess = int(db.execute("SELECT COUNT(*) FROM entries").fetchone()[0]) - self.max_entries
        if excess <= 0:
            return 0
        db.execute(
            "DELETE FROM entries WHERE rowid IN "
            "(SELECT rowid FROM entries ORDER BY provider = ? DESC, used ASC LIMIT ?)",
            (IMPORTED, excess),
        )
        if commit:
            db.commit()
        return excess

    def present(self, keys: Iterable[MemoryKey]) -> int:
        """How many of ``keys`` have an answer stored (what an import kept)."""
        digests = list({k.digest() for k in keys})

        def work(db: sqlite3.Connection) -> int:
            found = 0
            for i in range(0, len(digests), 500):
                chunk = digests[i : i + 500]
                marks = ",".join("?" * len(chunk))
                row = db.execute(
                    f"SELECT COUNT(DISTINCT key) FROM entries WHERE key IN ({marks})", chunk
                ).fetchone()
                found += int(row[0])
            return found

        return self._do(work, 0)

    # ---- the source side, for exchange with translation tools (TMX) -------------------------
    # The entries table keys answers by a digest only; what a TMX file needs (the source text
    # and its languages) is kept beside it, for the answers fastdesk was told about.

    def remember(self, keys: Iterable[MemoryKey], source_lang: str) -> None:
        """Record what these keys stand for, so their answers can be exported (TMX)."""
        rows = [_source_row(k, source_lang) for k in keys]

        def work(db: sqlite3.Connection) -> None:
            db.executemany(_REMEMBER, rows)
            db.commit()

        self._do(work, None)

    def translations(self, lang: str | None = None) -> list[tuple[MemoryKey, str, str]]:
        """(key, answer, source language) for every translation whose source is known, the
        most recently used answer per key; only ``lang``'s when given."""
        sql = (
            "SELECT s.text, s.mode, s.lang, s.prompt_version, s.glossary_version, s.source_lang,"
            " e.answer, s.style_version FROM sources s JOIN entries e ON e.key = s.key"
            " WHERE s.mode = 'translate'"
        )
        args: tuple[str, ...] = ()
        if lang:
            sql += " AND lower(s.lang) = lower(?)"
            args = (lang,)
        sql += " ORDER BY s.text, s.lang, e.used DESC"

        Row = tuple[str, str, str, str, str, str, str, str]

        def work(db: sqlite3.Connection) -> list[Row]:
            return db.execute(sql, args).fetchall()

        none: list[Row] = []
        rows = self._do(work, none)
        out: dict[str, tuple[MemoryKey, str, str]] = {}
        for text, mode, tlang, pv, gv, slang, answer, sv in rows:
            key = MemoryKey(text, mode, tlang, pv, gv, sv)
            out.setdefault(key.digest(), (key, answer, slang))
        return list(out.values())

    def unknown_sources(self) -> int:
        """How many stored answers have no recorded source text (not exportable)."""

        def work(db: sqlite3.Connection) -> int:
            row = db.execute(
                "SELECT COUNT(DISTINCT key) FROM entries WHERE key NOT IN (SELECT key FROM sources)"
            ).fetchone()
            return int(row[0])

        return self._do(work, 0)

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                with contextlib.suppress(sqlite3.Error):
                    self._db.close()
                self._db = None


def _source_row(key: MemoryKey, source_lang: str) -> tuple[str, ...]:
    return (
        key.digest(),
        key.text,
        key.mode,
        key.lang,
        key.prompt_version,
        key.glossary_version,
        source_lang,
        key.style_version,
    )


def _hit(row: tuple[object, ...]) -> Hit | None:
    """A stored row as a hit; a row not of our making (wrong types, bad flags) is a miss."""
    answer, provider, model, raw_flags = row
    if not all(isinstance(v, str) for v in (answer, provider, model, raw_flags)):
        return None
    try:
        items = json.loads(str(raw_flags))
        flags = tuple(Flag(str(f["check"]), str(f["detail"])) for f in items if isinstance(f, dict))
    except (ValueError, TypeError, KeyError, RecursionError):
        return None
    return Hit(answer=str(answer), provider=str(provider), model=str(model), flags=flags)
