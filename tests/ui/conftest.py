"""UI tests: offscreen Qt, a fake provider behind the real engine, one window per test."""

from __future__ import annotations

import os
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before anything imports Qt

from collections.abc import Callable, Iterator

import pytest

from tests.ui.uifakes import WordProvider, make_engine_factory


@pytest.fixture(scope="session")
def qapp_cls() -> type:
    """pytest-qt's QApplication is the app's own class, as in fastdesk.ui.app.run_app."""
    from fastdesk.ui.app import FastdeskApp

    return FastdeskApp


@pytest.fixture
def provider() -> WordProvider:
    return WordProvider()


@pytest.fixture
def make_window(qtbot, provider: WordProvider) -> Iterator[Callable[..., object]]:
    """MainWindow on the fake provider; every window is closed (edits discarded) at the end."""
    from fastdesk.config.settings import Settings
    from fastdesk.ui import MainWindow

    windows: list[MainWindow] = []

    def make(
        *,
        memory: bool = False,
        settings: Settings | None = None,
        router_kw: dict[str, object] | None = None,
        **kw: Any,
    ) -> MainWindow:
        # the window's clock (kw["clock"], if any) is its engine's too: one clock
        factory = kw.pop("engine_factory", None) or make_engine_factory(
            provider, memory=memory, clock=kw.get("clock"), **(router_kw or {})
        )
        window = MainWindow(
            engine_factory=factory,  # type: ignore[arg-type]
            settings=settings or Settings(debounce_ms=40),
            **kw,
        )
        window.files._ask_save = lambda: "discard"
        # the hidden pane catches up sooner, as debounce is shorter
        window.document_view.scheduler.quiet = 0.04
        qtbot.addWidget(window)
        window.show()
        windows.append(window)
        return window

    yield make
    provider.release()
    for window in windows:
        window.files._ask_save = lambda: "discard"
        window.close()
        assert not window.document_view.worker.running


# A condition waited for with qtbot.waitUntil is met as soon as it holds: its timeout only guards
# against a hang. On a loaded 2-core machine a condition met in 0.3 s when idle can take several
# seconds, so every such guard is stretched to at least HANG_GUARD_MS, and a test's own guard to
# LOAD_FACTOR times itself (a passing test waits no longer for it; a failing one fails later).
# Beside two busy processes on a machine already loaded 8 to 1, a 300-block document took over
# the 60 s its tests allowed to settle.
HANG_GUARD_MS = 30_000
LOAD_FACTOR = 3


@pytest.fixture(autouse=True)
def _hang_guards(monkeypatch: pytest.MonkeyPatch) -> None:
    from pytestqt.qtbot import QtBot

    wait_until = QtBot.waitUntil

    def guarded(self: QtBot, callback: Callable[[], bool | None], *, timeout: int = 5000) -> None:
        wait_until(self, callback, timeout=max(LOAD_FACTOR * timeout, HANG_GUARD_MS))

    monkeypatch.setattr(QtBot, "waitUntil", guarded)
