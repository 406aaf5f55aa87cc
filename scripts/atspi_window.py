"""The window as scripts/atspi-check shows it to AT-SPI: a small docs project translated by
the tests' stand-in provider (no network, no key), every panel and the find bar open, the
Settings dialog and the guide too. Prints "ready" once all is on show; closes after
FASTDESK_ATSPI_SECONDS (default 60)."""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SCRATCH = tempfile.mkdtemp(prefix="fastdesk-atspi-")  # settings, memory, the site: removed at exit
atexit.register(shutil.rmtree, SCRATCH, ignore_errors=True)
os.environ.setdefault("FASTDESK_HOME", str(Path(SCRATCH) / "home"))
os.environ.setdefault("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")

from PySide6.QtCore import QTimer  # noqa: E402

from fastdesk.config.settings import Settings  # noqa: E402
from fastdesk.ui import MainWindow  # noqa: E402
from fastdesk.ui.app import apply_theme, make_app  # noqa: E402
from tests.ui.everything import make_site, open_panels  # noqa: E402
from tests.ui.uifakes import WordProvider, make_engine_factory  # noqa: E402


def main() -> int:
    app = make_app()
    apply_theme(app, "light")
    window = MainWindow(
        engine_factory=make_engine_factory(WordProvider()),  # type: ignore[arg-type]
        settings=Settings(),
        offer_recovery=False,
    )
    window.files._ask_save = lambda: "discard"  # type: ignore[method-assign]
    site = make_site(Path(SCRATCH) / "site")
    window.open_project(site)
    window.show()

    def everything() -> None:
        open_panels(window)
        window.workbench.show_guide()
        window.open_settings()
        print("ready", flush=True)

    QTimer.singleShot(1500, everything)
    # the check's kill (SIGTERM) ends the loop, so the temporary folder goes (atexit): Python
    # runs a signal handler between Qt's events, which the timer makes come
    signal.signal(signal.SIGTERM, lambda *_args: app.quit())
    tick = QTimer(app)
    tick.start(200)
    QTimer.singleShot(int(os.environ.get("FASTDESK_ATSPI_SECONDS", "60")) * 1000, app.quit)
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
