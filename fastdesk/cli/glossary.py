"""`fastdesk glossary`: grow the project's glossary from the command line.

``suggest`` reads the editor's approved corrections (the review files) and lists the word
changes made the same way in several blocks ("you changed "Tirez" to "Extrayez" 3 times"); with
``--add`` those whose source term is known become entries. ``add`` writes one entry. Entries go
into the glossary file the documents use (fastdesk.translate.glossary_edit), so the team gets
them with the next pull.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fastdesk.project.layout import Project, ProjectError, enclosing_project, find_project
from fastdesk.review.corrections import corrections, propose_entries, review_files
from fastdesk.translate.glossary import GlossaryError
from fastdesk.translate.glossary_edit import add_translation, glossary_to_write


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("glossary", help="the project's glossary: suggest entries, add one")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    s = actions.add_parser("suggest", help="entries the editor's corrections keep making")
    s.add_argument("path", nargs="?", default=".", metavar="DIR|FILE.md")
    s.add_argument("--to", dest="lang", required=True, metavar="LANG")
    s.add_argument("--add", action="store_true", help="add those whose source term is known")
    s.set_defaults(func=run_suggest)
    a = actions.add_parser("add", help="translate SOURCE as TARGET in LANG, from now on")
    a.add_argument("source", metavar="SOURCE")
    a.add_argument("target", metavar="TARGET")
    a.add_argument("--to", dest="lang", required=True, metavar="LANG")
    a.add_argument("--in", dest="path", default=".", metavar="DIR|FILE.md")
    a.set_defaults(func=run_add)


def _where(path: str) -> tuple[Path, Project | None]:
    """The document or folder, and the docs project it belongs to (None: none)."""
    place = Path(path)
    if place.is_dir():
        try:
            return place, find_project(place)
        except ProjectError:
            return place, None
    found = enclosing_project(place)
    return place, found[0] if found else None


def run_suggest(args: argparse.Namespace) -> int:
    from fastdesk.config.settings import saved_settings
    from fastdesk.translate.wiring import glossary_for

    place, project = _where(args.path)
    if not place.exists():
        print(f"fastdesk glossary: {args.path}: no such file or folder", file=sys.stderr)
        return 2
    top = project.root if project else None
    folder = top or (place if place.is_dir() else place.absolute().parent)
    found = corrections(review_files(folder, recursive=project is not None), args.lang, folder)
    known = glossary_for(saved_settings(), place, top)
    proposals = propose_entries(found, args.lang, glossary=known)
    if not proposals:
        print(f"fastdesk glossary: {len(found)} corrections, no change made 3 times or more")
        return 0
    target = glossary_to_write(place, top)
    for proposal in proposals:
        print(proposal.message())
        if args.add and proposal.source_term:
            try:
                add_translation(target, args.lang, proposal.source_term, proposal.after)
            except (GlossaryError, OSError) as exc:
                print(f"fastdesk glossary: {exc}", file=sys.stderr)
                return 1
            print(f'  added to {target}: "{proposal.source_term}" = "{proposal.after}"')
    return 0


def run_add(args: argparse.Namespace) -> int:
    place, project = _where(args.path)
    target = glossary_to_write(place, project.root if project else None)
    try:
        added = add_translation(target, args.lang, args.source, args.target)
    except (GlossaryError, OSError) as exc:
        print(f"fastdesk glossary: {exc}", file=sys.stderr)
        return 2
    print(f"{target}: {'added' if added else 'already there'}: {args.source!r} → {args.target!r}")
    return 0
