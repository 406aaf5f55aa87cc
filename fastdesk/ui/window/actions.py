"""Every command of the window as a QAction with a shortcut, and the menus and toolbar built
from them. The window supplies the slots; nothing here decides anything."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QToolBar

if TYPE_CHECKING:
    from fastdesk.ui.window.main_window import MainWindow

Key = QKeySequence.StandardKey


def _action(
    window: MainWindow,
    name: str,
    text: str,
    slot: Callable[..., object] | None,
    shortcut: QKeySequence.StandardKey | str | None = None,
    tip: str = "",
    *,
    checkable: bool = False,
) -> QAction:
    action = QAction(text, window)
    action.setObjectName(name)
    if shortcut is not None:
        action.setShortcut(QKeySequence(shortcut))
    if tip:
        hint = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        action.setToolTip(f"{tip} ({hint})" if hint else tip)
        action.setStatusTip(tip)
    action.setCheckable(checkable)
    if slot is not None:
        (action.toggled if checkable else action.triggered).connect(slot)
    window.addAction(action)  # shortcuts work even when the menu bar is hidden
    return action


class Actions:
    """The window's actions, by attribute name."""

    def __init__(self, w: MainWindow) -> None:
        a = _action
        self.new = a(w, "actionNew", "&New", w.new_document, Key.New, "Start an empty document")
        self.open = a(w, "actionOpen", "&Open…", w.open_dialog, Key.Open, "Open a Markdown file")
        self.save = a(w, "actionSave", "&Save", w.save, Key.Save, "Save the source")
        self.save_as = a(
            w, "actionSaveAs", "Save &As…", w.save_as, "Ctrl+Shift+S", "Save the source as"
        )
        self.export = a(
            w,
            "actionExport",
            "&Export Translation…",
            w.export_dialog,
            "Ctrl+E",
            "Write the translation to a file",
        )
        self.settings = a(
            w, "actionSettings", "Se&ttings…", w.open_settings, "Ctrl+,", "Providers, keys, models"
        )
        self.quit = a(w, "actionQuit", "&Quit", w.close, "Ctrl+Q", "Close the window")
        self.undo = a(w, "actionUndo", "&Undo", w.source.undo, Key.Undo, "Undo the last edit")
        self.redo = a(w, "actionRedo", "&Redo", w.source.redo, Key.Redo, "Redo")
        self.undo.setEnabled(False)
        self.redo.setEnabled(False)
        w.source.undoAvailable.connect(self.undo.setEnabled)
        w.source.redoAvailable.connect(self.redo.setEnabled)
        self.cut = a(w, "actionCut", "Cu&t", w.source.cut, Key.Cut)
        self.copy = a(w, "actionCopy", "&Copy", w.copy_focused, Key.Copy)
        self.paste = a(w, "actionPaste", "&Paste", w.source.paste, Key.Paste)
        self.select_all = a(
            w, "actionSelectAll", "Select &All", w.select_all_focused, Key.SelectAll
        )
        self.live = a(
            w,
            "actionLive",
            "&Live",
            w.set_live,
            "Ctrl+Shift+L",
            "Translate while you type",
            checkable=True,
        )
        self.translate_now = a(
            w,
            "actionTranslateNow",
            "Translate &Now",
            w.translate_now,
            "Ctrl+Return",
            "Translate the document now",
        )
        self.retranslate = a(
            w,
            "actionRetranslate",
            "&Retranslate Section",
            w.retranslate_section,
            "Ctrl+Shift+Return",
            "Translate the section under the cursor again, bypassing memory",
        )
        self.expand = a(
            w,
            "actionExpand",
            "E&xpand Section",
            w.expand_section,
            "Ctrl+Shift+E",
            "Have the model elaborate the section under the cursor (marked as generated)",
        )
        self.mode_translate = a(
            w,
            "actionModeTranslate",
            "&Translate",
            lambda: w.set_mode("translate"),
            "Ctrl+1",
            "Mode: translate",
        )
        self.mode_simplify = a(
            w,
            "actionModeSimplify",
            "&Simplify",
            lambda: w.set_mode("simplify"),
            "Ctrl+2",
            "Mode: rewrite in plain language",
        )
        self.choose_language = a(
            w,
            "actionLanguage",
            "Target &Language…",
            w.focus_language,
            "Ctrl+L",
            "Choose the target language",
        )
        self.choose_provider = a(
            w,
            "actionProvider",
            "&Provider…",
            w.focus_provider,
            "Ctrl+Shift+P",
            "Choose the provider",
        )
        self.toggle_view = a(
            w,
            "actionToggleView",
            "Show &Markdown",
            w.toggle_target_view,
            "Ctrl+R",
            "Switch the translation between rendered and raw Markdown",
        )
        self.sync_scroll = a(
            w,
            "actionSyncScroll",
            "S&ynchronised Scrolling",
            w.set_sync_scroll,
            "Ctrl+Shift+Y",
            "Scroll both panes together",
            checkable=True,
        )
        self.focus_source = a(w, "actionFocusSource", "Focus &Source", w.focus_source, "Ctrl+[")
        self.focus_target = a(
            w, "actionFocusTarget", "Focus T&ranslation", w.focus_target, "Ctrl+]"
        )
        self.show_error = a(
            w, "actionShowError", "Last &Error Details", w.status.show_error_details, "Ctrl+Shift+D"
        )
        self.approve = a(
            w,
            "actionApprove",
            "&Approve Block",
            w.approve_block,
            "Ctrl+Shift+A",
            "Mark the translation of the block under the cursor as checked",
        )
        self.approve_all = a(
            w,
            "actionApproveAll",
            "Approve A&ll",
            w.approve_all,
            "Ctrl+Shift+K",
            "Approve every translated block (not flagged ones, nor blocks whose source changed)",
        )
        self.revert = a(
            w,
            "actionRevertEdit",
            "Re&vert My Edit",
            w.revert_block,
            "Ctrl+Shift+Backspace",
            "Drop your correction of the block under the cursor: the machine translation shows",
        )
        self.next_issue = a(
            w,
            "actionNextIssue",
            "&Next Block to Check",
            w.next_issue,
            "F8",
            "Go to the next flagged block or block whose source changed",
        )
        self.summary = a(
            w,
            "actionReviewSummary",
            "Review &Summary…",
            w.show_review_summary,
            "Ctrl+Shift+I",
            "How many blocks are approved, edited, flagged",
        )
        self.export_bilingual = a(
            w,
            "actionExportBilingual",
            "Export &Bilingual Review…",
            w.export_bilingual_dialog,
            "Ctrl+Shift+H",
            "Write a standalone HTML page: source and translation side by side, with states",
        )
        self.sample = a(w, "actionSample", "Open &Sample Document", w.open_sample, None)
        self.about = a(w, "actionAbout", "&About fastdesk", w.about, Key.HelpContents)
        self.recent_menu = QMenu("Open &Recent", w)
        self.recent_menu.setObjectName("recentMenu")
        self.recent_menu.aboutToShow.connect(lambda: w.fill_recent_menu(self.recent_menu))

    def build_menus(self, w: MainWindow) -> None:
        bar = w.menuBar()
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
        tr = bar.addMenu("&Translate")
        tr.addActions([self.live, self.translate_now, self.retranslate, self.expand])
        tr.addSeparator()
        tr.addActions([self.mode_translate, self.mode_simplify])
        tr.addSeparator()
        tr.addActions([self.choose_language, self.choose_provider])
        review = bar.addMenu("Re&view")
        review.setObjectName("reviewMenu")
        review.addActions([self.approve, self.approve_all, self.revert])
        review.addSeparator()
        review.addActions([self.next_issue, self.summary])
        review.addSeparator()
        review.addAction(self.export_bilingual)
        view = bar.addMenu("&View")
        view.addActions([self.toggle_view, self.sync_scroll])
        view.addSeparator()
        view.addActions([self.focus_source, self.focus_target])
        help_ = bar.addMenu("&Help")
        help_.addActions([self.show_error, self.sample])
        help_.addSeparator()
        help_.addAction(self.about)

    def build_toolbar(self, w: MainWindow) -> QToolBar:
        tb = QToolBar("Main", w)
        tb.setObjectName("mainToolBar")
        tb.setMovable(False)
        tb.addActions([self.open, self.save, self.export])
        tb.addSeparator()
        tb.addWidget(w.mode_selector)
        tb.addWidget(w.language_selector)
        tb.addWidget(w.provider_selector)
        tb.addSeparator()
        tb.addActions([self.live, self.translate_now, self.expand])
        return tb
