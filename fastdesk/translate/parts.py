"""The documents one run of the engine shares (a page's blocks and its containers' pieces:
``Engine.run_parts``), and how a pack that carries blocks of several of them ranks for a request
slot and hands its events on."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

from fastdesk.document.blocks import Document
from fastdesk.translate.events import Emit, EngineEvent
from fastdesk.translate.planning import Work
from fastdesk.translate.slots import Ranking

__all__ = ["Part", "order", "pack_emit"]


def _noop(_event: EngineEvent) -> None:
    return None


@dataclass
class Part:
    """One document (or some of its blocks) of a run several share (``Engine.run_parts``): its
    events go to ``emit``, its results (block id → text) into ``done`` once its blocks are
    settled; the other fields are ``Engine.run``'s arguments of the same names."""

    doc: Document
    emit: Emit = _noop
    block_ids: Collection[str] | None = None
    force: Collection[str] = ()
    labels: frozenset[str] | None = None
    priorities: Ranking | None = None
    # where ``doc`` stands in the page: () for the page itself, else its container block's
    # place, the piece's index and so on (a body's container within: deeper), so that a
    # backfill packs the parts' blocks in the page's order
    place: tuple[int, ...] = ()
    done: asyncio.Future[dict[str, str]] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )

    def place_of(self, block_id: str) -> tuple[int, ...]:
        """A block's place in the page (``place`` and its index in ``doc``)."""
        return (*self.place, self.doc.index_of(block_id))


def order(ranked: Sequence[tuple[Ranking, Sequence[str]]]) -> Callable[[], object]:
    """A pack's rank for a free request slot (asked when one frees): the most urgent of its
    parts' ranks (each part's ranking, its blocks in the pack)."""
    if not ranked:
        return lambda: 0
    return lambda: min(r.rank(ids) for r, ids in ranked)


def pack_emit(parts: Sequence[Part], owned: Sequence[tuple[int, Work]]) -> Emit:
    """A pack's events to its parts: a block's to each part that has a block of that id (one
    text, hence one id, in several parts), the request's (its stats, a wait) to the first."""
    by_id: dict[str, list[Emit]] = {}
    for i, own in owned:
        for block in own.blocks:
            found = by_id.setdefault(block.id, [])
            if parts[i].emit not in found:
                found.append(parts[i].emit)
    first = parts[min(i for i, _own in owned)].emit

    def emit(event: EngineEvent) -> None:
        block_id = getattr(event, "block_id", None)
        for target in by_id.get(block_id, [first]) if isinstance(block_id, str) else [first]:
            target(event)

    return emit
