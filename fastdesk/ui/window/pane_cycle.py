"""F6 / Shift+F6: focus moves from pane to pane, as in GTK and Windows applications.

The stops, in order: the source, the translation on show (rendered or Markdown), the second
translation when open, each panel on show (left, right, then bottom; a tabbed panel only when
its tab is up), the find bar when open, and the toolbar. Tab keeps inserting a tab in the
editors, as in Markdown editors, so F6 is how a keyboard leaves them; coming back, focus goes
where it was in that pane (the control last focused there), else to the pane's main control.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QApplication, QDockWidget, QMainWindow, QWidget

__all__ = ["PaneCycle", "focus_target"]

_AREAS = (
    Qt.DockWidgetArea.LeftDockWidgetArea,
    Qt.DockWidgetArea.TopDockWidgetArea,
    Qt.DockWidgetArea.RightDockWidgetArea,
    Qt.DockWidgetArea.BottomDockWidgetArea,
)


def _shown(widget: QWidget) -> bool:
    return widget.isVisible() and not widget.visibleRegion().isEmpty()


def focus_target(stop: QWidget) -> QWidget | None:
    """The control of ``stop`` that takes focus first: its focus proxy, itself, else its first
    visible, enabled child that takes focus by Tab; in a panel, its contents before its title
    bar's Float and Close buttons."""
    if isinstance(stop, QDockWidget):
        found = focus_target(stop.widget())
        if found is not None:
            return found
    proxy = stop.focusProxy()
    if proxy is not None and proxy.isVisible() and proxy.isEnabled():
        return proxy
    if stop.focusPolicy() & Qt.FocusPolicy.TabFocus and not isinstance(stop, QDockWidget):
        return stop
    for child in stop.findChildren(QWidget):
        if (
            child.isVisible()
            and child.isEnabled()
            and child.focusPolicy() & Qt.FocusPolicy.TabFocus
            and child.focusProxy() is None
        ):
            return child
    return None


class PaneCycle(QObject):
    """``step(back)`` moves focus to the next (previous) stop; ``stops()`` lists them.

    ``panes()``: the document's panes on show, in order (the source, the translation, the
    second translation); ``extras()``: the other stops after the panels (find bar, toolbar).
    """

    def __init__(
        self,
        window: QMainWindow,
        panes: Callable[[], Sequence[QWidget]],
        extras: Callable[[], Sequence[QWidget]],
    ) -> None:
        super().__init__(window)
        self.window = window
        self._panes = panes
        self._extras = extras
        self._last: dict[int, QWidget] = {}  # id(stop) → the control last focused in it
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._focus_changed)

    def docks(self) -> list[QDockWidget]:
        """The panels on show, left, top, right, bottom; top to bottom, left to right in each."""
        window = self.window
        shown = [d for d in window.findChildren(QDockWidget) if d.parent() is window]
        shown = [d for d in shown if _shown(d)]
        order = {area: n for n, area in enumerate(_AREAS)}

        def place(dock: QDockWidget) -> tuple[int, int, int]:
            area = window.dockWidgetArea(dock)
            return (order.get(area, len(order)), dock.y(), dock.x())

        return sorted(shown, key=place)

    def stops(self) -> list[QWidget]:
        panes = [p for p in self._panes() if _shown(p)]
        extras = [e for e in self._extras() if _shown(e)]
        return [*panes, *self.docks(), *extras]

    def stop_of(self, widget: QWidget | None) -> QWidget | None:
        """The stop ``widget`` is in (None: none of them)."""
        if widget is None:
            return None
        for stop in self.stops():
            if widget is stop or stop.isAncestorOf(widget):
                return stop
        return None

    def step(self, *, back: bool = False) -> QWidget | None:
        """Focus the next stop (previous with ``back``); returns the control focused."""
        stops = self.stops()
        if not stops:
            return None
        here = self.stop_of(QApplication.focusWidget())
        index = stops.index(here) if here in stops else (0 if back else -1)
        for offset in range(1, len(stops) + 1):
            stop = stops[(index + (-offset if back else offset)) % len(stops)]
            target = self._target(stop)
            if target is not None:
                reason = (
                    Qt.FocusReason.BacktabFocusReason if back else Qt.FocusReason.TabFocusReason
                )
                target.setFocus(reason)
                return target
        return None

    def _target(self, stop: QWidget) -> QWidget | None:
        last = self._last.get(id(stop))
        if last is not None and last.isVisible() and last.isEnabled() and stop.isAncestorOf(last):
            return last
        return focus_target(stop)

    def _focus_changed(self, _old: QWidget | None, new: QWidget | None) -> None:
        if new is None or new.window() is not self.window:
            return
        stop = self.stop_of(new)
        if stop is not None:
            self._last[id(stop)] = new
