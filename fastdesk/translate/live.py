"""Keeping one document's translation current while it is edited (runs in the worker's loop).

Block ids are content hashes, so an answer for a block is right for every revision that still
holds that block: results are kept across revisions, and only work whose blocks all vanished is
cancelled. Speculative sentences: the window sends a block as soon as a sentence in it ends
(fastdesk.translate.sending); when the block then changes only around its text (a space typed
after the sentence, a new paragraph started below it) its request goes on, since the memory keys
answers by that text: the new block waits for it and takes the answer from the memory. (Without
a memory in use such a request is cancelled like any stale one.) An answer is only ever shown for
its own block id, so never for a text that has changed since. In a site generator's project the
document is read in its dialect and admonitions and tabs go as their pieces
(fastdesk.translate.dialect), as on the command line: the window writes what it writes.

Work is ordered by ``priorities`` (fastdesk.translate.slots.Priorities: data kept here, read by
the engine when a request slot frees, never a call back up): the blocks just edited first (and
kept requests for them), then those on screen (``set_view``: the source's lines on screen,
mapped to blocks here), then the rest in document order. The blocks on screen, edited or near
the screen go in live-size packs, the rest of a long document in a backfill's larger ones (fewer
requests for the work nobody waits for: fastdesk.translate.engine.Engine.packs). Consumers keep
any BlockDone whose id is in their current document (the window's
fastdesk.review.target_model.TargetModel composes what the target shows from these events).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Collection

from fastdesk.document.blocks import Document, parse, reparse
from fastdesk.document.dialects import apply_dialect
from fastdesk.document.target import TargetView
from fastdesk.translate.dialect import translate_document
from fastdesk.translate.engine import Engine
from fastdesk.translate.events import BlockDone, Emit, EngineEvent
from fastdesk.translate.job import JobSpec
from fastdesk.translate.slots import Priorities

EDIT_BLOCKS = 32  # more new blocks than this in one revision: a new text, not an edit
# Blocks this near the screen go in live-size packs (where the reader scrolls next: with the
# document just opened, the first ones, which come in rounds of small requests while the number
# in flight grows); the rest of a long document, which nobody waits for, in a backfill's
# (Engine.packs). 64: the first 5 % of a 4,000-block document came after 5.0 s, half of it in
# 55-block packs that took 2 s each (load 7).
NEAR_BLOCKS = 200
# ... and at least this share of a long document either side: its first twelfth streams in
# small packs while the number in flight grows, not behind a far pack of 64 blocks
NEAR_SHARE = 1 / 12


class LiveTranslator:
    """Owns the engine runs for one open document; every method runs in the loop's thread."""

    def __init__(self, engine: Engine, spec: JobSpec, emit: Emit) -> None:
        self.engine = engine
        self.spec = spec
        self._emit = emit
        self.doc: Document | None = None
        self.revision = 0
        self.done: dict[str, str] = {}
        self._runs: dict[asyncio.Task[object], frozenset[str]] = {}  # runs and expansions
        self._cores: dict[asyncio.Task[object], frozenset[str]] = {}  # the texts runs translate
        self._kept: dict[asyncio.Task[object], frozenset[str]] = {}  # runs kept for their texts
        self._deferred = False  # blocks wait for a kept run's answer: start them when it ends
        self._ids: frozenset[str] = frozenset()
        self._edited: frozenset[str] = frozenset()  # blocks of the latest edit: they go first
        self.priorities = Priorities()  # the order of work, for the engine (see the docstring)
        self._view: tuple[int, int] | None = None  # the source's lines on screen (set_view)
        # the reviewer model's work after a run (Engine.run's reviews): apart from the runs, so
        # that nothing waiting for a run's end (deferred blocks, the busy light) waits for it
        self._reviews: set[asyncio.Task[None]] = set()

    # ---- inputs -----------------------------------------------------------------------------

    def update(self, source: str, revision: int) -> None:
        """A new revision of the source: cancel what it made stale, start what it needs."""
        self.revision = revision
        first = self.doc is None
        before = self._ids
        doc = parse(source) if self.doc is None else reparse(self.doc, source)
        self.doc = apply_dialect(doc, self.spec.dialect)
        present = self._ids = frozenset(b.id for b in self.doc.blocks)
        edited = frozenset() if first else present - before
        # A few new blocks are an edit and go first; a whole new text (another file opened in
        # the window) is a first fill, ordered by what is on screen like the first one.
        if len(edited) > EDIT_BLOCKS:
            self._edited = frozenset()
        else:  # the edits before it that still wait keep their place
            self._edited = (self._edited & present) | edited
        self.done = {bid: text for bid, text in self.done.items() if bid in present}
        wanted: frozenset[str] | None = None  # worked out only when a run lost all its blocks
        for task, ids in list(self._runs.items()):
            if ids & present:
                continue
            if wanted is None:
                wanted = self._open_cores() if self._reusable() else frozenset()
            if self._cores.get(task, frozenset()) & wanted:
                self._kept[task] = ids  # its answer is still wanted, by text: see the docstring
            else:
                self._cancel(task)
        self._prioritize()
        self._start(force=())

    def set_view(self, first_line: int, last_line: int) -> None:
        """The source's lines on screen now (1-based): waiting work for the blocks that hold
        them goes next (after the edited ones)."""
        self._view = (first_line, last_line)
        self._prioritize()

    def _on_screen(self) -> tuple[int, int] | None:
        """The indexes of the first and last block holding the lines on screen, in the
        document as it is now (None: no view known, or the view is past the text)."""
        doc = self.doc
        if doc is None or self._view is None or not doc.blocks:
            return None
        first, last = self._view
        try:
            top = doc.block_at_line(max(1, first))
        except IndexError:  # below the end: the reader's view is past the text
            return None
        try:
            bottom = doc.block_at_line(last)
        except IndexError:
            bottom = len(doc.blocks) - 1
        return top, bottom

    def _prioritize(self) -> None:
        """The priorities say what this session now knows: its document, the latest edit, the
        kept runs' blocks, the blocks on screen and those near them (``NEAR_BLOCKS`` either
        side; the document's first ones while no view is known)."""
        doc = self.doc
        blocks = doc.blocks if doc is not None else []
        shown = self._on_screen()
        top, bottom = shown if shown is not None else (0, -1)
        self.priorities.doc = doc
        self.priorities.visible = frozenset(b.id for b in blocks[top : bottom + 1])
        reach = max(NEAR_BLOCKS, int(len(blocks) * NEAR_SHARE))
        self.priorities.near = frozenset(
            b.id for b in blocks[max(0, top - reach) : bottom + 1 + reach]
        )
        self.priorities.edited = self._edited
        self.priorities.kept = frozenset().union(*self._kept.values())

    def set_spec(self, spec: JobSpec) -> None:
        """Mode, language, provider or the document's house changed: every block is planned
        again."""
        dialect_changed = spec.dialect != self.spec.dialect
        self.spec = spec
        self._cancel_all()
        for task in list(self._reviews):
            task.cancel()
        self.done.clear()
        if self.doc is not None:
            if dialect_changed:  # which blocks are only syntax: asked afresh
                self.doc = apply_dialect(parse(self.doc.source), spec.dialect)
                self._ids = frozenset(b.id for b in self.doc.blocks)
            self._start(force=())

    def retranslate(self, block_ids: Collection[str]) -> None:
        """Translate these blocks again, bypassing the memory."""
        if self.doc is None:
            return
        ids = frozenset(block_ids)
        self._edited |= ids  # asked for by the user: first
        for bid in ids:
            self.done.pop(bid, None)
        self._prioritize()
        self._start(force=ids, only=ids)

    def expand(self, block_id: str) -> None:
        """Elaborate this block's section in the target language (Expansion events)."""
        if self.doc is None or block_id not in self._ids:
            return
        task = asyncio.get_running_loop().create_task(
            self.engine.expand(
                self.doc, block_id, self.spec, revision=self.revision, emit=self._emit
            )
        )
        self._runs[task] = frozenset({block_id})
        task.add_done_callback(self._finished)

    # ---- outputs ----------------------------------------------------------------------------

    def snapshot(self) -> TargetView:
        """The answers so far in document order, a block without one showing its source: for
        consumers without a window (scripts, tests). The window composes what it shows with
        fastdesk.review.target_model.TargetModel, from the events."""
        parts: list[str] = []
        spans: list[tuple[str, int, int]] = []
        pending: set[str] = set()
        pos = 0
        for block in self.doc.blocks if self.doc is not None else ():
            text = self.done.get(block.id)
            if text is None:
                pending.add(block.id)
                text = block.text
            parts.append(text)
            spans.append((block.id, pos, pos + len(text)))
            pos += len(text)
        return TargetView("".join(parts), tuple(spans), frozenset(pending))

    @property
    def busy(self) -> bool:
        return any(not t.done() for t in self._runs)

    async def aclose(self) -> None:
        tasks: list[asyncio.Task[object]] = [*self._runs, *self._reviews]
        for task in list(self._reviews):
            task.cancel()
        self._cancel_all()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

    # ---- internals --------------------------------------------------------------------------

    def _reusable(self) -> bool:
        """Whether an answer can be taken from the memory by its text (see the docstring)."""
        memory = self.engine.memory
        return memory is not None and memory.available and self.spec.use_memory

    def _open_cores(self) -> frozenset[str]:
        """The texts of the blocks still without an answer."""
        assert self.doc is not None
        return frozenset(b.split()[1] for b in self.doc.blocks if b.id not in self.done)

    def _start(self, force: Collection[str], only: Collection[str] | None = None) -> None:
        assert self.doc is not None
        in_flight = set().union(*self._runs.values()) if self._runs else set()
        waiting = set().union(*self._cores.values()) if self._reusable() and self._cores else set()
        if only is not None:
            wanted = [b.id for b in self.doc.blocks if b.id in only]
        else:
            wanted = []
            for b in self.doc.blocks:
                if b.id in self.done or b.id in in_flight:
                    continue
                if waiting and b.split()[1] in waiting:  # a run already translates this text
                    self._deferred = True
                    continue
                wanted.append(b.id)
        if not wanted:
            return
        doc, revision, spec = self.doc, self.revision, self.spec
        task = asyncio.get_running_loop().create_task(
            translate_document(
                self.engine,
                doc,
                spec,
                spec.dialect,
                revision=revision,
                emit=self._on_event,
                block_ids=wanted,
                force=force,
                priorities=self.priorities,
                reviews=self._reviews,
            )
        )
        self._runs[task] = frozenset(wanted)
        self._cores[task] = frozenset(b.split()[1] for b in doc.blocks if b.id in self._runs[task])
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[object]) -> None:
        self._forget(task)
        if not task.cancelled():
            with contextlib.suppress(Exception):
                task.result()
        if self._deferred and self.doc is not None:
            self._deferred = False  # set again by _start for blocks that still wait
            self._start(force=())

    def _forget(self, task: asyncio.Task[object]) -> None:
        self._runs.pop(task, None)
        self._cores.pop(task, None)
        if self._kept.pop(task, None) is not None:
            self._prioritize()

    def _cancel(self, task: asyncio.Task[object]) -> None:
        """Cancel a run; its blocks are no longer in flight at once (a re-plan may take them)."""
        task.cancel()
        self._forget(task)

    def _on_event(self, event: EngineEvent) -> None:
        if isinstance(event, BlockDone) and self.doc is not None and event.block_id in self._ids:
            self.done[event.block_id] = event.text
        self._emit(event)

    def _cancel_all(self) -> None:
        self._deferred = False
        for task in list(self._runs):
            self._cancel(task)
