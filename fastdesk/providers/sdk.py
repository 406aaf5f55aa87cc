"""What the two SDK-based adapters (Groq, Cerebras) share, and the request details all three
adapters read (the model's reasoning family, the prompt's last text, the answer's token budget).

**No SDK retries** (``max_retries=0`` by default). The SDKs would sleep up to 60 s on a
``retry-after`` before retrying the same provider; the router above us can fall back to another
provider at once and knows ``retry_after`` from :class:`RateLimitedError`.

The rest of what the adapters share has a module each: the HTTP client (``http_client``), the
error mapping (``errors``), the headers' waits and rate limits (``headers``), and the stream
reader (``sse``).
"""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import AsyncIterator, Mapping
from typing import Any, NoReturn

import httpx
from httpx_aiohttp import HttpxAiohttpClient

from fastdesk.config.redact import account_id
from fastdesk.providers.base import (
    ChatRequest,
    ModelInfo,
    StreamEvent,
    estimate_tokens,
)
from fastdesk.providers.errors import map_exception, raise_provider_error
from fastdesk.providers.headers import parse_rate_limits
from fastdesk.providers.http_client import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_READ_TIMEOUT,
    make_http_client,
    make_timeout,
)
from fastdesk.providers.sse import pluck, stream_events

DEFAULT_MAX_RETRIES = 0


def schema_format(json_schema: Mapping[str, Any]) -> dict[str, Any]:
    """A named JSON schema ({"name", "schema"}) as the ``response_format`` of a strict
    structured output, in the form Groq and Cerebras share: the model is held to the schema by
    constrained decoding (console.groq.com/docs/structured-outputs;
    inference-docs.cerebras.ai/capabilities/structured-outputs, read 2026-12-07)."""
    return {"type": "json_schema", "json_schema": {**json_schema, "strict": True}}


# ---- request details ---------------------------------------------------------------------------

_QWEN3 = re.compile(r"qwen-?3")


def reasoning_family(model: str) -> str | None:
    """``qwen3``, ``gpt-oss``, ``glm`` or None: how a model's thinking can be turned down."""
    lowered = model.lower()
    if "gpt-oss" in lowered:
        return "gpt-oss"
    if _QWEN3.search(lowered) and "instruct" not in lowered:
        return "qwen3"
    if "glm" in lowered:
        return "glm"
    return None


def last_user_text(request: ChatRequest) -> str:
    for message in reversed(request.messages):
        if message.get("role") == "user":
            return str(message.get("content") or "")
    return ""


REASONING_ALLOWANCE = 256  # what gpt-oss (effort "low") or Qwen3 think before answering
MAX_COMPLETION_TOKENS = 16384


def completion_budget(source_tokens: int, model: str) -> int:
    """The completion tokens to ask for an answer to ``source_tokens`` of text: a translation is
    about as long as its source (up to ~1.5× in wordier languages), plus a little, plus what a
    reasoning model thinks first. Kept near the need because Cerebras books all of
    ``max_completion_tokens`` against tokens/minute up front (inference-docs.cerebras.ai), and a
    budget 3× too big let a free tier's minute serve a third of the requests it could. An answer
    cut by it (finish_reason "length") is asked again with more, not failed."""
    budget = math.ceil(1.5 * max(0, source_tokens)) + 64
    if reasoning_family(model) is not None:
        budget += REASONING_ALLOWANCE
    return min(budget, MAX_COMPLETION_TOKENS)


def default_max_tokens(request: ChatRequest) -> int:
    """A completion budget when the caller gave none (at least 512, since nothing says what
    the answer is for: the engine always gives its own)."""
    answer = max(512, completion_budget(estimate_tokens(last_user_text(request)), ""))
    thinking = REASONING_ALLOWANCE if reasoning_family(request.model) is not None else 0
    return min(answer + thinking, MAX_COMPLETION_TOKENS)


# ---- the SDK adapters' common part ------------------------------------------------------------


