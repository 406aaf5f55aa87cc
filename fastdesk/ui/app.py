"""Starting the desktop app: the QApplication, the theme, the window."""

from __future__ import annotations

import sys

from PySide6.QtGui import QColor, QIcon, QPalette
from PySide6.QtWidgets import QApplication, QStyleFactory

import fastdesk
from fastdesk.paths import resource
from fastdesk.settings import load_settings, settings_path


def dark_palette() -> QPalette:
    p = QPalette()
    colours = {
        QPalette.ColorRole.Window: "#1f2227",
        QPalette.ColorRole.WindowText: "#e6edf3",
        QPalette.ColorRole.Base: "#16181d",
        QPalette.ColorRole.AlternateBase: "#1f2227",
        QPalette.ColorRole.ToolTipBase: "#2b3038",
        QPalette.ColorRole.ToolTipText: "#e6edf3",
        QPalette.ColorRole.Text: "#e6edf3",
        QPalette.ColorRole.Button: "#2b3038",
        QPalette.ColorRole.ButtonText: "#e6edf3",
        QPalette.ColorRole.BrightText: "#ff7b72",
        QPalette.ColorRole.Link: "#4493f8",
        QPalette.ColorRole.Highlight: "#2f81f7",
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.PlaceholderText: "#7d8590",
    }
    for role, colour in colours.items():
        p.setColor(role, QColor(colour))
    for role in (
        QPalette.ColorRole.Text,
        QPalette.ColorRole.ButtonText,
        QPalette.ColorRole.WindowText,
    ):
        p.setColor(QPalette.ColorGroup.Disabled, role, QColor("#6e7681"))
    return p


def light_palette() -> QPalette:
    p = QPalette()
    colours = {
        QPalette.ColorRole.Window: "#f6f8fa",
        QPalette.ColorRole.WindowText: "#1f2328",
        QPalette.ColorRole.Base: "#ffffff",
        QPalette.ColorRole.AlternateBase: "#f6f8fa",
        QPalette.ColorRole.ToolTipBase: "#ffffff",
        QPalette.ColorRole.ToolTipText: "#1f2328",
        QPalette.ColorRole.Text: "#1f2328",
        QPalette.ColorRole.Button: "#f6f8fa",
        QPalette.ColorRole.ButtonText: "#1f2328",
        QPalette.ColorRole.BrightText: "#cf222e",
        QPalette.ColorRole.Link: "#0969da",
        QPalette.ColorRole.Highlight: "#0969da",
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.PlaceholderText: "#8c959f",
    }
    for role, colour in colours.items():
        p.setColor(role, QColor(colour))
    for role in (
        QPalette.ColorRole.Text,
        QPalette.ColorRole.ButtonText,
        QPalette.ColorRole.WindowText,
    ):
        p.setColor(QPalette.ColorGroup.Disabled, role, QColor("#8c959f"))
    return p


def apply_theme(app: QApplication, theme: str) -> None:
    """'light' or 'dark': Fusion with our palette; 'system': the platform's own look."""
    if theme in ("light", "dark"):
        app.setStyle(QStyleFactory.create("Fusion"))
        app.setPalette(dark_palette() if theme == "dark" else light_palette())


def make_app(argv: list[str] | None = None) -> QApplication:
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        app = QApplication(argv if argv is not None else sys.argv[:1])
    app.setApplicationName("fastdesk")
    app.setApplicationDisplayName("fastdesk")
    app.setApplicationVersion(fastdesk.__version__)
    app.setDesktopFileName("fastdesk")
    icon = QIcon()
    for size in (16, 24, 32, 48, 64, 128, 256):
        png = resource(f"icons/fastdesk-{size}.png")
        if png.is_file():
            icon.addFile(str(png))
    if not icon.isNull():
        app.setWindowIcon(icon)
    return app


def run_app(path: str | None) -> int:
    """Open the window (with `path` when given; the sample document on first start)."""
    from fastdesk.ui.main_window import MainWindow

    first_start = not settings_path().exists()
    app = make_app()
    settings, _warnings = load_settings()
    apply_theme(app, settings.theme)
    window = MainWindow()
    if path:
        window.open_file(path)
    elif first_start:
        window.open_sample()
    window.show()
    return app.exec()
