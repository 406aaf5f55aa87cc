"""The engine worker's own tasks on its loop (warm-ups, back-translations, a pane's translator
closing, the shutdown): held until done, since the loop keeps only weak references to them; and
the steps of a shutdown, each bounded in time."""

from __future__ import annotations

import asyncio
import logging
import time
import traceback
from collections.abc import Awaitable
from typing import Any, TypeVar

log = logging.getLogger("fastdesk.ui")

T = TypeVar("T")


class Tasks:
    """Tasks held until they are done. Loop thread only."""

    def __init__(self) -> None:
        self._held: set[asyncio.Future[Any]] = set()

    def keep(self, task: asyncio.Future[T]) -> asyncio.Future[T]:
        self._held.add(task)
        task.add_done_callback(self._held.discard)
        return task


async def bounded(awaitable: Awaitable[None], timeout: float) -> None:
    """A shutdown step: what it did not finish within ``timeout`` is left (and logged)."""
    started = time.monotonic()
    try:
        await asyncio.wait_for(awaitable, timeout)
    except (TimeoutError, asyncio.CancelledError):
        log.warning("shutdown step took over %.1f s; moving on", time.monotonic() - started)
    except Exception:
        log.exception("shutdown step failed")


def detail(exc: BaseException) -> str:
    """The exception's type and message, as the details of what the window says of it."""
    return "".join(traceback.format_exception_only(type(exc), exc)).strip()
