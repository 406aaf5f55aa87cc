"""What Qt charges to edit one block of a long rich-text document (prints numbers; not a test).

    .venv/bin/python benchmarks/bench_layout.py [--blocks 500 2000 7000] [--group 0 100]

Why: at 7,000 blocks the rendered view's render slices are each one block's edit, and that one
edit costs Qt ~10 ms (docs/performance.md). This measures Qt alone, in a QTextBrowser of BLOCKS
wrapped paragraphs offscreen, no app code: the median and worst of 30 edits near the top, each a
block's text replaced by a longer one (so its height changes, as a translation's does) in one
edit block, then the event loop run once (layout and paint).

``--group N`` puts the paragraphs in child frames of N paragraphs each instead of straight in
the document's root frame, where the rendered view keeps them. The app does not do this (yet):
the figures say what it would buy.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtGui import QTextCursor, QTextFrameFormat
from PySide6.QtWidgets import QApplication, QTextBrowser

PARAGRAPH = (
    "Paragraph {i} explains one idea in plain words. It links to the guide and mentions an "
    "option once, and it is long enough to wrap over two lines in a pane of normal width."
)
TRANSLATION = "Un párrafo traducido, algo más largo que el original, de modo que cambia de altura. "
EDITS = 30


def build(view: QTextBrowser, blocks: int, group: int) -> None:
    cursor = QTextCursor(view.document())
    if not group:
        cursor.insertHtml("".join(f"<p>{PARAGRAPH.format(i=i)}</p>" for i in range(blocks)))
        return
    plain = QTextFrameFormat()
    plain.setMargin(0)
    plain.setPadding(0)
    plain.setBorder(0)
    for first in range(0, blocks, group):
        cursor.movePosition(QTextCursor.MoveOperation.End)
        frame = cursor.insertFrame(plain)
        inside = frame.firstCursorPosition()
        last = min(blocks, first + group)
        inside.insertHtml("".join(f"<p>{PARAGRAPH.format(i=i)}</p>" for i in range(first, last)))


def measure(app: QApplication, blocks: int, group: int) -> dict[str, float]:
    view = QTextBrowser()
    view.resize(700, 900)
    view.show()
    started = time.perf_counter()
    build(view, blocks, group)
    app.processEvents()
    built = (time.perf_counter() - started) * 1000
    doc = view.document()
    edits: list[float] = []
    for k in range(EDITS):
        cursor = QTextCursor(doc.findBlockByNumber(min(doc.blockCount() - 1, 50 + 3 * k)))
        cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
        started = time.perf_counter()
        cursor.beginEditBlock()
        cursor.insertText(TRANSLATION * (1 + k % 3))
        cursor.endEditBlock()
        app.processEvents()
        edits.append((time.perf_counter() - started) * 1000)
    view.close()
    return {
        "build_ms": round(built, 1),
        "edit_p50_ms": round(statistics.median(edits), 2),
        "edit_worst_ms": round(max(edits), 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, nargs="+", default=[500, 2000, 7000])
    parser.add_argument("--group", type=int, nargs="+", default=[0, 100])
    args = parser.parse_args(argv)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    for blocks in args.blocks:
        for group in args.group:
            figures = measure(app, blocks, group)
            where = f"in frames of {group}" if group else "in the root frame"
            print(
                f"{blocks:>6,} paragraphs {where:<18}: an edit near the top (with its layout"
                f" and paint) p50 {figures['edit_p50_ms']} ms, worst"
                f" {figures['edit_worst_ms']} ms; built in {figures['build_ms']} ms"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
