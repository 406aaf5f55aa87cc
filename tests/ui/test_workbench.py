"""The editor's workbench: find and replace bar, outline dock, F1 guide (pytest-qt, offscreen)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget

from fastdesk.document.blocks import parse
from fastdesk.document.find import BadPattern, Query, find_all, replacement
from fastdesk.document.outline import headings
from tests.ui.test_review_ui import block, raw, target_text, wait_settled

TEXT = "# Hello\n\nHello world.\n\n## The cat\n\nThe cat and the Cat.\n\n## Goodbye\n\nworld.\n"
FR = (
    "# Bonjour\n\nBonjour monde.\n\n## The chat\n\nThe chat and the Cat.\n\n"
    "## Au revoir\n\nmonde.\n"
)


def key(qtbot, w, sequence: str) -> None:
    """Press a window shortcut as a user would (the action bound to it)."""
    from PySide6.QtGui import QKeySequence

    for action in w.actions():
        if action.shortcut() == QKeySequence(sequence):
            action.trigger()
            return
    raise AssertionError(f"no action on {sequence}")


def open_bar(qtbot, w, pane, sequence: str):  # type: ignore[no-untyped-def]
    """Focus ``pane``, then press ``sequence`` (Ctrl+F or Ctrl+H): the find bar."""
    pane.setFocus()
    qtbot.waitUntil(lambda: pane.hasFocus())
    key(qtbot, w, sequence)
    return w.workbench.find_bar


def opened(make_window, qtbot):
    w = make_window()
    w.document_view.source.setPlainText(TEXT)
    qtbot.waitUntil(lambda: w.document_view.review_ctl.target_text() == FR, timeout=5000)
    wait_settled(w, qtbot)
    return w


# ---- the matcher (core) ---------------------------------------------------------------------


def test_query_case_whole_word_and_regex() -> None:
    text = "The cat, the Cat, concat. cat"
    spans = lambda q: [m.span() for m in find_all(text, q)]  # noqa: E731
    assert len(spans(Query("cat"))) == 4
    assert len(spans(Query("cat", case=True))) == 3
    assert spans(Query("cat", word=True)) == [(4, 7), (13, 16), (26, 29)]
    assert len(spans(Query("c.t", regex=True, word=True, case=True))) == 2
    assert spans(Query("c.t")) == []  # literal without the regex switch
    assert find_all(text, Query("")) == []
    with pytest.raises(BadPattern, match="Not a valid regular expression"):
        Query("(", regex=True).pattern()
    m = find_all("cat dog", Query(r"(\w+) (\w+)", regex=True))[0]
    assert replacement(m, Query(r"(\w+) (\w+)", regex=True), r"\2 \1") == "dog cat"
    assert replacement(m, Query("cat"), r"\2") == r"\2"  # literal without the regex switch


# ---- find bar -------------------------------------------------------------------------------


def test_find_in_the_source_counts_steps_and_wraps(make_window, qtbot) -> None:
    w = opened(make_window, qtbot)
    source = w.document_view.source
    bar = open_bar(qtbot, w, source, "Ctrl+F")
    assert w.findChild(type(bar), "findBar") is bar and bar.isVisible()
    assert not bar.replace_edit.isVisible()  # Ctrl+F: find only
    qtbot.keyClicks(bar.find_edit, "cat")
    assert bar.count.text() == "3 matches"
    qtbot.keyClick(bar.find_edit, Qt.Key.Key_Return)
    assert source.textCursor().selectedText().lower() == "cat"
    assert bar.count.text() == "1 of 3 matches"
    key(qtbot, w, "F3")
    key(qtbot, w, "F3")
    assert bar.count.text() == "3 of 3 matches"
    key(qtbot, w, "F3")  # wraps to the first
    assert bar.count.text() == "1 of 3 matches"
    key(qtbot, w, "Shift+F3")  # and back to the last
    assert bar.count.text() == "3 of 3 matches"
    bar.case.setChecked(True)
    assert bar.count.text().endswith("2 matches")
    bar.case.setChecked(False)
    bar.word.setChecked(True)
    bar.find_edit.setText("Hello")
    assert bar.count.text() == "2 matches"
    bar.regex.setChecked(True)
    bar.find_edit.setText("(")
    assert bar.count.text() == "Bad pattern" and "regular expression" in bar.count.toolTip()
    qtbot.keyClick(bar.find_edit, Qt.Key.Key_Escape)
    assert not bar.isVisible()


def test_replace_in_the_source_is_one_undoable_edit(make_window, qtbot) -> None:
    w = opened(make_window, qtbot)
    source = w.document_view.source
    bar = open_bar(qtbot, w, source, "Ctrl+H")
    assert bar.replace_edit.isVisible() and bar.scope.text() == "Source"
    bar.find_edit.setText("world")
    bar.replace_edit.setText("planet")
    assert bar.replace_all() == 2
    assert source.toPlainText() == TEXT.replace("world", "planet")
    assert bar.count.text() == "No matches"
    source.undo()
    assert source.toPlainText() == TEXT


def test_replace_in_the_target_becomes_the_editors_own_corrections(make_window, qtbot) -> None:
    w = opened(make_window, qtbot)
    view = w.document_view
    assert not view.showing_raw  # the rendered translation is on show
    bar = open_bar(qtbot, w, view.preview, "Ctrl+F")
    assert bar.scope.text() == "Translation"
    bar.find_edit.setText("monde")
    assert bar.count.text() == "2 matches"  # in the rendered text
    key(qtbot, w, "Ctrl+H")  # replacing goes on in the translation's Markdown
    assert view.showing_raw and bar.pane is view.target_editor
    bar.replace_edit.setText("univers")
    bar.find_next()
    bar.replace()  # the first match only, then on to the next
    hello = block(w, "Hello world")
    bye = next(b.id for b in view.review.doc.blocks if b.text.startswith("world."))
    assert view.review.state_of(hello) == "edited"
    assert view.review.shown_text(hello) == "Bonjour univers.\n\n"
    assert view.review.state_of(bye) != "edited"
    assert bar.count.text() == "1 of 1 match"
    bar.find_edit.setText("chat")
    assert bar.replace_all() == 2
    cat_heading, cat = block(w, "## The cat"), block(w, "The cat and")
    assert view.review.shown_text(cat_heading) == "## The univers\n\n"
    assert view.review.state_of(cat) == "edited"
    assert "univers and the Cat" in target_text(w)
    assert view.translation_text() == target_text(w)
    assert view.source.toPlainText() == TEXT  # the source is untouched


# ---- outline --------------------------------------------------------------------------------


def test_headings_come_from_the_block_parse() -> None:
    doc = parse("# One #\n\ntext\n\nTwo *big*\n===\n\n    # not a heading\n\n### `x` three\n")
    assert [(h.level, h.title) for h in headings(doc)] == [
        (1, "One"),
        (1, "Two big"),
        (3, "x three"),
    ]


def test_outline_lists_headings_goes_to_them_and_follows_the_cursor(make_window, qtbot) -> None:
    w = opened(make_window, qtbot)
    raw(w)
    view = w.document_view
    key(qtbot, w, "Ctrl+Shift+O")
    dock = w.findChild(QDockWidget, "outlineView")
    assert dock is w.workbench.outline and dock.isVisible()
    tree = dock.tree
    assert tree.topLevelItemCount() == 1  # "# Hello" holds the two "##"
    top = tree.topLevelItem(0)
    assert [top.text(0)] + [top.child(i).text(0) for i in range(top.childCount())] == [
        "Hello",
        "The cat",
        "Goodbye",
    ]
    bye = top.child(1)
    rect = tree.visualItemRect(bye)
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    source_line = view.source.textCursor().block().text()
    assert source_line == "## Goodbye"
    target = view.target_editor
    assert target.textCursor().block().text() == "## Au revoir"
    assert view.source.hasFocus()
    # follows the cursor: into the cat's section
    cursor = view.source.textCursor()
    cursor.setPosition(TEXT.index("The cat and"))
    view.source.setTextCursor(cursor)
    assert tree.currentItem() is top.child(0)
    # and the document: a new heading shows after a short pause
    view.source.moveCursor(cursor.MoveOperation.End)
    view.source.insertPlainText("\n## Later\n")
    qtbot.waitUntil(lambda: tree.topLevelItem(0).childCount() == 3, timeout=2000)
    assert tree.topLevelItem(0).child(2).text(0) == "Later"


# ---- guide ----------------------------------------------------------------------------------


def test_f1_opens_a_guide_with_every_shortcut(make_window, qtbot) -> None:
    w = make_window()
    key(qtbot, w, "F1")
    guide = w.workbench.guide
    assert guide is not None and guide.isVisible()
    text = guide.browser.toPlainText()
    for action in w.actions():
        keys = action.shortcut().toString()
        if keys:
            assert keys in text, action.objectName()
    assert "Expand Section" in text and "Find" in text


# ---- the rendered view (item 6) -------------------------------------------------------------


def test_the_rendered_view_numbers_lists_and_resolves_references_across_blocks(
    make_window, qtbot
) -> None:
    w = make_window()
    view = w.document_view
    source = (
        "1. one\n1. two\n1. three\n\nSee [the guide][g] and ~~old~~.\n\n- [x] done\n\n"
        "[g]: https://example.com/guide\n"
    )
    view.source.setPlainText(source)
    wait_settled(w, qtbot)
    doc = view.preview.document()
    numbers, anchors, struck = [], [], False
    blk = doc.begin()
    while blk.isValid():
        if blk.textList() is not None:
            numbers.append(blk.textList().itemText(blk))
        it = blk.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            anchors += [fmt.anchorHref()] if fmt.isAnchor() else []
            struck = struck or (fmt.fontStrikeOut() and it.fragment().text() == "old")
            it += 1
        blk = blk.next()
    assert numbers[:3] == ["1.", "2.", "3."]  # each item is a block of its own
    assert "https://example.com/guide" in anchors  # the definition is another block
    assert struck
    assert "\u2611 done" in doc.toPlainText()


def preview_numbers(w) -> list[str]:
    doc = w.document_view.preview.document()
    out, blk = [], doc.begin()
    while blk.isValid():
        if blk.textList() is not None:
            out.append(blk.textList().itemText(blk))
        blk = blk.next()
    return out


def test_a_block_renders_again_when_its_context_changes_though_its_text_did_not(
    make_window, qtbot
) -> None:
    w = make_window()
    view = w.document_view
    view.source.setPlainText("1. one\n1. two\n1. three\n\nSee [the guide][g].\n")
    wait_settled(w, qtbot)
    assert preview_numbers(w) == ["1.", "2.", "3."]
    assert "[the guide][g]" in view.preview.toPlainText()
    cursor = view.source.textCursor()
    cursor.setPosition(0)
    view.source.setTextCursor(cursor)
    view.source.insertPlainText("1. zero\n")  # the items below keep their text, not their number
    cursor.movePosition(cursor.MoveOperation.End)
    view.source.setTextCursor(cursor)
    view.source.insertPlainText("\n[g]: https://example.com/guide\n")
    qtbot.waitUntil(lambda: preview_numbers(w) == ["1.", "2.", "3.", "4."], timeout=5000)
    qtbot.waitUntil(
        lambda: "the guide" in (shown := view.preview.toPlainText()) and "][g]" not in shown,
        timeout=5000,
    )


def test_the_find_keys_work_while_typing_in_either_pane(make_window, qtbot) -> None:
    w = opened(make_window, qtbot)
    raw(w)
    view, bar = w.document_view, w.workbench.find_bar
    with qtbot.waitActive(w):
        w.activateWindow()
    for pane, scope in ((view.source, "Source"), (view.target_editor, "Translation")):
        pane.setFocus()
        qtbot.waitUntil(lambda p=pane: p.hasFocus())
        qtbot.keyClick(pane, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
        assert bar.isVisible() and bar.scope.text() == scope and bar.find_edit.hasFocus()
        qtbot.keyClicks(bar.find_edit, "the")
        qtbot.keyClick(bar.find_edit, Qt.Key.Key_F3)
        assert pane.textCursor().selectedText().lower() == "the"
        qtbot.keyClick(bar.find_edit, Qt.Key.Key_Escape)
        assert not bar.isVisible() and pane.hasFocus()
        qtbot.keyClick(pane, Qt.Key.Key_H, Qt.KeyboardModifier.ControlModifier)
        assert bar.replace_edit.isVisible()
        bar.find_edit.clear()
        bar.hide()


def test_an_outline_shown_by_the_restored_layout_fills_itself(make_window, qtbot) -> None:
    w = opened(make_window, qtbot)
    dock = w.workbench.outline
    assert dock.tree.topLevelItemCount() == 0  # hidden: nothing parsed for it
    dock.show()  # as restoreState does, without the Outline command
    qtbot.waitUntil(lambda: dock.tree.topLevelItemCount() == 1, timeout=2000)


# ---- generated text: kept or discarded ------------------------------------------------------


def expanded(make_window, qtbot):  # type: ignore[no-untyped-def]
    """A window whose paragraph has generated text (Expand Section), the cursor in it."""
    w = make_window()
    view = w.document_view
    view.source.setPlainText("# Hello\n\nHello world, the cat.\n")
    wait_settled(w, qtbot)
    cursor = view.source.textCursor()
    cursor.setPosition(len("# Hello\n\nHel"))
    view.source.setTextCursor(cursor)
    view.source.setFocus()
    w.actions_.expand.trigger()
    key = view.source_blocks[1].key
    qtbot.waitUntil(lambda: key in view.preview.expansions, timeout=5000)
    qtbot.waitUntil(lambda: not w.status.activity.isVisible())
    return w, key


def test_generated_text_can_be_kept_as_the_editors_own_edit(make_window, qtbot) -> None:
    w, key = expanded(make_window, qtbot)
    view = w.document_view
    generated = view.preview.expansions[key].strip()
    w.actions_.keep_generated.trigger()
    assert key not in view.preview.expansions
    assert view.review.state_of(key) == "edited"
    assert view.review.shown_text(key) == f"Bonjour monde, the chat.\n\n{generated}\n"
    assert view.translation_text().endswith(f"the chat.\n\n{generated}\n")  # exported now
    qtbot.waitUntil(lambda: "Generated by the model" not in view.preview.toPlainText())
    # the fake model "elaborates" by translating again: the block's text, then the kept text
    assert view.preview.toPlainText().endswith(f"Bonjour monde, the chat.\n{generated}")
    view.source.setFocus()
    w.actions_.revert.trigger()  # an edit like any other: Revert My Edit takes it back
    qtbot.waitUntil(lambda: view.review.state_of(key) != "edited")
    assert view.translation_text() == "# Bonjour\n\nBonjour monde, the chat.\n"


def test_generated_text_can_be_discarded(make_window, qtbot) -> None:
    w, key = expanded(make_window, qtbot)
    view = w.document_view
    w.actions_.discard_generated.trigger()
    assert view.preview.expansions == {}
    qtbot.waitUntil(lambda: "Generated by the model" not in view.preview.toPlainText())
    assert view.review.state_of(key) != "edited"
    assert view.translation_text() == "# Bonjour\n\nBonjour monde, the chat.\n"
    w.actions_.discard_generated.trigger()  # nothing left: said so, nothing changes
    assert "No generated text" in w.statusBar().currentMessage()
