"""What the editor's undo costs on the GUI thread (prints numbers; not a test).

    .venv/bin/python benchmarks/bench_undo.py [--blocks 500 2000 7000] [--keys 40]

The real window offscreen, a word-list stand-in provider (tests/ui/uifakes.py) behind the real
engine; a document of bench_ui.document(BLOCKS) translated first. Then, in the raw target:

1. a keystroke: the time QTest's key click takes (the pane's change attributed to its block,
   the review edited, the step recorded and merged), median and worst of KEYS keystrokes, with
   the undo step recorded and, for comparison, as before undo existed (ReviewController._step
   patched to run the action alone: no step, and the target model looks at every block again);
2. Approve All without its question (every block approved, one step), its undo and redo;
3. Replace All of a word in every paragraph (one step): the call, until the raw pane shows
   every changed block, and until the hidden rendered view does too (in slices); its undo by
   Ctrl+Z's way (the call, and the same two);
4. Replace All of that word in the source (one edit block, one undo step of the source editor):
   the call, and its undo.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["FASTDESK_HOME"] = tempfile.mkdtemp(prefix="fastdesk-bench-undo-")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import QEventLoop, Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from benchmarks.bench_ui import document
from tests.ui.uifakes import WordProvider, make_engine_factory


def wait_until(done, timeout: float = 120.0) -> bool:  # type: ignore[no-untyped-def]
    end = time.perf_counter() + timeout
    loop = QEventLoop()
    while time.perf_counter() < end:
        if done():
            return True
        QTimer.singleShot(10, loop.quit)
        loop.exec()
    return done()


def translated(blocks: int):  # type: ignore[no-untyped-def]
    from fastdesk.config.settings import Settings
    from fastdesk.ui import MainWindow

    window = MainWindow(
        engine_factory=make_engine_factory(WordProvider(chunk=400)),
        settings=Settings(debounce_ms=40),
        warmup=False,
        offer_recovery=False,
    )
    window.files._ask_save = lambda: "discard"
    window.show()
    view = window.document_view
    view.show_raw(True)
    view.source.setPlainText(document(blocks))

    def done() -> bool:
        review = view.review
        if review.doc is None or review.doc.source != view.text():
            return False
        summary = review.summary()
        return not (summary.pending or summary.in_flight) and view.scheduler.idle

    wait_until(done, timeout=300)
    return window


def keystrokes(window, keys: int) -> list[float]:  # type: ignore[no-untyped-def]
    editor = window.document_view.target_editor
    editor.setFocus()
    cursor = editor.textCursor()
    cursor.setPosition(editor.toPlainText().index("Paragraph") + 5)
    editor.setTextCursor(cursor)
    times = []
    for _ in range(keys):
        start = time.perf_counter()
        QTest.keyClick(editor, Qt.Key.Key_X)
        times.append((time.perf_counter() - start) * 1000)
    return times


def timed(action) -> float:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    action()
    return (time.perf_counter() - start) * 1000


def run(blocks: int, keys: int) -> dict[str, float]:
    from fastdesk.ui.review import controller

    window = translated(blocks)
    ctl = window.document_view.review_ctl
    recorded = keystrokes(window, keys)
    step = controller.ReviewController._step
    controller.ReviewController._step = lambda self, _l, _ids, action, _t=None: action()  # type: ignore[method-assign]
    try:
        bare = keystrokes(window, keys)
    finally:
        controller.ReviewController._step = step  # type: ignore[method-assign]
    approved = timed(ctl.approve_all)
    window.document_view.refresh_target()
    editor = window.document_view.target_editor
    editor.setFocus()
    undone = timed(ctl.undo_group.undo)
    redone = timed(ctl.undo_group.redo)
    bar = window.workbench.find_bar
    window.workbench.replace()
    bar.find_edit.setText("Paragraph")
    bar.replace_edit.setText("Paragraphe")
    found: list[int] = []
    replaced = timed(lambda: found.append(bar.replace_all()))
    view = window.document_view
    replaced_raw = replaced + timed(lambda: wait_until(lambda: editor.settled))
    replaced_ok = editor.toPlainText() == view.review_ctl.target_text()
    replaced_all = replaced + timed(lambda: wait_until(lambda: view.scheduler.idle))
    count = found[0]
    editor.setFocus()
    history = window.review_commands.history  # Ctrl+Z's way: the focused pane's undo
    assert history.in_target(), "the raw target has no focus: its undo would undo the source"
    undo_text = timed(history.undo)
    shown = undo_text + timed(lambda: wait_until(lambda: editor.settled))
    restored = "Paragraphe" not in editor.toPlainText()
    shown_all = undo_text + timed(lambda: wait_until(lambda: view.scheduler.idle))
    source_all, source_undo, source_one = source_replace_all(window)
    result = {
        "blocks": blocks,
        "approved": ctl.summary().approved,
        "key_median_ms": statistics.median(recorded),
        "key_max_ms": max(recorded),
        "key_bare_median_ms": statistics.median(bare),
        "approve_all_ms": approved,
        "undo_ms": undone,
        "redo_ms": redone,
        "replaced": float(count),
        "replace_all_ms": replaced,
        "replace_all_shown_ms": replaced_raw,
        "replace_all_rendered_ms": replaced_all,
        "replace_all_ok": float(replaced_ok),
        "undo_replace_ms": undo_text,
        "undo_replace_shown_ms": shown,
        "undo_replace_rendered_ms": shown_all,
        "undo_replace_ok": float(restored),
        "source_replace_ms": source_all,
        "source_undo_ms": source_undo,
        "source_one_undo": float(source_one),
    }
    window.document_view.source.document().setModified(False)
    window.close()
    return result


def source_replace_all(window) -> tuple[float, float, bool]:  # type: ignore[no-untyped-def]
    """Replace All in the source: the call, one undo, and whether that one undid it all."""
    view = window.document_view
    source, bar = view.source, window.workbench.find_bar
    source.setFocus()
    bar.open(source, "Source", replace=True)
    bar.find_edit.setText("Paragraph")
    bar.replace_edit.setText("Paragraphe")
    before = source.toPlainText()
    replaced = timed(bar.replace_all)
    assert source.toPlainText() == before.replace("Paragraph", "Paragraphe")
    undone = timed(source.undo)
    return replaced, undone, source.toPlainText() == before


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, nargs="+", default=[500, 2000, 7000])
    parser.add_argument("--keys", type=int, default=40)
    args = parser.parse_args()
    app = QApplication(sys.argv[:1])
    for blocks in args.blocks:
        r = run(blocks, args.keys)
        print(
            f"{r['blocks']:>5} blocks: keystroke in the target {r['key_median_ms']:.2f} ms median"
            f" (worst {r['key_max_ms']:.2f}; without recording the step"
            f" {r['key_bare_median_ms']:.2f}); Approve All of {r['approved']:.0f} blocks"
            f" {r['approve_all_ms']:.0f} ms, its undo {r['undo_ms']:.0f} ms,"
            f" redo {r['redo_ms']:.0f} ms; Replace All in the target"
            f" ({r['replaced']:.0f} replacements) {r['replace_all_ms']:.0f} ms, the raw pane"
            f" showing it after {r['replace_all_shown_ms']:.0f} ms (right:"
            f" {bool(r['replace_all_ok'])}), the hidden rendered view after"
            f" {r['replace_all_rendered_ms']:.0f} ms; its undo {r['undo_replace_ms']:.0f} ms, the"
            f" raw pane after {r['undo_replace_shown_ms']:.0f} ms (restored:"
            f" {bool(r['undo_replace_ok'])}), the rendered view after"
            f" {r['undo_replace_rendered_ms']:.0f} ms; Replace All in the source"
            f" {r['source_replace_ms']:.0f} ms, its undo {r['source_undo_ms']:.0f} ms (one undo"
            f" undid it: {bool(r['source_one_undo'])})"
        )
    app.processEvents()
    return 0


if __name__ == "__main__":
    sys.exit(main())
