"""The application shell: themes, files handed over by the OS."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QFileOpenEvent, QPalette
from PySide6.QtWidgets import QApplication, QPlainTextEdit

from fastdesk.ui.app import FastdeskApp, palette


def test_dark_and_light_palettes_differ_and_keep_text_readable() -> None:
    dark, light = palette("dark"), palette("light")
    role = QPalette.ColorRole
    assert dark.color(role.Base).lightness() < 60 < light.color(role.Base).lightness()
    for p in (dark, light):
        contrast = abs(p.color(role.Text).lightness() - p.color(role.Base).lightness())
        assert contrast > 150


def test_a_file_handed_over_by_the_os_is_opened(make_window, tmp_path: Path) -> None:
    doc = tmp_path / "from-finder.md"
    doc.write_text("# Opened by the OS\n", encoding="utf-8")
    window = make_window()
    app = QApplication.instance()
    assert isinstance(app, FastdeskApp)  # tests run on the app's own class (conftest qapp_cls)
    app.file_opened.connect(window.open_file)
    try:
        assert QApplication.sendEvent(app, QFileOpenEvent(str(doc)))
    finally:
        app.file_opened.disconnect(window.open_file)
    source = window.findChild(QPlainTextEdit, "sourceEditor")
    assert source.toPlainText() == "# Opened by the OS\n"
