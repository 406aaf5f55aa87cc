"""The target at a size the suite can afford: views agree with the model and the export, and
the end of the document is reachable in both panes."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from tests.ui.uifakes import translated

BLOCKS = 2000


def long_text(blocks: int = BLOCKS) -> str:
    return "".join(f"Hello world number {i}, the cat.\n\n" for i in range(blocks))


def settled(w) -> bool:  # type: ignore[no-untyped-def]
    view = w.document_view
    done = view.review_ctl.doc is not None and not view.pending
    return view.revision > 0 and done and view.scheduler.idle


def test_after_a_first_fill_of_thousands_of_blocks_the_three_views_agree(make_window, qtbot):
    w = make_window()
    view = w.document_view
    text = long_text()
    view.source.setPlainText(text)
    qtbot.waitUntil(lambda: settled(w), timeout=60000)
    segs = view.review_ctl.segments()
    assert len(segs) == BLOCKS
    export = view.translation_text()
    assert export == translated(text)
    raw = view.target_editor.toPlainText()
    starts = view.target_editor.starts()
    pos = 0
    for i, seg in enumerate(segs):
        assert view.preview.shown[i] is seg or view.preview.shown[i].text == seg.text
        assert raw[starts[i] : starts[i + 1]] == seg.text == export[pos : pos + len(seg.text)]
        pos += len(seg.text)
    assert view.preview.block_count == BLOCKS  # every block rendered, down to the last


def test_the_last_block_is_in_view_after_ctrl_end_in_either_pane(make_window, qtbot):
    w = make_window()
    view = w.document_view
    view.source.setPlainText(long_text(600))
    qtbot.waitUntil(lambda: settled(w), timeout=60000)
    last = view.review_ctl.segments()[-1].key
    for raw in (True, False):
        view.show_raw(raw)
        pane = view.target_pane()
        pane.setFocus()
        QTest.keyClick(pane, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
        qtbot.waitUntil(lambda p=pane: last in [k for k, _t, _b in p.visible_blocks()])
        bar = pane.verticalScrollBar()
        assert bar.value() == bar.maximum()
    # Ctrl+End in the source: the target follows to its last block
    view.show_raw(False)
    view.preview.verticalScrollBar().setValue(0)
    view.source.setFocus()
    QTest.keyClick(view.source, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
    bar = view.source.verticalScrollBar()
    assert bar.value() == bar.maximum()  # at its end, so the target is pinned to its own end
    qtbot.waitUntil(lambda: last in [k for k, _t, _b in view.preview.visible_blocks()])


def test_the_lines_on_screen_are_told_to_the_worker_when_the_reader_scrolls(make_window, qtbot):
    w = make_window()
    view = w.document_view
    view.source.setPlainText(long_text(600))
    qtbot.waitUntil(lambda: len(view.source_blocks) == 600, timeout=20000)
    told: list[tuple[int, int]] = []
    view.worker.set_view = lambda first, last: told.append((first, last))  # type: ignore[method-assign]
    bar = view.source.verticalScrollBar()
    bar.setValue(bar.maximum() // 2)
    qtbot.waitUntil(lambda: bool(told))
    assert told[-1] == view.places.view_lines()
    lines = view.source.toPlainText().split("\n")
    first, last = told[-1]
    shown = "\n".join(lines[first - 1 : last])
    on_screen = view.places.visible_source_blocks()
    keys = [s.key for s in view.source_blocks]
    where = sorted(keys.index(k) for k in on_screen)
    assert where[0] > 250 and where[-1] < 350  # the middle of the document, not its top
    # the lines told are the blocks on screen: the engine maps them to its blocks
    assert all(view.source_blocks[i].text.strip() in shown for i in where[1:-1])
