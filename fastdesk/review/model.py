"""The review of one document in one target language: who wrote each block's target, and whether
someone checked it (pure Python; the window paints it, the sidecar file stores it).

Two kinds of knowledge are kept apart, because they move differently when the source changes:

* the *machine answer* of a block (text, origin, flags) is a function of the block's source text,
  so it is keyed by the block's content-hash id (see ``fastdesk.document.blocks``) and simply
  dropped when that id leaves the document;
* the *reviewer's text* (an edit, or a machine text pinned by an approval) belongs to a position
  in the document. It is carried over by aligning the old and new block sequences; when its
  block's source changed it is kept, marked ``stale_edit`` ("source changed since your edit"),
  and waits for :meth:`Review.resolve`. A reviewer's text whose block was deleted is kept as
  *detached* (saved too) and comes back if the block does: nothing is discarded silently.

States, by precedence: stale_edit, approved, edited, in_flight, pending (no answer yet), flagged
(failed checks or failed translation), memory, copy (not translatable: code, blank…), machine.

The reviewer's text always wins over a machine answer: re-translation (forced or not) only
replaces the machine answer kept aside.
"""

from __future__ import annotations

import bisect
import dataclasses
import difflib
import hashlib
import json
import logging
import os
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, NotRequired, TypedDict

from fastdesk.config.fileio import (
    MAX_DOCUMENT_STATE_BYTES,
    BrokenFile,
    FileError,
    atomic_write_text,
    load_json,
    set_aside,
)
from fastdesk.document.blocks import Block, Document, parse
from fastdesk.document.target import TargetView
from fastdesk.document.text_ends import common_prefix, common_suffix
from fastdesk.translate.checks import plain_flag
from fastdesk.translate.events import BlockDone, BlockFailed, BlockStarted, EngineEvent, Flag

__all__ = [
    "SIDECAR_SUFFIX",
    "SIDECAR_VERSION",
    "STATES",
    "STATE_STYLES",
    "BlockEntry",
    "BlockInfo",
    "BlockRecord",
    "DetachedEdit",
    "DetachedRecord",
    "KeptRecord",
    "Review",
    "ReviewData",
    "ReviewSummary",
    "Snapshot",
    "StateStyle",
    "diff_target_edit",
    "flag_text",
    "load_review",
    "review_path",
    "save_review",
    "source_sha256",
]

log = logging.getLogger("fastdesk.review.model")

SIDECAR_SUFFIX = ".fastdesk.json"
SIDECAR_VERSION = 1

STATES = (
    "pending",
    "in_flight",
    "machine",
    "memory",
    "copy",
    "flagged",
    "edited",
    "approved",
    "stale_edit",
)


@dataclass(frozen=True)
class StateStyle:
    """How a state looks in the target's margin and in the bilingual export."""

    label: str
    colour: str  # a mid-tone that reads on light and dark backgrounds
    meaning: str


STATE_STYLES: dict[str, StateStyle] = {
    "pending": StateStyle("waiting", "#8c959f", "Not translated yet; the source is shown"),
    "in_flight": StateStyle("translating", "#d4a72c", "Being translated now"),
    "machine": StateStyle("machine", "#6e7781", "Machine translation, not reviewed"),
    "memory": StateStyle("memory", "#218bff", "From the translation memory, not reviewed"),
    "copy": StateStyle("kept as is", "#afb8c1", "Not translatable (code, front matter…)"),
    "flagged": StateStyle("flagged", "#cf222e", "Failed a check or failed to translate"),
    "edited": StateStyle("edited", "#8250df", "Corrected by a reviewer"),
    "approved": StateStyle("approved", "#1a7f37", "Approved by a reviewer"),
    "stale_edit": StateStyle(
        "source changed", "#bc4c00", "The source changed since your edit: re-translate or keep"
    ),
}


# ---- records ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Answer:
    """The engine's latest word on a block (text None: it failed and had nothing before)."""

    text: str | None
    origin: str  # model | memory | copy | failed
    flags: tuple[Flag, ...] = ()


@dataclass(frozen=True)
class _Kept:
    """Text a reviewer owns: typed (edited) and/or approved, made against source text ``base``."""

    text: str
    base: str
    edited: bool = False
    approved: bool = False
    stale: bool = False


