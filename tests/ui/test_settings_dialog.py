"""The Settings dialog (offscreen): keys go to the keyring only (an in-memory backend here),
"Test connection" lists the emulator's models without blocking the GUI thread, the no-keyring
notice, and saving every field through settings.save_settings."""

from __future__ import annotations

import gc
import threading
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import keyring
import keyring.core
import pytest
from keyring.backends import fail
from keyring.errors import KeyringLocked
from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFileDialog, QLabel, QLineEdit

from fastdesk.config import redact
from fastdesk.config.settings import Settings, load_settings, save_settings, settings_path
from fastdesk.providers.base import RequestStats
from fastdesk.routing.costs import CostLedger
from fastdesk.ui.bridge.threads import AsyncRunner
from fastdesk.ui.dialogs.settings import SettingsDialog
from tests.emulator import FOUNDING_MODELS, Emulator
from tests.keyrings import MemoryKeyring

GROQ_KEY = "gsk_DIALOGTEST_0123456789_abcdefWXYZ"
CEREBRAS_KEY = "csk-dialogtest_0123456789_abcdefwxyz"


class LockedKeyring(MemoryKeyring):
    def set_password(self, service: str, username: str, password: str) -> None:
        raise KeyringLocked("collection is locked")


@pytest.fixture(autouse=True)
def restore_keyring() -> Iterator[None]:
    previous = keyring.core._keyring_backend
    yield
    keyring.core._keyring_backend = previous
    redact.clear_secrets()


@pytest.fixture
def memory() -> MemoryKeyring:
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    return backend


@pytest.fixture
def emulator() -> Iterator[Emulator]:
    with Emulator() as emu:
        yield emu


@pytest.fixture
def make_dialog(qtbot) -> Iterator:
    dialogs: list[SettingsDialog] = []

    def make(settings: Settings | None = None, **kw: Any) -> SettingsDialog:
        dialog = SettingsDialog(settings, **kw)
        dialog.confirm = lambda question: True
        qtbot.addWidget(dialog)
        dialog.show()
        dialogs.append(dialog)
        return dialog

    yield make
    for dialog in dialogs:
        dialog.runner.close()


def save(dialog: SettingsDialog) -> None:
    dialog.buttons.button(QDialogButtonBox.StandardButton.Save).click()


def test_entering_a_key_stores_it_in_the_keyring(make_dialog, memory, qtbot) -> None:
    dialog = make_dialog()
    box = dialog.boxes["groq"]
    assert box.key_edit.echoMode() == QLineEdit.EchoMode.Password
    assert box.key_state.text() == "No key stored."
    assert not box.delete_button.isEnabled()
    qtbot.keyClicks(box.key_edit, f"  {GROQ_KEY} ")
    with qtbot.waitSignal(dialog.settingsSaved) as saved:
        save(dialog)
    assert memory.items == {("fastdesk", "groq"): GROQ_KEY}
    assert dialog.result() == QDialog.DialogCode.Accepted
    assert isinstance(saved.args[0], Settings)
    assert box.key_edit.text() == ""
    assert box.key_state.text() == "Stored in the OS keyring: gsk_…WXYZ."
    text = settings_path().read_text(encoding="utf-8")
    assert GROQ_KEY not in text and "WXYZ" not in text


def test_stored_key_is_shown_masked_and_can_be_deleted(make_dialog, memory, qtbot) -> None:
    memory.items[("fastdesk", "cerebras")] = CEREBRAS_KEY
    dialog = make_dialog()
    box = dialog.boxes["cerebras"]
    assert box.key_state.text() == "Stored in the OS keyring: csk-…wxyz."
    assert CEREBRAS_KEY not in box.key_edit.text() + box.key_edit.placeholderText()
    assert box.delete_button.isEnabled()
    asked: list[str] = []
    dialog.confirm = lambda question: asked.append(question) or True
    qtbot.mouseClick(box.delete_button, Qt.MouseButton.LeftButton)
    assert memory.items == {}
    assert asked == ["Delete the stored Cerebras key from the OS keyring?"]
    assert box.key_state.text() == "No key stored."
    assert box.result_label.text() == "Key deleted."
    assert not box.delete_button.isEnabled()
    # nothing saved: the window still hears that keys changed
    with qtbot.waitSignal(dialog.keysChanged):
        dialog.reject()


