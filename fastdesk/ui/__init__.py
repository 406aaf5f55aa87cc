"""The desktop window (PySide6). Everything Qt lives in this package; the core never imports it.

``MainWindow`` is imported on first use, so importing a Qt-free helper from here (the panes'
render, say) does not load QtWidgets.

Modules:

- ``app``: starting the desktop app: the QApplication, the theme, the window
- ``window/``: the main window's frame: commands, menus, selectors, status bar
- ``workbench/``: find bar, outline, problems, house, project panel, guide
- ``document/``: one open document: its view, commands, engine thread, second pane
- ``review/``: the review on screen: controller, margin and bar, undo
- ``dialogs/``: Settings, Compare Providers, a changed source
- ``panes/``: the editors and the rendered target
- ``language_box``: a language box: every language by name, any BCP-47 code
- ``bridge/``: between the engine and the widgets: the engine's worker thread
- ``plain``: text we did not write (translations, verdicts, server errors) shown as text
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fastdesk.ui.window.main_window import MainWindow

__all__ = ["MainWindow"]


def __getattr__(name: str) -> Any:
    if name == "MainWindow":
        from fastdesk.ui.window.main_window import MainWindow

        return MainWindow
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