@dataclass(frozen=True)
class Snapshot:
    """The reviewer's records of some blocks at one moment (None: no record), as
    :meth:`Review.snapshot` took them: what undo and redo put back with :meth:`Review.restore`.
    Opaque on purpose, so that putting a record back has one way in."""

    kept: tuple[tuple[str, _Kept | None], ...]

    @property
    def block_ids(self) -> tuple[str, ...]:
        return tuple(bid for bid, _kept in self.kept)

    def joined(self, later: Snapshot) -> Snapshot:
        """This snapshot, and the blocks only ``later`` holds: each block as it was first (what
        a group of steps, such as Replace All, started from)."""
        held = {bid for bid, _kept in self.kept}
        return Snapshot(self.kept + tuple(item for item in later.kept if item[0] not in held))


# ---- the review as JSON (Review.to_dict; the sidecar keeps one per language) -------------------


class KeptRecord(TypedDict):
    """A reviewer's text. ``base``, the source it was made against, is left out when that is the
    block's source now; ``stale`` is there only when true."""

    text: str
    edited: bool
    approved: bool
    stale: NotRequired[bool]
    base: NotRequired[str]


class BlockEntry(TypedDict, total=False):
    """What the review holds for one block: the machine answer, the reviewer's text, or both."""

    machine: str | None  # the engine's answer (None: it failed), with its origin
    origin: str
    flags: list[list[str]]  # [check, detail] for each failed check, when any
    text: str  # the reviewer's text, as in KeptRecord
    edited: bool
    approved: bool
    stale: bool
    base: str


class BlockRecord(BlockEntry):
    """One block's entry, with its position and id in the source it was saved with."""

    i: int
    id: str


class DetachedRecord(KeptRecord):
    """A reviewer's text whose block is no longer in the document (by its last block id)."""

    id: str


class ReviewData(TypedDict):
    """The review of one document in one language, aligned to ``source`` (None: no document)."""

    lang: str
    source: str | None
    count: int  # blocks in source: records are matched by position when the ids moved
    blocks: list[BlockRecord]
    detached: list[DetachedRecord]


@dataclass(frozen=True)
class BlockInfo:
    """Everything the window needs to show one block (e.g. the stale-edit choice)."""

    block_id: str
    state: str
    source: str | None  # the block's current source text (None: not in the document)
    shown: str | None  # what the target shows for it (None: falls back to the source)
    machine: str | None  # the latest machine answer (kept aside while a reviewer's text wins)
    origin: str | None
    flags: tuple[Flag, ...]
    text: str | None  # the reviewer's text
    base: str | None  # the source text the reviewer's text was made against
    edited: bool
    approved: bool

    @property
    def tooltip(self) -> str:
        """One line for the margin's hover: the state, and the reasons when flagged or stale."""
        style = STATE_STYLES[self.state]
        parts = [style.meaning]
        parts += [flag_text(f) for f in self.flags]
        return " · ".join(parts) if self.state == "flagged" else style.meaning


@dataclass(frozen=True)
class DetachedEdit:
    """A reviewer's text whose source block was deleted (restored if that block comes back)."""

    block_id: str
    base: str
    text: str
    edited: bool
    approved: bool


@dataclass(frozen=True)
class ReviewSummary:
    """Counts over the translatable blocks; the states are exclusive (see Review.state_of)."""

    blocks: int
    approved: int
    flagged: int
    edited: int
    stale: int
    in_flight: int
    pending: int
    detached: int = 0

    @property
    def unreviewed(self) -> int:
        return self.blocks - self.approved

    def __str__(self) -> str:
        parts = [f"{self.blocks} blocks", f"{self.approved} approved"]
        parts += [f"{self.edited} edited", f"{self.flagged} flagged"]
        if self.stale:
            parts.append(f"{self.stale} source changed")
        if self.detached:
            parts.append(f"{self.detached} detached")
        return " · ".join(parts)


# ---- the review -------------------------------------------------------------------------------


def flag_text(flag: Flag) -> str:
    """A flag as an editor reads it: its check's plain name (never the internal one), and what
    differs."""
    return ": ".join(plain_flag(flag.check, flag.detail))


def _kept_state(kept: _Kept) -> str:
    return "stale_edit" if kept.stale else "approved" if kept.approved else "edited"


def _answer_state(answer: _Answer) -> str:
    if answer.flags:
        return "flagged"
    return {"memory": "memory", "copy": "copy"}.get(answer.origin, "machine")


