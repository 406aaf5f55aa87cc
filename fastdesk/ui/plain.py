"""Text we did not write is shown as text: never markup, never a link out.

Why: a translation, a reviewer's verdict, a back-translation, a server's or an SDK's error, a
model id, a file name and a project's strings are someone else's. Qt shows any string that
looks like HTML as rich text in a label, a message box or a tooltip: an explanation of
``<img src="file:///home/me/photo.png">`` showed the photo, one of ``file:///dev/zero`` read
until the process died, and ``<a href=smb://…>`` in a server's error opened the share from the
message box (which opens links itself). So every such text goes through one of these:

- a label: :func:`plain` (``Qt.TextFormat.PlainText``, no links opened);
- a tooltip (rich text whenever it looks like HTML, whoever sets it): :func:`tip`, escaped
  and wrapped so that it is always shown as the characters it holds;
- a message box: :func:`plain_box` before it is shown, or :func:`ask` for a question;
- a menu item's text (a recent file's name): :func:`menu_text` (Qt takes ``&`` there for the
  letter that chooses it: "R&D notes.md" showed as "RD notes.md", and Alt+D chose it).

Links in a rendered document open only through ``fastdesk.ui.panes.links`` (http(s), mailto).
"""

from __future__ import annotations

import html

from PySide6.QtGui import Qt  # QtGui's Qt adds mightBeRichText
from PySide6.QtWidgets import QLabel, QMessageBox, QWidget

__all__ = ["ask", "escape", "menu_text", "plain", "plain_box", "tip"]


def escape(text: str) -> str:
    """``text`` for a place that takes rich text (``<``, ``>`` and ``&`` as themselves)."""
    return html.escape(text, quote=False)


def menu_text(text: str) -> str:
    """``text`` for a menu item, a button or a tab: each ``&`` shown as itself."""
    return text.replace("&", "&&")


def tip(text: str) -> str:
    """A tooltip showing ``text`` exactly. Qt takes a tooltip for rich text when
    ``Qt.mightBeRichText`` says so (a tag before the first line break): such a text is
    escaped and wrapped in a paragraph, so that Qt still reads it as rich text (an escaped
    string it took for plain would show ``&lt;``), line breaks kept; any other is shown as it
    is already."""
    if not Qt.mightBeRichText(text):
        return text
    return f'<p style="white-space:pre-wrap">{escape(text)}</p>'


def plain(label: QLabel) -> QLabel:
    """``label`` showing its text as it is, whatever it holds; returned for chaining."""
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setOpenExternalLinks(False)
    return label


def plain_box(box: QMessageBox) -> QMessageBox:
    """``box`` with its text and informative text shown as they are, and no link of theirs
    handed to the desktop (a message box opens links by itself); call it once its texts are
    set. Returned for chaining."""
    box.setTextFormat(Qt.TextFormat.PlainText)
    for label in box.findChildren(QLabel):
        plain(label)
    return box


def ask(
    parent: QWidget | None,
    title: str,
    text: str,
    buttons: QMessageBox.StandardButton = (
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No
    ),
    default: QMessageBox.StandardButton = QMessageBox.StandardButton.NoButton,
) -> QMessageBox.StandardButton:
    """``QMessageBox.question`` with ``text`` shown as it is (it names files and models)."""
    box = QMessageBox(QMessageBox.Icon.Question, title, text, buttons, parent)
    box.setDefaultButton(default)
    plain_box(box)
    return QMessageBox.StandardButton(box.exec())
