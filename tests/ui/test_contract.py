"""The window as users and scripts rely on it, through the real wiring (settings, env, SDK)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtWidgets import QComboBox, QLabel, QPlainTextEdit, QTextBrowser

from tests.emulator import Emulator


def shout(messages) -> str:
    """A 'translation' that is easy to recognise: the last user message upper-cased."""
    return [m for m in messages if m["role"] == "user"][-1]["content"].upper()


@pytest.fixture
def emu(monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    with Emulator(answer=shout) as e:
        monkeypatch.setenv("GROQ_API_KEY", "gsk_contract_test")
        monkeypatch.setenv("GROQ_BASE_URL", e.groq_base_url)
        yield e


def type_text(qtbot, widget, text: str) -> None:
    """Type like a person: characters, and Return for each newline (keyClicks takes no newline)."""
    from PySide6.QtCore import Qt

    for i, line in enumerate(text.split("\n")):
        if i:
            qtbot.keyClick(widget, Qt.Key.Key_Return)
        if line:
            qtbot.keyClicks(widget, line)


def test_typing_is_enough_for_the_target_to_hold_the_translation(qtbot, emu: Emulator) -> None:
    from fastdesk.ui import MainWindow

    window = MainWindow()
    window.files._ask_save = lambda: "discard"
    qtbot.addWidget(window)
    window.show()
    source = window.findChild(QPlainTextEdit, "sourceEditor")
    target = window.findChild(QPlainTextEdit, "targetEditor")
    for name, kind in [
        ("targetPreview", QTextBrowser),
        ("modeSelector", QComboBox),
        ("languageSelector", QComboBox),
        ("providerSelector", QComboBox),
        ("latencyLabel", QLabel),
        ("costLabel", QLabel),
    ]:
        assert isinstance(window.findChild(kind, name), kind), name
    languages = window.findChild(QComboBox, "languageSelector")
    assert "fr" in [languages.itemData(i) for i in range(languages.count())]

    source.setFocus()
    type_text(qtbot, source, "# Hello\n\nA first paragraph.\n")
    expected = "# HELLO\n\nA FIRST PARAGRAPH.\n"
    qtbot.waitUntil(lambda: target.toPlainText() == expected, timeout=10_000)

    # an edit of one paragraph sends that paragraph only
    sent = len(emu.chat_requests)
    type_text(qtbot, source, "\nSecond one.\n")
    qtbot.waitUntil(lambda: target.toPlainText() == expected + "\nSECOND ONE.\n", timeout=10_000)
    new = [r.body["messages"][-1]["content"] for r in emu.chat_requests[sent:]]
    assert new and all("HELLO" not in m and "Hello" not in m for m in new)

    latency = window.findChild(QLabel, "latencyLabel").text()
    assert "groq" in latency
    window.close()
