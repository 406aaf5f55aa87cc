"""`fastdesk translate DIR --to fr,de`: a docs project, only its stale or missing blocks.

Kept apart from cli/translate.py (single files): that module hands a folder over to this one.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import PurePosixPath

from fastdesk.cli.batch import BatchStep, Runner, Work, run_batch, say_jobs
from fastdesk.cli.common import DocReport, UsageError, build_job, write_report
from fastdesk.config.fileio import DocumentError, os_error_line, os_reason
from fastdesk.config.settings import saved_settings
from fastdesk.document.blocks import parse
from fastdesk.project import status
from fastdesk.project.layout import CONFIG_NAME, Project, ProjectError, find_project
from fastdesk.project.lock import ProjectBusy, project_lock
from fastdesk.project.record import RECORD_PATH, WrittenRecord
from fastdesk.project.run import (
    PairOutcome,
    finish,
    labels_pending,
    relink,
    translate_labels,
    translate_pairs,
)
from fastdesk.project.sync import OUTSIDE, Pair, link_anchors
from fastdesk.routing.costs import CostLedger
from fastdesk.translate.engine import Engine
from fastdesk.translate.events import RequestDone
from fastdesk.translate.job import JobSpec
from fastdesk.translate.wiring import glossary_for

__all__ = ["load_pairs", "open_project", "run_project"]


def parse_languages(value: str | None) -> tuple[str, ...]:
    """``fr,de, es`` → ("fr", "de", "es")."""
    if not value:
        return ()
    return tuple(dict.fromkeys(p.strip() for p in value.split(",") if p.strip()))


def open_project(folder: str, langs: str | None, *, need_languages: bool = True) -> Project:
    """The project at ``folder`` with ``--to``'s languages; UsageError when there is none (or,
    with ``need_languages``, when it names no target language)."""
    try:
        project = find_project(folder, parse_languages(langs))
    except ProjectError as exc:
        raise UsageError(str(exc)) from None
    if need_languages and not project.languages:
        raise UsageError(
            f"{folder}: no target languages; give --to fr,de or languages in {CONFIG_NAME}"
        )
    return project


def load_pairs(
    project: Project,
    record: WrittenRecord,
    sources: list[PurePosixPath] | None = None,
    skipped: list[tuple[PurePosixPath, str, str]] | None = None,
) -> list[Pair]:
    """Every (source, language) pair (fastdesk.project.status.load_pairs); an unreadable
    source is bad input, unless ``skipped`` takes it (and the others are read)."""
    try:
        return status.load_pairs(project, record, sources, skipped=skipped)
    except DocumentError as exc:
        raise UsageError(str(exc)) from None


def changed_since(project: Project, ref: str) -> list[PurePosixPath]:
    """Sources changed (or whose targets changed) since git ``ref``, and new ones."""

    def git(*args: str) -> list[str]:
        try:
            done = subprocess.run(
                ["git", "-C", str(project.root), *args],
                capture_output=True,
                text=True,
                check=True,
            )
        except FileNotFoundError:
            raise UsageError("--changed-since needs git on the PATH") from None
        except subprocess.CalledProcessError as exc:
            reason = (exc.stderr or "").strip().splitlines()
            raise UsageError(
                f"--changed-since {ref}: {reason[-1] if reason else 'git failed'}"
            ) from None
        return [line for line in done.stdout.splitlines() if line]

    changed = set(git("diff", "--name-only", "--relative", ref, "--"))
    changed |= set(git("ls-files", "--others", "--exclude-standard"))
    out = []
    for source in project.sources():
        names = {source.as_posix()} | {
            project.target(source, x).as_posix() for x in project.languages
        }
        if names & changed:
            out.append(source)
    return out


def run_project(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    folder = args.inputs[0]
    if args.mode == "simplify":
        print(
            f"fastdesk translate: {folder}: a folder is translated; --mode simplify takes files",
            file=sys.stderr,
        )
        return 2
    if args.output or args.out_dir:
        option = f"-o {args.output}" if args.output else f"--out-dir {args.out_dir}"
        print(
            f"fastdesk translate: {folder}: a folder is written into its own layout; drop {option}",
            file=sys.stderr,
        )
        return 2
    with contextlib.ExitStack() as held:
        try:
            project = open_project(folder, args.lang)
            held.enter_context(project_lock(project.root))
        except (UsageError, ProjectBusy) as exc:
            print(f"fastdesk translate: {exc}", file=sys.stderr)
            return 2
        return _run_locked(args, project, started)


def _run_locked(args: argparse.Namespace, project: Project, started: float) -> int:
    """The run, with the project's lock held."""
    skipped: list[tuple[PurePosixPath, str, str]] = []
    try:
        sources = changed_since(project, args.changed_since) if args.changed_since else None
        record = WrittenRecord(project.root)
        pairs = load_pairs(project, record, sources, skipped)
        _say_escapes(project, record)
        needy = [p for p in pairs if p.needed() and p.conflict != OUTSIDE]
        engine: Engine | None = None
        specs: dict[str, JobSpec] = {}
        if needy or labels_pending(project):  # (of an earlier run's; live, --batch or not)
            engine, specs = _build(args, project)
    except UsageError as exc:
        print(f"fastdesk translate: {exc}", file=sys.stderr)
        return 2
    requests: list[dict[str, object]] = []
    outcomes = {id(p): PairOutcome(p) for p in pairs}
    batch: BatchStep | None = None
    if engine is not None:
        try:
            if args.wait and not args.batch:
                raise UsageError("--wait goes with --batch")
            if args.batch:
                batch = run_batch(args, project, engine, specs, needy, _runner(engine, requests))
                if batch.exit is not None:
                    return batch.exit
            if batch is None or batch.live:
                live = _runner(engine, requests)
                done = live(lambda on: _pages_and_labels(engine, project, needy, specs, on))
            else:
                done = batch.outcomes
        except KeyboardInterrupt:
            print("fastdesk translate: interrupted; nothing more was written", file=sys.stderr)
            return 130
        except UsageError as exc:
            print(f"fastdesk translate: {exc}", file=sys.stderr)
            return 2
        outcomes.update({id(o.pair): o for o in done})
    elif args.batch:
        say_jobs(project)  # nothing stale: still say what is pending
    link_anchors(pairs)  # links follow the anchors translated headings and tabs move
    reports = [_finish(outcomes[id(p)], record, args.allow_partial) for p in pairs]
    for line in relink([p for p, r in zip(pairs, reports, strict=True) if not r.held], record):
        print(f"fastdesk translate: {line}", file=sys.stderr)
    if batch is not None:
        batch.done(all(r.status in ("ok", "partial") for r in reports))
    reports += _skipped(skipped)
    try:
        record.save()
    except OSError as exc:
        line = os_error_line(record.path, exc, "not written")
        print(f"fastdesk translate: {line}", file=sys.stderr)
    as_docs: list[DocReport] = [*reports]
    glossary = next((s.glossary for s in specs.values() if s.glossary), None)
    if glossary is None and args.report:  # nothing sent: the project's glossary all the same
        glossary = glossary_for(saved_settings(), project.root, project.root)
    write_report(args.report, as_docs, requests, (time.perf_counter() - started) * 1000, glossary)
    _summary(project, reports, len(requests))
    finished = reports[: len(pairs)]  # the skipped ones come after: not read, no score
    below = args.min_score is not None and _below_min_score(pairs, finished, args.min_score)
    bad = any(r.status in ("failed", "skipped") or r.not_translated for r in reports)
    return 1 if below or bad else 0


