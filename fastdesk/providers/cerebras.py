"""Cerebras through the official ``cerebras-cloud-sdk`` (AsyncCerebras).

The SDK is built with ``warm_tcp_connection=False`` (its warm-up is a blocking GET inside the
event loop) and an HTTP/1.1 client (its default HTTP/2 leaks streams on early close). Usage and
``time_info`` come in the last chunk, which may have ``choices: []`` (the shared SSE reader in
``_common`` guards that); ``max_completion_tokens`` is always set because Cerebras books it
against the token quota up front.
"""

from __future__ import annotations

from typing import Any

from cerebras.cloud.sdk import AsyncCerebras

from fastdesk.providers._common import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_MAX_RETRIES,
    DEFAULT_READ_TIMEOUT,
    SdkProvider,
    default_max_tokens,
    make_http_client,
    make_timeout,
    reasoning_family,
)
from fastdesk.providers.base import ChatRequest

DEFAULT_BASE_URL = "https://api.cerebras.ai"
DEFAULT_MODEL = "gpt-oss-120b"  # llama3.1-8b is being retired; gpt-oss-120b is ~3000 t/s


class CerebrasProvider(SdkProvider):
    """Cerebras' OpenAI-style API. ``base_url`` is the bare host (the SDK adds ``/v1``)."""

    name = "cerebras"

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
        client = AsyncCerebras(
            api_key=api_key,
            base_url=base_url or DEFAULT_BASE_URL,
            timeout=limits,
            max_retries=max_retries,
            http_client=http,
            warm_tcp_connection=False,
        )
        super().__init__(api_key=api_key, http=http, client=client, read_timeout=timeout)
        self.default_model = default_model

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
        return kwargs
