"""One root for a project: every path a run reads or writes must lie inside it.

Why: a project is often a repository someone else wrote (a clone, a pull request). Its
configuration names folders and target templates, and it may hold symlinks; none of that may
make fastdesk read a file outside the project (and send it to a provider) or write one there.
The configuration is checked as text before anything is read (:func:`relative_problem`,
:func:`template_problem`); each path is checked as the disk has it, symlinks followed, just
before it is read or written (:func:`within`).
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path

__all__ = ["relative_problem", "template_problem", "within"]


def within(root: Path, path: Path, folders: dict[Path, Path] | None = None) -> bool:
    """Whether ``path``, symlinks followed (its missing tail taken as written), is ``root`` or
    lies under it. ``root`` is already resolved. A symlink loop or an unreadable link is not
    inside: nothing is read or written through it. ``folders`` caches each folder's resolved
    path for one run (a project's files share a few folders: one ``lstat`` a file then)."""
    try:
        if folders is None or path.name in ("", ".", "..") or os.path.islink(path):
            real = Path(os.path.realpath(path))
        else:
            folder = folders.get(path.parent)
            if folder is None:
                folder = folders[path.parent] = Path(os.path.realpath(path.parent))
            real = folder / path.name
    except (OSError, RuntimeError, ValueError):
        return False
    return real == root or real.is_relative_to(root)


def relative_problem(value: str) -> str | None:
    """Why a folder named by a configuration (``docs_dir``, a root's ``source``) would lead
    outside the project, as written (absolute, or climbing with ``..``); None when it does not."""
    if "\x00" in value:
        return "is not a valid path"
    if posixpath.isabs(value) or os.path.isabs(value) or (len(value) > 1 and value[1] == ":"):
        return "is an absolute path: it must be a folder inside the project"
    norm = posixpath.normpath(value.replace("\\", "/"))
    if norm == ".." or norm.startswith("../"):
        return "leads outside the project"
    return None


def template_problem(template: str, languages: tuple[str, ...]) -> str | None:
    """Why a target template (``docs/{lang}/{path}``) would write outside the project for some
    language or page, or cannot be filled; None when every target it makes stays inside."""
    fields = {"path": "p/x.md", "dir": "p/", "stem": "x", "ext": ".md"}
    for lang in languages or ("fr",):
        try:
            filled = template.format(lang=lang, **fields)
        except (KeyError, IndexError, ValueError, AttributeError):
            return "has a field other than {lang}, {path}, {dir}, {stem} and {ext}"
        problem = relative_problem(filled)
        if problem is not None:
            return problem
        if posixpath.normpath(filled) in (".", ""):
            return "names no file"
    return None
