"""One budget per key, whoever spends it: the limiter's state shared between processes.

Why: the window, a second window and ``fastdesk translate`` on the same key each believed they
had the whole 30 requests a minute, and together met 429s. So every limiter on this computer
writes what it sends (when, how many tokens), what a 429 said (nothing until …) and what the
servers' headers stated (the account's limits, with the day they were read) to one small SQLite
file in the data folder (``limits.sqlite``; SQLite's own locking makes it safe for several
processes), and reads the others' entries before deciding how long to wait.

A row of ``sent`` is one of four kinds, as a server counts them: a request on its way (``at``
its booking), a request the server admitted (``at`` when its answer began, the latest moment
it can have arrived: a server counts a request's minute from its arrival), a request that ended
with no answer begun (``at`` its end: the server may have counted it, or never seen it) or an
answer's tokens (``at`` its end: Groq counts completion tokens as they are generated).

An account is named by a hash of its key (``config.redact.account_id``), never the key
itself. Times in the file are wall-clock seconds (the only clock two processes share); the
limiter converts them to its own monotonic clock. Entries older than a day are dropped. A
file that cannot be opened or written (read-only data folder, a locked disk) costs only the
sharing: each process then keeps its own budget, as before, and says so once in the log. A
file that is not ours to read (damaged, not a database, another schema, or a row of the wrong
type or out of any sense: ``'lots'`` tokens, a time of ``1e300`` or of text) is set aside once
as ``limits.sqlite.broken-<time>`` (said in one line) and a new one started: a state file never
stops a run.
"""

from __future__ import annotations

import contextlib
import datetime
import logging
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from fastdesk.config.fileio import set_aside
from fastdesk.config.redact import account_id

__all__ = [
    "ADMITTED",
    "DAY_S",
    "SENT",
    "TOKENS",
    "UNSURE",
    "Foreign",
    "Key",
    "SharedBudget",
    "account_id",
    "default_path",
]

log = logging.getLogger(__name__)

FILE_NAME = "limits.sqlite"
DAY_S = 86400.0
Key = tuple[str, str, str]  # (account, provider, model)
# the kinds of a row of ``sent`` (see the module docstring)
TOKENS, SENT, ADMITTED, UNSURE = 0, 1, 2, 3

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sent (
    id INTEGER PRIMARY KEY, owner TEXT, account TEXT, provider TEXT, model TEXT,
    at REAL, tokens REAL, kind INTEGER NOT NULL DEFAULT 1);
CREATE INDEX IF NOT EXISTS sent_key ON sent (account, provider, model, at);
CREATE TABLE IF NOT EXISTS blocked (
    owner TEXT, account TEXT, provider TEXT, model TEXT, until REAL, why TEXT,
    PRIMARY KEY (owner, account, provider, model));
CREATE TABLE IF NOT EXISTS learned (
    account TEXT, provider TEXT, model TEXT, field TEXT, value INTEGER, origin TEXT,
    PRIMARY KEY (account, provider, model, field));
CREATE TABLE IF NOT EXISTS retired (
    provider TEXT, model TEXT, replacement TEXT, read TEXT, PRIMARY KEY (provider, model));
"""


_T = TypeVar("_T")
MAX_TOKENS = 1e12  # no request, nor any account's limit, comes near
# errors that say the file cannot be used now (go without sharing), not that it is not ours
# Two processes started together both set the file up (its journal mode, its tables): one
# found it locked, gave sharing up, and both sent a whole minute's requests (seen as ten 429s
# in test_two_processes_released_at_once_never_both_take_the_last_slot, 3 runs in 8). The
# set-up now waits for the other, SETUP_RETRIES × SETUP_PAUSE_S at most (on top of sqlite's
# own busy timeout, which a change of journal mode does not wait on).
SETUP_RETRIES = 40
SETUP_PAUSE_S = 0.05

_TRANSIENT = (
    "SQLITE_BUSY",
    "SQLITE_LOCKED",
    "SQLITE_READONLY",
    "SQLITE_FULL",
    "SQLITE_CANTOPEN",
    "SQLITE_IOERR",
    "SQLITE_PERM",
    "SQLITE_AUTH",
    "SQLITE_NOMEM",
)


class _Unexpected(Exception):
    """A row not of our making: set the file aside and start a new one."""


def _number(value: object, low: float, high: float, what: str) -> float:
    """``value`` as a number within [low, high]; _Unexpected for text, NaN or out of range."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise _Unexpected(f"a {what} of {value!r:.40}")
    return float(value)


