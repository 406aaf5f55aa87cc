"""`fastdesk translate DIR --to fr,de --batch [--wait]`: a project through the Batch API.

Without ``--wait`` the command returns as soon as the job is submitted (or, run again, says how
far it is); once the provider has answered, a run takes the answers in and writes the project as
a live run would (cli/project.py finishes it). ``--wait`` polls until then, a progress line on a
terminal. The jobs live in the project's ``.fastdesk/`` (fastdesk.project.batch_jobs).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import sys
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field

from fastdesk.project.batch_flow import (
    answers,
    batch_provider,
    next_job,
    plan,
    refresh,
    submit,
    used_up,
)
from fastdesk.project.batch_jobs import BatchJobs, Job
from fastdesk.project.batch_run import PRICE_SHARE, Collected, collect
from fastdesk.project.layout import Project
from fastdesk.project.run import PairOutcome
from fastdesk.project.sync import Pair
from fastdesk.providers.base import ProviderError
from fastdesk.providers.batch_api import GroqBatchApi
from fastdesk.routing.pricing import format_cost
from fastdesk.translate.engine import Engine
from fastdesk.translate.events import RequestDone
from fastdesk.translate.job import JobSpec

__all__ = ["BatchStep", "Runner", "Work", "run_batch", "say_jobs"]

POLL_FIRST_S = 5.0  # --wait polls a job after this, then ever less often
POLL_GROWTH = 1.5
POLL_MAX_S = 60.0


def _say(text: str) -> None:
    print(f"fastdesk translate: {text}", file=sys.stderr)


@dataclass
class BatchStep:
    """What the batch part of a run leaves to the rest: an exit status (the run ends there),
    or the pairs' outcomes to finish and write (``exit`` None), or nothing (``live``: run as
    without --batch)."""

    exit: int | None = None
    live: bool = False
    outcomes: list[PairOutcome] = field(default_factory=list)
    done: Callable[[bool], None] = lambda _ok: None  # told whether every target was written


Work = Callable[[Callable[[RequestDone], None]], Awaitable[list[PairOutcome]]]
Runner = Callable[[Work], list[PairOutcome]]


def _provider_for(args: argparse.Namespace, engine: Engine) -> str | None:
    """The provider whose Batch API takes the job; None (after one line) to run live."""
    name, why = batch_provider(list(engine.router.providers), args.provider)
    if why is not None:
        _say(why)
    return name


def run_batch(
    args: argparse.Namespace,
    project: Project,
    engine: Engine,
    specs: Mapping[str, JobSpec],
    needy: Sequence[Pair],
    runner: Runner,
) -> BatchStep:
    """Submit, report on, wait for or take in the project's jobs (see the module docstring).
    ``runner`` runs the collection as the command runs a live project (report, costs, the
    engine closed after)."""
    provider = _provider_for(args, engine)
    if provider is None:
        return BatchStep(live=True)
    store = BatchJobs.load(project.root)
    if not store.inside:
        _say(f"{store.path}: leads outside the project (a symlink); nothing was sent")
        return BatchStep(exit=2)
    model = args.model or engine.router.providers[provider].default_model
    specs = {k: dataclasses.replace(s, provider=provider, model=model) for k, s in specs.items()}
    api = GroqBatchApi.of(engine.router.providers[provider])
    try:
        step = _steps(args, project, engine, specs, needy, runner, store, api, model)
    except ProviderError as exc:
        _say(f"the Batch API failed: {exc}; the jobs are kept in {store.path}")
        step = BatchStep(exit=1)
    except OSError as exc:
        _say(f"{store.path}: {exc}")
        step = BatchStep(exit=1)
    finally:
        api.close()
    if step.exit is not None and engine.memory is not None:
        engine.memory.close()  # no run follows: nothing else closes it
    return step


def _steps(
    args: argparse.Namespace,
    project: Project,
    engine: Engine,
    specs: Mapping[str, JobSpec],
    needy: Sequence[Pair],
    runner: Runner,
    store: BatchJobs,
    api: GroqBatchApi,
    model: str,
) -> BatchStep:
    for note in refresh(store, api):
        _say(note)
    while True:
        # while a job is pending a run only says how far it is: what changed since is sent
        # once the jobs have ended (in a next job, or live)
        pending = bool(store.pending())
        made = _send(engine, specs, needy, store, api, model) if needy and not pending else []
        if not store.pending():
            break
        if not args.wait:
            for job in store.pending():
                if job not in made:  # a job submitted now was just described
                    _say(job.line())
            return BatchStep(exit=0)
        wait(store, api)  # then what the jobs left unanswered may make a next one
    found = answers(store)
    if not found:
        return BatchStep(live=True)  # nothing pending, nothing answered: a plain run
    took: list[Collected] = []

    async def work(on_request: Callable[[RequestDone], None]) -> list[PairOutcome]:
        took.append(await collect(engine, project, needy, specs, found, on_request=on_request))
        return took[0].outcomes

    outcomes = runner(work)
    collected = took[0]
    total = collected.from_jobs + collected.live
    _say(
        f"{collected.from_jobs} requests answered by batch jobs, {collected.live} sent live"
        + (f" ({100 * collected.live / total:.0f} %)" if total else "")
    )
    for line in collected.lines:
        _say(line)
    if collected.labels:
        _say(
            f"{collected.labels} requests sent live for the labels outside the pages (nav "
            f"titles, category labels, theme strings): {format_cost(collected.labels_usd)}"
        )

    def done(ok: bool) -> None:
        if ok:
            used_up(store)

    return BatchStep(outcomes=outcomes, done=done)


def _send(
    engine: Engine,
    specs: Mapping[str, JobSpec],
    needy: Sequence[Pair],
    store: BatchJobs,
    api: GroqBatchApi,
    model: str,
) -> list[Job]:
    """The jobs this run submits (said): the requests no job holds; or, once the jobs ended,
    those they left unanswered when many (an expired job; a few go live instead)."""
    planned = asyncio.run(plan(engine, store, needy, specs, api.name, model))
    ended = any(j.fetched for j in store.jobs) and not store.pending()
    again = next_job(planned) if ended else None
    if again is not None:
        n, of = len(again.fresh), planned.requests
        _say(f"the batch jobs left {n} of {of} requests unanswered: they go in a next job")
        planned = again
    elif ended or not planned.fresh:
        return []  # an ended job is taken in first: what is new then goes live
    made = submit(store, api, engine, model, planned)
    for job in made:
        _say(
            f"submitted batch job {job.id} ({job.provider}/{model}): {len(job.requests)} "
            f"requests, {job.blocks} blocks of {job.pairs} file × language pairs; about "
            f"{format_cost(job.estimate_usd)} at the batch price ({PRICE_SHARE:.0%} of live: "
            f"{format_cost(job.live_usd)}); answers within 24 h: run this command again (or "
            "`fastdesk status`) to see how far it is and write the targets"
        )
    return made


def wait(
    store: BatchJobs,
    api: GroqBatchApi,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """Poll until no job is pending: a progress line on a terminal, a line a change else."""
    interval = POLL_FIRST_S
    tty = sys.stderr.isatty()
    said = ""
    while store.pending():
        line = "; ".join(j.line() for j in store.pending())
        if tty:
            print(f"\r{line[:150]:<150}", end="", file=sys.stderr, flush=True)
        elif line != said:
            _say(line)
        said = line
        sleep(interval)
        interval = min(POLL_MAX_S, max(interval, 0.5) * POLL_GROWTH) if interval else 0.0
        for note in refresh(store, api):
            _say(note)
    if tty:
        print(file=sys.stderr)


def say_jobs(project: Project) -> None:
    """Nothing is stale: one line per job still pending; an ended one is forgotten (nothing
    asks its answers any more: the blocks were translated otherwise meanwhile)."""
    store = BatchJobs.load(project.root)
    for job in list(store.jobs):
        if not job.terminal:
            _say(job.line())
        elif store.inside:
            store.drop(job)
            _say(f"batch job {job.id}: nothing is stale any more; forgotten")
