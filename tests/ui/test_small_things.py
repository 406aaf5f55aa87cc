"""Small things that cost trust: language Enter, warm-up, costs, eliding, the first-run text."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QStatusBar

from fastdesk.providers.base import RequestStats
from fastdesk.routing.costs import CostLedger
from fastdesk.ui.window.status_bar import ElidedLabel, StatusPanel


def test_enter_in_the_language_box_picks_the_match_typed(make_window, qtbot) -> None:
    w = make_window()
    box = w.selectors.language
    assert box.currentData() == "fr"
    edit = box.lineEdit()
    edit.selectAll()
    qtbot.keyClicks(edit, "Span")
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    assert box.currentData() == "es"
    edit.selectAll()
    qtbot.keyClicks(edit, "nothing like a language")
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    assert box.currentData() == "es"  # not a language: the choice stays


def test_a_warm_up_is_not_shown_as_the_last_request(qtbot, tmp_path: Path) -> None:
    bar = QStatusBar()
    qtbot.addWidget(bar)
    status = StatusPanel(bar, ledger=CostLedger(tmp_path / "costs.json"))
    warm = RequestStats("groq", "m", "ok", 597.0, 600.0, 5, 1, 0.000001, purpose="warmup")
    status.request_done(warm)
    assert status.latency.text() == "No translation yet · groq warmed up"  # not "no request"
    assert status.cost.text().startswith("last –")
    assert "session $0.000001" in status.cost.text()  # it was billed: the spend is counted
    status.request_done(RequestStats("groq", "m", "ok", 100.0, 300.0, 10, 20, 0.0123))
    assert status.latency.text().startswith("groq · m · first token 100 ms")
    # one precision throughout: the millionth, for the last request as for the sums
    assert status.cost.text().startswith("last $0.0123 · session $0.012301 · today $0.012301")
    status.close()


def test_long_status_texts_elide_and_show_whole_on_hover(qtbot) -> None:
    label = ElidedLabel()
    qtbot.addWidget(label)
    whole = "groq · openai/gpt-oss-120b · first token 212 ms · total 801 ms · 840 tok/s"
    label.setText(whole)
    label.set_detail("tokens: 10 in, 20 out")
    label.show()
    label.resize(120, 20)
    assert label.text() == whole  # the text is whole; only its painting is cut
    assert label.elided() and label.shown_text().endswith("…")
    assert label.toolTip() == f"{whole}\ntokens: 10 in, 20 out"
    label.resize(2000, 20)
    assert not label.elided() and label.toolTip() == "tokens: 10 in, 20 out"
    assert label.minimumSizeHint().width() <= ElidedLabel.MIN_WIDTH


def test_the_error_button_shows_the_whole_message_on_hover(qtbot, tmp_path: Path) -> None:
    bar = QStatusBar()
    qtbot.addWidget(bar)
    status = StatusPanel(bar, ledger=CostLedger(tmp_path / "costs.json"))
    message = "The provider refused the request because " + "of a long reason " * 8
    status.show_error(message)
    assert status.error_button.text().endswith("…")
    assert status.error_button.toolTip().startswith(message.strip())
    status.close()


def test_the_first_run_panel_names_the_sample_only_when_it_is_open(
    make_window, qtbot, tmp_path: Path
) -> None:
    w = make_window()
    w.files.open_sample()  # the first start opens the sample
    w.news.show_first_run(True)
    intro = w.news.first_run.intro
    assert "The sample document is translated" in intro.text()
    w.files.new_document()  # a later start: no sample on show
    assert "sample" not in intro.text() and "What you type or open" in intro.text()
    path = tmp_path / "notes.md"
    path.write_text("# Notes\n", encoding="utf-8")
    w.open_file(path)
    assert "<b>notes.md</b> is translated" in intro.text()
