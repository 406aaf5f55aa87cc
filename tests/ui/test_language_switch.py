"""Switching the target language when the memory (or the review) has the answers: no request
for a block it knows, the target filled from the first delivery (through the real wiring, the
emulator counting requests)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.emulator import Emulator
from tests.project_kit import answer_in_language, use_emulator
from tests.ui.uifakes import round_trip

TEXT = "# Step one\n\nStep two is a paragraph.\n\n- Step three\n- Step four\n"
FR = TEXT.replace("Step", "Étape")
DE = TEXT.replace("Step", "Schritt")


@pytest.fixture
def emu(monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    with Emulator(answer=answer_in_language) as e:
        use_emulator(monkeypatch, e)
        yield e


def window(qtbot):  # type: ignore[no-untyped-def]
    from fastdesk.config.settings import Settings
    from fastdesk.ui import MainWindow

    w = MainWindow(settings=Settings(debounce_ms=40, warmup=False), offer_recovery=False)
    w.files._ask_save = lambda: "discard"
    qtbot.addWidget(w)
    w.show()
    return w


def target(w) -> str:  # type: ignore[no-untyped-def]
    return w.document_view.review_ctl.target_text()


def test_switching_back_and_forth_asks_nothing_the_memory_knows(qtbot, emu: Emulator) -> None:
    first = window(qtbot)
    first.set_language("fr")
    first.document_view.load(TEXT, None)
    qtbot.waitUntil(lambda: target(first) == FR, timeout=10_000)
    first.set_language("de")
    qtbot.waitUntil(lambda: target(first) == DE, timeout=10_000)
    asked = emu.request_count
    assert asked > 0

    # back to French in the same window: the review holds it, shown before any event is read
    first.set_language("fr")
    assert target(first) == FR
    round_trip(qtbot, first.document_view)  # the engine has heard the switch and answered
    assert emu.request_count == asked
    first.close()

    # a new window, the same memory: each language is filled from its first delivery
    second = window(qtbot)
    second.set_language("fr")
    deliveries: list[object] = []
    second.document_view.engine_news.connect(deliveries.append)
    second.document_view.load(TEXT, None)
    qtbot.waitUntil(lambda: target(second) == FR, timeout=10_000)
    for lang, expected in (("de", DE), ("fr", FR), ("de", DE)):
        deliveries.clear()
        second.set_language(lang)
        qtbot.waitUntil(lambda: bool(deliveries), timeout=10_000)
        assert target(second) == expected, lang  # the first delivery after the switch filled it
    qtbot.waitUntil(lambda: second.document_view.target_editor.toPlainText() == DE, timeout=5_000)
    assert emu.request_count == asked
    second.close()
