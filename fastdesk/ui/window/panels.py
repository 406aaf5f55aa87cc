"""The window's panels by keyboard: each panel's shortcut shows it (the focus in it) or hides
it (the focus back in the pane it came from), F6 / Shift+F6 move from pane to panel
(pane_cycle), the focused one wears a frame (focus_frame), and each panel's Close and Float
buttons are named and reachable by Tab.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QDockWidget,
    QMainWindow,
    QToolBar,
    QWidget,
)

from fastdesk.ui.document.view import DocumentView
from fastdesk.ui.panes.accessible import name
from fastdesk.ui.window.focus_frame import FocusFrame
from fastdesk.ui.window.pane_cycle import PaneCycle
from fastdesk.ui.workbench import Workbench

__all__ = ["Panels", "name_dock_buttons"]

_TITLE_BUTTONS = {"qt_dockwidget_closebutton": "Close", "qt_dockwidget_floatbutton": "Float"}


PanelTable = dict[str, tuple[QDockWidget, Callable[[], None]]]


def name_dock_buttons(dock: QDockWidget) -> None:
    """The panel's Close and Float buttons: named after it, and in the Tab order (Qt leaves
    them out of it, so a keyboard could not close a panel)."""
    title = dock.windowTitle()
    for button in dock.findChildren(QAbstractButton):
        what = _TITLE_BUTTONS.get(button.objectName())
        if what and button.parentWidget() is dock:
            button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
            name(button, f"{what} the {title} panel")


class Panels(QObject):
    """``toggle(which)``, ``next_pane()``, ``previous_pane()``, ``open_menus()``: the
    commands' handlers."""

    def __init__(
        self,
        window: QMainWindow,
        view: DocumentView,
        workbench: Workbench,
        toolbar: Callable[[], QToolBar],
        table: Callable[[], PanelTable],
    ) -> None:
        """``table()``: each panel by its command's name, with the method that shows it."""
        super().__init__(window)
        self.window = window
        self.view, self.workbench = view, workbench
        self._toolbar, self._table = toolbar, table
        self.cycle = PaneCycle(window, self._panes, self._extras)
        self.frame = FocusFrame(window, self._framed)
        self._policies: dict[QWidget, Qt.FocusPolicy] = {}  # of panels out of sight: _covered

    def install(self) -> None:
        """Once every panel and the toolbar exist."""
        for dock in self.window.findChildren(QDockWidget):
            name_dock_buttons(dock)
            dock.visibilityChanged.connect(lambda shown, d=dock: self._covered(d, not shown))
            self._covered(dock, not dock.isVisible())

    def _covered(self, dock: QDockWidget, covered: bool) -> None:
        """A panel out of sight (closed, or tabbed away behind another) takes no focus: Qt
        still counts a tabbed-away panel's controls as visible, and Tab went into them, where
        the focus could not be seen. They take it again once on show."""
        widgets = [w for w in dock.findChildren(QWidget) if w.parentWidget() is not None]
        if covered:
            for widget in widgets:
                if widget.focusPolicy() != Qt.FocusPolicy.NoFocus:
                    self._policies[widget] = widget.focusPolicy()
                    widget.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        else:
            for widget in widgets:
                policy = self._policies.pop(widget, None)
                if policy is not None:
                    widget.setFocusPolicy(policy)

    def toggle(self, which: str) -> None:
        """Show the panel with the focus in it; when on show, hide it."""
        dock, show = self._table()[which]
        if not dock.isVisible():
            show()
            return
        focus = QApplication.focusWidget()
        had_focus = focus is not None and dock.isAncestorOf(focus)
        dock.hide()
        if had_focus or QApplication.focusWidget() is None:
            self.workbench.focus_pane()

    def next_pane(self) -> None:
        self.cycle.step(back=False)

    def previous_pane(self) -> None:
        self.cycle.step(back=True)

    def open_menus(self) -> None:
        """F10: the first menu open, arrows moving on from it. Qt's Fusion style does not
        bind F10 as GTK and Windows do (Alt alone or Alt+letter only)."""
        bar = self.window.menuBar()
        menus = [a for a in bar.actions() if a.menu() is not None and a.isVisible()]
        if menus:
            bar.setFocus(Qt.FocusReason.ShortcutFocusReason)
            bar.setActiveAction(menus[0])

    def _panes(self) -> list[QWidget]:
        view = self.view
        panes: list[QWidget] = [view.source, view.target_pane()]
        if view.second.pane is not None:
            panes.append(view.second.pane.preview)
        return panes

    def _extras(self) -> list[QWidget]:
        return [self.workbench.find_bar, self._toolbar()]

    def _framed(self, widget: QWidget | None) -> QWidget | None:
        """What the focus frame goes around: a panel's title button itself (it draws no focus
        of its own), else the pane or panel holding the focus."""
        if isinstance(widget, QAbstractButton) and widget.objectName() in _TITLE_BUTTONS:
            return widget
        return self.cycle.stop_of(widget)
