"""Groq through the official ``groq`` SDK (AsyncGroq), adapted to :mod:`fastdesk.providers.base`.

Usage and server timings come only in the final chunk, under ``x_groq.usage``; rate-limit
headers are read from the raw response before its body is parsed.
"""

from __future__ import annotations

from typing import Any

import groq

from fastdesk.providers.base import ChatRequest
from fastdesk.providers.sdk import SdkProvider, reasoning_family, schema_format

DEFAULT_BASE_URL = "https://api.groq.com"
# The settings' default too (config/settings.py DEFAULT_MODELS). Groq shut down
# llama-3.1-8b-instant on 2026-08-16 and names openai/gpt-oss-20b among its replacements
# (https://console.groq.com/docs/deprecations, read 2026-12-02).
DEFAULT_MODEL = "openai/gpt-oss-20b"


class GroqProvider(SdkProvider):
    """Groq's OpenAI-style API. ``base_url`` is the bare host (the SDK adds ``/openai/v1``)."""

    name = "groq"
    default_base_url = DEFAULT_BASE_URL
    default_model = DEFAULT_MODEL
    http_client_class = groq.DefaultAioHttpClient

    def _make_client(self, **options: Any) -> groq.AsyncGroq:
        return groq.AsyncGroq(**options)

    def _create_kwargs(self, request: ChatRequest) -> dict[str, Any]:
        return create_kwargs(request, self.default_model)


def create_kwargs(request: ChatRequest, default_model: str = DEFAULT_MODEL) -> dict[str, Any]:
    """A request's keyword arguments besides the model and messages: the same for a stream and
    for a line of a Batch API job (fastdesk.providers.batch_api)."""
    kwargs: dict[str, Any] = {"temperature": request.temperature}
    if request.max_tokens is not None:
        kwargs["max_completion_tokens"] = request.max_tokens
    if request.reasoning_off:
        family = reasoning_family(request.model or default_model)
        if family == "qwen3":
            kwargs["reasoning_effort"] = "none"
        elif family == "gpt-oss":
            # gpt-oss cannot stop reasoning; "low" keeps it short, and it arrives in
            # delta.reasoning (default format), which we never show.
            kwargs["reasoning_effort"] = "low"
    if request.json_schema is not None and strict_schema(request.model or default_model):
        kwargs["response_format"] = schema_format(request.json_schema)
    return kwargs


def strict_schema(model: str) -> bool:
    """Whether Groq holds ``model``'s answer to a JSON schema, strictly: its structured outputs
    with ``strict: true`` are for the gpt-oss models (console.groq.com/docs/structured-outputs,
    read 2026-12-06); the others' answers are validated as any answer is."""
    return reasoning_family(model) == "gpt-oss"
