"""Shared test set-up: every test gets its own FASTDESK_HOME and no real provider settings."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.emulator import Emulator

# Qt must never look for a display in the tests (ui tests set it too, before importing Qt).
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

PROVIDER_ENV = (
    "GROQ_API_KEY",
    "GROQ_BASE_URL",
    "CEREBRAS_API_KEY",
    "CEREBRAS_BASE_URL",
    "FASTDESK_OPENAI_BASE_URL",
    "FASTDESK_OPENAI_API_KEY",
    "FASTDESK_OPENAI_MODEL",
)


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Settings, memory, logs and stats of a test live in its own folder; no real keys leak in.

    The keyring starts as "no backend" for every test (a test that wants one sets it), and
    whatever backend or logging set-up a test installed is undone afterwards.
    """
    import keyring
    from keyring.backends import fail

    home = tmp_path / "fastdesk-home"
    monkeypatch.setenv("FASTDESK_HOME", str(home))
    for name in PROVIDER_ENV:
        monkeypatch.delenv(name, raising=False)
    previous = keyring.core._keyring_backend
    keyring.set_keyring(fail.Keyring())
    yield home
    keyring.core._keyring_backend = previous
    # a command run in-process configures logging; undo it so the next test starts clean
    # (pytest attaches its capture handlers to non-propagating loggers at test start)
    from fastdesk.config.logs import reset_logging

    reset_logging()


@pytest.fixture
def translating(monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    """A loopback Groq whose model translates every word it is sent (tests/translating.py),
    unpaced, for the commands a test runs in-process: the site and project tests' model."""
    from tests.emulator import Emulator
    from tests.project_kit import use_emulator
    from tests.translating import translate_everything

    with Emulator(answer=translate_everything) as emu:
        use_emulator(monkeypatch, emu)
        emu.configure(rate_limits=None)
        yield emu
