"""Groq's Batch API on the loopback emulator (tests/emulator.py): files and batches.

Why: a batch job runs for hours on the real service; a test must see every state a job goes
through (``validating`` → ``in_progress`` → ``completed``, or ``expired`` with part of its
answers) in a few polls, through the real ``groq`` SDK (``client.files``, ``client.batches``)
and a real socket. The routes, bodies and files are the OpenAI-compatible ones Groq documents
(console.groq.com/docs/batch): ``POST /openai/v1/files`` (multipart, ``purpose=batch``),
``GET /openai/v1/files/{id}/content``, ``POST /openai/v1/batches``, ``GET /openai/v1/batches``
and ``/batches/{id}``; output and error files are JSONL, one line per request, in any order.

Each request of a job is answered as the emulator answers a chat request (its ``answer``), when
the job completes. A job moves one state per poll (``GET /batches/{id}``) along ``steps``;
it never counts against the account's per-minute limits (Groq runs batches apart from them).

Usage::

    with Emulator(answer=translator) as emu:
        desk = emu.batches  # a BatchDesk
        desk.configure(expire_after=3)  # the next jobs answer 3 requests, then expire
        ...
        assert desk.uploads == 1 and desk.created == 1
"""

from __future__ import annotations

import json
import random
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from email.parser import BytesParser
from email.policy import HTTP
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.emulator import Config, Emulator, _Exchange

STEPS = ("validating", "in_progress", "completed")


@dataclass(frozen=True)
class DeskConfig:
    """How the next jobs behave."""

    steps: tuple[str, ...] = STEPS  # the states a job shows, one more per poll
    expire_after: int | None = None  # answer this many requests, then end "expired"
    fail_ids: Callable[[str], bool] | None = None  # requests that go to the error file
    seed: int = 7  # the order of the output file's lines (shuffled: "in any order")


@dataclass
class _Job:
    id: str
    input_file_id: str
    lines: list[dict[str, Any]]
    metadata: Mapping[str, Any]
    config: DeskConfig
    created_at: int = field(default_factory=lambda: int(time.time()))
    polls: int = 0
    status: str = "validating"
    output_file_id: str | None = None
    error_file_id: str | None = None
    completed: int = 0
    failed: int = 0


