"""The latency label's tooltip tells what the provider's prompt cache saved, and says so when
no cached price is known (the cost then counts those tokens at the full input price)."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QStatusBar

from fastdesk.providers.base import RequestStats
from fastdesk.routing.costs import CostLedger
from fastdesk.ui.window.status_bar import StatusPanel


@pytest.mark.parametrize(
    ("full_price", "said"),
    [(False, "at the cached price"), (True, "no cached price known")],
)
def test_cached_tokens_are_told(qtbot, tmp_path, full_price: bool, said: str) -> None:
    bar = QStatusBar()
    qtbot.addWidget(bar)
    status = StatusPanel(bar, ledger=CostLedger(tmp_path / "costs.json"))
    stats = RequestStats(
        "groq",
        "m",
        "ok",
        100.0,
        300.0,
        500,
        20,
        0.00001,
        cached_tokens=420,
        cached_at_full_price=full_price,
    )
    status.request_done(stats)
    assert "420 prompt tokens from the provider's cache, 84% of the prompt" in status.latency.detail
    assert said in status.latency.detail
    status.request_done(RequestStats("groq", "m", "ok", 100.0, 300.0, 500, 20, 0.00001))
    assert "from the provider's cache" not in status.latency.detail  # this request had none
    # the session's share stays told: 420 of the 1,000 prompt tokens so far
    assert "This session: 420 of 1,000 prompt tokens from the providers' caches (42%)" in (
        status.latency.detail
    )
