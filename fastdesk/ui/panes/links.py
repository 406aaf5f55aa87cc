"""Links clicked in a rendered pane: web pages and mail open, anything else is shown only.

Why: a rendered document may be a stranger's (a cloned project, a pull request), and Qt's own
``setOpenExternalLinks`` hands every scheme to the operating system (``javascript:``,
``smb://``, ``file:``, a custom app's). The rule is the core's ``opens_on_click``.
"""

from __future__ import annotations

from PySide6.QtCore import QUrl
from PySide6.QtGui import QCursor, QDesktopServices
from PySide6.QtWidgets import QTextBrowser, QToolTip

from fastdesk.document.html import opens_on_click
from fastdesk.ui.plain import tip

__all__ = ["follow_links_safely"]


def follow_links_safely(browser: QTextBrowser) -> None:
    """Clicks on ``browser``'s links go through :func:`clicked` (Qt follows none itself)."""
    browser.setOpenExternalLinks(False)
    browser.setOpenLinks(False)  # nor loads a local file into the pane
    browser.anchorClicked.connect(lambda url: clicked(browser, url))


def clicked(browser: QTextBrowser, url: QUrl) -> None:
    text = url.toString()
    if opens_on_click(text):
        QDesktopServices.openUrl(url)
    elif text.startswith("#"):
        browser.scrollToAnchor(url.fragment())
    else:
        QToolTip.showText(QCursor.pos(), tip(f"Not opened: {text[:200]}"), browser)
