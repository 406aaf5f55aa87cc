"""`fastdesk translate`: translate or simplify files without a window (README: Command line)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import sys
import time
from collections.abc import Awaitable
from pathlib import Path

from fastdesk.cli.common import DocReport, UsageError, build_job, write_report
from fastdesk.cli.project import run_project
from fastdesk.config.fileio import (
    DocumentError,
    atomic_write_text,
    os_error_line,
    read_document,
    writable_problem,
)
from fastdesk.config.logs import setup_logging
from fastdesk.config.paths import home_problem
from fastdesk.config.redact import redact
from fastdesk.document.blocks import Document, parse
from fastdesk.document.dialects import apply_dialect
from fastdesk.routing.costs import CostLedger
from fastdesk.routing.pricing import format_cost
from fastdesk.translate.checks import preload
from fastdesk.translate.dialect import translate_document
from fastdesk.translate.engine import Engine
from fastdesk.translate.events import (
    MEMORY_REFUSED,
    BlockDone,
    BlockFailed,
    BlockReviewed,
    EngineError,
    EngineEvent,
    RequestDone,
    Waiting,
)
from fastdesk.translate.job import JobSpec
from fastdesk.translate.language import source_language
from fastdesk.translate.prompts import MODES
from fastdesk.translate.readability import compare
from fastdesk.translate.repeats import repeated

log = logging.getLogger("fastdesk.translate")

PROVIDER_CHOICES = ("auto", "groq", "cerebras", "openai")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("translate", help="translate or simplify Markdown files, no window")
    p.add_argument("inputs", nargs="+", metavar="INPUT.md|DIR")
    p.add_argument(
        "--to",
        dest="lang",
        metavar="LANG",
        help="BCP-47 code (default: settings, else fr); a folder takes several: fr,de,es",
    )
    p.add_argument("--mode", choices=MODES, help="translate | simplify (default translate)")
    p.add_argument(
        "--reading-level",
        metavar="LEVEL",
        help="simplify's target: plain, A1-C2 (CEFR) or 'grade N' (default: the house style's)",
    )
    p.add_argument("--provider", choices=PROVIDER_CHOICES, default="auto")
    p.add_argument("--model", help="model for that provider (default: settings)")
    p.add_argument("-o", "--output", metavar="FILE", help="one input: write here (default: stdout)")
    p.add_argument("--out-dir", metavar="DIR", help="several inputs: DIR/<same file name>")
    p.add_argument("--report", metavar="FILE", help='write a JSON report ("-" = standard error)')
    p.add_argument("--no-memory", action="store_true", help="neither read nor write the memory")
    p.add_argument("--concurrency", type=int, metavar="N", help="requests in flight at most")
    p.add_argument("-v", "--verbose", action="count", default=0, help="log each request")
    # a docs project (a folder): fastdesk/cli/project.py
    p.add_argument("--changed-since", metavar="GIT_REF", help="a folder: only files changed since")
    p.add_argument(
        "--review",
        action="store_true",
        help="a reviewer model scores each translated block (MQM); scores and errors in --report",
    )
    p.add_argument(
        "--min-score",
        type=float,
        metavar="N",
        help="exit 1 when a document's review score is below N (0-100; implies --review)",
    )
    p.add_argument(
        "--allow-partial",
        action="store_true",
        help="write a document (or a folder's targets) even when some blocks were not translated",
    )
    p.add_argument(
        "--batch",
        action="store_true",
        help="a folder: send the stale blocks to the provider's Batch API (half price, within "
        "24 h); run again to see how far it is and write the targets",
    )
    p.add_argument(
        "--wait", action="store_true", help="with --batch: stay until the job is done and written"
    )
    p.set_defaults(func=run_translate)


def run_translate(args: argparse.Namespace) -> int:
    """0 all written; 1 a document (or the report) could not be written, the others were;
    2 bad usage or an unreadable input, before any request. Every failure is one line."""
    problem = home_problem()
    if problem is not None:  # before logging, which would try to make its folder there
        print(f"fastdesk translate: {problem}", file=sys.stderr)
        return 2
    setup_logging(args.verbose, to_file=True)
    if len(args.inputs) == 1 and os.path.isdir(args.inputs[0]):
        return run_project(args)
    if args.changed_since:
        print(
            f"fastdesk translate: {_listed(args.inputs)}: --changed-since takes one folder, "
            "not files",
            file=sys.stderr,
        )
        return 2
    if args.batch or args.wait:
        print("fastdesk translate: --batch and --wait take a folder", file=sys.stderr)
        return 2
    try:
        docs, outputs = _read_inputs(args)
        _check_writable([*(o for o in outputs if o), *_report_file(args)])
        engine, spec, house = build_job(args)
    except UsageError as exc:
        print(f"fastdesk translate: {exc}", file=sys.stderr)
        return 2
    reports = [
        _report(path, text, out, house.dialect)
        for (path, text), out in zip(docs, outputs, strict=True)
    ]
    for report in reports:
        report.reviewed = bool(spec.review)
    requests: list[dict[str, object]] = []
    stopped: list[int] = []  # the signal that stopped the run, if one did
    started = time.perf_counter()
    try:
        asyncio.run(_translate_all(engine, spec, reports, requests, args, stopped))
    except KeyboardInterrupt:  # a second Ctrl+C, or one before the loop ran
        stopped.append(signal.SIGINT)
    wall_ms = (time.perf_counter() - started) * 1000
    if stopped:
        for report in reports:
            if report.status == "pending":
                report.status = "interrupted"
    written = write_report(args.report, reports, requests, wall_ms, spec.glossary)
    below = _below_min_score(reports, args.min_score)
    if stopped:
        done = sum(r.status in ("ok", "partial") for r in reports)
        print(
            f"fastdesk translate: interrupted; {done} of {len(reports)} documents written",
            file=sys.stderr,
        )
        return 128 + int(stopped[0])
    failed = any(r.status in ("failed", "partial") for r in reports)
    return 1 if failed or below or not written else 0


def _below_min_score(reports: list[DocReport], min_score: float | None) -> bool:
    """``--min-score``: one line for each written document that scored below it (or that no
    review could score); True when there is one."""
    if min_score is None:
        return False
    below = False
    for report in reports:
        if report.status not in ("ok", "partial"):
            continue
        score = report.score
        if score is None:
            print(
                f"fastdesk translate: {report.input}: no review could score it "
                f"(--min-score {min_score:g})",
                file=sys.stderr,
            )
            below = True
        elif score < min_score:
            print(
                f"fastdesk translate: {report.input}: review score {score:g} is below "
                f"--min-score {min_score:g}",
                file=sys.stderr,
            )
            below = True
    return below


def _read_inputs(args: argparse.Namespace) -> tuple[list[tuple[str, str]], list[str | None]]:
    """Read every input before doing anything, so a bad one stops the run with nothing written."""
    if args.output and len(args.inputs) > 1:
        raise UsageError(
            f"{args.output}: -o/--output takes one input, not {len(args.inputs)} "
            f"({_listed(args.inputs)}); use --out-dir for several"
        )
    if args.output and args.out_dir:
        raise UsageError(
            f"{args.output}, {args.out_dir}: use either -o/--output or --out-dir, not both"
        )
    if len(args.inputs) > 1 and not args.out_dir:
        raise UsageError(f"{_listed(args.inputs)}: several inputs need --out-dir DIR")
    if args.concurrency is not None and args.concurrency < 1:
        raise UsageError("--concurrency must be at least 1")
    if args.min_score is not None and not 0 <= args.min_score <= 100:
        raise UsageError("--min-score must be between 0 and 100")
    names = [Path(p).name for p in args.inputs]
    if args.out_dir and len(set(names)) != len(names):
        twins = [p for p in args.inputs if names.count(Path(p).name) > 1]
        raise UsageError(
            f"{_listed(twins)}: inputs share a file name; --out-dir would write one over the other"
        )
    docs = []
    for path in args.inputs:
        try:
            docs.append((path, read_document(path)))
        except DocumentError as exc:
            raise UsageError(str(exc)) from None
    outputs: list[str | None] = (
        [str(Path(args.out_dir) / name) for name in names] if args.out_dir else [args.output]
    )
    for inp, out in zip(args.inputs, outputs, strict=True):
        if out and _same_file(out, inp):
            raise UsageError(f"{out}: output would overwrite its input")
    for report in _report_file(args):
        if any(_same_file(report, p) for p in [*args.inputs, *(o for o in outputs if o)]):
            raise UsageError(f"{report}: the report would overwrite an input or an output")
    return docs, outputs


def _listed(paths: list[str], most: int = 3) -> str:
    """The paths a usage error is about, the first few of them: one line stays one line."""
    shown = ", ".join(paths[:most])
    return shown + (f" and {len(paths) - most} more" if len(paths) > most else "")


def _report_file(args: argparse.Namespace) -> list[str]:
    return [args.report] if args.report and args.report != "-" else []


def _same_file(a: str, b: str) -> bool:
    """The same file, also through a symlink or another spelling of its folder."""
    return os.path.realpath(a) == os.path.realpath(b)


def _check_writable(targets: list[str]) -> None:
    """Refuse at once (exit 2, before any request) an output or report that cannot be written:
    a folder or a device in its place, a file where a folder must be, a folder that refuses
    new files. A real write still can fail later (a full disk): then that document fails."""
    for target in targets:
        problem = writable_problem(target)
        if problem is not None:
            raise UsageError(problem)


async def _translate_all(
    engine: Engine,
    spec: JobSpec,
    reports: list[DocReport],
    requests: list[dict[str, object]],
    args: argparse.Namespace,
    stopped: list[int],
) -> None:
    """Translate every document; Ctrl+C or SIGTERM cancels what runs, and what is done stays."""
    _stop_on_signals(stopped)
    loading: asyncio.Task[None] | None = None
    if _say_estimate(engine, spec, reports):  # requests to send: their checks load meanwhile
        loading = asyncio.create_task(asyncio.to_thread(preload, spec.mode, spec.target_lang))
    progress = Progress(sum(len(r.doc.blocks) for r in reports))
    # Today's spend, shared with the window's status bar. Written as each request completes
    # (no writer thread): a run killed at any moment has counted every answered request.
    ledger = CostLedger(background=False)
    try:
        await asyncio.gather(
            *(
                _guarded(
                    report, _translate_one(engine, spec, report, requests, progress, args, ledger)
                )
                for report in reports
                if report.status == "pending"
            )
        )
    except asyncio.CancelledError:
        if not stopped:
            raise
    finally:
        progress.close()
        ledger.close()
        await engine.router.aclose()
        if engine.memory is not None:
            engine.memory.close()
        if loading is not None:
            with contextlib.suppress(Exception):  # else the first check loads it, or says why
                await loading


def _say_estimate(engine: Engine, spec: JobSpec, reports: list[DocReport]) -> int:
    """One line when the rate limits will make the run long: how long, at which limit, and
    what would go faster (the run is paced, never failed, by them: Ctrl+C stops it). Returns
    the number of requests the run will send."""
    from fastdesk.routing.pace import work_estimate, workload

    requests = tokens = 0
    for report in reports:
        if report.status == "pending":
            more, source = workload(engine, report.doc, spec)
            requests, tokens = requests + more, tokens + source
    found = work_estimate(
        engine.router, spec.provider, spec.model, spec.target_lang, requests, tokens
    )
    text = found.text()
    if text:
        print(f"fastdesk translate: {text} (Ctrl+C stops)", file=sys.stderr)
    return requests


def _stop_on_signals(stopped: list[int]) -> None:
    """SIGINT and SIGTERM cancel the run (where the loop can catch them: not on Windows)."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()

    def stop(signum: int) -> None:
        stopped.append(signum)
        if task is not None:
            task.cancel()

    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signum, stop, signum)


