"""The site generator's Markdown dialect: blocks that are only its syntax are kept byte for byte.

Read as plain CommonMark, a line such as ``--8<-- "snippet.md"`` (MkDocs snippets),
``{: .class }`` (attribute lists), ``!!! note "Title"`` (an admonition's opening line),
``import Tabs from '@theme/Tabs';`` (MDX), ``<Tabs>`` (a JSX component) or
``{{< figure src="a.png" >}}`` (a Hugo shortcode) is a paragraph, and would be sent to a model
that may "translate" it. In a project of that dialect such blocks are not translatable: they
are copied as they are, like code.

MkDocs admonition and content-tab bodies (``!!! note`` / ``=== "Tab"`` followed by a
4-space-indented body) are, to CommonMark, an indented code block or a paragraph's lazy
continuation. In a MkDocs project they are translatable *containers*: :func:`container` cuts
one into pieces kept as they are (the opening line's syntax) and pieces translated on their own
(through the memory like any block): the title, and the body as Markdown (dedented, block by
block, indented back). Docusaurus ``:::tip Title`` / ``:::tip[Title]`` titles likewise.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from fastdesk.document.blocks import Block, Document
from fastdesk.document.dialects import DIALECTS, TITLES, keep_syntax
from fastdesk.document.text_ends import common_prefix
from fastdesk.translate.events import Flag

__all__ = [
    "DIALECTS",
    "Container",
    "Piece",
    "apply_dialect",
    "check_dialect",
    "container",
    "dedent",
    "indent",
]

_OPENER = re.compile(r"(?:!!!|\?\?\?\+?)\s+[\w-]+.*|===\+?\s+\".*\"")


@dataclass(frozen=True)
class Piece:
    """Part of a container: ``kind`` keep (as it is), title (one line of prose) or body
    (Markdown indented by ``prefix``)."""

    kind: str
    text: str
    prefix: str = ""


Container = tuple[Piece, ...]


def apply_dialect(doc: Document, dialect: str) -> Document:
    """``doc`` with the blocks made only of ``dialect``'s syntax lines marked not translatable
    (a titled opening line excepted: its title is translated:
    fastdesk.document.dialects.keep_syntax), and (MkDocs) admonition and tab bodies marked
    translatable (same ids, same text: the round trip and echo identity hold)."""
    doc = keep_syntax(doc, dialect)
    if dialect != "mkdocs":
        return doc
    blocks: list[Block] = []
    changed = False
    for block in doc.blocks:
        if not block.translatable and _body_of(blocks, block):
            block = dataclasses.replace(block, translatable=True)
            changed = True
        blocks.append(block)
    return Document(doc.source, tuple(blocks)) if changed else doc


def container(doc: Document, block: Block, dialect: str) -> Container | None:
    """``block`` as an admonition or tab: the pieces to keep and to translate (None: it is not
    one, the engine takes it as any block)."""
    if dialect == "mkdocs" and block.kind == "code":
        i = doc.index_of(block.id)
        if block.translatable and _body_of(doc.blocks[:i], block):
            return (Piece("body", block.text, _prefix(block.text)),)
        return None
    titled = TITLES.get(dialect)
    first, newline, rest = block.text.partition("\n")
    line, _cr, _ = first.partition("\r")
    opener = titled.fullmatch(line) if titled else None
    pieces: list[Piece] = []
    if opener:
        pieces += [Piece("keep", opener["head"]), Piece("title", opener["title"])]
        pieces.append(Piece("keep", opener["tail"] + first[len(line) :] + newline))
    elif dialect == "mkdocs" and _OPENER.fullmatch(first.strip()):
        pieces.append(Piece("keep", first + newline))
    else:
        return None
    if dialect == "mkdocs" and rest.strip() and rest[:1] in (" ", "\t"):
        pieces.append(Piece("body", rest, _prefix(rest)))
    elif rest:
        if rest.strip():
            return None  # something else follows the opening line: an ordinary block
        pieces.append(Piece("keep", rest))
    return tuple(pieces) if any(p.kind != "keep" for p in pieces) else None


def _body_of(above: Sequence[Block], block: Block) -> bool:
    """An indented code block right below an opening line (``!!! note``, ``=== "Tab"``)."""
    if block.kind != "code" or block.text[:1] not in (" ", "\t") or not above:
        return False
    lines = [line for line in above[-1].text.splitlines() if line.strip()]
    return bool(lines) and _OPENER.fullmatch(lines[-1].strip()) is not None


def _prefix(text: str) -> str:
    """The indentation all non-blank lines share."""
    found = [
        line[: len(line) - len(line.lstrip(" \t"))] for line in text.splitlines() if line.strip()
    ]
    if not found:
        return ""
    low, high = min(found), max(found)  # what they all share, the extremes share
    return low[: common_prefix(low, high)]


def dedent(body: str, prefix: str) -> str:
    """The body without its indentation (blank lines as they are)."""
    return "".join(
        line[len(prefix) :] if line.strip() and line.startswith(prefix) else line
        for line in body.splitlines(keepends=True)
    )


def indent(text: str, prefix: str) -> str:
    """The inverse of :func:`dedent`: every non-blank line indented by ``prefix``."""
    return "".join(
        prefix + line if line.strip() else line for line in text.splitlines(keepends=True)
    )


# ---- checked like code ------------------------------------------------------------------------

# Hugo shortcodes and JSX tags inside a block are already checked by translate.checks
# (placeholders, html); MkDocs' attribute lists and snippets are not.
_TOKENS = {
    # attribute lists, snippets, the abbreviation an abbreviation definition defines
    "mkdocs": re.compile(r"\{:?\s*[#.][^{}\n]*\}|-{2,}8<-{2,}[^\n]*|^\*\[[^\]\n]+\]:", re.M),
}


def check_dialect(source: str, answer: str, dialect: str) -> tuple[Flag, ...]:
    """The dialect's syntax inside a block (an attribute list after a sentence) must come back
    byte for byte, like code: a flag for each that did not."""
    pattern = _TOKENS.get(dialect)
    if pattern is None:
        return ()
    missing = Counter(pattern.findall(source)) - Counter(pattern.findall(answer))
    return tuple(Flag("dialect", f"{token} changed or missing") for token in missing)
