"""Request slots served by rank: the engine's limit on requests in flight.

An ``asyncio.Semaphore`` serves its waiters first come, first served, so the request of an edit
made while a long document's backlog runs waited behind every queued pack (73 s on a 7,000-block
document). Here a freed slot goes to the waiter whose ``rank()`` is lowest *when the slot frees*
(so a rank can follow what the reader does meanwhile), first come first served among equals.
The ranks a document's requests go by are :class:`Priorities`: data the live translator sets.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any, Protocol

from fastdesk.document.blocks import Document

Rank = Callable[[], Any]  # a sortable value; lower goes first


def _first(_rank: Any = None) -> int:
    return 0


class _Last:
    """A rank after every other (a review's: it waits for every translation)."""

    def __lt__(self, other: object) -> bool:
        return False

    def __gt__(self, other: object) -> bool:
        return other is not self

    def __eq__(self, other: object) -> bool:
        return other is self

    __hash__ = object.__hash__


LAST = _Last()


class Slots:
    """At most ``size`` holders at once, plus ``reserved`` more for priority holders only (an
    edit, the screen: the backlog's requests may hold their slot a minute while the rate limit
    paces them, and the edit must not wait behind them); see the module docstring. ``resize``
    changes ``size`` only: the reserved stay free for priority holders however many the
    backlog holds (a window halved while 18 were in flight held an edit back until 9 ended)."""

    def __init__(self, size: int, reserved: int = 0) -> None:
        self._reserved = max(0, reserved)
        self._size = max(1, size)
        self._busy = 0  # holders counted against ``size``
        self._extra = 0  # priority holders in the reserved slots
        self._waiters: list[tuple[int, Rank, asyncio.Future[bool], bool]] = []
        self._order = itertools.count()

    def _can(self, priority: bool) -> bool:
        return self._busy < self._size or (priority and self._extra < self._reserved)

    def _enter(self) -> bool:
        """Take a slot (the caller checked ``_can``): True for a reserved one."""
        if self._busy < self._size:
            self._busy += 1
            return False
        self._extra += 1
        return True

    @asynccontextmanager
    async def take(self, rank: Rank = _first, *, priority: bool = False) -> AsyncIterator[None]:
        if self._can(priority) and not any(self._can(w[3]) for w in self._waiters):
            extra = self._enter()
        else:
            future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
            entry = (next(self._order), rank, future, priority)
            self._waiters.append(entry)
            try:
                extra = await future
            except asyncio.CancelledError:
                if entry in self._waiters:
                    self._waiters.remove(entry)
                elif future.done() and not future.cancelled():
                    self._release(future.result())  # granted, then cancelled: pass it on
                raise
        try:
            yield
        finally:
            self._release(extra)

    @property
    def waiting(self) -> int:
        return len(self._waiters)

    @property
    def size(self) -> int:
        return self._size

    def resize(self, size: int) -> None:
        """Hold at most ``size`` (plus the reserved) from now: a wider limit lets waiters in at
        once; a narrower one lets no one in until enough holders have left (but a priority
        holder into a free reserved slot)."""
        self._size = max(1, size)
        self._grant()

    def _release(self, extra: bool) -> None:
        if extra:
            self._extra -= 1
        else:
            self._busy -= 1
        self._grant()

    def _grant(self) -> None:
        while self._waiters:
            eligible = [e for e in self._waiters if self._can(e[3])]
            if not eligible:
                return
            entry = min(eligible, key=lambda e: (e[1](), e[0]))
            self._waiters.remove(entry)
            if not entry[2].done():
                entry[2].set_result(self._enter())


class Priorities:
    """What a freed slot goes by (``rank``: lowest first), which requests the reader waits
    for (``foreground``): the blocks of the latest edit (and those whose kept requests it waits
    for) first, then the blocks on screen, then the rest in document order; and which go in
    live-size packs (``live``: those, and the blocks near the screen; the rest of a long
    document goes in a backfill's larger packs, fastdesk.translate.engine.Engine.packs).

    Plain data, set by the one who knows (fastdesk.translate.live.LiveTranslator, from the
    window's edits and view) and read by the engine when a slot frees: the engine never calls
    back up into the live translator. ``for_block`` views them for a container's pieces (an
    admonition's body), which wait in the container's place."""

    def __init__(self) -> None:
        self.edited: frozenset[str] = frozenset()  # first
        self.kept: frozenset[str] = frozenset()  # first too: their answers are awaited by text
        self.visible: frozenset[str] = frozenset()  # next
        self.near: frozenset[str] = frozenset()  # around the screen: live packs too
        self.doc: Document | None = None  # the rest: in its order

    def rank(self, block_ids: Sequence[str]) -> tuple[int, int]:
        """(tier, place in the document) of a request's blocks: edited 0, on screen 1, rest 2."""
        tier = 2
        if not self.edited.isdisjoint(block_ids) or not self.kept.isdisjoint(block_ids):
            tier = 0
        elif not self.visible.isdisjoint(block_ids):
            tier = 1
        where = 0
        if self.doc is not None and block_ids:
            with contextlib.suppress(KeyError):  # a block of an older revision: first
                where = self.doc.index_of(block_ids[0])
        return tier, where

    def foreground(self, block_ids: Sequence[str]) -> bool:
        """Whether the reader waits for these blocks (edited or on screen): the backlog leaves
        part of each minute's rate-limit budget to them, so an edit goes within one slot."""
        return self.rank(block_ids)[0] < 2

    def live(self, block_ids: Sequence[str]) -> bool:
        """Whether these blocks go in live-size packs: the reader waits for them (edited, on
        screen) or soon may (near the screen). Planned once for a run: a block scrolled to
        later goes first, in the pack it was planned in."""
        return self.foreground(block_ids) or not self.near.isdisjoint(block_ids)

    def for_block(self, block_id: str) -> Ranking:
        """These priorities as they apply to the pieces of block ``block_id``."""
        return _Within(self, block_id)


class Ranking(Protocol):
    """What the engine reads of :class:`Priorities` (or of their view for a container)."""

    def rank(self, block_ids: Sequence[str]) -> tuple[int, int]: ...
    def foreground(self, block_ids: Sequence[str]) -> bool: ...
    def live(self, block_ids: Sequence[str]) -> bool: ...
    def for_block(self, block_id: str) -> Ranking: ...


class _Within:
    """Priorities for the pieces of one block: each piece ranks as the block."""

    def __init__(self, priorities: Priorities, block_id: str) -> None:
        self._priorities = priorities
        self._ids = (block_id,)

    def rank(self, block_ids: Sequence[str]) -> tuple[int, int]:
        return self._priorities.rank(self._ids)

    def foreground(self, block_ids: Sequence[str]) -> bool:
        return self._priorities.foreground(self._ids)

    def live(self, block_ids: Sequence[str]) -> bool:
        return self._priorities.live(self._ids)

    def for_block(self, block_id: str) -> Ranking:
        """A container inside this block's (an admonition in a tab): still this block."""
        return self
