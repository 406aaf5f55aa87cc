"""The status bar's activity indicator turns while shown, and only then."""

from __future__ import annotations

from PySide6.QtWidgets import QStatusBar

from fastdesk.routing.costs import CostLedger
from fastdesk.ui.window.status import SPINNER, StatusPanel


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