class Review:
    """Per-document, per-language review state; every method is cheap and never does I/O."""

    def __init__(
        self, source_path: str | os.PathLike[str] | None, lang: str, doc: Document | None = None
    ) -> None:
        self.source_path = Path(source_path) if source_path is not None else None
        self.lang = lang
        self.doc: Document | None = doc
        self._present = frozenset(b.id for b in doc.blocks) if doc else frozenset()
        self._translatable_of: Document | None = None
        self._translatable_ids: frozenset[str] = frozenset()
        self.generation = 0  # bumped on every change (cheap "did anything change?" for savers)
        self._answers: dict[str, _Answer] = {}
        self._kept: dict[str, _Kept] = {}
        self._in_flight: set[str] = set()
        self._detached: dict[str, _Kept] = {}
        # The summary's counts, kept up to date from the blocks that changed (at 7,000 blocks a
        # full count cost the GUI thread ~7 ms, several times a second while a document
        # streams in): the translatable blocks counted, each in the state it was counted in,
        # and the blocks whose records changed since.
        self._tally = dict.fromkeys(STATES, 0)
        self._tallied: dict[str, str] = {}
        self._tallied_ids: frozenset[str] = frozenset()  # the _translatable() counted
        self._touched: set[str] = set()  # blocks whose records changed since the last summary

    # ---- engine events ----------------------------------------------------------------------

    def apply_event(self, event: EngineEvent) -> bool:
        """Take in one engine event; True when a block's state or text changed.

        A reviewer's text is never replaced: a new answer for an edited or approved block is
        only kept aside (see BlockInfo.machine).
        """
        if isinstance(event, BlockStarted):
            if event.block_id in self._in_flight:
                return False
            self._in_flight.add(event.block_id)
        elif isinstance(event, BlockDone):
            self._in_flight.discard(event.block_id)
            self._answers[event.block_id] = _Answer(event.text, event.origin, tuple(event.flags))
        elif isinstance(event, BlockFailed):
            self._in_flight.discard(event.block_id)
            before = self._answers.get(event.block_id)
            self._answers[event.block_id] = _Answer(
                before.text if before else None,
                before.origin if before else "failed",
                (Flag("failed", event.error),),
            )
        else:
            return False
        self._changed(event.block_id)
        return True

    def clear_in_flight(self) -> None:
        """Forget blocks marked in flight (the session went idle or was cancelled)."""
        if self._in_flight:
            self._touched |= self._in_flight
            self._in_flight.clear()
            self.generation += 1

    # ---- the reviewer -----------------------------------------------------------------------

    def edit(self, block_id: str, text: str) -> None:
        """The reviewer's text for a block. Typing the machine text back undoes the edit.

        Editing withdraws an approval; a stale edit stays stale until resolve().
        KeyError if the block is not in the current document.
        """
        source = self._source(block_id)
        old = self._kept.get(block_id)
        answer = self._answers.get(block_id)
        if old is not None and old.stale:
            self._kept[block_id] = dataclasses.replace(old, text=text, edited=True, approved=False)
        elif answer is not None and answer.text == text:
            self._kept.pop(block_id, None)
        else:
            self._kept[block_id] = _Kept(text, source, edited=True)
        self._changed(block_id)

    def revert(self, block_id: str) -> bool:
        """Drop the reviewer's text (edit, approval, stale edit): the machine answer shows."""
        if self._kept.pop(block_id, None) is None:
            return False
        self._changed(block_id)
        return True

    def approve(self, block_id: str) -> bool:
        """Approve what the block shows (pinning a machine text). False when there is nothing
        to approve: no translation yet, not translatable, or a stale edit (resolve it first)."""
        state = self.state_of(block_id)
        kept = self._kept.get(block_id)
        if state in ("stale_edit", "pending", "copy"):
            return False
        if kept is not None:
            if kept.approved:
                return False
            self._kept[block_id] = dataclasses.replace(kept, approved=True)
        else:
            answer = self._answers.get(block_id)
            if answer is None or answer.text is None:
                return False
            self._kept[block_id] = _Kept(answer.text, self._source(block_id), approved=True)
        self._changed(block_id)
        return True

    def unapprove(self, block_id: str) -> bool:
        kept = self._kept.get(block_id)
        if kept is None or not kept.approved or kept.stale:
            return False
        if kept.edited:
            self._kept[block_id] = dataclasses.replace(kept, approved=False)
        else:
            del self._kept[block_id]
        self._changed(block_id)
        return True

    def approvable(self, *, include_flagged: bool = False) -> list[str]:
        """The blocks Approve All would approve, in document order: translatable ones showing a
        translation; flagged blocks only when asked (a bulk approval should not wave failed
        checks through)."""
        wanted = {"machine", "memory", "edited"} | ({"flagged"} if include_flagged else set())
        return [b.id for b in self._blocks() if b.translatable and self.state_of(b.id) in wanted]

    def approve_all(self, *, include_flagged: bool = False) -> int:
        """Approve every block of :meth:`approvable`. Returns how many."""
        return sum(self.approve(bid) for bid in self.approvable(include_flagged=include_flagged))

    def resolve(self, block_id: str, choice: str) -> bool:
        """Answer "source changed since your edit": ``"retranslate"`` drops the reviewer's text
        (the machine answer for the new source shows), ``"keep"`` keeps it as an edit of the new
        source (approve it again when satisfied). Returns True when the caller should ask for a
        translation (nothing known or in flight for the new source)."""
        kept = self._kept.get(block_id)
        if choice not in ("retranslate", "keep"):
            raise ValueError(f"unknown choice {choice!r} (retranslate | keep)")
        if kept is None or not kept.stale:
            return False
        if choice == "keep":
            source = self._source(block_id)
            self._kept[block_id] = _Kept(kept.text, source, edited=True)
        else:
            del self._kept[block_id]
        self._changed(block_id)
        has_answer = (a := self._answers.get(block_id)) is not None and a.text is not None
        return choice == "retranslate" and not has_answer and block_id not in self._in_flight

    # ---- undo -------------------------------------------------------------------------------

    def snapshot(self, block_ids: Collection[str]) -> Snapshot:
        """The reviewer's records of these blocks as they are now (taken before and after an
        action of the reviewer, so that undo and redo can put either back)."""
        return Snapshot(tuple((bid, self._kept.get(bid)) for bid in dict.fromkeys(block_ids)))

    def restore(self, snapshot: Snapshot) -> list[str]:
        """Put the records of ``snapshot`` back (undo, redo); returns the blocks that changed.
        A block no longer in the document is left alone: its id is its source's hash, so it
        comes back, and can be undone again, when an undo of the source brings the block back."""
        changed = []
        for bid, kept in snapshot.kept:
            if bid not in self._present or self._kept.get(bid) == kept:
                continue
            if kept is None:
                del self._kept[bid]
            else:
                self._kept[bid] = kept
            changed.append(bid)
        if changed:
            self._changed(*changed)
        return changed

    # ---- reading ----------------------------------------------------------------------------

    def state_of(self, block_id: str) -> str:
        kept = self._kept.get(block_id)
        if kept is not None:
            return _kept_state(kept)
        if block_id in self._in_flight:
            return "in_flight"
        answer = self._answers.get(block_id)
        return "pending" if answer is None else _answer_state(answer)

    def shown_text(self, block_id: str) -> str | None:
        """The block's target text: the reviewer's, else the machine's (None: nothing yet)."""
        kept = self._kept.get(block_id)
        if kept is not None:
            return kept.text
        answer = self._answers.get(block_id)
        return answer.text if answer is not None else None

    def flags_of(self, block_id: str) -> tuple[Flag, ...]:
        """The machine answer's flags (cheap: the problems list asks for every block)."""
        answer = self._answers.get(block_id)
        return answer.flags if answer is not None else ()

    def answered(self, block_ids: Collection[str]) -> set[str]:
        """Those of ``block_ids`` the review holds an answer for (a set intersection: the window
        asks it for every pending block of every streamed batch)."""
        return self._answers.keys() & block_ids

    def is_kept(self, block_id: str) -> bool:
        """True when a reviewer's text shows (streamed answers must not be drawn over it)."""
        return block_id in self._kept

    def info(self, block_id: str) -> BlockInfo:
        kept = self._kept.get(block_id)
        answer = self._answers.get(block_id)
        source = self._source(block_id) if block_id in self._present else None
        return BlockInfo(
            block_id=block_id,
            state=self.state_of(block_id),
            source=source,
            shown=self.shown_text(block_id),
            machine=answer.text if answer else None,
            origin=answer.origin if answer else None,
            flags=answer.flags if answer else (),
            text=kept.text if kept else None,
            base=kept.base if kept else None,
            edited=bool(kept and kept.edited),
            approved=bool(kept and kept.approved),
        )

    def marks(self) -> list[tuple[str, str, str]]:
        """(block id, state, tooltip) for every block of the document, in order (the margin)."""
        out = []
        for block in self._blocks():
            info = self.info(block.id)
            out.append((block.id, info.state, info.tooltip))
        return out

    def overlay(self) -> dict[str, str]:
        """Block id → reviewer's text, for blocks where it replaces the machine answer."""
        return {bid: kept.text for bid, kept in self._kept.items()}

    def target_text(self, doc: Document | None = None) -> str:
        """The whole target: reviewer's text, else machine text, else the block's source."""
        blocks = doc.blocks if doc is not None else self._blocks()
        parts = []
        for block in blocks:
            text = self.shown_text(block.id)
            parts.append(block.text if text is None else text)
        return "".join(parts)

    def summary(self) -> ReviewSummary:
        """How many translatable blocks are in each state: the counts are kept up to date from
        the blocks that came, went or changed since the last call, not counted afresh."""
        ids = self._translatable()
        tally, tallied = self._tally, self._tallied
        if ids is not self._tallied_ids:  # another revision: blocks came and went
            for bid in self._tallied_ids - ids:
                tally[tallied.pop(bid)] -= 1
            for bid in ids - self._tallied_ids:
                tallied[bid] = state = self.state_of(bid)
                tally[state] += 1
            self._tallied_ids = ids
        for bid in self._touched:
            old = tallied.get(bid)
            if old is None:
                continue  # not translatable, or not in the document
            new = self.state_of(bid)
            if new != old:
                tally[old] -= 1
                tally[new] += 1
                tallied[bid] = new
        self._touched.clear()
        return ReviewSummary(
            blocks=len(ids),
            approved=tally["approved"],
            flagged=tally["flagged"],
            edited=tally["edited"],
            stale=tally["stale_edit"],
            in_flight=tally["in_flight"],
            pending=tally["pending"],
            detached=len(self._detached),
        )

    def stale_blocks(self) -> list[str]:
        """The blocks whose source changed under a reviewer's text, in document order."""
        stale = {bid for bid, kept in self._kept.items() if kept.stale and bid in self._present}
        return [b.id for b in self._blocks() if b.id in stale] if stale else []

    def has_work(self) -> bool:
        """True when a reviewer did something worth a sidecar file (edits, approvals…)."""
        return bool(self._kept or self._detached)

    def detached(self) -> list[DetachedEdit]:
        return [
            DetachedEdit(bid, k.base, k.text, k.edited, k.approved)
            for bid, k in self._detached.items()
        ]

    def drop_detached(self, block_id: str | None = None) -> int:
        """Forget detached reviewer texts (all, or one); returns how many."""
        ids = list(self._detached) if block_id is None else [block_id]
        dropped = sum(self._detached.pop(bid, None) is not None for bid in ids)
        if dropped:
            self.generation += 1
        return dropped

    # ---- the source changed -----------------------------------------------------------------

    def realign(self, doc: Document) -> list[str]:
        """Move the review onto a new revision of the source; returns ids that became stale.

        Machine answers survive for ids still present. Reviewer's texts follow their blocks:
        unchanged blocks by aligning the id sequences (so inserting a paragraph, even a
        duplicate one, above an edited one keeps the edit on its block); changed blocks by
        position and similarity, becoming ``stale_edit``; deleted ones become detached.
        """
        old = self.doc
        self.doc = doc
        self._present = present = frozenset(b.id for b in doc.blocks)
        sizes = (len(self._answers), len(self._in_flight))
        self._answers = {k: v for k, v in self._answers.items() if k in present}
        self._in_flight &= present
        kept, lost, newly_stale = _carry(old, doc, self._kept)
        self._detached.update(lost)
        for block in doc.blocks:  # a deleted block came back (undo, cut and paste)
            if block.id not in kept and block.id in self._detached:
                kept[block.id] = self._detached.pop(block.id)
        changed = kept != self._kept or lost or sizes != (len(self._answers), len(self._in_flight))
        before = self._kept
        self._touched.update(k for k in kept.keys() | before.keys() if kept.get(k) != before.get(k))
        self._kept = kept
        if changed:
            self.generation += 1
        return newly_stale

    # ---- persistence (see save_review / load_review for the file) ---------------------------

    def to_dict(self) -> ReviewData:
        """A JSON-able snapshot: the source it is aligned to, and per-block records in order."""
        doc = self.doc
        blocks: list[BlockRecord] = []
        for i, block in enumerate(doc.blocks if doc else ()):
            entry = self._entry(block.id, block.text)
            if entry:
                blocks.append({"i": i, "id": block.id, **entry})
        return {
            "lang": self.lang,
            "source": doc.source if doc else None,
            "count": len(doc.blocks) if doc else 0,
            "blocks": blocks,
            "detached": [{"id": bid, **_kept_dict(k, None)} for bid, k in self._detached.items()],
        }

    @classmethod
    def from_dict(
        cls, data: Mapping[str, Any], source_path: str | os.PathLike[str] | None = None
    ) -> Review:
        """The inverse of :meth:`to_dict`; ValueError (with a reason) on malformed data."""
        try:
            return _from_dict(cls, data, source_path)
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"malformed review data ({type(exc).__name__}: {exc})") from None

    def _entry(self, block_id: str, source: str) -> BlockEntry:
        entry: BlockEntry = {}
        answer = self._answers.get(block_id)
        if answer is not None:
            entry["machine"] = answer.text
            entry["origin"] = answer.origin
            if answer.flags:
                entry["flags"] = [[f.check, f.detail] for f in answer.flags]
        kept = self._kept.get(block_id)
        if kept is not None:
            entry = {**entry, **_kept_dict(kept, source)}
        return entry

    # ---- helpers ----------------------------------------------------------------------------

    def _blocks(self) -> tuple[Block, ...]:
        return self.doc.blocks if self.doc is not None else ()

    def _translatable(self) -> frozenset[str]:
        """Ids of the document's translatable blocks (worked out once per document)."""
        if self._translatable_of is not self.doc:
            self._translatable_of = self.doc
            self._translatable_ids = frozenset(b.id for b in self._blocks() if b.translatable)
        return self._translatable_ids

    def _changed(self, *block_ids: str) -> None:
        """These blocks' records changed: savers see a new generation, the summary recounts
        them."""
        self.generation += 1
        self._touched.update(block_ids)

    def _source(self, block_id: str) -> str:
        if self.doc is None or block_id not in self._present:
            raise KeyError(f"block {block_id} is not in the current document")
        return self.doc.by_id(block_id).text


