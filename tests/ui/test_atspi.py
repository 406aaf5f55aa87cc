"""The window through AT-SPI itself, as Orca reads it (scripts/atspi-check): every focusable
control named and no frame markers in any text, with every panel, Settings and the guide open.

Needs Xvfb, D-Bus, at-spi2-core and the system Python's pyatspi (scripts/system-deps installs
them); skipped only where they cannot exist (not Linux)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAUNCHER = Path("/usr/libexec/at-spi-bus-launcher")

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="AT-SPI is the Linux desktop's accessibility bus"
)


def test_every_focusable_control_is_named_through_atspi() -> None:
    missing = [t for t in ("xvfb-run", "dbus-run-session") if shutil.which(t) is None]
    if not LAUNCHER.exists():
        missing.append("at-spi2-core")
    if subprocess.run(["/usr/bin/python3", "-c", "import pyatspi"], check=False).returncode:
        missing.append("python3-pyatspi")
    assert not missing, f"install them (scripts/system-deps): {missing}"
    env = {**os.environ, "PYTHON": sys.executable}
    env.pop("QT_QPA_PLATFORM", None)  # a real X display (Xvfb): AT-SPI needs the xcb platform
    done = subprocess.run(
        [str(ROOT / "scripts" / "atspi-check")],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
    )
    said = done.stdout + done.stderr[-2000:]
    assert done.returncode == 0, said
    assert "0 focusable without a name, 0 texts with noncharacters" in done.stdout, said