def _report(path: str, text: str, output: str | None, dialect: str = "commonmark") -> DocReport:
    """A document's report, pending; failed at once (its one line said) on a parser bug."""
    doc = _parse(path, text, dialect)
    if doc is None:
        return _failed(DocReport(path, output, parse("")), "internal error while parsing it")
    return DocReport(input=path, output=output, doc=doc, dialect=dialect)


def _parse(path: str, text: str, dialect: str = "commonmark") -> Document | None:
    """The document's blocks (its dialect's syntax kept as it is); None (that document fails,
    the others go on) on a parser bug."""
    try:
        return apply_dialect(parse(text), dialect)
    except Exception:
        log.info("%s: could not be split into blocks", path, exc_info=True)
        return None


async def _guarded(report: DocReport, work: Awaitable[None]) -> None:
    """One document's work; whatever goes wrong in it is this document's one line."""
    try:
        await work
    except Exception as exc:  # a bug met by this input: the other documents go on
        log.info("%s: internal error", report.input, exc_info=True)
        _failed(report, redact(f"internal error ({type(exc).__name__}: {exc})")[:300])


def _failed(report: DocReport, reason: str) -> DocReport:
    report.status = "failed"
    print(f"fastdesk translate: {report.input}: not translated: {reason}", file=sys.stderr)
    return report