def _kept_dict(kept: _Kept, source: str | None) -> KeptRecord:
    out: KeptRecord = {"text": kept.text, "edited": kept.edited, "approved": kept.approved}
    if kept.stale:
        out["stale"] = True
    if kept.base != source:
        out["base"] = kept.base
    return out


def _from_dict(
    cls: type[Review], data: Mapping[str, Any], source_path: str | os.PathLike[str] | None
) -> Review:
    # ``data`` is JSON read from a file, of any shape (hence Any, not ReviewData): a value of
    # the wrong type raises KeyError, TypeError or AttributeError, made a ValueError by from_dict.
    source = data.get("source")
    doc = parse(_str(source, "source")) if source is not None else None
    review = cls(source_path, _str(data["lang"], "lang"), doc)
    blocks = doc.blocks if doc else ()
    ids = {b.id for b in blocks}
    same_count = data.get("count") == len(blocks)
    for entry in data.get("blocks", ()):
        bid = _str(entry["id"], "id")
        if doc is None:
            raise ValueError("block records without a source")
        if bid not in ids:  # parsed differently (another fastdesk version): by position
            index = entry.get("i")
            if not (same_count and isinstance(index, int) and 0 <= index < len(blocks)):
                if "text" in entry:
                    review._detached[bid] = _kept_from(entry, None)
                continue
            bid = blocks[index].id
        block_text = doc.by_id(bid).text
        if "origin" in entry:
            machine = entry.get("machine")
            review._answers[bid] = _Answer(
                None if machine is None else _str(machine, "machine"),
                _str(entry["origin"], "origin"),
                tuple(Flag(_str(c, "flag"), _str(d, "flag")) for c, d in entry.get("flags", ())),
            )
        if "text" in entry:
            review._kept[bid] = _kept_from(entry, block_text)
    for entry in data.get("detached", ()):
        review._detached[_str(entry["id"], "id")] = _kept_from(entry, None)
    return review


