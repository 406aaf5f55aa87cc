"""The table of commands is the one place a command lives: every test here iterates the table,
so a new entry is checked (shortcut, menus, accelerator, guide) without touching a test."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QMenuBar, QWidget

from fastdesk.ui.window.actions import Actions, native
from fastdesk.ui.window.commands import COMMANDS, MENUS, Command
from fastdesk.ui.workbench.guide import guide_html


def bindings(command: Command) -> list[str]:
    """Every key sequence the command answers to, portable text."""
    if command.shortcut is None:
        return []
    if isinstance(command.shortcut, QKeySequence.StandardKey) and command.every_binding:
        return [k.toString() for k in QKeySequence.keyBindings(command.shortcut)]
    return [QKeySequence(command.shortcut).toString()]


def menu_bar_menus(bar: QMenuBar) -> dict[str, QMenu]:
    return {a.text(): m for a in bar.actions() if isinstance(m := a.menu(), QMenu)}


def letter(text: str) -> str:
    """The Alt accelerator of a menu text ("" if none), as Qt reads it."""
    return QKeySequence.mnemonic(text).toString()


def test_the_table_has_one_entry_per_id_name_and_shortcut(qapp) -> None:  # keys need an app
    ids = [c.id for c in COMMANDS]
    names = [c.name for c in COMMANDS]
    keys = [k for c in COMMANDS for k in bindings(c)]
    assert len(ids) == len(set(ids)) and len(names) == len(set(names))
    assert len(keys) == len(set(keys)), "two commands share a shortcut"
    menu_keys = {key for key, _title, _name in MENUS}
    for command in COMMANDS:
        assert command.menus, f"{command.id} is in no menu"
        assert {key for key, _group in command.menus} <= menu_keys, command.id


def test_every_command_of_the_table_is_on_the_window_as_declared(make_window) -> None:
    w = make_window()
    by_name = {a.objectName(): a for a in w.actions()}
    menus = menu_bar_menus(w.menuBar())
    titles = {key: title for key, title, _name in MENUS}
    for command in COMMANDS:
        if command.submenu:
            entry: QAction = w.findChild(QMenu, command.name).menuAction()
        else:
            entry = by_name[command.name]
            assert entry is getattr(w.actions_, command.id)
            assert [k.toString() for k in entry.shortcuts()] == bindings(command), command.id
            assert entry.isCheckable() == command.checkable
        assert entry.text() == command.text
        for key, _group in command.menus:
            assert entry in menus[titles[key]].actions(), (command.id, key)
    # and nothing with a shortcut on the window comes from elsewhere
    table = {c.name for c in COMMANDS}
    outside = [a.objectName() for a in w.actions() if a.shortcuts() and a.objectName() not in table]
    assert outside == []


def test_the_guide_lists_every_command_with_a_shortcut(make_window) -> None:
    w = make_window()
    text = guide_html(w.actions_.shortcut_rows())
    for command in COMMANDS:
        if command.shortcut is not None:
            action = getattr(w.actions_, command.id)
            assert native(action.shortcut()) in text, command.id
            assert command.text.replace("&", "").rstrip("…") in text, command.id


def test_no_two_menus_and_no_two_items_of_a_menu_share_an_alt_letter(make_window) -> None:
    w = make_window()
    menus = menu_bar_menus(w.menuBar())
    tops = [letter(title) for title in menus]
    assert "" not in tops and len(tops) == len(set(tops)), tops
    for _view in ("rendered", "raw"):  # Show Markdown / Show rendered: one item, two texts
        for title, menu in menus.items():
            items = [a.text() for a in menu.actions() if not a.isSeparator()]
            letters = [letter(text) for text in items]
            clashes = {x for x in letters if x and letters.count(x) > 1}
            assert not clashes and "" not in letters, (title, clashes, items)
        w.actions_.toggle_view.trigger()
    # Alt+V is View's (Review had it too, and won)
    assert letter("&View") == "Alt+V" and "&View" in menus
    assert menus["&Review"].objectName() == "reviewMenu"


class Host(QWidget):
    """A window of one command, to show what adding a command takes."""

    def __init__(self) -> None:
        super().__init__()
        self.said: list[str] = []

    def say(self, word: str) -> None:
        self.said.append(word)


def test_a_new_command_is_one_entry_of_the_table(qtbot) -> None:
    host = Host()
    qtbot.addWidget(host)
    hello = Command(
        "hello", "actionHello", "Say &Hello", "say", "Ctrl+Alt+H", "Greets",
        menus=(("Help", 0),), args=("hello",), toolbar=1,
    )  # fmt: skip
    actions = Actions(host, (hello,))
    bar = QMenuBar(host)
    actions.build_menus(bar)
    toolbar = actions.build_toolbar(host, [])
    action = actions.hello
    assert action.objectName() == "actionHello" and action in host.actions()
    assert action in menu_bar_menus(bar)["&Help"].actions()
    assert action in toolbar.actions()
    assert action.toolTip() == f"Greets ({native(QKeySequence('Ctrl+Alt+H'))})"
    assert actions.shortcut_rows() == [("Say Hello", native(QKeySequence("Ctrl+Alt+H")))]
    action.trigger()
    assert host.said == ["hello"]


def test_a_handler_the_window_does_not_have_is_an_error_at_build(qtbot) -> None:
    host = Host()
    qtbot.addWidget(host)
    typo = Command("hello", "actionHello", "Say &Hello", "sya", menus=(("Help", 0),))
    with pytest.raises(AttributeError, match="sya"):
        Actions(host, (typo,))
    with pytest.raises(AttributeError, match="no command 'nothing'"):
        _ = Actions(host, ()).nothing
