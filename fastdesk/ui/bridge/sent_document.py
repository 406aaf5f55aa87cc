"""The document as the engine worker last sent it to the window: a delivery carries the parsed
document, and its blocks as render segments, only when it changed (the GUI thread does no
parsing). Loop thread only."""

from __future__ import annotations

from fastdesk.document.blocks import Document, parse, reparse
from fastdesk.review.target_model import Segment, segment
from fastdesk.ui.bridge.translators import Translator


class SentDocument:
    def __init__(self) -> None:
        self._doc: Document | None = None

    def news(
        self, translator: Translator | None, source: str
    ) -> tuple[Document, tuple[Segment, ...]] | None:
        """The document and its segments if the window has not been sent them: the translator's,
        or without an engine the source parsed as it is, block by block, so the target pane
        still mirrors the document (and scrolls with it)."""
        if translator is not None:
            doc = translator.doc
            if doc is None or doc is self._doc:
                return None
        elif self._doc is None or source != self._doc.source:
            doc = parse(source) if self._doc is None else reparse(self._doc, source)
        else:
            return None
        self._doc = doc
        return doc, tuple(segment(b.id, b.text) for b in doc.blocks)
