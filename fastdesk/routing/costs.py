"""What requests cost: the last one, since start, today (every process), and the daily budget.

Why a file: the budget is per day, not per window, and the window and ``fastdesk translate`` may
spend at the same time. ``data_dir()/costs.json`` keeps one small total per local day::

    {"version": 1, "days": {"2026-07-15": {"usd": 0.0123, "requests": 12, "unknown": 2}}}

``requests`` counts requests with a known cost, ``unknown`` those whose model has no price
(never counted as $0). Every write is a read-modify-write under an exclusive lock on
``costs.json.lock`` (``flock`` / ``msvcrt.locking``), then an atomic replace, so two processes
add up instead of overwriting each other. A broken file is set aside (``costs.json.broken-…``)
and counting starts again; it never stops a translation.

The window records on the GUI thread, which must not wait for a disk flush: with
``background=True`` :meth:`CostLedger.record` only adds to memory and a writer thread persists
(call :meth:`CostLedger.close` at exit). The totals it reports already include unwritten spend.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Literal

from fastdesk.config import paths
from fastdesk.config.fileio import (
    BrokenFile,
    FileError,
    atomic_write_text,
    load_json,
    os_reason,
    set_aside,
)
from fastdesk.providers.base import RequestStats
from fastdesk.routing.pricing import format_cost

__all__ = [
    "COSTS_FILE_NAME",
    "KEEP_DAYS",
    "NEAR_FRACTION",
    "BudgetState",
    "CostLedger",
    "Totals",
    "budget_state",
    "costs_path",
    "counts_as_spend",
    "today_totals",
    "today_usd",
]

log = logging.getLogger(__name__)

COSTS_FILE_NAME = "costs.json"
FILE_VERSION = 1
KEEP_DAYS = 92  # older days are dropped on write: the file stays a few kilobytes
NEAR_FRACTION = 0.8  # "near" the budget from 80 % of it
BudgetState = Literal["ok", "near", "reached"]
Clock = Callable[[], datetime]


@dataclass(frozen=True)
class Totals:
    """Known spend in USD, how many requests it covers, and requests whose cost is unknown."""

    usd: float = 0.0
    requests: int = 0
    unknown: int = 0

    def __add__(self, other: Totals) -> Totals:
        return Totals(
            self.usd + other.usd, self.requests + other.requests, self.unknown + other.unknown
        )

    @property
    def empty(self) -> bool:
        return not (self.requests or self.unknown)

    def text(self) -> str:
        """``$0.0123``, ``$0.0123 + 2 requests of unknown cost``, ``1 request of unknown cost``."""
        if not self.unknown:
            return format_cost(self.usd)
        plural = "request" if self.unknown == 1 else "requests"
        unknown = f"{self.unknown} {plural} of unknown cost"
        return f"{format_cost(self.usd)} + {unknown}" if self.requests else unknown

    def to_json(self) -> dict[str, float | int]:
        return {"usd": self.usd, "requests": self.requests, "unknown": self.unknown}


def _totals(raw: object) -> Totals | None:
    """A day's entry from the file, or None when it is not the expected shape."""
    if not isinstance(raw, Mapping):
        return None
    usd, requests, unknown = raw.get("usd", 0.0), raw.get("requests", 0), raw.get("unknown", 0)
    if isinstance(usd, bool) or not isinstance(usd, int | float) or not usd >= 0:
        return None
    if not all(
        isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in (requests, unknown)
    ):
        return None
    return Totals(float(usd), requests, unknown)


def counts_as_spend(stats: RequestStats) -> bool:
    """Whether a request may have been billed: a known cost, or an answer that began.

    A request refused before any answer (connection refused, 401, 429) is not billed and is not
    counted; an ``ok`` one, or one cut after its first token, with no price is "unknown".
    """
    if stats.cost_usd is not None:
        return True
    return stats.status == "ok" or stats.ttfb_ms is not None or stats.completion_tokens is not None


def budget_state(spent_usd: float, daily_budget: float | None) -> BudgetState:
    """``reached`` at or above the budget, ``near`` from NEAR_FRACTION of it, else ``ok``.

    No budget (None) is always ``ok``; a budget of 0 means "spend nothing" (``reached``).
    """
    if daily_budget is None:
        return "ok"
    if spent_usd >= daily_budget:
        return "reached"
    if spent_usd >= daily_budget * NEAR_FRACTION:
        return "near"
    return "ok"


def costs_path() -> Path:
    """``costs.json`` in the data dir (under FASTDESK_HOME when set)."""
    return paths.data_dir() / COSTS_FILE_NAME


def _day(moment: datetime) -> str:
    return moment.date().isoformat()


