"""`fastdesk translate DIR --to fr,de`: a docs project, only its stale or missing blocks.

Kept apart from cli/translate.py (single files): that module hands a folder over to this one.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import time
from dataclasses import dataclass, replace
from pathlib import PurePosixPath

from fastdesk.cli.common import DocReport, UsageError, build_job, write_report
from fastdesk.config.fileio import DocumentError
from fastdesk.project import status
from fastdesk.project.layout import CONFIG_NAME, Project, ProjectError, find_project
from fastdesk.project.record import WrittenRecord
from fastdesk.project.run import PairOutcome, translate_pairs
from fastdesk.project.sync import Pair
from fastdesk.routing.costs import CostLedger
from fastdesk.translate.engine import Engine, JobSpec
from fastdesk.translate.events import RequestDone

__all__ = ["load_pairs", "open_project", "run_project"]


def parse_languages(value: str | None) -> tuple[str, ...]:
    """``fr,de, es`` → ("fr", "de", "es")."""
    if not value:
        return ()
    return tuple(dict.fromkeys(p.strip() for p in value.split(",") if p.strip()))


def open_project(folder: str, langs: str | None) -> Project:
    """The project at ``folder`` with ``--to``'s languages; UsageError when there is none."""
    try:
        project = find_project(folder, parse_languages(langs))
    except ProjectError as exc:
        raise UsageError(str(exc)) from None
    if not project.languages:
        raise UsageError(
            f"{folder}: no target languages; give --to fr,de or languages in {CONFIG_NAME}"
        )
    return project


def load_pairs(
    project: Project, record: WrittenRecord, sources: list[PurePosixPath] | None = None
) -> list[Pair]:
    """Every (source, language) pair (fastdesk.project.status.load_pairs); an unreadable
    source is bad input."""
    try:
        return status.load_pairs(project, record, sources)
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
    if args.mode == "simplify":
        print(
            "fastdesk translate: a folder is translated; --mode simplify takes files",
            file=sys.stderr,
        )
        return 2
    if args.output or args.out_dir:
        print(
            "fastdesk translate: a folder is written into its own layout; drop -o/--out-dir",
            file=sys.stderr,
        )
        return 2
    try:
        project = open_project(args.inputs[0], args.lang)
        sources = changed_since(project, args.changed_since) if args.changed_since else None
        record = WrittenRecord(project.root)
        pairs = load_pairs(project, record, sources)
        needy = [p for p in pairs if p.needed()]
        engine: Engine | None = None
        specs: dict[str, JobSpec] = {}
        if needy:
            engine, specs = _build(args, project)
    except UsageError as exc:
        print(f"fastdesk translate: {exc}", file=sys.stderr)
        return 2
    requests: list[dict[str, object]] = []
    outcomes = {id(p): PairOutcome(p) for p in pairs}
    if engine is not None:
        try:
            done = asyncio.run(_run(engine, needy, specs, requests))
        except KeyboardInterrupt:
            print("fastdesk translate: interrupted; nothing more was written", file=sys.stderr)
            return 130
        outcomes.update({id(o.pair): o for o in done})
    reports = [_finish(outcomes[id(p)], record, args.allow_partial) for p in pairs]
    record.save()
    as_docs: list[DocReport] = [*reports]
    write_report(args.report, as_docs, requests, (time.perf_counter() - started) * 1000)
    _summary(project, reports, len(requests))
    return 1 if any(r.status == "failed" for r in reports) else 0


def _build(args: argparse.Namespace, project: Project) -> tuple[Engine, dict[str, JobSpec]]:
    """The single-file command's engine and job (settings, provider, glossary of the folder),
    one job per language."""
    engine, spec = build_job(args)
    return engine, {
        lang: replace(spec, mode="translate", target_lang=lang, source_lang=project.source_lang)
        for lang in project.languages
    }


async def _run(
    engine: Engine,
    pairs: list[Pair],
    specs: dict[str, JobSpec],
    requests: list[dict[str, object]],
) -> list[PairOutcome]:
    ledger = CostLedger(background=True)

    def on_request(event: RequestDone) -> None:
        requests.append(event.stats.report_dict())
        ledger.record(event.stats)

    try:
        return await translate_pairs(engine, pairs, specs, on_request=on_request)
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
        errors=outcome.errors,
    )
    report.lang, report.hand_edits = pair.lang, pair.hand_edits
    report.missing = tuple(pair.missing())
    where = f"{pair.source} → {pair.target}"
    if pair.conflict:
        report.status = "failed"
        print(f"fastdesk translate: {where}: not written: {pair.conflict}", file=sys.stderr)
        pair.save_review()
        return report
    if report.missing and not allow_partial:
        report.status = "failed"
        reason = outcome.errors[0] if outcome.errors else "no translation"
        lines = ", ".join(map(str, report.missing[:10]))
        print(
            f"fastdesk translate: {where}: not written: {len(report.missing)} blocks have no "
            f"translation (lines {lines}): {reason}",
            file=sys.stderr,
        )
        pair.save_review()  # what did arrive is kept for the next run
        return report
    if report.missing:
        report.status = "partial"
        lines = ", ".join(map(str, report.missing[:10]))
        print(
            f"fastdesk translate: {where}: written with the source in place of "
            f"{len(report.missing)} blocks (lines {lines})",
            file=sys.stderr,
        )
    pair.write(record)
    return report


def _summary(project: Project, reports: list[PairReport], requests: int) -> None:
    failed = sum(r.status == "failed" for r in reports)
    files = len({r.input for r in reports})
    print(
        f"fastdesk translate: {project.root.name}: {files} files × {len(project.languages)} "
        f"languages ({', '.join(project.languages)}); {requests} requests; "
        f"{sum(r.translated for r in reports)} blocks translated, "
        f"{sum(r.from_memory for r in reports)} from memory, "
        f"{sum(r.hand_edits for r in reports)} hand edits taken in; {failed} not written",
        file=sys.stderr,
    )
