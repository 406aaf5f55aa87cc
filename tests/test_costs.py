"""The cost ledger: last/since-start/today totals, unknown costs, day boundary, budget, bad files,
and two writers (threads and processes) adding up instead of overwriting each other."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from fastdesk.providers.base import RequestStats
from fastdesk.routing import costs
from fastdesk.routing.costs import CostLedger, Totals, budget_state, counts_as_spend

ROOT = Path(__file__).resolve().parents[1]


def ok(cost: float | None, **kw: Any) -> RequestStats:
    return RequestStats("groq", "m", "ok", ttfb_ms=100.0, total_ms=200.0, cost_usd=cost, **kw)


class Clock:
    """A settable local time."""

    def __init__(self, moment: str = "2026-07-15 10:00") -> None:
        self.moment = datetime.fromisoformat(moment)

    def __call__(self) -> datetime:
        return self.moment


def file_days(path: Path) -> dict[str, dict[str, object]]:
    return json.loads(path.read_text(encoding="utf-8"))["days"]


def test_totals_text() -> None:
    assert Totals().text() == "$0"
    assert Totals(0.0123, 3, 0).text() == "$0.0123"
    assert Totals(0.0123, 3, 2).text() == "$0.0123 + 2 requests of unknown cost"
    assert Totals(0.0, 0, 1).text() == "1 request of unknown cost"
    assert Totals(0.0000252, 1, 0).text() == "$0.000025"


def test_record_last_since_start_today(tmp_path: Path) -> None:
    path = tmp_path / "costs.json"
    ledger = CostLedger(path, now=Clock())
    assert ledger.last is None and ledger.today() == Totals()
    ledger.record(ok(0.01))
    today = ledger.record(ok(0.0023))
    ledger.record(ok(None))
    ledger.record(ok(None))
    assert today == Totals(0.0123, 2, 0)
    assert ledger.last is not None and ledger.last.cost_usd is None
    assert ledger.since_start.requests == 2 and ledger.since_start.unknown == 2
    assert ledger.since_start.usd == pytest.approx(0.0123)
    assert ledger.today().text() == "$0.0123 + 2 requests of unknown cost"
    assert ledger.status_text() == (
        "last cost unknown · session $0.0123 + 2 requests of unknown cost"
        " · today $0.0123 + 2 requests of unknown cost"
    )
    # persisted, readable by anyone
    assert file_days(path) == {
        "2026-07-15": {"usd": pytest.approx(0.0123), "requests": 2, "unknown": 2}
    }
    assert costs.today_totals(path, Clock()) == ledger.today()


def test_what_counts_as_spend() -> None:
    assert counts_as_spend(ok(0.0))  # a local server: known, free
    assert counts_as_spend(ok(None))  # an answer with no price: unknown
    refused = RequestStats("groq", "m", "error", error="401")
    assert not counts_as_spend(refused)
    cut = RequestStats("groq", "m", "cancelled", ttfb_ms=80.0)
    assert counts_as_spend(cut)
    never_started = RequestStats("groq", "m", "cancelled")
    assert not counts_as_spend(never_started)


def test_uncounted_requests_change_nothing(tmp_path: Path) -> None:
    ledger = CostLedger(tmp_path / "costs.json", now=Clock())
    ledger.record(RequestStats("groq", "m", "error", error="connection refused"))
    assert ledger.last is None and ledger.since_start == Totals()
    assert not (tmp_path / "costs.json").exists()


def test_day_boundary_is_local_midnight(tmp_path: Path) -> None:
    clock = Clock("2026-07-15 23:59:59")
    ledger = CostLedger(tmp_path / "costs.json", now=clock)
    ledger.record(ok(0.5))
    clock.moment = datetime.fromisoformat("2026-07-16 00:00:01")
    assert ledger.today() == Totals()  # a new day starts empty
    ledger.record(ok(0.25))
    assert ledger.today() == Totals(0.25, 1, 0)
    assert ledger.since_start.usd == pytest.approx(0.75)  # since start spans both days
    days = file_days(tmp_path / "costs.json")
    assert set(days) == {"2026-07-15", "2026-07-16"}


def test_old_days_are_dropped(tmp_path: Path) -> None:
    path = tmp_path / "costs.json"
    path.write_text(
        json.dumps(
            {
                "version": 1,
                "days": {
                    "2025-01-01": {"usd": 9.0, "requests": 1, "unknown": 0},
                    "2026-07-14": {"usd": 1.0, "requests": 1, "unknown": 0},
                },
            }
        ),
        encoding="utf-8",
    )
    CostLedger(path, now=Clock()).record(ok(0.1))
    assert set(file_days(path)) == {"2026-07-14", "2026-07-15"}


def test_budget_states(tmp_path: Path) -> None:
    assert budget_state(0.5, None) == "ok"
    assert budget_state(0.79, 1.0) == "ok"
    assert budget_state(0.8, 1.0) == "near"
    assert budget_state(1.0, 1.0) == "reached"
    assert budget_state(0.0, 0.0) == "reached"  # a zero budget: spend nothing
    ledger = CostLedger(tmp_path / "costs.json", now=Clock())
    assert ledger.budget_state(1.0) == "ok"
    assert ledger.budget_notice(1.0) == ""
    ledger.record(ok(0.85))
    assert ledger.budget_state(1.0) == "near"
    assert ledger.budget_notice(1.0).startswith("Near the daily budget: $0.85 spent today")
    ledger.record(ok(0.2))
    ledger.record(ok(None))
    assert ledger.budget_state(1.0) == "reached"
    notice = ledger.budget_notice(1.0)
    assert "Daily budget reached" in notice and "1 request of unknown cost" in notice
    assert "Live translation is paused" in notice
    assert "of a daily budget of $0.125. " in ledger.budget_notice(0.125)  # every sum alike
    assert ledger.budget_state(None) == "ok"


def test_budget_sees_another_process_spend(tmp_path: Path) -> None:
    """The window's ledger notices what `fastdesk translate` (another ledger) spent."""
    path = tmp_path / "costs.json"
    window = CostLedger(path, now=Clock())
    assert window.budget_state(1.0) == "ok"
    CostLedger(path, now=Clock()).record(ok(1.5))
    assert window.budget_state(1.0) == "reached"
    assert window.today() == Totals(1.5, 1, 0)
    assert window.since_start == Totals()


