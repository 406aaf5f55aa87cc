"""The desktop window (PySide6). Everything Qt lives in this package; the core never imports it."""

from __future__ import annotations

from fastdesk.ui.main_window import MainWindow

__all__ = ["MainWindow"]
