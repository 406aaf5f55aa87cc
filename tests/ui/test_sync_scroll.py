"""Sync-scroll reacts to the reader, not to the target panes' own streamed edits."""

from __future__ import annotations

import time

from PySide6.QtCore import QEvent, QPoint
from PySide6.QtGui import QFocusEvent, QTextCursor
from PySide6.QtWidgets import QApplication

from fastdesk.ui.panes.preview import TargetPreview
from fastdesk.ui.panes.render import segment
from fastdesk.ui.panes.source_editor import SourceEditor
from fastdesk.ui.panes.sync_scroll import SyncScroller
from fastdesk.ui.panes.target_editor import TargetEditor


def blocks(count: int, first: str = "Paragraph 0.\n\n") -> list:
    segs = [segment(f"b{i}", f"Paragraph {i}.\n\n") for i in range(count)]
    segs[0] = segment("b0", first)
    return segs


def finish(pane: TargetEditor | TargetPreview, sync: SyncScroller) -> None:
    """Run the pane's update one edit per slice, as the scheduler would, telling sync each time."""
    while not pane.step(time.perf_counter() - 1):
        sync.target_rendered()
    sync.target_rendered()


def panes(
    qtbot, segs: list, shown: str, *, on_screen: bool = False
) -> tuple[SourceEditor, TargetEditor, TargetPreview, SyncScroller]:
    """The three panes over ``segs`` (the source holds them), synced; ``shown``: which target;
    ``on_screen``: each 500×300 and shown (scroll bars then have a range)."""
    source, editor, preview = SourceEditor(), TargetEditor(), TargetPreview()
    for widget in (source, editor, preview):
        qtbot.addWidget(widget)
        if on_screen:
            widget.resize(500, 300)
            widget.show()
    source.setPlainText("".join(s.text for s in segs))
    sync = SyncScroller(source, editor, preview, lambda: editor if shown == "raw" else preview)
    sync.set_source_blocks(segs)
    return source, editor, preview, sync


def record_tints(source: SourceEditor) -> list[tuple[int, int]]:
    """The ranges the source highlights from now on (each still highlighted as usual)."""
    tints: list[tuple[int, int]] = []
    show_block = source.show_block

    def tint(start: int, end: int) -> None:
        tints.append((start, end))
        show_block(start, end)

    source.show_block = tint  # type: ignore[method-assign]
    return tints


def test_cursor_moves_from_streamed_edits_are_handled_once_per_slice(qtbot) -> None:
    segs = blocks(20)
    source, editor, _preview, sync = panes(qtbot, segs, "raw")
    editor.want(segs)
    finish(editor, sync)
    assert source.extraSelections() == []  # the fill took the cursor along: not the reader's
    cursor = editor.textCursor()
    cursor.movePosition(QTextCursor.MoveOperation.Start)
    editor.setTextCursor(cursor)
    cursor.movePosition(QTextCursor.MoveOperation.End)
    editor.setTextCursor(cursor)  # the reader's cursor in the last block
    lookups_while_editing = 0
    index_at = editor.index_at

    def counting(position: int) -> int:
        nonlocal lookups_while_editing
        lookups_while_editing += editor.editing
        return index_at(position)

    editor.index_at = counting  # type: ignore[method-assign]
    tints = record_tints(source)
    # Blocks above the cursor grow, a few edits: each moves the reader's cursor down.
    editor.want(blocks(20, first="A much longer first block.\n" * 5 + "\n"))
    finish(editor, sync)
    assert lookups_while_editing == 0
    assert tints == []  # the cursor stayed in its block: the source's tint stands
    # ...and once the slice is over, the source still highlights the cursor's block.
    selection = source.extraSelections()
    assert len(selection) == 1
    assert selection[0].cursor.selectedText().rstrip("\u2029") == "Paragraph 19."


def test_a_first_fill_tints_no_source_block_until_the_reader_comes_in(qtbot) -> None:
    """Filling an empty pane takes its cursor along to the end, block after block: the source
    would highlight each in turn, and the last one after the fill, for no reason of the reader's."""
    segs = blocks(6)
    source, _editor, preview, sync = panes(qtbot, segs, "rendered")
    tints = record_tints(source)
    for count in range(1, 7):  # the stream: one more block each slice
        preview.want(segs[:count])
        finish(preview, sync)
    assert preview.textCursor().position() > 0  # (the fill did take the cursor along)
    assert tints == [] and source.extraSelections() == []
    QApplication.sendEvent(preview, QFocusEvent(QEvent.Type.FocusIn))  # the reader tabs in
    selections = source.extraSelections()  # (kept: each selection's cursor lives in the list)
    assert selections[0].cursor.selectedText().startswith("Paragraph 5.")  # the fill's end: theirs
    cursor = preview.textCursor()
    cursor.setPosition(preview.block_start(2) + 3)
    preview.setTextCursor(cursor)  # the reader clicks into block 2
    assert source.extraSelections()[0].cursor.selectedText().startswith("Paragraph 2.")
    preview.want(blocks(6, first="A longer first block.\n" * 3 + "\n"))
    finish(preview, sync)  # the stream moves the reader's cursor: the tint follows its block
    assert source.extraSelections()[0].cursor.selectedText().startswith("Paragraph 2.")


