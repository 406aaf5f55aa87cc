"""A project's Batch API jobs step by step, for the command line and the window alike: what a
job would carry and cost (:func:`plan`), submitting it (:func:`submit`), bringing the jobs up
to date (:func:`refresh`: finishing one a stopped run left half-made, polling, downloading what
an ended one answered), and the answers to take in (:func:`answers`, then
fastdesk.project.batch_run.collect). Nothing here prints or waits: the callers say and poll.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from fastdesk.project.batch_jobs import BatchJobs, Job
from fastdesk.project.batch_run import Captured, batch_cost, capture, usable
from fastdesk.project.layout import Project
from fastdesk.project.sync import Pair
from fastdesk.providers.base import ChatRequest, ProviderError
from fastdesk.providers.batch_api import (
    BATCH_PROVIDERS,
    GroqBatchApi,
    LineResult,
    no_batch_api,
    parse_results,
    request_line,
    split_lines,
)
from fastdesk.translate.engine import Engine
from fastdesk.translate.job import JobSpec

__all__ = [
    "Offer",
    "Planned",
    "Prepared",
    "answers",
    "batch_provider",
    "describe_jobs",
    "next_job",
    "plan",
    "prepare",
    "refresh",
    "submit",
    "used_up",
]

Answers = dict[str, tuple[LineResult, str, str, str]]
# an ended job that left more than this share of the run's requests unanswered (it expired)
# is followed by a job for them; fewer are sent live as the answers are taken in
NEXT_JOB_SHARE = 0.10


@dataclass(frozen=True)
class Planned:
    """What the stale blocks would send: the requests no job holds yet, and their cost."""

    fresh: tuple[Captured, ...]  # not in any job
    requests: int  # all the run would send (fresh or not)
    pairs: int  # (file, language) pairs the fresh requests serve
    batch_usd: float | None  # the fresh requests at the batch price
    live_usd: float | None  # the same live
    # held by an ended job that did not answer them (it expired, the line failed), asked once
    unanswered: tuple[Captured, ...] = ()

    @property
    def blocks(self) -> int:
        return sum(c.blocks for c in self.fresh)


async def plan(
    engine: Engine,
    store: BatchJobs,
    needy: Sequence[Pair],
    specs: Mapping[str, JobSpec],
    provider: str,
    model: str,
) -> Planned:
    """The requests ``needy`` would send (nothing sent), less those a job holds already."""
    per_pair = await capture(engine, needy, specs)
    covered = store.covered()
    every = {c.custom_id: c for reqs in per_pair.values() for c in reqs}
    fresh = tuple(c for cid, c in every.items() if cid not in covered)
    ids = {c.custom_id for c in fresh}
    pairs = sum(1 for reqs in per_pair.values() if any(c.custom_id in ids for c in reqs))
    batch, live = batch_cost(engine.router.pricing, provider, model, fresh)
    found = answers(store)
    asked = Counter(cid for job in store.jobs for cid in job.requests)
    unanswered = tuple(
        c
        for cid, c in every.items()
        if cid in covered and asked[cid] == 1 and not (cid in found and usable(found[cid][0]))
        and not any(cid in j.requests for j in store.pending())
    )  # fmt: skip
    return Planned(fresh, len(every), pairs, batch, live, unanswered)


def next_job(planned: Planned) -> Planned | None:
    """Once the jobs ended: the requests they left unanswered (an expired job) and those no job
    holds (blocks changed since), as the next job when they are more than ``NEXT_JOB_SHARE`` of
    the run's; fewer go live as the answers are taken in."""
    left = planned.unanswered + planned.fresh
    if not left or len(left) <= NEXT_JOB_SHARE * planned.requests:
        return None
    return Planned(left, planned.requests, planned.pairs, None, None)


def submit(
    store: BatchJobs, api: GroqBatchApi, engine: Engine, model: str, planned: Planned
) -> list[Job]:
    """The fresh requests in as few jobs as the limits allow, each written down step by step
    (the job before its upload, its file's id, then its own id)."""
    requests = list(planned.fresh)
    lines = []
    for c in requests:
        request = ChatRequest(model=model, messages=list(c.messages), max_tokens=c.max_tokens)
        lines.append(request_line(c.custom_id, request, api.body(request)))
    made = []
    for chunk in split_lines(lines):
        mine, requests = requests[: len(chunk)], requests[len(chunk) :]
        batch, live = batch_cost(engine.router.pricing, api.name, model, mine)
        job = Job(
            provider=api.name,
            model=model,
            submitted=time.time(),
            requests={c.custom_id: c.nonce for c in mine},
            blocks=sum(c.blocks for c in mine),
            pairs=planned.pairs,
            estimate_usd=batch,
            live_usd=live,
        )
        store.jobs.append(job)
        store.save()
        job.input_file_id = api.upload(chunk, f"fastdesk-{store.root.name}.jsonl")
        store.save()
        _create(store, api, job)
        made.append(job)
    return made


def _create(store: BatchJobs, api: GroqBatchApi, job: Job) -> None:
    """The job made from its uploaded file, unless a stopped run made it already (or the
    answer to creating it was lost: the provider may have made it all the same)."""
    state = api.find(job.input_file_id)
    if state is None:
        try:
            state = api.create(job.input_file_id, {"app": "fastdesk", "project": store.root.name})
        except ProviderError:
            state = api.find(job.input_file_id)
            if state is None:
                raise
    job.id = state.id
    job.update(state)
    store.save()


