"""Moving through the window by keyboard as desktop editors do: F6 / Shift+F6 from pane to
pane and panel to panel, Tab inserting in the editors, each panel's shortcut showing and hiding
it, a focus frame on the focused pane, no Tab stop that cannot be seen (pytest-qt, offscreen)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QDockWidget,
    QMenu,
    QToolButton,
    QWidget,
)

from tests.ui.everything import make_site, open_panels

PANELS = {  # action → the dock it shows and hides
    "actionOutline": "outlineView",
    "actionProblems": "problemsView",
    "actionProject": "projectView",
    "actionHouseStyle": "styleView",
    "actionGlossary": "glossaryView",
}


@pytest.fixture
def site(tmp_path: Path) -> Path:
    return make_site(tmp_path / "site")


def _opened(make_window, qtbot, site: Path):  # type: ignore[no-untyped-def]
    window = make_window()
    assert window.open_project(site)
    # translated and settled first: a window closed while its engine starts may outlast
    # the close's wait for the engine thread on a loaded machine
    qtbot.waitUntil(lambda: "Bonjour" in window.document_view.target_editor.toPlainText())
    qtbot.waitUntil(lambda: not window.document_view.pending)
    window.activateWindow()
    window.document_view.source.setFocus()
    qtbot.waitUntil(lambda: window.document_view.source.hasFocus())
    return window


def _press(qtbot, key: Qt.Key, modifier=Qt.KeyboardModifier.NoModifier) -> QWidget | None:  # type: ignore[no-untyped-def]
    widget = QApplication.focusWidget()
    assert widget is not None
    qtbot.keyClick(widget, key, modifier)
    return QApplication.focusWidget()


def _holder(window, widget: QWidget | None) -> str:  # type: ignore[no-untyped-def]
    """The pane or panel ``widget`` is in, by objectName."""
    view = window.document_view
    for pane in (view.source, view.preview, view.target_editor):
        if widget is pane:
            return pane.objectName()
    while widget is not None and not isinstance(widget, QDockWidget):
        if widget is window.workbench.find_bar or widget is window.toolbar:
            return widget.objectName()
        widget = widget.parentWidget()
    return widget.objectName() if widget is not None else "?"


def test_f6_reaches_every_pane_and_open_panel_and_comes_back(make_window, qtbot, site) -> None:
    window = _opened(make_window, qtbot, site)
    docks = open_panels(window)
    window.document_view.source.setFocus()
    qtbot.waitUntil(lambda: window.document_view.source.hasFocus())
    # on show: a panel tabbed away behind another is not a stop (its shortcut raises it)
    on_show = {d.objectName() for d in docks if not d.visibleRegion().isEmpty()}
    seen, focused = [], []
    for _ in range(12):
        widget = _press(qtbot, Qt.Key.Key_F6)
        seen.append(_holder(window, widget))
        focused.append(widget)
        assert widget is not None and widget.isVisible()
        if seen[-1] == "sourceEditor":
            break
    assert seen[-1] == "sourceEditor", seen
    assert seen[0] == "targetPreview"
    assert on_show <= set(seen), (on_show, seen)
    assert {"findBar", "mainToolBar"} <= set(seen), seen
    assert len(seen) == len(set(seen))  # each once per round
    # in a panel, its contents take the focus, not its title bar's buttons
    assert not any(w.objectName().startswith("qt_dockwidget") for w in focused), focused
    back = [_holder(window, _press(qtbot, Qt.Key.Key_F6, Qt.KeyboardModifier.ShiftModifier))]
    assert back == [seen[-2]]


def test_f6_comes_back_to_where_the_focus_was_in_a_panel(make_window, qtbot, site) -> None:
    window = _opened(make_window, qtbot, site)
    window.house.show_glossary()
    dock = window.house.glossary_dock
    dock.target.setFocus()
    qtbot.waitUntil(dock.target.hasFocus)
    for _ in range(8):
        if _press(qtbot, Qt.Key.Key_F6) is dock.target:
            break
    assert QApplication.focusWidget() is dock.target


def test_tab_inserts_in_the_editors(make_window, qtbot, site) -> None:
    window = _opened(make_window, qtbot, site)
    source = window.document_view.source
    before = source.toPlainText().count("\t")
    qtbot.keyClick(source, Qt.Key.Key_Tab)
    assert source.hasFocus() and source.toPlainText().count("\t") == before + 1


@pytest.mark.parametrize(("action", "dock"), sorted(PANELS.items()))
def test_each_panel_shortcut_shows_and_hides_it(make_window, qtbot, site, action, dock) -> None:
    window = _opened(make_window, qtbot, site)
    trigger = window.findChild(QAction, action)
    panel = window.findChild(QDockWidget, dock)
    if panel.isVisible():  # (opening the project shows its panel)
        trigger.trigger()
        qtbot.waitUntil(lambda: not panel.isVisible())
    trigger.trigger()
    qtbot.waitUntil(panel.isVisible)
    assert panel.isAncestorOf(QApplication.focusWidget())  # shown with the focus in it
    trigger.trigger()
    qtbot.waitUntil(lambda: not panel.isVisible())
    # the focus goes back to a pane, not nowhere
    assert _holder(window, QApplication.focusWidget()) in ("sourceEditor", "targetPreview")


def test_f10_opens_the_first_menu_and_esc_leaves_it(make_window, qtbot, site) -> None:
    window = _opened(make_window, qtbot, site)
    bar = window.menuBar()
    qtbot.keyClick(window.document_view.source, Qt.Key.Key_F10)
    qtbot.waitUntil(lambda: bar.activeAction() is not None)
    first = next(a for a in bar.actions() if a.menu() is not None)
    assert bar.activeAction() is first
    qtbot.waitUntil(lambda: isinstance(QApplication.activePopupWidget(), QMenu))
    assert QApplication.activePopupWidget() is first.menu()  # open: the arrows go on from it
    qtbot.keyClick(first.menu(), Qt.Key.Key_Escape)
    qtbot.keyClick(bar, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is None)


def test_panel_close_buttons_and_toolbar_are_reachable(make_window, qtbot, site) -> None:
    window = _opened(make_window, qtbot, site)
    docks = open_panels(window)
    for dock in docks:
        if dock.visibleRegion().isEmpty():  # tabbed away: no stop until its tab is up
            continue
        buttons = [b for b in dock.findChildren(QAbstractButton) if b.parentWidget() is dock]
        close = [b for b in buttons if b.objectName() == "qt_dockwidget_closebutton"]
        assert close and close[0].focusPolicy() & Qt.FocusPolicy.TabFocus, dock.objectName()
        assert close[0].accessibleName().startswith("Close"), dock.objectName()
    tools = [b for b in window.toolbar.findChildren(QToolButton) if b.isVisible()]
    assert tools and all(b.focusPolicy() & Qt.FocusPolicy.TabFocus for b in tools)


def test_no_tab_stop_that_cannot_be_seen(make_window, qtbot, site) -> None:
    window = _opened(make_window, qtbot, site)
    docks = open_panels(window)
    window.problems_dock = window.workbench.problems
    start = window.workbench.problems.table
    start.setFocus()
    qtbot.waitUntil(start.hasFocus)
    seen = []
    for _ in range(40):
        widget = _press(qtbot, Qt.Key.Key_Tab)
        assert widget is not None
        if widget is window.document_view.source:
            break
        seen.append(widget.objectName() or type(widget).__name__)
        assert widget.isVisible() and not widget.visibleRegion().isEmpty(), seen
    assert docks


def test_the_focused_pane_shows_a_frame(make_window, qtbot, site) -> None:
    window = _opened(make_window, qtbot, site)
    preview = window.document_view.preview
    preview.setFocus()
    qtbot.waitUntil(preview.hasFocus)
    frame = window.findChild(QWidget, "focusFrame")
    qtbot.waitUntil(lambda: frame is not None and frame.isVisible())
    top_left = preview.mapTo(window, preview.rect().topLeft())
    assert frame.geometry().topLeft() == top_left and frame.size() == preview.size()
    window.document_view.source.setFocus()
    source = window.document_view.source
    qtbot.waitUntil(
        lambda: frame.geometry().topLeft() == source.mapTo(window, source.rect().topLeft())
    )


def test_the_guide_lists_the_movement_keys(make_window, qtbot) -> None:
    window = make_window()
    window.workbench.show_guide()
    text = window.workbench.guide.browser.toPlainText()
    for keys in ("F6", "Shift+F6", "Ctrl+[", "Ctrl+]", "Esc", "Tab"):
        assert keys in text, keys


def test_a_rows_fix_is_a_button_tab_reaches(qtbot) -> None:
    from fastdesk.review.problems import Problem
    from fastdesk.ui.workbench.problems import GLOSSARY_FIX_TEXT, ProblemsDock

    dock = ProblemsDock(lambda _p: "")
    qtbot.addWidget(dock)
    glossary = Problem("b1", 0, 1, "flagged", "glossary term", "x → y", "glossary", True)
    link = Problem("b2", 1, 3, "flagged", "link target changed", "#a → #b", "links", True)
    dock.set_problems((glossary, link))
    dock.select(0)
    button = dock.restore_button
    assert button.text() == GLOSSARY_FIX_TEXT and button.isEnabled()
    assert button.focusPolicy() & Qt.FocusPolicy.TabFocus
    dock.select(1)
    assert button.text() == "Restore from source"


def test_the_frame_lets_go_of_a_pane_deleted_while_it_has_the_focus(qtbot) -> None:
    """Deleting the focused pane moves the focus from inside its destructor, when the pane is
    already gone to Python: the frame must not reach for it (before: RuntimeError in Qt's event
    loop, seen in the suite as a window closed), and follows the next pane."""
    import shiboken6
    from PySide6.QtWidgets import QPlainTextEdit, QVBoxLayout

    from fastdesk.ui.window.focus_frame import FocusFrame

    window = QWidget()
    qtbot.addWidget(window)
    layout = QVBoxLayout(window)
    first, second = QPlainTextEdit(), QPlainTextEdit()
    layout.addWidget(first)
    layout.addWidget(second)
    frame = FocusFrame(window, lambda w: w if w in (first, second) else None)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    first.setFocus()
    qtbot.waitUntil(lambda: frame.target is first)
    shiboken6.delete(first)  # its destructor hands the focus on
    second.setFocus()
    qtbot.waitUntil(lambda: frame.target is second and frame.isVisible())