class SdkProvider:
    """Streaming and model listing over a Stainless SDK client (AsyncGroq, AsyncCerebras).

    The SDK builds and sends the request (auth, headers, status errors); the body is read here
    from the raw ``httpx.Response``, not through the SDK's stream object: cerebras-cloud-sdk
    closes the response right after ``[DONE]`` without reading the end of the chunked body, so
    its connection is never reused (measured: one new connection per request).

    Subclasses name their SDK client (:meth:`_make_client`, given the options both SDKs take) and
    its ``DefaultAioHttpClient`` (``http_client_class``), their default host and model, and turn a
    request into keyword arguments (:meth:`_create_kwargs`): that is where the providers really
    differ.
    """

    name = "sdk"
    default_base_url = ""
    default_model = ""
    http_client_class: type[httpx.AsyncClient] = HttpxAiohttpClient

    def __init__(
        self,
        api_key: str,
        base_url: str | None = None,
        default_model: str | None = None,
        timeout: float = DEFAULT_READ_TIMEOUT,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
    ) -> None:
        """``base_url`` is the bare host; ``default_model`` None means the class's default."""
        limits = make_timeout(timeout, connect_timeout)
        self._secrets = (api_key,)
        self.account = account_id(api_key)  # whose rate limits (a hash: never the key)
        self._http = make_http_client(limits, client_class=self.http_client_class)
        self._client = self._make_client(
            api_key=api_key,
            base_url=base_url or self.default_base_url,
            timeout=limits,
            max_retries=max_retries,
            http_client=self._http,
        )
        # The SDKs import their chat resources on first use (~30 ms of modules and pydantic
        # models): here, not inside the first request, whose time to first token the router
        # records and ranks providers by (it read ~50 ms slow in every new process).
        self._completions = self._client.chat.completions.with_raw_response
        self._read_timeout = timeout
        self.default_model = self.default_model if default_model is None else default_model
        # models whose requests a 400 refused for their schema: asked without it from then on
        self._schema_refused: set[str] = set()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} default_model={self.default_model!r}>"

    def _make_client(self, **options: Any) -> Any:
        """The SDK's async client, built with our HTTP client, timeouts and retries."""
        raise NotImplementedError

    def _create_kwargs(self, request: ChatRequest) -> dict[str, Any]:
        raise NotImplementedError

    def _raise(self, exc: BaseException) -> NoReturn:
        raise_provider_error(self.name, exc, secrets=self._secrets, read_timeout=self._read_timeout)

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        """Stream one answer; the HTTP response is closed however the caller stops. A request
        whose answer's schema the server refuses (a 400 naming it) is sent again without it,
        and so are the model's later ones: the caller validates the answer as any other."""
        model = request.model or self.default_model
        response: httpx.Response | None = None
        try:
            try:
                raw = None
                while raw is None:
                    kwargs = self._create_kwargs(request)
                    if model in self._schema_refused:
                        kwargs.pop("response_format", None)
                    kwargs.update(model=model, messages=list(request.messages), stream=True)
                    try:
                        raw = await self._completions.create(**kwargs)
                    except Exception as exc:
                        if "response_format" not in kwargs or not self._refused_schema(exc):
                            raise
                        self._schema_refused.add(model)
                response = raw.http_response
                limits = parse_rate_limits(response.headers)
                if limits is not None:
                    yield limits
                async for event in stream_events(self.name, response, self._secrets):
                    yield event
            except Exception as exc:
                self._raise(exc)
        finally:
            if response is not None:
                await response.aclose()

    def _refused_schema(self, exc: BaseException) -> bool:
        """A 400 about the structured output (a model or a mode the provider does not hold to
        a schema)."""
        error = map_exception(self.name, exc, secrets=self._secrets)
        text = error.message.lower()
        named = ("response_format", "schema", "strict")
        return error.status == 400 and any(word in text for word in named)

    async def list_models(self) -> list[ModelInfo]:
        try:
            page = await self._client.models.list()
        except Exception as exc:
            self._raise(exc)
        return [model_info(item) for item in (pluck(page, "data") or ())]

    async def aclose(self) -> None:
        with contextlib.suppress(Exception):
            await self._client.close()
        await self._http.aclose()


def model_info(item: Any) -> ModelInfo:
    """A :class:`ModelInfo` from one ``/models`` entry (SDK object or dict)."""
    context = None
    for name in ("context_window", "context_length", "max_model_len"):
        value = pluck(item, name)
        if isinstance(value, int):
            context = value
            break
    if context is None:
        value = pluck(item, "meta", "n_ctx_train")  # llama.cpp
        context = value if isinstance(value, int) else None
    owned_by = pluck(item, "owned_by")
    return ModelInfo(
        id=str(pluck(item, "id")),
        context_length=context,
        owned_by=owned_by if isinstance(owned_by, str) else None,
    )
