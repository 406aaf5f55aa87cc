"""The site generator's Markdown dialect: blocks that are only its syntax are kept byte for byte.

Read as plain CommonMark, a line such as ``--8<-- "snippet.md"`` (MkDocs snippets),
``{: .class }`` (attribute lists), ``!!! note "Title"`` (an admonition's opening line),
``import Tabs from '@theme/Tabs';`` (MDX), ``<Tabs>`` (a JSX component) or
``{{< figure src="a.png" >}}`` (a Hugo shortcode) is a paragraph, and would be sent to a model
that may "translate" it. In a project of that dialect such blocks are not translatable: they
are copied as they are, like code.

Not done here: translating admonition and tab bodies (CommonMark reads the indented body as a
code block; sending it needs the engine to dedent and re-indent it).
"""

from __future__ import annotations

import dataclasses
import re

from fastdesk.document.blocks import Document

__all__ = ["DIALECTS", "apply_dialect"]

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


def apply_dialect(doc: Document, dialect: str) -> Document:
    """``doc`` with the blocks made only of ``dialect``'s syntax lines marked not translatable
    (same ids, same text: the round trip and the echo identity hold)."""
    patterns = DIALECTS.get(dialect, ())
    if not patterns:
        return doc
    blocks = []
    changed = False
    for block in doc.blocks:
        core = block.split()[1]
        lines = [line.strip() for line in core.splitlines() if line.strip()]
        if (
            block.translatable
            and lines
            and all(any(p.fullmatch(line) for p in patterns) for line in lines)
        ):
            block = dataclasses.replace(block, translatable=False)
            changed = True
        blocks.append(block)
    return Document(doc.source, tuple(blocks)) if changed else doc
