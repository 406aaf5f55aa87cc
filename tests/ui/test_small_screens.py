"""Every panel open, with the find bar replacing, at 1,024×700 and 1,366×768, light and dark:
the window keeps the screen's width, each panel gets at least the room its contents need, both
panes stay readable, and no text is cut (pytest-qt, offscreen)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QWidget

from fastdesk.ui.app import apply_theme
from tests.ui.everything import make_site, open_panels
from tests.ui.test_small_windows import cut, texts_in
from tests.ui.test_theme import app_theme  # noqa: F401 - the fixture

PANE_MIN = 200  # pixels: the narrowest source or translation pane still worth reading


@pytest.fixture
def site(tmp_path: Path) -> Path:
    return make_site(tmp_path / "site")


def _inside(widget: QWidget, window: QWidget) -> bool:
    top_left = widget.mapTo(window, widget.rect().topLeft())
    return top_left.x() >= 0 and top_left.x() + widget.width() <= window.width() + 1


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("size", [(1024, 700), (1366, 768)])
def test_every_panel_fits_a_small_screen(make_window, qtbot, site, theme, size, app_theme) -> None:  # noqa: F811
    apply_theme(app_theme, theme)
    window = make_window()
    assert window.open_project(site)
    qtbot.waitUntil(lambda: "Bonjour" in window.document_view.target_editor.toPlainText())
    qtbot.waitUntil(lambda: not window.document_view.pending and not window.project.reading)
    window.resize(*size)
    docks = open_panels(window)
    window.set_mode("simplify")  # the reading level's choices show too
    window.resize(*size)
    QApplication.processEvents()
    qtbot.waitUntil(lambda: window.width() == size[0])
    assert window.minimumSizeHint().width() <= size[0]
    view = window.document_view
    for pane in (view.source, view.target_pane()):
        assert pane.width() >= PANE_MIN, (pane.objectName(), pane.width())
        assert _inside(pane, window), pane.objectName()
    shown = [d for d in docks if not d.visibleRegion().isEmpty()]  # (not tabbed away)
    assert {d.objectName() for d in shown} >= {"projectView", "problemsView"}
    for dock in shown:
        assert _inside(dock, window), dock.objectName()
        body = dock.widget()
        assert body.width() + 1 >= body.minimumSizeHint().width(), dock.objectName()
    bar = window.workbench.find_bar
    assert _inside(bar, window)
    for child in bar.findChildren(QWidget):
        if child.isVisible():
            assert _inside(child, window), child.objectName()
    widgets = texts_in(bar, *shown)
    assert [t for t in map(cut, widgets) if t] == []
    # project file names whole: the file column is as wide as its longest name
    tree = window.project.dock.tree
    if tree.isVisible():
        metrics = tree.fontMetrics()
        longest = max(
            metrics.horizontalAdvance(tree.topLevelItem(n).text(0))
            for n in range(tree.topLevelItemCount())
        )
        assert tree.columnWidth(0) >= longest
