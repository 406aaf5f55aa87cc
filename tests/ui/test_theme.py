"""The dark theme from the View menu and from Settings, applied at once; in dark mode the tint
of the block under the other pane's cursor is not the colour of a text selection."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication

from fastdesk.config.settings import load_settings
from fastdesk.ui.app import apply_theme, palette
from fastdesk.ui.panes.common import highlight_colour, is_dark


@pytest.fixture
def app_theme() -> Iterator[QApplication]:
    """The application's style and palette put back after the test (they are the process's)."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    style, colours = app.style().name(), QPalette(app.palette())
    try:
        yield app
    finally:
        apply_theme(app, "system")
        app.setStyle(style)
        app.setPalette(colours)


def test_view_dark_theme_applies_live_and_is_kept(make_window, qtbot, app_theme) -> None:
    w = make_window()
    action = w.actions_.dark_theme
    view_menu = next(a.menu() for a in w.menuBar().actions() if a.text() == "&View")
    assert action in view_menu.actions() and action.isCheckable()
    action.trigger()
    assert action.isChecked() and load_settings()[0].theme == "dark"
    assert is_dark(app_theme.palette())
    qtbot.waitUntil(lambda: w.document_view.source_highlighter.dark)  # the panes follow
    assert is_dark(w.document_view.source.palette())
    action.trigger()
    assert load_settings()[0].theme == "light" and not is_dark(app_theme.palette())
    qtbot.waitUntil(lambda: not w.document_view.source_highlighter.dark)


def test_the_theme_from_settings_applies_at_once(make_window, qtbot, app_theme) -> None:
    w = make_window()
    w.apply_settings(w.settings.__class__(**{**w.settings.__dict__, "theme": "dark"}))
    assert is_dark(app_theme.palette()) and w.actions_.dark_theme.isChecked()
    w.apply_settings(w.settings.__class__(**{**w.settings.__dict__, "theme": "system"}))
    assert not w.actions_.dark_theme.isChecked()
    assert app_theme.style().name() == app_theme.property("fastdeskSystemStyle")


def test_settings_dialog_offers_the_theme(make_window, app_theme) -> None:
    from fastdesk.ui.dialogs.settings import SettingsDialog

    w = make_window()
    dialog = SettingsDialog(w.settings, w)
    combo = dialog.theme_combo
    assert [combo.itemData(k) for k in range(combo.count())] == ["system", "light", "dark"]
    combo.setCurrentIndex(combo.findData("dark"))
    assert dialog.collect(w.settings).theme == "dark"
    dialog.close()


def test_in_dark_mode_the_block_tint_is_not_a_selection() -> None:
    dark = palette("dark")
    tint, selection = highlight_colour(dark), dark.color(QPalette.ColorRole.Highlight)
    assert abs(tint.hslHue() - selection.hslHue()) > 90  # another hue: amber, not blue
    light = palette("light")
    assert highlight_colour(light).alpha() < 255  # a soft tint over the text
