"""The first-run panel (offscreen): when it is needed, Ollama detection in the background (the
emulator's OpenAI-compatible prefix stands in for Ollama), "Use it" saving the choice, and the
button that opens the Settings dialog."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import keyring
import keyring.core
import pytest
from keyring.backends import fail
from PySide6.QtCore import Qt

from fastdesk.config import redact
from fastdesk.config.settings import Settings, load_settings, save_settings
from fastdesk.ui.window.first_run import FirstRunPanel, needs_first_run
from tests.emulator import Emulator
from tests.keyrings import MemoryKeyring
from tests.test_local_servers import TinyServer


@pytest.fixture(autouse=True)
def restore_keyring() -> Iterator[None]:
    previous = keyring.core._keyring_backend
    keyring.set_keyring(fail.Keyring())
    yield
    keyring.core._keyring_backend = previous
    redact.clear_secrets()


@pytest.fixture
def make_panel(qtbot) -> Iterator:
    panels: list[FirstRunPanel] = []

    def make(base: str, **kw: Any) -> FirstRunPanel:
        panel = FirstRunPanel(ollama_base=base, **kw)
        qtbot.addWidget(panel)
        panels.append(panel)
        return panel

    yield make
    for panel in panels:
        panel.shutdown()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_needs_first_run(monkeypatch) -> None:
    assert needs_first_run(Settings())
    monkeypatch.setenv("GROQ_API_KEY", "gsk_FIRSTRUNTEST_0123456789_abcd")
    assert not needs_first_run(Settings())
    monkeypatch.delenv("GROQ_API_KEY")
    assert not needs_first_run(Settings(base_urls={"openai": "http://127.0.0.1:11434/v1"}))
    memory = MemoryKeyring()
    keyring.set_keyring(memory)
    assert needs_first_run(Settings())
    memory.items[("fastdesk", "cerebras")] = "csk-firstruntest_0123456789_abcd"
    assert not needs_first_run(Settings())
    save_settings(Settings(base_urls={"openai": "http://h/v1"}))
    memory.items.clear()
    assert not needs_first_run()  # reads the settings file


def test_detects_a_local_server_and_uses_it(make_panel, qtbot) -> None:
    with Emulator(models={"openai": ["qwen3:8b", "llama3.2:latest"]}) as emu:
        base = f"{emu.url}/compat"
        save_settings(Settings(target_language="de"))
        panel = make_panel(base, timeout=30.0)  # (a loaded machine must not miss the server)
        panel.show()  # detection starts; showing returns at once:
        # the outcome can only arrive through the event loop, which has not run yet, so a
        # show() that waited for it would have ended the detection
        assert panel.detecting
        assert panel.local_status.text().startswith("Looking for Ollama on")
        qtbot.waitUntil(lambda: not panel.detecting, timeout=3000)
        assert panel.models == ["qwen3:8b", "llama3.2:latest"]
        assert "is running on" in panel.local_status.text()
        assert panel.use_button.isVisible() and panel.model_combo.isVisible()
        assert [panel.model_combo.itemText(i) for i in range(panel.model_combo.count())] == [
            "qwen3:8b",
            "llama3.2:latest",
        ]
        panel.model_combo.setCurrentIndex(1)
        with (
            qtbot.waitSignal(panel.localServerChosen) as chosen,
            qtbot.waitSignal(panel.settingsSaved) as told,
        ):
            qtbot.mouseClick(panel.use_button, Qt.MouseButton.LeftButton)
        assert chosen.args == [f"{base}/v1", "llama3.2:latest"]
    saved = load_settings()[0]
    assert told.args == [saved]  # the window follows these, not the file read again
    assert saved.base_urls == {"openai": f"{base}/v1"}
    assert saved.models == {"openai": "llama3.2:latest"}
    assert saved.target_language == "de"  # the rest kept
    assert not needs_first_run(saved)


def test_nothing_found_offers_to_look_again(make_panel, qtbot) -> None:
    panel = make_panel(f"http://127.0.0.1:{free_port()}", timeout=30.0)  # (refused at once)
    panel.show()
    qtbot.waitUntil(lambda: not panel.detecting, timeout=3000)
    assert panel.models is None
    assert panel.local_status.text().startswith("No Ollama found on 127.0.0.1:")
    assert "Settings" in panel.local_status.text()
    assert not panel.use_button.isVisible()
    assert panel.again_button.isVisible()
    with Emulator(models={"openai": ["gemma3:4b"]}) as emu:  # now a server is there
        panel.ollama_base = f"{emu.url}/compat"
        qtbot.mouseClick(panel.again_button, Qt.MouseButton.LeftButton)
        assert panel.detecting and not panel.again_button.isVisible()
        qtbot.waitUntil(lambda: not panel.detecting, timeout=3000)
    assert panel.models == ["gemma3:4b"]
    assert "with 1 model." in panel.local_status.text()


def test_server_without_models_says_pull_one(make_panel, qtbot) -> None:
    with TinyServer({"/api/tags": (200, {"models": []})}) as ollama:
        panel = make_panel(ollama.url, timeout=30.0)  # (a loaded machine must not miss it)
        panel.show()
        qtbot.waitUntil(lambda: not panel.detecting, timeout=3000)
    assert panel.models == []
    assert "has no model yet" in panel.local_status.text()
    assert "ollama pull" in panel.local_status.text()
    assert not panel.use_button.isVisible()


def test_silent_server_does_not_block(make_panel, qtbot) -> None:
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(4)
        panel = make_panel(f"http://127.0.0.1:{silent.getsockname()[1]}", timeout=0.2)
        panel.show()
        # show() returned with the detection still running (its end comes through the event
        # loop, not yet run): it did not wait for a server that never answers
        assert panel.detecting
        qtbot.waitUntil(lambda: not panel.detecting, timeout=10_000)  # the timeout holds
    assert panel.models is None


def test_hiding_stops_detection(make_panel, qtbot) -> None:
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(4)
        panel = make_panel(f"http://127.0.0.1:{silent.getsockname()[1]}", timeout=5.0)
        panel.show()
        assert panel.detecting
        panel.hide()
        assert not panel.detecting
        assert not panel.runner.busy


def test_add_key_opens_settings(make_panel, qtbot) -> None:
    panel = make_panel(f"http://127.0.0.1:{free_port()}")
    panel.show()
    with qtbot.waitSignal(panel.openSettingsRequested):
        qtbot.mouseClick(panel.add_key_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not panel.detecting, timeout=3000)


def test_the_apps_engine_is_built_from_the_settings_it_is_handed(monkeypatch) -> None:
    """The window hands the engine its own copy of the settings (a local server saved a moment
    ago in it, none in the file): the engine is not built from the file read again."""
    import asyncio

    from fastdesk.ui.bridge.translators import close_engine, default_engine_factory

    assert needs_first_run()  # nothing in the file, no key
    local = Settings(base_urls={"openai": "http://127.0.0.1:9/v1"}, models={"openai": "m"})
    engine = default_engine_factory(None, lambda: local)
    try:
        assert set(engine.router.providers) == {"openai"}
    finally:
        asyncio.run(close_engine(engine))
