"""Measured speed of every (provider, model): sliding windows of time to first token and tokens/s.

The router predicts a request's completion time from these windows (see docs/routing.md) and they
survive restarts in ``data_dir()/router-stats.json`` so the first request after a start already goes
to the right place. Samples are raw wall-clock measurements as the user experiences them: time to
first token is not divided by prompt size, because for a live edit the wait is the wait.

An estimate looks at a choice's most recent few samples and takes the lower third of them for
time to first token (the upper third for tokens/s): a delay is what noise adds, so one slow
sample (a process's first request on a new connection, a busy moment) does not move it, while
three slow answers in a row of five do. Samples age by *requests*, not by seconds: a sample taken
more than ``FRESH_SAMPLES`` requests (of any choice) before its choice's newest one no longer
counts. A choice that is only probed now and then (because another one was faster) is therefore
judged by its probe, not by old samples that one fresh result could never move, whether the runs
are minutes or seconds apart; so routing follows two providers whose speeds swap. The 90th
percentile, used for hedging, uses the whole window.

Each sample also carries the process start it was taken in (``started``: each store is one
process's), so ``fastdesk bench --stats`` can show what each run measured, and the router probes
every other choice once a process start (fastdesk.routing.router).

Sample times are wall-clock readings of the one clock (fastdesk.clock): they are written to the
file and compared, on the next start, with that run's clock.
"""

from __future__ import annotations

import json
import logging
import math
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from fastdesk.clock import Clock, SystemClock
from fastdesk.config.fileio import (
    BrokenFile,
    FileError,
    atomic_write_text,
    load_json,
    os_reason,
    set_aside,
)

log = logging.getLogger(__name__)

FORMAT_VERSION = 1
STATS_FILE = "router-stats.json"
WINDOW = 20  # samples kept per series
RECENT = 5  # samples an estimate looks at
# samples taken more than this many requests (of every choice) before their choice's newest one
# are stale; below WINDOW, so that the windows kept in the file still tell it after a restart
FRESH_SAMPLES = 16
MAX_AGE_S = 3 * 24 * 3600.0  # older samples are dropped on load: networks and providers change
# an old file's count of lost packs that meant "one block per request" (before ``max_pack``)
LOST_MARKERS_LIMIT = 3
PACK_SHRINK = 4  # a lost pack of n ≥ 16 blocks caps the model's packs at n // 4

Pair = tuple[str, str]


def pair_key(pair: Pair) -> str:
    """``provider/model`` (model ids may contain slashes; the provider name never does)."""
    return f"{pair[0]}/{pair[1]}"


def parse_pair_key(key: str) -> Pair | None:
    provider, sep, model = key.partition("/")
    return (provider, model) if sep and provider and model else None


def median(values: Iterable[float]) -> float | None:
    data = sorted(values)
    if not data:
        return None
    mid = len(data) // 2
    return data[mid] if len(data) % 2 else (data[mid - 1] + data[mid]) / 2


def percentile(values: Iterable[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0..100): always one of the measured values."""
    data = sorted(values)
    if not data:
        return None
    rank = max(1, math.ceil(q / 100 * len(data)))
    return data[min(rank, len(data)) - 1]


class Sample(NamedTuple):
    """One measure: when (wall clock), its value, the store's request number (``seq``: every
    request measured, of any choice, has the next one), the process start it was taken in, and
    whether it was its choice's first there (``cold``: a new connection, a new process)."""

    at: float
    value: float
    seq: int = 0
    started: float = 0.0
    cold: bool = False


