"""Honest usage and cost: the server's own cost wins, a remote OpenAI-compatible server is not
free, no usage means null totals, stream_options only where accepted, tokens/s never from one
read."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from fastdesk.cli.main import run
from fastdesk.providers.base import Timing
from fastdesk.providers.http_client import is_local_url
from fastdesk.providers.openai_compat import OpenAICompatProvider
from fastdesk.providers.sse import usage_from
from fastdesk.routing.pricing import PriceTable
from fastdesk.routing.router import AttemptDone, Router
from fastdesk.routing.stats import StatsStore
from tests.emulator import Emulator, Fault

MESSAGES = [{"role": "user", "content": "Hello there, a sentence."}]


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("http://127.0.0.1:11434/v1", True),
        ("http://localhost:8080/v1", True),
        ("http://192.168.1.20:1234/v1", True),
        ("http://gpu-box:8000/v1", True),
        ("http://[::1]:8000/v1", True),
        ("https://litellm.example.com/v1", False),
        ("https://8.8.8.8/v1", False),
    ],
)
def test_local_servers_are_this_machine_or_the_lan(url: str, local: bool) -> None:
    assert is_local_url(url) is local
    assert (PriceTable().cost("openai", "some-model", 100, 100, local=local) == 0) is local


def test_the_servers_own_cost_wins() -> None:
    usage = usage_from({"prompt_tokens": 10, "completion_tokens": 5, "cost": 0.00042})
    assert usage is not None and usage.cost_usd == pytest.approx(0.00042)


def one_request(provider: OpenAICompatProvider) -> AttemptDone:
    async def go() -> AttemptDone:
        router = Router({"openai": provider}, stats=StatsStore.memory())
        try:
            dones = [ev async for ev in router.stream(MESSAGES) if isinstance(ev, AttemptDone)]
        finally:
            await router.aclose()
        return dones[-1]

    return asyncio.run(go())


def test_a_server_that_refuses_stream_options_is_asked_again_without() -> None:
    with Emulator() as emu:
        body = {"error": {"message": "Unrecognized request argument: stream_options"}}
        emu.inject(Fault("status", status=400, body=body))
        done = one_request(OpenAICompatProvider(emu.openai_base_url, default_model="local-model"))
        bodies = [r.body for r in emu.chat_requests]
    assert done.stats.status == "ok"
    assert "stream_options" in bodies[0] and "stream_options" not in bodies[1]


def test_tokens_per_second_is_never_computed_from_one_read() -> None:
    timing = Timing(started=0.0, ttfb_ms=100.0, total_ms=101.0)
    assert timing.tokens_per_second(500) is None
    assert Timing(started=0.0, ttfb_ms=100.0, total_ms=1100.0).tokens_per_second(500) == 500


def test_no_usage_reported_gives_null_totals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fastdesk.config.settings import Settings, save_settings

    save_settings(Settings(target_language="en"))
    with Emulator() as emu:
        monkeypatch.setenv("FASTDESK_OPENAI_BASE_URL", emu.openai_base_url)
        monkeypatch.setenv("FASTDESK_OPENAI_MODEL", "local-model")
        body = {"error": {"message": "Unrecognized request argument: stream_options"}}
        emu.inject(Fault("status", status=400, body=body))  # so no usage comes back
        src = tmp_path / "a.md"
        src.write_text("Hello.\n")
        report = tmp_path / "r.json"
        assert (
            run(["translate", str(src), "-o", str(tmp_path / "o.md"), "--report", str(report)]) == 0
        )
    totals = json.loads(report.read_text())["totals"]
    assert totals["prompt_tokens"] is None and totals["completion_tokens"] is None