def _say_escapes(project: Project, record: WrittenRecord) -> None:
    """One line for every path that leads out of the project through a symlink."""
    escapes = project.escapes()
    if not record.inside and record.path.exists():
        escapes.append(RECORD_PATH.as_posix())
    if escapes:
        shown = ", ".join(escapes[:10]) + (
            f" and {len(escapes) - 10} more" if len(escapes) > 10 else ""
        )
        print(
            f"fastdesk translate: {len(escapes)} path(s) lead outside the project through a "
            f"symlink and were neither read nor written: {shown}",
            file=sys.stderr,
        )


def _skipped(skipped: list[tuple[PurePosixPath, str, str]]) -> list[PairReport]:
    """A report line (and one line on standard error per file) for each pair not read."""
    out = []
    said: set[PurePosixPath] = set()
    for source, lang, why in skipped:
        if source not in said:
            said.add(source)
            print(f"fastdesk translate: {source}: skipped: {why}", file=sys.stderr)
        report = PairReport(input=source.as_posix(), output=None, doc=parse(""), errors=[why])
        report.status, report.lang = "skipped", lang
        out.append(report)
    return out


def _below_min_score(pairs: list[Pair], reports: list[PairReport], min_score: float) -> bool:
    """``--min-score`` on a folder: each page's score as the memory's reviews give it (see
    ``fastdesk status``); one line for each page below it or without a score."""
    from fastdesk.translate.memory import Memory, default_path

    memory = Memory(default_path())
    below = False
    try:
        for pair, report in zip(pairs, reports, strict=True):
            if report.status == "failed":
                continue
            score = status.page_score(pair, memory)
            if score is None or score < min_score:
                said = "no review could score it" if score is None else f"review score {score:g}"
                print(
                    f"fastdesk translate: {pair.target.as_posix()}: {said} "
                    f"(--min-score {min_score:g})",
                    file=sys.stderr,
                )
                below = True
    finally:
        memory.close()
    return below


