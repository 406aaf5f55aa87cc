"""Hugo: links to a definition term follow the term's translation.

With ``markup.goldmark.parser.autoDefinitionTermID`` Hugo gives each definition term (``dt``)
an id made from its text, numbered with the headings' ids. A heading keeps its source's id
through an explicit ``{#id}`` (fastdesk.document.syntax.keep_anchor), but Goldmark reads no
explicit id on a term: a translated term gets a new id, and every ``#fragment`` pointing at it
breaks. So the target is written with those fragments rewritten to the ids Hugo will compute
from the translated page, in the page itself and in the pages that link to it (Markdown
links, reference definitions, ``href=""``, ``{{< ref >}}``/``relref`` paths).

The ids of a page are paired with its translation's by position (a translation keeps its
headings and terms in order); a page whose count differs is left alone. Another page's
translation is read from its target on disk, so the project's run writes its Hugo targets a
second time once every one exists (cli.project).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import PurePosixPath

from fastdesk.config.fileio import DocumentError, read_document
from fastdesk.document.blocks import parse
from fastdesk.document.syntax import anchors, explicit_id
from fastdesk.project.layout import Project
from fastdesk.project.links import outside_code
from fastdesk.translate.dialect import anchored

__all__ = ["fragment_rewriter", "page_ids"]

# a link destination with a fragment: [t](dest#id), [ref]: dest#id, href="dest#id",
# {{< ref "dest#id" >}} / relref
_DEST = re.compile(
    r"(?P<lead>\]\(\s*<?|^ {0,3}\[[^\]\n]+\]:[ \t]*<?|\bhref=[\"']"
    r"|\{\{[<%]-?\s*(?:rel)?ref\s+[\"'])"
    r"(?P<path>[^\s)>\"'#]*)#(?P<frag>[^\s)>\"']+)",
    re.MULTILINE,
)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:|^//")


def page_ids(text: str, project: Project) -> list[str]:
    """The ids Hugo gives a page's top-level headings and definition terms, in order."""
    return list(_page_ids(text, project.id_type))


@lru_cache(maxsize=1024)
def _page_ids(text: str, id_type: str) -> tuple[str, ...]:
    """Kept for the last pages read: a run shows each target two or three times (read, written,
    written again for the links of the pages after it)."""
    lines, terms = anchored(parse(text), term_ids=True)
    made = anchors(lines, "hugo", terms=terms, id_type=id_type)
    out = []
    for key, line in lines:
        given = None if key in terms else explicit_id(line)
        if given or key in made:
            out.append(given or made[key])
    return tuple(out)


def _renamed(source: str, target: str, project: Project) -> dict[str, str]:
    """Source id → the id the same heading or term has in the target, where they differ."""
    theirs, ours = page_ids(source, project), page_ids(target, project)
    if len(theirs) != len(ours):
        return {}
    out: dict[str, str] = {}
    for before, after in zip(theirs, ours, strict=True):
        out.setdefault(before, after)  # a link goes to the first element of that id
    return {k: v for k, v in out.items() if k != v}


@lru_cache(maxsize=64)
def _renamed_file(
    project: Project, source: PurePosixPath, lang: str, stamp: tuple[float, ...]
) -> dict[str, str]:
    del stamp  # the files' times and sizes: a changed file is read again
    try:
        theirs = read_document(project.root / source)
        ours = read_document(project.root / project.target(source, lang))
    except (DocumentError, OSError):
        return {}
    return _renamed(theirs, ours, project)


def _on_disk(project: Project, source: PurePosixPath, lang: str) -> dict[str, str]:
    """Another page's renamed ids, from its source and its target as they are on disk."""
    target = project.target(source, lang)
    if not (project.inside(source) and project.inside(target)):
        return {}
    stamp: list[float] = []
    for rel in (source, target):
        try:
            st = (project.root / rel).stat()
        except OSError:
            return {}
        stamp += [st.st_mtime_ns, st.st_size]
    return _renamed_file(project, source, lang, tuple(stamp))


def _linked_page(
    project: Project, source: PurePosixPath, path: str, pages: frozenset[PurePosixPath]
) -> PurePosixPath | None:
    """The source page a Hugo link path names (``/a/b/``, ``../b/``, ``b.md``), as Hugo's
    link render hook and ``ref`` find it: from the content root, or from the page's URL or its
    file's folder."""
    if not path:
        return source
    if _SCHEME.match(path):
        return None
    root = next((r.source for r in project.roots if source.is_relative_to(r.source)), "")
    rel = source.relative_to(root) if root else source
    here = rel.parent if rel.stem in ("index", "_index") else rel.parent / rel.stem
    bases = [""] if path.startswith("/") else [here.as_posix(), rel.parent.as_posix()]
    for base in bases:
        logical = posixpath.normpath(posixpath.join(base, path.strip("/") or "."))
        logical = logical.removesuffix(".md")
        for name in (f"{logical}.md", f"{logical}/index.md", f"{logical}/_index.md"):
            found = PurePosixPath(root) / posixpath.normpath(name) if root else PurePosixPath(name)
            if found in pages:
                return found
    return None


def fragment_rewriter(
    project: Project, source: PurePosixPath, lang: str, source_text: str, target_text: str
) -> Callable[[str], str]:
    """A function that rewrites, in a part of ``target_text`` (``source``'s translation into
    ``lang``), each link fragment naming a heading or term whose id the translation changes
    (in this page, or in another whose target is on disk). The identity when the project's
    Hugo gives terms no ids."""
    if project.dialect != "hugo" or not project.term_ids:
        return lambda text: text
    pages = frozenset(project.sources())

    @lru_cache(maxsize=1)
    def own() -> dict[str, str]:  # read only when the page links into itself
        return _renamed(source_text, target_text, project)

    def fix(m: re.Match[str]) -> str:
        page = _linked_page(project, source, m["path"], pages)
        if page is None:
            return m[0]
        renamed = own() if page == source else _on_disk(project, page, lang)
        frag = renamed.get(m["frag"])
        return m[0] if frag is None else f"{m['lead']}{m['path']}#{frag}"

    return lambda text: outside_code(text, lambda part: _DEST.sub(fix, part))
