"""Events the engine emits while it works; the window and the command line both consume them.

Every event carries the document revision it was computed for, so a consumer can drop anything
older than what it shows. Block events name the block by its stable id (see blocks.Block.id).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from fastdesk.clock import duration
from fastdesk.providers.base import RequestStats
from fastdesk.translate.mqm import QualityReview


@dataclass(frozen=True)
class Flag:
    """A fidelity check that a block's answer failed (after its retry)."""

    check: (
        str  # code, links, inline_code, html, placeholders, structure, accents, glossary, thinking
    )
    detail: str


@dataclass(frozen=True)
class BlockStarted:
    revision: int
    block_id: str


@dataclass(frozen=True)
class BlockDelta:
    """The block's answer so far (thinking stripped), growing as the stream comes in."""

    revision: int
    block_id: str
    text: str


@dataclass(frozen=True)
class BlockDone:
    revision: int
    block_id: str
    text: str
    origin: str  # model | memory | copy (not translatable: code, front matter, blank)
    flags: tuple[Flag, ...] = ()


@dataclass(frozen=True)
class BlockFailed:
    revision: int
    block_id: str
    error: str


@dataclass(frozen=True)
class RequestDone:
    revision: int
    stats: RequestStats


@dataclass(frozen=True)
class EngineError:
    """Something the user should see (short message) with details behind a click."""

    revision: int
    message: str
    detail: str = ""
    kind: str = "error"  # or "startup", a failure's kind, MEMORY_REFUSED


# EngineError.kind of a translation memory's answer not used (it fails a check a model's
# answer passes: translate.checks.stored_answer_problem); its block is asked of the model
MEMORY_REFUSED = "memory_refused"


@dataclass(frozen=True)
class Waiting:
    """Requests wait before going out (a retry after a failure, or the rate limiter): the window
    shows it as "waiting 4 s: Groq free tier, 30 requests/min". ``reason`` names the provider."""

    revision: int
    provider: str
    seconds: float
    reason: str
    kind: str = "rate"  # "rate" (paced by a limit), "outage", "fault" (see routing's Backoff)
    block_ids: tuple[str, ...] = ()  # the blocks of the waiting request (none: not known)

    def queued(self, seconds_left: float) -> str:
        """What a waiting block shows: "queued, about 12 s"."""
        return f"queued, about {duration(seconds_left, rough=True)}"

    @property
    def message(self) -> str:
        return self.text(self.seconds)

    def text(self, seconds_left: float) -> str:
        """The line with ``seconds_left`` (a countdown redraws it): an outage is said as one
        ("groq unreachable, retrying in 12 s"), never as a rate limit."""
        left = duration(seconds_left)
        if self.kind == "rate":
            return f"waiting {left}: {self.reason}"
        return f"{self.reason}, retrying in {left}"


@dataclass(frozen=True)
class Planned:
    """A run's plan, before its first request: the requests it will send and the source tokens
    they carry (copies and the memory's answers left out), what the rate limits will pace. The
    window's estimate of a document is the sum over its first runs: a second plan of every
    block for it held the GIL ~0.1-0.6 s of the first screen at 4,000 blocks."""

    revision: int
    requests: int
    tokens: int
    blocks: int = 0  # the blocks those requests answer (a text repeated counts each time)


@dataclass(frozen=True)
class RevisionDone:
    """All blocks of the revision are settled (done, from memory or failed)."""

    revision: int
    blocks: int
    translated: int
    from_memory: int
    failed: int
    flagged: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class Expansion:
    """Generated elaboration of one block's section ("sections expanded on demand").

    Shown for that block only and marked as generated; never written into the translation.
    """

    revision: int
    block_id: str
    text: str
    done: bool = False


@dataclass(frozen=True)
class BlockReviewed:
    """The reviewer's verdict on a block's translation (fastdesk.translate.quality): its
    errors and score. Sent after the block's BlockDone, for a translation still current."""

    revision: int
    block_id: str
    review: QualityReview


EngineEvent = (
    BlockStarted
    | BlockDelta
    | BlockDone
    | BlockFailed
    | RequestDone
    | EngineError
    | RevisionDone
    | Planned
    | Expansion
    | Waiting
    | BlockReviewed
)

Emit = Callable[[EngineEvent], None]  # where an engine's events go (the window, a command)
