"""Replace All at once (pytest-qt, offscreen): in the target every match found once and given
to its blocks as the editor's own corrections, the same as replacing match by match, one undo
step, the raw pane showing the result at once (and its view kept); in the source one edit
block."""

from __future__ import annotations

import pytest

from tests.ui.test_review_ui import raw, target_text, wait_settled
from tests.ui.test_undo import focus_target, undo

# The fake translation: Hello → Bonjour, world → monde, cat → chat, Goodbye → Au revoir.
DOCS = [
    "Hello world.\n\nThe cat.\n\nGoodbye world.\n",
    "# Hello world\n\nThe `world` cat and the World cat.\n\n- world\n- cat world\n\nGoodbye.\n",
    "".join(f"Hello world {i}, the cat.\n\n" for i in range(40)) + "Goodbye world.\n",
    "Hello 🙂 world é.\n\nThe cat 🙂.\n\n🙂 Goodbye world 🙂 world.\n",  # UTF-16 ≠ Python
]
QUERIES = [
    ("monde", False, False, "univers"),
    ("monde", True, True, "terre"),
    (r"(\w+) (monde)", False, True, r"\2 \1"),
]  # (text, whole word, regex, replacement)


def translated(make_window, qtbot, text: str):  # type: ignore[no-untyped-def]
    w = make_window()
    raw(w)
    w.document_view.source.setPlainText(text)
    qtbot.waitUntil(lambda: "world" not in target_text(w).replace("`world`", ""))
    wait_settled(w, qtbot)
    focus_target(w, qtbot)
    return w


def set_query(w, text: str, word: bool, regex: bool, template: str):  # type: ignore[no-untyped-def]
    w.workbench.replace()
    bar = w.workbench.find_bar
    assert bar.pane is w.document_view.target_editor
    bar.word.setChecked(word)
    bar.regex.setChecked(regex)
    bar.code.setChecked(True)  # code spans too: these tests are about how replacing goes
    bar.find_edit.setText(text)
    bar.replace_edit.setText(template)
    return bar


def outcome(w) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    review = w.document_view.review
    return [(review.state_of(b.id), review.shown_text(b.id)) for b in review.doc.blocks]


@pytest.mark.parametrize("text", DOCS)
@pytest.mark.parametrize(("needle", "word", "regex", "template"), QUERIES)
def test_replace_all_gives_what_replacing_match_by_match_gives(
    make_window, qtbot, text, needle, word, regex, template
) -> None:
    by_one = translated(make_window, qtbot, text)
    bar = set_query(by_one, needle, word, regex, template)
    spans = bar.matches()
    assert spans
    editor = by_one.document_view.target_editor
    for start, end in reversed(spans):  # the per-match path: each one a typed edit of its block
        cursor = editor.textCursor()
        cursor.setPosition(start)
        cursor.setPosition(end, cursor.MoveMode.KeepAnchor)
        editor.setTextCursor(cursor)
        bar.replace()
    expected = outcome(by_one)

    at_once = translated(make_window, qtbot, text)
    bar = set_query(at_once, needle, word, regex, template)
    assert bar.replace_all() == len(spans)
    assert outcome(at_once) == expected
    assert "edited" in {state for state, _text in expected}  # the editor's own corrections
    editor = at_once.document_view.target_editor
    assert target_text(at_once) == at_once.document_view.review_ctl.target_text()  # shown at once
    assert editor.settled
    if not bar.matches():  # (a swap of words may make new matches)
        assert bar.count.text() == "No matches"
    assert target_text(at_once) == target_text(by_one)


