"""A width change (the window resized, the splitter moved) wraps the panes anew: the pane the
reader leads with stays on the block they were reading, as far down it, and the other pane stays
aligned to it, however often the width changes back and forth.

A pane's place is (block index, how far down the block its top is, as a fraction), measured from
where Qt draws the blocks around the top, not with sync's own arithmetic."""

from __future__ import annotations

import bisect

import pytest
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QApplication, QPlainTextEdit

from fastdesk.ui.panes.preview import TargetPreview
from tests.ui.test_target_views import settled

WORDS = ["Hello", "world", "the", "cat", "sat", "on", "the", "mat", "by", "the", "window"]
READ = 141  # a paragraph of 91 words, in the middle: the reader is deep in it
# window widths and splitter positions (the source pane's width), back and forth
CHANGES = [("window", 900), ("window", 1300), ("window", 760), ("window", 1200)]
CHANGES += [("splitter", 330), ("splitter", 760), ("splitter", 450), ("splitter", 600)]
CHANGES += [("window", 820), ("splitter", 300), ("window", 1200), ("splitter", 600)]

Place = tuple[int, float]


def next_turn() -> None:
    """The event loop's next turn, taken now: what Qt posted (the window system's resize, the
    layouts it asks for, the scroll bars' new ranges) is delivered, and what that posted in
    turn, where sync puts the panes back."""
    for _ in range(2):
        QApplication.sendPostedEvents()
        QApplication.processEvents()


def long_markdown(blocks: int = 300) -> str:
    """Paragraphs of 4 to 93 words: they wrap to other numbers of lines at each width."""
    return "".join(
        f"Para {i}: " + " ".join(WORDS[j % len(WORDS)] for j in range(4 + i * 37 % 90)) + ".\n\n"
        for i in range(blocks)
    )


def tops(edit: QPlainTextEdit, starts: list[int], index: int) -> tuple[float, float]:
    """Where block ``index`` and the next one begin, in the viewport's pixels."""
    out = []
    for position in (starts[index], starts[index + 1]):
        cursor = QTextCursor(edit.document())
        cursor.setPosition(position)
        out.append(edit.cursorRect(cursor).top() - edit.document().documentMargin())
    return out[0], out[1]


def place_of(pane: QPlainTextEdit | TargetPreview, starts: list[int]) -> Place:
    if isinstance(pane, QPlainTextEdit):
        index = bisect.bisect_right(starts, pane.firstVisibleBlock().position()) - 1
        top, after = tops(pane, starts, index)
        return index, -top / (after - top)
    index = pane.top_index()
    span = pane.block_span(index)
    assert span is not None
    top, after = span
    return index, (pane.verticalScrollBar().value() - top) / (after - top)


def lines_past(pane: QPlainTextEdit | TargetPreview, starts: list[int], place: Place) -> float:
    """How far the pane's top is below ``place`` in the pane's layout, in its lines."""
    index, fraction = place
    if isinstance(pane, QPlainTextEdit):
        top, after = tops(pane, starts, index)
        return -(top + fraction * (after - top)) / pane.fontMetrics().lineSpacing()
    span = pane.block_span(index)
    assert span is not None
    top, after = span
    value = pane.verticalScrollBar().value()
    return (value - top - fraction * (after - top)) / pane.fontMetrics().lineSpacing()


