"""The status bar's activity indicator turns while shown, and only then."""

from __future__ import annotations

from PySide6.QtWidgets import QStatusBar

from fastdesk.routing.costs import CostLedger
from fastdesk.ui.window.status_bar import SPINNER, StatusPanel
from tests.fakes import FakeClock


def test_the_activity_indicator_turns_while_requests_are_in_flight(qtbot, tmp_path) -> None:
    bar = QStatusBar()
    qtbot.addWidget(bar)
    status = StatusPanel(bar, ledger=CostLedger(tmp_path / "costs.json"))
    bar.show()
    qtbot.waitExposed(bar)
    indicator = status.activity
    assert not indicator.isVisible() and not indicator.turning

    status.set_busy(True)
    first = indicator.text()
    assert indicator.isVisible() and first.startswith(SPINNER[0])
    qtbot.waitUntil(lambda: indicator.text() != first, timeout=3000)
    assert indicator.text()[0] in SPINNER

    status.set_busy(False)
    assert not indicator.isVisible() and not indicator.turning


def test_a_wait_is_shown_in_the_status_bar_for_as_long_as_it_lasts(qtbot, tmp_path) -> None:
    from fastdesk.translate.events import Waiting

    bar = QStatusBar()
    qtbot.addWidget(bar)
    status = StatusPanel(bar, ledger=CostLedger(tmp_path / "costs.json"))
    status.waiting(Waiting(3, "groq", 3.2, "Groq free tier, 30 requests/min"))
    assert bar.currentMessage() == "waiting 4 s: Groq free tier, 30 requests/min"


def test_a_wait_counts_down_and_an_outage_says_so(qtbot, tmp_path) -> None:
    from fastdesk.translate.events import Waiting

    bar = QStatusBar()
    qtbot.addWidget(bar)
    clock = FakeClock(100.0)
    status = StatusPanel(bar, ledger=CostLedger(tmp_path / "costs.json"), clock=clock)
    status.waiting(Waiting(3, "groq", 57.0, "Groq free tier, 30 requests/min"))
    assert bar.currentMessage() == "waiting 57 s: Groq free tier, 30 requests/min"
    clock.now += 30.2
    status._count_down()  # the second's tick
    assert bar.currentMessage() == "waiting 27 s: Groq free tier, 30 requests/min"
    status.waiting(Waiting(3, "groq", 12.0, "groq unreachable", "outage"))
    assert bar.currentMessage() == "groq unreachable, retrying in 12 s"


def test_last_error_details_shows_the_last_error_after_a_success_hid_it(qtbot, tmp_path) -> None:
    from PySide6.QtWidgets import QMessageBox

    from fastdesk.providers.base import RequestStats

    bar = QStatusBar()
    qtbot.addWidget(bar)
    status = StatusPanel(bar, ledger=CostLedger(tmp_path / "costs.json"))
    status.show_error("groq: cannot reach the server.", "groq: connection refused")
    status.request_done(
        RequestStats(provider="groq", model="m", status="ok", ttfb_ms=10.0, total_ms=20.0)
    )
    assert not status.error_button.isVisibleTo(bar)  # solved: the button goes
    status.show_error_details()
    box = bar.findChild(QMessageBox, "errorDetails")
    assert box is not None and "groq: cannot reach the server." in box.text()
    assert box.detailedText() == "groq: connection refused"
    box.close()
