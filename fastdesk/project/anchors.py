"""A page's anchors in the source and in its translation: the links into those that move follow.

A generator makes some anchors from the text they name, with no syntax to keep the source's:
- MkDocs makes a heading's anchor from its text (the ``toc`` extension's slugify) unless
  ``attr_list`` lets the page name it (then a translated heading keeps its source's anchor as
  an explicit id: fastdesk.document.syntax.keep_anchor); ``pymdownx.tabbed`` with ``slugify``
  makes each content tab's id from its title, after its heading's anchor with
  ``combine_header_slug`` (``#logo-image``), and a tab has no syntax for an id of its own.
- Hugo, with ``markup.goldmark.parser.autoDefinitionTermID``, gives each definition term
  (``dt``) an id made from its text, numbered with the headings' ids; its headings keep their
  source's ids as explicit ``{#id}`` (keep_anchor), but Goldmark reads no explicit id on a term.

So a translated title moves the anchor, and every ``#fragment`` pointing at it, in the page or
from another page, would break. :func:`anchor_model` gives, for the project's generator, the
function that computes for one page (its source and its translation, block by block: the
reviews) each anchor of the source and the one the same heading, tab or term gets from the
translation, as the generator will. fastdesk.project.sync gathers them into one table per
language (:data:`AnchorTable`, each page computed when a link first names it) and rewrites the
targets' links with it in one pass: MkDocs' relative links (fastdesk.project.links), Hugo's
link paths and ``ref`` shortcodes (fastdesk.project.fragments).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from functools import lru_cache

from fastdesk.document.blocks import Document, parse
from fastdesk.document.syntax import anchors, explicit_id, heading_text
from fastdesk.project.layout import Project
from fastdesk.project.mkdocs_config import MarkdownSettings, mkdocs_settings
from fastdesk.translate.dialect import anchored

__all__ = ["AnchorTable", "PageAnchors", "anchor_model", "hugo_ids", "page_anchors"]

# source page (relative to the root) → its anchors that move: source anchor → target anchor
AnchorTable = Mapping[str, Mapping[str, str]]
# (a page's source, its translation of a block: None where it has none) → the anchors it moves
PageAnchors = Callable[[Document, Callable[[str], str | None]], dict[str, str]]


def anchor_model(project: Project) -> PageAnchors | None:
    """How the project's generator moves a page's anchors when its text is translated; None
    when none moves (Docusaurus' and Hugo's headings keep theirs as explicit ids, a Hugo site
    gives its terms none) or none can be computed (MkDocs with no configuration to read)."""
    if project.dialect == "mkdocs":
        settings = mkdocs_settings(project.root)
        if settings is None:
            return None
        return lambda doc, translated: page_anchors(doc, translated, settings)
    if project.dialect == "hugo" and project.term_ids:
        id_type = project.id_type
        return lambda doc, translated: _hugo_moved(doc, translated, id_type)
    return None


def _translation(doc: Document, translated: Callable[[str], str | None]) -> Callable[[str], str]:
    """A block's text in the translation (its source where it has none)."""

    def text_of(bid: str) -> str:
        text = translated(bid)
        return doc.by_id(bid).text if text is None else text

    return text_of


# ---- Hugo: definition terms, numbered with the headings -----------------------------------


def hugo_ids(text: str, id_type: str) -> tuple[str, ...]:
    """The ids Hugo gives a page's top-level headings and definition terms, in order."""
    return _hugo_ids(text, id_type)


@lru_cache(maxsize=1024)
def _hugo_ids(text: str, id_type: str) -> tuple[str, ...]:
    """Kept for the last pages read: a run asks a page's ids once a language, a window's Save
    again."""
    lines, terms = anchored(parse(text), term_ids=True)
    made = anchors(lines, "hugo", terms=terms, id_type=id_type)
    out = []
    for key, line in lines:
        given = None if key in terms else explicit_id(line)
        if given or key in made:
            out.append(given or made[key])
    return tuple(out)


def _hugo_moved(
    doc: Document, translated: Callable[[str], str | None], id_type: str
) -> dict[str, str]:
    """Source id → the id the same heading or term has in the translation, where they differ.
    The ids are paired in order (a translation keeps its headings and terms in order); a page
    whose count differs moves nothing."""
    text_of = _translation(doc, translated)
    theirs = hugo_ids("".join(b.text for b in doc.blocks), id_type)
    ours = hugo_ids("".join(text_of(b.id) for b in doc.blocks), id_type)
    if len(theirs) != len(ours):
        return {}
    out: dict[str, str] = {}
    for before, after in zip(theirs, ours, strict=True):
        out.setdefault(before, after)  # a link goes to the first element of that id
    return {k: v for k, v in out.items() if k != v}


# ---- MkDocs: headings (toc) and content tabs (pymdownx.tabbed) ----------------------------

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
    """The anchors of an MkDocs page (``doc``, the source) that its translation moves: source
    anchor → the target's, for each heading and content tab whose id the translated text
    changes. ``translated(block id)``: the block's translation (None: none, the source stands
    there)."""
    source = dict(_ids(doc, lambda bid: doc.by_id(bid).text, settings))
    target = dict(_ids(doc, _translation(doc, translated), settings))
    return {
        anchor: target[what]
        for what, anchor in source.items()
        if what in target and target[what] != anchor
    }