def _text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise _Unexpected(f"a {what} of {value!r:.40}")
    return value


def _transient(exc: sqlite3.Error) -> bool:
    return (getattr(exc, "sqlite_errorname", "") or "").startswith(_TRANSIENT)


def default_path() -> Path:
    from fastdesk.config import paths

    return paths.data_dir() / FILE_NAME


@dataclass(frozen=True)
class Foreign:
    """What the other limiters on this key did lately: their rows (wall time, tokens, kind:
    TOKENS, SENT, ADMITTED or UNSURE), the latest "nothing until" one of them met (wall time,
    why), and the account's limits learnt so far (field → (value, origin), as
    :meth:`SharedBudget.learned`), all read at once: a claim that brings in another process's
    429 holds to what it learnt."""

    sent: tuple[tuple[float, float, int], ...] = ()
    blocked_until: float = 0.0
    blocked_why: str = ""
    learned: tuple[tuple[str, int, str], ...] = ()


class SharedBudget:
    """The file every limiter of this computer shares (see the module docstring)."""

    def __init__(
        self,
        path: Path | str,
        *,
        wall: Callable[[], float] = time.time,
        pause: Callable[[float], None] = time.sleep,
    ) -> None:
        """``pause(seconds)``: how the set-up waits for a file another process holds."""
        self.path = path
        self.wall = wall
        self._pause = pause
        self.owner = uuid.uuid4().hex[:12]  # this limiter (pids are reused)
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._broken = False
        self._renewed = False  # a file not ours was set aside by this process already

    @classmethod
    def default(cls) -> SharedBudget:
        return cls(default_path())

    def today(self) -> str:
        return datetime.date.fromtimestamp(self.wall()).isoformat()

    # ---- the file -----------------------------------------------------------------------

    def _conn(self) -> sqlite3.Connection | None:
        if self._db is not None or self._broken:
            return self._db
        busy, renewed = 0, False
        while True:  # a file not ours: set aside once, then a new one; a busy one: waited for
            try:
                if isinstance(self.path, Path):
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                db = sqlite3.connect(
                    str(self.path), timeout=5.0, isolation_level=None, check_same_thread=False
                )
            except (OSError, sqlite3.Error) as exc:
                self._off("rate limits not shared with other windows", exc)
                return None
            try:
                db.execute("PRAGMA journal_mode=WAL")
                db.executescript(_SCHEMA)
                columns = {row[1] for row in db.execute("PRAGMA table_info(sent)")}
                if "kind" not in columns:  # a file of an earlier version: its rows are requests
                    db.execute("ALTER TABLE sent ADD COLUMN kind INTEGER NOT NULL DEFAULT 1")
                db.execute("DELETE FROM sent WHERE at < ?", (self.wall() - DAY_S,))
            except sqlite3.Error as exc:
                db.close()
                if _transient(exc):
                    if busy < SETUP_RETRIES:  # another process sets it up or writes: wait
                        busy += 1
                        self._pause(SETUP_PAUSE_S)
                        continue
                    self._off("rate limits not shared with other windows", exc)
                    return None
                if renewed or not self._renew(str(exc)):
                    return None
                renewed = True
                continue
            self._db = db
            return db

    def _use(self, work: Callable[[sqlite3.Connection], _T], fallback: Callable[[], _T]) -> _T:
        """``work`` on the file under the lock; ``fallback()`` when the file cannot be used
        (sharing is then off, said once). A file or a row not ours is set aside once and
        ``work`` done again on a new file."""
        with self._lock:
            for _attempt in range(2):
                db = self._conn()
                if db is None:
                    break
                try:
                    return work(db)
                except _Unexpected as exc:
                    reason = f"it holds {exc}"
                except sqlite3.Error as exc:
                    if _transient(exc):
                        self._give_up(db, exc)
                        break
                    reason = str(exc)
                self._db = None
                db.close()
                if not self._renew(reason):
                    break
            return fallback()

    def _run(self, sql: str, args: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
        """One statement; [] when the file cannot be used (sharing is then off, said once)."""
        return self._use(lambda db: db.execute(sql, args).fetchall(), list)

    def _renew(self, reason: str) -> bool:
        """Set the file (and its journal) aside as ``<name>.broken-<time>``, said in one line,
        for a new one to be made; once a process (False: sharing goes off instead)."""
        if self._renewed or not isinstance(self.path, Path):
            self._off("rate limits not shared any more", reason)
            return False
        self._renewed = True
        kept = set_aside(self.path)
        if kept is None:
            self._off("rate limits not shared any more", f"{reason}; it could not be moved")
            return False
        wal = self.path.with_name(self.path.name + "-wal")
        if wal.exists() and set_aside(wal) is None:
            with contextlib.suppress(OSError):
                wal.unlink()
        with contextlib.suppress(OSError):  # an index SQLite rebuilds
            self.path.with_name(self.path.name + "-shm").unlink()
        log.warning(
            "%s could not be used (%s); it was kept as %s and a new one started",
            self.path,
            reason,
            kept.name,
        )
        return True

    def _off(self, what: str, why: object) -> None:
        """Sharing off for this process, said once."""
        if not self._broken:
            log.warning("%s (%s: %s)", what, self.path, why)
        self._broken = True
        self._db = None

    def _give_up(self, db: sqlite3.Connection, exc: sqlite3.Error) -> None:
        """The file failed mid-way: sharing is off from now on (said once)."""
        self._off("rate limits not shared any more", exc)
        db.close()

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    # ---- requests and 429s --------------------------------------------------------------

    def book(self, key: Key, at: float, tokens: float) -> int | None:
        """Record a request sent at wall time ``at``; its row id (None: not shared)."""
        rows = self._run(
            "INSERT INTO sent (owner, account, provider, model, at, tokens) "
            "VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
            (self.owner, *key, at, tokens),
        )
        return int(str(rows[0][0])) if rows else None

    def claim(
        self, key: Key, tokens: float, fits: Callable[[Foreign, float], bool]
    ) -> tuple[bool, int | None]:
        """Book a request only if ``fits(the others' entries, wall time now)`` says it may go,
        the reading and the booking in one transaction (``BEGIN IMMEDIATE``: another process's
        claim waits for this one to end), so two limiters on one key never both take the last
        slot of a minute. (may it go, its row id or None: not shared). ``fits`` must not call
        this object (its lock is held)."""

        def work(db: sqlite3.Connection) -> tuple[bool, int | None]:
            db.execute("BEGIN IMMEDIATE")
            try:
                at = self.wall()
                found = self._foreign(db, key, at - DAY_S)
                if not fits(found, at):
                    db.execute("ROLLBACK")
                    return False, None
                row = db.execute(
                    "INSERT INTO sent (owner, account, provider, model, at, tokens) "
                    "VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
                    (self.owner, *key, at, tokens),
                ).fetchall()
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
            return True, int(str(row[0][0]))

        return self._use(work, lambda: (fits(Foreign(), self.wall()), None))

    def admitted(self, row: int, at: float) -> None:
        """The request's answer began at wall time ``at``: the server admitted it by then."""
        self._run("UPDATE sent SET at = ?, kind = ? WHERE id = ?", (at, ADMITTED, row))

    def settle(self, row: int, tokens: float, at: float) -> None:
        """The request ended at wall time ``at``, having used ``tokens``: they count from
        ``at`` in a row of their own, the request itself from when its answer began (or from
        ``at``, UNSURE, if none began) (Limiter.settle)."""

        def work(db: sqlite3.Connection) -> None:
            found = db.execute(
                "UPDATE sent SET tokens = 0, at = CASE WHEN kind = ? THEN ? ELSE at END, "
                "kind = CASE WHEN kind = ? THEN ? ELSE kind END WHERE id = ? "
                "RETURNING owner, account, provider, model",
                (SENT, at, SENT, UNSURE, row),
            ).fetchall()
            if found:
                db.execute(
                    "INSERT INTO sent (owner, account, provider, model, at, tokens, kind) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (*found[0], at, tokens, TOKENS),
                )

        self._use(work, lambda: None)

    def refused(self, row: int) -> None:
        """The server refused the request (a 429): it does not count."""
        self._run("DELETE FROM sent WHERE id = ?", (row,))

    def block(self, key: Key, until: float, why: str) -> None:
        self._run(
            "INSERT OR REPLACE INTO blocked (owner, account, provider, model, until, why) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (self.owner, *key, until, why),
        )

    def foreign(self, key: Key, since: float) -> Foreign:
        """The other limiters' requests since wall time ``since`` and their latest block."""
        return self._use(lambda db: self._foreign(db, key, since), Foreign)

    def _foreign(self, db: sqlite3.Connection, key: Key, since: float) -> Foreign:
        sent = db.execute(
            "SELECT at, tokens, kind FROM sent WHERE account = ? AND provider = ? AND model = ? "
            "AND at > ? AND owner != ? ORDER BY at",
            (*key, since, self.owner),
        ).fetchall()
        blocked = db.execute(
            "SELECT until, why FROM blocked WHERE account = ? AND provider = ? AND model = ? "
            "AND owner != ? ORDER BY until DESC LIMIT 1",
            (*key, self.owner),
        ).fetchall()
        now = self.wall()
        late = now + 2 * DAY_S  # no request is booked in the future, no 429 blocks for days
        until, why = 0.0, ""
        if blocked:
            until = _number(blocked[0][0], 0.0, late, "blocked-until time")
            why = _text(blocked[0][1], "reason")
        return Foreign(
            tuple(
                (
                    _number(a, 0.0, late, "time"),
                    _number(t, 0.0, MAX_TOKENS, "token count"),
                    int(_number(k, TOKENS, UNSURE, "kind")),
                )
                for a, t, k in sent
            ),
            until,
            why,
            tuple((f, v, r) for f, (v, r) in self._learned(db, key).items()),
        )

    # ---- what the servers stated ----------------------------------------------------------

    def learn(self, key: Key, field: str, value: int, origin: str) -> None:
        """The account's limit ``field`` (``tokens_per_minute`` …) and where it came from
        (``origin``: "header 2026-12-02" …; value 0: no such limit, e.g. a paid tier's
        requests/minute). A limit learnt from a 429 is only lowered by another 429 (two
        processes learning at once: the lower count is the server's), and a paid tier's
        headers, which state no requests/minute, do not undo it."""
        self._run(
            "INSERT INTO learned (account, provider, model, field, value, origin) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (account, provider, model, field) DO UPDATE "
            "SET value = excluded.value, origin = excluded.origin WHERE NOT ("
            "learned.origin LIKE '429%' AND learned.value > 0 AND (excluded.origin LIKE 'paid%' "
            "OR (excluded.origin LIKE '429%' AND learned.value <= excluded.value)))",
            (*key, field, value, origin),
        )

    def learned(self, key: Key) -> dict[str, tuple[int, str]]:
        """field → (value, origin)."""
        return self._use(lambda db: self._learned(db, key), dict)

    @staticmethod
    def _learned(db: sqlite3.Connection, key: Key) -> dict[str, tuple[int, str]]:
        sql = (
            "SELECT field, value, origin FROM learned WHERE account = ? AND provider = ? "
            "AND model = ?"
        )
        return {
            _text(f, "field"): (int(_number(v, 0, MAX_TOKENS, "limit")), _text(r, "origin"))
            for f, v, r in db.execute(sql, key).fetchall()
        }

    # ---- models that went away ------------------------------------------------------------

    def retire(self, provider: str, model: str, replacement: str) -> None:
        self._run(
            "INSERT OR REPLACE INTO retired (provider, model, replacement, read) "
            "VALUES (?, ?, ?, ?)",
            (provider, model, replacement, self.today()),
        )

    def retired(self) -> dict[tuple[str, str], tuple[str, str]]:
        """(provider, model) → (replacement, the day it was found retired)."""

        def work(db: sqlite3.Connection) -> dict[tuple[str, str], tuple[str, str]]:
            rows = db.execute("SELECT provider, model, replacement, read FROM retired")
            return {
                (_text(p, "provider"), _text(m, "model")): (_text(r, "model"), _text(d, "day"))
                for p, m, r, d in rows.fetchall()
            }

        return self._use(work, dict)
