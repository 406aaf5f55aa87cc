"""The problems dock: what needs the editor, in plain words; filters; a click goes to the block in
both panes; F8 / Shift+F8; one click restores a changed link from the source, as the editor's own
correction (pytest-qt, offscreen; the real engine and session, a fake provider)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QTextCursor
from PySide6.QtWidgets import QDockWidget

from fastdesk.providers.base import BadRequestError
from fastdesk.translate.checks import CHECKS
from fastdesk.ui.workbench.problems import BLOCK, DETAIL, FIX, FIX_TEXT, LINE, PROBLEM
from tests.ui.test_review_ui import (
    LINKED,
    TEXT,
    block,
    breaks_links,
    raw,
    target_text,
    wait_settled,
)
from tests.ui.test_workbench import key

SOURCE = TEXT + "\n" + LINKED  # Hello world. / The cat. / See [the guide](…/a).


def flagged_window(make_window, qtbot, provider):  # type: ignore[no-untyped-def]
    """The fake translation changes the link's target: that block fails the links check."""
    provider.answer = breaks_links
    w = make_window()
    raw(w)
    w.document_view.source.setPlainText(SOURCE)
    qtbot.waitUntil(lambda: "example.com/b" in target_text(w))
    wait_settled(w, qtbot)
    key(qtbot, w, "Ctrl+Shift+M")  # View > Problems
    dock = w.findChild(QDockWidget, "problemsView")
    assert dock is w.workbench.problems and dock.isVisible()
    qtbot.waitUntil(lambda: len(dock.rows) == 3)
    return w, dock


def shown(dock, row: int, column: int) -> str:  # type: ignore[no-untyped-def]
    return dock.model.index(row, column).data() or ""


def click(qtbot, dock, row: int, column: int) -> None:  # type: ignore[no-untyped-def]
    table = dock.table
    rect = table.visualRect(dock.model.index(row, column))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def test_the_list_says_what_needs_attention_in_plain_words(make_window, qtbot, provider) -> None:
    w, dock = flagged_window(make_window, qtbot, provider)
    hello, cat, link = block(w, "Hello"), block(w, "cat"), block(w, "guide")
    assert [p.block_id for p in dock.rows] == [hello, cat, link]
    assert shown(dock, 2, PROBLEM) == "link target changed"
    assert "example.com/a" in shown(dock, 2, DETAIL) and "example.com/b" in shown(dock, 2, DETAIL)
    assert shown(dock, 2, BLOCK).startswith("See [the guide]")
    assert shown(dock, 2, LINE) == "5" and shown(dock, 2, FIX) == FIX_TEXT
    assert shown(dock, 0, PROBLEM) == "not approved yet" and shown(dock, 0, FIX) == ""
    texts = {shown(dock, r, c) for r in range(3) for c in range(5)}
    assert not any(name in text for name in CHECKS if "_" in name for text in texts)
    assert not {"links", "flagged"} & texts  # the check's name never shows
    filters = dock.filters
    assert filters["flagged"].text() == "Flagged 1" and filters["unapproved"].text() == (
        "Not approved 2"
    )
    filters["unapproved"].setChecked(False)
    assert [p.block_id for p in dock.rows] == [link]
    filters["unapproved"].setChecked(True)
    w.review_commands.approve_block(hello)  # approved: off the list, at the next refresh
    qtbot.waitUntil(lambda: [p.block_id for p in dock.rows] == [cat, link])
    assert dock.count.text() == "2 blocks"


def test_a_click_goes_to_the_block_in_both_panes(make_window, qtbot, provider) -> None:
    w, dock = flagged_window(make_window, qtbot, provider)
    view = w.document_view
    link = block(w, "guide")
    click(qtbot, dock, 2, PROBLEM)
    source_at = view.source.toPlainText().index("See [the guide]")
    assert view.source.textCursor().position() == source_at
    assert view.target_editor.hasFocus()
    assert view.places.block_under_cursor() == link
    assert view.target_editor.textCursor().position() == target_text(w).index("See [the guide]")


def test_one_click_restores_the_link_as_the_editors_correction(
    make_window, qtbot, provider
) -> None:
    w, dock = flagged_window(make_window, qtbot, provider)
    view = w.document_view
    link = block(w, "guide")
    assert view.review.state_of(link) == "flagged"
    click(qtbot, dock, 2, FIX)
    assert view.review.state_of(link) == "edited"  # the editor's own correction
    assert view.review.shown_text(link) == "See [the guide](https://example.com/a).\n"
    assert "example.com/a" in target_text(w) and "example.com/b" not in target_text(w)
    assert "Hello" not in target_text(w)  # the rest of the translation untouched
    assert view.translation_text() == target_text(w)
    qtbot.waitUntil(lambda: dock.rows[-1].title == "not approved yet")
    assert dock.filters["flagged"].text() == "Flagged 0"
    w.review_commands.revert_block(link)  # Revert My Edit takes it back as any edit
    qtbot.waitUntil(lambda: "example.com/b" in target_text(w))


