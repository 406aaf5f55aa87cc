"""Cerebras through the official ``cerebras-cloud-sdk`` (AsyncCerebras).

The SDK is built with ``warm_tcp_connection=False`` (its warm-up is a blocking GET inside the
event loop) and its ``DefaultAioHttpClient``, HTTP/1.1 (its default HTTP/2 leaks streams on early
close). Usage and ``time_info`` come in the last chunk, which may have ``choices: []`` (the
shared SSE reader in ``sse`` guards that); ``max_completion_tokens`` is always set because
Cerebras books it against the token quota up front.

An answer's JSON schema (the reviewer's MQM verdicts) is asked for as a strict structured
output on every model: Cerebras documents structured outputs for the models of its inference API
with no list of exceptions, held by constrained decoding, within limits the schemas asked for
keep (every property required, ``additionalProperties: false``, no ``"type": [...]`` shorthand,
``anyOf`` of at most 5, no ``items: true``; inference-docs.cerebras.ai/capabilities/
structured-outputs, read 2026-12-07). A model or mode that refuses it with a 400 is asked
without it from then on (``sdk.SdkProvider.stream``), and its answers validated as any other.
"""

from __future__ import annotations

from typing import Any

from cerebras.cloud.sdk import AsyncCerebras, DefaultAioHttpClient

from fastdesk.providers.base import ChatRequest
from fastdesk.providers.sdk import (
    SdkProvider,
    default_max_tokens,
    reasoning_family,
    schema_format,
)

DEFAULT_BASE_URL = "https://api.cerebras.ai"
DEFAULT_MODEL = "gpt-oss-120b"  # llama3.1-8b is being retired; gpt-oss-120b is ~3000 t/s


class CerebrasProvider(SdkProvider):
    """Cerebras' OpenAI-style API. ``base_url`` is the bare host (the SDK adds ``/v1``)."""

    name = "cerebras"
    default_base_url = DEFAULT_BASE_URL
    default_model = DEFAULT_MODEL
    http_client_class = DefaultAioHttpClient

    def _make_client(self, **options: Any) -> AsyncCerebras:
        # Its TCP warm-up is a blocking GET run inside the event loop (up to 4 s): skip it.
        return AsyncCerebras(**options, warm_tcp_connection=False)

    def _create_kwargs(self, request: ChatRequest) -> dict[str, Any]:
        max_tokens = request.max_tokens or default_max_tokens(request)
        kwargs: dict[str, Any] = {
            "temperature": request.temperature,
            "max_completion_tokens": max_tokens,
        }
        if request.reasoning_off:
            family = reasoning_family(request.model or self.default_model)
            if family in ("qwen3", "glm"):
                kwargs["reasoning_effort"] = "none"
            elif family == "gpt-oss":
                kwargs["reasoning_effort"] = "low"  # the lowest gpt-oss accepts
        if request.json_schema is not None:
            kwargs["response_format"] = schema_format(request.json_schema)
        return kwargs
