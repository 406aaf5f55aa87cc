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
from collections.abc import Awaitable, Collection

from fastdesk.document.blocks import Document, join, parse
from fastdesk.document.dialects import (
    Container,
    Piece,
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
from fastdesk.translate.engine import Engine
from fastdesk.translate.events import (
    MEMORY_REFUSED,
    BlockDone,
    BlockFailed,
    Emit,
    EngineError,
    EngineEvent,
    Flag,
    RequestDone,
    Waiting,
)
from fastdesk.translate.job import JobSpec
from fastdesk.translate.parts import Part
from fastdesk.translate.slots import Ranking

__all__ = ["anchored", "check_dialect", "heading_anchors", "translate_document"]


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
    the dialect like the page, without the page's own parts (meta-data, heading anchors).

    The page's blocks and every container's pieces (bodies within bodies too) are laid out
    first and run by the engine at once (Engine.run_parts): a backfill packs them together,
    a container's few lines beside its neighbours, rather than one request each; a
    container's block is written as soon as its pieces are."""
    parts: list[Part] = []
    level = _level(
        engine, doc, spec, dialect, emit, parts,
        block_ids=block_ids, revision=revision, force=force, priorities=priorities,
        labels=labels,
    )  # fmt: skip
    written = asyncio.ensure_future(level)
    try:
        await engine.run_parts(parts, spec, revision=revision, reviews=reviews)
    except BaseException:
        written.cancel()  # the parts left unsettled are cancelled: nothing to write
        raise
    return await written


def _level(
    engine: Engine,
    doc: Document,
    spec: JobSpec,
    dialect: str,
    emit: Emit,
    parts: list[Part],
    *,
    block_ids: Collection[str] | None,
    revision: int,
    force: Collection[str],
    priorities: Ranking | None,
    labels: frozenset[str] | None,
    place: tuple[int, ...] = (),
) -> Awaitable[dict[str, str]]:
    """A document of the page (the page, a container's body at ``place``: Part.place): its
    blocks and its containers' pieces put in ``parts`` now; what it returns, awaited, is its
    results once they are all settled (each container's block emitted as soon as its pieces
    are)."""
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

    waits: list[Awaitable[object]] = []
    if plain:
        part = Part(doc, on_event, plain, force, labels, priorities, place)
        parts.append(part)
        waits.append(part.done)
    for bid, box in boxes.items():
        box_of = _container(
            engine, spec, bid, box, on_event, parts,
            dialect=dialect, labels=labels, revision=revision, force=bid in force,
            priorities=None if priorities is None else priorities.for_block(bid),
            place=(*place, doc.index_of(bid)),
        )  # fmt: skip
        waits.append(_emitted(box_of, on_event))

    async def settled() -> dict[str, str]:
        await asyncio.gather(*waits)
        return results

    return settled()


async def _emitted(box: Awaitable[BlockDone | BlockFailed], emit: Emit) -> None:
    emit(await box)


def _container(
    engine: Engine,
    spec: JobSpec,
    block_id: str,
    box: Container,
    on_request: Emit,
    parts: list[Part],
    *,
    dialect: str,
    labels: frozenset[str],
    revision: int,
    force: bool,
    priorities: Ranking | None,
    place: tuple[int, ...],
) -> Awaitable[BlockDone | BlockFailed]:
    """An admonition or tab (its block at ``place`` in the page): its title and its body
    (dedented) translated as documents of their own, block by block and memory first, put in
    ``parts`` now; the syntax around them kept as it is. Awaited: the container's block once
    its pieces are settled."""
    flags: list[Flag] = []
    origins: set[str] = set()
    failed: list[str] = []

    def on_event(event: EngineEvent) -> None:
        if isinstance(event, BlockDone):
            origins.add(event.origin)
            flags.extend(event.flags)
        elif isinstance(event, BlockFailed):
            failed.append(event.error)
        elif isinstance(event, RequestDone | Waiting) or (
            isinstance(event, EngineError) and event.kind != MEMORY_REFUSED
        ):  # a request's: its stats, a wait, why it failed (a pack may begin with a piece)
            on_request(event)

    pieces: list[tuple[Piece, Document | None, Awaitable[dict[str, str]] | None]] = []
    for n, piece in enumerate(box):
        if piece.kind == "keep":
            pieces.append((piece, None, None))
            continue
        prefix = "" if piece.kind == "value" else piece.prefix  # a value's: its quotes
        doc = parse(dedent(piece.text, prefix))
        forced = [b.id for b in doc.blocks] if force else ()
        if piece.kind == "body":  # Markdown of the dialect: containers in it too
            doc = apply_dialect(doc, dialect)
            done = _level(
                engine, doc, spec, dialect, on_event, parts,
                block_ids=None, revision=revision, force=forced, priorities=priorities,
                labels=labels, place=(*place, n),
            )  # fmt: skip
        else:
            part = Part(doc, on_event, None, forced, labels, priorities, (*place, n))
            parts.append(part)
            done = part.done
        pieces.append((piece, doc, done))

    async def written() -> BlockDone | BlockFailed:
        texts = []
        for piece, doc, done in pieces:
            if doc is None or done is None:
                texts.append(piece.text)
                continue
            results = await done
            if failed or len(results) != len(doc.blocks):
                return BlockFailed(revision, block_id, failed[0] if failed else "no answer")
            texts.append(_piece_text(piece, join(results[b.id] for b in doc.blocks)))
        origin = "model" if "model" in origins else "memory"
        return BlockDone(revision, block_id, "".join(texts), origin, tuple(flags))

    return written()


def _piece_text(piece: Piece, text: str) -> str:
    """A piece's translation as the container writes it (a title, a value: one line)."""
    prefix = "" if piece.kind == "value" else piece.prefix
    if piece.kind == "title" and any(c in text.strip() for c in '"]\r\n'):
        text = piece.text  # a title must stay one quoted line: keep the source's
    if piece.kind == "value":  # a front matter value: one line, in its quotes
        text = text.strip()
        if not safe_value(text, piece.prefix):
            text = piece.text
    return indent(text, prefix)


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
