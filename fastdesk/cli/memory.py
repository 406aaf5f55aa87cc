"""`fastdesk memory`: see or clear the translation memory (the window has the same actions),
and exchange it with translation tools as TMX 1.4b."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fastdesk.cli.translate import Progress
from fastdesk.config.fileio import atomic_write_text
from fastdesk.config.logs import setup_logging
from fastdesk.config.settings import saved_settings
from fastdesk.translate.memory import Memory
from fastdesk.translate.tmx import TmxError, export_tmx, import_tmx, read_tmx, write_tmx
from fastdesk.translate.wiring import glossary_for, style_for


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("memory", help="show, clear, export or import the translation memory")
    p.add_argument("action", choices=("stats", "clear", "export", "import"))
    p.add_argument("file", nargs="?", metavar="FILE.tmx", help="import: the TMX file to read")
    p.add_argument("--tmx", metavar="FILE", help="export: the TMX file to write")
    p.add_argument("--to", dest="lang", metavar="LANG", help="export: only this language")
    p.set_defaults(func=run_memory)


def run_memory(args: argparse.Namespace) -> int:
    """0 when done; 1 when the memory cannot be used (its one-line warning says why); 2 bad
    usage."""

    if args.action == "export" and not args.tmx:
        print("fastdesk memory: export needs --tmx FILE", file=sys.stderr)
        return 2
    if args.action == "import" and not args.file:
        print("fastdesk memory: import needs a FILE.tmx", file=sys.stderr)
        return 2
    setup_logging(0, to_file=False)
    memory = Memory()
    try:
        if not memory.available:
            return 1
        if args.action == "clear":
            n = memory.count()
            if not memory.clear():
                return 1
            print(f"cleared {n} translations from {memory.path}")
        elif args.action == "export":
            return _export(memory, Path(args.tmx), args.lang)
        elif args.action == "import":
            return _import(memory, Path(args.file))
        else:
            print(f"{memory.count()} translations in {memory.path}")
    finally:
        memory.close()
    return 0


def _export(memory: Memory, path: Path, lang: str | None) -> int:
    units = export_tmx(memory, lang)
    atomic_write_text(path, write_tmx(units))
    pairs = sum(len(u.targets) for u in units)
    unknown = memory.unknown_sources()
    note = f"; {unknown} answers without a recorded source text left out" if unknown else ""
    print(f"wrote {len(units)} units ({pairs} translations) to {path}{note}")
    return 0


SHOWN_REFUSALS = 10  # the entries named on standard error; the summary counts them all


def _import(memory: Memory, path: Path) -> int:
    """One transaction: Ctrl+C (exit 130, one line) leaves the memory as it was."""
    try:
        try:
            units = read_tmx(path)
        except TmxError as exc:
            print(f"fastdesk memory: {exc}", file=sys.stderr)
            return 2
        here = Path.cwd() / path.name  # the glossary and house style of the folder it runs in
        glossary = glossary_for(saved_settings(), here)
        progress = Progress(sum(len(u.targets) for u in units), "translations")
        try:
            done = import_tmx(memory, units, glossary, style_for(here), progress.advance)
        finally:
            progress.close()
    except KeyboardInterrupt:
        print(f"fastdesk memory: interrupted: nothing imported from {path}", file=sys.stderr)
        return 130
    for entry in done.brought_in[:SHOWN_REFUSALS]:
        print(f"fastdesk memory: not imported: {entry}", file=sys.stderr)
    if len(done.brought_in) > SHOWN_REFUSALS:
        more = len(done.brought_in) - SHOWN_REFUSALS
        print(f"fastdesk memory: … and {more} more not imported", file=sys.stderr)
    print(f"imported from {path} into {memory.path}: {done.summary()}")
    return 0
