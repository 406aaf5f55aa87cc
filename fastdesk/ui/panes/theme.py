"""The app's light and dark themes, and switching between them (and the system's) live.

Below the window (which switches from Settings and View → Dark Theme) and the app start-up
(which applies the saved one): both import it from here.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QStyleFactory

from fastdesk.ui.panes.contrast import readable

__all__ = ["apply_theme", "palette", "text_colour"]

_PALETTES: dict[str, dict[str, str]] = {
    "dark": {
        "Window": "#1f2227",
        "WindowText": "#e6edf3",
        "Base": "#16181d",
        "AlternateBase": "#1f2227",
        "ToolTipBase": "#2b3038",
        "ToolTipText": "#e6edf3",
        "Text": "#e6edf3",
        "Button": "#2b3038",
        "ButtonText": "#e6edf3",
        "BrightText": "#ff7b72",
        "Link": "#4493f8",
        "Highlight": "#1f6feb",  # white text on it at 4.6:1 (WCAG AA)
        "HighlightedText": "#ffffff",
        "PlaceholderText": "#7d8590",
        "disabled": "#6e7681",
    },
    "light": {
        "Window": "#f6f8fa",
        "WindowText": "#1f2328",
        "Base": "#ffffff",
        "AlternateBase": "#f6f8fa",
        "ToolTipBase": "#ffffff",
        "ToolTipText": "#1f2328",
        "Text": "#1f2328",
        "Button": "#f6f8fa",
        "ButtonText": "#1f2328",
        "BrightText": "#cf222e",
        "Link": "#0969da",
        "Highlight": "#0969da",
        "HighlightedText": "#ffffff",
        "PlaceholderText": "#656d76",  # 5.2:1 on white (WCAG AA)
        "disabled": "#8c959f",
    },
}


def palette(theme: str) -> QPalette:
    """Our light or dark palette (GitHub-like colours, readable disabled text)."""
    colours = _PALETTES[theme]
    p = QPalette()
    for name, colour in colours.items():
        if name != "disabled":
            p.setColor(getattr(QPalette.ColorRole, name), QColor(colour))
    for role in (
        QPalette.ColorRole.Text,
        QPalette.ColorRole.ButtonText,
        QPalette.ColorRole.WindowText,
    ):
        p.setColor(QPalette.ColorGroup.Disabled, role, QColor(colours["disabled"]))
    return p


def text_colour(colour: str, palette: QPalette, *roles: QPalette.ColorRole) -> str:
    """``colour`` (a state's, a check's) as text readable (WCAG AA) on the palette's
    backgrounds ``roles`` (default: the window's): see fastdesk.ui.panes.contrast."""
    backs = roles or (QPalette.ColorRole.Window,)
    return readable(colour, *(palette.color(r).name(QColor.NameFormat.HexRgb) for r in backs))


def apply_theme(app: QApplication, theme: str) -> None:
    """'light' or 'dark': Fusion with our palette; 'system': the platform's own look (also
    when switching back to it while the app runs: Settings, View → Dark Theme)."""
    if app.property(_SYSTEM_STYLE) is None:  # the first call: the platform's style is on
        app.setProperty(_SYSTEM_STYLE, app.style().name())
    if theme in ("light", "dark"):
        app.setStyle(QStyleFactory.create("Fusion"))
        app.setPalette(palette(theme))
    elif app.style().name() != app.property(_SYSTEM_STYLE):
        style = QStyleFactory.create(str(app.property(_SYSTEM_STYLE)))
        app.setStyle(style)
        app.setPalette(style.standardPalette())


_SYSTEM_STYLE = "fastdeskSystemStyle"
