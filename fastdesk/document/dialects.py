"""A site generator's Markdown dialect: the lines that are only its syntax.

Read as plain CommonMark, a line such as ``--8<-- "snippet.md"`` (MkDocs snippets),
``{: .class }`` (attribute lists), ``!!! note "Title"`` (an admonition's opening line),
``import Tabs from '@theme/Tabs';`` (MDX), ``<Tabs>`` (a JSX component) or
``{{< figure src="a.png" >}}`` (a Hugo shortcode) is a paragraph, and would be sent to a model
that may "translate" it. :func:`keep_syntax` marks a block made only of such lines not
translatable: it is copied as it is, like code. Here, below the engine, so that a document
translated live (the window's) keeps them too; fastdesk.project.dialect builds on it (the
bodies of admonitions and tabs, translated as pieces of their own).
"""

from __future__ import annotations

import dataclasses
import re

from fastdesk.document.blocks import Block, Document

__all__ = ["DIALECTS", "TITLES", "keep_syntax"]

_MKDOCS = (
    re.compile(r"-{2,}8<-{2,}.*"),  # snippets
    re.compile(r"\{:?[^{}]*\}"),  # an attribute list alone on its line
    re.compile(r"(?:!!!|\?\?\?\+?)\s+[\w-]+(?:\s+[\w-]+)*(?:\s+\".*\")?"),  # admonition opener
    re.compile(r"===\+?\s+\".*\""),  # a content tab's opener
)
_DOCUSAURUS = (
    re.compile(r"(?:import|export)\s.*"),  # MDX ES modules
    re.compile(r"</?[A-Z][\w.]*(?:\s[^<>]*)?/?>"),  # a JSX component tag alone on its line
    re.compile(r":::\w*.*"),  # an admonition fence alone
)
_HUGO = (re.compile(r"\{\{[<%].*?[%>]\}\}"),)  # shortcodes

DIALECTS: dict[str, tuple[re.Pattern[str], ...]] = {
    "mkdocs": _MKDOCS,
    "docusaurus": _DOCUSAURUS,
    "hugo": _HUGO,
    "commonmark": (),
}

# an opening line's title: !!! note "Title", === "Tab", :::tip Title, :::tip[Title]
TITLES = {
    "mkdocs": re.compile(
        r"(?P<head>\s*(?:(?:!!!|\?\?\?\+?)\s+[\w-]+(?:\s+[\w-]+)*|===\+?)\s+\")"
        r"(?P<title>[^\"]*\S[^\"]*)(?P<tail>\"\s*)"
    ),
    "docusaurus": re.compile(
        r"(?P<head>\s*:::\w+(?:\[|[ \t]+))(?P<title>[^\]\r\n]*?\S[^\]\r\n]*?)(?P<tail>\]?[ \t]*)"
    ),
}


def keep_syntax(doc: Document, dialect: str) -> Document:
    """``doc`` with the blocks made only of ``dialect``'s syntax lines marked not translatable;
    a titled opening line (``!!! note "Title"``, ``:::tip Title``) stays translatable, for its
    title (the same ids and text: only the flag changes)."""
    patterns = DIALECTS.get(dialect, ())
    if not patterns:
        return doc
    titled = TITLES.get(dialect)
    blocks: list[Block] = []
    changed = False
    for block in doc.blocks:
        core = block.split()[1]
        lines = [line.strip() for line in core.splitlines() if line.strip()]
        syntax = lines and all(any(p.fullmatch(line) for p in patterns) for line in lines)
        if block.translatable and syntax and not (titled and titled.fullmatch(core)):
            block = dataclasses.replace(block, translatable=False)
            changed = True
        blocks.append(block)
    return Document(doc.source, tuple(blocks)) if changed else doc
