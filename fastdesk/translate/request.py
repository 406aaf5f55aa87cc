"""One request of the engine: its messages, its answer streamed through the router, what it
comes to for a block, and the words for why it failed.

Kept apart from engine.py, which decides what to send, when and how often (packing, retries,
checks): these pieces read only their arguments, the router among them.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypedDict, Unpack

from fastdesk.clock import duration
from fastdesk.document.syntax import unshield
from fastdesk.providers.base import TextDelta, estimate_tokens
from fastdesk.providers.factory import not_configured
from fastdesk.routing.retry import RetryPolicy
from fastdesk.routing.router import (
    AllProvidersFailed,
    Attempt,
    AttemptDone,
    Backoff,
    Restart,
    Router,
)
from fastdesk.translate.events import BlockDelta, Emit, EngineError, Flag, RequestDone, Waiting
from fastdesk.translate.job import JobSpec
from fastdesk.translate.language import RUNAWAY_RATIO
from fastdesk.translate.planning import Pack, Work
from fastdesk.translate.prompts import (
    Context,
    Markers,
    ThinkStripper,
    build_messages,
    needs_markers,
    partial_pack,
    request_notes,
    system_prompt,
)

# A glossary up to this long goes whole into the instructions every request shares (cached by
# the providers after the first request); a longer one, only the entries each text uses.
SHARED_GLOSSARY_TOKENS = 2000


class Route(TypedDict, total=False):
    """What stream_answer passes on to Router.stream as it is (its keyword arguments)."""

    max_tokens: int
    purpose: str
    blocks: int
    expected_tokens: int | None
    avoid: tuple[str, str] | None
    background: bool


@dataclass
class Outcome:
    """What a block's request came to: its text (None: no answer), flags, who answered."""

    text: str | None
    flags: tuple[Flag, ...] = ()
    error: str | None = None
    provider: str = ""
    model: str = ""
    not_translated: str = ""  # why the answers were not translations (the block keeps its source)


def pack_messages(
    pack: Pack, text: str, spec: JobSpec, model_hint: str, *, with_context: bool, firmer: str
) -> list[dict[str, str]]:
    """The messages of a pack's request (``text``, its blocks as sent): the instructions every
    request of the job shares first (a cached prefix), then this text's notes: its glossary
    entries, the editor's examples, its context (an edit's: its section), a firmer word."""
    cores = [w.text for w in pack]
    context = pack[0].context if with_context and len(pack) == 1 else None
    if context is None and pack:
        context = Context(title=pack[0].context.title)
    examples = spec.examples.pick(text, exclude=cores) if spec.examples else []
    shared = shared_glossary(spec)
    used = spec.glossary_for(text) if shared is None else None
    return build_messages(
        system_prompt(
            spec.mode,
            spec.target_lang,
            model=model_hint,
            style=spec.style_text,
            glossary_lines=shared or (),
        ),
        text,
        request_notes(
            spec.mode,
            glossary_lines=used.prompt_lines(spec.glossary_lang) if used is not None else (),
            examples=examples,
            context=context,
            firmer=firmer,
        ),
    )


async def stream_answer(
    router: Router,
    messages: list[dict[str, str]],
    spec: JobSpec,
    revision: int,
    emit: Emit,
    *,
    on_text: Callable[[str], None],
    on_start: Callable[[], None] = lambda: None,
    on_done: Callable[[], None] = lambda: None,
    partial_interval: float,
    runaway_chars: int | None = None,
    block_ids: tuple[str, ...] = (),
    **route: Unpack[Route],
) -> tuple[str, str | None, str, str] | Outcome:
    """Stream one answer through the router, thinking stripped and fallbacks restarted:
    (answer, finish reason, provider, model), or a failed Outcome once the error is shown.
    An answer past ``runaway_chars`` is stopped there, with the finish reason "runaway";
    ``on_done`` is called as each attempt ends, before its RequestDone."""
    acc: list[str] = []
    size = 0
    stripper = ThinkStripper()
    finish: str | None = None
    provider = model = ""
    # the loop's own time, read and compared in this coroutine only (a throttle, no wait)
    clock = asyncio.get_running_loop().time
    shown_at = -math.inf  # when on_text last had the answer so far
    stream = router.stream(
        messages, provider=spec.provider, model=spec.model, lang=spec.target_lang, **route
    )
    try:
        async for ev in stream:
            if isinstance(ev, Attempt):
                provider, model = ev.provider, ev.model
                on_start()
            elif isinstance(ev, TextDelta):
                visible = stripper.feed(ev.text)
                if visible:
                    acc.append(visible)
                    size += len(visible)
                    if runaway_chars is not None and size > runaway_chars:
                        finish = "runaway"
                        break
                    now = clock()
                    if now - shown_at >= partial_interval:
                        shown_at = now
                        on_text("".join(acc))
            elif isinstance(ev, Restart):  # the next choice starts the answer again
                acc.clear()
                size = 0
                stripper = ThinkStripper()
                shown_at = -math.inf
            elif isinstance(ev, AttemptDone):
                finish = ev.finish_reason
                on_done()
                emit(RequestDone(revision, ev.stats))
            elif isinstance(ev, Backoff):
                emit(Waiting(revision, ev.provider, ev.seconds, ev.reason, ev.kind, block_ids))
    except AllProvidersFailed as exc:
        message = failure_message(exc, router.retry)
        emit(EngineError(revision, message, detail=str(exc), kind=failure_kind(exc)))
        return Outcome(None, error=message)
    finally:
        await stream.aclose()  # type: ignore[attr-defined]  # a runaway: stop its attempt
    acc.append(stripper.finish())
    return "".join(acc), finish, provider, model


