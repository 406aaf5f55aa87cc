"""Translating a project: the stale or missing blocks of every (file, language), all at once.

Every pair runs concurrently on one engine, so its one limit on requests in flight and its
pacer (the providers' rate-limit headers) hold across files and languages.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from fastdesk.config.fileio import os_reason
from fastdesk.document.blocks import Block
from fastdesk.project.categories import translate_categories
from fastdesk.project.layout import Project
from fastdesk.project.nav import nav_lacking, translate_nav
from fastdesk.project.record import WrittenRecord
from fastdesk.project.sync import OUTSIDE, Pair, link_anchors
from fastdesk.project.theme_strings import theme_strings_pending, translate_theme_strings
from fastdesk.translate.dialect import translate_document
from fastdesk.translate.engine import Engine
from fastdesk.translate.events import (
    MEMORY_REFUSED,
    BlockDone,
    BlockFailed,
    EngineError,
    EngineEvent,
    RequestDone,
)
from fastdesk.translate.job import JobSpec
from fastdesk.translate.repeats import repeated

__all__ = [
    "PairOutcome",
    "finish",
    "labels_pending",
    "relink",
    "translate_labels",
    "translate_pairs",
]

log = logging.getLogger("fastdesk")


@dataclass
class PairOutcome:
    """What one pair's run did (the report and the exit status read it)."""

    pair: Pair
    requested: int = 0  # blocks that needed a translation
    translated: int = 0
    from_memory: int = 0
    # the translation memory's answers not used (each line names its block and why)
    memory_refused: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    flags: list[dict[str, object]] = field(default_factory=list)


async def translate_pairs(
    engine: Engine,
    pairs: Sequence[Pair],
    specs: Mapping[str, JobSpec],
    *,
    on_request: Callable[[RequestDone], None] = lambda _e: None,
    on_pair: Callable[[PairOutcome], None] = lambda _o: None,
    on_active: Callable[[Pair], None] = lambda _p: None,
) -> list[PairOutcome]:
    """Send what each pair needs; its review takes every answer in (the record of the run).
    ``specs`` name the project's source language, so the memory keeps it with each answer.
    ``on_pair``: each pair's outcome as soon as it is done (the window's progress);
    ``on_active``: the pair an answer just came for (the page being translated now)."""

    async def one(pair: Pair) -> PairOutcome:
        outcome = await each(pair)
        on_pair(outcome)
        return outcome

    async def each(pair: Pair) -> PairOutcome:
        outcome = PairOutcome(pair)
        need = pair.needed()
        outcome.requested = len(need)
        if not need:
            return outcome
        index = {b.id: b for b in pair.doc.blocks}
        answered: dict[str, BlockDone] = {}  # the model's answers, for the repeat check

        def on_event(event: EngineEvent) -> None:
            pair.review.apply_event(event)
            if isinstance(event, BlockDone):
                on_active(pair)
                if event.origin == "model":
                    answered[event.block_id] = event
                    outcome.translated += 1
                elif event.origin == "memory":
                    outcome.from_memory += 1
                block = index[event.block_id]
                outcome.flags += [
                    {"line": block.line, "check": f.check, "detail": f.detail} for f in event.flags
                ]
            elif isinstance(event, BlockFailed):
                outcome.errors.append(event.error)
            elif isinstance(event, RequestDone):
                on_request(event)
            elif isinstance(event, EngineError) and event.kind == MEMORY_REFUSED:
                outcome.memory_refused.append(event.message)
                log.warning("%s: %s", pair.source, event.message)

        await translate_document(
            engine, pair.doc, specs[pair.lang], pair.project.dialect, on_event, block_ids=need
        )
        pair.review.clear_in_flight()
        _flag_repeats(pair, outcome, answered, index)
        return outcome

    return list(await asyncio.gather(*(one(p) for p in pairs)))


async def translate_labels(
    engine: Engine,
    project: Project,
    specs: Mapping[str, JobSpec],
    *,
    on_request: Callable[[RequestDone], None] = lambda _e: None,
) -> list[str]:
    """What a reader sees outside the pages, after them: Docusaurus' sidebar category labels
    into each language's current.json (fastdesk.project.categories) and its theme's strings
    into i18n/<lang>'s code.json, navbar.json and footer.json
    (fastdesk.project.theme_strings), MkDocs' ``nav`` titles into each language's
    nav_translations (fastdesk.project.nav). The lines to say (the theme strings', one for
    mkdocs.yml changed: a docs team reviews it)."""
    await translate_categories(engine, project, specs, on_request=on_request)
    lines = await translate_theme_strings(engine, project, specs, on_request=on_request)
    return lines + await translate_nav(engine, project, specs, on_request=on_request)


