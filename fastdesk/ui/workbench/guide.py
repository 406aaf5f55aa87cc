"""The short guide (F1): what fastdesk does, in a few lines, and every shortcut of the window.

The shortcuts come from the window's table of commands (fastdesk.ui.window.commands) through its
actions, so the guide lists what the keys really do and a new command appears here by itself.
"""

from __future__ import annotations

import html
from collections.abc import Iterable

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout, QWidget

from fastdesk.ui.panes.accessible import as_document

INTRO = (
    "<p>Type or open Markdown on the left; the translation (or plain-language rewrite) "
    "appears on the right, block by block, while you type (Live).</p>"
    "<p>Correct the translation in its Markdown view (Ctrl+R): your edits are kept, marked "
    "in the margin, and never overwritten by the machine. Approve a block once checked. "
    "Ctrl+Z in the translation undoes your own corrections and approvals, step by step.</p>"
    "<p><b>Problems</b> lists every block that needs you: flagged by a check, failed, source "
    "changed since your edit, not translated, not approved. <b>Next Problem</b> and "
    "<b>Previous Problem</b> step through it; a changed link, code span or placeholder comes "
    "back from the source with <b>Restore from source</b>, as your edit.</p>"
    "<p><b>Expand Section</b> has the model elaborate the section under the cursor; the text "
    "it writes is marked as generated, not part of the translation nor exported. <b>Keep "
    "Generated Text</b> adds it to the translation as your edit; <b>Discard Generated Text</b> "
    "removes it. Expand again to replace it; it goes when you switch mode or language.</p>"
)


# (keys, what): moving through the window by keyboard, as the GTK and Windows conventions go
MOVING = (
    (
        "F6 / Shift+F6",
        "the next / previous pane or panel on show: source, translation, the "
        "second translation, each panel, the find bar, the toolbar",
    ),
    (
        "Tab",
        "in the source and the translation's Markdown: a tab, as in Markdown editors; "
        "elsewhere the next control (a panel's Close and Float buttons included)",
    ),
    ("Ctrl+[ / Ctrl+]", "straight to the source / the translation"),
    ("A panel's shortcut", "shows the panel with the focus in it; again, hides it"),
    ("Esc", "closes the find bar, back to its pane"),
    ("Enter", "in the rendered translation: correct the block in its Markdown"),
    ("Alt+letter", "the menus: Alt+F File, Alt+E Edit, Alt+V View…"),
)


def guide_html(shortcuts: Iterable[tuple[str, str]]) -> str:
    """The guide's page; ``shortcuts``: (what, keys), as Actions.shortcut_rows gives them."""
    rows = "".join(
        f"<tr><td>{html.escape(name)}</td><td><b>{html.escape(keys)}</b></td></tr>"
        for name, keys in shortcuts
    )
    moving = "".join(
        f"<tr><td><b>{html.escape(keys)}</b></td><td>{html.escape(what)}</td></tr>"
        for keys, what in MOVING
    )
    return (
        f"<h2>fastdesk in a minute</h2>{INTRO}"
        "<h3><a name='moving'></a>Moving around by keyboard</h3>"
        f'<table cellspacing="0" cellpadding="3">{moving}</table><h3>Shortcuts</h3>'
        f'<table cellspacing="0" cellpadding="3">{rows}</table>'
    )


class GuideDialog(QDialog):
    def __init__(self, shortcuts: Iterable[tuple[str, str]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("guideDialog")
        self.setWindowTitle("fastdesk guide")
        self.browser = QTextBrowser()
        self.browser.setObjectName("guideText")
        as_document(self.browser, "fastdesk guide")
        self.browser.setHtml(guide_html(shortcuts))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser)
        layout.addWidget(buttons)
        self.resize(520, 620)