@dataclass
class Series:
    """The last ``WINDOW`` samples of one measure."""

    samples: deque[Sample] = field(default_factory=lambda: deque(maxlen=WINDOW))

    def add(self, value: float, at: float, seq: int = 0, started: float = 0.0) -> None:
        cold = all(s.started != started for s in self.samples)
        self.samples.append(Sample(at, value, seq, started, cold))

    def values(self) -> list[float]:
        return [s.value for s in self.samples]

    def fresh(self, n: int = RECENT) -> list[Sample]:
        """The last ``n`` samples, leaving out those gone stale (``FRESH_SAMPLES``) and, when
        others remain, the cold ones (a process's first request to the choice pays for its
        connection: a probe is judged by its second, warm, answer)."""
        last = list(self.samples)[-n:]
        if not last:
            return []
        newest = last[-1].seq
        fresh = [s for s in last if s.seq >= newest - FRESH_SAMPLES]
        return [s for s in fresh if not s.cold] or fresh

    def recent(self, n: int = RECENT, *, higher_is_better: bool = False) -> float | None:
        """The lower third of the fresh samples among the last ``n`` (the upper third when
        ``higher_is_better``): see the module docstring."""
        values = sorted((s.value for s in self.fresh(n)), reverse=higher_is_better)
        return values[(len(values) - 1) // 3] if values else None

    def p(self, q: float) -> float | None:
        return percentile(self.values(), q)

    @property
    def last_at(self) -> float | None:
        return self.samples[-1].at if self.samples else None

    def __len__(self) -> int:
        return len(self.samples)


@dataclass
class ChoiceStats:
    """What was measured for one (provider, model)."""

    ttfb_ms: Series = field(default_factory=Series)
    tokens_per_s: Series = field(default_factory=Series)
    lost_markers: int = 0  # pack answers whose markers could not be mapped back
    # the most blocks a request to this model may carry (0: no cap): a quarter of the
    # smallest pack it could not map back (half of one of 6 to 15 blocks, one block under 6),
    # so a model that merges long packs keeps short ones, and one that ignores the markers
    # reaches one block per request in two or three steps (benchmarks/bench_markers.py)
    max_pack: int = 0

    def lost(self, blocks: int) -> None:
        """A pack of ``blocks`` blocks came back without its markers: shorter packs from now."""
        self.lost_markers += 1
        if blocks >= 4 * PACK_SHRINK:
            cap = blocks // PACK_SHRINK
        else:  # a short pack lost: halves, and one block each below three
            cap = blocks // 2 if blocks >= 6 else 1
        self.max_pack = cap if self.max_pack == 0 else min(self.max_pack, cap)

    @property
    def single_block(self) -> bool:
        """Send this model one block per request: even two-block packs lost their markers."""
        return self.max_pack == 1

    @property
    def measured(self) -> bool:
        return len(self.ttfb_ms) > 0

    def ttfb_estimate(self) -> float | None:
        return self.ttfb_ms.recent()

    def ttfb_p90(self) -> float | None:
        return self.ttfb_ms.p(90)

    def tps_estimate(self) -> float | None:
        return self.tokens_per_s.recent(higher_is_better=True)

    def predict_ms(self, expected_tokens: int | None, default_tps: float) -> float | None:
        """Time to first token + expected output tokens / tokens per second; None if unmeasured."""
        ttfb = self.ttfb_estimate()
        if ttfb is None:
            return None
        if not expected_tokens:
            return ttfb
        tps = self.tps_estimate() or default_tps
        return ttfb + expected_tokens / tps * 1000

    @property
    def last_at(self) -> float | None:
        stamps = [t for t in (self.ttfb_ms.last_at, self.tokens_per_s.last_at) if t is not None]
        return max(stamps) if stamps else None


class StatsStore:
    """All choices' windows, loaded from and saved to one JSON file (``path=None``: memory only)."""

    def __init__(self, path: Path | None = None, *, clock: Clock | None = None) -> None:
        self.path = path
        self.clock: Clock = clock or SystemClock()
        self._choices: dict[Pair, ChoiceStats] = {}
        self.dirty = False
        self.started = self.clock.wall()  # this process's start, as its samples say
        self.seq = 0  # the request number of the newest sample (Sample.seq)

    # ---- construction -------------------------------------------------------------------------

    @staticmethod
    def default_path() -> Path:
        from fastdesk.config.paths import data_dir

        return data_dir() / STATS_FILE

    @classmethod
    def load(cls, path: Path | None = None, *, clock: Clock | None = None) -> StatsStore:
        """Read the file (by default the one in the data dir). Never raises: a file that is not
        ours (not JSON, nested too deeply, wrong types) is set aside with a warning and the
        measuring starts afresh; an unreadable one is left where it is."""
        store = cls(path or cls.default_path(), clock=clock)
        assert store.path is not None
        try:
            oldest = store.clock.wall() - MAX_AGE_S
            store._choices = _choices(store.path, load_json(store.path), oldest)
            store.seq = _number_requests(store._choices.values())
        except FileNotFoundError:
            pass
        except BrokenFile as exc:
            kept = set_aside(store.path)
            where = f"kept as {kept.name}" if kept else "it could not be moved aside"
            log.warning(
                "router stats %s were broken (%s); measuring afresh (%s)",
                store.path,
                exc.detail,
                where,
            )
        except FileError as exc:
            log.warning("router stats %s unreadable, starting afresh: %s", store.path, exc.reason)
        return store

    @classmethod
    def memory(cls, clock: Clock | None = None) -> StatsStore:
        """A store that is never written (tests, benchmarks that must not touch the user's data)."""
        return cls(None, clock=clock)

    # ---- measuring ----------------------------------------------------------------------------

    def get(self, pair: Pair) -> ChoiceStats:
        """The stats of a choice (an empty, unstored one if never measured)."""
        return self._choices.get(pair) or ChoiceStats()

    def observe(
        self, pair: Pair, *, ttfb_ms: float | None = None, tokens_per_s: float | None = None
    ) -> None:
        """Add one request's measures (either may be missing)."""
        now = self.clock.wall()
        stats = self._choices.setdefault(pair, ChoiceStats())
        seq = self.seq + 1
        if ttfb_ms is not None and math.isfinite(ttfb_ms) and ttfb_ms >= 0:
            stats.ttfb_ms.add(ttfb_ms, now, seq, self.started)
            self.dirty = True
            self.seq = seq
        if tokens_per_s is not None and math.isfinite(tokens_per_s) and tokens_per_s > 0:
            stats.tokens_per_s.add(tokens_per_s, now, seq, self.started)
            self.dirty = True
            self.seq = seq

    def measured_here(self, pair: Pair) -> bool:
        """Whether this process (this store's start) has measured ``pair``: until it has, the
        router probes it once (its speed may have changed since the last run)."""
        return any(s.started == self.started for s in self.get(pair).ttfb_ms.samples)

    def by_start(self, pair: Pair) -> list[tuple[float, list[float]]]:
        """``pair``'s time-to-first-token samples in the window, grouped by the process start
        they were taken in (oldest start first): what each run measured."""
        groups: dict[float, list[float]] = {}
        for sample in self.get(pair).ttfb_ms.samples:
            groups.setdefault(sample.started, []).append(sample.value)
        return sorted(groups.items())

    def lost_markers(self, pair: Pair, blocks: int) -> None:
        """A pack answer of ``pair`` (``blocks`` blocks) could not be mapped back to them."""
        self._choices.setdefault(pair, ChoiceStats()).lost(blocks)
        self.dirty = True

    def pairs(self) -> list[Pair]:
        return list(self._choices)

    # ---- persistence --------------------------------------------------------------------------

    def snapshot(self) -> str:
        """The file's content now (cheap: call it in the loop, write it elsewhere)."""
        data: dict[str, object] = {
            "version": FORMAT_VERSION,
            "choices": {
                pair_key(pair): {
                    "ttfb_ms": _saved(s.ttfb_ms),
                    "tokens_per_s": _saved(s.tokens_per_s),
                    **({"lost_markers": s.lost_markers} if s.lost_markers else {}),
                    **({"max_pack": s.max_pack} if s.max_pack else {}),
                }
                for pair, s in sorted(self._choices.items())
            },
        }
        return json.dumps(data, separators=(",", ":"), sort_keys=True) + "\n"

    def save(self) -> None:
        """Write atomically (never half a file); a memory-only store does nothing."""
        if self.path is None:
            self.dirty = False
            return
        text = self.snapshot()
        self.dirty = False
        write_snapshot(self.path, text)

    def summary(self) -> Mapping[Pair, ChoiceStats]:
        return dict(self._choices)


def _saved(series: Series) -> list[list[float]]:
    """A series as the file holds it: [when, value, process start] per sample (the request
    numbers are worked out again from the times on load)."""
    return [[round(s.at, 3), round(s.value, 2), round(s.started, 3)] for s in series.samples]


def _number_requests(choices: Iterable[ChoiceStats]) -> int:
    """Number the loaded samples by when they were taken, one number a request (a request's
    two measures share its time); returns the newest number."""
    series = [series for c in choices for series in (c.ttfb_ms, c.tokens_per_s)]
    times = sorted({s.at for one in series for s in one.samples})
    number = {at: n for n, at in enumerate(times, 1)}
    for one in series:
        one.samples = deque(
            (s._replace(seq=number[s.at]) for s in one.samples), maxlen=one.samples.maxlen
        )
    return len(times)


def write_snapshot(path: Path, text: str) -> None:
    """Write a snapshot; a failure is logged, never raised (stats are a cache, not user data)."""
    try:
        atomic_write_text(path, text)
    except OSError as exc:
        log.warning("cannot save router stats to %s: %s", path, os_reason(exc))


def _number(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError
    return float(value)


def _choices(path: Path, raw: object, oldest: float) -> dict[Pair, ChoiceStats]:
    """The file's windows, checked: a wrong shape or type anywhere is a BrokenFile. Samples too
    old, not finite or not positive are dropped (the network changed; they mean nothing)."""
    if not isinstance(raw, dict):
        raise BrokenFile(path, "not a JSON object")
    if raw.get("version") != FORMAT_VERSION:
        return {}  # another version's file: ours starts afresh and replaces it
    choices = raw.get("choices")
    if not isinstance(choices, dict):
        raise BrokenFile(path, "'choices' is not an object")
    out: dict[Pair, ChoiceStats] = {}
    for key, entry in choices.items():
        pair = parse_pair_key(key)
        if pair is None or not isinstance(entry, dict):
            raise BrokenFile(path, f"{key!r:.60} is not provider/model with its measures")
        stats = ChoiceStats()
        for name, series in (("ttfb_ms", stats.ttfb_ms), ("tokens_per_s", stats.tokens_per_s)):
            samples = entry.get(name, [])
            if not isinstance(samples, list):
                raise BrokenFile(path, f"{key:.60} {name} is not a list")
            for sample in samples:
                try:
                    if not isinstance(sample, list) or len(sample) not in (2, 3):
                        raise TypeError  # (2: a file written before process starts were kept)
                    at, value = _number(sample[0]), _number(sample[1])
                    started = _number(sample[2]) if len(sample) == 3 else at
                    if not (math.isfinite(at) and math.isfinite(started)):
                        raise TypeError  # a time we could not compare
                except (TypeError, OverflowError):
                    raise BrokenFile(path, f"{key:.60} {name} holds {sample!r:.40}") from None
                if at >= oldest and math.isfinite(value) and value > 0:
                    series.add(value, at, 0, started)
        lost = entry.get("lost_markers", 0)
        if not isinstance(lost, int) or isinstance(lost, bool) or lost < 0:
            raise BrokenFile(path, f"{key:.60} lost_markers is not a count")
        stats.lost_markers = lost
        cap = entry.get("max_pack", 1 if lost >= LOST_MARKERS_LIMIT else 0)
        if not isinstance(cap, int) or isinstance(cap, bool) or cap < 0:
            raise BrokenFile(path, f"{key:.60} max_pack is not a count")
        stats.max_pack = cap
        if stats.measured or len(stats.tokens_per_s) or stats.lost_markers:
            out[pair] = stats
    return out


# ---- what decides the ranking, for people (fastdesk bench --stats) --------------------------


def report(store: StatsStore, starts: int = 5) -> list[dict[str, object]]:
    """Per choice, fastest first: the estimates the router ranks it by now, the samples they
    come from, and for each of the last ``starts`` process starts what it measured there (its
    first, cold, answer apart)."""
    rows: list[dict[str, object]] = []
    for pair in store.pairs():
        stats = store.get(pair)
        runs = []
        for started, values in store.by_start(pair)[-starts:]:
            runs.append(
                {
                    "started": started,
                    "samples": len(values),
                    "first_ms": round(values[0]),
                    "then_ms": None if len(values) < 2 else round(median(values[1:]) or 0),
                }
            )
        ttfb, tps = stats.ttfb_estimate(), stats.tps_estimate()
        rows.append(
            {
                "provider": pair[0],
                "model": pair[1],
                "ttfb_ms": None if ttfb is None else round(ttfb),
                "tokens_per_s": None if tps is None else round(tps),
                "deciding_ttfb_ms": [round(s.value) for s in stats.ttfb_ms.fresh()],
                "samples": len(stats.ttfb_ms),
                "process_starts": runs,
            }
        )
    rows.sort(key=lambda r: (r["ttfb_ms"] is None, r["ttfb_ms"] or 0.0))
    return rows


def format_report(rows: list[dict[str, object]]) -> str:
    """The report as lines of text (start times in the local time of day)."""
    import time

    if not rows:
        return "No measurements yet: the router ranks choices in configuration order.\n"
    lines = []
    for row in rows:
        ttfb, tps = row["ttfb_ms"], row["tokens_per_s"]
        deciding = ", ".join(map(str, row["deciding_ttfb_ms"]))  # type: ignore[call-overload]
        lines.append(
            f"{row['provider']}/{row['model']}: first token {ttfb} ms (of {deciding}),"
            f" {tps if tps is not None else '?'} tokens/s; {row['samples']} samples"
        )
        for run in row["process_starts"]:  # type: ignore[attr-defined]
            when = time.strftime("%H:%M:%S", time.localtime(run["started"]))
            then = f", then {run['then_ms']} ms" if run["then_ms"] is not None else ""
            lines.append(
                f"  started {when}: {run['samples']} samples, first {run['first_ms']} ms{then}"
            )
    return "\n".join(lines) + "\n"
