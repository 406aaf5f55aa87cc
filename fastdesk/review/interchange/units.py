"""Blocks as translation units, and a translator's units back into the review.

What comes back is the editor's work: a changed target becomes an edit, a unit the tool marks
final an approval; a unit still marked as needing review changes nothing unless its text did.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from fastdesk.document.blocks import Document
from fastdesk.review.model import Review
from fastdesk.translate.checks import brought_in
from fastdesk.translate.events import Flag

__all__ = ["ImportResult", "Incoming", "Unit", "apply_units", "units_of"]

_WHITESPACE = " \t\r\n"


@dataclass(frozen=True)
class Unit:
    """One translatable block: its text to translate and what the review shows for it."""

    id: str
    line: int
    source: str
    target: str | None  # None: no translation yet
    state: str  # the review's (machine, memory, edited, approved, flagged, stale_edit…) or stale
    flags: tuple[Flag, ...] = ()
    base: str | None = None  # stale_edit: the source the edit was made for


@dataclass(frozen=True)
class Incoming:
    """A unit as a translation tool left it. ``state``: approved | translated | fuzzy | new."""

    id: str
    source: str
    target: str | None
    state: str


@dataclass
class ImportResult:
    edited: int = 0
    approved: int = 0
    unchanged: int = 0
    skipped: list[str] = field(default_factory=list)  # why each unit was not taken in


def _core(text: str) -> tuple[str, str, str]:
    core = text.lstrip(_WHITESPACE + "\ufeff")
    lead = text[: len(text) - len(core)]
    core = core.rstrip(_WHITESPACE)
    return lead, core, text[len(lead) + len(core) :]


Previous = Mapping[str, tuple[str, str]]  # block id → (former source, former translation)


def units_of(doc: Document, review: Review, previous: Previous | None = None) -> list[Unit]:
    """The document's translatable blocks, in order, with what the review shows for each; a
    block with none but a translation of its former source (``previous``) offers that one, in
    state ``stale`` (a fuzzy match)."""
    out = []
    for block in doc.blocks:
        source = block.split()[1]
        if not block.translatable or not source.strip():
            continue
        info = review.info(block.id)
        shown, state = info.shown, info.state
        base = info.base if state == "stale_edit" and info.base is not None else None
        if shown is None and previous and block.id in previous:
            base, shown = previous[block.id]
            state = "stale"
        out.append(
            Unit(
                id=block.id,
                line=block.line,
                source=source,
                target=None if shown is None else _core(shown)[1],
                state=state,
                flags=info.flags if not info.edited else (),
                base=_core(base)[1] if base is not None else None,
            )
        )
    return out


def apply_units(
    doc: Document, review: Review, units: Iterable[Incoming], previous: Previous | None = None
) -> ImportResult:
    """Take a translator's units into ``review`` (aligned to ``doc``). A unit is matched by its
    block id, else by its source text (the block moved); a unit whose source is no longer in
    the document is skipped and said so; a fuzzy match (``previous``) still fuzzy and as
    offered changes nothing. A changed translation that brings in a link target, code, an HTML
    tag or a placeholder its source lacks, or a NUL byte, is skipped and said so."""
    result = ImportResult()
    by_source: dict[str, list[str]] = {}
    for block in doc.blocks:
        if block.translatable:
            by_source.setdefault(_lf(block.split()[1]), []).append(block.id)
    ids = {b.id for b in doc.blocks}
    for unit in units:
        source = _lf(unit.source)
        bid = unit.id if unit.id in ids else next(iter(by_source.get(source, ())), None)
        if bid is None or _lf(doc.by_id(bid).split()[1]) != source:
            result.skipped.append(f"{unit.id}: its source is no longer in the document")
            continue
        if unit.target is None or not unit.target.strip() or unit.state == "new":
            result.unchanged += 1
            continue
        offered = previous.get(bid) if previous else None
        if unit.state == "fuzzy" and offered and _lf(_core(offered[1])[1]) == _lf(unit.target):
            result.unchanged += 1
            continue
        lead, core, trail = doc.by_id(bid).split()
        target = unit.target
        if "\r\n" in lead + core + trail and "\r" not in target:  # XML readers turn CRLF into LF
            target = target.replace("\n", "\r\n")
        text = lead + target + trail
        changed = review.shown_text(bid) != text
        refused = _refused(core, target) if changed else None
        if refused:  # checked as a model's answer is: a file may come from anyone
            result.skipped.append(f"{unit.id}: not taken in: {refused}")
            continue
        if review.state_of(bid) == "stale_edit" and unit.state in ("translated", "approved"):
            review.resolve(bid, "keep")  # the translator settled it for the new source
            changed = True
        if review.shown_text(bid) != text:
            review.edit(bid, text)
        approved = unit.state == "approved" and review.approve(bid)
        result.edited += changed and not approved
        result.approved += approved
        result.unchanged += not changed and not approved
    return result


def _refused(source: str, target: str) -> str | None:
    """Why a translation from a file is not taken in: a NUL byte, or a link target, code, an
    HTML tag or a placeholder its source does not have; None when it passes."""
    if "\x00" in target:
        return "its translation holds a NUL byte"
    added = brought_in(source, target)
    return f"it brings in what its source lacks: {added}" if added else None


def _lf(text: str) -> str:
    return text.replace("\r\n", "\n")
