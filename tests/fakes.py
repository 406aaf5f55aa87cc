"""In-process fake providers for fast engine tests (the emulator covers the real wire formats)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

from fastdesk.providers.base import (
    ChatRequest,
    ModelInfo,
    ProviderError,
    StreamEnd,
    StreamEvent,
    TextDelta,
    Usage,
)


class FakeClock:
    """The one clock of a test, moved by hand (``clock.now += 30``): it reads ``now`` both as
    monotonic and as wall time, so the two advance together. Equal only to itself: a part on
    another clock is told apart from one on this (fastdesk.clock)."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def monotonic(self) -> float:
        return self.now

    def wall(self) -> float:
        return self.now


async def until(condition: Callable[[], object], timeout: float = 30.0) -> None:
    """Let the event loop run until ``condition()`` holds (asyncio's qtbot.waitUntil): a request
    gone out, a task started. The timeout only guards against a hang."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not condition():
        if loop.time() > end:
            raise AssertionError(f"not met within {timeout} s")
        await asyncio.sleep(0.001)


def last_user(request: ChatRequest) -> str:
    return [m for m in request.messages if m["role"] == "user"][-1]["content"]


@dataclass
class FakeProvider:
    """Answers with `answer(request)` (default: echo of the last user message), in small chunks."""

    name: str = "groq"
    default_model: str = "fake-model"
    answer: Callable[[ChatRequest], str] = last_user
    chunk: int = 7
    delay: float = 0.0
    fail: Callable[[ChatRequest, int], ProviderError | None] | None = None  # (request, chunks sent)
    requests: list[ChatRequest] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        self.requests.append(request)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.delay:
                await asyncio.sleep(self.delay)
            text = self.answer(request)
            for n, i in enumerate(range(0, max(len(text), 1), self.chunk)):
                if self.fail is not None:
                    err = self.fail(request, n)
                    if err is not None:
                        raise err
                yield TextDelta(text[i : i + self.chunk])
                await asyncio.sleep(0)
            prompt = sum(len(m["content"]) for m in request.messages) // 4
            yield Usage(prompt_tokens=prompt, completion_tokens=len(text) // 4 + 1)
            yield StreamEnd("stop")
        finally:
            self.in_flight -= 1

    async def list_models(self) -> list[ModelInfo]:
        return [ModelInfo(self.default_model)]

    async def aclose(self) -> None:
        return None


def instructions(request: ChatRequest) -> str:
    """Every message of a request but its text (the last user message): the instructions the
    run's requests share, then what this one adds (fastdesk.translate.prompts.build_messages)."""
    return "\n\n".join(str(m["content"]) for m in request.messages[:-1])