class BatchDesk:
    """The files and batches of one emulator (thread-safe)."""

    def __init__(self, emulator: Emulator) -> None:
        self.emu = emulator
        self._lock = threading.Lock()
        self._config = DeskConfig()
        self.files: dict[str, tuple[str, bytes]] = {}  # id → (purpose, content)
        self.jobs: dict[str, _Job] = {}
        self.uploads = 0  # files uploaded with purpose "batch"
        self.created = 0  # jobs created
        self.polls = 0  # GET /batches/{id}
        self.hold = False  # True: jobs stay in_progress, whatever their steps say
        self.lose_create = 0  # the next N jobs are made, but the answer is cut off

    def configure(self, **changes: Any) -> None:
        with self._lock:
            self._config = replace(self._config, **changes)

    # ---- the routes ---------------------------------------------------------------------------

    def handle(
        self, ex: _Exchange, method: str, endpoint: str, body: Any, content_type: str
    ) -> None:
        from tests.emulator import _send_json

        parts = endpoint.split("/")
        if parts[0] == "files" and method == "POST" and len(parts) == 1:
            return self._upload(ex, body, content_type)
        if parts[0] == "files" and len(parts) == 3 and parts[2] == "content":
            return self._content(ex, parts[1])
        if parts[0] == "batches" and method == "POST" and len(parts) == 1:
            return self._create(ex, body)
        if parts[0] == "batches" and method == "GET" and len(parts) == 1:
            with self._lock:
                data = [self._describe(j) for j in self.jobs.values()]
            return _send_json(ex, 200, {"object": "list", "data": data})
        if parts[0] == "batches" and method == "GET" and len(parts) == 2:
            return self._retrieve(ex, parts[1])
        return _send_json(ex, 404, {"error": {"message": "Unknown path", "type": "not_found"}})

    def _upload(self, ex: _Exchange, body: Any, content_type: str) -> None:
        from tests.emulator import _send_json

        raw = body if isinstance(body, bytes) else str(body or "").encode("utf-8")
        form = BytesParser(policy=HTTP).parsebytes(
            f"Content-Type: {content_type}\r\n\r\n".encode() + raw
        )
        fields: dict[str, tuple[str | None, bytes]] = {}
        for part in form.iter_parts():
            name = part.get_param("name", header="content-disposition")
            data = part.get_payload(decode=True)
            fields[str(name)] = (part.get_filename(), data if isinstance(data, bytes) else b"")
        purpose = fields.get("purpose", (None, b""))[1].decode()
        filename, content = fields.get("file", (None, b""))
        if purpose != "batch" or not content:
            bad = {"error": {"message": "file and purpose=batch required", "type": "invalid"}}
            return _send_json(ex, 400, bad)
        file_id = "file_" + uuid.uuid4().hex[:24]
        with self._lock:
            self.files[file_id] = ("batch", content)
            self.uploads += 1
        reply = {
            "id": file_id,
            "object": "file",
            "bytes": len(content),
            "created_at": int(time.time()),
            "filename": filename or "batch.jsonl",
            "purpose": "batch",
        }
        _send_json(ex, 200, reply)

    def _content(self, ex: _Exchange, file_id: str) -> None:
        from tests.emulator import _send_json

        with self._lock:
            found = self.files.get(file_id)
        if found is None:
            return _send_json(ex, 404, {"error": {"message": "no such file", "type": "not_found"}})
        data = found[1]
        headers = {"Content-Type": "application/octet-stream", "Content-Length": str(len(data))}
        ex.start(200, headers, chunked=False)
        ex.write(data)

    def _create(self, ex: _Exchange, body: Any) -> None:
        from tests.emulator import _send_json

        file_id = body.get("input_file_id") if isinstance(body, dict) else None
        with self._lock:
            found = self.files.get(str(file_id))
        if found is None or body.get("endpoint") != "/v1/chat/completions":
            bad = {"error": {"message": "unknown input_file_id or endpoint", "type": "invalid"}}
            return _send_json(ex, 400, bad)
        lines = [json.loads(line) for line in found[1].decode("utf-8").splitlines() if line]
        with self._lock:
            job = _Job(
                "batch_" + uuid.uuid4().hex[:24],
                str(file_id),
                lines,
                body.get("metadata") or {},
                self._config,
            )
            job.status = job.config.steps[0]
            self.jobs[job.id] = job
            self.created += 1
            reply = self._describe(job)
            lose, self.lose_create = self.lose_create > 0, max(0, self.lose_create - 1)
        if lose:  # made, yet the client never hears of it
            ex.cut(reset=False)
            return
        _send_json(ex, 200, reply)

    def _retrieve(self, ex: _Exchange, job_id: str) -> None:
        from tests.emulator import _send_json

        cfg = self.emu.config
        with self._lock:
            job = self.jobs.get(job_id)
            if job is not None:
                self._advance(job, cfg)
                reply = self._describe(job)
            self.polls += 1
        if job is None:
            return _send_json(ex, 404, {"error": {"message": "no such batch", "type": "not_found"}})
        _send_json(ex, 200, reply)

    # ---- a job's life -------------------------------------------------------------------------

    def _advance(self, job: _Job, cfg: Config) -> None:
        """One poll: the next state; at the last, the answers are written."""
        if job.status in ("completed", "expired", "failed", "cancelled"):
            return
        job.polls += 1
        steps = job.config.steps
        job.status = steps[min(job.polls, len(steps) - 1)]
        if self.hold and job.status not in ("validating", "in_progress"):
            job.status = "in_progress"
        if job.status == "in_progress":
            job.completed = len(job.lines) // 2
        if job.status == "completed":
            self._finish(job, cfg)

    def _finish(self, job: _Job, cfg: Config) -> None:
        from tests.emulator import _plan
        from tests.emulator import completion as answer

        done, errors = [], []
        limit = job.config.expire_after
        for n, line in enumerate(job.lines):
            cid = line.get("custom_id")
            if limit is not None and n >= limit:
                errors.append(_error_line(cid, "batch_expired", "This request could not be run "
                                          "before the batch expired."))  # fmt: skip
                continue
            if job.config.fail_ids is not None and job.config.fail_ids(str(cid)):
                errors.append(_error_line(cid, "server_error", "Internal error"))
                continue
            completion = answer(_plan(line["body"], cfg), "groq", cfg)
            done.append(
                {
                    "id": "batch_req_" + uuid.uuid4().hex[:16],
                    "custom_id": cid,
                    "response": {
                        "status_code": 200,
                        "request_id": "req_" + uuid.uuid4().hex[:16],
                        "body": completion,
                    },
                    "error": None,
                }
            )
        rng = random.Random(job.config.seed)
        rng.shuffle(done)  # "in any order"
        rng.shuffle(errors)
        if done:
            job.output_file_id = self._store(done)
        if errors:
            job.error_file_id = self._store(errors)
        job.completed, job.failed = len(done), len(errors)
        job.status = "expired" if limit is not None and limit < len(job.lines) else "completed"

    def _store(self, lines: list[dict[str, Any]]) -> str:
        file_id = "file_" + uuid.uuid4().hex[:24]
        text = "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines)
        self.files[file_id] = ("batch_output", text.encode("utf-8"))
        return file_id

    def _describe(self, job: _Job) -> dict[str, Any]:
        return {
            "id": job.id,
            "object": "batch",
            "endpoint": "/v1/chat/completions",
            "errors": None,
            "input_file_id": job.input_file_id,
            "completion_window": "24h",
            "status": job.status,
            "output_file_id": job.output_file_id,
            "error_file_id": job.error_file_id,
            "created_at": job.created_at,
            "expires_at": job.created_at + 86400,
            "request_counts": {
                "total": len(job.lines),
                "completed": job.completed,
                "failed": job.failed,
            },
            "metadata": dict(job.metadata),
        }

    @property
    def lines(self) -> list[dict[str, Any]]:
        """Every request line of every job, in order."""
        with self._lock:
            return [line for job in self.jobs.values() for line in job.lines]


def _error_line(custom_id: Any, code: str, message: str) -> dict[str, Any]:
    return {
        "id": "batch_req_" + uuid.uuid4().hex[:16],
        "custom_id": custom_id,
        "response": None,
        "error": {"code": code, "message": message},
    }