def refresh(store: BatchJobs, api: GroqBatchApi) -> list[str]:
    """Every job brought up to date: one that a stopped run left half-made is finished, a
    pending one polled, an ended one's answers downloaded (once). A job (or its answers' file)
    the provider does not know for this key is forgotten; a line says so (returned)."""
    notes = []
    for job in list(store.jobs):
        if job.provider != api.name:
            continue
        if not job.input_file_id:  # stopped before its file was uploaded: nothing was paid
            store.jobs.remove(job)
            store.save()
            continue
        try:
            _bring_up_to_date(store, api, job)
        except ProviderError as exc:
            if exc.status != 404:
                raise
            store.drop(job)
            notes.append(
                f"batch job {job.id or job.input_file_id}: the provider does not know it (or its "
                "answers) for this key; forgotten, its blocks go out again"
            )
    return notes


def _bring_up_to_date(store: BatchJobs, api: GroqBatchApi, job: Job) -> None:
    if not job.id:
        _create(store, api, job)
    if not job.terminal or not store.has_answers(job):  # what the project says is not trusted
        job.update(api.retrieve(job.id))
        store.save()
    if job.terminal and not store.has_answers(job):
        results: dict[str, LineResult] = {}
        for file_id in (job.error_file_id, job.output_file_id):  # answers win over errors
            if file_id:
                results.update(parse_results(api.content(file_id).splitlines()))
        store.keep_answers(job, results)


def answers(store: BatchJobs) -> Answers:
    """custom_id → (answer, its markers' nonce, provider, model) of every downloaded job."""
    out: Answers = {}
    for job in store.jobs:
        for cid, result in store.answers(job).items():
            out[cid] = (result, job.requests.get(cid, ""), job.provider, job.model)
    return out


def used_up(store: BatchJobs) -> None:
    """Every target written: the downloaded jobs' answers are used; they are forgotten."""
    for job in [j for j in store.jobs if j.fetched]:
        store.drop(job)


def batch_provider(
    configured: Sequence[str], wanted: str = "auto"
) -> tuple[str | None, str | None]:
    """(the provider whose Batch API takes a job, or None; the one line saying why not)."""
    if wanted == "auto":
        found = next((p for p in configured if p in BATCH_PROVIDERS), None)
        if found is not None:
            return found, None
        wanted = configured[0] if configured else "this provider"
    why = no_batch_api(wanted)
    return (None, why) if why is not None else (wanted, None)


def describe_jobs(project: Project) -> list[Job]:
    """The project's jobs for ``fastdesk status``, the pending ones polled when their provider
    is configured (nothing is written: the next translate run does)."""
    store = BatchJobs.load(project.root)
    api = _status_api(store)
    if api is None:
        return store.jobs
    try:
        for job in store.pending():
            try:
                job.update(api.retrieve(job.id))
            except ProviderError:
                continue  # as last seen
    finally:
        api.close()
    return store.jobs


def _status_api(store: BatchJobs) -> GroqBatchApi | None:
    """Groq's Batch API when a job is pending and Groq is configured (else None)."""
    if not any(j.provider == GroqBatchApi.name and j.id for j in store.pending()):
        return None
    from fastdesk.config.settings import saved_settings
    from fastdesk.translate.wiring import NotConfigured, build_providers

    try:
        providers = build_providers(saved_settings(), only=(GroqBatchApi.name,))
    except (NotConfigured, ValueError):
        return None
    return GroqBatchApi.of(providers[GroqBatchApi.name])


@dataclass(frozen=True)
class Offer:
    """The choice a window offers before a project run: now, or in a batch."""

    requests: int  # what a job would carry (0: nothing new, a job holds it all already)
    blocks: int
    pairs: int
    live_usd: float | None
    batch_usd: float | None
    pending: tuple[str, ...]  # a line per pending job (Job.line)


@dataclass
class Prepared:
    """What a window's project run does about the Batch API (``prepare``)."""

    offer: Offer | None = None  # ask first
    submitted: tuple[Job, ...] = ()  # a job was sent: nothing to write now
    answers: Answers | None = None  # take these in (then ``used_up``)
    store: BatchJobs | None = None


async def prepare(
    engine: Engine,
    project: Project,
    needy: Sequence[Pair],
    specs: Mapping[str, JobSpec],
    choice: str | None,
) -> Prepared | None:
    """The window's Translate Project with a Batch API at hand: the answers of an ended job to
    take in; else, ``choice`` None, the offer (both costs, the pending jobs); ``"batch"``: the
    job submitted. None: run live (no Batch API for the engine's provider, or ``"live"``)."""
    import asyncio

    name, _why = batch_provider(list(engine.router.providers))
    if name is None or choice == "live":
        return None
    api = GroqBatchApi.of(engine.router.providers[name])
    if not api.usable:
        api.close()
        return None
    store = BatchJobs.load(project.root)
    try:
        await asyncio.to_thread(refresh, store, api)
        model = engine.router.providers[name].default_model
        specs = {k: replace(s, provider=name, model=model) for k, s in specs.items()}
        planned = await plan(engine, store, needy, specs, name, model)
        if not store.pending() and any(j.fetched for j in store.jobs):
            again = next_job(planned)  # it expired, leaving many unanswered: ask them again
            if again is None:
                return Prepared(answers=answers(store), store=store)
            made = await asyncio.to_thread(submit, store, api, engine, model, again)
            return Prepared(submitted=tuple(made), store=store)
        pending = tuple(j.line() for j in store.pending())
        offered = 0 if pending else len(planned.fresh)  # what changed waits for the job's end
        if choice == "batch" and offered:
            made = await asyncio.to_thread(submit, store, api, engine, model, planned)
            return Prepared(submitted=tuple(made), store=store)
        offer = Offer(
            offered,
            planned.blocks,
            planned.pairs,
            planned.live_usd,
            planned.batch_usd,
            pending,
        )
        return Prepared(offer=offer, store=store)
    finally:
        api.close()
