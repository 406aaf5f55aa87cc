"""A docs project that names no target language: the window offers the language on show and
writes it to the project's .fastdesk.toml in one click, then opens the project, instead of
refusing it."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QMessageBox, QPushButton

from tests.project_kit import write

PAGE = "# Hello\n\nHello world, a first paragraph.\n"


def test_a_project_without_languages_is_offered_the_language_on_show(
    make_window, qtbot, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "site"
    write(root / "mkdocs.yml", "site_name: t\n")
    write(root / "docs/index.md", PAGE)
    window = make_window()
    lang = window.selectors.spec().target_lang
    assert not window.open_project(root)  # not yet: the question is open
    box = window.findChild(QMessageBox, "languagesBox")
    assert box is not None
    qtbot.waitUntil(box.isVisible, timeout=5_000)
    assert "French" in box.text() and lang == "fr"
    box.findChild(QPushButton, "setLanguages").click()
    qtbot.waitUntil(lambda: window.project.project is not None, timeout=10_000)
    assert (root / ".fastdesk.toml").read_text(encoding="utf-8") == 'languages = ["fr"]\n'
    assert window.project.project.languages == ("fr",)
    assert window.project.dock.isVisible()
    qtbot.waitUntil(lambda: not window.project.reading, timeout=10_000)


def test_declining_the_offer_writes_nothing(make_window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "site"
    write(root / "mkdocs.yml", "site_name: t\n")
    write(root / "docs/index.md", PAGE)
    window = make_window()
    assert not window.open_project(root)
    box = window.findChild(QMessageBox, "languagesBox")
    qtbot.waitUntil(box.isVisible, timeout=5_000)
    box.button(QMessageBox.StandardButton.Cancel).click()
    qtbot.waitUntil(lambda: not box.isVisible(), timeout=5_000)
    assert not (root / ".fastdesk.toml").exists()
    assert window.project.project is None