class Reader:
    """The window's panes as the reader sees them, leading with ``leader``."""

    def __init__(self, w, raw: bool, leader: str) -> None:  # type: ignore[no-untyped-def]
        self.w, self.view = w, w.document_view
        self.view.show_raw(raw)
        target = self.view.target_pane()
        target_starts = self.view.sync._starts if target is self.view.preview else target.starts()
        panes = [(self.view.source, self.view.sync._starts), (target, target_starts)]
        (self.leader, self.starts), (self.follower, self.follower_starts) = (
            panes if leader == "source" else panes[::-1]
        )

    def read(self, index: int) -> None:
        """Scroll the leader so that its top is deep in block ``index``: its last line of text
        (a plain text pane), or 80% of the way down (the rendered one)."""
        bar = self.leader.verticalScrollBar()
        if isinstance(self.leader, QPlainTextEdit):
            block = self.leader.document().findBlock(self.starts[index])
            self.leader.document().documentLayout().blockBoundingRect(block)  # (its lines)
            bar.setValue(block.firstLineNumber() + block.lineCount() - 1)
        else:
            top, bottom = self.leader.block_span(index)
            bar.setValue(round(top + 0.8 * (bottom - top)))

    def change_width(self, qtbot, how: str, width: int) -> None:  # type: ignore[no-untyped-def]
        if how == "window":
            self.w.resize(width, 700)
        else:
            self.view.splitter.moveSplitter(width, 1)
        next_turn()  # (Qt lays the panes out at once; sync puts them back the next turn)

    def measure(self, place: Place) -> tuple[Place, float, float]:
        """The leader's place, how far it is from ``place`` and the follower from the leader's
        place, each in lines of its pane.

        Measuring lays lines out, and Qt then gives a plain text pane's top line its new number:
        a scroll signal that would have sync align the panes again, and hide where they were."""
        view = self.view
        bars = [p.verticalScrollBar() for p in (view.source, view.target_editor, view.preview)]
        for bar in bars:
            bar.blockSignals(True)
        try:
            now = place_of(self.leader, self.starts)
            drift = lines_past(self.leader, self.starts, place)
            return now, drift, lines_past(self.follower, self.follower_starts, now)
        finally:
            for bar in bars:
                bar.blockSignals(False)


@pytest.mark.parametrize(
    ("raw", "leader"),
    [(False, "source"), (True, "source"), (False, "target"), (True, "target")],
    ids=["rendered", "raw", "rendered-leads", "raw-leads"],
)
def test_width_changes_keep_the_readers_block_and_the_panes_aligned(
    make_window, qtbot, raw: bool, leader: str
) -> None:
    w = make_window()
    w.resize(1200, 700)
    w.document_view.source.setPlainText(long_markdown())
    qtbot.waitUntil(lambda: settled(w), timeout=60000)
    reader = Reader(w, raw, leader)
    next_turn()
    reader.read(READ)
    next_turn()
    place, _, aligned = reader.measure((READ, 0.0))
    assert place[0] == READ and 0.5 < place[1] < 1 and abs(aligned) <= 1
    for how, width in CHANGES:
        reader.change_width(qtbot, how, width)
        now, drift, aligned = reader.measure(place)
        assert now[0] == READ, (how, width)  # the reader's block, still at the top,
        assert abs(drift) <= 1, (how, width)  # within a line of where the reader was in it
        assert abs(aligned) <= 1, (how, width)  # and the other pane there too, within a line
    now, drift, _ = reader.measure(place)  # back at the first widths: as the reader left it
    assert now[0] == READ and abs(drift) < 0.1  # (to a pixel: Qt rounds lines' tops to pixels)
    assert w.document_view.sync._leader is reader.leader  # (Qt's scrolls were not the reader's)


def test_the_second_target_pane_stays_aligned_too(make_window, qtbot) -> None:
    """It follows the source on its own (SecondPane), by block too, also when it wraps anew."""
    w = make_window()
    w.resize(1200, 700)
    view = w.document_view
    view.source.setPlainText(long_markdown())
    qtbot.waitUntil(lambda: settled(w), timeout=60000)
    w.set_second_pane(True)
    second = view.second.pane
    qtbot.waitUntil(
        lambda: len(second.preview.shown) == 300 and not second.model.pending and settled(w),
        timeout=60000,
    )
    reader = Reader(w, False, "source")
    reader.follower, reader.follower_starts = second.preview, view.sync._starts
    reader.read(READ)
    next_turn()
    for how, width in CHANGES[:8]:
        reader.change_width(qtbot, how, width if how == "window" else width // 2)
        now, _, aligned = reader.measure((READ, 0.0))
        assert now[0] == READ and abs(aligned) <= 1, (how, width)
