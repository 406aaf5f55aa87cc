"""The reviewer model's verdicts in the window: the error underlined in the Markdown pane with
its explanation on hover, the block's score as a colour in the margin, the errors in the problems
list filterable by category, the document's score in the status bar; and a block translated back
into the source's language on Ctrl+Shift+U (pytest-qt, offscreen; the real engine, session and
reviewer, a fake provider that plays translating model and reviewer)."""

from __future__ import annotations

import json
import re
from dataclasses import replace

from PySide6.QtGui import QAction, QKeySequence, QTextCursor
from PySide6.QtWidgets import QDockWidget, QStatusBar

from fastdesk.config.settings import Settings
from fastdesk.providers.base import RequestStats
from fastdesk.review.quality import Underline, score_colour
from fastdesk.review.target_model import qt_len
from fastdesk.routing.costs import CostLedger
from fastdesk.translate.mqm import ReviewError, mqm_score
from fastdesk.ui.panes.underlines import _locate
from fastdesk.ui.review.back_translation import BackTranslationDialog
from fastdesk.ui.window.status_bar import StatusPanel
from tests.ui.test_review_ui import TEXT, block, raw, target_text, wait_settled
from tests.ui.test_workbench import key
from tests.ui.uifakes import fake_answer

ERROR = {
    "span": "Bonjour",
    "category": "accuracy/mistranslation",
    "severity": "minor",
    "explanation": "too formal for a greeting here",
}
BACK = {"Bonjour": "Hello", "monde": "world", "chat": "cat"}


def translator_and_reviewer(request) -> str:  # type: ignore[no-untyped-def]
    system = request.messages[0]["content"]
    user = request.messages[-1]["content"]
    if "translation reviewer" in system:  # one minor error where its span is, none elsewhere
        found = [ERROR] if "Bonjour" in user.split("Translation:")[1] else []
        return json.dumps({"errors": found})
    if "into English (en)" in system:  # a back-translation
        for word, back in BACK.items():
            user = re.sub(rf"\b{word}\b", back, user)
        return user
    return fake_answer(request)


def reviewed_window(make_window, qtbot, provider, rendered=False, **kw):  # type: ignore[no-untyped-def]
    provider.answer = translator_and_reviewer
    w = make_window(settings=Settings(debounce_ms=40, review="on"), **kw)
    if not rendered:
        raw(w)
    w.document_view.source.setPlainText(TEXT)  # Hello world. / The cat.
    qtbot.waitUntil(lambda: "Bonjour" in target_text(w))
    wait_settled(w, qtbot)
    qtbot.waitUntil(lambda: w.status.score.isVisible(), timeout=5000)
    return w


def test_the_reviewers_error_is_underlined_and_explained_on_hover(
    make_window, qtbot, provider
) -> None:
    w = reviewed_window(make_window, qtbot, provider)
    underlines = w.document_view.underlines
    qtbot.waitUntil(lambda: len(underlines.marks) == 1)
    ((cursor, _line),) = underlines.marks
    assert cursor.selectedText() == "Bonjour"
    assert cursor.selectionStart() == target_text(w).index("Bonjour")
    tip = underlines.tooltip_at(cursor.selectionStart() + 2)
    assert tip == "accuracy/mistranslation (minor): too formal for a greeting here"
    assert underlines.tooltip_at(target_text(w).index("monde")) is None
    marks = w.document_view.target_editor.extraSelections()
    assert any(s.cursor.selectedText() == "Bonjour" for s in marks)


def test_the_error_is_underlined_in_the_rendered_view_too(make_window, qtbot, provider) -> None:
    w = reviewed_window(make_window, qtbot, provider, rendered=True)
    view = w.document_view
    assert view.target_pane() is view.preview
    underlines = view.preview_underlines
    qtbot.waitUntil(lambda: len(underlines.marks) == 1)
    ((cursor, _line),) = underlines.marks
    assert cursor.selectedText() == "Bonjour"
    assert view.preview.toPlainText().startswith("Bonjour monde.")
    tip = underlines.tooltip_at(cursor.selectionStart() + 1)
    assert tip == "accuracy/mistranslation (minor): too formal for a greeting here"
    assert underlines.tooltip_at(cursor.selectionEnd() + 1) is None  # " monde": no error
    marks = view.preview.extraSelections()
    assert any(s.cursor.selectedText() == "Bonjour" for s in marks)
    view.preview.show_block(1)  # the other pane's cursor tints a block: the marks stay
    assert any(s.cursor.selectedText() == "Bonjour" for s in view.preview.extraSelections())
    assert len(view.preview.extraSelections()) == 2