def test_replace_all_in_code_spans_too_is_one_step_kept_in_view(make_window, qtbot) -> None:
    w = translated(make_window, qtbot, DOCS[2].replace("the cat", "the `world` cat"))
    view = w.document_view
    editor = view.target_editor
    before_text, before = target_text(w), outcome(w)
    ctl = view.review_ctl
    block_30 = view.review.doc.blocks[30].id
    assert ctl.approve(block_30)  # an approved block with a match: the edit withdraws it
    steps = ctl.undo_stack.count()
    # the reader is on block 20, the cursor in it
    editor.resize(500, 200)
    start = editor.starts()[20]
    cursor = editor.textCursor()
    cursor.setPosition(start + 3)
    editor.setTextCursor(cursor)
    editor.verticalScrollBar().setValue(editor.document().findBlock(start).firstLineNumber())
    top = editor.firstVisibleBlock().position()
    assert top > 0

    bar = set_query(w, "monde", False, False, "univers")
    assert bar.replace_all() == 81  # 40 blocks: "monde" and `monde` in code; the last block
    assert target_text(w) == before_text.replace("monde", "univers")
    assert ctl.undo_stack.count() == steps + 1 and ctl.undo_stack.undoText() == "Replace All"
    assert view.review.state_of(block_30) == "edited"
    assert editor.index_at(editor.textCursor().position()) == 20  # the cursor in its block
    assert editor.index_at(editor.firstVisibleBlock().position()) == 20  # the view too

    focus_target(w, qtbot)
    undo(qtbot, w)  # Ctrl+Z: every block back at once
    assert target_text(w) == before_text
    assert editor.settled
    assert view.review.state_of(block_30) == "approved"
    assert [o for i, o in enumerate(outcome(w)) if i != 30] == [
        o for i, o in enumerate(before) if i != 30
    ]


def test_replace_all_in_the_source_is_one_edit_block_and_one_undo(make_window, qtbot) -> None:
    w = translated(make_window, qtbot, DOCS[2])
    source = w.document_view.source
    source.setFocus()
    qtbot.waitUntil(source.hasFocus)
    w.workbench.replace()
    bar = w.workbench.find_bar
    assert bar.pane is source
    bar.find_edit.setText("world")
    bar.replace_edit.setText("planet")
    changes: list[tuple[int, int, int]] = []
    source.document().contentsChange.connect(lambda *c: changes.append(c))
    assert bar.replace_all() == 41
    assert len(changes) == 1  # one change for the view to parse, not one per match
    assert source.toPlainText() == DOCS[2].replace("world", "planet")
    source.undo()
    assert source.toPlainText() == DOCS[2]


def test_a_bad_replacement_or_pattern_changes_nothing_and_says_so(make_window, qtbot) -> None:
    w = translated(make_window, qtbot, DOCS[0])
    before, steps = target_text(w), w.document_view.review_ctl.undo_stack.count()
    bar = set_query(w, "(monde)", False, True, r"\2")
    assert bar.replace_all() == 0
    assert bar.count.text() == "Bad replacement" and "replacement" in bar.count.toolTip()
    bar.find_edit.setText("(monde")
    assert bar.replace_all() == 0
    assert bar.count.text() == "Bad pattern"
    assert target_text(w) == before and w.document_view.review_ctl.undo_stack.count() == steps
    source = w.document_view.source
    bar.open(source, "Source", replace=True)
    assert bar.replace_all() == 0 and bar.count.text() == "Bad pattern"
    bar.find_edit.setText("(world)")
    assert bar.replace_all() == 0 and bar.count.text() == "Bad replacement"
    assert source.toPlainText() == DOCS[0]


