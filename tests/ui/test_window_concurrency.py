"""The window's engine sends more requests at once while the account allows, as the command line
does (routing/concurrency.py: more while answers come back prompt and the limiter has room), up
to the settings' ``concurrency`` as ``--concurrency N`` caps the command line's (unset: the
window's own ceiling, lower than the command line's: a reader edits meanwhile)."""

from __future__ import annotations

import asyncio

import pytest

from fastdesk.config.settings import Settings
from fastdesk.routing.concurrency import START
from fastdesk.translate import wiring
from fastdesk.translate.job import JobSpec
from fastdesk.translate.live import LiveTranslator
from fastdesk.ui.bridge.translators import WINDOW_CONCURRENCY, default_engine_factory
from tests.fakes import FakeClock, FakeProvider, until

# an account whose limits leave room (a paid tier that set them off, 0: no limit)
NO_LIMITS = {"groq": {"*": {"requests_per_minute": 0, "tokens_per_minute": 0}}}
RESERVED = 1  # the slot kept for what the reader waits for (an edit, the screen)


def most_in_flight(monkeypatch: pytest.MonkeyPatch, settings: Settings) -> int:
    """The most requests the window's engine (built as the window builds it, from these
    settings) had in flight at once while it filled a long document."""
    fake = FakeProvider(delay=0.002)
    monkeypatch.setattr(wiring, "configured_providers", lambda **_kw: {"groq": fake})
    engine = default_engine_factory(FakeClock(), settings=lambda: settings)
    text = "".join(f"Paragraph {i} of a long page that nobody typed.\n\n" for i in range(3000))

    async def go() -> None:
        live = LiveTranslator(engine, JobSpec(target_lang="en", use_memory=False), lambda e: None)
        live.update(text, 1)
        await until(lambda: not live.busy)
        await live.aclose()

    asyncio.run(go())
    return fake.max_in_flight


def test_the_window_sends_more_at_once_while_answers_come_back_and_the_account_has_room(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    most = most_in_flight(monkeypatch, Settings(rate_limits=NO_LIMITS))
    assert START + RESERVED < most <= WINDOW_CONCURRENCY + RESERVED


def test_the_settings_concurrency_caps_the_window_s_requests_in_flight(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    capped = Settings(rate_limits=NO_LIMITS, concurrency=3)
    assert most_in_flight(monkeypatch, capped) <= 3 + RESERVED
    wider = Settings(rate_limits=NO_LIMITS, concurrency=32)  # a cap over the window's own
    assert most_in_flight(monkeypatch, wider) > WINDOW_CONCURRENCY + RESERVED
