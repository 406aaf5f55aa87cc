"""Which blocks of a document go to a model, and in which requests.

A block is copied as it is (code, a blank line), answered by the memory, or work to send;
identical texts are one piece of work. Work is grouped in document order into requests up to
a token and block budget: a *pack* is one request's work, its texts numbered by markers. Pure
functions of the document, the job and the memory: the engine plans each run with them, and the
command line's estimate counts what they leave to send.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from fastdesk.document.blocks import Block, Document
from fastdesk.document.syntax import SHIELDED_DIALECTS, Shielded, defined_labels, shield
from fastdesk.providers.base import estimate_tokens
from fastdesk.providers.sdk import MAX_COMPLETION_TOKENS, completion_budget
from fastdesk.routing.limiter import RESERVE
from fastdesk.translate.checks import stored_answer_problem
from fastdesk.translate.events import Flag
from fastdesk.translate.glossary import Glossary
from fastdesk.translate.memory import IMPORTED, Memory, MemoryKey
from fastdesk.translate.prompts import PROMPT_VERSION, Context

CONTEXT_CHARS = 240  # how much of the preceding block goes along with an edited block
# A backfill (nobody waits for a block: a command-line run, Translate Project) packs up to this
# many tokens and blocks a request, against 1,200 and 16 for what a reader waits for: fewer
# requests, and the instructions every request repeats are paid less often.
BACKFILL_PACK_TOKENS = 4000
BACKFILL_PACK_BLOCKS = 64
BACKLOG_SHARE = (1 - RESERVE) / 2  # of the account's minute, the most a backfill's pack books


class PlanSpec(Protocol):
    """What a plan reads of the job (fastdesk.translate.job.JobSpec): its memory key."""

    @property
    def mode(self) -> str: ...
    @property
    def target_lang(self) -> str: ...
    @property
    def model(self) -> str | None: ...
    @property
    def use_memory(self) -> bool: ...
    @property
    def style_version(self) -> str: ...
    @property
    def dialect(self) -> str: ...
    def glossary_for(self, text: str) -> Glossary | None: ...


@dataclass
class Work:
    """One unique block text to translate (identical blocks share one piece of work)."""

    core: str
    key: MemoryKey
    blocks: list[Block]
    context: Context = field(default_factory=Context)
    # what is sent, when it differs from core: the generator's syntax shielded by tokens
    # (fastdesk.document.syntax); the memory keeps core and the answer as written
    sent: Shielded | None = None

    @property
    def text(self) -> str:
        """The block's text as the model sees it."""
        return self.sent.text if self.sent is not None else self.core

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.core) + 7  # and its marker line in a pack


Pack = list[Work]  # the work one request sends, its texts numbered by markers (prompts.pack_text)


@dataclass(frozen=True)
class Plan:
    """A run's blocks sorted: copied as they are, answered by the memory, work to send."""

    copied: dict[str, str]
    work: list[Work]
    hits: list[tuple[Block, str, tuple[Flag, ...]]]
    # stored answers not used (an imported link or command, a file changed on disk): the
    # block is work to send, and the run says which entry and why
    refused: list[tuple[Block, str]] = field(default_factory=list)


def section_text(doc: Document, block_id: str) -> str:
    """A heading's whole section (up to the next heading of its level or higher), else the block."""
    blocks = list(doc.blocks)
    i = next(n for n, b in enumerate(blocks) if b.id == block_id)
    head = blocks[i]
    if head.kind != "heading" or not head.heading_level:
        return head.split()[1]
    end = i + 1
    while end < len(blocks) and not (
        blocks[end].kind == "heading" and 0 < blocks[end].heading_level <= head.heading_level
    ):
        end += 1
    return "".join(b.text for b in blocks[i:end]).strip()