def _local_now() -> datetime:
    return datetime.now()


# ---- the file ---------------------------------------------------------------------------------


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``<path>.lock`` (other processes and other ledgers wait)."""
    lock_path = path.with_name(path.name + ".lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "a+b") as fh:
        if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
            import msvcrt

            fh.seek(0)
            while True:
                try:
                    msvcrt.locking(fh.fileno(), msvcrt.LK_LOCK, 1)  # retries for ~10 s
                    break
                except OSError:
                    continue
            try:
                yield
            finally:
                fh.seek(0)
                msvcrt.locking(fh.fileno(), msvcrt.LK_UNLCK, 1)
        else:
            import fcntl

            fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def _read_days(path: Path, *, repair: bool) -> dict[str, Totals]:
    """Every day in the file; a file that is not ours is set aside when ``repair`` (under lock).

    Not ours: not JSON, nested too deeply, or any entry of the wrong shape (the whole file is
    kept aside, not just the bad day dropped: what it held is money the user may want back).
    """
    try:
        return _days(path, load_json(path))
    except FileNotFoundError:
        return {}
    except BrokenFile as exc:
        if repair:
            kept = set_aside(path)
            where = f"kept as {kept.name}" if kept else "it could not be moved aside"
            log.warning(
                "cost totals in %s were broken (%s); counting from zero (%s)",
                path,
                exc.detail,
                where,
            )
        return {}
    except FileError as exc:
        log.warning(
            "cost totals in %s could not be read (%s); counting from zero", path, exc.detail
        )
        return {}


def _days(path: Path, raw: object) -> dict[str, Totals]:
    if not isinstance(raw, dict) or not isinstance(raw.get("days"), dict):
        raise BrokenFile(path, "not a table of days")
    out: dict[str, Totals] = {}
    for day, entry in raw["days"].items():
        totals = _totals(entry)
        try:
            date.fromisoformat(day)
        except ValueError:
            totals = None
        if totals is None:
            raise BrokenFile(path, f"the entry for {day!r:.40} is malformed")
        out[day] = totals
    return out


def _write_days(path: Path, days: Mapping[str, Totals], today: str) -> None:
    oldest = (date.fromisoformat(today) - timedelta(days=KEEP_DAYS)).isoformat()
    kept = {d: t.to_json() for d, t in sorted(days.items()) if d >= oldest}
    atomic_write_text(path, json.dumps({"version": FILE_VERSION, "days": kept}, indent=1) + "\n")


def _add_to_file(path: Path, delta: Mapping[str, Totals], today: str) -> dict[str, Totals]:
    """Add ``delta`` to the file's days under the lock; returns what the file now holds."""
    with _locked(path):
        days = _read_days(path, repair=True)
        for day, extra in delta.items():
            days[day] = days.get(day, Totals()) + extra
        _write_days(path, days, today)
        return days


def today_totals(path: Path | None = None, now: Clock = _local_now) -> Totals:
    """Today's totals as written by every process (a read, no lock: the file is replaced whole)."""
    return _read_days(path or costs_path(), repair=False).get(_day(now()), Totals())


def today_usd(path: Path | None = None) -> float:
    """Today's known spend in USD (what the status bar shows when it has no ledger)."""
    return today_totals(path).usd


# ---- the ledger -------------------------------------------------------------------------------


