"""Any OpenAI-compatible server (Ollama, llama.cpp, vLLM, LM Studio), without an SDK.

One ``POST {base_url}/chat/completions`` with ``stream: true`` and
``stream_options.include_usage``, sent through the same aiohttp-backed httpx client as the SDK
adapters (``http_client.make_http_client``), its Server-Sent Events read by ``sse``.
``base_url`` ends in ``/v1``; the API key is optional (local servers rarely want one).

When no model is configured, the first one ``GET {base_url}/models`` lists is used (a local
server usually serves exactly one).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from typing import Any, NoReturn
from urllib.parse import urlsplit

import httpx

from fastdesk.providers.base import (
    BadRequestError,
    ChatRequest,
    ModelInfo,
    ProviderError,
    StreamEvent,
)
from fastdesk.providers.errors import error_fields, from_status, raise_provider_error
from fastdesk.providers.headers import parse_rate_limits
from fastdesk.providers.http_client import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_READ_TIMEOUT,
    is_local_url,
    make_http_client,
    make_timeout,
)
from fastdesk.providers.sdk import model_info, reasoning_family
from fastdesk.providers.sse import pluck, stream_events


class OpenAICompatProvider:
    """An OpenAI-style ``/v1`` server. ``default_model=""`` means "the first one it lists"."""

    name = "openai"

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        default_model: str = "",
        timeout: float = DEFAULT_READ_TIMEOUT,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.default_model = default_model
        self.local = is_local_url(self.base_url)  # free: this machine or the LAN
        self._usage_option = True  # send stream_options.include_usage (until a server refuses)
        self._read_timeout = timeout
        self._secrets = (api_key,)
        headers = {"Accept": "application/json"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        self._http = make_http_client(make_timeout(timeout, connect_timeout), headers=headers)
        self._model_lock = asyncio.Lock()

    def __repr__(self) -> str:
        return f"<OpenAICompatProvider base_url={self.base_url!r} model={self.default_model!r}>"

    # -- the protocol -----------------------------------------------------------------------

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        """Stream one answer; the response is closed however the caller stops iterating."""
        try:
            model = request.model or self.default_model or await self._auto_model()
            url = f"{self.base_url}/chat/completions"
            for _ in range(2):  # a second time only without stream_options, if it was refused
                body = self._body(request, model)
                async with self._http.stream("POST", url, json=body) as response:
                    if response.status_code >= 400:
                        error = await self._status_error(response)
                        if self._refused_usage_option(error):
                            continue
                        raise error
                    limits = parse_rate_limits(response.headers, bare_requests_per="minute")
                    if limits is not None:
                        yield limits
                    async for event in stream_events(self.name, response, self._secrets):
                        yield event
                    return
        except Exception as exc:
            self._raise(exc)

    async def list_models(self) -> list[ModelInfo]:
        try:
            response = await self._http.get(f"{self.base_url}/models")
            if response.status_code >= 400:
                raise await self._status_error(response)
            payload = response.json()
        except Exception as exc:
            self._raise(exc)
        items = payload.get("data") if isinstance(payload, Mapping) else None
        if not isinstance(items, list):  # Ollama's native shape, just in case
            items = payload.get("models") if isinstance(payload, Mapping) else None
        return [model_info(item) for item in items or () if pluck(item, "id")]

    async def aclose(self) -> None:
        await self._http.aclose()

    # -- details ----------------------------------------------------------------------------

    def _refused_usage_option(self, error: ProviderError) -> bool:
        """A server that rejects ``stream_options`` (some older ones): stop sending it."""
        if self._usage_option and error.status == 400 and "stream_options" in error.message:
            self._usage_option = False
            return True
        return False

    def _raise(self, exc: BaseException) -> NoReturn:
        raise_provider_error(self.name, exc, secrets=self._secrets, read_timeout=self._read_timeout)

    async def _auto_model(self) -> str:
        """The server's first model, when none is configured (a local server serves one)."""
        async with self._model_lock:
            if not self.default_model:
                try:
                    models = await self.list_models()
                except ProviderError as exc:
                    if exc.kind in ("authentication", "rate_limited", "timeout", "connection"):
                        raise
                    raise BadRequestError(
                        self.name,
                        f"no model is configured and the server's model list failed "
                        f"({exc.message}): set FASTDESK_OPENAI_MODEL",
                        status=exc.status,
                    ) from None
                if not models:
                    raise BadRequestError(
                        self.name, "the server lists no model: set FASTDESK_OPENAI_MODEL"
                    )
                self.default_model = models[0].id
        return self.default_model

    def _body(self, request: ChatRequest, model: str) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": model,
            "messages": list(request.messages),
            "stream": True,
            "temperature": request.temperature,
        }
        if self._usage_option:  # usage in the last chunk, where the server accepts it
            body["stream_options"] = {"include_usage": True}
        if request.max_tokens is not None:
            body["max_tokens"] = request.max_tokens
        if request.reasoning_off and reasoning_family(model) == "qwen3":
            # vLLM and llama.cpp pass this to the chat template; others ignore unknown fields.
            body["chat_template_kwargs"] = {"enable_thinking": False}
        return body

    async def _status_error(self, response: httpx.Response) -> ProviderError:
        await response.aread()
        try:
            payload: Any = response.json()
        except ValueError:
            payload = response.text.strip() or None
        message, _, _ = error_fields(payload)
        error = from_status(
            self.name, response.status_code, message, response.headers, self._secrets
        )
        if response.status_code == 404 and not urlsplit(self.base_url).path.rstrip("/").endswith(
            "/v1"
        ):
            error = BadRequestError(
                self.name,
                f"{error.message} (the base URL {self.base_url} does not end in /v1: "
                "set FASTDESK_OPENAI_BASE_URL to e.g. http://127.0.0.1:11434/v1)",
                status=404,
            )
        return error
