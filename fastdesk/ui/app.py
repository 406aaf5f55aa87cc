"""Starting the desktop app: the QApplication, the theme, the window."""

from __future__ import annotations

import os
import sys
from typing import Protocol

from PySide6.QtCore import QEvent, QTimer, Signal
from PySide6.QtGui import QFileOpenEvent, QIcon
from PySide6.QtWidgets import QApplication, QWidget

import fastdesk
from fastdesk.config.paths import resource
from fastdesk.config.settings import saved_settings, settings_path
from fastdesk.ui.panes.theme import apply_theme, palette
from fastdesk.ui.window.main_window import MainWindow

__all__ = ["FastdeskApp", "apply_theme", "make_app", "open_path", "palette", "run_app"]


class FastdeskApp(QApplication):
    """The application: files the OS hands over (macOS Finder, "Open with") come out of
    ``file_opened``.

    Why a subclass, not an event filter on the application: such a filter sees every event of
    every object, each one a call into Python that waits for the GIL while the engine thread
    streams; the application's own ``event`` sees only what is sent to it.
    """

    file_opened = Signal(str)

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.FileOpen and isinstance(event, QFileOpenEvent):
            self.file_opened.emit(event.file())
            return True
        return super().event(event)


def make_app(argv: list[str] | None = None) -> QApplication:
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        app = FastdeskApp(argv if argv is not None else sys.argv[:1])
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
    """Open the window (with `path` when given, a file or a docs project's folder; the sample
    document on first start)."""

    first_start = not settings_path().exists()
    app = make_app()
    apply_theme(app, saved_settings().theme)  # before the window, which reads them again
    window = MainWindow()
    if path:
        open_path(window, path)
    elif first_start:
        window.files.open_sample()
    window.show()
    if isinstance(app, FastdeskApp):  # macOS: a .md double-clicked in Finder comes as an event
        app.file_opened.connect(window.open_file)
    _smoke_exit(window)
    return app.exec()


class _Opens(Protocol):
    def open_project(self, folder: str) -> object: ...
    def open_file(self, path: str) -> object: ...


def open_path(window: _Opens, path: str) -> None:
    """`fastdesk DIR` opens a docs project (its files by language), `fastdesk FILE` a file."""
    if os.path.isdir(path):
        window.open_project(path)
    else:
        window.open_file(path)


def _smoke_exit(window: QWidget) -> None:
    """FASTDESK_SMOKE_EXIT_MS=N: close the window N ms after it is shown, as Ctrl+Q does.

    Used by the packaging smoke test and the start-up timing; prints one line the test waits for.
    Closing (not ``app.quit()``) runs the window's closeEvent, which stops its threads: quitting
    the loop under them left them to the interpreter's teardown, a crash about one exit in 15.
    """
    value = os.environ.get("FASTDESK_SMOKE_EXIT_MS")
    if not value:
        return

    def shown() -> None:
        if sys.stdout is not None:  # a windowed Windows executable may have none
            print("fastdesk: window shown", flush=True)
        QTimer.singleShot(int(value), window.close)

    QTimer.singleShot(0, shown)
