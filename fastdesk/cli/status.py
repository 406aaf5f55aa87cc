"""`fastdesk status [DIR] [--to LANGS] [--json]`: per source file and language, what is stale.

Reads only (the sidecars, the written record, the targets on disk): no request, nothing
written; exit 0 whatever the state, so CI can read the JSON and decide.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import PurePosixPath

from fastdesk.cli.common import UsageError
from fastdesk.cli.project import open_project
from fastdesk.config.fileio import DocumentError
from fastdesk.project.batch_flow import describe_jobs
from fastdesk.project.layout import CONFIG_NAME, publish_hint
from fastdesk.project.status import describe, read_status
from fastdesk.translate.memory import Memory, default_path


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("status", help="a docs project: what is stale, per file and language")
    p.add_argument("folder", nargs="?", default=".", metavar="DIR")
    p.add_argument("--to", dest="lang", metavar="LANGS", help="languages, e.g. fr,de")
    p.add_argument("--json", action="store_true", help="one JSON document on standard output")
    p.set_defaults(func=run_status)


def _memory() -> Memory | None:
    """The translation memory, for the pages' review scores; None when there is none yet
    (opening it would make one)."""
    path = default_path()
    return Memory(path) if path.is_file() else None


def run_status(args: argparse.Namespace) -> int:
    skipped: list[tuple[PurePosixPath, str, str]] = []
    try:
        project = open_project(args.folder, args.lang, need_languages=False)
        memory = _memory()
        try:
            status = read_status(project, skipped=skipped, memory=memory)
        finally:
            if memory is not None:
                memory.close()
    except (UsageError, DocumentError) as exc:
        print(f"fastdesk status: {exc}", file=sys.stderr)
        return 2
    for source in dict.fromkeys(s for s, _lang, _why in skipped):  # one line a file
        why = next(w for s, _l, w in skipped if s == source)
        print(f"fastdesk status: {source}: skipped: {why}", file=sys.stderr)
    escapes = project.escapes()
    if escapes:
        print(
            f"fastdesk status: {len(escapes)} path(s) lead outside the project through a "
            f"symlink and were not read: {', '.join(escapes[:10])}",
            file=sys.stderr,
        )
    if not project.languages:  # nothing is stale in no language: said, and exit 0
        print(
            f"fastdesk status: {args.folder}: no target languages; give --to fr,de or "
            f"languages in {CONFIG_NAME}",
            file=sys.stderr,
        )
    files, totals = list(status.files), status.totals
    jobs = describe_jobs(project)
    if args.json:
        payload = {
            "project": {
                "root": str(project.root),
                "layout": project.layout,
                "dialect": project.dialect,
                "source": project.source_lang,
                "languages": list(project.languages),
            },
            "files": files,
            "totals": totals,
            "batch_jobs": [job.summary() for job in jobs],
        }
        print(json.dumps(payload, indent=2, ensure_ascii=False))
        return 0
    langs = ", ".join(project.languages)
    print(f"{project.root.name}: {project.layout}, {project.source_lang} → {langs}")
    width = max((len(str(f["source"])) for f in files), default=0)
    for f in files:
        print(f"  {f['source']!s:<{width}}  {f['lang']:<5}  {describe(f)}")
    print(
        f"{totals['up_to_date']} up to date, {totals['stale']} stale, {totals['missing']} "
        f"missing, {totals['conflict']} in conflict ({totals['stale_blocks']} stale blocks)"
    )
    for job in jobs:
        print(job.line())
    if jobs:
        print(f"note: `fastdesk translate {args.folder} --batch` writes what the jobs answered")
    hint = publish_hint(project)
    if hint:
        print(f"note: {hint}")
    return 0
