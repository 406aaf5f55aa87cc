"""The review on screen: a coloured mark per block beside the target, and a bar under it with
the summary and the "source changed since your edit" choice.

Nothing here decides anything: the window gives the margin two lookups (block id → state in the
session's one vocabulary, fastdesk.review.target_model.BLOCK_STATES; block id → tooltip) and
connects its click to the Review menu; the colours are the core's
(fastdesk.review.target_model.BLOCK_STYLES: the review's states as in the bilingual export, a
failed block as a flagged one, a retrying one as one in flight).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QPoint, QRect, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QHelpEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QResizeEvent,
    QTextDocumentFragment,
)
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QSizePolicy,
    QToolButton,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from fastdesk.review.model import STATE_STYLES, ReviewSummary
from fastdesk.review.quality import score_colour
from fastdesk.review.target_model import BLOCK_STYLES
from fastdesk.ui.bridge.threads import gui_first
from fastdesk.ui.panes.preview import TargetPreview
from fastdesk.ui.panes.target_editor import TargetEditor
from fastdesk.ui.panes.theme import text_colour

MARGIN_WIDTH = 10
BAR_WIDTH = 4
SCORE_WIDTH = 2  # the reviewer model's score of the block, at the margin's right edge
QUIET_STATES = frozenset({"copy"})  # nothing to review: drawn faint


class ReviewMargin(QWidget):
    """A narrow strip at the left of a target pane (like a line-number area): one bar per
    block in its state's colour, and a thin one in its review score's colour once the reviewer
    model judged it (fastdesk.review.quality); hover for the state and reasons, click for the
    choices."""

    clicked = Signal(str, QPoint)  # block id, global position (where a menu should open)

    def __init__(
        self,
        pane: TargetEditor | TargetPreview,
        state_of: Callable[[str], str],
        tooltip_of: Callable[[str], str],
        score_of: Callable[[str], float | None] = lambda _block_id: None,
    ) -> None:
        super().__init__(pane)
        self._score_of = score_of
        self.setObjectName("reviewMargin")
        # It fills every pixel it is asked to paint: Qt then leaves the pane, the stack, the
        # splitter and the window beneath it alone (~0.5 ms a repaint of theirs, while streaming).
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self.pane = pane
        self._state_of = state_of
        self._tooltip_of = tooltip_of
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip("")  # tooltips are per block: see event()
        pane.setViewportMargins(MARGIN_WIDTH, 0, 0, 0)
        pane.resized.connect(self._place)
        pane.verticalScrollBar().valueChanged.connect(self._scrolled)
        if isinstance(pane, QPlainTextEdit):
            pane.updateRequest.connect(self._pane_updated)
        self._colours: dict[str, QColor] = {}
        self._place()

    def blocks(self) -> list[tuple[str, int, int]]:
        return self.pane.visible_blocks()

    def block_at(self, y: int) -> str | None:
        for key, top, bottom in self.blocks():
            if top <= y <= bottom:
                return key or None
        return None

    def colour_at(self, y: int) -> str | None:
        """The colour drawn at height ``y`` (for tests: what the reader sees)."""
        key = self.block_at(y)
        return BLOCK_STYLES[self._state_of(key)].colour if key else None

    def score_colour_at(self, y: int) -> str | None:
        """The score's colour drawn at height ``y`` (None: no score there)."""
        key = self.block_at(y)
        score = self._score_of(key) if key else None
        return score_colour(score) if score is not None else None

    # ---- Qt ----------------------------------------------------------------------------------

    def _place(self) -> None:
        rect = self.pane.contentsRect()
        self.setGeometry(QRect(rect.left(), rect.top(), MARGIN_WIDTH, rect.height()))

    def _pane_updated(self, _rect: QRect, dy: int) -> None:
        self.update()

    def _scrolled(self, _value: int) -> None:
        # The reader scrolled: follow at once. The pane keeping the reader's place while a
        # render slice edits above it: the window repaints after the slices (~15 a second).
        if not self.pane.editing:
            self.update()

    def _colour(self, state: str) -> QColor:
        colour = self._colours.get(state)
        if colour is None:
            colour = self._colours[state] = QColor(BLOCK_STYLES[state].colour)
            if state in QUIET_STATES:
                colour.setAlpha(90)
        return colour

    def paintEvent(self, event: QPaintEvent) -> None:
        """Plain bars, one fill each: drawn after render slices while the target streams,
        where every Qt call from Python may wait for the GIL."""
        with gui_first():
            self._paint(event)

    def _paint(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.fillRect(event.rect(), self.palette().color(QPalette.ColorRole.Base))
        x = (MARGIN_WIDTH - BAR_WIDTH) // 2
        for key, top, bottom in self.blocks():
            if key:
                height = max(3, bottom - top - 3)
                painter.fillRect(x, top + 2, BAR_WIDTH, height, self._colour(self._state_of(key)))
                score = self._score_of(key)
                if score is not None:
                    colour = self._colours.setdefault(
                        score_colour(score), QColor(score_colour(score))
                    )
                    painter.fillRect(
                        MARGIN_WIDTH - SCORE_WIDTH, top + 2, SCORE_WIDTH, height, colour
                    )
        painter.end()

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            key = self.block_at(event.pos().y())
            if key:
                QToolTip.showText(event.globalPos(), self._tooltip_of(key), self)
            else:
                QToolTip.hideText()
                event.ignore()
            return True
        return super().event(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        key = self.block_at(round(event.position().y()))
        if key:
            self.clicked.emit(key, event.globalPosition().toPoint())
            event.accept()
        else:
            super().mousePressEvent(event)


def summary_html(
    summary: ReviewSummary,
    estimate: str = "",
    *,
    compact: bool = False,
    readable: Callable[[str], str] = lambda colour: colour,
) -> str:
    """ "42 blocks · ● 30 approved · ● 5 edited · ● 1 flagged" with the states' colours;
    ``estimate``: how long what is to come will take ("about 9 min"; "": not said);
    ``compact``: "42 · ●30 ●5 ●1", for a narrow pane (the whole text in the tooltip);
    ``readable(colour)``: the colour as text on the bar's background (the theme's)."""

    def dot(state: str, count: int, label: str) -> str:
        colour = readable(STATE_STYLES[state].colour)
        if compact:
            return f'<span style="color:{colour}">●</span>{count}'
        return f'<span style="color:{colour}">●</span>&nbsp;{count}&nbsp;{label}'

    if compact:
        parts = [dot(s, n, "") for s, n in _counts(summary)]
        return f"{summary.blocks} · " + "&nbsp;".join(parts)
    parts = [f"{summary.blocks}&nbsp;blocks"]
    parts.append(dot("approved", summary.approved, "approved"))
    parts.append(dot("edited", summary.edited, "edited"))
    parts.append(dot("flagged", summary.flagged, "flagged"))
    if summary.stale:
        parts.append(dot("stale_edit", summary.stale, "source changed"))
    if summary.in_flight or summary.pending:
        to_come = dot("in_flight", summary.in_flight + summary.pending, "to come")
        parts.append(f"{to_come},&nbsp;{estimate.replace(' ', '&nbsp;')}" if estimate else to_come)
    if summary.detached:
        parts.append(f"{summary.detached}&nbsp;detached")
    return " · ".join(parts)


def _counts(summary: ReviewSummary) -> list[tuple[str, int]]:
    """The dots of the compact summary, as the whole one has them."""
    out = [
        ("approved", summary.approved),
        ("edited", summary.edited),
        ("flagged", summary.flagged),
    ]
    if summary.stale:
        out.append(("stale_edit", summary.stale))
    if summary.in_flight or summary.pending:
        out.append(("in_flight", summary.in_flight + summary.pending))
    return out


class ReviewBar(QFrame):
    """Under the target: the review summary, and above it, only when blocks' sources changed
    under the reviewer's edits, how many, with Show and Compare and Decide (what changed, then
    Re-translate or Keep mine) for the current one."""

    show_requested = Signal()
    decide_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("reviewBar")
        rows = QVBoxLayout(self)
        rows.setContentsMargins(8, 0, 4, 2)
        rows.setSpacing(0)
        self.notice = QWidget()
        self.notice.setObjectName("staleBar")
        layout = QHBoxLayout(self.notice)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        rows.addWidget(self.notice)
        self.summary = QLabel()
        self.summary.setObjectName("reviewSummary")
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setToolTip("Review summary (Ctrl+Shift+I for details)")
        # never wider than the pane allows: the splitter, not this label, sets the width
        self.summary.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.summary.setMinimumWidth(0)
        rows.addWidget(self.summary)
        self.stale = QLabel()
        self.stale.setObjectName("staleNotice")
        self._colour_stale()
        self.stale.setToolTip(
            "The source of a block you edited or approved changed since your edit: re-translate "
            "it (your text is dropped) or keep yours. Nothing is discarded until you choose."
        )
        layout.addWidget(self.stale)
        self.buttons: list[QToolButton] = []
        for name, text, tip, signal in (
            ("staleShow", "Show", "Go to the block", self.show_requested),
            (
                "staleDecide",
                "Compare and decide…",
                "What changed in the source, your text beside the new translation: then "
                "re-translate or keep yours",
                self.decide_requested,
            ),
        ):
            button = QToolButton()
            button.setObjectName(name)
            button.setText(text)
            button.setToolTip(tip)
            button.setAutoRaise(True)
            button.clicked.connect(signal.emit)
            layout.addWidget(button)
            self.buttons.append(button)
        layout.addStretch(1)
        self.set_stale(0)

    def set_summary(self, summary: ReviewSummary, estimate: str = "") -> None:
        self._summary = summary
        self._estimate = estimate
        said = f" · {summary.in_flight + summary.pending} to come, {estimate}" if estimate else ""
        self.summary.setAccessibleName(f"{summary}{said}")
        self._fit_summary()

    def _fit_summary(self) -> None:
        """The whole summary when it fits the pane, else the compact one with the whole text
        in the tooltip (a 1,024 px window with two translations read "90 to c")."""
        summary = getattr(self, "_summary", None)
        if summary is None:
            return
        palette = self.summary.palette()

        def readable(colour: str) -> str:
            return text_colour(colour, palette)

        whole = summary_html(summary, self._estimate, readable=readable)
        plain = QTextDocumentFragment.fromHtml(whole).toPlainText()
        fits = self.summary.fontMetrics().horizontalAdvance(plain) <= self.summary.width() - 4
        compact = summary_html(summary, compact=True, readable=readable)
        self.summary.setText(whole if fits else compact)
        self.summary.setToolTip(
            "Review summary (Ctrl+Shift+I for details)" if fits else f"{plain}\n(Ctrl+Shift+I)"
        )

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_summary()

    def changeEvent(self, event: QEvent) -> None:
        """The theme changed: the states' colours again, readable on the new background."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._colour_stale()
            self._fit_summary()

    def _colour_stale(self) -> None:
        colour = text_colour(STATE_STYLES["stale_edit"].colour, self.palette())
        self.stale.setStyleSheet(f"QLabel {{ color: {colour}; font-weight: 600; }}")

    def set_stale(self, count: int) -> None:
        blocks = f"{count} block{'s' if count != 1 else ''}"
        self.stale.setText(f"⚠ Source changed since your edit ({blocks})")
        self.notice.setVisible(count > 0)