def _build(args: argparse.Namespace, project: Project) -> tuple[Engine, dict[str, JobSpec]]:
    """The single-file command's engine and job (settings, provider, the project's glossary
    and house style), one job per language with that language's corrections as examples."""
    engine, spec, house = build_job(args)
    return engine, {
        lang: house.apply(replace(spec, mode="translate", target_lang=lang))
        for lang in project.languages
    }


async def _pages_and_labels(
    engine: Engine,
    project: Project,
    pairs: list[Pair],
    specs: dict[str, JobSpec],
    on_request: Callable[[RequestDone], None],
) -> list[PairOutcome]:
    """The stale pages, then (Docusaurus) the sidebar's category labels into each language's
    current.json (fastdesk.project.categories) and the theme's strings in i18n/<lang>'s
    code.json, navbar.json and footer.json (fastdesk.project.theme_strings), (MkDocs) the
    ``nav`` titles into each language's nav_translations (fastdesk.project.nav)."""
    outcomes = await translate_pairs(engine, pairs, specs, on_request=on_request)
    for line in await translate_labels(engine, project, specs, on_request=on_request):
        print(f"fastdesk translate: {line}", file=sys.stderr)
    return outcomes


def _runner(engine: Engine, requests: list[dict[str, object]]) -> Runner:
    """Runs a project's work (live, or a batch job's answers taken in) in an event loop of its
    own: every request in the report and the day's costs, the engine closed after."""

    def run(work: Work) -> list[PairOutcome]:
        return asyncio.run(_run(engine, requests, work))

    return run


async def _run(engine: Engine, requests: list[dict[str, object]], work: Work) -> list[PairOutcome]:
    ledger = CostLedger(background=True)

    def on_request(event: RequestDone) -> None:
        requests.append({**event.stats.report_dict(), "purpose": event.stats.purpose})
        ledger.record(event.stats)

    try:
        return await work(on_request)
    finally:
        ledger.close()
        await engine.router.aclose()
        if engine.memory is not None:
            engine.memory.close()


@dataclass
class PairReport(DocReport):
    """A document's report line, with its language and what came from the disk."""

    lang: str = ""
    hand_edits: int = 0
    missing: tuple[int, ...] = ()
    held: bool = False  # partial and not written (no --allow-partial)

    def as_dict(self) -> dict[str, object]:
        out = super().as_dict()
        out.update(lang=self.lang, hand_edits=self.hand_edits, missing_lines=list(self.missing))
        return out


def _finish(outcome: PairOutcome, record: WrittenRecord, allow_partial: bool) -> PairReport:
    pair = outcome.pair
    report = PairReport(
        input=pair.source.as_posix(),
        output=pair.target.as_posix(),
        doc=pair.doc,
        translated=outcome.translated,
        from_memory=outcome.from_memory,
        flags=outcome.flags,
        memory_refused=outcome.memory_refused,
        errors=outcome.errors,
    )
    report.lang, report.hand_edits = pair.lang, pair.hand_edits
    report.target_lang = pair.lang
    report.translations = {
        i: text
        for i, b in enumerate(pair.doc.blocks)
        if b.translatable and (text := pair.review.shown_text(b.id)) is not None
    }
    report.missing = tuple(pair.missing())
    echoed = set(pair.not_translated())
    report.not_translated = [i for i, b in enumerate(pair.doc.blocks) if b.id in echoed]
    where = f"{pair.source} → {pair.target}"
    if pair.conflict == OUTSIDE:  # said once for the run
        report.status = "skipped"
        report.errors.append(OUTSIDE)
        return report
    try:
        return _write_pair(outcome, pair, report, record, allow_partial)
    except (OSError, UnicodeError) as exc:  # this file only: the others are written
        reason = os_reason(exc) if isinstance(exc, OSError) else str(exc)
        report.status = "failed"
        report.errors.append(reason)
        print(f"fastdesk translate: {where}: not written: {reason}", file=sys.stderr)
        return report


def _write_pair(
    outcome: PairOutcome,
    pair: Pair,
    report: PairReport,
    record: WrittenRecord,
    allow_partial: bool,
) -> PairReport:
    status, message = finish(outcome, record, allow_partial)
    if status != "ok":
        report.status = status
    elif report.status == "pending":
        report.status = "ok"
    report.held = status == "partial" and ": not written: " in message
    if message:
        print(f"fastdesk translate: {message}", file=sys.stderr)
    return report


def _summary(project: Project, reports: list[PairReport], requests: int) -> None:
    failed = sum(r.status in ("failed", "skipped") or r.held for r in reports)
    files = len({r.input for r in reports})
    print(
        f"fastdesk translate: {project.root.name}: {files} files × {len(project.languages)} "
        f"languages ({', '.join(project.languages)}); {requests} requests; "
        f"{sum(r.translated for r in reports)} blocks translated, "
        f"{sum(r.from_memory for r in reports)} from memory, "
        f"{sum(r.hand_edits for r in reports)} hand edits taken in; {failed} not written",
        file=sys.stderr,
    )
