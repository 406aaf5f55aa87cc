"""Plan, pack, route and stream the translation of a document's blocks.

Data flows one way: blocks → memory answers what it can at once → the rest is grouped
into requests sized to the provider's limits → the router streams each from the fastest healthy
provider → answers are mapped back to their blocks, checked, stored, and emitted as events.
A pack whose answer cannot be mapped back exactly is split and retried, never written wrong.
What a job is lives in job.py; one request (its messages, its streamed answer) in request.py.
"""

from __future__ import annotations

import asyncio
import contextvars
import itertools
from collections.abc import Collection, Coroutine, Sequence
from dataclasses import replace

from fastdesk.document.blocks import Block, Document
from fastdesk.providers.base import estimate_tokens
from fastdesk.providers.sdk import MAX_COMPLETION_TOKENS, completion_budget
from fastdesk.routing.router import Router
from fastdesk.translate import planning
from fastdesk.translate.admonitions import keep_types
from fastdesk.translate.checks import check_block
from fastdesk.translate.events import (
    MEMORY_REFUSED,
    BlockDone,
    BlockFailed,
    BlockReviewed,
    BlockStarted,
    Emit,
    EngineError,
    EngineEvent,
    Expansion,
    Flag,
    Planned,
    RevisionDone,
)
from fastdesk.translate.job import JobSpec
from fastdesk.translate.language import (
    RUNAWAY_RATIO,
    document_language,
    not_translated,
    source_language,
)
from fastdesk.translate.memory import Memory
from fastdesk.translate.parts import Part, order, pack_emit
from fastdesk.translate.planning import Pack, Plan, Work, document_title, section_text
from fastdesk.translate.prompts import (
    Context,
    Markers,
    build_messages,
    expand_prompt,
    pack_text,
    split_pack,
)
from fastdesk.translate.quality import Reviewer
from fastdesk.translate.request import (
    Outcome,
    emit_partial,
    incomplete,
    markers_for,
    pack_messages,
    stream_answer,
    unshielded,
)
from fastdesk.translate.slots import LAST, Ranking, Slots

_BACKLOG = contextvars.ContextVar("backlog", default=False)  # this task's pack: backlog?
LENGTH_RETRIES_SCALE = 4  # an answer cut by its budget is asked again with 2×, then 4×
# A streaming answer is handed on (BlockDelta, Expansion) at most this often: each hand-on
# re-splits the whole answer so far into its blocks, and at 2,000 tokens/s that on every token
# was the engine thread's largest cost (quadratic in the answer); the window shows 20 a second.
PARTIAL_INTERVAL_S = 0.03
# A pack's answer is checked block by block in one go; a backfill's 64 blocks took 70-100 ms of
# the loop (more on a busy machine), and the few that ended together held back the request of
# an edit made meanwhile for 2.3 s. So the checks give the loop a turn once this long has passed.
CHECK_SLICE_S = 0.02


def _noop(_event: EngineEvent) -> None:
    return None


