"""The core never imports Qt; the entry points answer --version."""

from __future__ import annotations

import subprocess
import sys

import fastdesk

CORE = [
    "fastdesk.document.blocks",
    "fastdesk.translate.engine",
    "fastdesk.translate.live",
    "fastdesk.document.target",
    "fastdesk.cli.main",
    "fastdesk.cli.translate",
    "fastdesk.cli.keys",
    "fastdesk.cli.bench",
    "fastdesk.translate.wiring",
    "fastdesk.providers.factory",
    "fastdesk.routing.router",
    "fastdesk.review.model",
    "fastdesk.review.export",
    "fastdesk.review.autosave",
    "fastdesk.routing.costs",
    "fastdesk.config.models",
    "fastdesk.config.local_servers",
]


def test_core_imports_no_qt_in_a_fresh_interpreter() -> None:
    code = "import sys\n" + "".join(f"import {m}\n" for m in CORE)
    code += "print(sorted(m for m in sys.modules if m.startswith(('PySide6', 'shiboken6'))))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_translate_help_does_not_load_qt() -> None:
    code = (
        "import sys\nfrom fastdesk.cli.main import run\n"
        "try:\n    run(['translate', '--help'])\nexcept SystemExit:\n    pass\n"
        "qt = any(m.startswith('PySide6') for m in sys.modules)\n"
        "print('QT' if qt else 'NOQT', file=sys.stderr)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stderr.strip().endswith("NOQT")
    assert "--to LANG" in out.stdout


def test_python_dash_m_prints_the_version() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "fastdesk", "--version"], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == f"fastdesk {fastdesk.__version__}"
    assert fastdesk.__version__ != "0.0.0+unknown"
