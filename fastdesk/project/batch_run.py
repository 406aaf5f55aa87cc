"""A project through a provider's Batch API: the requests a run would send, sent as a job; its
answers, once back, taken in by the very run that would have streamed them.

How, without a second engine: the engine is run twice with a stand-in for its router.

1. **Capture** (:func:`capture`): the engine plans and builds every request of the stale blocks
   as a live run would (memory first, blocks grouped, the same prompts); the stand-in writes each
   request down instead of sending it and answers with the source, unchecked, into a memory
   that keeps nothing, so a container's later pieces are planned too and no answer is stored.
2. **Collect** (:func:`collect`): once the job is done, a live run of the project whose stand-in
   answers each request the job answered with the job's answer, and sends any other (a retry
   with a firmer instruction, a block whose answer failed a check, a request the job did not
   answer, a block changed since) live through the real router. Every answer thus goes through
   the engine's checks, retries, memory and the project's review and writing, exactly as live.

A request's id is a digest of its language and its text (the blocks, with the batch markers'
random nonce taken out), not of the whole prompt: a correction taken in meanwhile changes the
examples in the prompt but not what the answer translates. The answer's markers are the job's
request's; they are turned into the new request's before the engine reads it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from fastdesk.project.layout import Project
from fastdesk.project.run import PairOutcome, translate_labels, translate_pairs
from fastdesk.project.sync import Pair
from fastdesk.providers.base import RequestStats, TextDelta, estimate_tokens
from fastdesk.providers.batch_api import LineResult
from fastdesk.routing.events import AllProvidersFailed, Attempt, AttemptDone, RouterEvent
from fastdesk.routing.pricing import PriceTable
from fastdesk.routing.router import Router
from fastdesk.translate.dialect import translate_document
from fastdesk.translate.engine import Engine
from fastdesk.translate.events import EngineEvent, RequestDone
from fastdesk.translate.job import JobSpec
from fastdesk.translate.memory import Memory

__all__ = [
    "PRICE_SHARE",
    "Captured",
    "Collected",
    "batch_cost",
    "capture",
    "collect",
    "request_id",
    "usable",
]

# A job costs half the live price, as Groq's batch prices were quoted in 2026 (by a third party;
# Groq's batch page once said 25 % off): the one figure to change if the price list says else.
PRICE_SHARE = 0.5

_FIRST_MARKER = re.compile(r"\A<!--fd-([0-9a-f]+):1-->\n")


def request_id(lang: str, messages: Sequence[Mapping[str, Any]]) -> tuple[str, str]:
    """(the request's id, its markers' nonce or ""): a digest of the target language and the
    last user message (the blocks to translate) with the nonce taken out."""
    text = ""
    for message in reversed(messages):
        if message.get("role") == "user":
            text = str(message.get("content") or "")
            break
    found = _FIRST_MARKER.match(text)
    nonce = found.group(1) if found else ""
    if nonce:
        text = text.replace(f"fd-{nonce}:", "fd-*:")
    digest = hashlib.sha256(f"{lang}\0{text}".encode()).hexdigest()[:32]
    return f"fd-{digest}", nonce


@dataclass(frozen=True)
class Captured:
    """One request the run would send, as the job will carry it."""

    custom_id: str
    nonce: str
    messages: tuple[dict[str, str], ...]
    max_tokens: int | None
    lang: str
    blocks: int
    prompt_tokens: int  # estimated as the router books them
    completion_tokens: int  # expected: a translation is about as long as its source


def batch_cost(
    prices: PriceTable, provider: str, model: str, requests: Sequence[Captured]
) -> tuple[float | None, float | None]:
    """(at the batch price, live) for ``requests``, estimated; None when the model has no
    known price."""
    prompt = sum(r.prompt_tokens for r in requests)
    completion = sum(r.completion_tokens for r in requests)
    live = prices.cost(provider, model, prompt, completion, local=False)
    return (None if live is None else live * PRICE_SHARE), live


def usable(result: LineResult) -> bool:
    """Whether a job's answer can stand in for its request: an answer, complete (one cut at
    its token budget is asked again live, with more)."""
    return result.text is not None and result.finish_reason in ("stop", None)


class _Tap:
    """The router as the engine sees it, but for :meth:`stream` (see the module docstring)."""

    def __init__(self, real: Router) -> None:
        self.real = real

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


class _KeepNothing:
    """The translation memory for a capture: it answers (planning needs its hits) but keeps
    nothing (the source given back as the answer must never be stored)."""

    def __init__(self, real: Memory | None) -> None:
        self.real = real

    def get(self, *args: Any, **kwargs: Any) -> Any:
        return None if self.real is None else self.real.get(*args, **kwargs)

    def put(self, *_args: Any, **_kwargs: Any) -> None:
        return None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


def _engine_with(engine: Engine, router: _Tap, memory: Any) -> Engine:
    """``engine``'s twin on another router and memory, planning a backfill's packs: nobody waits
    for a block of a job, and a job runs apart from the account's per-minute limits, so its
    packs are as large as the model's output limit allows and one minute of the account's stated
    limit takes alone (what the job leaves unanswered goes live). The capture's and the
    collection's twins are made here alike, from figures the servers' headers do not change, so
    the collection asks for exactly the packs the job carried (a pack planned otherwise would
    find no answer and go live)."""
    return Engine(
        cast(Router, router),
        cast(Memory | None, memory),
        concurrency=engine.concurrency,
        pack_tokens=engine.pack_tokens,
        max_pack_blocks=engine.max_pack_blocks,
        partial_interval=engine.partial_interval,
        reviewer=engine.reviewer,
        backfill=True,
        per_minute=False,
    )


def _last_user(messages: Sequence[Mapping[str, Any]]) -> str:
    return next(
        (str(m.get("content") or "") for m in reversed(messages) if m.get("role") == "user"), ""
    )


class _Capture(_Tap):
    def __init__(self, real: Router) -> None:
        super().__init__(real)
        self.found: dict[str, Captured] = {}

    async def stream(
        self, messages: Sequence[dict[str, str]], **kw: Any
    ) -> AsyncIterator[RouterEvent]:
        if kw.get("purpose", "translate") != "translate":
            raise AllProvidersFailed([])  # a retry: the live run of the collection asks it
        lang = str(kw.get("lang") or "")
        cid, nonce = request_id(lang, messages)
        text = _last_user(messages)
        expected = kw.get("expected_tokens") or estimate_tokens(text)
        self.found.setdefault(
            cid,
            Captured(
                cid,
                nonce,
                tuple(dict(m) for m in messages),
                kw.get("max_tokens"),
                lang,
                int(kw.get("blocks") or 0),
                estimate_tokens(*(m.get("content", "") for m in messages)),
                int(expected),
            ),
        )
        provider, model = str(kw.get("provider") or ""), str(kw.get("model") or "")
        yield Attempt(provider, model)
        yield TextDelta(text)
        stats = RequestStats(provider, model, "ok", blocks=int(kw.get("blocks") or 0))
        yield AttemptDone(dataclasses.replace(stats, purpose="capture"), None, "stop")


async def capture(
    engine: Engine, pairs: Sequence[Pair], specs: Mapping[str, JobSpec]
) -> dict[str, list[Captured]]:
    """Every request the stale blocks of ``pairs`` would send, per pair (source:lang), nothing
    sent, nothing stored. ``specs`` as for a live run (their review is not captured)."""
    tap = _Capture(engine.router)
    twin = _engine_with(engine, tap, _KeepNothing(engine.memory))
    twin.check_answers = False  # the source given back: nothing to check, nothing to retry
    out: dict[str, list[Captured]] = {}

    def noop(_event: EngineEvent) -> None:
        return None

    async def one(pair: Pair) -> None:
        spec = dataclasses.replace(specs[pair.lang], review=False)
        before = set(tap.found)
        await translate_document(
            twin, pair.doc, spec, pair.project.dialect, noop, block_ids=pair.needed()
        )
        key = f"{pair.source.as_posix()}:{pair.lang}"
        out[key] = [tap.found[c] for c in tap.found if c not in before]

    for pair in pairs:  # one after another: each pair's new requests are its own
        await one(pair)
    return out


@dataclass
class Collected:
    """What a collection did besides the pairs' outcomes."""

    outcomes: list[PairOutcome]
    from_jobs: int = 0  # requests answered by a job
    live: int = 0  # requests sent live (retries, what no job answered)
    used: set[str] = field(default_factory=set)  # the jobs' requests whose answers were used
    labels: int = 0  # requests sent live for the labels outside the pages
    labels_usd: float | None = 0.0  # what they cost (None: a model with no known price)
    lines: list[str] = field(default_factory=list)  # the labels' lines to say


