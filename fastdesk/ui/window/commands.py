"""The table of the window's commands: each declared once, with its name, text, shortcut, place
in the menus and toolbar, and the window method it runs.

A new command is one :class:`Command` in :data:`COMMANDS`; the actions, menus, toolbar, the F1
guide and the tests that check shortcuts and accelerators are all built from this table
(fastdesk.ui.window.actions). The shape follows qutebrowser's command registry: a command names
its handler by the object that owns it, resolved when the window is built.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from PySide6.QtGui import QKeySequence

Key = QKeySequence.StandardKey
Shortcut = Key | str
# Cmd+H hides the application on macOS: replace is Cmd+Option+F there, as in VS Code
REPLACE_KEY = "Alt+Ctrl+F" if sys.platform == "darwin" else "Ctrl+H"

# The menu bar, left to right: (key used by Command.menus, title with its Alt accelerator,
# objectName or ""). Review is Alt+R: View keeps Alt+V.
MENUS: tuple[tuple[str, str, str], ...] = (
    ("File", "&File", ""),
    ("Edit", "&Edit", ""),
    ("Translate", "&Translate", ""),
    ("Review", "&Review", "reviewMenu"),
    ("View", "&View", ""),
    ("Help", "&Help", ""),
)

Place = tuple[str, int]  # (menu key, group): groups are separated; in a group, table order


@dataclass(frozen=True)
class Command:
    """One command of the window.

    ``handler`` is a dotted path from the window (``"files.save"``: ``window.files.save``),
    called with ``args``; a ``checkable`` command's handler gets its new state, a ``submenu``'s
    the menu about to show (to fill it). ``toolbar``: 0 before the selectors, 1 after.
    ``enabled``: at start (undo and redo wait until there is something to undo).
    """

    id: str  # the attribute of Actions: ``window.actions_.save_as``
    name: str  # the objectName scripts and tests find the action by
    text: str  # the menu text; "&" marks its Alt accelerator
    handler: str
    shortcut: Shortcut | None = None
    tip: str = ""
    menus: tuple[Place, ...] = ()
    args: tuple[str, ...] = ()
    every_binding: bool = False  # all the platform's keys of a standard key (redo: Ctrl+Y too)
    checkable: bool = False
    submenu: bool = False
    toolbar: int | None = None
    enabled: bool = True


C = Command
# fmt: off  (a table: one command to a few lines)
COMMANDS: tuple[Command, ...] = (
    # ---- File
    C(
        "new",
        "actionNew",
        "&New",
        "files.new_document",
        Key.New,
        "Start an empty document",
        menus=(("File", 0),),
    ),
    C(
        "open",
        "actionOpen",
        "&Open…",
        "files.open_dialog",
        Key.Open,
        "Open a Markdown file",
        menus=(("File", 0),),
        toolbar=0,
    ),
    C(
        "open_recent",
        "recentMenu",
        "Open &Recent",
        "fill_recent_menu",
        menus=(("File", 0),),
        submenu=True,
    ),
    C(
        "save",
        "actionSave",
        "&Save",
        "files.save",
        Key.Save,
        "Save the source",
        menus=(("File", 1),),
        toolbar=0,
    ),
    C(
        "save_as",
        "actionSaveAs",
        "Save &As…",
        "files.save_as",
        "Ctrl+Shift+S",
        "Save the source as",
        menus=(("File", 1),),
    ),
    C(
        "export",
        "actionExport",
        "&Export Translation…",
        "files.export_dialog",
        "Ctrl+E",
        "Write the translation to a file",
        menus=(("File", 1),),
        toolbar=0,
    ),
    C(
        "export_bilingual",
        "actionExportBilingual",
        "Export &Bilingual Review…",
        "review_commands.export_bilingual_dialog",
        "Ctrl+Shift+H",
        "Write a standalone HTML page: source and translation side by side, with states",
        menus=(("File", 1), ("Review", 2)),
    ),
    C(
        "settings",
        "actionSettings",
        "Se&ttings…",
        "open_settings",
        "Ctrl+,",
        "Providers, keys, models",
        menus=(("File", 2),),
    ),
    C("quit", "actionQuit", "&Quit", "close", "Ctrl+Q", "Close the window", menus=(("File", 3),)),
    # ---- Edit (undo and redo: the focused pane's, the source's or the editor's steps)
    C(
        "undo",
        "actionUndo",
        "&Undo",
        "review_commands.undo",
        Key.Undo,
        "Undo the last edit",
        menus=(("Edit", 0),),
        enabled=False,
    ),
    C(
        "redo",
        "actionRedo",
        "&Redo",
        "review_commands.redo",
        Key.Redo,
        "Redo",
        menus=(("Edit", 0),),
        every_binding=True,
        enabled=False,
    ),
    C("cut", "actionCut", "Cu&t", "document_view.source.cut", Key.Cut, menus=(("Edit", 1),)),
    C("copy", "actionCopy", "&Copy", "copy_focused", Key.Copy, menus=(("Edit", 1),)),
    C(
        "paste",
        "actionPaste",
        "&Paste",
        "document_view.source.paste",
        Key.Paste,
        menus=(("Edit", 1),),
    ),
    C(
        "select_all",
        "actionSelectAll",
        "Select &All",
        "select_all_focused",
        Key.SelectAll,
        menus=(("Edit", 1),),
    ),
    C(
        "find",
        "actionFind",
        "&Find…",
        "workbench.find",
        "Ctrl+F",
        "Find in the focused pane",
        menus=(("Edit", 2),),
    ),
    C(
        "replace",
        "actionReplace",
        "R&eplace…",
        "workbench.replace",
        REPLACE_KEY,
        "Find and replace",
        menus=(("Edit", 2),),
    ),
    C(
        "find_next",
        "actionFindNext",
        "Find &Next",
        "workbench.find_next",
        "F3",
        menus=(("Edit", 2),),
    ),
    C(
        "find_previous",
        "actionFindPrevious",
        "Find Pre&vious",
        "workbench.find_previous",
        "Shift+F3",
        menus=(("Edit", 2),),
    ),
    # ---- Translate
    C(
        "live",
        "actionLive",
        "&Live",
        "set_live",
        "Ctrl+Shift+L",
        "Translate while you type",
        menus=(("Translate", 0),),
        checkable=True,
        toolbar=1,
    ),
    C(
        "translate_now",
        "actionTranslateNow",
        "Translate &Now",
        "translate_now",
        "Ctrl+Return",
        "Translate the document now",
        menus=(("Translate", 0),),
        toolbar=1,
    ),
    C(
        "retranslate",
        "actionRetranslate",
        "&Retranslate Section",
        "document_view.blocks.retranslate_section",
        "Ctrl+Shift+Return",
        "Translate the section under the cursor again, bypassing memory",
        menus=(("Translate", 0),),
    ),
    C(
        "retry_failed",
        "actionRetryFailed",
        "Retry &Failed Blocks",
        "document_view.blocks.retry_failed",
        "Ctrl+Shift+R",
        "Translate again the blocks whose request failed",
        menus=(("Translate", 0),),
    ),
    C(
        "expand",
        "actionExpand",
        "E&xpand Section",
        "document_view.blocks.expand_section",
        "Ctrl+Shift+E",
        "Have the model elaborate the section under the cursor (marked as generated)",
        menus=(("Translate", 0),),
        toolbar=1,
    ),
    C(
        "keep_generated",
        "actionKeepGenerated",
        "&Keep Generated Text",
        "workbench.keep_generated",
        "Ctrl+Alt+E",
        "Add the section's generated text to its translation, as your edit",
        menus=(("Translate", 0),),
    ),
    C(
        "discard_generated",
        "actionDiscardGenerated",
        "&Discard Generated Text",
        "workbench.discard_generated",
        "Ctrl+Alt+D",
        "Remove the section's generated text",
        menus=(("Translate", 0),),
    ),
    C(
        "mode_translate",
        "actionModeTranslate",
        "&Translate",
        "set_mode",
        "Ctrl+1",
        "Mode: translate",
        menus=(("Translate", 1),),
        args=("translate",),
    ),
    C(
        "mode_simplify",
        "actionModeSimplify",
        "&Simplify",
        "set_mode",
        "Ctrl+2",
        "Mode: rewrite in plain language",
        menus=(("Translate", 1),),
        args=("simplify",),
    ),
    C(
        "choose_language",
        "actionLanguage",
        "Tar&get Language…",
        "selectors.focus_language",
        "Ctrl+L",
        "Choose the target language",
        menus=(("Translate", 2),),
    ),
    C(
        "choose_provider",
        "actionProvider",
        "&Provider…",
        "selectors.focus_provider",
        "Ctrl+Shift+P",
        "Choose the provider",
        menus=(("Translate", 2),),
    ),
    C(
        "translate_project",
        "actionTranslateProject",
        "Translate Pro&ject…",
        "translate_project",
        "Ctrl+Alt+Return",
        "Translate every page of the open docs project into each of its "
        "languages, as `fastdesk translate DIR` does",
        menus=(("Translate", 3),),
    ),
    C(
        "compare",
        "actionCompare",
        "&Compare Providers…",
        "compare_providers",
        "Ctrl+Shift+B",
        "Time every configured provider and model on this document",
        menus=(("Translate", 3),),
    ),
    # ---- Review
    C(
        "approve",
        "actionApprove",
        "&Approve Block",
        "review_commands.approve_block",
        "Ctrl+Shift+A",
        "Mark the translation of the block under the cursor as checked",
        menus=(("Review", 0),),
    ),
    C(
        "approve_all",
        "actionApproveAll",
        "Approve A&ll",
        "review_commands.approve_all",
        "Ctrl+Shift+K",
        "Approve every translated block (not flagged ones, nor blocks whose source changed)",
        menus=(("Review", 0),),
    ),
    C(
        "withdraw_approval",
        "actionWithdrawApproval",
        "&Withdraw Approval",
        "review_commands.withdraw_approval",
        "Ctrl+Alt+A",
        "Withdraw the approval of the block under the cursor (a correction stays)",
        menus=(("Review", 0),),
    ),
    C(
        "revert",
        "actionRevertEdit",
        "Re&vert My Edit",
        "review_commands.revert_block",
        "Ctrl+Shift+Backspace",
        "Drop your correction of the block under the cursor: the machine translation shows",
        menus=(("Review", 0),),
    ),
    C(
        "decide",
        "actionDecideChangedSource",
        "&Compare Changed Source…",
        "review_commands.decide",
        "Ctrl+Alt+C",
        "What changed in the source under your edit, and the new translation: then "
        "re-translate or keep yours",
        menus=(("Review", 0),),
    ),
    C(
        "add_to_glossary",
        "actionAddToGlossary",
        "Add to &Glossary…",
        "house.add_to_glossary",
        "Ctrl+Shift+G",
        "The selected source term, and the selected translation, as a glossary entry",
        menus=(("Review", 0),),
    ),
    C(
        "next_problem",
        "actionNextProblem",
        "&Next Problem",
        "workbench.next_problem",
        "F8",
        "Go to the next block of the problems list (flagged, failed, changed, unchecked)",
        menus=(("Review", 1),),
    ),
    C(
        "previous_problem",
        "actionPreviousProblem",
        "&Previous Problem",
        "workbench.previous_problem",
        "Shift+F8",
        "Go to the previous block of the problems list",
        menus=(("Review", 1),),
    ),
    C(
        "summary",
        "actionReviewSummary",
        "Review &Summary…",
        "review_commands.show_review_summary",
        "Ctrl+Shift+I",
        "How many blocks are approved, edited, flagged",
        menus=(("Review", 1),),
    ),
    C(
        "back_translate",
        "actionBackTranslate",
        "Bac&k-Translate Block",
        "document_view.blocks.back_translate_block",
        "Ctrl+Shift+U",
        "The translation of the selected blocks (or the block under the cursor), translated "
        "back into the source's language, beside the source",
        menus=(("Review", 1),),
    ),
    C(
        "glossary_drift",
        "actionGlossaryDrift",
        "Glossary &Drift…",
        "workbench.show_glossary_drift",
        "Ctrl+Alt+T",
        "How each glossary term is rendered, per language and page: the terms rendered other "
        "than the glossary says, or several ways, first",
        menus=(("Review", 1),),
    ),
    # ---- View
    C(
        "toggle_view",
        "actionToggleView",
        "Show &Markdown",
        "toggle_target_view",
        "Ctrl+R",
        "Switch the translation between rendered and raw Markdown",
        menus=(("View", 0),),
    ),
    C(
        "sync_scroll",
        "actionSyncScroll",
        "S&ynchronised Scrolling",
        "set_sync_scroll",
        "Ctrl+Shift+Y",
        "Scroll both panes together",
        menus=(("View", 0),),
        checkable=True,
    ),
    C(
        "second_pane",
        "actionSecondPane",
        "Second &Translation",
        "set_second_pane",
        "Ctrl+Shift+T",
        "A second translation beside the first, in another language",
        menus=(("View", 0),),
        checkable=True,
    ),
    C(
        "dark_theme",
        "actionDarkTheme",
        "&Dark Theme",
        "set_dark_theme",
        "Ctrl+Shift+N",
        "Dark colours (unticked: light; Settings also has the system's)",
        menus=(("View", 3),),
        checkable=True,
    ),
    C(
        "focus_source",
        "actionFocusSource",
        "Focus &Source",
        "document_view.focus_source",
        "Ctrl+[",
        menus=(("View", 1),),
    ),
    C(
        "focus_target",
        "actionFocusTarget",
        "Focus T&ranslation",
        "document_view.focus_target",
        "Ctrl+]",
        menus=(("View", 1),),
    ),
    C(
        "next_pane",
        "actionNextPane",
        "Ne&xt Pane",
        "panels.next_pane",
        "F6",
        "The focus to the next pane or panel on show (the editors keep Tab for a tab)",
        menus=(("View", 1),),
    ),
    C(
        "previous_pane",
        "actionPreviousPane",
        "Previous Pan&e",
        "panels.previous_pane",
        "Shift+F6",
        "The focus to the previous pane or panel on show",
        menus=(("View", 1),),
    ),
    C(
        "menu_bar",
        "actionMenuBar",
        "Menu &Bar",
        "panels.open_menus",
        "F10",
        "The keyboard in the menu bar, its first menu open (as F10 does in GTK and Windows)",
        menus=(("View", 1),),
    ),
    # each panel's shortcut shows it (the focus in it), and hides it again
    C(
        "outline",
        "actionOutline",
        "&Outline",
        "panels.toggle",
        "Ctrl+Shift+O",
        "The document's headings (again: hide)",
        menus=(("View", 2),),
        args=("outline",),
    ),
    C(
        "problems",
        "actionProblems",
        "&Problems",
        "panels.toggle",
        "Ctrl+Shift+M",
        "Blocks that need a look (again: hide)",
        menus=(("View", 2),),
        args=("problems",),
    ),
    C(
        "project",
        "actionProject",
        "Pro&ject",
        "panels.toggle",
        "Ctrl+Shift+J",
        "A docs project's files by language, what is stale (a folder to open first; again: hide)",
        menus=(("View", 2),),
        args=("project",),
    ),
    C(
        "house_style",
        "actionHouseStyle",
        "&House Style",
        "panels.toggle",
        "Ctrl+Alt+S",
        "The project's instructions to the model: audience, tone, per language (again: hide)",
        menus=(("View", 2),),
        args=("style",),
    ),
    C(
        "glossary",
        "actionGlossary",
        "&Glossary",
        "panels.toggle",
        "Ctrl+Alt+G",
        "The project's glossary for this language: add, change, delete, import, export "
        "(again: hide)",
        menus=(("View", 2),),
        args=("glossary",),
    ),
    # ---- Help
    C(
        "guide",
        "actionGuide",
        "fastdesk &Guide",
        "workbench.show_guide",
        "F1",
        "What fastdesk does; shortcuts",
        menus=(("Help", 0),),
    ),
    C(
        "show_error",
        "actionShowError",
        "Last &Error Details",
        "status.show_error_details",
        "Ctrl+Shift+D",
        menus=(("Help", 0),),
    ),
    C("sample", "actionSample", "Open &Sample Document", "files.open_sample", menus=(("Help", 0),)),
    C("about", "actionAbout", "&About fastdesk", "about", menus=(("Help", 1),)),
)
# fmt: on