def test_delete_asks_first(make_dialog, memory, qtbot) -> None:
    memory.items[("fastdesk", "groq")] = GROQ_KEY
    dialog = make_dialog()
    dialog.confirm = lambda question: False
    qtbot.mouseClick(dialog.boxes["groq"].delete_button, Qt.MouseButton.LeftButton)
    assert memory.items == {("fastdesk", "groq"): GROQ_KEY}


def test_environment_key_wins_and_is_masked(make_dialog, memory, monkeypatch) -> None:
    monkeypatch.setenv("GROQ_API_KEY", GROQ_KEY)
    dialog = make_dialog()
    state = dialog.boxes["groq"].key_state.text()
    assert state == "Using GROQ_API_KEY (gsk_…WXYZ): the environment wins."
    assert GROQ_KEY not in state


def test_test_connection_lists_models_in_the_background(
    make_dialog, memory, emulator, monkeypatch, qtbot
) -> None:
    monkeypatch.setenv("GROQ_BASE_URL", emulator.groq_base_url)
    gate = threading.Event()  # the server answers only once the test opens it
    emulator.configure(require_key=GROQ_KEY, hold_before_answer=gate, models=FOUNDING_MODELS)
    dialog = make_dialog()
    box = dialog.boxes["groq"]
    box.key_edit.setText(GROQ_KEY)  # typed, not saved: the test uses it
    qtbot.mouseClick(box.test_button, Qt.MouseButton.LeftButton)
    # the click returned while the server could not answer: it did not wait for the answer
    assert not gate.is_set()
    assert not box.test_button.isEnabled() and box.test_button.text() == "Testing…"
    assert box.result_label.text() == "Connecting…"
    gate.set()
    qtbot.waitUntil(lambda: box.test_button.isEnabled(), timeout=5000)
    result = box.result_label.text()
    assert result.startswith("Connected in ") and " ms · 4 models: " in result
    assert box.result_label.toolTip().split("\n") == sorted(FOUNDING_MODELS["groq"])
    listed = [box.model_combo.itemText(i) for i in range(box.model_combo.count())]
    assert set(FOUNDING_MODELS["groq"]) <= set(listed)
    assert box.model_combo.currentText() == "openai/gpt-oss-20b"  # the choice is kept
    assert emulator.requests[-1].path == "/openai/v1/models" and emulator.requests[-1].auth
    assert memory.items == {}  # testing does not store the key


def test_failed_connection_says_why_without_the_key(
    make_dialog, memory, emulator, monkeypatch, qtbot
) -> None:
    monkeypatch.setenv("CEREBRAS_BASE_URL", emulator.cerebras_base_url)
    emulator.configure(require_key="csk-theothergoodkey_0123456789")
    dialog = make_dialog()
    box = dialog.boxes["cerebras"]
    box.key_edit.setText(CEREBRAS_KEY)
    box.test_button.click()
    qtbot.waitUntil(lambda: box.test_button.isEnabled(), timeout=5000)
    text = box.result_label.text()
    assert text.startswith("Failed: cerebras:")
    assert CEREBRAS_KEY not in text


def test_test_connection_without_a_key_says_so(make_dialog, memory, qtbot) -> None:
    dialog = make_dialog()
    box = dialog.boxes["groq"]
    box.test_button.click()
    qtbot.waitUntil(lambda: box.test_button.isEnabled(), timeout=5000)
    assert box.result_label.text() == "Failed: enter a groq key first"


def test_a_hanging_server_never_freezes_the_dialog(
    make_dialog, memory, emulator, monkeypatch, qtbot
) -> None:
    monkeypatch.setenv("GROQ_BASE_URL", emulator.groq_base_url)
    emulator.fail_hang(on="models")
    dialog = make_dialog()
    box = dialog.boxes["groq"]
    box.key_edit.setText(GROQ_KEY)
    box.test_button.click()
    assert emulator.wait_for(lambda: emulator.request_count >= 1)
    ticks: list[None] = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(None))
    timer.start(10)
    # the event loop keeps running while the request hangs for ever (how smooth it runs is a
    # figure: benchmarks/bench_ui.py and stall_trace.py print the GUI thread's stalls)
    qtbot.waitUntil(lambda: len(ticks) >= 10, timeout=10_000)
    timer.stop()
    assert box.test_button.text() == "Testing…"  # still waiting: the server never answers
    dialog.reject()  # closing cancels the request: it returns although the server hangs on
    assert not dialog.runner._thread.running
    assert emulator.wait_for(lambda: emulator.disconnects >= 1)