class _Replay(_Tap):
    def __init__(
        self,
        real: Router,
        answers: Mapping[str, tuple[LineResult, str, str, str]],
        prices: PriceTable,
    ) -> None:
        super().__init__(real)
        self.answers = answers  # custom_id → (answer, its nonce, provider, model)
        self.prices = prices
        self.used: set[str] = set()
        self.live = 0

    async def stream(
        self, messages: Sequence[dict[str, str]], **kw: Any
    ) -> AsyncIterator[RouterEvent]:
        purpose = kw.get("purpose", "translate")
        cid, nonce = request_id(str(kw.get("lang") or ""), messages)
        found = self.answers.get(cid) if purpose == "translate" else None
        if found is None or cid in self.used or not usable(found[0]):
            self.live += 1  # a retry, a request no job answered (or answered cut short)
            async for event in self.real.stream(messages, **kw):
                yield event
            return
        result, was, provider, model = found
        self.used.add(cid)
        text = result.text or ""
        if was and nonce:
            text = text.replace(f"fd-{was}:", f"fd-{nonce}:")
        cost = self.prices.cost(
            provider,
            model,
            result.prompt_tokens,
            result.completion_tokens,
            local=False,
            cached_tokens=result.cached_tokens,
        )
        yield Attempt(provider, model)
        yield TextDelta(text)
        stats = RequestStats(
            provider,
            model,
            "ok",
            prompt_tokens=result.prompt_tokens,
            completion_tokens=result.completion_tokens,
            cost_usd=None if cost is None else cost * PRICE_SHARE,
            blocks=int(kw.get("blocks") or 0),
            purpose="batch",
            cached_tokens=result.cached_tokens,
        )
        yield AttemptDone(stats, None, "stop")


