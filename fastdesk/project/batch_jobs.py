"""A project's Batch API jobs: which are pending, what each covers, what each answered.

Why on disk, in the project (``.fastdesk/batches.json``, answers under ``.fastdesk/batches/``):
a job runs for hours. Whoever runs ``fastdesk translate DIR --batch`` next (after a crash, a
reboot, on another machine with the same key) must find the job instead of paying for another.
Every write is atomic; the request's id (``custom_id``) is a digest of what it asks, so a job
covers requests, never files: an answer is used only where the project still asks exactly that.

A job is written down in steps: the input file's id as soon as it is uploaded (a run stopped
before the job was made finds it by that id, :meth:`GroqBatchApi.find`), the job's id as soon as
it exists, its answers as soon as they are downloaded, and it is dropped once every target it
served is written.
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
from fastdesk.project.confine import within
from fastdesk.providers.batch_api import MAX_FILE_BYTES, TERMINAL, JobState, LineResult

__all__ = ["JOBS_PATH", "BatchJobs", "Job"]

log = logging.getLogger("fastdesk.project")

JOBS_PATH = Path(".fastdesk") / "batches.json"
ANSWERS_DIR = Path(".fastdesk") / "batches"
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
    fetched: bool = False  # its answers are under ANSWERS_DIR

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

    def _answers_path(self, job: Job) -> Path:
        safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in job.id) or "job"
        return self.root / ANSWERS_DIR / f"{safe}.json"

    def keep_answers(self, job: Job, results: dict[str, LineResult]) -> None:
        """The job's answers (only the requests it was given), then the job marked fetched."""
        path = self._answers_path(job)
        if not within(self.root, path):
            raise OSError(f"{path}: leads outside the project (a symlink); not written")
        path.parent.mkdir(parents=True, exist_ok=True)
        kept = {cid: asdict(r) for cid, r in results.items() if cid in job.requests}
        atomic_write_text(path, json.dumps(kept, ensure_ascii=False) + "\n")
        job.fetched = True
        self.save()

    def has_answers(self, job: Job) -> bool:
        """Whether the job's answers are here (a clone may hold the jobs but not the answers:
        then they are downloaded again)."""
        return job.fetched and self._answers_path(job).is_file()

    def answers(self, job: Job) -> dict[str, LineResult]:
        path = self._answers_path(job)
        if not job.fetched or not within(self.root, path):
            return {}
        try:
            data = load_json(path, 2 * MAX_FILE_BYTES)
        except (FileNotFoundError, FileError) as exc:
            log.warning("%s: the job's answers could not be read (%s)", path, exc)
            return {}
        out: dict[str, LineResult] = {}
        if isinstance(data, dict):
            for cid, item in data.items():
                result = _result(cid, item)
                if result is not None:
                    out[cid] = result
        return out

    def drop(self, job: Job) -> None:
        """A job whose answers are all used: forgotten (and its answers' file removed)."""
        self.jobs = [j for j in self.jobs if j is not job]
        self.save()
        path = self._answers_path(job)
        if within(self.root, path):
            path.unlink(missing_ok=True)


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
