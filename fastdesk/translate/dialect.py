"""Translating a document of a site generator's dialect: admonitions and tabs as their pieces
(fastdesk.document.dialects.container), the syntax the generator reads inside a block never
sent (the engine shields it: fastdesk.document.syntax), each
translated heading keeping its source's anchor as an explicit id, the dialect's syntax inside
each answer checked like code. One way for the command line (a project's pages, a file of a
project) and the window's live translator alike, so both write the same target for a page.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
from collections import Counter
from collections.abc import Awaitable, Callable, Collection

from fastdesk.document.blocks import Document, join, parse
from fastdesk.document.dialects import (
    Container,
    apply_dialect,
    container,
    dedent,
    indent,
    safe_value,
)
from fastdesk.document.syntax import (
    SHIELDED_DIALECTS,
    anchors,
    defined_labels,
    definition_terms,
    keep_anchor,
)
from fastdesk.translate.engine import Engine, JobSpec
from fastdesk.translate.events import BlockDone, BlockFailed, EngineEvent, Flag, RequestDone
from fastdesk.translate.slots import Ranking

__all__ = ["anchored", "check_dialect", "heading_anchors", "translate_document"]

Emit = Callable[[EngineEvent], None]


async def translate_document(
    engine: Engine,
    doc: Document,
    spec: JobSpec,
    dialect: str,
    emit: Emit,
    *,
    block_ids: Collection[str] | None = None,
    revision: int = 0,
    force: Collection[str] = (),
    priorities: Ranking | None = None,
    reviews: set[asyncio.Task[None]] | None = None,
    labels: frozenset[str] | None = None,
) -> dict[str, str]:
    """:meth:`Engine.run` for a document of a site generator's ``dialect`` (a project's page,
    a file of a project translated on its own, the window's document): admonitions and tabs as
    their pieces, the dialect's syntax in each answer checked. Returns block id → text, like
    Engine.run; the keyword arguments are Engine.run's (a container's pieces take its place in
    the ``priorities``). ``labels``: given, ``doc`` is a container's body (an admonition in a
    tab, in a definition) inside a page that defines those reference labels: read as Markdown of
    the dialect like the page, without the page's own parts (meta-data, heading anchors)."""
    page = labels is None
    index = {b.id: b for b in doc.blocks}
    wanted = [b.id for b in doc.blocks] if block_ids is None else list(block_ids)
    boxes = {
        bid: box
        for bid in wanted
        if (box := container(doc, index[bid], dialect, page=page)) is not None
    }
    plain = [bid for bid in wanted if bid not in boxes]
    results: dict[str, str] = {}
    if labels is None:
        shielding = dialect in SHIELDED_DIALECTS
        labels = defined_labels(b.text for b in doc.blocks) if shielding else frozenset()
    heads = (
        heading_anchors(doc, dialect, term_ids=spec.term_ids, id_type=spec.id_type)
        if spec.heading_ids and page
        else {}
    )

    def on_event(event: EngineEvent) -> None:
        if isinstance(event, BlockDone):
            anchor = heads.get(event.block_id)
            if anchor and event.origin != "copy":
                lead = index[event.block_id].split()[0]
                if event.text.startswith(lead):  # the heading's line, its id added
                    line = index[event.block_id].split()[1].partition("\n")[0]
                    answer = event.text[len(lead) :]
                    text = lead + keep_anchor(answer, anchor, dialect, line, spec.id_type)
                    event = dataclasses.replace(event, text=text)
        if isinstance(event, BlockDone) and event.origin != "copy":
            extra = check_dialect(index[event.block_id].text, event.text, dialect)
            if extra:
                event = dataclasses.replace(event, flags=(*event.flags, *extra))
        if isinstance(event, BlockDone):
            results[event.block_id] = event.text
        emit(event)

    async def box_of(block_id: str, box: Container) -> None:
        on_event(
            await _container(
                engine,
                spec,
                block_id,
                box,
                on_event,
                dialect=dialect,
                labels=labels,
                revision=revision,
                force=block_id in force,
                priorities=None if priorities is None else priorities.for_block(block_id),
                reviews=reviews,
            )
        )

    runs: list[Awaitable[object]] = []
    if plain:
        run = engine.run(
            doc,
            spec,
            revision=revision,
            emit=on_event,
            block_ids=plain,
            force=force,
            priorities=priorities,
            reviews=reviews,
            labels=labels,
        )
        runs.append(run)
    runs += [box_of(bid, box) for bid, box in boxes.items()]
    await asyncio.gather(*runs)
    return results