def document_title(doc: Document) -> str:
    """The first heading's text, for context; an empty one (``## `` as an editor types it) is
    skipped, not an IndexError."""
    for block in doc.blocks:
        if block.kind == "heading":
            lines = block.split()[1].lstrip("#").strip().splitlines()
            if lines and lines[0].strip():
                return lines[0].strip()[:120]
    return ""


def plan(
    doc: Document,
    spec: PlanSpec,
    memory: Memory | None,
    block_ids: Collection[str] | None = None,
    force: Collection[str] = (),
    labels: frozenset[str] | None = None,
) -> Plan:
    """Split blocks into: copied as they are, answered by memory, and work to send.
    ``labels``: the reference labels the whole document defines (default: ``doc``'s own;
    a container's body is a document of its own, its page's labels apply)."""
    copied: dict[str, str] = {}
    hits: list[tuple[Block, str, tuple[Flag, ...]]] = []
    refused: list[tuple[Block, str]] = []
    work: dict[str, Work] = {}
    title = document_title(doc)
    wanted = None if block_ids is None else set(block_ids)
    previous = ""
    style_version = spec.style_version
    for block in doc.blocks:
        lead, core, trail = block.split()
        if wanted is not None and block.id not in wanted:
            previous = core if block.translatable else previous
            continue
        if not block.translatable or not core.strip():
            copied[block.id] = block.text
            continue
        used = spec.glossary_for(core)
        key = MemoryKey(
            core,
            spec.mode,
            spec.target_lang,
            PROMPT_VERSION,
            used.version if used else "",
            style_version,
        )
        hit = None
        if memory is not None and spec.use_memory and block.id not in force:
            hit = memory.get(key, spec.model)
        if hit is not None:  # a stored answer is checked as a model's is, each time it is used
            recorded = {f.check for f in hit.flags}
            problem = stored_answer_problem(
                core, hit.answer, recorded, imported=hit.provider == IMPORTED
            )
            if problem is not None:
                refused.append((block, f"{hit.provider} entry: {problem}"))
                hit = None
        if hit is not None:
            hits.append((block, lead + hit.answer + trail, hit.flags))
        elif key.digest() in work:
            work[key.digest()].blocks.append(block)
        else:
            ctx = Context(title=title, previous=previous[-CONTEXT_CHARS:])
            if labels is None:  # read once, and only where the dialect shields syntax
                shielding = spec.dialect in SHIELDED_DIALECTS
                labels = defined_labels(b.text for b in doc.blocks) if shielding else frozenset()
            found = shield(core, spec.dialect, labels)
            work[key.digest()] = Work(core, key, [block], ctx, found if found.spans else None)
        previous = core
    return Plan(copied, list(work.values()), hits, refused)


def pack_blocks(work: Sequence[Work], pack_tokens: int, max_blocks: int) -> list[Pack]:
    """Consecutive blocks grouped up to the token and block budget of one request."""
    out: list[Pack] = []
    current: Pack = []
    size = 0
    for w in work:
        if current and (size + w.tokens > pack_tokens or len(current) >= max_blocks):
            out.append(current)
            current, size = [], 0
        current.append(w)
        size += w.tokens
    if current:
        out.append(current)
    return out


def backfill_pack_tokens(
    live: int, tokens_per_minute: int | None, model: str = "", *, share: float = BACKLOG_SHARE
) -> int:
    """A backfill's pack budget: up to ``BACKFILL_PACK_TOKENS``, but never less than the live
    one (``live``), with room for its answer asked again at twice the budget within the model's
    output limit, and booking (its prompt with about 600 tokens of instructions, plus its
    completion budget) at most ``share`` of the account's minute: by default half of what a
    backlog may use of it, so that a minute serves two of them."""
    size = BACKFILL_PACK_TOKENS
    while size > live and 2 * completion_budget(size, model) > MAX_COMPLETION_TOKENS:
        size -= 100
    if tokens_per_minute is not None:
        room = tokens_per_minute * share
        while size > live and 600 + size + completion_budget(size, model) > room:
            size -= 100
    return max(live, size)
