"""Markdown syntax colouring for the source and the raw target editors.

Line-based on purpose: QSyntaxHighlighter re-runs per changed line, so a streaming block or a
keystroke costs one line's regexes, never the document's. Fenced code and front matter carry over
lines through the block state.
"""

from __future__ import annotations

import itertools
import re

from PySide6.QtGui import QColor, QFont, QSyntaxHighlighter, QTextCharFormat, QTextDocument

NORMAL, FENCE_BACKTICK, FENCE_TILDE, FRONT_MATTER = -1, 1, 2, 3

_HEADING = re.compile(r"^ {0,3}#{1,6}(?:\s.*|$)")
_SETEXT = re.compile(r"^ {0,3}(?:=+|-+)\s*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_LIST = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])(?=\s)")
_QUOTE = re.compile(r"^ {0,3}>.*")
_HR = re.compile(r"^ {0,3}(?:(?:-\s*){3,}|(?:\*\s*){3,}|(?:_\s*){3,})$")
_TABLE_PIPE = re.compile(r"\|")
_CODE_SPAN = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)")
_STRONG = re.compile(r"(\*\*|__)(?=\S).+?(?<=\S)\1")
_EMPHASIS = re.compile(r"(?<![*_\w])([*_])(?=\S)(?!\1).+?(?<=\S)\1(?![*_\w])")
_LINK = re.compile(r"!?\[[^\]\n]*\]\([^)\n]*\)|<https?://[^>\s]+>")
_HTML = re.compile(r"</?[A-Za-z][^>\n]*>|<!--.*?-->")

LIGHT = {
    "heading": "#0550ae",
    "marker": "#953800",
    "code": "#0a3069",
    "code-bg": "#f3f4f6",
    "link": "#0969da",
    "quote": "#59636e",
    "muted": "#656d76",  # (every colour here at WCAG AA on its background: 4.5:1)
}
DARK = {
    "heading": "#79c0ff",
    "marker": "#ffa657",
    "code": "#a5d6ff",
    "code-bg": "#262c36",
    "link": "#58a6ff",
    "quote": "#9198a1",
    "muted": "#8b949e",
}


def _fmt(
    colour: str | None = None,
    *,
    bold: bool = False,
    italic: bool = False,
    mono: bool = False,
    background: str | None = None,
) -> QTextCharFormat:
    f = QTextCharFormat()
    if colour:
        f.setForeground(QColor(colour))
    if bold:
        f.setFontWeight(QFont.Weight.Bold)
    if italic:
        f.setFontItalic(True)
    if mono:
        f.setFontFixedPitch(True)
        f.setFontFamilies(["DejaVu Sans Mono", "Menlo", "Consolas", "monospace"])
    if background:
        f.setBackground(QColor(background))
    return f


class MarkdownHighlighter(QSyntaxHighlighter):
    """Colours headings, emphasis, code, links, lists, quotes, tables and front matter."""

    def __init__(self, document: QTextDocument, *, dark: bool = False) -> None:
        super().__init__(document)
        self._formats: dict[str, QTextCharFormat] = {}
        self._units: list[int] | None = None
        self.set_dark(dark, rehighlight=False)

    def set_dark(self, dark: bool, *, rehighlight: bool = True) -> None:
        self.dark = dark  # the colours in use: the dark ones or the light ones
        c = DARK if dark else LIGHT
        self._formats = {
            "heading": _fmt(c["heading"], bold=True),
            "marker": _fmt(c["marker"], bold=True),
            "code": _fmt(c["code"], mono=True, background=c["code-bg"]),
            "fence": _fmt(c["muted"], mono=True, background=c["code-bg"]),
            "link": _fmt(c["link"]),
            "quote": _fmt(c["quote"], italic=True),
            "muted": _fmt(c["muted"]),
            "strong": _fmt(bold=True),
            "emphasis": _fmt(italic=True),
        }
        if rehighlight:
            self.rehighlight()

    def highlightBlock(self, text: str) -> None:
        # Regex offsets count code points, Qt counts UTF-16 units: map when a line has emoji.
        self._units = None
        if not text.isascii() and max(text) > "\uffff":
            self._units = list(
                itertools.accumulate((2 if c > "\uffff" else 1 for c in text), initial=0)
            )
        previous = self.previousBlockState()
        if previous in (FENCE_BACKTICK, FENCE_TILDE):
            self._in_fence(text, previous)
            return
        if previous == FRONT_MATTER:
            self._set(0, len(text), self._formats["muted"])
            # YAML's document end "..." closes it too, as the parser (markdown-it's front
            # matter plugin) and Pandoc read it: the CommonMark spec's own front matter ends so
            ended = text.rstrip() in ("---", "+++", "...")
            self.setCurrentBlockState(NORMAL if ended else FRONT_MATTER)
            return
        self.setCurrentBlockState(NORMAL)
        if self.currentBlock().blockNumber() == 0 and text.rstrip() in ("---", "+++"):
            self._set(0, len(text), self._formats["muted"])
            self.setCurrentBlockState(FRONT_MATTER)
            return
        fence = _FENCE.match(text)
        if fence:
            self._set(0, len(text), self._formats["fence"])
            self.setCurrentBlockState(FENCE_BACKTICK if fence.group(1)[0] == "`" else FENCE_TILDE)
            return
        self._line(text)

    def _set(self, start: int, length: int, fmt: QTextCharFormat) -> None:
        units = self._units
        if units is None:
            self.setFormat(start, length, fmt)
        else:
            end = min(start + length, len(units) - 1)
            self.setFormat(units[start], units[end] - units[start], fmt)

    def _in_fence(self, text: str, state: int) -> None:
        self._set(0, len(text), self._formats["code"])
        closing = _FENCE.match(text)
        char = "`" if state == FENCE_BACKTICK else "~"
        if closing and closing.group(1)[0] == char and not text[closing.end() :].strip():
            self._set(0, len(text), self._formats["fence"])
            self.setCurrentBlockState(NORMAL)
        else:
            self.setCurrentBlockState(state)

    def _line(self, text: str) -> None:
        f = self._formats
        if _HEADING.match(text) or (_SETEXT.match(text) and text.strip()):
            self._set(0, len(text), f["heading"])
            return
        if _HR.match(text):
            self._set(0, len(text), f["muted"])
            return
        if _QUOTE.match(text):
            self._set(0, len(text), f["quote"])
        marker = _LIST.match(text)
        if marker:
            self._set(0, marker.end(), f["marker"])
        if "|" in text:
            for m in _TABLE_PIPE.finditer(text):
                self._set(m.start(), 1, f["muted"])
        for pattern, name in (
            (_STRONG, "strong"),
            (_EMPHASIS, "emphasis"),
            (_LINK, "link"),
            (_HTML, "muted"),
            (_CODE_SPAN, "code"),
        ):
            for m in pattern.finditer(text):
                self._set(m.start(), m.end() - m.start(), f[name])