async def _translate_one(
    engine: Engine,
    spec: JobSpec,
    report: DocReport,
    requests: list[dict[str, object]],
    progress: Progress,
    args: argparse.Namespace,
    ledger: CostLedger,
) -> None:
    doc, path, output = report.doc, report.input, report.output
    verbose, allow_partial = args.verbose, args.allow_partial
    index = {b.id: i for i, b in enumerate(doc.blocks)}
    answered: list[tuple[str, str, str]] = []  # the model's answers, for the repeat check

    def on_event(event: EngineEvent) -> None:
        if isinstance(event, BlockDone):
            progress.advance(path)
            if event.origin == "model":
                answered.append((event.block_id, doc.by_id(event.block_id).text, event.text))
                report.translated += 1
            elif event.origin == "memory":
                report.from_memory += 1
            for flag in event.flags:
                i = index[event.block_id]
                if flag.check == "not_translated":
                    report.not_translated.append(i)
                report.flags.append(
                    {
                        "block": i,
                        "line": doc.blocks[i].line,
                        "check": flag.check,
                        "detail": flag.detail,
                    }
                )
        elif isinstance(event, BlockFailed):
            progress.advance(path)
            report.errors.append(event.error)
        elif isinstance(event, BlockReviewed):
            report.reviews[index[event.block_id]] = event.review
        elif isinstance(event, RequestDone):
            requests.append({**event.stats.report_dict(), "purpose": event.stats.purpose})
            ledger.record(event.stats)
            if verbose:
                log.info("%s", describe_request(event))
        elif isinstance(event, Waiting):
            log.info("%s", event.message)
        elif isinstance(event, EngineError) and event.kind == MEMORY_REFUSED:
            report.memory_refused.append(event.message)
            log.warning("%s: %s", path, event.message)
        elif isinstance(event, EngineError) and verbose:
            log.warning("%s", event.message)

    results = await translate_document(engine, doc, spec, report.dialect, on_event)
    for bid, flag in repeated(answered).items():  # a prompt injection obeyed on every block
        i = index[bid]
        line = doc.blocks[i].line
        report.flags.append({"block": i, "line": line, "check": flag.check, "detail": flag.detail})
    if len(results) != len(doc.blocks) or report.errors:
        _failed(report, report.errors[0] if report.errors else "some blocks have no translation")
        return
    if report.not_translated:
        report.status = "partial"
        first = next(f for f in report.flags if f["check"] == "not_translated")
        what = (
            f"{len(report.not_translated)} block(s) not translated (line {first['line']}: "
            f"{first['detail']})"
        )
        if not allow_partial:
            print(
                f"fastdesk translate: {path}: {what}; not written (--allow-partial writes it)",
                file=sys.stderr,
            )
            return
        print(f"fastdesk translate: {path}: {what}; written with the source there", file=sys.stderr)
    target = "".join(results[b.id] for b in doc.blocks)
    if spec.mode == "translate":
        report.target_lang = spec.target_lang
        report.translations = {i: results[b.id] for i, b in enumerate(doc.blocks) if b.translatable}
    if spec.mode == "simplify":
        _readability(report, target, spec)
    try:
        if output is None:
            sys.stdout.buffer.write(target.encode("utf-8"))
            sys.stdout.flush()
        else:
            atomic_write_text(output, target)  # the old output stays whole if this fails
    except OSError as exc:  # a full disk, a closed pipe
        report.status = "failed"
        where = output or "standard output"
        print(f"fastdesk translate: {os_error_line(where, exc, 'not written')}", file=sys.stderr)
        return
    report.flags.sort(key=_flag_order)
    if report.status == "pending":
        report.status = "ok"


