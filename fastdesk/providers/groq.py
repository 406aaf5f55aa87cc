"""Groq through the official ``groq`` SDK (AsyncGroq), adapted to :mod:`fastdesk.providers.base`.

Usage and server timings come only in the final chunk, under ``x_groq.usage``; rate-limit
headers are read from the raw response before its body is parsed.
"""

from __future__ import annotations

from typing import Any

import groq

from fastdesk.providers._common import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_MAX_RETRIES,
    DEFAULT_READ_TIMEOUT,
    SdkProvider,
    make_http_client,
    make_timeout,
    reasoning_family,
)
from fastdesk.providers.base import ChatRequest

DEFAULT_BASE_URL = "https://api.groq.com"
DEFAULT_MODEL = "llama-3.1-8b-instant"


class GroqProvider(SdkProvider):
    """Groq's OpenAI-style API. ``base_url`` is the bare host (the SDK adds ``/openai/v1``)."""

    name = "groq"

    def __init__(
        self,
        api_key: str,
        base_url: str | None = None,
        default_model: str = DEFAULT_MODEL,
        timeout: float = DEFAULT_READ_TIMEOUT,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
    ) -> None:
        limits = make_timeout(timeout, connect_timeout)
        http = make_http_client(limits)
        client = groq.AsyncGroq(
            api_key=api_key,
            base_url=base_url or DEFAULT_BASE_URL,
            timeout=limits,
            max_retries=max_retries,
            http_client=http,
        )
        super().__init__(api_key=api_key, http=http, client=client, read_timeout=timeout)
        self.default_model = default_model

    def _create_kwargs(self, request: ChatRequest) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"temperature": request.temperature}
        if request.max_tokens is not None:
            kwargs["max_completion_tokens"] = request.max_tokens
        if request.reasoning_off:
            family = reasoning_family(request.model or self.default_model)
            if family == "qwen3":
                kwargs["reasoning_effort"] = "none"
            elif family == "gpt-oss":
                # gpt-oss cannot stop reasoning; "low" keeps it short, and it arrives in
                # delta.reasoning (default format), which we never show.
                kwargs["reasoning_effort"] = "low"
        return kwargs
