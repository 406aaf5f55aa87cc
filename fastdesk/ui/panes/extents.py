"""Where the rendered view's blocks lie in pixels: a block's top and bottom, and the blocks on
screen for the review margin, measured in the document's layout from their runs' positions."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from PySide6.QtGui import QTextDocument

from fastdesk.ui.panes.incremental import Extent
from fastdesk.ui.panes.render import Segment
from fastdesk.ui.panes.run_starts import RunStarts
from fastdesk.ui.panes.runs import BLOCK_GAP


def extent(doc: QTextDocument, runs: RunStarts, index: int) -> tuple[float, float]:
    """Top and bottom (document pixels) of block `index`: its first and last paragraphs (the
    first lies before any table in it, the last after; both in its group's frame, whose offset
    Qt counts in)."""
    layout = doc.documentLayout()
    first = doc.findBlock(runs.starts[index])
    last = doc.findBlock(runs.stop(index) - 1)
    return layout.blockBoundingRect(first).top(), layout.blockBoundingRect(last).bottom()


def visible_blocks(
    doc: QTextDocument,
    runs: RunStarts,
    shown: Sequence[Segment],
    first: int,
    value: int,
    height: int,
) -> list[Extent]:
    """The blocks from `first` on that are on screen (the view's top at document y `value`,
    `height` pixels tall), with their extent in viewport pixels.

    A block reaches down to BLOCK_GAP above the next one's top (its last paragraph ends there,
    or up to 5 px higher above a heading): half the Qt calls of measuring both ends, and each
    call from the GUI thread may wait for the GIL while the engine streams.
    """
    layout = doc.documentLayout()
    count = min(runs.count, len(shown))
    tops: list[float] = []
    for i in range(first, count):
        tops.append(layout.blockBoundingRect(doc.findBlock(runs.starts[i])).top())
        if tops[-1] - value > height:
            break
    else:
        last = doc.findBlock(runs.stop(count - 1) - 1)
        tops.append(layout.blockBoundingRect(last).bottom() + BLOCK_GAP)
    out: list[Extent] = []
    for i, (top, after) in enumerate(itertools.pairwise(tops), start=first):
        bottom = after - BLOCK_GAP
        if bottom - top > 2 and bottom - value >= 0 and top - value <= height:
            out.append((shown[i].key, round(top - value), round(bottom - value)))
    return out
