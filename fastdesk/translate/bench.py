"""Benchmark runner (Qt-free): every (provider, model) translates the same document N times.

``fastdesk bench`` prints its table and the window's "Compare providers" shows the same rows.
Each row runs the real :class:`~fastdesk.translate.engine.Engine` (packing, checks, retries: what
a user
gets) with the memory off and the job pinned to that one (provider, model), so the router has no
fallback to hide a failure behind. Rows run one after the other so they do not slow each other
down; the measurements also feed the router's persisted windows (they are real measurements).

Figures per row: time to first token p50/p90 over every successful request; total = wall time of
one whole-document run (p50 over runs); tokens/s = completion tokens over streaming time (after
the first token) summed over requests; cost per run (mean; unknown when any price or usage is);
fidelity flags = flagged blocks per run (mean); errors = requests that got no answer over all
runs (failed, or not sent because the model was rate-limited or its key refused).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from fastdesk.clock import milliseconds
from fastdesk.config import paths
from fastdesk.document.blocks import Document, parse
from fastdesk.providers.base import Provider, RequestStats
from fastdesk.routing.pricing import PriceTable, format_cost
from fastdesk.routing.router import Router
from fastdesk.routing.stats import Pair, StatsStore, median, percentile
from fastdesk.translate.engine import Engine
from fastdesk.translate.events import BlockDone, BlockFailed, EngineError, EngineEvent, RequestDone
from fastdesk.translate.job import JobSpec
from fastdesk.translate.warmup import warm_up

FALLBACK_SAMPLE = """# A short sample

