"""The review's records (pure Python): the block states and how they look, what the engine
answered and what a reviewer kept for a block, and their shapes as JSON. fastdesk.review.model's
Review holds them; split from it to keep each module to one concern."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NotRequired, TypedDict

from fastdesk.translate.events import Flag
from fastdesk.translate.flag_words import plain_flag

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
class Answer:
    """The engine's latest word on a block (text None: it failed and had nothing before)."""

    text: str | None
    origin: str  # model | memory | copy | failed
    flags: tuple[Flag, ...] = ()


@dataclass(frozen=True)
class Kept:
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

    kept: tuple[tuple[str, Kept | None], ...]

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


def kept_state(kept: Kept) -> str:
    return "stale_edit" if kept.stale else "approved" if kept.approved else "edited"


def answer_state(answer: Answer) -> str:
    if answer.flags:
        return "flagged"
    return {"memory": "memory", "copy": "copy"}.get(answer.origin, "machine")


def kept_dict(kept: Kept, source: str | None) -> KeptRecord:
    out: KeptRecord = {"text": kept.text, "edited": kept.edited, "approved": kept.approved}
    if kept.stale:
        out["stale"] = True
    if kept.base != source:
        out["base"] = kept.base
    return out


def kept_from(entry: Mapping[str, Any], source: str | None) -> Kept:
    base = entry.get("base", source)
    return Kept(
        text=json_str(entry["text"], "text"),
        base=json_str(base, "base"),
        edited=bool(entry.get("edited", False)),
        approved=bool(entry.get("approved", False)),
        stale=bool(entry.get("stale", False)),
    )


def json_str(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{what} should be text, not {type(value).__name__}")
    return value
