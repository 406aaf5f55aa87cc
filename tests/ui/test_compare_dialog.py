"""Compare Providers (offscreen) against two emulators, one per provider, through the real SDKs:
the table fills row by row without blocking the GUI thread, sorts on figures, Stop and closing
cancel the requests in flight, "Use this model" saves the choice, the budget is respected."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from fastdesk.config.settings import Settings, load_settings, save_settings
from fastdesk.providers.factory import not_configured
from fastdesk.routing.costs import CostLedger
from fastdesk.ui.dialogs.compare import SORT_ROLE, CompareDialog, open_compare_dialog
from tests.emulator import Emulator

GROQ_KEY = "gsk_COMPARETEST_0123456789_abcdefWXYZ"
CEREBRAS_KEY = "csk-comparetest_0123456789_abcdefwxyz"
DOC = """# Title

First paragraph with a [link](https://example.com) and `code`.

Second paragraph, a little longer, so that the answer streams in several chunks.
"""


@pytest.fixture
def emulators(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Emulator, Emulator]]:
    """Groq answers first quickly but streams slowly; Cerebras the other way round."""
    with (
        Emulator(ttfb=0.002, tokens_per_second=3000) as groq,
        Emulator(ttfb=0.02, tokens_per_second=None) as cerebras,
    ):
        monkeypatch.setenv("GROQ_API_KEY", GROQ_KEY)
        monkeypatch.setenv("GROQ_BASE_URL", groq.groq_base_url)
        monkeypatch.setenv("CEREBRAS_API_KEY", CEREBRAS_KEY)
        monkeypatch.setenv("CEREBRAS_BASE_URL", cerebras.cerebras_base_url)
        yield groq, cerebras


@pytest.fixture
def ledger(tmp_path: Path) -> CostLedger:
    return CostLedger(tmp_path / "costs.json")


@pytest.fixture
def make_dialog(qtbot, ledger: CostLedger) -> Iterator:
    dialogs: list[CompareDialog] = []

    def make(settings: Settings | None = None, **kw: Any) -> CompareDialog:
        kw.setdefault("document", DOC)
        kw.setdefault("document_name", "doc.md")
        dialog = CompareDialog(settings or Settings(), ledger=ledger, **kw)
        qtbot.addWidget(dialog)
        dialog.show()
        dialogs.append(dialog)
        return dialog

    yield make
    for dialog in dialogs:
        dialog.runner.close()


def run(qtbot, dialog: CompareDialog, runs: int = 1, timeout: int = 15_000) -> str:
    dialog.runs_spin.setValue(runs)
    with qtbot.waitSignal(dialog.comparisonEnded, timeout=timeout) as ended:
        qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    return ended.args[0]


def shown(dialog: CompareDialog, column: int) -> list[str]:
    proxy = dialog.proxy
    return [proxy.index(r, column).data() for r in range(proxy.rowCount())]


def test_the_table_fills_with_every_provider_and_model(
    make_dialog, emulators, ledger, qtbot
) -> None:
    groq, cerebras = emulators
    gate = threading.Event()  # every answer is held after its first token until the test says
    for emu in emulators:
        emu.configure(hold_after_first=gate)
    dialog = make_dialog()
    assert dialog.runs_spin.value() == 3  # the default
    assert dialog.document_combo.currentText() == "doc.md (22 words)"
    dialog.runs_spin.setValue(2)
    with qtbot.waitSignal(dialog.comparisonEnded, timeout=15_000) as ended:
        dialog.run_button.click()
        # the click returned while no answer can end (the gate is closed): the GUI thread
        # did not wait for the comparison
        assert not ended.signal_triggered and not gate.is_set()
        assert dialog.running and not dialog.run_button.isEnabled()
        assert dialog.stop_button.isEnabled()
        gate.set()
    assert ended.args == ["done"]
    assert not dialog.running and dialog.run_button.isEnabled()
    assert sorted(zip(shown(dialog, 0), shown(dialog, 1), strict=True)) == [
        ("cerebras", "gpt-oss-120b"),
        ("groq", "openai/gpt-oss-20b"),
    ]
    for row in dialog.rows:
        assert row.ok_runs == 2 and row.errors == 0
    for column in (2, 3, 4):
        assert all(text.endswith(" ms") for text in shown(dialog, column))
    assert all(text.startswith("$") for text in shown(dialog, 6))  # priced, usage reported
    assert shown(dialog, 8) == ["0", "0"]
    assert dialog.progress.maximum() == 4
    assert dialog.status_label.text() == "Done: 2 models compared."
    # each provider: one untimed warm-up (one token), then the document's requests, twice
    for emu in (groq, cerebras):
        chats = emu.chat_requests
        assert chats[0].body["messages"][-1]["content"] == "Hi"
        assert chats[0].body["max_completion_tokens"] == 1
        assert len(chats) > 2
    # what it cost counts towards today, as in the window
    runs = sum(len(run.requests) for r in dialog.rows for run in r.runs)
    assert ledger.since_start.requests == runs
    assert dialog.note_label.text().startswith("This comparison cost $")
    assert "so far" not in dialog.note_label.text()  # the run is over
    assert dialog.note_label.text().endswith(".") and "so far" not in dialog.note_label.text()
    # the fastest row is selected, ready for "Use this model"
    assert dialog.selected_row() is not None


def test_the_table_sorts_on_figures_not_text(make_dialog, emulators, qtbot) -> None:
    dialog = make_dialog()
    assert run(qtbot, dialog) == "done"
    proxy = dialog.proxy
    assert proxy.sortColumn() == 4  # total p50, fastest first
    totals = [proxy.index(r, 4).data(SORT_ROLE) for r in range(proxy.rowCount())]
    assert totals == sorted(totals)
    dialog.table.horizontalHeader().setSortIndicator(5, Qt.SortOrder.DescendingOrder)
    tps = [proxy.index(r, 5).data(SORT_ROLE) for r in range(proxy.rowCount())]
    assert tps == sorted(tps, reverse=True) and tps[0] > 0
    dialog.table.horizontalHeader().setSortIndicator(0, Qt.SortOrder.AscendingOrder)
    assert shown(dialog, 0) == ["cerebras", "groq"]


def test_a_failing_provider_gets_a_row_with_its_errors(make_dialog, emulators, qtbot) -> None:
    groq, _ = emulators
    groq.configure(require_key="gsk_someOTHERkey_0123456789_abcdefWXYZ")
    dialog = make_dialog()
    assert run(qtbot, dialog) == "done"
    assert "1 without a successful run" in dialog.status_label.text()
    failed = next(r for r in dialog.rows if r.provider == "groq")
    assert failed.ok_runs == 0 and failed.errors > 0
    index = shown(dialog, 0).index("groq")
    errors = dialog.proxy.index(index, 8)
    assert int(errors.data()) > 0
    assert "key" in errors.data(Qt.ItemDataRole.ToolTipRole).lower()
    assert GROQ_KEY not in errors.data(Qt.ItemDataRole.ToolTipRole)
    dialog.table.selectRow(index)
    assert not dialog.use_button.isEnabled()  # nothing to recommend a model that never answered


def test_stop_cancels_at_once_and_keeps_the_dialog(make_dialog, emulators, qtbot) -> None:
    groq, cerebras = emulators
    for emu in emulators:
        emu.fail_hang(times=None)  # silence until the client leaves
    dialog = make_dialog()
    dialog.run_button.click()
    qtbot.waitUntil(lambda: bool(groq.chat_requests or cerebras.chat_requests), timeout=5_000)
    with qtbot.waitSignal(dialog.comparisonEnded) as ended:
        dialog.stop_button.click()
        # ended within the click, while both servers still hold their answers for ever: Stop
        # did not wait for the requests
        assert ended.signal_triggered
    assert ended.args == ["stopped"]
    assert dialog.isVisible() and dialog.run_button.isEnabled()
    assert dialog.status_label.text() == "Stopped."
    assert groq.wait_for(lambda: groq.disconnects + cerebras.disconnects >= 1)


def test_closing_cancels_the_requests_in_flight(make_dialog, emulators, qtbot) -> None:
    groq, cerebras = emulators
    for emu in emulators:
        emu.fail_hang(times=None)
    dialog = make_dialog()
    dialog.run_button.click()
    qtbot.waitUntil(lambda: bool(groq.chat_requests or cerebras.chat_requests), timeout=5_000)
    dialog.close()  # returns although both servers hold their answers for ever
    assert not dialog.isVisible()
    assert groq.wait_for(lambda: groq.disconnects + cerebras.disconnects >= 1)  # cancelled
    sent = groq.request_count + cerebras.request_count
    thread = dialog.runner._thread
    assert thread is not None and thread.join(30)  # (a hang guard: it has ended or is ending)
    assert not thread.running  # the loop thread ended: nothing more goes out
    assert groq.request_count + cerebras.request_count == sent


def test_use_this_model_saves_it_for_its_provider(make_dialog, emulators, qtbot) -> None:
    # a per-language preference brings a second Groq model into the comparison
    settings = Settings(preferred_models={"ja": {"groq": "qwen/qwen3-32b"}})
    save_settings(settings)
    dialog = make_dialog(settings)
    assert run(qtbot, dialog) == "done"
    assert sorted(shown(dialog, 1)) == ["gpt-oss-120b", "openai/gpt-oss-20b", "qwen/qwen3-32b"]
    in_use = shown(dialog, 1).index("openai/gpt-oss-20b")
    assert dialog.proxy.index(in_use, 1).data(Qt.ItemDataRole.FontRole).bold()
    dialog.table.selectRow(in_use)
    assert not dialog.use_button.isEnabled()  # already the one in use
    qwen = shown(dialog, 1).index("qwen/qwen3-32b")
    dialog.table.selectRow(qwen)
    assert dialog.use_button.isEnabled()
    with qtbot.waitSignal(dialog.settingsSaved) as saved:
        dialog.use_button.click()
    stored, _warnings = load_settings()
    assert stored.models == {"groq": "qwen/qwen3-32b"}
    assert stored.preferred_models == {"ja": {"groq": "qwen/qwen3-32b"}}  # the rest is kept
    assert saved.args[0].models == {"groq": "qwen/qwen3-32b"}
    assert dialog.note_label.text() == "Saved: fastdesk now uses qwen/qwen3-32b for groq."
    qwen = shown(dialog, 1).index("qwen/qwen3-32b")
    assert dialog.proxy.index(qwen, 1).data(Qt.ItemDataRole.FontRole).bold()
    old = shown(dialog, 1).index("openai/gpt-oss-20b")
    assert not dialog.proxy.index(old, 1).data(Qt.ItemDataRole.FontRole).bold()
    assert not dialog.use_button.isEnabled()


def test_the_sample_document_can_be_compared_instead(make_dialog, emulators, qtbot) -> None:
    from fastdesk.translate.bench import sample_text

    groq, _ = emulators
    dialog = make_dialog(document="")  # an empty document: only the sample is offered
    assert dialog.document_combo.count() == 1
    assert dialog.document_combo.currentData() == "sample"
    assert dialog.job().text == sample_text()
    assert run(qtbot, dialog) == "done"
    sent = "".join(r.body["messages"][-1]["content"] for r in groq.chat_requests)
    assert "fastdesk" in sent


def test_nothing_configured_says_so(make_dialog, qtbot) -> None:
    dialog = make_dialog()
    assert run(qtbot, dialog) == "failed"
    assert dialog.status_label.text() == f"Comparison failed: {not_configured()}"
    assert dialog.proxy.rowCount() == 0


def test_over_the_budget_it_asks_first(make_dialog, emulators, qtbot) -> None:
    groq, cerebras = emulators
    dialog = make_dialog(Settings(daily_budget_usd=0.0))  # 0: spend nothing
    asked: list[str] = []
    dialog.confirm = lambda question: asked.append(question) or False
    dialog.run_button.click()
    assert asked and "Daily budget reached" in asked[0]
    assert not dialog.running
    assert groq.request_count == cerebras.request_count == 0


def test_translate_menu_opens_it_on_the_window_document(make_window, qtbot) -> None:
    window = make_window()
    window.document_view.source.setPlainText("Hello world, compare me.\n")
    action = window.actions_.compare
    assert action.shortcut().toString() == "Ctrl+Shift+B"
    menus = [a.menu() for a in window.menuBar().actions() if a.menu() is not None]
    translate = next(m for m in menus if m.title() == "&Translate")
    assert action in translate.actions()
    action.trigger()
    dialog = window.findChild(CompareDialog, "compareDialog")
    assert dialog is not None and dialog.isVisible()
    assert dialog.document == "Hello world, compare me.\n"
    assert dialog.document_combo.currentText() == "Untitled (4 words)"
    assert dialog.task_label.text() == "Translate into French (fr)"
    assert open_compare_dialog(window) is dialog  # a second trigger raises the same one
    dialog.close()
