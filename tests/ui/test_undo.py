"""Undo in the target covers the editor's own work, step by step (typing, replace all, revert,
approve, approve all, withdraw, keep mine), and a changed source is decided on seeing what
changed. Real engine and LiveTranslator, a fake provider; offscreen Qt."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from tests.ui.test_review_ui import block, raw, target_text, type_in_target, wait_settled
from tests.ui.uifakes import answer_box

TEXT = "Hello world.\n\nThe cat.\n\nGoodbye world.\n"
FR = "Bonjour monde.\n\nThe chat.\n\nAu revoir monde.\n"
CTRL = Qt.KeyboardModifier.ControlModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier


def translated_window(make_window, qtbot):  # type: ignore[no-untyped-def]
    w = make_window()
    raw(w)
    w.document_view.source.setPlainText(TEXT)
    qtbot.waitUntil(lambda: target_text(w) == FR)
    wait_settled(w, qtbot)
    focus_target(w, qtbot)
    return w


def focus_target(w, qtbot) -> None:  # type: ignore[no-untyped-def]
    """The window active (a dialog may have had it) and the raw target focused."""
    w.activateWindow()
    qtbot.waitUntil(w.isActiveWindow)
    w.document_view.target_editor.setFocus()
    qtbot.waitUntil(lambda: w.document_view.target_editor.hasFocus())


def undo(qtbot, w) -> None:  # type: ignore[no-untyped-def]
    qtbot.keyClick(w.document_view.target_editor, Qt.Key.Key_Z, CTRL)


def redo(qtbot, w) -> None:  # type: ignore[no-untyped-def]
    qtbot.keyClick(w.document_view.target_editor, Qt.Key.Key_Z, CTRL | SHIFT)


def states(w) -> list[str]:  # type: ignore[no-untyped-def]
    review = w.document_view.review
    return [review.state_of(b.id) for b in review.doc.blocks if b.translatable]


def test_typing_in_the_target_is_undone_and_redone_with_ctrl_z(make_window, qtbot) -> None:
    w = translated_window(make_window, qtbot)
    view = w.document_view
    type_in_target(w, qtbot, "Bonjour monde", " entier")  # seven keystrokes: one step
    type_in_target(w, qtbot, "The chat", " noir")  # another block: another step
    assert target_text(w) == "Bonjour monde entier.\n\nThe chat noir.\n\nAu revoir monde.\n"
    assert view.review_ctl.undo_stack.count() == 2
    assert view.review_ctl.undo_stack.undoText() == "Typing"

    undo(qtbot, w)
    assert target_text(w) == "Bonjour monde entier.\n\nThe chat.\n\nAu revoir monde.\n"
    assert states(w) == ["edited", "machine", "machine"]
    undo(qtbot, w)
    assert target_text(w) == FR
    assert states(w) == ["machine", "machine", "machine"]
    assert not view.review.has_work()
    assert view.source.toPlainText() == TEXT  # the source's own history is not touched

    redo(qtbot, w)
    assert target_text(w) == "Bonjour monde entier.\n\nThe chat.\n\nAu revoir monde.\n"
    assert view.review.shown_text(block(w, "Hello")) == "Bonjour monde entier.\n\n"
    # Edit → Undo does the same while the target has the focus
    w.findChild(QAction, "actionUndo").trigger()
    assert target_text(w) == FR
    assert w.findChild(QAction, "actionRedo").isEnabled()


def test_each_review_command_is_one_step_undone_in_reverse(make_window, qtbot) -> None:
    w = translated_window(make_window, qtbot)
    view, commands = w.document_view, w.review_commands
    hello, cat, bye = block(w, "Hello"), block(w, "cat"), block(w, "Goodbye")
    type_in_target(w, qtbot, "The chat", "!")
    assert commands.approve_block(hello)
    assert commands.revert_block(cat)
    seen: list[str] = []
    answer_box(w, "approveAllBox", "Approve 2 blocks", seen)
    assert commands.approve_all() == 2  # asked first, with how many
    assert seen == ["Approve 2 blocks?"]
    assert states(w) == ["approved", "approved", "approved"]
    assert commands.withdraw_approval(bye)
    assert states(w) == ["approved", "approved", "machine"]
    labels = [view.review_ctl.undo_stack.text(i) for i in range(view.review_ctl.undo_stack.count())]
    assert labels == [
        "Typing",
        "Approve",
        "Revert My Edit",
        "Approve All (2)",
        "Withdraw Approval",
    ]

    undo(qtbot, w)  # withdraw
    assert states(w) == ["approved", "approved", "approved"]
    undo(qtbot, w)  # approve all: both blocks at once
    assert states(w) == ["approved", "machine", "machine"]
    undo(qtbot, w)  # revert: the correction is back
    assert states(w) == ["approved", "edited", "machine"]
    assert "The chat!" in target_text(w)
    undo(qtbot, w)  # approve
    undo(qtbot, w)  # typing
    assert states(w) == ["machine", "machine", "machine"]
    assert target_text(w) == FR
    for _ in range(5):
        redo(qtbot, w)
    assert states(w) == ["approved", "approved", "machine"]


def test_cancelled_approve_all_changes_nothing(make_window, qtbot) -> None:
    w = translated_window(make_window, qtbot)
    seen: list[str] = []
    answer_box(w, "approveAllBox", "Cancel", seen)
    assert w.review_commands.approve_all() == 0
    assert seen == ["Approve 3 blocks?"]
    assert states(w) == ["machine", "machine", "machine"]
    assert w.document_view.review_ctl.undo_stack.count() == 0


def test_replace_all_in_the_target_is_one_step(make_window, qtbot) -> None:
    w = translated_window(make_window, qtbot)
    bar = w.workbench.find_bar
    w.workbench.replace()
    assert bar.pane is w.document_view.target_editor
    bar.find_edit.setText("monde")
    bar.replace_edit.setText("univers")
    assert bar.replace_all() == 2
    assert target_text(w) == "Bonjour univers.\n\nThe chat.\n\nAu revoir univers.\n"
    assert states(w) == ["edited", "machine", "edited"]
    assert w.document_view.review_ctl.undo_stack.count() == 1
    focus_target(w, qtbot)
    undo(qtbot, w)
    assert target_text(w) == FR and states(w) == ["machine", "machine", "machine"]
    redo(qtbot, w)
    assert target_text(w) == "Bonjour univers.\n\nThe chat.\n\nAu revoir univers.\n"


def test_ctrl_z_in_the_source_undoes_the_source(make_window, qtbot) -> None:
    w = translated_window(make_window, qtbot)
    view = w.document_view
    type_in_target(w, qtbot, "The chat", "!")
    view.source.setFocus()
    qtbot.waitUntil(lambda: view.source.hasFocus())
    cursor = view.source.textCursor()
    cursor.movePosition(cursor.MoveOperation.End)
    view.source.setTextCursor(cursor)
    qtbot.keyClicks(view.source, "X")
    assert w.findChild(QAction, "actionUndo").isEnabled()
    qtbot.keyClick(view.source, Qt.Key.Key_Z, CTRL)
    assert view.source.toPlainText() == TEXT
    assert "The chat!" in target_text(w)  # the correction stays


def test_withdraw_approval_has_a_shortcut_in_the_review_menu(make_window, qtbot) -> None:
    w = translated_window(make_window, qtbot)
    editor = w.document_view.target_editor
    hello = block(w, "Hello")
    cursor = editor.textCursor()
    cursor.setPosition(2)
    editor.setTextCursor(cursor)
    qtbot.keyClick(editor, Qt.Key.Key_A, CTRL | SHIFT)
    assert w.document_view.review.state_of(hello) == "approved"
    qtbot.keyClick(editor, Qt.Key.Key_A, CTRL | Qt.KeyboardModifier.AltModifier)
    assert w.document_view.review.state_of(hello) == "machine"
    assert target_text(w) == FR  # the shortcut typed nothing
    menu = w.findChild(QMenu, "reviewMenu")
    assert "actionWithdrawApproval" in [a.objectName() for a in menu.actions()]
    w.workbench.show_guide()
    assert "Withdraw Approval" in w.workbench.guide.browser.toPlainText()
    assert "Compare Changed Source" in w.workbench.guide.browser.toPlainText()


def test_undo_steps_belong_to_their_language(make_window, qtbot) -> None:
    w = translated_window(make_window, qtbot)
    type_in_target(w, qtbot, "The chat", "!")
    w.set_language("de")
    qtbot.waitUntil(lambda: "Katze" in target_text(w))
    wait_settled(w, qtbot)
    assert w.document_view.review_ctl.undo_stack.count() == 0  # nothing of French to undo here
    w.set_language("fr")
    qtbot.waitUntil(lambda: "The chat!" in target_text(w))
    focus_target(w, qtbot)
    undo(qtbot, w)
    assert "The chat!" not in target_text(w)


# ---- deciding on a changed source -----------------------------------------------------------


def stale_window(make_window, qtbot):  # type: ignore[no-untyped-def]
    w = translated_window(make_window, qtbot)
    type_in_target(w, qtbot, "The chat", " noir")
    w.document_view.source.setPlainText(TEXT.replace("The cat.", "The big cat sleeps."))
    qtbot.waitUntil(lambda: len(w.document_view.review.stale_blocks()) == 1)
    wait_settled(w, qtbot)
    return w


def test_the_decision_shows_the_source_diff_and_both_translations(make_window, qtbot) -> None:
    w = stale_window(make_window, qtbot)
    (cat,) = w.document_view.review.stale_blocks()
    qtbot.waitUntil(lambda: w.document_view.review.info(cat).machine is not None)
    dialog = w.review_commands.decide(cat)
    assert dialog is not None and dialog.isVisible()
    html = dialog.diff.toHtml()
    plain = dialog.diff.toPlainText()
    assert plain == "The big cat sleeps."  # old and new words, in order, nothing lost
    # added words marked (underlined, green background), the unchanged ones not
    fragments = _fragments(dialog.diff)
    assert ("big ", "added") in fragments or ("big", "added") in fragments
    assert (" sleeps", "added") in fragments
    assert ("The ", "plain") in fragments
    assert "line-through" not in html  # nothing was removed here
    assert dialog.kept.toPlainText() == "The chat noir."
    assert dialog.machine.toPlainText() == "The big chat sleeps."
    # keyboard: Alt+K keeps (the default button too)
    assert dialog.keep_button.isDefault()
    dialog.activateWindow()
    qtbot.waitUntil(dialog.isActiveWindow)
    qtbot.keyClick(dialog, Qt.Key.Key_K, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: w.review_commands.decision is None)
    assert w.document_view.review.state_of(cat) == "edited"
    # and Keep Mine is undone like the rest: the choice is offered again
    focus_target(w, qtbot)
    undo(qtbot, w)
    assert w.document_view.review.state_of(cat) == "stale_edit"
    assert w.document_view.review.info(cat).base == "The cat.\n\n"


def test_removed_words_are_struck_and_the_translation_fills_in_later(
    make_window, qtbot, provider
) -> None:
    w = translated_window(make_window, qtbot)
    type_in_target(w, qtbot, "The chat", " noir")
    provider.hold_answers()
    w.document_view.source.setPlainText(TEXT.replace("The cat.", "A cat."))
    qtbot.waitUntil(lambda: len(w.document_view.review.stale_blocks()) == 1)
    (cat,) = w.document_view.review.stale_blocks()
    dialog = w.review_commands.decide()  # the first block whose source changed
    assert dialog is not None and dialog.block_id == cat
    assert ("The", "removed") in _fragments(dialog.diff)
    assert ("A", "added") in _fragments(dialog.diff)
    assert "being translated" in dialog.machine.toPlainText()
    provider.release()
    qtbot.waitUntil(lambda: dialog.machine.toPlainText() == "A chat.")
    qtbot.mouseClick(dialog.retranslate_button, Qt.MouseButton.LeftButton)
    assert w.document_view.review.state_of(cat) == "machine"
    qtbot.waitUntil(lambda: "A chat." in target_text(w))


def test_the_decision_is_reachable_by_keyboard(make_window, qtbot) -> None:
    w = stale_window(make_window, qtbot)
    editor = w.document_view.target_editor
    qtbot.keyClick(editor, Qt.Key.Key_C, CTRL | Qt.KeyboardModifier.AltModifier)
    dialog = w.review_commands.decision
    assert dialog is not None and dialog.isVisible()
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: w.review_commands.decision is None)
    assert len(w.document_view.review.stale_blocks()) == 1  # cancelled: nothing decided


def _fragments(browser) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    """(text, mark) of each run of the diff: "added" underlined, "removed" struck out."""
    out = []
    block_ = browser.document().begin()
    while block_.isValid():
        it = block_.begin()
        while not it.atEnd():
            fragment = it.fragment()
            fmt = fragment.charFormat()
            mark = "removed" if fmt.fontStrikeOut() else "added" if fmt.fontUnderline() else "plain"
            out.append((fragment.text(), mark))
            it += 1
        block_ = block_.next()
    return out


def test_a_step_whose_source_changed_is_skipped_and_a_new_document_starts_afresh(
    make_window, qtbot
) -> None:
    w = translated_window(make_window, qtbot)
    view = w.document_view
    type_in_target(w, qtbot, "Bonjour monde", "!")
    type_in_target(w, qtbot, "The chat", "!")
    view.source.setPlainText(TEXT.replace("The cat.", "The cats."))  # under the second edit
    qtbot.waitUntil(lambda: len(view.review.stale_blocks()) == 1)
    wait_settled(w, qtbot)
    focus_target(w, qtbot)
    messages: list[str] = []
    view.message.connect(lambda text, _ms: messages.append(text))
    undo(qtbot, w)  # the second step: its block is not in the source any more
    assert messages == ["Nothing to undo there: that block's source changed since"]
    assert view.review_ctl.undo_stack.count() == 1  # it left the stack
    assert view.review.state_of(block(w, "cats")) == "stale_edit"  # the correction untouched
    undo(qtbot, w)  # on to the first step
    assert view.review.state_of(block(w, "Hello")) == "machine"

    type_in_target(w, qtbot, "Bonjour monde", "!")
    assert view.review_ctl.undo_stack.count() == 1
    w.files.new_document()
    assert view.review_ctl.undo_stack.count() == 0


def test_the_rendered_translation_undoes_and_redoes_too(make_window, qtbot) -> None:
    w = translated_window(make_window, qtbot)
    view = w.document_view
    assert w.review_commands.approve_block(block(w, "cat"))
    w.toggle_target_view()  # the rendered view: read-only, the window's actions take the keys
    view.preview.setFocus()
    qtbot.waitUntil(lambda: view.preview.hasFocus())
    qtbot.keyClick(view.preview, Qt.Key.Key_Z, CTRL)
    assert states(w) == ["machine", "machine", "machine"]
    qtbot.keyClick(view.preview, Qt.Key.Key_Z, CTRL | SHIFT)
    assert states(w) == ["machine", "approved", "machine"]
    assert view.source.toPlainText() == TEXT


def test_the_correction_is_merged_in_the_dialog_then_kept(make_window, qtbot) -> None:
    w = stale_window(make_window, qtbot)
    review = w.document_view.review
    (cat,) = review.stale_blocks()
    qtbot.waitUntil(lambda: review.info(cat).machine is not None)
    dialog = w.review_commands.decide(cat)
    assert dialog is not None and not dialog.kept.isReadOnly()
    assert dialog.merged() is None  # untouched: Keep Mine keeps the correction as it was
    dialog.kept.setFocus()
    cursor = dialog.kept.textCursor()
    cursor.setPosition(len("The "))
    dialog.kept.setTextCursor(cursor)
    qtbot.keyClicks(dialog.kept, "big ")  # the new source's word, merged by the editor
    assert dialog.kept.toPlainText() == "The big chat noir."
    assert dialog.keep_button.text() == "&Keep My Merged Text"
    dialog.refresh()  # the review changing meanwhile does not undo the editor's typing
    assert dialog.kept.toPlainText() == "The big chat noir."
    qtbot.mouseClick(dialog.keep_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: w.review_commands.decision is None)
    assert review.state_of(cat) == "edited"
    assert review.shown_text(cat) == "The big chat noir.\n\n"  # its line ends kept
    qtbot.waitUntil(lambda: "The big chat noir." in target_text(w))
    focus_target(w, qtbot)
    undo(qtbot, w)  # one step: the choice is offered again, the old correction back
    assert review.state_of(cat) == "stale_edit"
    assert review.shown_text(cat) == "The chat noir.\n\n"


def test_start_from_the_new_translation(make_window, qtbot) -> None:
    w = stale_window(make_window, qtbot)
    review = w.document_view.review
    (cat,) = review.stale_blocks()
    qtbot.waitUntil(lambda: review.info(cat).machine is not None)
    dialog = w.review_commands.decide(cat)
    assert dialog is not None and dialog.start_button.isEnabled()
    dialog.start_button.click()
    assert dialog.kept.toPlainText() == "The big chat sleeps."
    dialog.kept.undo()  # one undoable edit of the correction
    assert dialog.kept.toPlainText() == "The chat noir."
    dialog.start_button.click()
    qtbot.keyClicks(dialog.kept, " Bien.")
    qtbot.mouseClick(dialog.keep_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: review.state_of(cat) == "edited")
    assert review.shown_text(cat) == "The big chat sleeps. Bien.\n\n"