async def collect(
    engine: Engine,
    project: Project,
    pairs: Sequence[Pair],
    specs: Mapping[str, JobSpec],
    answers: Mapping[str, tuple[LineResult, str, str, str]],
    *,
    on_request: Callable[[RequestDone], None] = lambda _e: None,
    on_pair: Callable[[PairOutcome], None] = lambda _o: None,
) -> Collected:
    """The project's run with the jobs' ``answers`` (custom_id → (answer, its markers' nonce,
    provider, model)) standing in for the requests they answer, then its labels; see the module
    docstring. ``on_request``, ``on_pair``: as fastdesk.project.run.translate_pairs. The jobs'
    provider and model stand in ``specs`` (as they did when the requests were written: a pack's
    size follows the model's limits), and what no job answers goes live to them."""
    made_by = {(provider, model) for _result, _nonce, provider, model in answers.values()}
    if len(made_by) == 1:
        provider, model = next(iter(made_by))
        specs = {
            k: dataclasses.replace(v, provider=provider, model=model) for k, v in specs.items()
        }
    tap = _Replay(engine.router, answers, engine.router.pricing)
    twin = _engine_with(engine, tap, engine.memory)
    outcomes = await translate_pairs(twin, pairs, specs, on_request=on_request, on_pair=on_pair)
    took = Collected(outcomes, from_jobs=len(tap.used), live=tap.live, used=set(tap.used))

    def on_label(event: RequestDone) -> None:
        took.labels += 1
        cost, known = event.stats.cost_usd, took.labels_usd
        if cost is not None and known is not None:
            took.labels_usd = known + cost
        elif event.stats.status == "ok":  # answered at a price nobody knows
            took.labels_usd = None
        on_request(event)

    took.lines = await translate_labels(engine, project, specs, on_request=on_label)
    return took
