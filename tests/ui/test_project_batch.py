"""Translate Project in the window with a Batch API at hand (Groq on the loopback emulator,
through the real groq SDK): now or in a batch, both costs said; the job submitted, its pending
state shown, its answers written by a later Translate Project."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QLabel, QMessageBox, QPushButton

from tests.emulator import Emulator
from tests.project_kit import answer_in_language, make_project, use_emulator


@pytest.fixture
def emu(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    with Emulator(answer=answer_in_language) as e:
        use_emulator(monkeypatch, e)
        yield e


def groq_engine(emu: Emulator):  # type: ignore[no-untyped-def]
    def factory() -> object:
        from fastdesk.providers.groq import GroqProvider
        from fastdesk.routing.router import Router
        from fastdesk.routing.stats import StatsStore
        from fastdesk.translate.engine import Engine

        provider = GroqProvider("gsk_test", base_url=emu.groq_base_url)
        return Engine(Router({"groq": provider}, stats=StatsStore.memory()))

    return factory


def offer(qtbot, window) -> QMessageBox:  # type: ignore[no-untyped-def]
    window.translate_project()
    qtbot.waitUntil(
        lambda: (
            (box := window.findChild(QMessageBox, "batchOffer")) is not None and box.isVisible()
        ),
        timeout=20_000,
    )
    box = window.findChild(QMessageBox, "batchOffer")
    assert box is not None
    return box


def test_translate_project_offers_a_batch_then_writes_its_answers(
    make_window, qtbot, tmp_path: Path, emu: Emulator
) -> None:
    root = make_project(tmp_path / "site", "mkdocs-suffix")
    window = make_window(engine_factory=groq_engine(emu))
    assert window.open_project(root)
    qtbot.waitUntil(lambda: not window.project.reading, timeout=10_000)

    box = offer(qtbot, window)
    said = box.text() + "\n" + box.informativeText()
    assert "half price" in said and "Now: about $" in said and "In a batch: about $" in said
    batch = box.findChild(QPushButton, "batchOfferBatch")
    with qtbot.waitSignal(window.project_run.finished, timeout=20_000) as signal:
        batch.click()
    assert signal.args[0].startswith("Batch job batch_")
    assert emu.batches.uploads == 1 and emu.batches.created == 1
    assert not list(root.rglob("*.fr.md"))  # nothing written yet
    box.deleteLater()

    pending = offer(qtbot, window)  # the job is in progress: said, nothing more to send
    assert "in_progress" in pending.informativeText()
    assert pending.findChild(QPushButton, "batchOfferBatch") is None
    with qtbot.waitSignal(pending.finished, timeout=5_000):
        pending.reject()
    pending.deleteLater()

    with qtbot.waitSignal(window.project_run.finished, timeout=20_000) as signal:
        window.translate_project()  # the job is done: its answers are written
    assert signal.args == ["Project translated: 2 of 2 pages written"]  # 2 pages, in French
    assert emu.batches.uploads == 1 and len(emu.batches.lines) == 2
    latency = window.findChild(QLabel, "latencyLabel")
    qtbot.waitUntil(lambda: "batch job, half price" in latency.text(), timeout=5_000)
    for page in ("index", "sub/guide"):
        assert "Étape 0 of" in (root / f"docs/{page}.fr.md").read_text(encoding="utf-8")


def test_a_batchs_answers_come_with_the_nav_titles_as_a_live_run_does(
    make_window, qtbot, tmp_path: Path, emu: Emulator
) -> None:
    """Taking a job's answers in translates the labels outside the pages too (live: no job
    carries them), as Translate Project does without a batch."""
    from tests.project_kit import write

    root = make_project(tmp_path / "site", "mkdocs-suffix")
    config = root / "mkdocs.yml"
    write(
        config,
        config.read_text(encoding="utf-8").replace(
            "plugins:", "nav:\n  - Step in: index.md\nplugins:"
        ),
    )
    emu.batches.configure(steps=("validating", "completed"))  # done at the next poll
    window = make_window(engine_factory=groq_engine(emu))
    assert window.open_project(root)
    qtbot.waitUntil(lambda: not window.project.reading, timeout=10_000)
    box = offer(qtbot, window)
    with qtbot.waitSignal(window.project_run.finished, timeout=20_000):
        box.findChild(QPushButton, "batchOfferBatch").click()
    box.deleteLater()
    assert "nav_translations" not in config.read_text(encoding="utf-8")
    with qtbot.waitSignal(window.project_run.finished, timeout=20_000) as signal:
        window.translate_project()  # the job is done: its answers are written, then the titles
    assert signal.args == ["Project translated: 2 of 2 pages written"]
    assert '"Step in": "Étape in"' in config.read_text(encoding="utf-8")
    titles = [r for r in emu.chat_requests if "Step in" in str(r.body["messages"][-1])]
    assert len(titles) == 1  # live: no job carries it