def test_preview_block_extents_are_where_each_block_shows(qtbot) -> None:
    """The margin's extents: in order, apart, and each covering its own block's paragraphs
    (table cells and generated text included), in viewport pixels."""
    preview = TargetPreview()
    qtbot.addWidget(preview)
    preview.resize(500, 400)
    preview.show()
    kinds = [
        "## Titre {i}\n\n",
        "Un paragraphe {i} avec du **gras** et un [lien](https://example.com).\n\n",
        "- point {i}\n- autre point\n\n",
        "| A | B |\n|---|--:|\n| {i} | 2 |\n\n",
        "```python\nprint({i})\n```\n\n",
        "> citation {i}\n\n",
    ]
    segs = [segment(f"b{i}", kinds[i % len(kinds)].format(i=i)) for i in range(60)]
    preview.set_expansion("b7", "Texte généré en plus.")
    preview.want(segs)
    while not preview.step(time.perf_counter() + 1):
        pass
    preview.verticalScrollBar().setValue(preview.verticalScrollBar().maximum() // 2)
    extents = preview.visible_blocks()
    assert len(extents) >= 5
    doc = preview.document()
    keys = [seg.key for seg in preview.shown]
    previous_bottom = -(10**6)
    for key, top, bottom in extents:
        assert previous_bottom < top < bottom
        previous_bottom = bottom
        index = keys.index(key)
        start = preview.block_start(index)
        block = doc.findBlock(start)
        while block.isValid() and block.position() < start + preview.lengths[index]:
            cursor = QTextCursor(block)
            if block.length() > 1:  # a paragraph with text: on screen within the extent
                rect = preview.cursorRect(cursor)
                assert top - 1 <= rect.top() and rect.bottom() <= bottom + 1, (key, block.text())
            block = block.next()
    # and the block named at the middle of an extent is the one a click there lands in
    for key, top, bottom in extents[1:-1]:
        hit = preview.cursorForPosition(QPoint(40, (top + bottom) // 2)).position()
        assert preview.shown[preview.index_at(hit)].key == key


def test_the_reader_keeps_leading_while_the_target_re_renders(qtbot) -> None:
    """A streamed edit above the view moves the target's scroll bar to keep its place: that is
    not the reader scrolling the target, so the source stays the leader."""
    source, editor, preview = SourceEditor(), TargetEditor(), TargetPreview()
    for widget in (source, editor, preview):
        qtbot.addWidget(widget)
        widget.resize(500, 300)
        widget.show()
    segs = blocks(80)
    source.setPlainText("".join(s.text for s in segs))
    sync = SyncScroller(source, editor, preview, lambda: editor)
    sync.set_source_blocks(segs)
    editor.want(segs)
    finish(editor, sync)
    source.verticalScrollBar().setValue(2 * 40)  # the reader scrolls the source: block 40 on top
    assert editor.firstVisibleBlock().text() == "Paragraph 40."
    before = editor.verticalScrollBar().value()
    editor.want(blocks(80, first="A much longer first block.\n" * 12 + "\n"))
    finish(editor, sync)
    assert editor.verticalScrollBar().value() != before  # the pane did move its scroll bar
    assert sync._leader is source
    assert editor.firstVisibleBlock().text() == "Paragraph 40."
    assert source.firstVisibleBlock().text() == "Paragraph 40."


def test_when_the_target_leads_the_source_follows_it_after_a_re_render(qtbot) -> None:
    source, editor, preview = SourceEditor(), TargetEditor(), TargetPreview()
    for widget in (source, editor, preview):
        qtbot.addWidget(widget)
        widget.resize(500, 300)
        widget.show()
    segs = blocks(80)
    source.setPlainText("".join(s.text for s in segs))
    sync = SyncScroller(source, editor, preview, lambda: editor)
    sync.set_source_blocks(segs)
    editor.want(segs)
    finish(editor, sync)
    editor.verticalScrollBar().setValue(2 * 60)  # the reader scrolls the target
    assert source.firstVisibleBlock().text() == "Paragraph 60."
    source.verticalScrollBar().blockSignals(True)
    source.verticalScrollBar().setValue(0)  # (out of step, so that following shows)
    source.verticalScrollBar().blockSignals(False)
    editor.want(blocks(80, first="A much longer first block.\n" * 12 + "\n"))
    finish(editor, sync)
    assert sync._leader is editor
    assert editor.firstVisibleBlock().text() == "Paragraph 60."
    assert source.firstVisibleBlock().text() == "Paragraph 60."


def test_a_source_at_its_top_keeps_the_rendered_target_at_its_top(qtbot) -> None:
    """Not scrolled down by the document margin above the first block (which hid the top of the
    first heading and made every render slice re-anchor the view)."""
    source, editor, preview = SourceEditor(), TargetEditor(), TargetPreview()
    for widget in (source, editor, preview):
        qtbot.addWidget(widget)
        widget.resize(500, 300)
        widget.show()
    segs = [segment(f"b{i}", f"## Titre {i}\n\nParagraphe {i}.\n\n") for i in range(60)]
    source.setPlainText("".join(s.text for s in segs))
    sync = SyncScroller(source, editor, preview, lambda: preview)
    sync.set_source_blocks(segs)
    preview.want(segs)
    finish(preview, sync)
    assert preview.verticalScrollBar().maximum() > 0
    assert preview.verticalScrollBar().value() == 0
    source.verticalScrollBar().setValue(40)  # and following the source down still works
    assert preview.verticalScrollBar().value() > 0


def test_the_margin_follows_the_reader_at_once_and_the_catch_up_with_the_next_render(qtbot) -> None:
    """After a render slice sync scrolls the target to make up for blocks that grew above the
    reader's place; the content on screen stays put, so the margin need not repaint at once."""
    from fastdesk.ui.review.widgets import ReviewMargin

    source, editor, preview = SourceEditor(), TargetEditor(), TargetPreview()
    for widget in (source, editor, preview):
        qtbot.addWidget(widget)
        widget.resize(500, 300)
        widget.show()
    margin = ReviewMargin(preview, lambda key: "machine", lambda key: "")
    updates = []
    margin.update = lambda *args: updates.append(args)  # type: ignore[method-assign]
    segs = blocks(80)
    source.setPlainText("".join(s.text for s in segs))
    sync = SyncScroller(source, editor, preview, lambda: preview)
    sync.set_source_blocks(segs)
    preview.want(segs)
    while not preview.step(time.perf_counter() + 1):
        pass
    sync.target_rendered()
    updates.clear()
    source.verticalScrollBar().setValue(2 * 40)  # the reader scrolls: the margin follows now
    assert updates
    value = preview.verticalScrollBar().value()
    bar = preview.verticalScrollBar()
    bar.blockSignals(True)
    bar.setValue(0)  # (out of step, as after blocks above grew)
    bar.blockSignals(False)
    updates.clear()
    sync.target_rendered()
    assert preview.verticalScrollBar().value() == value  # caught up...
    assert updates == []  # ...without a repaint of its own


def test_a_target_still_filling_does_not_move_the_reader_in_the_source(qtbot, monkeypatch) -> None:
    """While a long document's target fills block by block it is shorter than the source, and
    Qt moves its view as it grows. That is not the reader scrolling the target: the source stays
    where the reader put it (it was pulled to its end, or its top), and leads."""
    monkeypatch.setattr(TargetPreview, "stand_ins_from", 100)  # (1,000: too long a test)
    segs = blocks(400)
    source, _editor, preview, sync = panes(qtbot, segs, "rendered", on_screen=True)
    source.verticalScrollBar().setValue(2 * 300)  # the reader: block 300 at the top
    preview.want(segs)
    bar = preview.verticalScrollBar()
    preview.step(time.perf_counter() - 1)  # the first slice: a group of stand-ins
    sync.target_rendered()  # block 300 is not in the target yet: its growing end is not chased
    assert len(preview.shown) == 100 and bar.maximum() > 0 and bar.value() == 0
    while len(preview.shown) < 200:  # the fill's next slices, ten edits each
        for _ in range(10):
            preview.step(time.perf_counter() - 1)
        sync.target_rendered()
        for value in (0, bar.maximum() // 2, bar.maximum()):  # Qt moving the growing view
            bar.setValue(value)
    assert preview.filling
    assert source.firstVisibleBlock().text() == "Paragraph 300."
    assert sync._leader is source
    while len(preview.shown) < len(segs):  # every block in, as a stand-in for most
        preview.step(time.perf_counter() - 1)
    sync.target_rendered()
    assert preview.filling  # (stand-ins left: the pane is not as tall as it will be)
    for _ in range(5):  # the next slices: the blocks on screen first
        preview.step(time.perf_counter() - 1)
        sync.target_rendered()
    top = preview.index_at(preview.cursorForPosition(QPoint(0, 0)).position())
    assert top == 300 and not preview.placeholder(300)
    assert preview.placeholder(200) and preview.placeholder(399)  # (the top: the first slices)
    assert source.firstVisibleBlock().text() == "Paragraph 300."
    finish(preview, sync)
    assert not preview.filling
    assert source.firstVisibleBlock().text() == "Paragraph 300."
    top = preview.index_at(preview.cursorForPosition(QPoint(0, 0)).position())
    assert top == 300  # once filled, the target is where the reader is
