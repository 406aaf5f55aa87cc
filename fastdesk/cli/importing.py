"""`fastdesk import FILE.xlf|FILE.po`: a translator's work back into the source's review, as
the editor's corrections (and approvals, from XLIFF ``final``). The next `fastdesk translate`
or `fastdesk export` writes them into the target."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fastdesk.cli.common import UsageError
from fastdesk.cli.export import open_review
from fastdesk.review.interchange.po import read_po
from fastdesk.review.interchange.units import apply_units
from fastdesk.review.interchange.xliff import read_xliff
from fastdesk.review.model import save_review


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("import", help="bring a translator's XLIFF or PO file back in")
    p.add_argument("input", metavar="FILE.xlf|FILE.po")
    p.set_defaults(func=run_import)


def run_import(args: argparse.Namespace) -> int:
    try:
        return _run(Path(args.input))
    except (UsageError, ValueError) as exc:
        print(f"fastdesk import: {exc}", file=sys.stderr)
        return 2


def _run(path: Path) -> int:
    suffix = path.suffix.lower()
    if suffix in (".xlf", ".xliff"):
        read = read_xliff
    elif suffix == ".po":
        read = read_po
    else:
        raise UsageError(f"{path}: not .xlf, .xliff or .po")
    if not path.is_file():
        raise UsageError(f"{path}: no such file")
    meta, units = read(path)
    lang, original = meta["target-language"], meta["original"]
    if not lang or not original:
        raise UsageError(f"{path}: names no target language or source file")
    source = (path.parent / original) if not Path(original).is_absolute() else Path(original)
    if not source.is_file():
        raise UsageError(f"{path}: its source {original} is not at {source}")
    opened = open_review(str(source), lang)
    previous = opened.pair.previous if opened.pair else None
    result = apply_units(opened.doc, opened.review, units, previous)
    if opened.pair is not None:
        opened.pair.save_review()
    else:
        save_review(opened.review)
    for reason in result.skipped:
        print(f"fastdesk import: {path}: skipped {reason}", file=sys.stderr)
    print(
        f"fastdesk import: {source} ({lang}): {result.edited} corrections, {result.approved} "
        f"approvals, {result.unchanged} unchanged, {len(result.skipped)} skipped",
        file=sys.stderr,
    )
    return 0