def labels_pending(project: Project) -> bool:
    """Whether labels outside the pages wait for a translation though no page is stale
    (Docusaurus' theme strings, MkDocs' nav titles: a project translated before they were)."""
    return theme_strings_pending(project, project.languages) or nav_lacking(project)


def _flag_repeats(
    pair: Pair, outcome: PairOutcome, answered: dict[str, BlockDone], index: dict[str, Block]
) -> None:
    """Many different blocks answered with one text (a prompt injection obeyed): each is
    flagged, in the review and the report."""
    found = repeated((bid, index[bid].text, e.text) for bid, e in answered.items())
    for bid, flag in found.items():
        event = answered[bid]
        pair.review.apply_event(dataclasses.replace(event, flags=(*event.flags, flag)))
        outcome.flags.append({"line": index[bid].line, "check": flag.check, "detail": flag.detail})


def finish(
    outcome: PairOutcome, record: WrittenRecord, allow_partial: bool = False
) -> tuple[str, str]:
    """Write a translated pair's target, or keep its review for the next run: ("ok" | "partial"
    | "failed" | "skipped", a one-line reason or ""). A target with blocks lacking a translation
    is not written unless ``allow_partial`` (then with the source in their place); one whose
    answers were not translations (the source echoed) is ``partial``, written only with
    ``allow_partial``, as a single file's is; a target outside the project is skipped."""
    pair = outcome.pair
    where = f"{pair.source} → {pair.target}"
    if pair.conflict == OUTSIDE:  # nothing is written outside the project, not even a review
        return "skipped", f"{where}: {OUTSIDE}"
    if pair.conflict:
        pair.save_review()
        return "failed", f"{where}: not written: {pair.conflict}"
    missing = pair.missing()
    lines = ", ".join(map(str, missing[:10]))
    echoed = [pair.doc.by_id(bid).line for bid in pair.not_translated()]
    if echoed and not missing:
        said = ", ".join(map(str, echoed[:10]))
        reason = next(
            (f.detail for bid in pair.not_translated() for f in pair.review.flags_of(bid)
             if f.check == "not_translated"),
            "not a translation",
        )  # fmt: skip
        what = f"{len(echoed)} blocks not translated (lines {said}: {reason})"
        if not allow_partial:
            pair.save_review()
            return "partial", f"{where}: not written: {what} (--allow-partial writes it)"
        pair.write(record)
        return "partial", f"{where}: {what}; written with the source there"
    if missing and not allow_partial:
        reason = outcome.errors[0] if outcome.errors else "no translation"
        pair.save_review()  # what did arrive is kept for the next run
        return "failed", (
            f"{where}: not written: {len(missing)} blocks have no translation (lines {lines}): "
            f"{reason}"
        )
    pair.write(record)
    if missing:
        return "partial", (
            f"{where}: written with the source in place of {len(missing)} blocks (lines {lines})"
        )
    return "ok", ""


def relink(pairs: Sequence[Pair], record: WrittenRecord) -> list[str]:
    """Once every page of a run is translated (the window writes each page as soon as it is
    done, before the pages it links to are), each complete translation written again where its
    links change: they follow the anchors that every page's translation moves (MkDocs' headings
    and tabs, Hugo's terms: fastdesk.project.sync.link_anchors, from the reviews). A target
    whose view did not change is not touched (a command-line run's, written after every page
    was translated). One line for each that could not be written."""
    link_anchors(pairs)
    said: list[str] = []
    for pair in pairs:
        if not pair.anchors:
            continue  # no anchor moves in this project: its links are as written
        if pair.conflict or not pair.target_exists or pair.missing() or pair.not_translated():
            continue  # held, partial, or not ours to write
        try:
            pair.write(record)
        except OSError as exc:
            said.append(f"{pair.source} → {pair.target}: not written: {os_reason(exc)}")
    return said