def test_f8_and_shift_f8_step_through_the_problems(make_window, qtbot, provider) -> None:
    w, dock = flagged_window(make_window, qtbot, provider)
    view = w.document_view
    hello, cat, link = block(w, "Hello"), block(w, "cat"), block(w, "guide")
    review_menu = next(a.menu() for a in w.menuBar().actions() if a.text() == "&Review")
    names = [a.objectName() for a in review_menu.actions()]
    assert "actionNextProblem" in names and "actionPreviousProblem" in names
    assert w.findChild(QAction, "actionPreviousProblem").shortcut().toString() == "Shift+F8"
    cursor = view.source.textCursor()
    cursor.movePosition(QTextCursor.MoveOperation.Start)
    view.source.setTextCursor(cursor)
    view.source.setFocus()
    qtbot.waitUntil(view.source.hasFocus)
    dock.filters["unapproved"].setChecked(False)  # only the flagged block: F8 goes there
    key(qtbot, w, "F8")
    assert view.places.block_under_cursor() == link and dock.current_row() == 0
    assert "link target changed" in w.statusBar().currentMessage()
    dock.filters["unapproved"].setChecked(True)
    key(qtbot, w, "F8")  # wraps to the first
    assert view.places.block_under_cursor() == hello
    key(qtbot, w, "F8")
    assert view.places.block_under_cursor() == cat
    key(qtbot, w, "Shift+F8")
    assert view.places.block_under_cursor() == hello
    key(qtbot, w, "Shift+F8")  # wraps to the last
    assert view.places.block_under_cursor() == link
    for button in dock.filters.values():
        button.setChecked(False)
    assert w.workbench.next_problem() is None
    assert "of the kinds shown" in w.statusBar().currentMessage()
    w.workbench.show_guide()
    guide = w.workbench.guide.browser.toPlainText()
    for words in ("Next Problem", "Previous Problem", "Problems"):
        assert words in guide
    assert "Shift+F8" in guide and "Ctrl+Shift+M" in guide


def test_f8_works_with_the_dock_closed(make_window, qtbot, provider) -> None:
    w, dock = flagged_window(make_window, qtbot, provider)
    dock.close()
    view = w.document_view
    view.source.setFocus()
    qtbot.waitUntil(view.source.hasFocus)
    key(qtbot, w, "Shift+F8")
    assert view.places.block_under_cursor() == block(w, "guide")


def test_failed_and_untranslated_blocks_are_listed(make_window, qtbot, provider) -> None:
    provider.fail_with = BadRequestError("groq", "refused", status=400)
    w = make_window()
    w.workbench.show_problems()
    dock = w.workbench.problems
    w.document_view.source.setPlainText(TEXT)
    qtbot.waitUntil(lambda: [p.kind for p in dock.rows] == ["failed", "failed"], timeout=5000)
    assert shown(dock, 0, PROBLEM) == "translation failed"
    assert "refused" in shown(dock, 0, DETAIL)
    provider.hold_answers()
    provider.fail_with = None
    w.document_view.blocks.retry_failed()
    qtbot.waitUntil(lambda: shown(dock, 0, PROBLEM) == "retrying")
    provider.release()
    qtbot.waitUntil(lambda: [p.kind for p in dock.rows] == ["unapproved", "unapproved"])


def test_the_restore_button_acts_on_the_selected_row(make_window, qtbot, provider) -> None:
    w, dock = flagged_window(make_window, qtbot, provider)
    link = block(w, "guide")
    dock.select(0)  # "Hello": nothing to restore
    assert not dock.restore_button.isEnabled()
    dock.select(2)
    assert dock.restore_button.isEnabled()
    qtbot.mouseClick(dock.restore_button, Qt.MouseButton.LeftButton)
    assert w.document_view.review.shown_text(link) == "See [the guide](https://example.com/a).\n"
    qtbot.waitUntil(lambda: not dock.restore_button.isEnabled())


def test_restore_from_the_rendered_view(make_window, qtbot, provider) -> None:
    """With the rendered translation on show, the fix goes through its Markdown all the same."""
    provider.answer = breaks_links
    w = make_window()
    view = w.document_view
    assert not view.showing_raw
    view.source.setPlainText(SOURCE)
    qtbot.waitUntil(lambda: "example.com/b" in target_text(w))
    wait_settled(w, qtbot)
    w.workbench.show_problems()
    dock = w.workbench.problems
    qtbot.waitUntil(lambda: any(p.restorable for p in dock.rows))
    row = next(n for n, p in enumerate(dock.rows) if p.restorable)
    click(qtbot, dock, row, FIX)
    assert view.review.state_of(block(w, "guide")) == "edited"
    qtbot.waitUntil(lambda: "https://example.com/a" in view.preview.toHtml())
    assert not view.showing_raw


def test_a_filter_shows_what_it_names_and_every_count_agrees(make_window, qtbot, provider) -> None:
    w, dock = flagged_window(make_window, qtbot, provider)
    link = block(w, "guide")
    filters = dock.filters
    qtbot.mouseClick(filters["flagged"], Qt.MouseButton.LeftButton)  # only the flagged rows
    assert [p.block_id for p in dock.rows] == [link]
    assert all(p.kind == "flagged" for p in dock.rows)
    assert filters["flagged"].isChecked() and not filters["unapproved"].isChecked()
    qtbot.mouseClick(filters["unapproved"], Qt.MouseButton.LeftButton)  # another: only it
    assert {p.kind for p in dock.rows} == {"unapproved"} and len(dock.rows) == 2
    qtbot.mouseClick(filters["unapproved"], Qt.MouseButton.LeftButton)  # again: all
    assert len(dock.rows) == 3 and all(b.isChecked() for b in filters.values())
    # the review bar's "flagged" is the list's count of flagged blocks
    w.document_view._update_review_bar()
    summary = w.document_view.review_bar.summary.text()
    assert f"{dock.counts['flagged']}&nbsp;flagged" in summary
    assert filters["flagged"].text() == f"Flagged {dock.counts['flagged']}" == "Flagged 1"
