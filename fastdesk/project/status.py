"""What is stale in a docs project, per source file and language: `fastdesk status` and the
window's project panel both read it from here, so they cannot disagree.

Reads only the sidecars, the written record and the targets on disk: no request, nothing
written (a broken sidecar or record is set aside, as when the window opens it).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

from fastdesk.config.fileio import FileError, os_reason
from fastdesk.project.layout import Project
from fastdesk.project.record import WrittenRecord
from fastdesk.project.sync import Pair, open_pair
from fastdesk.translate.consistency import Unit
from fastdesk.translate.memory import Memory
from fastdesk.translate.mqm import QualityReview, document_score
from fastdesk.translate.quality import cached_review

__all__ = [
    "ProjectStatus",
    "describe",
    "headline",
    "load_pairs",
    "page_score",
    "read_status",
    "totals",
    "translated_units",
]

STATES = ("up_to_date", "stale", "missing", "conflict")


def load_pairs(
    project: Project,
    record: WrittenRecord,
    sources: Iterable[PurePosixPath] | None = None,
    *,
    pairs: Iterable[tuple[PurePosixPath, str]] | None = None,
    skipped: list[tuple[PurePosixPath, str, str]] | None = None,
) -> list[Pair]:
    """Every (source, language) pair (of ``sources`` only, or only ``pairs``, when given),
    read and brought up to date with the disk. Raises fastdesk.config.fileio.DocumentError
    for a source that cannot be read, unless ``skipped`` is given: then each pair that cannot
    be read (an unreadable or undecodable file, a name too long) goes there as (source,
    language, why) and the others are read: one bad file never stops a project."""
    if pairs is None:
        pairs = [
            (source, lang)
            for source in (project.sources() if sources is None else sources)
            for lang in project.languages
        ]
    if skipped is None:
        return [open_pair(project, source, lang, record) for source, lang in pairs]
    out = []
    for source, lang in pairs:
        try:
            out.append(open_pair(project, source, lang, record))
        except FileError as exc:
            skipped.append((source, lang, exc.reason))
        except (OSError, ValueError) as exc:  # UnicodeError is a ValueError
            skipped.append((source, lang, os_reason(exc) if isinstance(exc, OSError) else str(exc)))
    return out


@dataclass(frozen=True)
class ProjectStatus:
    """Each pair's status (``Pair.status``: source, lang, target, state, counts) and totals."""

    project: Project
    files: tuple[dict[str, object], ...]

    @property
    def totals(self) -> dict[str, int]:
        return totals(self.files)


def read_status(
    project: Project,
    sources: Iterable[PurePosixPath] | None = None,
    *,
    pairs: Iterable[tuple[PurePosixPath, str]] | None = None,
    skipped: list[tuple[PurePosixPath, str, str]] | None = None,
    memory: Memory | None = None,
) -> ProjectStatus:
    """The status of every pair of ``project`` (of ``sources`` only, or only ``pairs``) as the
    disk has it; ``skipped``, when given, takes the pairs that cannot be read (load_pairs);
    with ``memory``, each page's review score too ("score": None when no block of it was
    reviewed)."""
    record = WrittenRecord(project.root)
    loaded = load_pairs(project, record, sources, pairs=pairs, skipped=skipped)
    files = [p.status() for p in loaded]
    if memory is not None:
        for entry, pair in zip(files, loaded, strict=True):
            entry["score"] = page_score(pair, memory)
    return ProjectStatus(project, tuple(files))


def page_score(pair: Pair, memory: Memory) -> float | None:
    """The review score (fastdesk.translate.quality) of the page's translation as shown, from
    the reviews the memory holds for its blocks (read only); None: no block reviewed."""
    reviews: list[QualityReview] = []
    for block in pair.doc.blocks:
        lead, core, trail = block.split()
        shown = pair.review.shown_text(block.id) if block.translatable else None
        if shown is None or not core.strip():
            continue
        answer = shown
        if shown.startswith(lead) and shown.endswith(trail) and len(shown) >= len(lead + trail):
            answer = shown[len(lead) : len(shown) - len(trail)]
        found = cached_review(memory, core, answer, pair.lang, touch=False)
        if found is not None:
            reviews.append(found)
    return document_score(reviews)


def _count(files: Iterable[dict[str, object]], name: str) -> int:
    """The sum of a per-file count (each file's status holds it as an int)."""
    return sum(value for f in files if isinstance(value := f[name], int))


def totals(files: Iterable[dict[str, object]]) -> dict[str, int]:
    files = list(files)
    states = [str(f["state"]) for f in files]
    return {
        "pairs": len(files),
        **{s: states.count(s) for s in STATES},
        "stale_blocks": _count(files, "stale"),
        "flagged_blocks": _count(files, "flagged"),
    }


def headline(entry: dict[str, object]) -> str:
    """up to date / 3 stale blocks / missing / conflict: why"""
    state = entry["state"]
    if state == "missing":
        return "missing"
    if state == "conflict":
        return f"conflict: {entry.get('conflict')}"
    if state == "stale":
        n = entry["stale"]
        return f"{n} stale block{'s' if n != 1 else ''}"
    return "up to date"


def describe(entry: dict[str, object]) -> str:
    """up to date / 3 stale blocks / missing · 1 flagged · 40% approved"""
    parts = [headline(entry)]
    if entry["flagged"]:
        parts.append(f"{entry['flagged']} flagged")
    if entry["hand_edits"]:
        parts.append(f"{entry['hand_edits']} edited on disk")
    parts.append(f"{entry['approved_percent']}% approved")
    score = entry.get("score")
    if isinstance(score, int | float):
        parts.append(f"score {score:g}")
    return " · ".join(parts)


def translated_units(project: Project, skip: tuple[str, str] = ("", "")) -> list[Unit]:
    """Every translated block of the project's pages, in each language, as the disk and the
    review records have them (the consistency check and the glossary drift view read them;
    ``skip``: a page and language the caller has already, by resolved path). A page that
    cannot be read is left out."""
    skipped: list[tuple[PurePosixPath, str, str]] = []
    units = []
    for pair in load_pairs(project, WrittenRecord(project.root), skipped=skipped):
        where = (project.root / pair.source).resolve().as_posix()
        if (where, pair.lang) == skip:
            continue
        for i, block in enumerate(pair.doc.blocks):
            shown = pair.review.shown_text(block.id) if block.translatable else None
            if shown is not None:
                units.append(
                    Unit(pair.source.as_posix(), i, block.line, block.text, shown, pair.lang)
                )
    return units