def test_openai_compatible_server(make_dialog, memory, emulator, qtbot) -> None:
    emulator.configure(models={"openai": ["qwen3:8b", "gemma3:4b"]})
    dialog = make_dialog()
    box = dialog.boxes["openai"]
    assert box.url_edit is not None
    box.url_edit.setText(emulator.openai_base_url)
    box.test_button.click()
    qtbot.waitUntil(lambda: box.test_button.isEnabled(), timeout=5000)
    assert "2 models: gemma3:4b, qwen3:8b" in box.result_label.text()
    assert not emulator.requests[-1].auth  # no key needed
    box.model_combo.setCurrentText("qwen3:8b")
    assert box.price_label.text() == "free (local server)"
    save(dialog)
    saved = load_settings()[0]
    assert saved.base_urls == {"openai": emulator.openai_base_url}
    assert saved.models == {"openai": "qwen3:8b"}


def test_no_keyring_says_so_and_points_to_the_environment(make_dialog, qtbot) -> None:
    keyring.set_keyring(fail.Keyring())
    dialog = make_dialog()
    notice = dialog.findChild(QLabel, "keyringNotice")
    assert notice is not None and notice.isVisible()
    text = notice.text()
    assert "Keys cannot be stored on this computer" in text
    for name in ("GROQ_API_KEY", "CEREBRAS_API_KEY", "FASTDESK_OPENAI_API_KEY"):
        assert name in text
    assert "never writes keys to a file" in text
    for name, box in dialog.boxes.items():
        assert not box.key_edit.isEnabled()
        assert not box.delete_button.isEnabled()
        assert name.upper() in box.key_edit.placeholderText().upper()
    save(dialog)  # the rest still saves
    assert dialog.result() == QDialog.DialogCode.Accepted


def test_a_locked_keyring_keeps_the_dialog_open(make_dialog, qtbot) -> None:
    keyring.set_keyring(LockedKeyring())
    dialog = make_dialog()
    dialog.boxes["groq"].key_edit.setText(GROQ_KEY)
    save(dialog)
    assert dialog.isVisible()
    assert dialog.error_label.text() == "Not saved: the groq key could not be stored (see above)."
    shown = dialog.boxes["groq"].result_label.text()
    assert shown.startswith("Key not stored: OS keyring unavailable")
    assert GROQ_KEY not in shown
    assert not settings_path().exists()


def test_saving_every_field(make_dialog, memory, qtbot, tmp_path: Path) -> None:
    save_settings(Settings(theme="dark", recent_files=("/a.md",), models={"cerebras": "x"}))
    dialog = make_dialog(load_settings()[0])
    dialog.tabs.setCurrentIndex(1)
    dialog.language_combo.setCurrentIndex(dialog.language_combo.findData("pt-BR"))
    dialog.mode_combo.setCurrentIndex(dialog.mode_combo.findData("simplify"))
    dialog.provider_combo.setCurrentIndex(dialog.provider_combo.findData("cerebras"))
    dialog.debounce_spin.setValue(550)
    dialog.live_check.setChecked(False)
    dialog.hedging_check.setChecked(True)
    dialog.warmup_check.setChecked(False)
    assert dialog.findChild(QLabel, "hedgingNote").text() == (
        "This may double the cost of slow requests."
    )
    dialog.budget_edit.setText("2.5")
    glossary = tmp_path / "terms.toml"
    dialog.glossary_edit.setText(str(glossary))
    groq = dialog.boxes["groq"]
    groq.model_combo.setCurrentText("brand-new-model")  # any id: usable, cost unknown
    assert groq.price_label.text() == "cost unknown (not in the price table)"
    dialog.boxes["cerebras"].model_combo.setCurrentText("gpt-oss-120b")  # back to the default
    with qtbot.waitSignal(dialog.settingsSaved) as signal:
        save(dialog)
    saved, warnings = load_settings()
    assert warnings == []
    assert signal.args[0] == saved
    assert saved.target_language == "pt-BR"
    assert saved.mode == "simplify"
    assert saved.provider == "cerebras"
    assert saved.debounce_ms == 550
    assert saved.live is False and saved.hedging is True and saved.warmup is False
    assert saved.daily_budget_usd == 2.5
    assert saved.glossary_path == str(glossary)
    assert saved.models == {"groq": "brand-new-model"}  # the default is not pinned
    assert saved.theme == "dark" and saved.recent_files == ("/a.md",)  # untouched


