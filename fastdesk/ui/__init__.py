"""The desktop window (PySide6). Everything Qt lives in this package; the core never imports it.

``MainWindow`` is imported on first use, so importing a Qt-free helper from here (the worker's
segments, say) does not load QtWidgets.
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
