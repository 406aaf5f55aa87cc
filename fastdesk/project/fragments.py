"""Hugo: link fragments rewritten to the anchors the translation moves, in Hugo's link syntax.

The anchors themselves (definition terms' ids, which Hugo makes from their text) come from
the one model of a page's anchors in the source and in the translation
(fastdesk.project.anchors, gathered per language by fastdesk.project.sync.link_anchors); what is
Hugo's own is how a link names the page it points into: Markdown links, reference definitions,
``href=""`` and ``{{< ref >}}``/``relref`` paths, resolved as Hugo resolves them (by page path,
from the content root or from the page's URL or folder), not rebased like MkDocs' relative
links (fastdesk.project.links).
"""

from __future__ import annotations

import posixpath
import re
from pathlib import PurePosixPath

from fastdesk.project.anchors import AnchorTable
from fastdesk.project.layout import Project
from fastdesk.project.links import outside_code

__all__ = ["hugo_fragments"]

# a link destination with a fragment: [t](dest#id), [ref]: dest#id, href="dest#id",
# {{< ref "dest#id" >}} / relref
_DEST = re.compile(
    r"(?P<lead>\]\(\s*<?|^ {0,3}\[[^\]\n]+\]:[ \t]*<?|\bhref=[\"']"
    r"|\{\{[<%]-?\s*(?:rel)?ref\s+[\"'])"
    r"(?P<path>[^\s)>\"'#]*)#(?P<frag>[^\s)>\"']+)",
    re.MULTILINE,
)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:|^//")


def _linked_page(
    project: Project, source: PurePosixPath, path: str, pages: AnchorTable
) -> str | None:
    """The source page (as ``pages`` names it) that a Hugo link path names (``/a/b/``,
    ``../b/``, ``b.md``), as Hugo's link render hook and ``ref`` find it: from the content
    root, or from the page's URL or its file's folder."""
    if not path:
        return source.as_posix()
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
            if found.as_posix() in pages:
                return found.as_posix()
    return None


def hugo_fragments(text: str, project: Project, source: PurePosixPath, anchors: AnchorTable) -> str:
    """``text`` (a part of ``source``'s translation) with each link fragment that names an
    anchor the translation moves (``anchors``: in this page or another) rewritten to it."""

    def fix(m: re.Match[str]) -> str:
        page = _linked_page(project, source, m["path"], anchors)
        frag = None if page is None else anchors[page].get(m["frag"])
        return m[0] if frag is None else f"{m['lead']}{m['path']}#{frag}"

    return outside_code(text, lambda part: _DEST.sub(fix, part))