def test_replace_all_previews_each_change_and_replaces_the_ticked_ones(make_window, qtbot) -> None:
    w = translated(make_window, qtbot, DOCS[1])
    view = w.document_view
    ctl = view.review_ctl
    before, blocks_before = target_text(w), outcome(w)
    steps = ctl.undo_stack.count()
    bar = set_query(w, "monde", False, False, "univers")
    spans = bar.matches()
    assert len(spans) == 4  # (the code span's `world` is not translated)
    dialog = bar.preview_all()
    assert dialog is not None and dialog.isVisible()
    assert target_text(w) == before  # nothing replaced before the editor says so
    rows = [dialog.list.item(k).text() for k in range(dialog.list.count())]
    assert len(rows) == 4 and all("[monde → univers]" in row for row in rows)
    assert dialog.replace_button.text() == "Replace 4"
    dialog.tick(0, False)  # skip the heading's
    assert dialog.chosen() == [1, 2, 3] and dialog.replace_button.text() == "Replace 3"
    dialog.replace_button.click()
    qtbot.waitUntil(lambda: not dialog.isVisible())
    text = target_text(w)
    assert text.count("univers") == 3 and text.count("monde") == before.count("monde") - 3
    assert text.startswith(before[: before.index("monde") + 5])  # the heading kept its word
    changed = sum(a != b for a, b in zip(blocks_before, outcome(w), strict=True))
    assert changed == 3  # the paragraph and the two list items
    assert bar.result.text() == "Replaced 3 in 3 blocks"
    assert ctl.undo_stack.count() == steps + 1  # one step
    focus_target(w, qtbot)
    undo(qtbot, w)
    assert target_text(w) == before


def test_preview_with_preserve_case_and_whole_words_in_the_source(make_window, qtbot) -> None:
    w = make_window()
    source = w.document_view.source
    source.setPlainText("# Pull requests\n\nOpen a pull request.\n\nPULL REQUEST rules.\n")
    source.setFocus()
    w.workbench.replace()
    bar = w.workbench.find_bar
    assert bar.pane is source and bar.preserve.isVisible()
    bar.find_edit.setText("pull request")
    bar.replace_edit.setText("demande de fusion")
    bar.word.setChecked(True)
    bar.preserve.setChecked(True)
    dialog = bar.preview_all()
    assert dialog is not None
    assert [dialog.list.item(k).text() for k in range(2)] == [
        "…Open a [pull request → demande de fusion].…",
        "[PULL REQUEST → DEMANDE DE FUSION] rules.…",
    ]
    dialog.tick_all(False)
    assert not dialog.replace_button.isEnabled()
    dialog.tick_all(True)
    dialog.accept()
    assert source.toPlainText() == (
        "# Pull requests\n\nOpen a demande de fusion.\n\nDEMANDE DE FUSION rules.\n"
    )
    assert bar.result.text() == "Replaced 2 in 2 blocks"  # the source counts blocks too
    source.undo()  # one edit block
    assert source.toPlainText().startswith("# Pull requests\n\nOpen a pull request.")
    bar.find_edit.setText("absent")
    assert bar.preview_all() is None and bar.result.text() == "Nothing replaced"


def test_replace_all_passes_over_code_and_link_targets_unless_asked(make_window, qtbot) -> None:
    w = make_window()
    source = w.document_view.source
    text = (
        "See [preprocessors](#preprocessors) and `markdown.preprocessors.Preprocessor`.\n\n"
        "Write preprocessors.\n"
    )
    source.setPlainText(text)
    source.setFocus()
    w.workbench.replace()
    bar = w.workbench.find_bar
    bar.find_edit.setText("preprocessors")
    bar.replace_edit.setText("pre-steps")
    assert bar.count.text() == "2 matches (+2 in code)"  # the link text and the prose
    dialog = bar.preview_all()
    assert dialog is not None and dialog.list.count() == 2
    dialog.accept()
    assert source.toPlainText() == (
        "See [pre-steps](#preprocessors) and `markdown.preprocessors.Preprocessor`.\n\n"
        "Write pre-steps.\n"
    )
    assert bar.result.text() == "Replaced 2 in 2 blocks"
    source.undo()
    bar.code.setChecked(True)  # asked: code and link targets too, marked in the preview
    assert bar.count.text() == "4 matches"
    dialog = bar.preview_all()
    assert dialog is not None
    rows = [dialog.list.item(k).text() for k in range(dialog.list.count())]
    assert [row.startswith("(code or link target)") for row in rows] == [False, True, True, False]
    dialog.reject()
