"""What the engine worker's next delivery tells the window of its engine: the events heard since
the last delivery, of each block's partial answers only the newest, and the notices not told yet
(each is told once). Loop thread only."""

from __future__ import annotations

from fastdesk.translate.events import BlockDelta, BlockDone, BlockFailed, EngineEvent


class Outbox:
    def __init__(self) -> None:
        self._events: list[EngineEvent] = []
        self._partial: dict[str, BlockDelta] = {}  # the newest partial answers not sent yet
        self._streaming: set[str] = set()  # blocks with a partial answer and no final one yet
        self._notices: list[str] = []
        self._told: set[str] = set()  # told already: each notice is shown once

    @property
    def streaming(self) -> bool:
        """Some block has a partial answer and no final one yet."""
        return bool(self._streaming)

    def heard(self, event: EngineEvent) -> None:
        """An event of the document's translator: a block's partial answer replaces the last one
        not sent; its final answer (or failure) ends its stream."""
        if isinstance(event, BlockDelta):
            self._partial[event.block_id] = event
            self._streaming.add(event.block_id)
            return
        if isinstance(event, BlockDone | BlockFailed):
            self._partial.pop(event.block_id, None)
            self._streaming.discard(event.block_id)
        self._events.append(event)

    def add(self, event: EngineEvent) -> None:
        """An event to send as it is (a request's, an error)."""
        self._events.append(event)

    def forget_partial(self) -> None:
        """The document's blocks are planned anew: their streams so far are over."""
        self._partial.clear()
        self._streaming.clear()

    def take(self) -> tuple[EngineEvent, ...]:
        """The events to send, partial answers after final ones."""
        events = (*self._events, *self._partial.values())
        self._events.clear()
        self._partial.clear()
        return events

    def notify(self, *notices: str) -> None:
        """One-line warnings to show once (Delivery.notices)."""
        self._notices.extend(notices)

    def take_notices(self, also: str | None = None) -> tuple[str, ...]:
        """Notices not told yet, ``also`` among them (one looked at on every delivery)."""
        if also:
            self._notices.append(also)
        new = tuple(dict.fromkeys(n for n in self._notices if n not in self._told))
        self._notices.clear()
        self._told.update(new)
        return new
