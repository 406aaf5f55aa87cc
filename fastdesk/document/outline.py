"""A document's outline: its headings, from the block parse (so it agrees with the panes)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from fastdesk.document.blocks import Document

__all__ = ["Heading", "headings"]

_ATX_OPEN = re.compile(r"[ ]{0,3}#{1,6}(?:[ \t]+|$)")
_ATX_CLOSE = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")
_EMPHASIS = re.compile(r"(\*\*|__|\*|_|`)(.+?)\1")


@dataclass(frozen=True)
class Heading:
    index: int  # the block's position in the document
    block_id: str
    level: int  # 1-6
    title: str  # as a reader sees it: no markers, no emphasis marks
    start: int  # the block's first character in the source


def headings(doc: Document) -> list[Heading]:
    """Every heading of ``doc`` (ATX ``#`` and setext underlined), in order."""
    out = []
    for i, block in enumerate(doc.blocks):
        if block.kind == "heading":
            out.append(Heading(i, block.id, block.heading_level, title(block.text), block.start))
    return out


def title(text: str) -> str:
    """A heading block's text without its markers (``## Install ##``, or a setext underline)."""
    lines = [line for line in re.split(r"\r\n?|\n", text.strip("\r\n")) if line.strip()]
    if not lines:
        return ""
    if _ATX_OPEN.match(lines[0]):
        raw = _ATX_CLOSE.sub("", _ATX_OPEN.sub("", lines[0], count=1))
    else:
        raw = " ".join(line.strip() for line in lines[:-1])  # the last line is the underline
    return _EMPHASIS.sub(r"\2", raw).strip()