def test_known_model_shows_its_price_and_date(make_dialog, memory) -> None:
    dialog = make_dialog()
    groq = dialog.boxes["groq"]
    groq.model_combo.setCurrentText("llama-3.1-8b-instant")
    assert groq.price_label.text() == ("$0.05 in / $0.08 out per M tokens (price read 2026-07-15)")


def test_empty_budget_is_no_limit_and_typed_language_codes(make_dialog, memory) -> None:
    save_settings(Settings(daily_budget_usd=3.0))
    dialog = make_dialog(load_settings()[0])
    assert dialog.budget_edit.text() == "3"
    dialog.budget_edit.clear()
    dialog.language_combo.setEditText("fr-BE")
    save(dialog)
    saved = load_settings()[0]
    assert saved.daily_budget_usd is None and saved.target_language == "fr-BE"


@pytest.mark.parametrize(
    ("typed", "code"), [("German", "de"), ("Canadian French (fr-CA)", "fr-CA"), ("es", "es")]
)
def test_language_names_and_codes(make_dialog, memory, typed: str, code: str) -> None:
    dialog = make_dialog()
    dialog.language_combo.setEditText(typed)
    assert dialog.language_code() == code


def test_a_bad_language_is_not_saved(make_dialog, memory) -> None:
    dialog = make_dialog()
    dialog.language_combo.setEditText("Klingon!!")
    save(dialog)
    assert dialog.isVisible()
    assert "target language" in dialog.error_label.text()
    assert dialog.tabs.currentIndex() == 1
    assert not settings_path().exists()


def test_the_reviewer_pass_and_its_model(make_dialog, memory, qtbot) -> None:
    save_settings(Settings(review="off", review_model="groq/openai/gpt-oss-20b"))
    dialog = make_dialog(load_settings()[0])
    assert dialog.review_combo.currentData() == "off"
    assert dialog.review_model_edit.text() == "groq/openai/gpt-oss-20b"
    assert [dialog.review_combo.itemData(i) for i in range(dialog.review_combo.count())] == [
        "auto",
        "on",
        "off",
    ]
    dialog.review_combo.setCurrentIndex(dialog.review_combo.findData("on"))
    dialog.review_model_edit.setText(" cerebras/gpt-oss-120b ")
    with qtbot.waitSignal(dialog.settingsSaved):
        save(dialog)
    saved = load_settings()[0]
    assert saved.review == "on" and saved.review_model == "cerebras/gpt-oss-120b"


@pytest.mark.parametrize("typed", ["gpt-oss-120b", "mistral/large", "groq/", "groq/  "])
def test_a_bad_reviewer_model_is_not_saved(make_dialog, memory, typed: str) -> None:
    dialog = make_dialog()
    dialog.review_model_edit.setText(typed)
    save(dialog)
    assert dialog.isVisible()
    assert "reviewer model must be provider/model" in dialog.error_label.text()
    assert dialog.tabs.currentIndex() == 1
    assert not settings_path().exists()


def test_an_empty_reviewer_model_means_the_fastest(make_dialog, memory, qtbot) -> None:
    save_settings(Settings(review_model="groq/x"))
    dialog = make_dialog(load_settings()[0])
    dialog.review_model_edit.clear()
    with qtbot.waitSignal(dialog.settingsSaved):
        save(dialog)
    assert load_settings()[0].review_model == "" and load_settings()[0].review == "auto"


def test_budget_field_takes_only_amounts(make_dialog, memory, qtbot) -> None:
    dialog = make_dialog()
    dialog.tabs.setCurrentIndex(1)
    dialog.budget_edit.setFocus()
    qtbot.keyClicks(dialog.budget_edit, "abc1.25x")
    assert dialog.budget_edit.text() == "1.25"


def test_spent_today_comes_from_the_ledger(make_dialog, memory) -> None:
    ledger = CostLedger()
    ledger.record(RequestStats("groq", "m", "ok", ttfb_ms=1.0, cost_usd=0.0123))
    ledger.record(RequestStats("groq", "m", "ok", ttfb_ms=1.0, cost_usd=None))
    dialog = make_dialog(ledger=ledger)
    assert dialog.spent_label.text() == "Spent today: $0.0123 + 1 request of unknown cost"


