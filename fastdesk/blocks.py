"""Markdown → blocks with exact source spans, and back (byte-exact). Being written: see issue 2."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Block:
    """One top-level piece of a document. ``text`` is exactly ``source[start:end]``."""

    id: str
    kind: str
    start: int
    end: int
    line: int
    text: str
    translatable: bool

    def split(self) -> tuple[str, str, str]:
        """(leading whitespace, core, trailing whitespace): only the core is sent to a model."""
        core = self.text.strip("\r\n")
        lead = self.text[: len(self.text) - len(self.text.lstrip("\r\n"))]
        trail = self.text[len(lead) + len(core) :]
        return lead, core, trail


@dataclass(frozen=True)
class Document:
    source: str
    blocks: tuple[Block, ...]
