"""Links into translated headings and content tabs, pointed at the anchors the target will have.

MkDocs makes a heading's anchor from its text (the ``toc`` extension's slugify) unless
``attr_list`` lets the page name it (then a translated heading keeps its source's anchor as an
explicit id: fastdesk.document.syntax.keep_anchor); ``pymdownx.tabbed`` with ``slugify`` makes
each content tab's id from its title, after its heading's anchor with
``combine_header_slug`` (``#logo-image``), and a tab has no syntax for an id of its own. So a
translated title moves the anchor, and every ``#fragment`` pointing at it, in the page or from
another page, would break. :func:`page_anchors` computes, for one page, each anchor of the
source and the one the same heading or tab gets from its translation, as MkDocs will; the
targets' links are rewritten with them (fastdesk.project.sync writes them, and reads them back
from a target edited by hand).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping

from fastdesk.document.blocks import Document
from fastdesk.document.syntax import heading_text
from fastdesk.project.mkdocs_config import MarkdownSettings

__all__ = ["AnchorTable", "page_anchors"]

# source page (relative to the root) → its anchors that move: source anchor → target anchor
AnchorTable = Mapping[str, Mapping[str, str]]

_TAB = re.compile(r"[ \t]*===\+?[ \t]+\"(?P<title>[^\"\n]*)\"[ \t]*$")
_FENCE = re.compile(r"[ \t]*(?P<fence>`{3,}|~{3,})")
# an explicit id in an attribute list ({ #id .class }, {: #id })
_EXPLICIT = re.compile(r"\{:?[^{}\n]*?(?<![\w-])#(?P<id>[^\s{}]+)[^{}\n]*\}[ \t]*#*[ \t]*$")
_COUNT = re.compile(r"^(.*)_([0-9]+)$")


def _unique(anchor: str, used: set[str]) -> str:
    """Python-Markdown's ``toc.unique``: ``_1``, ``_2``… after a taken (or empty) id."""
    if anchor in used or not anchor:
        m = _COUNT.match(anchor)
        base, count = (m.group(1), int(m.group(2))) if m else (anchor, 0)
        while anchor in used or not anchor:
            count += 1
            anchor = f"{base}_{count}"
    used.add(anchor)
    return anchor


def _tab_titles(text: str) -> Iterator[str]:
    """The titles of the content tabs opened in ``text`` (not in its fenced code)."""
    fence: str | None = None
    for line in text.splitlines():
        m = _FENCE.match(line)
        if m is not None:
            mark = m["fence"]
            if fence is None:
                fence = mark
            elif mark[0] == fence[0] and len(mark) >= len(fence) and not line[m.end() :].strip():
                fence = None
            continue
        if fence is None:
            tab = _TAB.match(line)
            if tab is not None:
                yield tab["title"]


def _heading_line(text: str) -> str:
    """A heading block's line, as an ATX heading (a setext heading's first line, ``#``-led)."""
    line = text.lstrip("\r\n").partition("\n")[0].rstrip("\r")
    return line if line.lstrip(" ").startswith("#") else "# " + line.strip()


def _ids(
    doc: Document, text_of: Callable[[str], str], settings: MarkdownSettings
) -> list[tuple[str, str]]:
    """Each heading's and content tab's id in a page whose blocks read ``text_of(block id)``,
    in order, as (what it is, its id): MkDocs' toc first (explicit ids taken before any
    slug), then pymdownx.tabbed."""
    headings = [(b.id, _heading_line(text_of(b.id))) for b in doc.blocks if b.kind == "heading"]
    used: set[str] = set()
    if settings.attr_list:
        used |= {m["id"] for _bid, line in headings if (m := _EXPLICIT.search(line))}
    anchor_of: dict[str, str] = {}
    out: list[tuple[str, str]] = []
    slugify, sep = settings.toc_slugify, settings.toc_separator
    for n, (bid, line) in enumerate(headings):
        explicit = _EXPLICIT.search(line) if settings.attr_list else None
        if explicit is not None:
            anchor = explicit["id"]
        elif slugify is not None:
            anchor = _unique(slugify(heading_text(line) or "", sep), used)
        else:
            continue
        anchor_of[bid] = anchor
        out.append((f"h{n}", anchor))
    tab_slugify = settings.tab_slugify
    if tab_slugify is None or (settings.combine_header_slug and slugify is None):
        return out
    parent = ""
    for block in doc.blocks:
        if block.kind == "heading":
            parent = anchor_of.get(block.id, "")
            continue
        if block.kind == "code" and not block.text[:1].isspace():
            continue  # a fenced block at the top: code, not tabs
        for k, title in enumerate(_tab_titles(text_of(block.id))):
            slug = tab_slugify(heading_text("# " + title) or "", settings.tab_separator)
            if settings.combine_header_slug and parent:
                slug = parent + settings.tab_separator + slug
            out.append((f"t{block.id}.{k}", _unique(slug, used)))
    return out


def page_anchors(
    doc: Document, translated: Callable[[str], str | None], settings: MarkdownSettings
) -> dict[str, str]:
    """The anchors of a page (``doc``, the source) that its translation moves: source anchor →
    the target's, for each heading and content tab whose id the translated text changes.
    ``translated(block id)``: the block's translation (None: none, the source stands there)."""
    source = dict(_ids(doc, lambda bid: doc.by_id(bid).text, settings))

    def target_text(bid: str) -> str:
        text = translated(bid)
        return doc.by_id(bid).text if text is None else text

    target = dict(_ids(doc, target_text, settings))
    out = {
        anchor: target[what]
        for what, anchor in source.items()
        if what in target and target[what] != anchor
    }
    return out