def test_glossary_browse(make_dialog, memory, monkeypatch, tmp_path: Path) -> None:
    chosen = str(tmp_path / "g.toml")
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (chosen, "TOML"))
    dialog = make_dialog()
    dialog.findChild(type(dialog.buttons.buttons()[0]), "glossaryBrowse").click()
    assert dialog.glossary_edit.text() == chosen


def test_keyboard_escape_cancels_enter_saves(make_dialog, memory, qtbot) -> None:
    dialog = make_dialog()
    dialog.tabs.setCurrentIndex(1)
    dialog.debounce_spin.setValue(900)
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    assert dialog.result() == QDialog.DialogCode.Rejected
    assert not settings_path().exists()

    dialog = make_dialog()
    box = dialog.boxes["groq"]
    box.key_edit.setFocus()
    qtbot.keyClicks(box.key_edit, GROQ_KEY)
    qtbot.keyClick(box.key_edit, Qt.Key.Key_Return)  # Enter: the default button (Save)
    assert dialog.result() == QDialog.DialogCode.Accepted
    assert memory.items == {("fastdesk", "groq"): GROQ_KEY}


def test_labels_have_buddies_and_buttons_do_not_steal_enter(make_dialog, memory) -> None:
    dialog = make_dialog()
    labels = dialog.findChildren(QLabel)
    with_mnemonic = [label for label in labels if "&" in label.text() and "<" not in label.text()]
    assert len(with_mnemonic) >= 10
    for label in with_mnemonic:
        assert label.buddy() is not None, label.text()
    for box in dialog.boxes.values():
        assert not box.test_button.autoDefault() and not box.delete_button.autoDefault()
    assert dialog.buttons.button(QDialogButtonBox.StandardButton.Save).isDefault()


def test_runner_reports_errors_and_closes(qtbot) -> None:
    runner = AsyncRunner()
    got: list[tuple[object, object]] = []

    async def boom() -> None:
        raise ValueError("nope")

    async def fine() -> int:
        return 42

    runner.submit(boom, lambda r, e: got.append((r, e)))
    runner.submit(fine, lambda r, e: got.append((r, e)))
    qtbot.waitUntil(lambda: len(got) == 2, timeout=2000)
    assert (42, None) in got
    assert any(isinstance(e, ValueError) for _, e in got)
    runner.close()
    runner.close()
    with pytest.raises(RuntimeError):
        runner.submit(fine, lambda r, e: None)


def test_wiring_into_the_window(make_window, memory, qtbot) -> None:
    """The documented wiring: settingsSaved → MainWindow.apply_settings (restarts the engine)."""
    window = make_window()
    dialog = SettingsDialog(window.settings, window)
    dialog.confirm = lambda question: True
    dialog.settingsSaved.connect(window.apply_settings)
    dialog.open()
    dialog.tabs.setCurrentIndex(1)
    dialog.debounce_spin.setValue(750)
    dialog.boxes["groq"].key_edit.setText(GROQ_KEY)
    save(dialog)
    assert window.settings.debounce_ms == 750
    assert window.document_view.sending._debounce.interval() == 750
    assert memory.items == {("fastdesk", "groq"): GROQ_KEY}
    assert not dialog.runner.busy


def test_runner_never_calls_back_inside_submit(qtbot) -> None:
    """Even an instant result arrives through the event loop, after submit() has returned."""
    runner = AsyncRunner()
    got: list[int] = []
    done = threading.Event()

    async def instant() -> int:
        done.set()
        return 1

    token = runner.submit(instant, lambda r, e: got.append(r))
    assert done.wait(30)  # (a hang guard)
    # the loop thread has reported the outcome (its coroutine has ended); the GUI thread has
    # not run its events yet, so nothing was called back
    runner._futures[token].result(timeout=30)
    assert got == []
    qtbot.waitUntil(lambda: got == [1], timeout=2000)
    assert not runner.busy
    runner.close()


class _Cycle:
    """Holds a Qt object and itself: only the cyclic garbage collector can free it."""

    def __init__(self, obj: QObject) -> None:
        self.obj = obj
        self.me = self