@pytest.mark.parametrize(
    "content",
    [
        b"{not json",
        b"\xff\xfe garbage",
        b'{"version": 1, "days": []}',
        b'["a list"]',
    ],
)
def test_broken_file_is_set_aside(tmp_path: Path, content: bytes, caplog) -> None:
    path = tmp_path / "costs.json"
    path.write_bytes(content)
    ledger = CostLedger(path, now=Clock())
    assert ledger.today() == Totals()  # reading alone never moves anything
    assert path.read_bytes() == content
    ledger.record(ok(0.01))
    assert file_days(path) == {"2026-07-15": {"usd": 0.01, "requests": 1, "unknown": 0}}
    aside = list(tmp_path.glob("costs.json.broken-*"))
    assert len(aside) == 1 and aside[0].read_bytes() == content
    assert "counting from zero" in caplog.text


@pytest.mark.parametrize(
    "days",
    [
        {"2026-07-15": {"usd": "lots", "requests": 1}},
        {"2026-07-14": {"usd": 0.5, "requests": -1, "unknown": 0}},
        {"not a day": {"usd": 0.5, "requests": 2, "unknown": 0}},
        {"2026-07-14": {"usd": 0.5, "requests": 1e400, "unknown": 0}},
        {"2026-07-14": [0.5, 2, 0]},
    ],
)
def test_a_malformed_day_sets_the_whole_file_aside(tmp_path: Path, days, caplog) -> None:
    """Money: the file is kept whole for the user, not silently trimmed of the bad day."""
    path = tmp_path / "costs.json"
    days = {"2026-07-13": {"usd": 0.5, "requests": 2, "unknown": 0}, **days}
    content = json.dumps({"version": 1, "days": days})
    path.write_text(content, encoding="utf-8")
    ledger = CostLedger(path, now=Clock())
    assert ledger.today() == Totals()
    ledger.record(ok(0.1))
    assert file_days(path) == {"2026-07-15": {"usd": 0.1, "requests": 1, "unknown": 0}}
    aside = list(tmp_path.glob("costs.json.broken-*"))
    assert len(aside) == 1 and aside[0].read_text(encoding="utf-8") == content
    assert "malformed" in caplog.text and aside[0].name in caplog.text


