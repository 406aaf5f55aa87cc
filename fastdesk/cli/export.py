"""`fastdesk export FILE.md --to LANG --format md|html|xliff|po [-o OUT]`: the target, the
bilingual review page, or the review for a translation tool, from the memory and the review
sidecar alone (no request). md and html are written by fastdesk/review/export.py, as the
window's Export does."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from fastdesk.cli.common import UsageError
from fastdesk.config.fileio import DocumentError, atomic_write_text, read_document
from fastdesk.config.settings import saved_settings
from fastdesk.document.blocks import Document, parse
from fastdesk.project.house import house_for
from fastdesk.project.layout import enclosing_project
from fastdesk.project.record import WrittenRecord
from fastdesk.project.sync import Pair, link_anchors, open_pair
from fastdesk.review.export import export_bilingual, export_path, export_target, html_export_path
from fastdesk.review.interchange.po import write_po
from fastdesk.review.interchange.units import units_of
from fastdesk.review.interchange.xliff import write_xliff
from fastdesk.review.model import Review, load_review
from fastdesk.routing.router import Router
from fastdesk.routing.stats import StatsStore
from fastdesk.translate.engine import Engine
from fastdesk.translate.events import BlockDone
from fastdesk.translate.job import JobSpec
from fastdesk.translate.memory import Memory

FORMATS = ("md", "html", "xliff", "po")
_SUFFIX = {"xliff": ".xlf", "po": ".po"}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("export", help="write a file's translation from memory and review")
    p.add_argument("input", metavar="FILE.md")
    p.add_argument("--to", dest="lang", required=True, metavar="LANG")
    p.add_argument("--format", choices=FORMATS, default="md")
    p.add_argument("-o", "--output", metavar="OUT", help="where to write (default: beside it)")
    p.add_argument(
        "--allow-partial", action="store_true", help="md/html: exit 0 though blocks lack one"
    )
    p.set_defaults(func=run_export)


@dataclass
class Opened:
    """A source file's review in one language, with its project pair when it has one."""

    path: Path
    doc: Document
    review: Review
    source_lang: str
    pair: Pair | None = None


def open_review(path: str, lang: str) -> Opened:
    """The review of ``path`` in ``lang`` as it is now: realigned onto the source and, in a
    project, with the hand edits on its target taken in. UsageError for an unreadable file."""
    try:
        found = enclosing_project(path)
        if found is not None:
            project, rel = found
            pair = open_pair(project, rel, lang, WrittenRecord(project.root))
            return Opened(Path(path), pair.doc, pair.review, project.source_lang, pair)
        doc = parse(read_document(path))
    except DocumentError as exc:
        raise UsageError(str(exc)) from None
    review, warnings = load_review(path, lang, doc)
    for warning in warnings:
        print(f"fastdesk: {warning}", file=sys.stderr)
    return Opened(Path(path), doc, review, "en")


def fill_from_memory(opened: Opened, lang: str) -> int:
    """Blocks the review has nothing for, answered by the translation memory; how many."""

    review, doc = opened.review, opened.doc
    wanted = [b.id for b in doc.blocks if b.translatable and review.shown_text(b.id) is None]
    if not wanted:
        return 0
    house = house_for(opened.path, saved_settings())
    # the keys the engine made: the document's glossary and house style
    spec = JobSpec(target_lang=lang, glossary=house.glossary, style=house.style)
    memory = Memory()
    try:  # planning only: the engine's memory lookup, no provider, no request
        engine = Engine(Router({}, stats=StatsStore.memory()), memory)
        hits = engine.plan(doc, spec, wanted).hits
    finally:
        memory.close()
    for block, text, flags in hits:
        review.apply_event(BlockDone(0, block.id, text, "memory", flags))
    return len(hits)


def default_output(opened: Opened, lang: str, fmt: str) -> Path:
    if fmt == "md":
        pair = opened.pair
        return pair.project.root / pair.target if pair else export_path(opened.path, lang)
    if fmt == "html":
        return html_export_path(opened.path, lang)
    return export_path(opened.path, lang).with_suffix(_SUFFIX[fmt])


def run_export(args: argparse.Namespace) -> int:
    try:
        opened = open_review(args.input, args.lang)
    except UsageError as exc:
        print(f"fastdesk export: {exc}", file=sys.stderr)
        return 2
    fill_from_memory(opened, args.lang)
    out = Path(args.output) if args.output else default_output(opened, args.lang, args.format)
    if out.resolve() == opened.path.resolve():
        print(f"fastdesk export: {out}: output would overwrite its input", file=sys.stderr)
        return 2
    doc, review = opened.doc, opened.review
    missing = [
        b.line
        for b in doc.blocks
        if b.translatable and b.split()[1].strip() and review.shown_text(b.id) is None
    ]
    if args.format in ("xliff", "po"):
        units = units_of(doc, review, opened.pair.previous if opened.pair else None)
        original = Path(_relative(opened.path, out.parent)).as_posix()
        write = write_xliff if args.format == "xliff" else write_po
        text = write(
            units, original=original, source_lang=opened.source_lang, target_lang=args.lang
        )
        atomic_write_text(out, text)
        print(
            f"fastdesk export: wrote {len(units)} units to {out} ({len(missing)} untranslated)",
            file=sys.stderr,
        )
        return 0
    if missing:
        lines = ", ".join(map(str, missing[:20]))
        print(
            f"fastdesk export: {opened.path}: no translation for {len(missing)} blocks "
            f"(lines {lines})",
            file=sys.stderr,
        )
    if args.format == "html":
        export_bilingual(doc, review, args.lang, out, source_lang=opened.source_lang)
    elif missing and not args.allow_partial:
        print(
            "fastdesk export: the Markdown was not written (--allow-partial writes the "
            "source in their place)",
            file=sys.stderr,
        )
        return 1
    elif opened.pair is not None:
        link_anchors([opened.pair])  # as `fastdesk translate DIR` writes the target
        export_target(opened.pair.view().text, out)
    else:
        export_target(review.target_text(doc), out)
    print(f"fastdesk export: wrote {out}", file=sys.stderr)
    return 1 if missing and not args.allow_partial else 0


def _relative(path: Path, folder: Path) -> str:
    return os.path.relpath(path.resolve(), folder.resolve())