async def _container(
    engine: Engine,
    spec: JobSpec,
    block_id: str,
    box: Container,
    on_request: Emit,
    *,
    dialect: str,
    labels: frozenset[str],
    revision: int,
    force: bool,
    priorities: Ranking | None,
    reviews: set[asyncio.Task[None]] | None,
) -> BlockDone | BlockFailed:
    """An admonition or tab: its title and its body (dedented) translated as documents of
    their own, block by block and memory first; the syntax around them kept as it is."""
    flags: list[Flag] = []
    origins: set[str] = set()
    failed: list[str] = []

    def on_event(event: EngineEvent) -> None:
        if isinstance(event, BlockDone):
            origins.add(event.origin)
            flags.extend(event.flags)
        elif isinstance(event, BlockFailed):
            failed.append(event.error)
        elif isinstance(event, RequestDone):
            on_request(event)

    parts = []
    for piece in box:
        if piece.kind == "keep":
            parts.append(piece.text)
            continue
        prefix = "" if piece.kind == "value" else piece.prefix  # a value's: its quotes
        doc = parse(dedent(piece.text, prefix))
        forced = [b.id for b in doc.blocks] if force else ()
        if piece.kind == "body":  # Markdown of the dialect: containers in it too
            results = await translate_document(
                engine,
                apply_dialect(doc, dialect),
                spec,
                dialect,
                on_event,
                revision=revision,
                force=forced,
                priorities=priorities,
                reviews=reviews,
                labels=labels,
            )
        else:
            results = await engine.run(
                doc,
                spec,
                revision=revision,
                emit=on_event,
                force=forced,
                priorities=priorities,
                reviews=reviews,
                labels=labels,
            )
        if failed or len(results) != len(doc.blocks):
            return BlockFailed(revision, block_id, failed[0] if failed else "no answer")
        text = join(results[b.id] for b in doc.blocks)
        if piece.kind == "title" and any(c in text.strip() for c in '"]\r\n'):
            text = piece.text  # a title must stay one quoted line: keep the source's
        if piece.kind == "value":  # a front matter value: one line, in its quotes
            text = text.strip()
            if not safe_value(text, piece.prefix):
                text = piece.text
        parts.append(indent(text, prefix))
    origin = "model" if "model" in origins else "memory"
    return BlockDone(revision, block_id, "".join(parts), origin, tuple(flags))


# ---- headings keep their anchors ------------------------------------------------------------


def heading_anchors(
    doc: Document, dialect: str, *, term_ids: bool = False, id_type: str = "github"
) -> dict[str, str]:
    """Each top-level heading's anchor in the source (block id → id), as the generator makes
    it: a translated heading keeps it (fastdesk.document.syntax.keep_anchor). ``term_ids``:
    the generator numbers definition terms' ids with the headings' (Hugo's
    ``autoDefinitionTermID``); ``id_type``: Hugo's ``autoHeadingIDType``."""
    lines, terms = anchored(doc, term_ids=term_ids)
    found = anchors(lines, dialect, terms=terms, id_type=id_type)
    return {k: v for k, v in found.items() if k not in terms}


def anchored(doc: Document, *, term_ids: bool) -> tuple[list[tuple[str, str]], set[str]]:
    """What gets an anchor, in document order: each top-level heading (block id, its line)
    and, with ``term_ids``, each definition term (``"<block id> term <n>"``, its text); and
    which of them are terms."""
    lines: list[tuple[str, str]] = []
    terms: set[str] = set()
    for b in doc.blocks:
        if b.kind == "heading":
            lines.append((b.id, b.split()[1].partition("\n")[0]))
        elif term_ids and b.kind == "paragraph":
            for n, term in enumerate(definition_terms(b.split()[1])):
                terms.add(key := f"{b.id} term {n}")
                lines.append((key, term))
    return lines, terms


# ---- checked like code ------------------------------------------------------------------------

# Hugo shortcodes and JSX tags inside a block are already checked by translate.checks
# (placeholders, html); MkDocs' attribute lists and snippets are not.
_TOKENS = {
    # attribute lists, snippets, the abbreviation an abbreviation definition defines
    "mkdocs": re.compile(r"\{:?\s*[#.][^{}\n]*\}|-{2,}8<-{2,}[^\n]*|^\*\[[^\]\n]+\]:", re.M),
}


def check_dialect(source: str, answer: str, dialect: str) -> tuple[Flag, ...]:
    """The dialect's syntax inside a block (an attribute list after a sentence) must come back
    byte for byte, like code: a flag for each that did not."""
    pattern = _TOKENS.get(dialect)
    if pattern is None:
        return ()
    missing = Counter(pattern.findall(source)) - Counter(pattern.findall(answer))
    return tuple(Flag("dialect", f"{token} changed or missing") for token in missing)
