"""Measured speed of every (provider, model): sliding windows of time to first token and tokens/s.

The router predicts a request's completion time from these windows (see docs/routing.md) and they
survive restarts in ``data_dir()/router-stats.json`` so the first request after a start already goes
to the right place. Samples are raw wall-clock measurements as the user experiences them: time to
first token is not divided by prompt size, because for a live edit the wait is the wait.

Estimates use the median of the most recent few samples (robust to one cold start, yet quick to
follow a provider that slowed down or sped up), and they age: samples taken more than
``FRESH_S`` before a choice's newest one no longer count. A choice that is only probed now and
then (because another one was faster) is therefore judged by its probe, not by a median of old
samples that one fresh result could never move; so routing follows two providers whose speeds
swap. The 90th percentile, used for hedging, uses the whole window.

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
RECENT = 5  # samples the central estimate looks at
FRESH_S = 120.0  # samples this much older than a choice's newest one are stale
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


@dataclass
class Series:
    """The last ``WINDOW`` samples of one measure, each with the wall-clock time it was taken."""

    samples: deque[tuple[float, float]] = field(default_factory=lambda: deque(maxlen=WINDOW))

    def add(self, value: float, at: float) -> None:
        self.samples.append((at, value))

    def values(self) -> list[float]:
        return [v for _, v in self.samples]

    def recent(self, n: int = RECENT) -> float | None:
        """The median of the last ``n`` samples, leaving out those gone stale (``FRESH_S``)."""
        last = list(self.samples)[-n:]
        if not last:
            return None
        newest = last[-1][0]
        return median(v for at, v in last if at >= newest - FRESH_S)

    def p(self, q: float) -> float | None:
        return percentile(self.values(), q)

    @property
    def last_at(self) -> float | None:
        return self.samples[-1][0] if self.samples else None

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
        return self.tokens_per_s.recent()

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
        if ttfb_ms is not None and math.isfinite(ttfb_ms) and ttfb_ms >= 0:
            stats.ttfb_ms.add(ttfb_ms, now)
            self.dirty = True
        if tokens_per_s is not None and math.isfinite(tokens_per_s) and tokens_per_s > 0:
            stats.tokens_per_s.add(tokens_per_s, now)
            self.dirty = True

    def stale(self, pair: Pair) -> bool:
        """Measured, but not within ``FRESH_S``: worth a probe at the first chance."""
        last = self.get(pair).last_at
        return last is not None and last < self.clock.wall() - FRESH_S

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
                    "ttfb_ms": [[round(t, 3), round(v, 2)] for t, v in s.ttfb_ms.samples],
                    "tokens_per_s": [[round(t, 3), round(v, 2)] for t, v in s.tokens_per_s.samples],
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
                    if not isinstance(sample, list) or len(sample) != 2:
                        raise TypeError
                    at, value = _number(sample[0]), _number(sample[1])
                except (TypeError, OverflowError):
                    raise BrokenFile(path, f"{key:.60} {name} holds {sample!r:.40}") from None
                if at >= oldest and math.isfinite(value) and value > 0:
                    series.add(value, at)
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
