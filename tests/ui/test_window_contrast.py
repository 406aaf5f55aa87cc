"""Every text colour of both themes at WCAG AA (4.5:1) against the background it is drawn on:
the palette's pairs, the source's highlighting and the rendered translation as laid out, item
views' coloured text (the problems list's fixes, the project's states) and the status bar's and
panels' coloured labels, with every panel open (pytest-qt, offscreen)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QPalette, QTextCharFormat, QTextDocument
from PySide6.QtWidgets import QAbstractButton, QAbstractItemView, QApplication, QLabel, QWidget

from fastdesk.review.problems import Problem
from fastdesk.ui.app import apply_theme
from fastdesk.ui.panes.contrast import AA, contrast_ratio
from tests.ui.everything import make_site, open_panels
from tests.ui.test_theme import app_theme  # noqa: F401 - the fixture

Role = QPalette.ColorRole
PAIRS = (
    (Role.Text, Role.Base),
    (Role.Text, Role.AlternateBase),
    (Role.WindowText, Role.Window),
    (Role.ButtonText, Role.Button),
    (Role.ToolTipText, Role.ToolTipBase),
    (Role.HighlightedText, Role.Highlight),
    (Role.Link, Role.Base),
    (Role.Link, Role.AlternateBase),
    (Role.Link, Role.Window),
    (Role.PlaceholderText, Role.Base),
    (Role.BrightText, Role.Base),
)
_COLOUR = re.compile(r"(?<![-\w])color\s*:\s*(#[0-9a-fA-F]{6})")


@pytest.fixture
def site(tmp_path: Path) -> Path:
    return make_site(tmp_path / "site")


def _hex(colour: QColor) -> str:
    return colour.name(QColor.NameFormat.HexRgb)


def _document_pairs(doc: QTextDocument, base: QColor) -> set[tuple[str, str, str]]:
    """(text colour, background, a sample) of every run of ``doc`` as laid out: its char
    formats, and the formats a syntax highlighter added to each block's layout."""
    out = set()
    block = doc.begin()
    while block.isValid():
        text = block.text()
        ranges = [(f.start, f.length, QTextCharFormat(f.format)) for f in block.layout().formats()]
        it = block.begin()
        while not it.atEnd():
            frag = it.fragment()
            ranges.append((frag.position() - block.position(), frag.length(), frag.charFormat()))
            it += 1
        for start, length, fmt in ranges:
            sample = text[start : start + length].strip()
            if not sample or fmt.foreground().style() == Qt.BrushStyle.NoBrush:
                continue
            bg = fmt.background()
            back = bg.color() if bg.style() != Qt.BrushStyle.NoBrush else base
            out.add((_hex(fmt.foreground().color()), _hex(back), sample[:30]))
        block = block.next()
    return out


def _view_pairs(view: QAbstractItemView) -> set[tuple[str, str, str]]:
    out: set[tuple[str, str, str]] = set()
    model = view.model()
    palette = view.palette()
    backs = {_hex(palette.color(Role.Base)), _hex(palette.color(Role.AlternateBase))}

    def walk(parent: QModelIndex) -> None:
        for row in range(min(model.rowCount(parent), 60)):
            for column in range(model.columnCount(parent)):
                index = model.index(row, column, parent)
                brush = index.data(Qt.ItemDataRole.ForegroundRole)
                text = str(index.data(Qt.ItemDataRole.DisplayRole) or "")
                if text.strip() and isinstance(brush, QBrush | QColor):
                    colour = brush.color() if isinstance(brush, QBrush) else brush
                    out.update((_hex(colour), back, text[:30]) for back in backs)
            walk(model.index(row, 0, parent))

    walk(QModelIndex())
    return out


def _label_pairs(widget: QWidget) -> set[tuple[str, str, str]]:
    """Colours a label or button is given in its style sheet or its rich text, against the
    window's background (they sit in bars and panels)."""
    back = _hex(widget.palette().color(Role.Window))
    text = widget.text() if isinstance(widget, QLabel | QAbstractButton) else ""
    found = _COLOUR.findall(widget.styleSheet()) + _COLOUR.findall(text)
    return {(colour.lower(), back, widget.objectName()) for colour in found}


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_text_colour_reaches_aa(make_window, qtbot, site, theme, app_theme) -> None:  # noqa: F811
    apply_theme(app_theme, "light" if theme == "dark" else "dark")
    window = make_window()  # built in the other theme, then switched live (View → Dark Theme)
    apply_theme(app_theme, theme)
    assert window.open_project(site)
    view = window.document_view
    qtbot.waitUntil(lambda: "Bonjour" in view.preview.toPlainText())
    qtbot.waitUntil(lambda: not view.pending)
    open_panels(window)
    window.status.show_error("Groq: the key was refused", "401")
    window.status.set_score(62)
    rows = (
        Problem("b1", 0, 1, "flagged", "glossary term", "extension → extension", "glossary", True),
        Problem("b2", 1, 3, "flagged", "link target changed", "#a → #b", "links", True),
    )
    window.workbench.problems.set_problems(rows)
    QApplication.processEvents()
    palette = window.palette()
    pairs: set[tuple[str, str, str]] = set()
    for fg, bg in PAIRS:
        pairs.add((_hex(palette.color(fg)), _hex(palette.color(bg)), f"{fg.name}/{bg.name}"))
    base = view.source.palette().color(Role.Base)
    pairs |= _document_pairs(view.source.document(), base)
    pairs |= _document_pairs(view.preview.document(), view.preview.palette().color(Role.Base))
    for item_view in window.findChildren(QAbstractItemView):
        if item_view.isVisible():
            pairs |= _view_pairs(item_view)
    for widget in window.findChildren(QLabel) + window.findChildren(QAbstractButton):
        if widget.isVisible():
            pairs |= _label_pairs(widget)
    assert len(pairs) > 15
    low = sorted(
        (round(contrast_ratio(fg, bg), 2), fg, bg, what)
        for fg, bg, what in pairs
        if contrast_ratio(fg, bg) < AA
    )
    assert low == [], "\n".join(map(str, low))