def _readability(report: DocReport, target: str, spec: JobSpec) -> None:
    """Simplify: the document's reading ease before and after, and one line when it got
    harder to read."""
    source = report.doc.source
    lang = spec.source_lang or source_language(source) or spec.target_lang
    report.simplified = True
    report.readability = compare(source, target, lang)
    if report.readability and report.readability["harder"]:
        r = report.readability
        print(
            f"fastdesk translate: {report.input}: harder to read than its source "
            f"({r['formula']} {r['before']} → {r['after']}; higher is easier)",
            file=sys.stderr,
        )


def _flag_order(flag: dict[str, object]) -> tuple[int, str]:
    """Flags in the report by block, then check name."""
    block = flag["block"]
    return (block if isinstance(block, int) else -1, str(flag["check"]))


def describe_request(event: RequestDone) -> str:
    s = event.stats
    parts = [f"{s.provider} {s.model} {s.status}"]
    if s.ttfb_ms is not None:
        parts.append(f"ttfb {s.ttfb_ms:.0f} ms")
    if s.total_ms is not None:
        parts.append(f"total {s.total_ms:.0f} ms")
    if s.prompt_tokens is not None:
        parts.append(f"{s.prompt_tokens}→{s.completion_tokens} tokens")
    if s.tokens_per_s:
        parts.append(f"{s.tokens_per_s:.0f} tok/s")
    parts.append(format_cost(s.cost_usd))
    if s.error:
        parts.append(s.error)
    return " · ".join(parts)


class Progress:
    """A one-line progress bar on standard error, only when it is a terminal."""

    def __init__(self, total: int, unit: str = "blocks") -> None:
        self.total = max(total, 1)
        self.unit = unit
        self.done = 0
        self.enabled = sys.stderr.isatty()
        self._last = 0.0

    def advance(self, name: str = "") -> None:
        self.done += 1
        now = time.monotonic()
        if self.enabled and (now - self._last > 0.05 or self.done == self.total):
            self._last = now
            width = 30
            filled = int(width * self.done / self.total)
            bar = "#" * filled + "-" * (width - filled)
            sys.stderr.write(f"\r[{bar}] {self.done}/{self.total} {self.unit}  {name[-40:]}")
            sys.stderr.flush()

    def close(self) -> None:
        if self.enabled and self.done:
            sys.stderr.write("\n")