def _kept_from(entry: Mapping[str, Any], source: str | None) -> _Kept:
    base = entry.get("base", source)
    return _Kept(
        text=_str(entry["text"], "text"),
        base=_str(base, "base"),
        edited=bool(entry.get("edited", False)),
        approved=bool(entry.get("approved", False)),
        stale=bool(entry.get("stale", False)),
    )


def _str(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{what} should be text, not {type(value).__name__}")
    return value


# ---- alignment --------------------------------------------------------------------------------

SIMILAR = 0.5  # below this, a changed block is not "the same paragraph, edited"
_WINDOW = 8  # candidates considered on each side of the expected position in a changed region
_TOKENS = 200  # words compared per block (similarity is about "the same paragraph", not detail)
_WORD = re.compile(r"\w+|[^\w\s]")


def _carry(
    old: Document | None, new: Document, kept: Mapping[str, _Kept]
) -> tuple[dict[str, _Kept], dict[str, _Kept], list[str]]:
    """Reviewer's texts on ``new``'s ids, those whose block vanished (by old id), and the new
    ids of those that just became stale."""
    if not kept:
        return {}, {}, []
    new_ids = [b.id for b in new.blocks]
    if old is None:
        present = set(new_ids)
        on_new = {bid: k for bid, k in kept.items() if bid in present}
        return on_new, {bid: k for bid, k in kept.items() if bid not in present}, []
    old_ids = [b.id for b in old.blocks]
    moved: dict[str, _Kept] = {}
    old_set = set(old_ids)
    lost = {bid: k for bid, k in kept.items() if bid not in old_set}  # not on the old doc
    newly_stale: list[str] = []
    matcher = difflib.SequenceMatcher(
        None, [_digest(b) for b in old_ids], [_digest(b) for b in new_ids], autojunk=False
    )
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for k in range(i2 - i1):
                if old_ids[i1 + k] in kept:
                    moved[new_ids[j1 + k]] = kept[old_ids[i1 + k]]
            continue
        vanished = [i for i in range(i1, i2) if old_ids[i] in kept]
        if not vanished:
            continue
        pairs = _pair(old, new, vanished, i1, i2, j1, j2)
        for i in vanished:
            record = kept[old_ids[i]]
            if i in pairs:
                target = new.blocks[pairs[i]]
                stale = target.text != record.base
                moved[target.id] = dataclasses.replace(record, stale=stale)
                if stale and not record.stale:
                    newly_stale.append(target.id)
            else:
                lost[old_ids[i]] = record
    return moved, lost, newly_stale


def _digest(block_id: str) -> str:
    """The content hash without the duplicate counter: equal digests mean equal blocks."""
    return block_id.split("-", 1)[0]


def _pair(
    old: Document, new: Document, vanished: list[int], i1: int, i2: int, j1: int, j2: int
) -> dict[int, int]:
    """Old index → new index for reviewer's texts in a changed region: by position when the
    region kept its number of blocks, else by similarity (order preserved)."""
    if i2 - i1 == j2 - j1:
        return {i: j1 + (i - i1) for i in vanished}
    scored: list[tuple[float, int, int, int]] = []
    for i in vanished:
        expected = j1 + round((i - i1) * (j2 - j1) / max(1, i2 - i1))
        lo, hi = max(j1, expected - _WINDOW), min(j2, expected + _WINDOW + 1)
        for j in range(lo, hi):
            score = _similarity(old.blocks[i].text, new.blocks[j].text)
            if score >= SIMILAR:
                scored.append((score, -abs(j - expected), i, j))
    scored.sort(reverse=True)
    pairs: dict[int, int] = {}
    for _score, _near, i, j in scored:
        if i in pairs or j in pairs.values():
            continue
        if all((i < a) == (j < b) for a, b in pairs.items()):
            pairs[i] = j
    return pairs


def _similarity(a: str, b: str) -> float:
    """Dice coefficient of the blocks' word sets: 1 for the same words, 0 for none in common.
    Cheap (set operations), which matters when a whole document was rewritten on disk."""
    wa, wb = _words(a), _words(b)
    if not wa or not wb:
        return 1.0 if wa == wb else 0.0
    return 2 * len(wa & wb) / (len(wa) + len(wb))


@lru_cache(maxsize=4096)
def _words(text: str) -> frozenset[str]:
    return frozenset(w.casefold() for w in _WORD.findall(text, 0, 8 * _TOKENS)[:_TOKENS])


# ---- attributing a target edit to blocks ------------------------------------------------------


def diff_target_edit(
    view: TargetView, new_text: str, at: int | None = None
) -> list[tuple[str, str]]:
    """The blocks a user's edit of the target pane touched, with their new texts.

    ``view`` is what the pane showed before the edit (e.g. :meth:`Review.view`), ``new_text``
    the pane's text after it, both with the same line ends. ``at`` (optional) is where the
    change began (Qt's contentsChange position, as a Python index): it settles the ambiguous
    cases, such as typing a character equal to its neighbour. Joining the returned texts in
    place of the old ones gives ``new_text`` exactly; blocks swallowed whole come back as "".
    """
    old = view.text
    if old == new_text or not view.spans:
        return []
    limit = min(len(old), len(new_text))
    p = common_prefix(old, new_text, limit)
    if at is not None:
        p = max(0, min(p, at))
    s = common_suffix(old, new_text, limit - p)
    old_end, new_end = len(old) - s, len(new_text) - s
    first = _span_index(view, p)
    last = _span_index(view, old_end - 1) if old_end > p else first
    out: list[tuple[str, str]] = []
    for k in range(first, last + 1):
        bid, start, end = view.spans[k]
        head = old[start:p] if k == first else ""
        tail = old[old_end:end] if k == last else ""
        middle = new_text[p:new_end] if k == first else ""
        out.append((bid, head + middle + tail))
    return out


def _span_index(view: TargetView, offset: int) -> int:
    """The span holding ``offset``; an insertion at the very end belongs to the last block."""
    starts = [s for _bid, s, _e in view.spans]
    return max(0, min(bisect.bisect_right(starts, offset) - 1, len(view.spans) - 1))


# ---- the sidecar file -------------------------------------------------------------------------


def review_path(source: str | os.PathLike[str]) -> Path:
    """guide.md → guide.md.fastdesk.json, next to the source."""
    path = Path(source)
    return path.with_name(path.name + SIDECAR_SUFFIX)


def source_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def save_review(review: Review) -> Path | None:
    """Write (atomically) this language's review into the source's sidecar, keeping the other
    languages already there. None for an untitled document (no place for a sidecar)."""
    if review.source_path is None:
        return None
    path = review_path(review.source_path)
    data, _warning = _read_sidecar(path)
    languages = dict(data.get("languages", {})) if data else {}
    entry = review.to_dict()
    languages[review.lang] = entry
    payload = {
        "version": SIDECAR_VERSION,
        "app": "fastdesk",
        "source_sha256": source_sha256(entry["source"] or ""),
        "languages": languages,
    }
    atomic_write_text(path, json.dumps(payload, ensure_ascii=False, indent=1) + "\n")
    return path


def load_review(
    source: str | os.PathLike[str], lang: str, doc: Document | None = None
) -> tuple[Review, list[str]]:
    """The review of ``source`` in ``lang`` from its sidecar, realigned onto ``doc`` (the source
    as it is now) when given, and warnings to show. Never raises for a bad file: a broken or
    newer-version sidecar is renamed ``<name>.broken-<timestamp>`` and an empty review returned."""
    path = review_path(source)
    data, warning = _read_sidecar(path)
    warnings = [warning] if warning else []
    review = Review(source, lang)
    entry = data.get("languages", {}).get(lang) if data else None
    if entry is not None:
        try:
            review = Review.from_dict(entry, source)
        except ValueError as exc:
            warnings.append(_broken(path, f"its {lang!r} review is malformed: {exc}"))
            review = Review(source, lang)
    review.lang = lang
    if doc is not None:
        review.realign(doc)
    return review, warnings


def _read_sidecar(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    """The sidecar's data (None when absent or set aside) and a warning when it was broken."""
    try:
        data = load_json(path, MAX_DOCUMENT_STATE_BYTES)
    except FileNotFoundError:
        return None, None
    except BrokenFile as exc:
        return None, _broken(path, exc.detail)
    except FileError as exc:  # unreadable: left where it is
        message = f"{path} could not be read ({exc.reason})"
        log.warning("%s", message)
        return None, message
    if not isinstance(data, dict) or not isinstance(data.get("languages", {}), dict):
        return None, _broken(path, "not a fastdesk review file")
    version = data.get("version")
    if version != SIDECAR_VERSION:
        return None, _broken(path, f"unknown version {version!r} (this fastdesk reads 1)")
    return data, None


def _broken(path: Path, reason: str) -> str:
    kept = set_aside(path)
    where = f"it was kept as {kept.name}" if kept else "it could not be moved aside"
    message = f"{path.name}: review file could not be used ({reason}); starting afresh ({where})"
    log.warning("%s", message)
    return message
