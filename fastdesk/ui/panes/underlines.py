"""The reviewer model's errors in a target pane: a wavy underline under each span, its category,
severity and explanation on hover (fastdesk.review.quality decides what is shown).

A block is marked only while the pane shows the very text its verdict was given for. In the
Markdown pane a span is where the verdict says; in the rendered pane it is looked for in the
block's rendered text (the Markdown's markup gone: "**30 days**" is shown "30 days"), the same
occurrence as in the Markdown, once per block and text (cached: a refresh costs a look-up per
judged block, not a render's text). A stand-in (a long fill's Markdown, not rendered yet) is not
marked; the view refreshes the marks when the pane settles. The marks are text cursors, so they
follow the pane's own edits above them until the next refresh.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QColor, QHelpEvent, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QTextEdit, QToolTip

from fastdesk.review.quality import Underline
from fastdesk.ui.panes.preview import TargetPreview
from fastdesk.ui.panes.render import qt_len
from fastdesk.ui.panes.target_editor import TargetEditor
from fastdesk.ui.plain import tip

Judged = Callable[[], Mapping[str, tuple[str, Sequence[Underline]]]]
SEVERITY_COLOURS = {"minor": "#bf8700", "major": "#cf222e", "critical": "#a40e26"}
# Markdown's inline markup, gone once rendered: emphasis and code marks, a link's brackets and
# its target, an image's "!"
_MARKUP = re.compile(r"!?\[|\]\([^)]*\)|\]|[*_`]")
_PARAGRAPH_BREAKS = str.maketrans({"\u2029": "\n", "\u2028": "\n"})


class ReviewUnderlines(QObject):
    """Marks ``pane``'s text from ``judged()`` (TargetModel.judged_underlines) on refresh."""

    def __init__(self, pane: TargetEditor | TargetPreview, judged: Judged) -> None:
        super().__init__(pane)
        self.pane = pane
        self._judged = judged
        self.marks: list[tuple[QTextCursor, Underline]] = []
        # rendered pane: (block's shown text, its underlines) → (offset from its start, length)
        self._found: dict[tuple[str, tuple[Underline, ...]], list[tuple[int, int] | None]] = {}
        pane.viewport().installEventFilter(self)

    def refresh(self) -> None:
        pane = self.pane
        judged = self._judged()
        marks: list[tuple[QTextCursor, Underline]] = []
        found: dict[tuple[str, tuple[Underline, ...]], list[tuple[int, int] | None]] = {}
        if judged:
            doc = pane.document()
            last = doc.characterCount() - 1
            starts = pane.starts()
            for index, seg in enumerate(pane.shown):
                entry = judged.get(seg.key)
                if entry is None:
                    continue
                markdown, lines = entry[0], tuple(entry[1])
                if isinstance(pane, TargetEditor):
                    if seg.text != markdown:
                        continue  # the pane shows another text now
                    places: list[tuple[int, int] | None] = [
                        (u.start, u.end - u.start) for u in lines
                    ]
                else:
                    if pane.placeholder(index) or pane.markdown_of(index) != markdown:
                        continue  # a stand-in, or another text
                    key = (seg.text, lines)
                    got = self._found.get(key)
                    if got is None:
                        got = _locate(markdown, lines, pane.rendered_text(index))
                    places = found[key] = got
                for line, place in zip(lines, places, strict=True):
                    if place is None:
                        continue  # not in the rendered text (inside an image, say)
                    cursor = QTextCursor(doc)
                    cursor.setPosition(min(starts[index] + place[0], last))
                    cursor.setPosition(
                        min(starts[index] + place[0] + place[1], last),
                        QTextCursor.MoveMode.KeepAnchor,
                    )
                    marks.append((cursor, line))
        self._found = found
        self.marks = marks
        pane.set_marks([_selection(cursor, line) for cursor, line in marks])

    def tooltip_at(self, position: int) -> str | None:
        """The explanation of the error under ``position`` (None: none there)."""
        for cursor, line in self.marks:
            if cursor.selectionStart() <= position < cursor.selectionEnd():
                return line.tooltip
        return None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent) and self.marks:
            text = self.tooltip_at(self.pane.cursorForPosition(event.pos()).position())
            if text is not None:
                QToolTip.showText(event.globalPos(), tip(text), self.pane.viewport())
                return True
        return super().eventFilter(watched, event)


def _locate(
    markdown: str, lines: Sequence[Underline], rendered: str
) -> list[tuple[int, int] | None]:
    """Each underline's (offset, length) in a block's rendered text (UTF-16), or None: the
    same occurrence of its span (markup dropped) as the Markdown's at its place."""
    rendered = rendered.translate(_PARAGRAPH_BREAKS)
    out: list[tuple[int, int] | None] = []
    for line in lines:
        span = line.error.span
        plain = _MARKUP.sub("", span).strip() or span
        # its place in the Markdown, and how often its plain text is rendered before it
        at = next(
            (a for a in _occurrences(markdown, span) if qt_len(markdown[:a]) >= line.start), 0
        )
        nth = len(_occurrences(_MARKUP.sub("", markdown[:at]), plain))
        hits = list(_occurrences(rendered, plain))
        if not hits:
            out.append(None)
            continue
        at = hits[min(nth, len(hits) - 1)]
        out.append((qt_len(rendered[:at]), qt_len(plain)))
    return out


def _occurrences(text: str, span: str) -> list[int]:
    found, at = [], text.find(span)
    while at >= 0 and span:
        found.append(at)
        at = text.find(span, at + 1)
    return found


def _selection(cursor: QTextCursor, line: Underline) -> QTextEdit.ExtraSelection:
    sel = QTextEdit.ExtraSelection()
    sel.cursor = cursor
    fmt = QTextCharFormat()
    fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
    fmt.setUnderlineColor(QColor(SEVERITY_COLOURS[line.error.severity]))
    sel.format = fmt
    return sel
