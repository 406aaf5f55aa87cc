"""A fake provider that "translates" with word lists, so UI tests can tell languages and modes
apart, and can hold its answers back to test streaming, stale results and closing."""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from fastdesk.providers.base import (
    ChatRequest,
    ModelInfo,
    ProviderError,
    StreamEnd,
    StreamEvent,
    TextDelta,
    Usage,
)

WORDS: dict[str, dict[str, str]] = {
    "fr": {"Hello": "Bonjour", "world": "monde", "cat": "chat", "Goodbye": "Au revoir"},
    "de": {"Hello": "Hallo", "world": "Welt", "cat": "Katze", "Goodbye": "Tschüss"},
    "simplify": {"utilize": "use", "commence": "start", "Hello": "Hi"},
}
_LANG = re.compile(r"into [^()]+ \(([A-Za-z0-9-]+)\)")


def fake_answer(request: ChatRequest) -> str:
    system = request.messages[0]["content"]
    text = [m for m in request.messages if m["role"] == "user"][-1]["content"]
    if "plain language" in system:
        table = WORDS["simplify"]
    else:
        found = _LANG.search(system)
        table = WORDS.get((found.group(1) if found else "fr").split("-")[0], {})
    for word, replacement in table.items():
        text = re.sub(rf"\b{re.escape(word)}\b", replacement, text)
    return text


def translated(text: str, lang: str = "fr") -> str:
    """What the fake answers for `text` (for expectations in tests)."""
    for word, replacement in WORDS[lang].items():
        text = re.sub(rf"\b{re.escape(word)}\b", replacement, text)
    return text


@dataclass
class WordProvider:
    name: str = "groq"
    default_model: str = "fake-model"
    chunk: int = 5
    hold: threading.Event | None = None  # when given, answers wait until it is set
    fail_with: ProviderError | None = None
    requests: list[ChatRequest] = field(default_factory=list)
    started: threading.Event = field(default_factory=threading.Event)
    answer: Callable[[ChatRequest], str] = fake_answer

    def hold_answers(self) -> None:
        self.hold = threading.Event()

    def release(self) -> None:
        if self.hold is not None:
            self.hold.set()

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        self.requests.append(request)
        self.started.set()
        while self.hold is not None and not self.hold.is_set():
            await asyncio.sleep(0.002)
        if self.fail_with is not None:
            raise self.fail_with
        text = self.answer(request)
        for i in range(0, max(len(text), 1), self.chunk):
            yield TextDelta(text[i : i + self.chunk])
            await asyncio.sleep(0)
        yield Usage(prompt_tokens=50, completion_tokens=len(text) // 4 + 1)
        yield StreamEnd("stop")

    async def list_models(self) -> list[ModelInfo]:
        return [ModelInfo(self.default_model)]

    async def aclose(self) -> None:
        return None


def make_engine_factory(
    provider: WordProvider, *, memory: bool = False, **router_kw: Any
) -> Callable[[], object]:
    """``router_kw``: the Router's own arguments (a Health on a test clock, a retry policy; its
    ``clock`` must be the window's)."""

    def factory() -> object:
        from fastdesk.routing.router import Router
        from fastdesk.translate.engine import Engine
        from fastdesk.translate.memory import Memory

        router = Router({provider.name: provider}, **router_kw)
        return Engine(router, Memory() if memory else None)

    return factory


def answer_box(window, name: str, button: str, seen: list[str]) -> None:  # type: ignore[no-untyped-def]
    """Click ``button`` of the question box named ``name`` once it shows (it runs its own event
    loop, so a timer answers it), noting its text in ``seen``."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QMessageBox

    timer = QTimer(window)
    timer.setInterval(10)

    def poll() -> None:
        shown = [b for b in window.findChildren(QMessageBox, name) if b.isVisible()]
        if shown:
            timer.stop()
            seen.append(shown[0].text())
            next(b for b in shown[0].buttons() if b.text().replace("&", "") == button).click()

    timer.timeout.connect(poll)
    timer.start()


def round_trip(qtbot, view) -> None:  # type: ignore[no-untyped-def]
    """Send the source again (unchanged) and wait for its answer with nothing in flight.

    The engine thread takes the view's calls in order and answers an update only once its
    sessions (the second panes' too) are not busy, so whatever the calls before it were to send
    has gone by then (an update's requests leave before its answer: tests/ui/test_worker.py).
    After it, "nothing was sent" is a fact, not what a fixed wait happened to see."""
    said: list[bool] = []
    slot = said.append
    view.busy.connect(slot)
    try:
        view.send_update(force=True)
        qtbot.waitUntil(lambda: said[-1:] == [False])
    finally:
        view.busy.disconnect(slot)