def test_unwritable_file_keeps_counting(tmp_path: Path, caplog) -> None:
    blocker = tmp_path / "costs.json"
    blocker.mkdir()  # a folder where the file should be: every write fails
    ledger = CostLedger(blocker, now=Clock())
    ledger.record(ok(0.1))
    ledger.record(ok(0.2))
    assert ledger.today().usd == pytest.approx(0.3)  # still counted, pending
    assert ledger.since_start.usd == pytest.approx(0.3)
    assert "could not be saved" in caplog.text


def test_default_path_is_under_fastdesk_home(isolated_home: Path) -> None:
    ledger = CostLedger()  # the real local clock, as the window and the command line use it
    ledger.record(ok(0.1))
    assert ledger.path == isolated_home / "data" / "costs.json"
    assert ledger.path.is_file()
    assert costs.today_usd() == pytest.approx(ledger.today().usd)


def test_background_writer_persists_and_counts_unwritten(tmp_path: Path) -> None:
    path = tmp_path / "costs.json"
    ledger = CostLedger(path, now=Clock(), background=True)
    try:
        for _ in range(50):
            ledger.record(ok(0.001))
        # totals include what the writer has not written yet
        assert ledger.today().requests == 50
        assert ledger.flush()
        assert file_days(path)["2026-07-15"]["requests"] == 50
        assert file_days(path)["2026-07-15"]["usd"] == pytest.approx(0.05)
    finally:
        ledger.close()
    assert not ledger._writer.is_alive()
    ledger.record(ok(0.001))  # after close: written at once
    assert file_days(path)["2026-07-15"]["requests"] == 51
    ledger.close()  # idempotent


def test_two_ledgers_in_threads_add_up(tmp_path: Path) -> None:
    path = tmp_path / "costs.json"
    ledgers = [CostLedger(path, now=Clock()) for _ in range(2)]
    start = threading.Barrier(2)

    def spend(ledger: CostLedger) -> None:
        start.wait()
        for _ in range(40):
            ledger.record(ok(0.01))

    threads = [threading.Thread(target=spend, args=(ledger,)) for ledger in ledgers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    day = file_days(path)["2026-07-15"]
    assert day["requests"] == 80
    assert day["usd"] == pytest.approx(0.8)


WRITER = textwrap.dedent(
    """
    import sys
    from datetime import datetime
    from pathlib import Path
    from fastdesk.routing.costs import CostLedger
    from fastdesk.translate.events import RequestStats

    ledger = CostLedger(Path(sys.argv[1]), now=lambda: datetime(2026, 7, 15, 12))
    sys.stdout.write("ready\\n"); sys.stdout.flush()
    sys.stdin.readline()
    for _ in range(int(sys.argv[2])):
        ledger.record(RequestStats("groq", "m", "ok", ttfb_ms=1.0, cost_usd=0.001))
        ledger.record(RequestStats("groq", "m", "ok", ttfb_ms=1.0, cost_usd=None))
    """
)


def test_two_processes_add_up(tmp_path: Path) -> None:
    """The window and the command line both write: nothing is lost."""
    path = tmp_path / "costs.json"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), "30"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        for _ in range(2)
    ]
    for proc in procs:  # both started: release them together
        assert proc.stdout.readline() == "ready\n"
    for proc in procs:
        proc.stdin.write("go\n")
        proc.stdin.close()
    for proc in procs:
        assert proc.wait(timeout=60) == 0
    day = file_days(path)["2026-07-15"]
    assert day["requests"] == 60
    assert day["unknown"] == 60
    assert day["usd"] == pytest.approx(0.06)
