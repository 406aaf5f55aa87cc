"""A project's Batch API jobs: which are pending, what each covers, what each answered.

Why on disk, in the project (``.fastdesk/batches.json``; the answers in the user's cache):
a job runs for hours. Whoever runs ``fastdesk translate DIR --batch`` next (after a crash, a
reboot, on another machine with the same key) must find the job instead of paying for another.
Every write is atomic; the request's id (``custom_id``) is a digest of what it asks, so a job
covers requests, never files: an answer is used only where the project still asks exactly that.

A job is written down in steps: the input file's id as soon as it is uploaded (a run stopped
before the job was made finds it by that id, :meth:`GroqBatchApi.find`), the job's id as soon as
it exists, that its answers were downloaded, and it is dropped once every target it served is
written. The answers themselves are kept in the user's cache, never read from the project: they
come from the user's own account (another machine downloads them again), so a cloned project
cannot put text of its own into the targets or the translation memory as a model's answer.
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from fastdesk.config.fileio import (
    BrokenFile,
    FileError,
    atomic_write_text,
    load_json,
    set_aside,
)
from fastdesk.config.paths import cache_dir
from fastdesk.project.confine import within
from fastdesk.providers.batch_api import MAX_FILE_BYTES, TERMINAL, JobState, LineResult

__all__ = ["JOBS_PATH", "BatchJobs", "Job"]

log = logging.getLogger("fastdesk.project")

JOBS_PATH = Path(".fastdesk") / "batches.json"
_VERSION = 1


@dataclass
class Job:
    """One job as this project knows it."""

    provider: str
    model: str
    submitted: float  # wall time (seconds since the epoch)
    # custom_id → the nonce of its batch markers ("" for a bare block): an answer's markers
    # are the request's, and a later request for the same blocks has fresh ones
    requests: dict[str, str]
    blocks: int = 0
    pairs: int = 0  # (file, language) pairs it serves
    estimate_usd: float | None = None  # at the batch price, when submitted
    live_usd: float | None = None  # the same requests live
    input_file_id: str = ""
    id: str = ""  # "" until the provider made the job
    status: str = "uploading"
    completed: int = 0
    failed: int = 0
    output_file_id: str | None = None
    error_file_id: str | None = None
    fetched: bool = False  # its answers were downloaded (kept in the user's cache)

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL

    def update(self, state: JobState) -> None:
        self.status, self.completed, self.failed = state.status, state.completed, state.failed
        self.output_file_id = state.output_file_id or self.output_file_id
        self.error_file_id = state.error_file_id or self.error_file_id

    def line(self) -> str:
        """``batch job ID (groq/MODEL): in_progress, 120 of 300 requests answered``."""
        failed = f", {self.failed} failed" if self.failed else ""
        return (
            f"batch job {self.id} ({self.provider}/{self.model}): {self.status}, "
            f"{self.completed} of {len(self.requests)} requests answered{failed}"
        )

    def summary(self) -> dict[str, object]:
        """What ``fastdesk status --json`` says of it."""
        return {
            "id": self.id,
            "provider": self.provider,
            "model": self.model,
            "status": self.status,
            "requests": len(self.requests),
            "completed": self.completed,
            "failed": self.failed,
            "blocks": self.blocks,
            "submitted": self.submitted,
            "estimate_usd": self.estimate_usd,
            "answers_downloaded": self.fetched,
        }

    @classmethod
    def from_json(cls, data: object) -> Job | None:
        if not isinstance(data, dict):
            return None
        requests: Any = data.get("requests")
        if not isinstance(requests, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in requests.items()
        ):
            return None
        names: Any = [data.get(k) for k in ("provider", "model", "id", "status")]
        if not all(isinstance(v, str) for v in names):
            return None
        try:
            return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})
        except TypeError:
            return None


@dataclass
class BatchJobs:
    """The project's jobs, read at the start of a run and saved after each step."""

    root: Path
    jobs: list[Job] = field(default_factory=list)
    inside: bool = True  # False: .fastdesk leads out of the project; nothing is read or written
    _held: dict[str, dict[str, LineResult]] = field(default_factory=dict)  # answers read

    @classmethod
    def load(cls, root: Path) -> BatchJobs:
        store = cls(root, inside=within(root, root / JOBS_PATH))
        if not store.inside:
            return store
        path = root / JOBS_PATH
        try:
            data = load_json(path)
        except FileNotFoundError:
            return store
        except BrokenFile as exc:
            kept = set_aside(path)
            log.warning("%s could not be used (%s); kept as %s", path, exc.detail, kept)
            return store
        except FileError as exc:
            log.warning("%s could not be read (%s)", path, exc)
            store.inside = False
            return store
        if isinstance(data, dict) and data.get("version") == _VERSION:
            for item in data.get("jobs") or ():
                job = Job.from_json(item)
                if job is not None:
                    store.jobs.append(job)
        return store

    @property
    def path(self) -> Path:
        return self.root / JOBS_PATH

    def save(self) -> None:
        if not self.inside:
            raise OSError(f"{self.path}: leads outside the project (a symlink); not written")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        payload = {"version": _VERSION, "app": "fastdesk", "jobs": [asdict(j) for j in self.jobs]}
        atomic_write_text(self.path, json.dumps(payload, ensure_ascii=False, indent=1) + "\n")

    # ---- what the jobs cover ------------------------------------------------------------------

    def covered(self) -> set[str]:
        """The requests some job holds (pending, or answered and not yet used up)."""
        return {cid for job in self.jobs for cid in job.requests}

    def pending(self) -> list[Job]:
        return [j for j in self.jobs if not j.terminal]

    # ---- answers ------------------------------------------------------------------------------

    @staticmethod
    def _answers_path(job: Job) -> Path:
        """In the user's cache, not the project: a job's answers come from the user's own account
        (a project's files could hold any text, and would reach the translation memory)."""
        safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in job.id)[:100] or "job"
        return cache_dir() / "batches" / f"{safe}.json"

    def keep_answers(self, job: Job, results: dict[str, LineResult]) -> None:
        """The job's answers (only the requests it was given) kept, then the job marked fetched.
        A cache that cannot take them (read-only, full) leaves them for this run only."""
        kept = {cid: r for cid, r in results.items() if cid in job.requests}
        self._held[job.id] = kept
        path = self._answers_path(job)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            text = json.dumps({c: asdict(r) for c, r in kept.items()}, ensure_ascii=False)
            atomic_write_text(path, text + "\n")
        except OSError as exc:
            log.warning("%s: not written (%s); the answers serve this run only", path, exc)
        job.fetched = True
        self.save()

    def has_answers(self, job: Job) -> bool:
        """Whether the job's answers are here (another machine, or a cleared cache, has the job
        but not its answers: they are downloaded again)."""
        return job.fetched and (job.id in self._held or self._answers_path(job).is_file())

    def answers(self, job: Job) -> dict[str, LineResult]:
        if not job.fetched:
            return {}
        if job.id in self._held:
            return self._held[job.id]
        path = self._answers_path(job)
        try:
            data = load_json(path, 2 * MAX_FILE_BYTES)
        except (FileNotFoundError, FileError) as exc:
            log.warning("%s: the job's answers could not be read (%s)", path, exc)
            return {}
        out: dict[str, LineResult] = {}
        if isinstance(data, dict):
            for cid, item in data.items():
                result = _result(cid, item)
                if result is not None and cid in job.requests:
                    out[cid] = result
        self._held[job.id] = out
        return out

    def drop(self, job: Job) -> None:
        """A job whose answers are all used: forgotten (and its answers' file removed)."""
        self.jobs = [j for j in self.jobs if j is not job]
        self.save()
        self._held.pop(job.id, None)
        try:
            self._answers_path(job).unlink(missing_ok=True)
        except OSError as exc:
            log.warning("%s: not removed (%s)", self._answers_path(job), exc)


def _result(cid: str, item: Any) -> LineResult | None:
    if not isinstance(item, dict):
        return None
    text = item.get("text")
    if text is not None and not isinstance(text, str):
        return None
    ints = {
        k: item.get(k) if isinstance(item.get(k), int) else None
        for k in ("prompt_tokens", "completion_tokens", "cached_tokens")
    }
    finish = item.get("finish_reason")
    error = item.get("error")
    return LineResult(
        cid,
        text,
        finish_reason=finish if isinstance(finish, str) else None,
        error=error if isinstance(error, str) else None,
        **ints,
    )
