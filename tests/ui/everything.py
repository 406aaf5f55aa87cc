"""The window with every panel, the find bar and its dialogs open, for the tests that judge the
whole window at once (accessible names, small screens, contrast)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QAccessible, QAccessibleInterface
from PySide6.QtWidgets import QApplication, QDockWidget, QWidget

from tests.project_kit import page, write

MKDOCS = (
    "site_name: t\nplugins:\n  - i18n:\n      languages:\n"
    "        - locale: en\n          default: true\n        - locale: fr\n"
)
INDEX = (
    "# Python-Markdown extensions\n\nThe `markdown.preprocessors.Preprocessor` class runs first. "
    "See [preprocessors](#preprocessors) and the [extension API][ext].\n\n"
    "| Name | Use |\n|---|---|\n| Hello | world |\n\n"
    "- Hello world: a [link in a list](https://example.com/a).\n\n"
    "[ext]: https://example.com/api/\n"
)


def make_site(root: Path) -> Path:
    """A small MkDocs project: an index page with code, a table and links, a few pages."""
    write(root / "mkdocs.yml", MKDOCS)
    write(root / "docs/index.md", INDEX)
    for n in range(4):
        write(root / f"docs/a-long-page-name-number-{n}.md", page(f"Page {n}"))
    return root


def open_panels(window) -> list[QDockWidget]:  # type: ignore[no-untyped-def]
    """Every panel of the window on show, and the find bar replacing; the docks shown."""
    window.show_project()
    window.workbench.show_outline()
    window.house.show_style()
    window.house.show_glossary()
    window.workbench.show_problems()
    window.workbench.replace()
    QApplication.processEvents()
    return [d for d in window.findChildren(QDockWidget) if not d.isHidden()]


def unnamed_focusable(top: QWidget) -> list[str]:
    """Focusable controls on show under ``top`` without an accessible name, as Qt's
    accessibility interface (what AT-SPI, UI Automation and NSAccessibility read) gives them:
    role and the widget's objectName (or its class) of each."""
    found: list[str] = []

    def walk(iface: QAccessibleInterface | None, depth: int) -> None:
        if iface is None or not iface.isValid() or depth > 40:
            return
        state = iface.state()
        if state.invisible or state.offscreen:
            return
        if state.focusable and not iface.text(QAccessible.Text.Name).strip():
            obj = iface.object()
            what = (obj.objectName() or type(obj).__name__) if obj is not None else "?"
            found.append(f"{iface.role().name} {what}")
        for n in range(iface.childCount()):
            walk(iface.child(n), depth + 1)

    walk(QAccessible.queryAccessibleInterface(top), 0)
    return found
