"""`fastdesk bench` against two emulators, the Qt-free runner, and the warm-up."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from fastdesk.cli.main import run as cli_run
from fastdesk.config.settings import Settings
from fastdesk.providers.base import AuthenticationError, RequestStats
from fastdesk.routing.router import Router, options_from_settings
from fastdesk.routing.stats import StatsStore
from fastdesk.translate import bench
from fastdesk.translate.bench import BenchRow, BenchRun, format_table
from fastdesk.translate.warmup import needs_warmup, warm_up
from tests.emulator import Emulator
from tests.fakes import FakeProvider

GROQ_KEY = "gsk_benchTESTsecret_0123456789_abcdef"
CEREBRAS_KEY = "csk-benchTESTsecret_0123456789_abcdef"
DOC = """# Title

First paragraph with a [link](https://example.com) and `code`.

Second paragraph, a little longer, so that the answer streams in several chunks.

- one item
- another item
"""


@pytest.fixture
def emulators(monkeypatch: pytest.MonkeyPatch):
    """Groq answers quickly but streams slowly; Cerebras the other way round."""
    with (
        Emulator(ttfb=0.005, tokens_per_second=2000) as groq,
        Emulator(ttfb=0.03, tokens_per_second=None) as cerebras,
    ):
        monkeypatch.setenv("GROQ_API_KEY", GROQ_KEY)
        monkeypatch.setenv("GROQ_BASE_URL", groq.groq_base_url)
        monkeypatch.setenv("CEREBRAS_API_KEY", CEREBRAS_KEY)
        monkeypatch.setenv("CEREBRAS_BASE_URL", cerebras.cerebras_base_url)
        yield groq, cerebras


@pytest.fixture
def doc(tmp_path: Path) -> Path:
    path = tmp_path / "doc.md"
    path.write_text(DOC, encoding="utf-8")
    return path


def test_bench_prints_a_row_per_provider_and_model(emulators, doc, capsys) -> None:
    groq, cerebras = emulators
    # --to en: the emulators echo, and an echo of English is a translation into English only
    args = ["--runs", "2", "--model", "groq/llama-3.1-8b-instant", "--to", "en"]
    code = cli_run(["bench", str(doc), *args])
    out = capsys.readouterr().out
    assert code == 0, out
    lines = out.splitlines()
    header = next(line for line in lines if line.startswith("provider"))
    for column in ("ttfb p50", "ttfb p90", "total p50", "tok/s", "cost/run", "flags", "errors"):
        assert column in header
    rows = [line.split() for line in lines[lines.index(header) + 1 :] if line.strip()]
    assert {(r[0], r[1]) for r in rows} == {
        ("groq", "openai/gpt-oss-20b"),
        ("groq", "llama-3.1-8b-instant"),
        ("cerebras", "gpt-oss-120b"),
    }
    assert all(r[-1] == "0" and r[-2] == "0" for r in rows)  # no errors, no flags (echo)
    # 2 runs each (+ one warm-up each), memory off: every run sent its requests again
    assert len(groq.chat_requests) >= 2 * 2 + 2 and len(cerebras.chat_requests) >= 2 + 1
    assert GROQ_KEY not in out and CEREBRAS_KEY not in out


def test_bench_json_has_the_same_figures_for_scripts(emulators, doc, capsys) -> None:
    code = cli_run(["bench", str(doc), "--runs", "1", "--json", "--to", "de", "--no-warmup"])
    payload = json.loads(capsys.readouterr().out)
    assert code == 0
    assert payload["runs"] == 1 and payload["to"] == "de" and payload["mode"] == "translate"
    by_provider = {r["provider"]: r for r in payload["rows"]}
    assert set(by_provider) == {"groq", "cerebras"}
    for row in by_provider.values():
        assert row["ok_runs"] == 1 and row["errors"] == 0
        assert row["ttfb_p50_ms"] > 0 and row["total_p50_ms"] >= row["ttfb_p50_ms"]
        assert row["cost_per_run_usd"] > 0  # priced models, usage reported by the emulator
        assert all(r["status"] == "ok" for r in row["requests"])
    # each server waits its own time before the first token, so neither figure can be below it
    # (a lower bound holds on a loaded machine, where an ordering of the two did not)
    assert by_provider["groq"]["ttfb_p50_ms"] >= 5
    assert by_provider["cerebras"]["ttfb_p50_ms"] >= 30


def test_bench_reports_a_failing_provider_and_exits_1(emulators, doc, capsys) -> None:
    groq, _ = emulators
    groq.fail_status(401, times=None, message="Invalid API Key")
    code = cli_run(["bench", str(doc), "--runs", "2"])
    captured = capsys.readouterr()
    assert code == 1
    assert "failed: groq/openai/gpt-oss-20b: groq: the API key was refused" in captured.out
    groq_row = next(line for line in captured.out.splitlines() if line.startswith("groq"))
    assert groq_row.split()[-1] != "0"  # errors counted
    assert GROQ_KEY not in captured.out + captured.err


def test_bench_only_one_provider_and_the_bundled_sample(emulators, capsys) -> None:
    groq, cerebras = emulators
    code = cli_run(["bench", "--runs", "1", "--provider", "cerebras", "--no-warmup"])
    out = capsys.readouterr().out
    assert code == 0 and "bundled sample" in out
    assert not groq.chat_requests and cerebras.chat_requests


def test_bench_usage_errors(emulators, tmp_path: Path, capsys) -> None:
    assert cli_run(["bench", str(tmp_path / "missing.md")]) == 2
    assert "missing.md" in capsys.readouterr().err
    assert cli_run(["bench", "--runs", "0"]) == 2
    assert cli_run(["bench", "--model", "some-model"]) == 2  # which provider?
    assert "say which provider" in capsys.readouterr().err


def test_bench_with_nothing_configured_says_how(capsys) -> None:
    assert cli_run(["bench"]) == 1
    assert "GROQ_API_KEY" in capsys.readouterr().err


def test_sample_falls_back_to_a_built_in_text(monkeypatch: pytest.MonkeyPatch) -> None:
    assert "fastdesk" in bench.sample_text()

    def missing(name: str) -> Path:
        return Path("/nonexistent") / name

    monkeypatch.setattr("fastdesk.config.paths.resource", missing)
    assert bench.sample_text() == bench.FALLBACK_SAMPLE


def test_table_puts_the_fastest_first_and_never_shows_unknown_cost_as_zero() -> None:
    def stats(provider: str, ttfb: float, cost: float | None) -> RequestStats:
        return RequestStats(provider, "m", "ok", ttfb, ttfb + 100, 10, 50, cost)

    slow = BenchRow("groq", "m", [BenchRun(900, [stats("groq", 300, None)])])
    fast = BenchRow("cerebras", "m", [BenchRun(200, [stats("cerebras", 100, 0.00001)], 1)])
    failed = BenchRow("openai", "m", [BenchRun(50, [], failed_blocks=2)])
    lines = format_table([slow, failed, fast]).splitlines()
    assert [line.split()[0] for line in lines[1:4]] == ["cerebras", "groq", "openai"]
    assert "unknown" in lines[2] and "$0 " not in lines[2]
    assert lines[1].split()[-2] == "1"  # flags per run


def test_router_options_come_from_settings() -> None:
    settings = Settings(
        models={"groq": "llama-3.1-8b-instant"},
        preferred_models={"ja": {"groq": "qwen/qwen3-32b"}},
        excluded_models={"groq": ["meta-llama/llama-4-scout-17b-16e-instruct"]},
        hedging=True,
    )
    options = options_from_settings(settings)
    assert options["models"] == {"groq": ["llama-3.1-8b-instant", "qwen/qwen3-32b"]}
    assert options["hedge"] is True
    fake = FakeProvider("groq", "meta-llama/llama-4-scout-17b-16e-instruct")
    router = Router({"groq": fake}, stats=StatsStore.memory(), **options)
    assert router.candidates(lang="ja")[0] == ("groq", "qwen/qwen3-32b")
    assert ("groq", "meta-llama/llama-4-scout-17b-16e-instruct") not in router.candidates()


# ---- warm start ---------------------------------------------------------------------------------


def test_needs_warmup_at_start_and_after_a_long_idle() -> None:
    assert needs_warmup(None, 100.0)
    assert not needs_warmup(100.0, 150.0, idle_s=300)
    assert needs_warmup(100.0, 400.0, idle_s=300)


def test_warm_up_sends_one_tiny_request_to_the_top_choices() -> None:
    groq, cerebras, openai = FakeProvider("groq"), FakeProvider("cerebras"), FakeProvider("openai")
    router = Router(
        {"groq": groq, "cerebras": cerebras, "openai": openai}, stats=StatsStore.memory()
    )
    results = asyncio.run(warm_up(router, top=2))
    assert [s.provider for s in results] == ["groq", "cerebras"]
    assert all(s.purpose == "warmup" and s.status == "ok" for s in results)
    assert [len(p.requests) for p in (groq, cerebras, openai)] == [1, 1, 0]
    assert groq.requests[0].max_tokens == 1
    assert not router.stats.get(("groq", "fake-model")).measured  # a cold answer is no sample


def test_warm_up_skipped_when_refused_and_failures_only_reach_health() -> None:
    def refuse(request, n):
        return AuthenticationError("groq", "invalid key", status=401)

    groq = FakeProvider("groq", fail=refuse)
    router = Router({"groq": groq}, stats=StatsStore.memory())
    assert asyncio.run(warm_up(router, enabled=False)) == []
    assert groq.requests == []
    [stats] = asyncio.run(warm_up(router))
    assert stats.status == "error"
    assert router.health_report()[0].state == "auth"  # known before the user types
