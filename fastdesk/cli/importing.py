"""`fastdesk import FILE.xlf|FILE.po`: a translator's work back into the source's review, as
the editor's corrections (and approvals, from XLIFF ``final``). The next `fastdesk translate`
or `fastdesk export` writes them into the target."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path, PureWindowsPath

from fastdesk.cli.common import UsageError
from fastdesk.cli.export import open_review
from fastdesk.config.fileio import MAX_DOCUMENT_STATE_BYTES
from fastdesk.document.languages import is_bcp47
from fastdesk.project.confine import within
from fastdesk.project.layout import MARKERS
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
    meta, units = read(path)  # refuses what is not a regular file of a sane size, at once
    lang, original = meta["target-language"], meta["original"]
    if not lang or not original:
        raise UsageError(f"{path}: names no target language or source file")
    if not is_bcp47(lang):
        raise UsageError(f"{path}: target language {lang!r} is not a BCP-47 code such as fr")
    source = _source_of(path, original)
    opened = open_review(str(source), lang)
    previous = opened.pair.previous if opened.pair else None
    result = apply_units(opened.doc, opened.review, units, previous)
    size = len(json.dumps(opened.review.to_dict(), ensure_ascii=False).encode("utf-8"))
    if size > MAX_DOCUMENT_STATE_BYTES // 2:  # the sidecar holds every language's review
        raise UsageError(
            f"{path}: taking it in would make {source.name}'s review file about "
            f"{size // 1_000_000} MB, more than fastdesk reads back; nothing was taken in"
        )
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


def _source_of(path: Path, original: str) -> Path:
    """The Markdown file an XLIFF or PO file names (relative to itself). It must lie, symlinks
    followed, inside the folder the command runs in or the project (or git work tree) the
    file belongs to: a file from elsewhere must not write a review beside another document."""
    if "\x00" in original or Path(original).is_absolute() or PureWindowsPath(original).drive:
        raise UsageError(f"{path}: its source {original!r} is an absolute path; not taken in")
    source = path.parent / original
    if source.suffix.lower() not in (".md", ".markdown", ".mdx"):
        raise UsageError(f"{path}: its source {original!r} is not a Markdown file")
    roots = [Path.cwd().resolve(), _top(path.parent.resolve())]
    if not any(within(root, source) for root in roots):
        raise UsageError(
            f"{path}: its source {original!r} lies outside {roots[1]} and the current folder; "
            "not taken in"
        )
    if not source.is_file():
        raise UsageError(f"{path}: its source {original} is not at {source}")
    return source


def _top(folder: Path) -> Path:
    """The project or git work tree ``folder`` is in, else ``folder`` itself."""
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists() or any((candidate / m).is_file() for m in MARKERS):
            return candidate
    return folder