fastdesk translates **Markdown** while you type. Only the paragraphs you change are sent again,
so a long document stays fast and cheap. See [the guide](https://example.com/guide).

- Code such as `pip install fastdesk` is never translated.
- Links keep their targets.

## Why speed matters

An editor reviews the translation side by side: every second of waiting breaks the flow.
"""


def sample_text() -> str:
    """The bundled sample document (resources/sample.md), or a short built-in text."""

    try:
        return paths.resource("sample.md").read_text(encoding="utf-8")
    except (OSError, ModuleNotFoundError):
        return FALLBACK_SAMPLE


@dataclass
class BenchRun:
    """One whole-document run."""

    wall_ms: float
    requests: list[RequestStats] = field(default_factory=list)
    flagged: int = 0
    failed_blocks: int = 0
    errors: list[str] = field(default_factory=list)  # requests that failed (or were not sent)

    @property
    def ok(self) -> bool:
        return self.failed_blocks == 0

    @property
    def cost_usd(self) -> float | None:
        costs = [r.cost_usd for r in self.requests if r.status != "error"]
        if not costs or any(c is None for c in costs):
            return None
        return sum(c for c in costs if c is not None)


@dataclass
class BenchRow:
    provider: str
    model: str
    runs: list[BenchRun] = field(default_factory=list)

    @property
    def _ok_requests(self) -> list[RequestStats]:
        return [r for run in self.runs for r in run.requests if r.status == "ok"]

    @property
    def ttfb_p50(self) -> float | None:
        return median(r.ttfb_ms for r in self._ok_requests if r.ttfb_ms is not None)

    @property
    def ttfb_p90(self) -> float | None:
        return percentile((r.ttfb_ms for r in self._ok_requests if r.ttfb_ms is not None), 90)

    @property
    def total_p50(self) -> float | None:
        return median(run.wall_ms for run in self.runs if run.ok)

    @property
    def tokens_per_s(self) -> float | None:
        tokens = 0
        seconds = 0.0
        for r in self._ok_requests:
            if r.completion_tokens and r.ttfb_ms is not None and r.total_ms is not None:
                tokens += r.completion_tokens
                seconds += max(r.total_ms - r.ttfb_ms, 0.0) / 1000
        return tokens / seconds if tokens and seconds > 0.001 else None

    @property
    def cost_per_run(self) -> float | None:
        costs = [run.cost_usd for run in self.runs if run.ok]
        if not costs or any(c is None for c in costs):
            return None
        return sum(c for c in costs if c is not None) / len(costs)

    @property
    def flags(self) -> float:
        done = [run for run in self.runs if run.ok]
        return sum(run.flagged for run in done) / len(done) if done else 0.0

    @property
    def errors(self) -> int:
        return sum(len(run.errors) for run in self.runs)

    @property
    def ok_runs(self) -> int:
        return sum(1 for run in self.runs if run.ok)

    @property
    def first_error(self) -> str | None:
        for run in self.runs:
            if run.errors:
                return run.errors[0]
        return None

    def as_dict(self) -> dict[str, object]:
        def r1(v: float | None) -> float | None:
            return None if v is None else round(v, 1)

        return {
            "provider": self.provider,
            "model": self.model,
            "runs": len(self.runs),
            "ok_runs": self.ok_runs,
            "ttfb_p50_ms": r1(self.ttfb_p50),
            "ttfb_p90_ms": r1(self.ttfb_p90),
            "total_p50_ms": r1(self.total_p50),
            "tokens_per_s": r1(self.tokens_per_s),
            "cost_per_run_usd": self.cost_per_run,
            "flags_per_run": round(self.flags, 2),
            "errors": self.errors,
            "first_error": self.first_error,
            "requests": [r.report_dict() for run in self.runs for r in run.requests],
        }


Progress = Callable[[str, str, int, int], None]  # provider, model, run (1-based), runs


async def run_bench(
    providers: Mapping[str, Provider],
    text: str,
    *,
    targets: Sequence[Pair] | None = None,
    models: Mapping[str, Sequence[str]] | None = None,
    runs: int = 3,
    mode: str = "translate",
    target_lang: str = "fr",
    pricing: PriceTable | None = None,
    stats: StatsStore | None = None,
    concurrency: int = 4,
    warm: bool = True,
    progress: Progress | None = None,
) -> list[BenchRow]:
    """Benchmark every target (default: every configured pair); providers are left open."""
    router = Router(providers, pricing, models=models, stats=stats, explore_share=0.0, hedge=False)
    doc = parse(text)
    rows = []
    for provider, model in targets if targets is not None else router.pairs():
        if warm:  # untimed: the runs compare warm providers, as the app's warm-up makes them
            await warm_up(router, provider=provider, model=model)
        row = BenchRow(provider, model)
        spec = JobSpec(
            mode=mode, target_lang=target_lang, provider=provider, model=model, use_memory=False
        )
        engine = Engine(router, None, concurrency=concurrency)
        for n in range(runs):
            if progress is not None:
                progress(provider, model, n + 1, runs)
            row.runs.append(await _one_run(engine, doc, spec))
        rows.append(row)
    router.save_stats()
    return rows


async def _one_run(engine: Engine, doc: Document, spec: JobSpec) -> BenchRun:
    run = BenchRun(wall_ms=0.0)

    def on_event(event: EngineEvent) -> None:
        if isinstance(event, RequestDone):
            run.requests.append(event.stats)
        elif isinstance(event, BlockDone) and event.flags:
            run.flagged += 1
        elif isinstance(event, BlockFailed):
            run.failed_blocks += 1
        elif isinstance(event, EngineError):
            run.errors.append(event.message)

    started = time.perf_counter()
    await engine.run(doc, spec, emit=on_event)
    run.wall_ms = (time.perf_counter() - started) * 1000
    return run


# ---- the table ---------------------------------------------------------------------------------

COLUMNS = (
    "provider",
    "model",
    "ttfb p50",
    "ttfb p90",
    "total p50",
    "tok/s",
    "cost/run",
    "flags",
    "errors",
)


def format_table(rows: Sequence[BenchRow]) -> str:
    """Aligned plain-text table, fastest first (rows with no successful run last)."""
    ordered = sorted(rows, key=lambda r: (r.total_p50 is None, r.total_p50 or 0.0))
    cells = [COLUMNS]
    for r in ordered:
        cells.append(
            (
                r.provider,
                r.model,
                milliseconds(r.ttfb_p50, "-"),
                milliseconds(r.ttfb_p90, "-"),
                milliseconds(r.total_p50, "-"),
                "-" if r.tokens_per_s is None else f"{r.tokens_per_s:.0f}",
                "unknown" if r.cost_per_run is None else format_cost(r.cost_per_run),
                f"{r.flags:g}",
                str(r.errors),
            )
        )
    widths = [max(len(row[i]) for row in cells) for i in range(len(COLUMNS))]
    lines = []
    for row in cells:
        parts = [
            c.ljust(w) if i < 2 else c.rjust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(parts).rstrip())
    notes = [f"{r.provider}/{r.model}: {r.first_error}" for r in ordered if r.ok_runs == 0]
    if notes:
        lines.append("")
        lines.extend(f"failed: {n}" for n in notes)
    return "\n".join(lines) + "\n"
