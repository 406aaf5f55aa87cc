"""The document as the engine worker last sent it to the window: a batch carries the parsed
document, and its blocks as render segments, only when it changed (the GUI thread does no
parsing). Loop thread only."""

from __future__ import annotations

from fastdesk.document.blocks import Document, parse, reparse
from fastdesk.ui.bridge.segments import Segment, segment
from fastdesk.ui.bridge.session import Session


class SentDocument:
    def __init__(self) -> None:
        self._doc: Document | None = None

    def news(
        self, session: Session | None, source: str
    ) -> tuple[Document, tuple[Segment, ...]] | None:
        """The document and its segments if the window has not been sent them: the session's,
        or without an engine the source parsed as it is, block by block, so the target pane
        still mirrors the document (and scrolls with it)."""
        if session is not None:
            doc = session.doc
            if doc is None or doc is self._doc:
                return None
        elif self._doc is None or source != self._doc.source:
            doc = parse(source) if self._doc is None else reparse(self._doc, source)
        else:
            return None
        self._doc = doc
        return doc, tuple(segment(b.id, b.text) for b in doc.blocks)
