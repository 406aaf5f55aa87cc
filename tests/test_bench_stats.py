"""``fastdesk bench --stats``: what auto routing ranks by, per provider, model and process start,
from the measurements kept in the data folder (no request sent)."""

from __future__ import annotations

import json
import time

import pytest

from fastdesk.cli.main import run as cli_run
from fastdesk.routing.stats import StatsStore
from tests.fakes import FakeClock

FAST, SLOW = ("groq", "openai/gpt-oss-20b"), ("cerebras", "gpt-oss-120b")


def two_runs() -> None:
    """Two process starts, each a store of its own over the same file: the first request of
    each start to each provider slow (cold), the rest at the provider's speed."""
    clock = FakeClock(time.time() - 600)  # within the days the command keeps (MAX_AGE_S)
    for _run in range(2):
        store = StatsStore.load(clock=clock)
        for pair, ms in ((FAST, 40.0), (SLOW, 400.0)):
            store.observe(pair, ttfb_ms=ms + 900, tokens_per_s=500)
            clock.now += 1
            store.observe(pair, ttfb_ms=ms, tokens_per_s=500)
            clock.now += 1
        store.save()
        clock.now += 60


def test_stats_say_what_ranks_each_choice_and_what_each_process_start_measured(capsys) -> None:
    two_runs()
    assert cli_run(["bench", "--stats"]) == 0
    out = capsys.readouterr().out.splitlines()
    heads = [line for line in out if not line.startswith(" ")]
    assert heads[0].startswith("groq/openai/gpt-oss-20b: first token 40 ms")  # fastest first
    assert heads[1].startswith("cerebras/gpt-oss-120b: first token 400 ms")
    # the cold samples (940 ms) do not count while warm ones are there ...
    assert "(of 40, 40)" in heads[0]
    # ... and each process start shows its first (cold) request apart from the others
    starts = [line for line in out if line.startswith("  started")]
    assert len(starts) == 4
    assert all(line.endswith("2 samples, first 940 ms, then 40 ms") for line in starts[:2])


def test_stats_as_json_and_with_nothing_measured(capsys) -> None:
    assert cli_run(["bench", "--stats"]) == 0
    assert "No measurements yet" in capsys.readouterr().out
    two_runs()
    assert cli_run(["bench", "--stats", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["choices"]
    assert [(r["provider"], r["ttfb_ms"]) for r in rows] == [("groq", 40), ("cerebras", 400)]
    assert [s["samples"] for s in rows[0]["process_starts"]] == [2, 2]


@pytest.mark.parametrize("text", ["not json", '{"version": 1, "choices": {"groq/m": 5}}'])
def test_stats_from_a_file_that_is_not_ours_start_afresh_without_a_traceback(
    text: str, capsys
) -> None:
    path = StatsStore.default_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    assert cli_run(["bench", "--stats"]) == 0
    captured = capsys.readouterr()
    assert "No measurements yet" in captured.out
    assert "Traceback" not in captured.err
