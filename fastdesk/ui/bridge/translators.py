"""What the engine worker runs: a live translator (the document's, or a second pane's), and the
app's own engine and translator when the window is given no others (and the engine's closing).

The factories import the engine and its SDKs when called, in the worker thread: not at start-up.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Protocol

from fastdesk.clock import Clock
from fastdesk.document.blocks import Document
from fastdesk.translate.events import Emit
from fastdesk.ui.bridge.tasks import bounded

if TYPE_CHECKING:
    from fastdesk.config.settings import Settings
    from fastdesk.translate.engine import Engine
    from fastdesk.translate.job import JobSpec
    from fastdesk.translate.live import LiveTranslator


class Translator(Protocol):
    """What the worker asks of its live translator: :class:`fastdesk.translate.live.LiveTranslator`,
    or a stand-in that behaves as one (tests). Every call runs in the worker thread."""

    @property
    def doc(self) -> Document | None: ...
    @property
    def busy(self) -> bool: ...
    def update(self, source: str, revision: int) -> None: ...
    def set_spec(self, spec: JobSpec) -> None: ...
    def retranslate(self, block_ids: Collection[str]) -> None: ...
    def set_view(self, first_line: int, last_line: int) -> None: ...
    def expand(self, block_id: str) -> None: ...
    async def aclose(self) -> None: ...


# The window's requests in flight follow the account (routing/concurrency.py) up to this many
# when the settings set no cap: its engine thread shares the GIL with the window, and a reader
# edits meanwhile. On a 4,000-block document (bench_window_fill, one run each): up to 32, 31.4 s
# to fill and an edit shown 3.0 s after its last key (load ~5); up to 16, 22.8 s and 2.5 s
# (load ~3); up to 8, 28.1 s and 3.0 s (load ~5; 28.7 s and 1.5 s in another run).
WINDOW_CONCURRENCY = 16


def default_engine_factory(
    clock: Clock | None = None, settings: Callable[[], Settings] | None = None
) -> Engine:
    """The app's engine, from the settings and the environment, on ``clock`` (the window's: see
    fastdesk.ui.bridge.worker). ``settings``: the window's copy, read when the engine is built
    (the settings file when not given); its ``concurrency`` caps the requests in flight (else
    ``WINDOW_CONCURRENCY``). Built in the worker thread: importing the SDKs and constructing
    clients can take a while."""
    from fastdesk.config.settings import saved_settings
    from fastdesk.translate.wiring import build_engine

    chosen = settings() if settings is not None else saved_settings()
    cap = chosen.concurrency or WINDOW_CONCURRENCY
    return build_engine(chosen, clock=clock, concurrency=cap)


async def close_engine(engine: Engine) -> None:
    """The engine's connections and its memory closed (the worker shuts down)."""
    await bounded(engine.router.aclose(), 0.3)
    if engine.memory is not None:
        with contextlib.suppress(Exception):
            engine.memory.close()


def default_translator_factory(engine: Engine, spec: JobSpec, emit: Emit) -> LiveTranslator:
    from fastdesk.translate.live import LiveTranslator

    return LiveTranslator(engine, spec, emit)