class Engine:
    """Translates documents block by block; shared by the window and the command line."""

    def __init__(
        self,
        router: Router,
        memory: Memory | None = None,
        *,
        concurrency: int = 4,
        pack_tokens: int = 1200,
        max_pack_blocks: int = 16,
        partial_interval: float = PARTIAL_INTERVAL_S,
        reviewer: Reviewer | None = None,
        backfill: bool = False,
        per_minute: bool = True,
        adaptive: bool = False,
    ) -> None:
        self.router = router
        self.reviewer = reviewer or Reviewer(router, memory)
        self.partial_interval = partial_interval
        self.memory = memory
        self.concurrency = max(1, concurrency)
        self.pack_tokens = pack_tokens
        self.max_pack_blocks = max_pack_blocks
        # nobody waits for a block (a command-line run, Translate Project): larger packs
        self.backfill = backfill
        # whether a backfill's packs share the account's minute with each other (False: a Batch
        # API job's, which runs apart from the per-minute limits, console.groq.com/docs/batch:
        # each pack only fits one stated minute alone; see ``packs``)
        self.per_minute = per_minute
        # requests in flight follow the account (routing/concurrency.py) under ``concurrency``
        self.adaptive = adaptive
        # False: answers are taken as they come, unchecked; only for a run whose answers are
        # never kept (fastdesk.project.batch_run's capture of the requests a run would send)
        self.check_answers = True
        self._sem: Slots | None = None
        self._sem_loop: asyncio.AbstractEventLoop | None = None

    def _semaphore(self) -> Slots:
        """One limit on requests in flight for all runs of this engine (in the running loop),
        served by rank (see ``run``'s ``priorities``)."""
        loop = asyncio.get_running_loop()
        if self._sem is None or self._sem_loop is not loop:
            self._sem, self._sem_loop = Slots(self.concurrency, reserved=1), loop  # 1 for edits
        return self._sem

    def _follow(self, spec: JobSpec) -> None:
        """Adaptive: the request slots follow the window of the choice this job goes to
        (routing.concurrency.Concurrency), never past ``self.concurrency``."""
        if not self.adaptive or self._sem is None:
            return
        found = self.router.candidates(spec.provider, spec.model, lang=spec.target_lang)
        if found:
            self._sem.resize(min(self.concurrency, self.router.concurrency.window(found[0])))

    # ---- planning ---------------------------------------------------------------------------

    def plan(
        self,
        doc: Document,
        spec: JobSpec,
        block_ids: Collection[str] | None = None,
        force: Collection[str] = (),
        labels: frozenset[str] | None = None,
    ) -> Plan:
        """The blocks sorted: copied, answered by this engine's memory, work to send."""
        return planning.plan(doc, spec, self.memory, block_ids, force, labels)

    def packs(
        self,
        work: Sequence[Work],
        spec: JobSpec | None = None,
        priorities: Ranking | None = None,
    ) -> list[Pack]:
        """Consecutive blocks grouped up to the token and block budget of one request: a
        backfill's (``self.backfill``) larger than live typing's, within the model's output
        limit and the account's tokens per minute (``planning.backfill_pack_tokens``): half
        of what a backlog may use of the minute as the limiter knows it; or, for a job that
        runs apart from the per-minute limits (not ``self.per_minute``), one whole minute as
        the settings or the published tiers state it (so that a request the job leaves
        unanswered can still go live, alone; and the same figure when the job's answers are
        taken in as when its requests were written, whatever the servers said meanwhile).
        Given the window's ``priorities``, a long document is both: what the reader waits for
        or soon may (``Ranking.live``: edited, on screen or near it) goes in live packs, the
        rest, which nobody waits for, in a backfill's."""
        if self.backfill:
            return self._backfill_packs(work, spec)
        if priorities is None:
            return planning.pack_blocks(work, self.pack_tokens, self.max_pack_blocks)
        out: list[Pack] = []
        for live, run in itertools.groupby(
            work, key=lambda w: priorities.live([b.id for b in w.blocks])
        ):
            group = list(run)
            if live:
                out += planning.pack_blocks(group, self.pack_tokens, self.max_pack_blocks)
            else:
                out += self._backfill_packs(group, spec)
        return out

    def _backfill_packs(self, work: Sequence[Work], spec: JobSpec | None) -> list[Pack]:
        pair = None
        if spec is not None:
            found = self.router.candidates(spec.provider, spec.model, lang=spec.target_lang)
            pair = found[0] if found else None
        limiter = self.router.limiter
        read = limiter.limits if self.per_minute else limiter.stated
        tpm = None if pair is None else read(pair).limit("tokens", "minute")
        share = planning.BACKLOG_SHARE if self.per_minute else 1.0
        model = pair[1] if pair else ""
        tokens = planning.backfill_pack_tokens(self.pack_tokens, tpm, model, share=share)
        blocks = max(self.max_pack_blocks, planning.BACKFILL_PACK_BLOCKS)
        return planning.pack_blocks(work, tokens, blocks)

    # ---- running ----------------------------------------------------------------------------

    async def run(
        self,
        doc: Document,
        spec: JobSpec,
        *,
        revision: int = 0,
        emit: Emit = _noop,
        block_ids: Collection[str] | None = None,
        force: Collection[str] = (),
        priorities: Ranking | None = None,
        reviews: set[asyncio.Task[None]] | None = None,
        labels: frozenset[str] | None = None,
    ) -> dict[str, str]:
        """Translate the document (or the given blocks); returns block id → final text.

        With ``spec.review``, the translated blocks are reviewed after the translations: before
        this returns, or, given a ``reviews`` set (the live translator's), in a task put there, so
        that the run ends with its translations (nothing waiting on it waits for a review).

        ``priorities`` (fastdesk.translate.slots.Priorities, data the live translator keeps):
        which waiting pack gets the next free request slot (asked when a slot frees; None:
        first come, first served), and whether the reader waits for a pack (an edit, the
        screen: the backlog leaves them part of each minute's budget; None: nothing is
        backlog). ``labels``: the page's reference labels, when ``doc`` is part of it (a
        container's body): the syntax shielded from the model (fastdesk.document.syntax) reads
        them."""
        part = Part(doc, emit, block_ids, force, labels, priorities)
        await self.run_parts([part], spec, revision=revision, reviews=reviews)
        return part.done.result()

    async def run_parts(
        self,
        parts: Sequence[Part],
        spec: JobSpec,
        *,
        revision: int = 0,
        reviews: set[asyncio.Task[None]] | None = None,
    ) -> None:
        """:meth:`run` for several documents at once (a page's blocks and its containers'
        pieces: fastdesk.translate.dialect), each part's events to its own ``emit`` and its
        results into its ``done`` as soon as its blocks are settled. A backfill
        (``self.backfill``: nobody waits) packs the parts' work together, in the parts' order,
        an identical text sent once; otherwise each part is packed as a run of its own."""
        plans = [self.plan(p.doc, spec, p.block_ids, p.force, p.labels) for p in parts]
        everything = [w for planned in plans for w in planned.work]
        if spec.mode == "simplify" and spec.source_lang is None and len(everything) > 1:
            # each block stays in its language: its checks go by the document's, said once
            # (not once a block: ~0.2 ms each, on the thread the window's answers arrive by)
            found = document_language(w.core for w in everything)
            spec = replace(spec, source_lang=found) if found else spec
        results: list[dict[str, str]] = []
        for part, planned in zip(parts, plans, strict=True):
            results.append(dict(planned.copied))
            for block_id, text in planned.copied.items():
                part.emit(BlockDone(revision, block_id, text, "copy"))
            for block, text, flags in planned.hits:
                results[-1][block.id] = text
                part.emit(BlockDone(revision, block.id, text, "memory", flags))
            for block, why in planned.refused:  # asked of the model below, as any other miss
                line = f"line {block.line}: translation memory's answer not used ({why})"
                part.emit(EngineError(revision, line, kind=MEMORY_REFUSED))
        together = self.backfill
        groups: list[list[Work]] = [[]] if together else [[] for _ in parts]
        first: dict[object, Work] = {}
        # each Work sent (by id) → every part's Work of its text: (part, Work)
        sharing: dict[int, list[tuple[int, Work]]] = {}
        for i, planned in enumerate(plans):
            for w in planned.work:
                lead = first.setdefault(w.key.digest() if together else (i, w.key.digest()), w)
                if lead is w:
                    groups[0 if together else i].append(w)
                sharing.setdefault(id(lead), []).append((i, w))
        if together and len(parts) > 1:  # in the page's order: a container's pieces in its place
            owner = {id(w): i for i, planned in enumerate(plans) for w in planned.work}
            groups[0].sort(key=lambda w: parts[owner[id(w)]].place_of(w.blocks[0].id))
        cap = self._pack_cap(spec)
        packs: list[tuple[Pack, bool]] = []  # and whether it goes with its context (an edit)
        for n, group in enumerate(groups):
            mine = self.packs(group, spec, None if together else parts[n].priorities)
            if cap:  # a model known to lose the markers of packs this long: shorter ones
                mine = [p[i : i + cap] for p in mine for i in range(0, len(p), cap)]
            if mine:
                blocks = sum(len(o.blocks) for w in group for _i, o in sharing[id(w)])
                tokens = sum(w.tokens for w in group)
                parts[n].emit(Planned(revision, len(mine), tokens, blocks))
            packs += [(p, len(group) == 1) for p in mine]
        waiting = [len(planned.work) for planned in plans]  # each part's works not settled
        failed: list[list[str]] = [[] for _ in parts]
        flagged: list[list[str]] = [[] for _ in parts]
        settled: list[list[tuple[Work, Outcome]]] = [[] for _ in parts]
        judgings: list[Coroutine[None, None, None]] = []

        def finish(i: int) -> None:
            """Part ``i``'s blocks are settled: its results, its revision done, its review."""
            part, planned = parts[i], plans[i]
            part.done.set_result(results[i])
            part.emit(
                RevisionDone(
                    revision,
                    blocks=len(results[i]) + len(failed[i]),
                    translated=sum(len(w.blocks) for w in planned.work) - len(failed[i]),
                    from_memory=len(planned.hits),
                    failed=len(failed[i]),
                    flagged=tuple(flagged[i]),
                )
            )
            review = spec.review
            if review is None:
                review = self.reviewer.budget_allows(spec.target_lang)
            if not review or spec.mode != "translate":
                return
            judging = self._review(settled[i], planned.hits, spec, revision, part.emit)
            if reviews is None:
                judgings.append(judging)  # awaited before this returns
            else:
                task = asyncio.get_running_loop().create_task(judging)
                reviews.add(task)
                task.add_done_callback(reviews.discard)

        sem = self._semaphore()
        self._follow(spec)

        def ranked(pack: Pack) -> dict[int, tuple[Ranking, list[str]]]:
            """By part: its ranking and its blocks in ``pack``."""
            out: dict[int, tuple[Ranking, list[str]]] = {}
            for w in pack:
                for i, own in sharing[id(w)]:
                    if (found := parts[i].priorities) is not None:
                        out.setdefault(i, (found, []))[1].extend(b.id for b in own.blocks)
            return out

        if all(part.priorities is not None for part in parts):
            # the free slots go at once, in this order: by rank too (the screen first)
            packs.sort(key=lambda p: min(r.rank(ids) for r, ids in ranked(p[0]).values()))

        async def one(pack: Pack, alone: bool) -> None:
            owned = [(i, own) for w in pack for i, own in sharing[id(w)]]
            ranked_here = ranked(pack)
            rank = order(list(ranked_here.values()))
            waited = any(r.foreground(ids) for r, ids in ranked_here.values())
            emit = pack_emit(parts, owned)
            async with sem.take(rank, priority=waited):
                _BACKLOG.set(bool(ranked_here) and not waited)
                outcomes = await self._translate(pack, spec, revision, emit, with_context=alone)
            for w, outcome in zip(pack, outcomes, strict=True):
                for i, own in sharing[id(w)]:
                    part = parts[i]
                    self._settle(
                        own, outcome, spec, revision, part.emit, results[i], failed[i], flagged[i]
                    )
                    settled[i].append((own, outcome))
                    waiting[i] -= 1
                    if not waiting[i]:
                        finish(i)

        for i in range(len(parts)):
            if not waiting[i]:
                finish(i)
        try:
            await asyncio.gather(*(one(p, alone) for p, alone in packs))
        finally:
            for part in parts:
                if not part.done.done():
                    part.done.cancel()
        await asyncio.gather(*judgings)

    async def _review(
        self,
        settled: list[tuple[Work, Outcome]],
        hits: list[tuple[Block, str, tuple[Flag, ...]]],
        spec: JobSpec,
        revision: int,
        emit: Emit,
    ) -> None:
        """Each translated block's review, after the translations: cached ones at once, the
        others at the lowest rank of the request slots (see quality.Reviewer)."""
        todo: dict[tuple[str, str], tuple[list[Block], tuple[str, str] | None]] = {}
        for w, outcome in settled:
            if outcome.text is not None and not outcome.not_translated:
                pair = (outcome.provider, outcome.model)
                todo.setdefault((w.core, outcome.text), ([], pair))[0].extend(w.blocks)
        for block, text, _flags in hits:
            lead, core, trail = block.split()
            answer = text[len(lead) : len(text) - len(trail)]
            todo.setdefault((core, answer), ([], None))[0].append(block)
        sem = self._semaphore()
        reviewer = self.reviewer

        async def one(
            core: str, answer: str, blocks: list[Block], pair: tuple[str, str] | None
        ) -> None:
            review = reviewer.cached(core, answer, spec.target_lang)
            if review is None:
                async with sem.take(lambda: LAST):
                    review = await reviewer.review(
                        core,
                        answer,
                        source_lang=spec.source_lang or source_language(core),
                        target_lang=spec.target_lang,
                        translated_by=pair,
                        emit=emit,
                        revision=revision,
                    )
            if review is not None:
                for block in blocks:
                    emit(BlockReviewed(revision, block.id, review))

        await asyncio.gather(
            *(one(core, answer, blocks, pair) for (core, answer), (blocks, pair) in todo.items())
        )

    async def back_translate(
        self, doc: Document, block_id: str, text: str, spec: JobSpec, *, emit: Emit = _noop
    ) -> str | None:
        """The block's translation ``text`` (its whole text, as the target shows it) translated
        back into the source's language, for an editor who does not read the target's."""
        block = next((b for b in doc.blocks if b.id == block_id), None)
        if block is None or not block.translatable:
            return None
        core = block.split()[1]
        source_lang = spec.source_lang or source_language(core) or "en"
        return await self.reviewer.back_translate(
            text.strip(), source_lang=source_lang, target_lang=spec.target_lang, emit=emit
        )

    def _settle(
        self,
        w: Work,
        outcome: Outcome,
        spec: JobSpec,
        revision: int,
        emit: Emit,
        results: dict[str, str],
        failed: list[str],
        flagged: list[str],
    ) -> None:
        for block in w.blocks:
            if outcome.not_translated:  # flagged, and the source stays: never written as one
                results[block.id] = block.text
                flagged.append(block.id)
                flag = Flag("not_translated", outcome.not_translated)
                emit(BlockDone(revision, block.id, block.text, "copy", (flag,)))
                continue
            if outcome.text is None:
                failed.append(block.id)
                emit(BlockFailed(revision, block.id, outcome.error or "no answer"))
                continue
            lead, _core, trail = block.split()
            text = lead + outcome.text + trail
            results[block.id] = text
            if outcome.flags:
                flagged.append(block.id)
            emit(BlockDone(revision, block.id, text, "model", outcome.flags))
        if (
            outcome.text is not None
            and not outcome.not_translated
            and self.memory is not None
            and spec.use_memory
        ):
            source = spec.source_lang
            if source is None and spec.mode == "translate":
                source = source_language(w.core)
            self.memory.put(
                w.key,
                outcome.text,
                provider=outcome.provider,
                model=outcome.model,
                flags=outcome.flags,
                source_lang=source,
            )

    async def _translate(
        self, pack: Pack, spec: JobSpec, revision: int, emit: Emit, *, with_context: bool
    ) -> list[Outcome]:
        """Answers for a pack; a pack that cannot be mapped back is split in halves and retried,
        and its model's packs are capped at half its length from then on (router stats), down
        to one block per request for a model that loses the markers of two."""
        cap = self._pack_cap(spec)
        if cap and len(pack) > cap:  # its model lost the markers of a pack this long meanwhile
            return [
                outcome
                for i in range(0, len(pack), cap)
                for outcome in await self._translate(
                    pack[i : i + cap], spec, revision, emit, with_context=False
                )
            ]
        markers = markers_for(pack)
        answer = await self._request(
            pack, spec, revision, emit, with_context=with_context, markers=markers
        )
        if isinstance(answer, Outcome):  # every provider failed
            return [answer] * len(pack)
        text, finish, provider, model = answer
        # only "stop" ends a complete answer: "length", "content_filter" … (or none) do not
        parts = split_pack(text, len(pack), markers) if finish == "stop" else None
        if parts is None or any(not p.strip() for p in parts):
            if len(pack) > 1 and finish == "stop" and parts is None:
                self.router.stats.lost_markers((provider, model), len(pack))
            if len(pack) > 1:
                mid = len(pack) // 2
                first = await self._translate(pack[:mid], spec, revision, emit, with_context=False)
                second = await self._translate(pack[mid:], spec, revision, emit, with_context=False)
                return first + second
            return [Outcome(None, error=f"{provider}/{model}: {incomplete(finish)}")]
        outcomes = []
        clock = asyncio.get_running_loop().time  # the loop's own: a slice, no wait
        turn = clock() + CHECK_SLICE_S
        for w, part in zip(pack, parts, strict=True):
            outcomes.append(await self._checked(w, part, spec, revision, emit, provider, model))
            if clock() >= turn:  # the others' turn (an edit's request to start)
                await asyncio.sleep(0)
                turn = clock() + CHECK_SLICE_S
        return outcomes

    async def _checked(
        self,
        w: Work,
        answer: str,
        spec: JobSpec,
        revision: int,
        emit: Emit,
        provider: str,
        model: str,
    ) -> Outcome:
        """Is it a translation at all (else once more on the next model, then flagged
        not_translated)? Then the fidelity checks: one retry with a firmer instruction, then
        flag. ``answer`` is as the model gave it: the language is judged on what it was sent
        and gave back (the syntax shielded from it says nothing of the language), the checks
        on the answer with the syntax put back. Not checked when ``check_answers`` is off (a
        run only planned: Batch API)."""
        if not self.check_answers:
            return Outcome(unshielded(w, answer)[0], provider=provider, model=model)
        sent = w.text
        why = not_translated(sent, answer, spec.target_lang) if spec.mode == "translate" else None
        if why:
            again = await self._single(w, spec, revision, emit, avoid=(provider, model))
            if again is None or not_translated(sent, again[0], spec.target_lang):
                return Outcome(None, provider=provider, model=model, not_translated=why)
            answer, provider, model = again
        shown, flags = self._answered(w, answer, spec)
        if not flags:
            return Outcome(shown, (), provider=provider, model=model)
        firmer = "; ".join(f"{f.check}: {f.detail}" for f in flags)
        retry = await self._single(w, spec, revision, emit, firmer=firmer)
        if retry is None:
            return Outcome(shown, tuple(flags), provider=provider, model=model)
        second, second_flags = self._answered(w, retry[0], spec)
        if len(second_flags) <= len(flags) and not (
            spec.mode == "translate" and not_translated(sent, retry[0], spec.target_lang)
        ):
            return Outcome(second, tuple(second_flags), provider=retry[1], model=retry[2])
        return Outcome(shown, tuple(flags), provider=provider, model=model)

    def _answered(self, w: Work, answer: str, spec: JobSpec) -> tuple[str, list[Flag]]:
        """The answer as written (the shielded syntax put back, an admonition's type too)
        and the flags of its checks (a shielded piece it lost, put back, among them)."""
        shown, lost = unshielded(w, answer)
        shown = keep_types(w.core, shown)  # an admonition's type is syntax: put it back
        flags = self._check(w, shown, spec)
        flags += [Flag("dialect", f"{span} lost by the answer; put back") for span in lost]
        return shown, flags

    async def _single(
        self,
        w: Work,
        spec: JobSpec,
        revision: int,
        emit: Emit,
        *,
        firmer: str = "",
        avoid: tuple[str, str] | None = None,
    ) -> tuple[str, str, str] | None:
        """One block asked again (a retry): (answer as the model gave it, provider, model), or
        None when no complete answer came."""
        markers = markers_for([w])
        retry = await self._request(
            [w],
            spec,
            revision,
            emit,
            with_context=True,
            firmer=firmer,
            purpose="retry",
            markers=markers,
            avoid=avoid,
        )
        if isinstance(retry, Outcome) or retry[1] != "stop":
            return None
        parts = split_pack(retry[0], 1, markers)
        if not parts or not parts[0].strip():
            return None
        return parts[0], retry[2], retry[3]

    def _pack_cap(self, spec: JobSpec) -> int:
        """The most blocks a request may carry to the choice it would go to (0: no cap): less
        than a pack whose markers that model lost (routing.stats.ChoiceStats.max_pack)."""
        candidates = self.router.candidates(spec.provider, spec.model, lang=spec.target_lang)
        return self.router.stats.get(candidates[0]).max_pack if candidates else 0

    def _check(self, w: Work, answer: str, spec: JobSpec) -> list[Flag]:
        return check_block(
            w.core,
            answer,
            target_lang=spec.target_lang,
            mode=spec.mode,
            glossary=spec.glossary,
            source_lang=spec.source_lang,
        )

    async def _request(
        self,
        pack: Pack,
        spec: JobSpec,
        revision: int,
        emit: Emit,
        *,
        with_context: bool,
        firmer: str = "",
        purpose: str = "translate",
        markers: Markers | None,
        avoid: tuple[str, str] | None = None,
        scale: int = 1,  # times the usual completion budget (it cut the answer: more)
    ) -> tuple[str, str | None, str, str] | Outcome:
        """Stream one request: (answer, finish reason, provider, model), or a failed Outcome."""
        text = pack_text([w.text for w in pack], markers)
        expected = estimate_tokens(text)  # a translation is about as long as its source
        candidates = self.router.candidates(
            spec.provider, spec.model, expected_tokens=expected, lang=spec.target_lang
        )
        model_hint = candidates[0][1] if candidates else (spec.model or "")
        messages = pack_messages(
            pack, text, spec, model_hint, with_context=with_context, firmer=firmer
        )
        ids = [b.id for w in pack for b in w.blocks]
        shown: dict[int, str] = {}
        backlog = _BACKLOG.get()

        def started() -> None:
            for block_id in ids:
                emit(BlockStarted(revision, block_id))

        def partial(so_far: str) -> None:
            # the backlog's partial answers are not handed on: nobody reads them (its blocks
            # are off screen), and each cost a re-split of the answer so far and a render in
            # the window, a 64-block pack's dozens of times over
            if not backlog:
                emit_partial(pack, so_far, shown, revision, emit, markers)

        answer = await stream_answer(
            self.router,
            messages,
            spec,
            revision,
            emit,
            on_start=started,
            on_done=lambda: self._follow(spec),
            partial_interval=self.partial_interval,
            on_text=partial,
            max_tokens=min(MAX_COMPLETION_TOKENS, scale * completion_budget(expected, model_hint)),
            purpose=purpose,
            blocks=len(pack),
            expected_tokens=expected,
            avoid=avoid,
            background=backlog,
            block_ids=tuple(ids),
            runaway_chars=int(RUNAWAY_RATIO * len(text)) + 200,
        )
        if isinstance(answer, tuple) and answer[1] == "length" and scale < LENGTH_RETRIES_SCALE:
            return await self._request(  # cut by its budget: asked again with twice as much
                *(pack, spec, revision, emit), with_context=with_context, firmer=firmer,
                purpose=purpose, markers=markers, avoid=avoid, scale=2 * scale,
            )  # fmt: skip
        return answer

    async def expand(
        self, doc: Document, block_id: str, spec: JobSpec, *, revision: int = 0, emit: Emit = _noop
    ) -> str | None:
        """Elaborate the section of `block_id` in the target language; streams Expansion events."""
        text = section_text(doc, block_id)
        candidates = self.router.candidates(spec.provider, spec.model, lang=spec.target_lang)
        model_hint = candidates[0][1] if candidates else (spec.model or "")
        system = expand_prompt(
            spec.target_lang, model=model_hint, context=Context(title=document_title(doc))
        )
        answer = await stream_answer(
            self.router,
            build_messages(system, text),
            spec,
            revision,
            emit,
            on_done=lambda: self._follow(spec),
            partial_interval=self.partial_interval,
            on_text=lambda so_far: emit(Expansion(revision, block_id, so_far)),
            max_tokens=1024,
            purpose="expand",
            blocks=1,
        )
        if isinstance(answer, Outcome):
            return None
        result = answer[0].strip()
        emit(Expansion(revision, block_id, result, done=True))
        return result