def test_a_span_is_found_in_the_rendered_text_without_its_markup() -> None:
    markdown = "Le **délai** est de 30 jours, puis `30` jours 🙂 de plus."
    error = ReviewError(0, "", "accuracy/mistranslation", "major", "why")

    def line(span: str, nth: int = 0) -> Underline:
        at = [i for i in range(len(markdown)) if markdown.startswith(span, i)][nth]
        e = replace(error, span=span, start=at)
        return Underline(qt_len(markdown[:at]), qt_len(markdown[:at]) + qt_len(span), e)

    rendered = "Le délai est de 30 jours, puis 30 jours 🙂 de plus."
    lines = [line("**délai**"), line("30 jours", 0), line("`30` jours"), line("de plus")]
    absent = replace(lines[0], error=replace(error, span="absent"))
    found = _locate(markdown, [*lines, absent], rendered)
    assert found[0] == (3, 5)  # "délai", its markup gone
    assert found[1] == (16, 8)  # the first "30 jours"
    assert found[2] == (31, 8)  # the second: the same occurrence as in the Markdown
    assert found[3] == (rendered.index("de plus") + 1, 7)  # after the emoji: UTF-16 offsets
    assert found[4] is None  # not in the text: not marked


def test_margin_status_bar_and_problems_show_the_scores(make_window, qtbot, provider) -> None:
    w = reviewed_window(make_window, qtbot, provider)
    hello, cat = block(w, "Hello"), block(w, "cat")
    block_score = mqm_score(1, 2)  # one minor error in "Hello world."
    document = mqm_score(1, 4)  # and none in "The cat."
    assert w.status.score.text() == f"score {document:g}"
    assert "Reviews this session: 2 request(s)" in w.status.score.toolTip()  # apart from the
    assert w.status.latency.text() != ""  # translations': the latency shown is a translation's
    margin = w.document_view.margins[0]
    places = {k: (top + bottom) // 2 for k, top, bottom in margin.blocks()}
    assert margin.score_colour_at(places[hello]) == score_colour(block_score)
    assert margin.score_colour_at(places[cat]) == score_colour(100.0)
    assert score_colour(block_score) != score_colour(100.0)
    key(qtbot, w, "Ctrl+Shift+M")  # View > Problems
    dock = w.findChild(QDockWidget, "problemsView")
    qtbot.waitUntil(lambda: any(p.kind == "accuracy" for p in dock.rows))
    (row,) = [p for p in dock.rows if p.kind == "accuracy"]
    assert (row.block_id, row.title) == (hello, "mistranslation (minor)")
    assert dock.filters["accuracy"].text() == "Accuracy 1"
    dock.filters["unapproved"].setChecked(False)
    assert [p.kind for p in dock.rows] == ["accuracy"]
    dock.filters["accuracy"].setChecked(False)
    assert dock.rows == []


def test_a_corrected_block_loses_its_verdict(make_window, qtbot, provider) -> None:
    w = reviewed_window(make_window, qtbot, provider)
    view = w.document_view
    hello = block(w, "Hello")
    qtbot.waitUntil(lambda: len(view.underlines.marks) == 1)
    view.target_editor.edit_blocks("Replace", [(hello, "Salut monde.\n\n")])  # the editor's
    qtbot.waitUntil(lambda: view.review.state_of(hello) == "edited")
    qtbot.waitUntil(lambda: view.underlines.marks == [])
    assert view.session.model.quality_of(hello) is None
    assert w.status.score.text() == "score 100"  # the corrected block no longer counts


def test_back_translation_on_its_shortcut(make_window, qtbot, provider) -> None:
    w = reviewed_window(make_window, qtbot, provider, memory=True)
    action = w.findChild(QAction, "actionBackTranslate")
    assert action.shortcut() == QKeySequence("Ctrl+Shift+U")
    source = w.document_view.source
    cursor = source.textCursor()
    cursor.movePosition(QTextCursor.MoveOperation.Start)
    source.setTextCursor(cursor)
    key(qtbot, w, "Ctrl+Shift+U")
    qtbot.waitUntil(lambda: w.findChild(BackTranslationDialog) is not None, timeout=5000)
    dialog = w.findChild(BackTranslationDialog)
    assert dialog.texts["back"].toPlainText() == "Hello world."
    assert dialog.texts["source"].toPlainText() == "Hello world."
    assert dialog.texts["translation"].toPlainText() == "Bonjour monde."

    def asked() -> int:
        return sum("into English (en)" in r.messages[0]["content"] for r in provider.requests)

    assert asked() == 1
    dialog.close()
    key(qtbot, w, "Ctrl+Shift+U")  # again: from the memory
    qtbot.waitUntil(lambda: any(d.isVisible() for d in w.findChildren(BackTranslationDialog)))
    assert asked() == 1


def test_the_reviews_cost_is_shown_apart_from_the_translations(qtbot, tmp_path) -> None:
    bar = QStatusBar()
    qtbot.addWidget(bar)
    status = StatusPanel(bar, ledger=CostLedger(tmp_path / "costs.json"))
    status.request_done(RequestStats("groq", "m", "ok", 100.0, 300.0, 10, 20, 0.0123))
    assert "reviews" not in status.cost.text()  # none yet: the label as it always was
    review = RequestStats("groq", "r", "ok", 90.0, 200.0, 30, 40, 0.0012, purpose="review")
    status.request_done(review)
    status.request_done(review)
    # the last request shown stays the translation's; since start counts both, the reviews
    # their own share
    assert status.cost.text().startswith("last $0.0123 · session $0.0147 · today $0.0147")
    assert status.cost.text().endswith(" · reviews $0.0024")
    unpriced = RequestStats("groq", "new", "ok", 90.0, 200.0, 30, 40, None, purpose="review")
    status.request_done(unpriced)
    assert status.cost.text().endswith(" · reviews $0.0024 + 1 request of unknown cost")
    status.set_score(97.5)
    assert "Reviews this session: 3 request(s), $0.0024 + 1 request" in status.score.toolTip()
    status.close()


def test_back_translation_of_a_selection_in_either_pane(make_window, qtbot, provider) -> None:
    w = reviewed_window(make_window, qtbot, provider, memory=True)
    view = w.document_view

    def asked() -> int:
        return sum("into English (en)" in r.messages[0]["content"] for r in provider.requests)

    source = view.source
    cursor = source.textCursor()
    cursor.setPosition(3)  # from inside "Hello world." into "The cat."
    cursor.setPosition(len(TEXT) - 3, QTextCursor.MoveMode.KeepAnchor)
    source.setTextCursor(cursor)
    source.setFocus()
    assert view.places.blocks_under_selection() == [block(w, "Hello"), block(w, "cat")]
    key(qtbot, w, "Ctrl+Shift+U")
    qtbot.waitUntil(lambda: w.findChild(BackTranslationDialog) is not None, timeout=5000)
    dialog = w.findChild(BackTranslationDialog)
    assert [(src.strip(), text.strip(), back.strip()) for src, text, back in dialog.rows] == [
        ("Hello world.", "Bonjour monde.", "Hello world."),
        ("The cat.", "The chat.", "The cat."),
    ]
    # each block's back-translation beside its source, in the same order
    assert dialog.texts["source"].toPlainText() == "Hello world.\n\nThe cat."
    assert dialog.texts["back"].toPlainText() == "Hello world.\n\nThe cat."
    assert dialog.texts["translation"].toPlainText() == "Bonjour monde.\n\nThe chat."
    assert asked() == 2
    dialog.close()

    # the same selection in the Markdown view of the translation: known, nothing asked
    raw(w)
    editor = view.target_editor
    cursor = editor.textCursor()
    cursor.setPosition(0)
    cursor.setPosition(len(target_text(w)) - 1, QTextCursor.MoveMode.KeepAnchor)
    editor.setTextCursor(cursor)
    editor.setFocus()
    assert view.places.blocks_under_selection() == [block(w, "Hello"), block(w, "cat")]
    key(qtbot, w, "Ctrl+Shift+U")
    qtbot.waitUntil(lambda: any(d.isVisible() for d in w.findChildren(BackTranslationDialog)))
    shown = next(d for d in w.findChildren(BackTranslationDialog) if d.isVisible())
    assert [r[2].strip() for r in shown.rows] == ["Hello world.", "The cat."]
    assert asked() == 2
