"""Translate Project's dialog says which page is being translated, how many are done and about
how long the rest takes, in a dialog wide enough for its title and text (pytest-qt, offscreen)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QLabel

from fastdesk.ui.workbench.project_run import progress_text
from tests.ui.test_project_panel import opened, site  # noqa: F401 - the fixture


def test_progress_text_names_the_page_and_the_time_left() -> None:
    assert progress_text("", 0, 68, 0, 0.0) == (
        "Translating…\n0 of 68 pages done · time left: after the first page"
    )
    # 2 pages up to date at once, 4 translated in 60 s: 62 left at 15 s each
    text = progress_text("docs/guide.md → fr", 6, 68, 2, 60.0)
    assert text == "Translating docs/guide.md → fr\n6 of 68 pages done · about 16 min left"
    assert progress_text("docs/a.md → de", 68, 68, 0, 90.0).endswith("68 of 68 pages done")


def test_the_dialog_shows_the_page_and_fits_its_text(
    make_window,
    qtbot,
    site: Path,  # noqa: F811
    provider,
) -> None:
    window = opened(make_window, qtbot, site, page=None)
    qtbot.waitUntil(lambda: not window.document_view.pending)
    run = window.project_run
    seen: list[str] = []
    run.working.connect(seen.append)
    with qtbot.waitSignal(run.finished, timeout=20_000):
        assert run.start(window.project.project)
        progress = run.progress
        assert progress is not None
        label = progress.findChild(QLabel, "projectRunLabel")
        title = progress.fontMetrics().horizontalAdvance(progress.windowTitle())
        assert progress.width() >= 3 * title
        texts: list[str] = []
        watch = QTimer(progress)  # what the dialog says, read in the GUI thread as it runs
        watch.timeout.connect(lambda: texts.append(label.text()))
        watch.start(5)
    assert seen and all(" → " in page for page in seen)
    assert any(t.startswith("Translating docs/") and "pages done" in t for t in texts), texts
    assert any("of 4 pages done" in t for t in texts)
