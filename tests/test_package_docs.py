"""Every package's docstring lists what it holds: a module added without its line fails here."""

from __future__ import annotations

import ast
from pathlib import Path

import fastdesk

ROOT = Path(fastdesk.__file__).parent


def _packages() -> list[Path]:
    return sorted(p.parent for p in ROOT.rglob("__init__.py") if "__pycache__" not in p.parts)


def _held(package: Path) -> set[str]:
    """The modules and subpackages of ``package``, as its docstring names them."""
    modules = {p.stem for p in package.glob("*.py") if p.name != "__init__.py"}
    subpackages = {f"{p.name}/" for p in package.iterdir() if (p / "__init__.py").is_file()}
    return modules | subpackages


def test_every_package_docstring_lists_each_of_its_modules() -> None:
    missing: dict[str, list[str]] = {}
    for package in _packages():
        doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text("utf-8"))) or ""
        lacking = sorted(name for name in _held(package) if f"``{name}``" not in doc)
        if lacking:
            missing[str(package.relative_to(ROOT.parent))] = lacking
    assert missing == {}


def test_a_package_docstring_names_no_module_that_is_gone() -> None:
    stale: dict[str, list[str]] = {}
    for package in _packages():
        doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text("utf-8"))) or ""
        listed = [line.split("``")[1] for line in doc.splitlines() if line.startswith("- ``")]
        gone = sorted(set(listed) - _held(package))
        if gone:
            stale[str(package.relative_to(ROOT.parent))] = gone
    assert stale == {}
