"""The window's actions, menus and toolbar, built from the table of commands
(fastdesk.ui.window.commands). What each action does is the window's method the table names;
nothing here decides anything."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from operator import attrgetter

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QMenuBar, QToolBar, QWidget

from fastdesk.ui.window.commands import COMMANDS, MENUS, Command, Key

Handler = Callable[..., object]


def resolve(window: object, command: Command) -> Handler:
    """The callable ``command.handler`` names on ``window`` (bound now, as the window is built)."""
    target = attrgetter(command.handler)(window)
    if not callable(target):
        raise TypeError(f"command {command.id}: {command.handler} is not callable")
    if not command.args:
        return target  # type: ignore[no-any-return]
    args = command.args
    return lambda: target(*args)


def native(keys: QKeySequence) -> str:
    return keys.toString(QKeySequence.SequenceFormat.NativeText)


def _action(owner: QWidget, command: Command, handler: Handler) -> QAction:
    action = QAction(command.text, owner)
    action.setObjectName(command.name)
    if isinstance(command.shortcut, Key) and command.every_binding:
        action.setShortcuts(command.shortcut)
    elif command.shortcut is not None:
        action.setShortcut(QKeySequence(command.shortcut))
    if command.tip:
        hint = native(action.shortcut())
        action.setToolTip(f"{command.tip} ({hint})" if hint else command.tip)
        action.setStatusTip(command.tip)
    action.setCheckable(command.checkable)
    action.setEnabled(command.enabled)
    if command.checkable:
        action.toggled.connect(handler)
    else:
        action.triggered.connect(lambda _checked=False: handler())
    owner.addAction(action)  # shortcuts work even when the menu bar is hidden
    return action


def _submenu(owner: QWidget, command: Command, handler: Handler) -> QMenu:
    menu = QMenu(command.text, owner)
    menu.setObjectName(command.name)
    menu.aboutToShow.connect(lambda: handler(menu))
    return menu


class Actions:
    """The window's actions by command id (``actions.save_as``), in table order; ``window`` owns
    them (shortcuts live there) and holds every handler the table names."""

    def __init__(self, window: QWidget, commands: Sequence[Command] = COMMANDS) -> None:
        self.commands = tuple(commands)
        self._actions: dict[str, QAction] = {}
        self._menus: dict[str, QMenu] = {}
        for command in self.commands:
            handler = resolve(window, command)
            if command.submenu:
                self._menus[command.id] = _submenu(window, command, handler)
            else:
                self._actions[command.id] = _action(window, command, handler)

    def __getattr__(self, name: str) -> QAction:
        """``actions.live``: the action of the command ``live``."""
        actions = self.__dict__.get("_actions", {})
        if name in actions:
            action: QAction = actions[name]
            return action
        raise AttributeError(f"no command {name!r} in the table")

    def __getitem__(self, command_id: str) -> QAction:
        return self._actions[command_id]

    @property
    def recent_menu(self) -> QMenu:
        return self._menus["open_recent"]

    def items(self) -> Iterator[tuple[Command, QAction | QMenu]]:
        """(command, its action or submenu), in table order."""
        for command in self.commands:
            yield command, (self._menus if command.submenu else self._actions)[command.id]

    def shortcut_rows(self) -> list[tuple[str, str]]:
        """(what, keys) for every command with a shortcut, in table order (the F1 guide)."""
        rows: list[tuple[str, str]] = []
        for _command, entry in self.items():
            if isinstance(entry, QAction) and not entry.shortcut().isEmpty():
                name = entry.text().replace("&", "").rstrip("…")
                rows.append((name, native(entry.shortcut())))
        return rows

    def build_menus(self, bar: QMenuBar) -> None:
        for key, title, object_name in MENUS:
            menu = bar.addMenu(title)
            if object_name:
                menu.setObjectName(object_name)
            placed = [
                (group, i, entry)
                for i, (command, entry) in enumerate(self.items())
                for menu_key, group in command.menus
                if menu_key == key
            ]
            last: int | None = None
            for group, _i, entry in sorted(placed, key=lambda p: (p[0], p[1])):
                if last is not None and group != last:
                    menu.addSeparator()
                last = group
                if isinstance(entry, QMenu):
                    menu.addMenu(entry)
                else:
                    menu.addAction(entry)

    def build_toolbar(self, owner: QWidget, selectors: Sequence[QWidget]) -> QToolBar:
        """The commands marked for the toolbar: group 0, the selectors, group 1."""
        tb = QToolBar("Main", owner)
        tb.setObjectName("mainToolBar")
        tb.setMovable(False)
        tb.addActions(self._on_toolbar(0))
        tb.addSeparator()
        for widget in selectors:
            tb.addWidget(widget)
        tb.addSeparator()
        tb.addActions(self._on_toolbar(1))
        for action in tb.actions():  # reachable by Tab (F6 brings the focus to the toolbar)
            button = tb.widgetForAction(action)
            if not action.isSeparator():
                button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        return tb

    def _on_toolbar(self, group: int) -> list[QAction]:
        return [self._actions[c.id] for c in self.commands if c.toolbar == group]
