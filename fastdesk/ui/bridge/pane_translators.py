"""Second target panes' live translators (EngineWorker.open_pane), by the pane's key: each is one
more translator on the worker's engine and loop, in its own language, so the engine's limits hold
across them. Its block events wait here for the next delivery (Delivery.panes); what it says of
requests, waits and errors goes to the window with the document's own (``shared``). Each pane's
spec is kept as the window asked, to be completed by the document's house anew (``replan``).
Loop thread only."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from fastdesk.translate.events import (
    BlockDelta,
    BlockDone,
    BlockFailed,
    BlockStarted,
    Emit,
    EngineEvent,
    Expansion,
    RevisionDone,
)
from fastdesk.ui.bridge.tasks import Tasks, bounded
from fastdesk.ui.bridge.translators import Translator

if TYPE_CHECKING:
    from fastdesk.translate.job import JobSpec

# a pane's own events (RevisionDone too: the pane's alone); the others are the window's
_PANE_EVENTS = (BlockStarted, BlockDone, BlockFailed, Expansion, RevisionDone)


class PaneTranslators:
    """``guarded(fn, *args)``: a call into a translator that must not kill the worker thread;
    ``shared``: an event for the window with the document's; ``heard``: any event of a pane
    still open, after it was kept (the worker schedules its delivery)."""

    def __init__(
        self,
        tasks: Tasks,
        *,
        guarded: Callable[..., None],
        shared: Callable[[EngineEvent], None],
        heard: Callable[[EngineEvent], None],
    ) -> None:
        self._tasks = tasks
        self._guarded = guarded
        self._shared = shared
        self._heard = heard
        self._translators: dict[str, Translator] = {}
        self._asked: dict[str, JobSpec] = {}  # their specs, before the house completes them
        self._events: dict[str, list[EngineEvent]] = {}
        self._partial: dict[str, dict[str, BlockDelta]] = {}

    def __contains__(self, key: str) -> bool:
        return key in self._translators

    def __getitem__(self, key: str) -> Translator:
        return self._translators[key]

    @property
    def busy(self) -> bool:
        return any(p.busy for p in self._translators.values())

    def open(
        self,
        key: str,
        asked: JobSpec,
        spec: JobSpec,
        start: Callable[[Emit], Translator],
        *,
        source: str,
        revision: int,
    ) -> None:
        """The pane under ``key`` translates with ``spec`` (``asked``, completed by the house):
        a translator ``start``-ed for it on ``source``, or its own given the new spec. What
        ``start`` raises is the caller's to say."""
        pane = self._translators.get(key)
        if pane is None:
            pane = start(lambda event: self._on_event(key, event))
            self._translators[key] = pane
            self._guarded(pane.update, source, revision)
        else:
            self._guarded(pane.set_spec, spec)
        self._asked[key] = asked  # as the window asked: the house completes it (replan)

    def close(self, key: str) -> None:
        """The pane's translator is closed: what it has in flight is cancelled."""
        pane = self._translators.pop(key, None)
        self._asked.pop(key, None)
        self._events.pop(key, None)
        self._partial.pop(key, None)
        if pane is not None:
            self._tasks.keep(asyncio.ensure_future(bounded(pane.aclose(), 0.5)))

    def update(self, source: str, revision: int) -> None:
        for pane in self._translators.values():
            self._guarded(pane.update, source, revision)

    def replan(self, prepare: Callable[[JobSpec], JobSpec]) -> None:
        """Every pane plans every block again, its spec completed by ``prepare`` as it is now."""
        for key, pane in self._translators.items():
            self._guarded(pane.set_spec, prepare(self._asked[key]))

    def forget_partial(self) -> None:
        """Another document: the partial answers not sent yet are of the last one."""
        self._partial.clear()

    def take(self) -> tuple[tuple[str, tuple[EngineEvent, ...]], ...]:
        """(key, its events) of each pane with news, partial answers after final ones."""
        out = []
        for key in self._translators:
            events = (*self._events.pop(key, ()), *self._partial.pop(key, {}).values())
            if events:
                out.append((key, events))
        return tuple(out)

    async def aclose(self) -> None:
        """Every pane's translator closed (the worker shuts down)."""
        panes, self._translators = list(self._translators.values()), {}
        for pane in panes:
            await bounded(pane.aclose(), 0.3)

    def _on_event(self, key: str, event: EngineEvent) -> None:
        if key not in self._translators:
            return  # closed meanwhile
        if isinstance(event, BlockDelta):
            self._partial.setdefault(key, {})[event.block_id] = event
        elif isinstance(event, _PANE_EVENTS):
            if isinstance(event, BlockDone | BlockFailed):
                self._partial.get(key, {}).pop(event.block_id, None)
            self._events.setdefault(key, []).append(event)
        else:
            self._shared(event)
        self._heard(event)
