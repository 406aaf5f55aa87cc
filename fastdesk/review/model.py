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

The records and their JSON shapes are fastdesk.review.records'; aligning with a new revision and
attributing a target edit to blocks, fastdesk.review.align's. Their names stay importable from
here.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import os
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from fastdesk.config.fileio import (
    MAX_DOCUMENT_STATE_BYTES,
    BrokenFile,
    FileError,
    atomic_write_text,
    has_lone_surrogate,
    load_json,
    set_aside,
)
from fastdesk.document.blocks import Block, Document, parse
from fastdesk.review.align import carry, diff_target_edit
from fastdesk.review.records import (
    STATE_STYLES,
    STATES,
    Answer,
    BlockEntry,
    BlockInfo,
    BlockRecord,
    DetachedEdit,
    DetachedRecord,
    Kept,
    KeptRecord,
    ReviewData,
    ReviewSummary,
    Snapshot,
    StateStyle,
    answer_state,
    flag_text,
    json_str,
    kept_dict,
    kept_from,
    kept_state,
)
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
        self._answers: dict[str, Answer] = {}
        self._kept: dict[str, Kept] = {}
        self._in_flight: set[str] = set()
        self._detached: dict[str, Kept] = {}
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
            self._answers[event.block_id] = Answer(event.text, event.origin, tuple(event.flags))
        elif isinstance(event, BlockFailed):
            self._in_flight.discard(event.block_id)
            before = self._answers.get(event.block_id)
            self._answers[event.block_id] = Answer(
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
            self._kept[block_id] = Kept(text, source, edited=True)
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
            self._kept[block_id] = Kept(answer.text, self._source(block_id), approved=True)
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

    def resolve(self, block_id: str, choice: str, text: str | None = None) -> bool:
        """Answer "source changed since your edit": ``"retranslate"`` drops the reviewer's text
        (the machine answer for the new source shows), ``"keep"`` keeps it (or ``text``: the
        correction merged with the new source's wording) as an edit of the new source (approve
        it again when satisfied). Returns True when the caller should ask for a translation
        (nothing known or in flight for the new source)."""
        kept = self._kept.get(block_id)
        if choice not in ("retranslate", "keep"):
            raise ValueError(f"unknown choice {choice!r} (retranslate | keep)")
        if kept is None or not kept.stale:
            return False
        if choice == "keep":
            source = self._source(block_id)
            kept_text = kept.text if text is None else text
            self._kept[block_id] = Kept(kept_text, source, edited=True)
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
            return kept_state(kept)
        if block_id in self._in_flight:
            return "in_flight"
        answer = self._answers.get(block_id)
        return "pending" if answer is None else answer_state(answer)

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
        asks it for every pending block of every delivery of the worker's)."""
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
        kept, lost, newly_stale = carry(old, doc, self._kept)
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
            "detached": [{"id": bid, **kept_dict(k, None)} for bid, k in self._detached.items()],
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
            entry = {**entry, **kept_dict(kept, source)}
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


def _from_dict(
    cls: type[Review], data: Mapping[str, Any], source_path: str | os.PathLike[str] | None
) -> Review:
    # ``data`` is JSON read from a file, of any shape (hence Any, not ReviewData): a value of
    # the wrong type raises KeyError, TypeError or AttributeError, made a ValueError by from_dict.
    source = data.get("source")
    doc = parse(json_str(source, "source")) if source is not None else None
    review = cls(source_path, json_str(data["lang"], "lang"), doc)
    blocks = doc.blocks if doc else ()
    ids = {b.id for b in blocks}
    same_count = data.get("count") == len(blocks)
    for entry in data.get("blocks", ()):
        bid = json_str(entry["id"], "id")
        if doc is None:
            raise ValueError("block records without a source")
        if bid not in ids:  # parsed differently (another fastdesk version): by position
            index = entry.get("i")
            if not (same_count and isinstance(index, int) and 0 <= index < len(blocks)):
                if "text" in entry:
                    review._detached[bid] = kept_from(entry, None)
                continue
            bid = blocks[index].id
        block_text = doc.by_id(bid).text
        if "origin" in entry:
            machine = entry.get("machine")
            review._answers[bid] = Answer(
                None if machine is None else json_str(machine, "machine"),
                json_str(entry["origin"], "origin"),
                tuple(
                    Flag(json_str(c, "flag"), json_str(d, "flag"))
                    for c, d in entry.get("flags", ())
                ),
            )
        if "text" in entry:
            review._kept[bid] = kept_from(entry, block_text)
    for entry in data.get("detached", ()):
        review._detached[json_str(entry["id"], "id")] = kept_from(entry, None)
    return review


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
    if has_lone_surrogate(data):  # valid JSON, but could never be written back as UTF-8
        return None, _broken(path, "it holds text that is not Unicode (a lone surrogate)")
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
