"""A provider's Batch API: a file of chat requests in, a file of answers out, within hours.

Why: Groq's Batch API (``client.files``, ``client.batches`` of the ``groq`` SDK; OpenAI's
format: console.groq.com/docs/batch) bills half the live price and runs apart from the account's
per-minute limits, so a whole project's backlog goes in one job instead of hours of pacing.

Only Groq offers one here: Cerebras' is a private preview with no stated discount
(inference-docs.cerebras.ai/capabilities/batch) and OpenAI-compatible servers (Ollama, vLLM …)
rarely serve ``/batches``; :func:`no_batch_api` says so in one line and the run goes live.

Synchronous on purpose: a job is submitted, polled and downloaded between runs of the engine,
never inside one. Every request body is the one a live request would send (the adapter's own
``_create_kwargs``), so an answer from a job is checked exactly as a live answer.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, NoReturn

from fastdesk.providers.base import ChatRequest
from fastdesk.providers.errors import raise_provider_error
from fastdesk.providers.http_client import DEFAULT_CONNECT_TIMEOUT

__all__ = [
    "BATCH_PROVIDERS",
    "MAX_FILE_BYTES",
    "MAX_LINES",
    "TERMINAL",
    "GroqBatchApi",
    "JobState",
    "LineResult",
    "no_batch_api",
    "parse_results",
    "request_line",
    "split_lines",
]

BATCH_PROVIDERS = ("groq",)
ENDPOINT: Literal["/v1/chat/completions"] = "/v1/chat/completions"
WINDOW = "24h"  # the shortest window Groq takes (24h to 7d)
# An input file of at most 100 MB (the groq SDK's files.create docstring); at most 50,000
# requests a job, OpenAI's limit for the format Groq follows. Within both, one job.
MAX_FILE_BYTES = 100 * 1024 * 1024
MAX_LINES = 50_000
# a job in one of these states changes no more: what it answered can be downloaded
TERMINAL = frozenset({"completed", "expired", "failed", "cancelled"})

_WHY_NOT = {
    "cerebras": "Cerebras' Batch API is a private preview",
    "openai": "an OpenAI-compatible server offers no Batch API that fastdesk can rely on",
}


def no_batch_api(provider: str) -> str | None:
    """One line saying why ``provider`` cannot take a batch (None: it can)."""
    if provider in BATCH_PROVIDERS:
        return None
    why = _WHY_NOT.get(provider, f"{provider} has no Batch API")
    return f"{provider} has no Batch API ({why}): translating live"


@dataclass(frozen=True)
class JobState:
    """A job as the provider last described it."""

    id: str
    status: str  # validating, in_progress, finalizing, completed, failed, expired, cancelling …
    input_file_id: str = ""
    total: int = 0
    completed: int = 0
    failed: int = 0
    output_file_id: str | None = None
    error_file_id: str | None = None

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL


@dataclass(frozen=True)
class LineResult:
    """One request's outcome in a job: its answer and usage, or why there is none."""

    custom_id: str
    text: str | None
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int | None = None
    error: str | None = None


def request_line(custom_id: str, request: ChatRequest, body: Mapping[str, Any]) -> str:
    """One JSONL line: ``body`` is the adapter's keyword arguments for ``request`` (as live)."""
    payload = {
        "custom_id": custom_id,
        "method": "POST",
        "url": ENDPOINT,
        "body": {**body, "model": request.model, "messages": list(request.messages)},
    }
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def split_lines(
    lines: Sequence[str], max_lines: int | None = None, max_bytes: int | None = None
) -> list[list[str]]:
    """The lines in as few files as the limits allow (by default MAX_LINES, MAX_FILE_BYTES),
    in order. A single line over ``max_bytes`` is a ValueError (no job could take it)."""
    max_lines = MAX_LINES if max_lines is None else max_lines
    max_bytes = MAX_FILE_BYTES if max_bytes is None else max_bytes
    out: list[list[str]] = []
    current: list[str] = []
    size = 0
    for line in lines:
        n = len(line.encode("utf-8")) + 1
        if n > max_bytes:
            raise ValueError(f"one request is {n:,} bytes, over a job's {max_bytes:,}")
        if current and (len(current) >= max_lines or size + n > max_bytes):
            out.append(current)
            current, size = [], 0
        current.append(line)
        size += n
    if current:
        out.append(current)
    return out


