"""Every command of the window as a QAction with a shortcut, and the menus and toolbar built
from them. What each action does is a named command the window supplies (:class:`Commands`);
nothing here decides anything."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QMenuBar, QToolBar, QWidget

Key = QKeySequence.StandardKey
# Cmd+H hides the application on macOS: replace is Cmd+Option+F there, as in VS Code
REPLACE_KEY = "Alt+Ctrl+F" if sys.platform == "darwin" else "Ctrl+H"
Command = Callable[[], object]
Toggle = Callable[[bool], object]


@dataclass(frozen=True)
class Commands:
    """What the actions do, by name: each a callable without arguments (a switch gets its new
    state), so that an action never reaches into the window."""

    new: Command
    open: Command
    open_recent: Callable[[QMenu], object]  # fill the Open Recent menu as it opens
    save: Command
    save_as: Command
    export: Command
    export_bilingual: Command
    settings: Command
    quit: Command
    undo: Command
    redo: Command
    cut: Command
    copy: Command
    paste: Command
    select_all: Command
    live: Toggle
    translate_now: Command
    retranslate: Command
    retry_failed: Command
    expand: Command
    mode_translate: Command
    mode_simplify: Command
    choose_language: Command
    choose_provider: Command
    toggle_view: Command
    sync_scroll: Toggle
    focus_source: Command
    focus_target: Command
    show_error: Command
    approve: Command
    approve_all: Command
    withdraw_approval: Command
    revert: Command
    decide: Command
    next_problem: Command
    previous_problem: Command
    summary: Command
    sample: Command
    about: Command
    find: Command
    replace: Command
    find_next: Command
    find_previous: Command
    outline: Command
    problems: Command
    project: Command
    second_pane: Toggle
    guide: Command
    keep_generated: Command
    discard_generated: Command


def _action(
    owner: QWidget,
    name: str,
    text: str,
    slot: Callable[..., object] | None,
    shortcut: QKeySequence.StandardKey | str | None = None,
    tip: str = "",
    *,
    checkable: bool = False,
) -> QAction:
    action = QAction(text, owner)
    action.setObjectName(name)
    if shortcut is not None:
        action.setShortcut(QKeySequence(shortcut))
    if tip:
        hint = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        action.setToolTip(f"{tip} ({hint})" if hint else tip)
        action.setStatusTip(tip)
    action.setCheckable(checkable)
    if checkable and slot is not None:
        action.toggled.connect(slot)
    elif slot is not None:
        command = slot
        action.triggered.connect(lambda _checked=False: command())
    owner.addAction(action)  # shortcuts work even when the menu bar is hidden
    return action


class Actions:
    """The window's actions, by attribute name; ``owner`` is the window (shortcuts live there)."""

    def __init__(self, w: QWidget, c: Commands) -> None:
        a = _action
        self.new = a(w, "actionNew", "&New", c.new, Key.New, "Start an empty document")
        self.open = a(w, "actionOpen", "&Open…", c.open, Key.Open, "Open a Markdown file")
        self.save = a(w, "actionSave", "&Save", c.save, Key.Save, "Save the source")
        self.save_as = a(
            w, "actionSaveAs", "Save &As…", c.save_as, "Ctrl+Shift+S", "Save the source as"
        )
        self.export = a(
            w,
            "actionExport",
            "&Export Translation…",
            c.export,
            "Ctrl+E",
            "Write the translation to a file",
        )
        self.settings = a(
            w, "actionSettings", "Se&ttings…", c.settings, "Ctrl+,", "Providers, keys, models"
        )
        self.quit = a(w, "actionQuit", "&Quit", c.quit, "Ctrl+Q", "Close the window")
        self.undo = a(w, "actionUndo", "&Undo", c.undo, Key.Undo, "Undo the last edit")
        self.redo = a(w, "actionRedo", "&Redo", c.redo, Key.Redo, "Redo")
        self.undo.setEnabled(False)  # until the source says it has something to undo
        self.redo.setShortcuts(Key.Redo)  # Ctrl+Shift+Z as well as Ctrl+Y, in every pane
        self.redo.setEnabled(False)
        self.cut = a(w, "actionCut", "Cu&t", c.cut, Key.Cut)
        self.copy = a(w, "actionCopy", "&Copy", c.copy, Key.Copy)
        self.paste = a(w, "actionPaste", "&Paste", c.paste, Key.Paste)
        self.select_all = a(w, "actionSelectAll", "Select &All", c.select_all, Key.SelectAll)
        self.live = a(
            w,
            "actionLive",
            "&Live",
            c.live,
            "Ctrl+Shift+L",
            "Translate while you type",
            checkable=True,
        )
        self.translate_now = a(
            w,
            "actionTranslateNow",
            "Translate &Now",
            c.translate_now,
            "Ctrl+Return",
            "Translate the document now",
        )
        self.retranslate = a(
            w,
            "actionRetranslate",
            "&Retranslate Section",
            c.retranslate,
            "Ctrl+Shift+Return",
            "Translate the section under the cursor again, bypassing memory",
        )
        self.retry_failed = a(
            w,
            "actionRetryFailed",
            "Retry &Failed Blocks",
            c.retry_failed,
            "Ctrl+Shift+R",
            "Translate again the blocks whose request failed",
        )
        self.expand = a(
            w,
            "actionExpand",
            "E&xpand Section",
            c.expand,
            "Ctrl+Shift+E",
            "Have the model elaborate the section under the cursor (marked as generated)",
        )
        self.mode_translate = a(
            w,
            "actionModeTranslate",
            "&Translate",
            c.mode_translate,
            "Ctrl+1",
            "Mode: translate",
        )
        self.mode_simplify = a(
            w,
            "actionModeSimplify",
            "&Simplify",
            c.mode_simplify,
            "Ctrl+2",
            "Mode: rewrite in plain language",
        )
        self.choose_language = a(
            w,
            "actionLanguage",
            "Target &Language…",
            c.choose_language,
            "Ctrl+L",
            "Choose the target language",
        )
        self.choose_provider = a(
            w,
            "actionProvider",
            "&Provider…",
            c.choose_provider,
            "Ctrl+Shift+P",
            "Choose the provider",
        )
        self.toggle_view = a(
            w,
            "actionToggleView",
            "Show &Markdown",
            c.toggle_view,
            "Ctrl+R",
            "Switch the translation between rendered and raw Markdown",
        )
        self.sync_scroll = a(
            w,
            "actionSyncScroll",
            "S&ynchronised Scrolling",
            c.sync_scroll,
            "Ctrl+Shift+Y",
            "Scroll both panes together",
            checkable=True,
        )
        self.focus_source = a(w, "actionFocusSource", "Focus &Source", c.focus_source, "Ctrl+[")
        self.focus_target = a(
            w, "actionFocusTarget", "Focus T&ranslation", c.focus_target, "Ctrl+]"
        )
        self.show_error = a(
            w, "actionShowError", "Last &Error Details", c.show_error, "Ctrl+Shift+D"
        )
        self.approve = a(
            w,
            "actionApprove",
            "&Approve Block",
            c.approve,
            "Ctrl+Shift+A",
            "Mark the translation of the block under the cursor as checked",
        )
        self.approve_all = a(
            w,
            "actionApproveAll",
            "Approve A&ll",
            c.approve_all,
            "Ctrl+Shift+K",
            "Approve every translated block (not flagged ones, nor blocks whose source changed)",
        )
        self.withdraw_approval = a(
            w,
            "actionWithdrawApproval",
            "&Withdraw Approval",
            c.withdraw_approval,
            "Ctrl+Alt+A",
            "Withdraw the approval of the block under the cursor (a correction stays)",
        )
        self.decide = a(
            w,
            "actionDecideChangedSource",
            "&Compare Changed Source…",
            c.decide,
            "Ctrl+Alt+C",
            "What changed in the source under your edit, and the new translation: then "
            "re-translate or keep yours",
        )
        self.revert = a(
            w,
            "actionRevertEdit",
            "Re&vert My Edit",
            c.revert,
            "Ctrl+Shift+Backspace",
            "Drop your correction of the block under the cursor: the machine translation shows",
        )
        self.next_problem = a(
            w,
            "actionNextProblem",
            "&Next Problem",
            c.next_problem,
            "F8",
            "Go to the next block of the problems list (flagged, failed, changed, unchecked)",
        )
        self.previous_problem = a(
            w,
            "actionPreviousProblem",
            "Pre&vious Problem",
            c.previous_problem,
            "Shift+F8",
            "Go to the previous block of the problems list",
        )
        self.summary = a(
            w,
            "actionReviewSummary",
            "Review &Summary…",
            c.summary,
            "Ctrl+Shift+I",
            "How many blocks are approved, edited, flagged",
        )
        self.export_bilingual = a(
            w,
            "actionExportBilingual",
            "Export &Bilingual Review…",
            c.export_bilingual,
            "Ctrl+Shift+H",
            "Write a standalone HTML page: source and translation side by side, with states",
        )
        self.sample = a(w, "actionSample", "Open &Sample Document", c.sample, None)
        self.about = a(w, "actionAbout", "&About fastdesk", c.about, None)
        self.find = a(w, "actionFind", "&Find…", c.find, "Ctrl+F", "Find in the focused pane")
        self.replace = a(
            w, "actionReplace", "&Replace…", c.replace, REPLACE_KEY, "Find and replace"
        )
        self.find_next = a(w, "actionFindNext", "Find &Next", c.find_next, "F3")
        self.find_previous = a(
            w, "actionFindPrevious", "Find Pre&vious", c.find_previous, "Shift+F3"
        )
        self.outline = a(
            w, "actionOutline", "&Outline", c.outline, "Ctrl+Shift+O", "The document's headings"
        )
        self.problems = a(
            w, "actionProblems", "&Problems", c.problems, "Ctrl+Shift+M", "Blocks that need a look"
        )
        self.project = a(
            w,
            "actionProject",
            "&Project",
            c.project,
            "Ctrl+Shift+J",
            "A docs project's files by language, what is stale (a folder to open first)",
        )
        self.second_pane = a(
            w,
            "actionSecondPane",
            "Second &Translation",
            c.second_pane,
            "Ctrl+Shift+T",
            "A second translation beside the first, in another language",
            checkable=True,
        )
        self.keep_generated = a(
            w,
            "actionKeepGenerated",
            "&Keep Generated Text",
            c.keep_generated,
            "Ctrl+Alt+E",
            "Add the section's generated text to its translation, as your edit",
        )
        self.discard_generated = a(
            w,
            "actionDiscardGenerated",
            "&Discard Generated Text",
            c.discard_generated,
            "Ctrl+Alt+D",
            "Remove the section's generated text",
        )
        self.guide = a(
            w, "actionGuide", "fastdesk &Guide", c.guide, "F1", "What fastdesk does; shortcuts"
        )
        self.recent_menu = QMenu("Open &Recent", w)
        self.recent_menu.setObjectName("recentMenu")
        self.recent_menu.aboutToShow.connect(lambda: c.open_recent(self.recent_menu))

    def build_menus(self, bar: QMenuBar) -> None:
        file = bar.addMenu("&File")
        file.addActions([self.new, self.open])
        file.addMenu(self.recent_menu)
        file.addSeparator()
        file.addActions([self.save, self.save_as, self.export, self.export_bilingual])
        file.addSeparator()
        file.addAction(self.settings)
        file.addSeparator()
        file.addAction(self.quit)
        edit = bar.addMenu("&Edit")
        edit.addActions([self.undo, self.redo])
        edit.addSeparator()
        edit.addActions([self.cut, self.copy, self.paste, self.select_all])
        edit.addSeparator()
        edit.addActions([self.find, self.replace, self.find_next, self.find_previous])
        tr = bar.addMenu("&Translate")
        tr.addActions([self.live, self.translate_now, self.retranslate, self.retry_failed])
        tr.addAction(self.expand)
        tr.addActions([self.keep_generated, self.discard_generated])
        tr.addSeparator()
        tr.addActions([self.mode_translate, self.mode_simplify])
        tr.addSeparator()
        tr.addActions([self.choose_language, self.choose_provider])
        review = bar.addMenu("Re&view")
        review.setObjectName("reviewMenu")
        review.addActions([self.approve, self.approve_all, self.withdraw_approval])
        review.addActions([self.revert, self.decide])
        review.addSeparator()
        review.addActions([self.next_problem, self.previous_problem, self.summary])
        review.addSeparator()
        review.addAction(self.export_bilingual)
        view = bar.addMenu("&View")
        view.addActions([self.toggle_view, self.sync_scroll, self.second_pane])
        view.addSeparator()
        view.addActions([self.focus_source, self.focus_target])
        view.addSeparator()
        view.addActions([self.outline, self.problems, self.project])
        help_ = bar.addMenu("&Help")
        help_.addActions([self.guide, self.show_error, self.sample])
        help_.addSeparator()
        help_.addAction(self.about)

    def build_toolbar(self, owner: QWidget, selectors: Sequence[QWidget]) -> QToolBar:
        tb = QToolBar("Main", owner)
        tb.setObjectName("mainToolBar")
        tb.setMovable(False)
        tb.addActions([self.open, self.save, self.export])
        tb.addSeparator()
        for widget in selectors:
            tb.addWidget(widget)
        tb.addSeparator()
        tb.addActions([self.live, self.translate_now, self.expand])
        return tb