def emit_partial(
    pack: Pack,
    text: str,
    shown: dict[int, str],
    revision: int,
    emit: Emit,
    markers: Markers | None,
) -> None:
    """The blocks of a pack's answer so far whose text changed since last ``shown``, as
    BlockDelta events (the syntax shielded from the model put back as far as it can be)."""
    for n, part in partial_pack(text, len(pack), markers).items():
        if shown.get(n) != part:
            shown[n] = part
            sent = pack[n].sent
            streamed = unshield(part, sent, partial=True)[0] if sent is not None else part
            for block in pack[n].blocks:
                lead, _core, trail = block.split()
                emit(BlockDelta(revision, block.id, lead + streamed + trail))


def unshielded(w: Work, answer: str) -> tuple[str, list[str]]:
    """The answer with the syntax shielded from the model put back, and what it lost (put
    back at its end: fastdesk.document.syntax.unshield)."""
    return unshield(answer, w.sent) if w.sent is not None else (answer, [])


def shared_glossary(spec: JobSpec) -> list[str] | None:
    """The whole glossary section that applies to the job, shared by every request's first
    message (a cached prefix), or None when it is longer than ``SHARED_GLOSSARY_TOKENS``: then
    each request carries the entries its text uses, after that message."""
    if spec.glossary is None:
        return []
    lines = spec.glossary.prompt_lines(spec.glossary_lang)
    if estimate_tokens("\n".join(lines)) > SHARED_GLOSSARY_TOKENS:
        return None
    return lines


def markers_for(pack: Sequence[Work]) -> Markers | None:
    """Fresh markers for a request that needs them (several blocks, or a ``<think>`` block)."""
    cores = [w.core for w in pack]
    return Markers.fresh("".join(cores)) if needs_markers(cores) else None


def incomplete(finish: str | None) -> str:
    """Why an answer that streamed to its end is still not an answer."""
    if finish == "length":
        return "answer truncated (max_tokens reached)"
    if finish == "stop":
        return "empty answer, or its block markers were lost"
    if finish is None:
        return "the answer ended without saying it was complete"
    if finish == "runaway":
        return f"the answer ran past {RUNAWAY_RATIO:g}× the length of its source: stopped"
    return f"the answer is not complete (finish_reason {finish})"


def failure_kind(exc: AllProvidersFailed) -> str:
    """The EngineError's kind: the last provider's error's, or none configured."""
    return exc.last.kind if exc.last is not None else "not_configured"


def failure_message(exc: AllProvidersFailed, retry: RetryPolicy) -> str:
    """A short sentence for a status bar or a terminal line (a retry-after as capped)."""
    last = exc.last
    if last is None:
        return not_configured()
    if last.kind == "authentication":
        return (
            f"{last.provider}: the API key was refused (check it in Settings or the environment)."
        )
    if last.kind == "rate_limited":
        wait = retry.cap(getattr(last, "retry_after", None))
        after = f"; try again in {duration(wait)}" if wait else ""
        return f"{last.provider}: rate limit reached{after}."
    if last.kind == "timeout":
        return f"{last.provider}: no answer in time."
    if last.kind == "malformed":
        return f"{last.provider}: {last.message}."
    if last.kind == "connection":
        return f"{last.provider}: cannot reach the server ({last.message})."
    return str(last)