def _get(item: Any, *path: str) -> Any:
    for name in path:
        if isinstance(item, Mapping):
            item = item.get(name)
        else:
            return None
    return item


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def parse_results(lines: Iterable[str]) -> dict[str, LineResult]:
    """custom_id → outcome, from an output or error file (one JSON object a line, in any
    order). A line that is not one is skipped: everything a server sends is input."""
    out: dict[str, LineResult] = {}
    for raw in lines:
        raw = raw.strip()
        if not raw:
            continue
        try:
            item = json.loads(raw)
        except ValueError:
            continue
        custom_id = _get(item, "custom_id")
        if not isinstance(custom_id, str):
            continue
        body = _get(item, "response", "body")
        status = _get(item, "response", "status_code")
        choice = (_get(body, "choices") or [None])[0] if isinstance(body, Mapping) else None
        text = _get(choice, "message", "content")
        error = _get(item, "error", "message") or _get(body, "error", "message")
        if not isinstance(text, str) or (isinstance(status, int) and status >= 400):
            reason = error if isinstance(error, str) else f"no answer (status {status})"
            out[custom_id] = LineResult(custom_id, None, error=reason[:300])
            continue
        finish = _get(choice, "finish_reason")
        out[custom_id] = LineResult(
            custom_id,
            text,
            finish_reason=finish if isinstance(finish, str) else None,
            prompt_tokens=_int(_get(body, "usage", "prompt_tokens")),
            completion_tokens=_int(_get(body, "usage", "completion_tokens")),
            cached_tokens=_int(_get(body, "usage", "prompt_tokens_details", "cached_tokens")),
        )
    return out


class GroqBatchApi:
    """Groq's files and batches through the ``groq`` SDK (a synchronous client of its own)."""

    name = "groq"

    def __init__(self, api_key: str, base_url: str | None = None, timeout: float = 60.0) -> None:
        import groq
        import httpx

        from fastdesk.providers.groq import DEFAULT_BASE_URL

        self._secrets = (api_key,)
        self.usable = bool(api_key)  # False: built from something with no key (not Groq's)
        self._client = groq.Groq(
            api_key=api_key or "none",
            base_url=base_url or DEFAULT_BASE_URL,
            timeout=httpx.Timeout(timeout, connect=DEFAULT_CONNECT_TIMEOUT),
            max_retries=2,  # a poll or an upload is safe to repeat; the SDK honours retry-after
        )

    @classmethod
    def of(cls, provider: object) -> GroqBatchApi:
        """The Batch API of a built :class:`GroqProvider` (its key and host)."""
        client = getattr(provider, "_client", None)
        key = str(getattr(client, "api_key", "") or "")
        base = str(getattr(client, "base_url", "") or "").rstrip("/")
        return cls(key, base.removesuffix("/openai/v1") or None)

    def _fail(self, exc: BaseException) -> NoReturn:
        raise_provider_error(self.name, exc, secrets=self._secrets)

    def body(self, request: ChatRequest) -> dict[str, Any]:
        """The keyword arguments a live request would carry (the streaming adapter's)."""
        from fastdesk.providers.groq import create_kwargs

        return create_kwargs(request)

    def upload(self, lines: Sequence[str], name: str) -> str:
        """A JSONL file of requests uploaded; its file id."""
        data = ("\n".join(lines) + "\n").encode("utf-8")
        try:
            made = self._client.files.create(
                file=(name, data, "application/jsonl"), purpose="batch"
            )
        except Exception as exc:
            self._fail(exc)
        if not made.id:
            raise ValueError("the provider gave the uploaded file no id")
        return made.id

    def create(self, input_file_id: str, metadata: Mapping[str, str]) -> JobState:
        try:
            # never retried by the SDK: a retry after a lost answer could make a second job
            # (that the first was made is found by its file: ``find``)
            job = self._client.with_options(max_retries=0).batches.create(
                input_file_id=input_file_id,
                endpoint=ENDPOINT,
                completion_window=WINDOW,
                metadata=dict(metadata),
            )
        except Exception as exc:
            self._fail(exc)
        return _state(job)

    def retrieve(self, job_id: str) -> JobState:
        try:
            job = self._client.batches.retrieve(job_id)
        except Exception as exc:
            self._fail(exc)
        return _state(job)

    def find(self, input_file_id: str) -> JobState | None:
        """The job made from ``input_file_id``, if one was (a run stopped between creating it
        and writing its id down must not pay for a second one)."""
        try:
            page = self._client.batches.list()
        except Exception as exc:
            self._fail(exc)
        for job in _get(page.model_dump(), "data") or ():
            if isinstance(job, Mapping) and job.get("input_file_id") == input_file_id:
                return _state(job)
        return None

    def content(self, file_id: str) -> str:
        try:
            return self._client.files.content(file_id).text()
        except Exception as exc:
            self._fail(exc)

    def close(self) -> None:
        self._client.close()


def _state(job: Any) -> JobState:
    data = job if isinstance(job, Mapping) else job.model_dump()
    counts = data.get("request_counts") or {}
    return JobState(
        id=str(data.get("id") or ""),
        status=str(data.get("status") or "unknown"),
        input_file_id=str(data.get("input_file_id") or ""),
        total=_int(counts.get("total")) or 0,
        completed=_int(counts.get("completed")) or 0,
        failed=_int(counts.get("failed")) or 0,
        output_file_id=data.get("output_file_id") or None,
        error_file_id=data.get("error_file_id") or None,
    )
