"""Warm start and provider health in the window (docs/routing.md §3 and §8).

Through the real wiring (settings, environment, SDK, emulator): opening the window with a
provider configured sends the one-token "Hi", unless today's budget is spent or the user turned
warm-ups off; a refused key shows in the status bar and stays there while another provider
answers. With the fake provider: a second warm-up goes out only after a long idle.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QApplication

from fastdesk.config.settings import Settings
from tests.emulator import Emulator, RecordedRequest

GROQ_KEY = "gsk_WARMUPTEST_0123456789_abcdefWXYZ"
CEREBRAS_KEY = "csk-warmuptest_0123456789_abcdefwxyz"
REFUSED = "groq: the API key was refused — open Settings"


def shout(messages) -> str:
    """An answer easy to tell from the source (pending blocks show the source meanwhile)."""
    return [m for m in messages if m["role"] == "user"][-1]["content"].upper()


def is_warmup(request: RecordedRequest) -> bool:
    body = request.body
    return body["messages"] == [{"role": "user", "content": "Hi"}] and (
        body.get("max_completion_tokens") == 1 or body.get("max_tokens") == 1
    )


@pytest.fixture
def groq(monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    with Emulator(answer=shout) as emu:
        monkeypatch.setenv("GROQ_API_KEY", GROQ_KEY)
        monkeypatch.setenv("GROQ_BASE_URL", emu.groq_base_url)
        yield emu


@pytest.fixture
def real_window(qtbot) -> Iterator[Callable[..., object]]:
    """MainWindow with the app's own engine (settings + environment → SDK → emulator)."""
    from fastdesk.ui import MainWindow

    windows: list[MainWindow] = []

    def make(settings: Settings | None = None) -> MainWindow:
        window = MainWindow(settings=settings or Settings(debounce_ms=20))
        window.files._ask_save = lambda: "discard"
        qtbot.addWidget(window)
        window.show()
        windows.append(window)
        return window

    yield make
    for window in windows:
        window.close()
        assert not window.document_view.worker.running


def translate(qtbot, window, text: str) -> None:
    """Set the source and wait for its "translation" (the emulators shout)."""
    window.document_view.source.setPlainText(text)
    qtbot.waitUntil(
        lambda: window.document_view.target_editor.toPlainText() == text.upper(), timeout=10_000
    )


def test_opening_the_window_warms_the_provider_up(qtbot, groq, real_window) -> None:
    window = real_window()
    qtbot.waitUntil(lambda: any(is_warmup(r) for r in groq.chat_requests), timeout=10_000)
    assert len(groq.chat_requests) == 1
    assert groq.chat_requests[0].body["model"] == "openai/gpt-oss-20b"
    # billed like any request, so today's spend counts it; but it is not a translation: the
    # status bar does not show it as the last request
    qtbot.waitUntil(lambda: window.status.ledger.since_start.requests == 1)
    # … and said, beside the session's cost that counts it
    assert window.status.latency.text() == "No translation yet · groq warmed up"
    assert window.status.cost.text().startswith("last –")
    # the first edit goes out as a normal request, with no second warm-up
    translate(qtbot, window, "Hello there.\n")
    assert [is_warmup(r) for r in groq.chat_requests] == [True, False]
    qtbot.waitUntil(lambda: window.status.latency.text().startswith("groq · openai/gpt-oss-20b"))


@pytest.mark.parametrize(
    "settings",
    [
        pytest.param(Settings(debounce_ms=20, daily_budget_usd=0.0), id="budget-spent"),
        pytest.param(Settings(debounce_ms=20, warmup=False), id="turned-off"),
    ],
)
def test_no_warm_up_when_the_budget_is_spent_or_it_is_off(
    qtbot, groq, real_window, settings
) -> None:
    window = real_window(settings)
    # a warm-up would be sent before anything typed afterwards (the worker runs in order)
    translate(qtbot, window, "Hello there.\n")
    assert groq.chat_requests and not any(is_warmup(r) for r in groq.chat_requests)


def test_a_refused_key_shows_before_typing(qtbot, groq, real_window) -> None:
    groq.configure(require_key="gsk_theRIGHTkey_0123456789_abcdefWXYZ")
    window = real_window()
    qtbot.waitUntil(lambda: window.status.error_message == REFUSED, timeout=10_000)
    assert window.status.error_button.isVisible()
    assert "check it in Settings" in window.status.error_detail
    assert GROQ_KEY not in window.status.error_message + window.status.error_detail


@pytest.fixture
def refused_and_working(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Emulator, Emulator]]:
    """Groq refuses the key it is given; Cerebras answers."""
    with (
        Emulator(require_key="gsk_theRIGHTkey_0123456789_abcdefWXYZ") as groq,
        Emulator(answer=shout) as cerebras,
    ):
        monkeypatch.setenv("GROQ_API_KEY", GROQ_KEY)
        monkeypatch.setenv("GROQ_BASE_URL", groq.groq_base_url)
        monkeypatch.setenv("CEREBRAS_API_KEY", CEREBRAS_KEY)
        monkeypatch.setenv("CEREBRAS_BASE_URL", cerebras.cerebras_base_url)
        yield groq, cerebras


def test_the_refused_key_stays_shown_while_another_provider_answers(
    qtbot, refused_and_working, real_window
) -> None:
    _groq, cerebras = refused_and_working
    window = real_window(Settings(debounce_ms=20, provider="groq"))
    qtbot.waitUntil(lambda: window.status.error_message == REFUSED, timeout=10_000)
    window.selectors.provider.setCurrentIndex(window.selectors.provider.findData("cerebras"))
    translate(qtbot, window, "Hello there.\n")
    assert cerebras.chat_requests
    assert window.status.latency.text().startswith("cerebras")
    assert window.status.error_message == REFUSED  # a success elsewhere did not hide it


def test_a_second_warm_up_only_after_a_long_idle(make_window, provider, qtbot) -> None:
    def warmups() -> int:
        return sum(1 for r in provider.requests if r.max_tokens == 1)

    window = make_window(warmup=True)  # the fake provider; warm-ups are off by default there
    worker = window.document_view.worker
    worker.warmer.ask_interval_s = 0.0
    qtbot.waitUntil(lambda: warmups() == 1)
    assert provider.requests[0].messages == [{"role": "user", "content": "Hi"}]
    # coming back to the window soon after: nothing is sent
    with qtbot.waitActive(window):
        window.activateWindow()
    QApplication.sendEvent(window, QEvent(QEvent.Type.ActivationChange))
    window.document_view.source.setPlainText("Hello world")
    qtbot.waitUntil(lambda: window.document_view.target_editor.toPlainText() == "Bonjour monde")
    assert warmups() == 1
    # coming back after the idle time: a new warm-up
    worker.warmer.warmup_idle_s = 0.0
    QApplication.sendEvent(window, QEvent(QEvent.Type.ActivationChange))
    qtbot.waitUntil(lambda: warmups() == 2)


def test_tests_and_benchmarks_get_no_warm_up_by_default(make_window, provider, qtbot) -> None:
    window = make_window()
    assert not window.warmup_enabled
    window.document_view.source.setPlainText("Hello world")
    qtbot.waitUntil(lambda: window.document_view.target_editor.toPlainText() == "Bonjour monde")
    assert all(r.max_tokens != 1 for r in provider.requests)