class CostLedger:
    """Counts what requests cost: last, since start (this object), today (every process).

    ``record(stats)`` for every finished request (``RequestDone.stats``); read ``last``,
    ``since_start``, ``today()`` and ``budget_state(daily_budget)``. Thread-safe.
    """

    def __init__(
        self, path: Path | None = None, *, now: Clock = _local_now, background: bool = False
    ) -> None:
        self.path = path or costs_path()
        self._now = now
        self._lock = threading.Lock()
        self._flush_lock = threading.Lock()  # one read-modify-write at a time per ledger
        self._since_start = Totals()
        self._last: RequestStats | None = None
        self._disk: dict[str, Totals] = {}  # the file as last read or written
        self._pending: dict[str, Totals] = {}  # recorded, not yet handed to the writer
        self._inflight: dict[str, Totals] = {}  # being written right now
        self._writes = 0  # writes started: a read that overlapped one is stale
        self._loaded = False
        self._closed = False
        self._save_failed = False
        self._wake = threading.Event()
        self._idle = threading.Condition(self._lock)
        self._writer: threading.Thread | None = None
        if background:
            self._writer = threading.Thread(
                target=self._write_loop, name="cost-ledger", daemon=True
            )
            self._writer.start()

    # -- recording --------------------------------------------------------------------------

    def record(self, stats: RequestStats) -> Totals:
        """Count one finished request; returns today's totals with it included."""
        if not counts_as_spend(stats):
            return self.today()
        spend = Totals(stats.cost_usd, 1, 0) if stats.cost_usd is not None else Totals(0.0, 0, 1)
        day = _day(self._now())
        with self._lock:
            self._last = stats
            self._since_start = self._since_start + spend
            self._pending[day] = self._pending.get(day, Totals()) + spend
            closed = self._closed
        if self._writer is not None and not closed:
            self._wake.set()
        else:
            self._flush_now()
        return self.today()

    def _flush_now(self) -> None:
        """Write pending spend, one writer at a time (the ledger lock is not held during I/O)."""
        with self._flush_lock:
            with self._lock:
                delta, self._pending = self._pending, {}
                if not delta:
                    return
                self._inflight = delta
                self._writes += 1
            try:
                days = _add_to_file(self.path, delta, _day(self._now()))
            except OSError as exc:
                if not self._save_failed:  # once, not on every request while it lasts
                    log.warning(
                        "cost totals could not be saved to %s (%s); still counting since start",
                        self.path,
                        os_reason(exc),
                    )
                self._save_failed = True
                with self._lock:  # keep them pending: the next write tries again
                    for day, extra in delta.items():
                        self._pending[day] = self._pending.get(day, Totals()) + extra
                    self._inflight = {}
                    self._idle.notify_all()
                return
            self._save_failed = False
            with self._lock:
                self._disk, self._inflight, self._loaded = days, {}, True
                self._idle.notify_all()

    def _write_loop(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            self._flush_now()
            with self._lock:
                if self._closed:
                    return

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until everything recorded so far is written; False on timeout."""
        if self._writer is None or self._closed:
            self._flush_now()
            with self._lock:
                return not self._pending
        self._wake.set()
        with self._lock:
            return self._idle.wait_for(lambda: not self._pending and not self._inflight, timeout)

    def close(self, timeout: float = 5.0) -> None:
        """Write what is pending and stop the writer thread (idempotent; later records are
        written at once)."""
        with self._lock:
            self._closed = True
        if self._writer is not None:
            self._wake.set()
            self._writer.join(timeout)
        self._flush_now()

    # -- reading ----------------------------------------------------------------------------

    @property
    def last(self) -> RequestStats | None:
        """The last request counted (its ``cost_usd`` is None when unknown)."""
        with self._lock:
            return self._last

    @property
    def since_start(self) -> Totals:
        """Everything this ledger counted since it was made."""
        with self._lock:
            return self._since_start

    def refresh(self) -> Totals:
        """Re-read the file (other processes' spend) and return today's totals."""
        with self._lock:
            writes = self._writes
        days = _read_days(self.path, repair=False)
        with self._lock:
            # A write that started meanwhile (or is under way) may be in ``days`` already while
            # it still counts as in flight: keep the writer's own view, it is as fresh.
            if writes == self._writes and not self._inflight:
                self._disk, self._loaded = days, True
        return self._compose()

    def today(self) -> Totals:
        """Today's totals: the file as last seen plus what this ledger has not written yet."""
        return self._compose() if self._loaded else self.refresh()

    def _compose(self) -> Totals:
        day = _day(self._now())
        with self._lock:
            return (
                self._disk.get(day, Totals())
                + self._inflight.get(day, Totals())
                + self._pending.get(day, Totals())
            )

    def budget_state(self, daily_budget: float | None) -> BudgetState:
        """``ok`` / ``near`` / ``reached`` for today's known spend, every process included
        (the file is re-read: ``fastdesk translate`` may have spent meanwhile). Unknown costs
        cannot count; :meth:`budget_notice` mentions them."""
        return budget_state(self.refresh().usd, daily_budget)

    def status_text(self) -> str:
        """``last $0.0000252 · session $0.0012 · today $0.0123 + 2 requests of unknown cost``."""
        last = self.last
        parts = [
            "last " + ("–" if last is None else format_cost(last.cost_usd)),
            "session " + self.since_start.text(),
            "today " + self.today().text(),
        ]
        return " · ".join(parts)

    def budget_notice(self, daily_budget: float | None) -> str:
        """One sentence for the window when the budget is near or reached ("" when ok)."""
        today = self.today()
        state = budget_state(today.usd, daily_budget)
        if state == "ok" or daily_budget is None:
            return ""
        spent = f"{today.text()} spent today of a daily budget of {format_cost(daily_budget)}"
        if state == "near":
            return f"Near the daily budget: {spent}."
        return (
            f"Daily budget reached: {spent}. Live translation is paused; "
            "a manual translation asks first. Change the budget in Settings."
        )