def _churn() -> int:
    """Allocation-heavy work, like a first SDK import: many times the collector's threshold."""
    cycles = []
    for _ in range(20 * gc.get_threshold()[0]):
        cell: list[object] = []
        cell.append(cell)
        cycles.append(cell)
    return len(cycles)


def test_qt_garbage_is_collected_on_the_gui_thread_only(qtbot) -> None:
    """A Qt object that died in a reference cycle (a closed dialog, say) is never finalised by a
    collection the loop thread happens to trigger: that deleted Qt objects off the GUI thread and
    crashed the process (SIGSEGV, 1 run in 15 of this file under load) before the runner made
    the GUI thread the only one that collects."""
    enabled_before = gc.isenabled()
    collected_on: set[str] = set()
    finalised_on: list[str] = []

    def record(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collected_on.add(threading.current_thread().name)

    gc.callbacks.append(record)
    runner = AsyncRunner()
    try:
        got: list[object] = []

        async def first() -> int:
            return 0

        runner.submit(first, lambda r, e: got.append(r))  # the loop thread is running
        qtbot.waitUntil(lambda: got == [0], timeout=2000)
        automatic_while_running = gc.isenabled()

        obj = QObject()
        weakref.finalize(obj, lambda: finalised_on.append(threading.current_thread().name))
        _Cycle(obj)
        del obj  # unreachable now, but alive until a collection finds the cycle

        async def churn() -> int:
            return _churn()

        runner.submit(churn, lambda r, e: got.append(r))
        qtbot.waitUntil(lambda: len(got) == 2, timeout=5000)
        qtbot.waitUntil(lambda: finalised_on != [], timeout=2000)  # the GUI thread's timer
    finally:
        runner.close()
        gc.callbacks.remove(record)
    assert finalised_on == [threading.main_thread().name]
    assert "fastdesk-settings-io" not in collected_on
    assert not automatic_while_running  # the GUI thread's timer collected instead
    assert gc.isenabled() == enabled_before  # given back when the thread has ended


def test_the_connection_test_hands_the_loop_thread_no_widget(
    make_dialog, memory, emulator, monkeypatch, qtbot
) -> None:
    """What runs in the loop thread holds plain values only: the last reference to a widget
    must never be dropped there."""
    monkeypatch.setenv("GROQ_BASE_URL", emulator.groq_base_url)
    dialog = make_dialog()
    box = dialog.boxes["groq"]
    box.key_edit.setText(GROQ_KEY)
    captured: list[object] = []  # never printed: it holds the key
    submit = dialog.runner.submit

    def spy(make, on_done):
        captured.extend(cell.cell_contents for cell in make.__closure__ or ())
        return submit(make, on_done)

    monkeypatch.setattr(dialog.runner, "submit", spy)
    box.test_button.click()
    qtbot.waitUntil(lambda: box.test_button.isEnabled(), timeout=5000)
    widgets = [type(value).__name__ for value in captured if isinstance(value, QObject)]
    assert len(captured) >= 3  # name, key, base URL, prices: values, shown by type only (a key)
    assert widgets == []


def test_per_language_preferences_are_not_saved_as_the_general_model(make_dialog, memory) -> None:
    settings = Settings(preferred_models={"fr": {"groq": "qwen/qwen3-32b"}})
    save_settings(settings)
    dialog = make_dialog(load_settings()[0])
    assert dialog.boxes["groq"].model_combo.currentText() == "openai/gpt-oss-20b"
    save(dialog)
    saved = load_settings()[0]
    assert saved.models == {}
    assert saved.preferred_models == {"fr": {"groq": "qwen/qwen3-32b"}}


def test_clear_memory_asks_then_empties_it(make_dialog, memory) -> None:
    from fastdesk.translate.memory import Memory, MemoryKey

    store = Memory()
    store.put(MemoryKey("Hello", "translate", "fr", "1"), "Bonjour", provider="groq", model="m")
    store.close()
    dialog = make_dialog()
    label = dialog.findChild(QLabel, "memoryCount")
    assert label.text() == "1 stored translations"
    dialog.confirm = lambda question: False
    dialog.clear_memory()
    assert label.text() == "1 stored translations"
    dialog.confirm = lambda question: True
    dialog.clear_memory()
    assert label.text() == "0 stored translations"
    check = Memory()
    assert check.count() == 0
    check.close()
