"""The core never imports Qt; the entry points answer --version."""

from __future__ import annotations

import os
import pkgutil
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import fastdesk


def core_modules() -> list[str]:
    """Every module of fastdesk outside fastdesk.ui, found by walking the packages (a new module
    is checked the day it is added, with no list to keep)."""
    return sorted(
        info.name
        for info in pkgutil.walk_packages(fastdesk.__path__, "fastdesk.")
        if info.name != "fastdesk.ui" and not info.name.startswith("fastdesk.ui.")
    )


def test_the_walk_finds_every_core_package() -> None:
    found = core_modules()
    for package in ("document", "translate", "providers", "routing", "review", "config", "cli"):
        assert f"fastdesk.{package}" in found
    assert "fastdesk.translate.engine" in found and "fastdesk.config.settings" in found
    assert not any(name.startswith("fastdesk.ui") for name in found)


def test_core_imports_no_qt_in_a_fresh_interpreter() -> None:
    code = "import sys\n" + "".join(f"import {m}\n" for m in core_modules())
    code += "print(sorted(m for m in sys.modules if m.startswith(('PySide6', 'shiboken6'))))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_importing_a_qt_free_ui_helper_does_not_load_qt_widgets() -> None:
    code = (
        "import sys\nimport fastdesk.ui.panes.render\n"
        "print('QtWidgets' if 'PySide6.QtWidgets' in sys.modules else 'none')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "none"


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


def test_every_package_is_listed_for_the_wheel_and_the_frozen_app() -> None:
    """pyproject lists the packages by hand (resources/ is mapped in as fastdesk.resources), and
    the PyInstaller spec stages exactly those: a package left out would be missing from both."""
    import tomllib

    root = Path(fastdesk.__file__).resolve().parent
    pyproject = tomllib.loads((root.parent / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(pyproject["tool"]["setuptools"]["packages"])
    found = {
        ".".join(init.parent.relative_to(root.parent).parts) for init in root.rglob("__init__.py")
    }
    assert found - listed == set()


# ---- the import contract (pyproject's [tool.importlinter]) ------------------------------------

ROOT = Path(fastdesk.__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint_imports(tree: Path) -> subprocess.CompletedProcess[str]:
    """The contract in this checkout's pyproject.toml, checked against the ``fastdesk`` in
    ``tree`` (no cache: every run reads the files as they are)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--no-logo", str(ROOT / "pyproject.toml")],
        capture_output=True,
        text=True,
        cwd=tree,
        env=env,
    )


@pytest.fixture
def tree_copy(tmp_path: Path) -> Path:
    """A copy of the package to break on purpose."""
    shutil.copytree(
        ROOT / "fastdesk", tmp_path / "fastdesk", ignore=shutil.ignore_patterns("__pycache__")
    )
    return tmp_path


def test_the_package_keeps_its_import_contract() -> None:
    done = lint_imports(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 kept, 0 broken" in done.stdout


def with_import(tree: Path, module: str, imported: str) -> subprocess.CompletedProcess[str]:
    """The contract checked once ``module`` (a path under ``tree``) also imports ``imported``."""
    path = tree / module
    path.write_text(path.read_text() + f"\nimport {imported}\n")
    return lint_imports(tree)


def test_a_circle_between_two_modules_breaks_the_contract(tree_copy: Path) -> None:
    # cli/translate hands a folder to cli/project; project importing translate back is a circle
    done = with_import(tree_copy, "fastdesk/cli/project.py", "fastdesk.cli.translate")
    assert done.returncode == 1
    assert "no import circles between modules, at any depth BROKEN" in done.stdout
    assert "No cycles are allowed in fastdesk.cli." in done.stdout


def test_a_lower_layer_importing_a_higher_one_breaks_the_contract(tree_copy: Path) -> None:
    done = with_import(tree_copy, "fastdesk/config/settings.py", "fastdesk.providers.factory")
    assert done.returncode == 1
    assert "fastdesk's packages are layered (docs/architecture.md) BROKEN" in done.stdout
    assert "fastdesk.config.settings -> fastdesk.providers.factory" in done.stdout
