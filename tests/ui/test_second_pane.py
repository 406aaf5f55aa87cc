"""A second target pane beside the first (View → Second Translation): its own language, its own
target model and live translator on the same engine thread, filled from memory, translated live;
closing it cancels its work."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QTextBrowser

from tests.ui.uifakes import round_trip, translated

TEXT = "Hello world.\n\nGoodbye cat.\n"


def second_text(w) -> str:  # type: ignore[no-untyped-def]
    pane = w.document_view.second.pane
    return "" if pane is None else pane.preview.toPlainText()


def main_text(w) -> str:  # type: ignore[no-untyped-def]
    return w.document_view.review_ctl.target_text()


def loaded(make_window, qtbot, **kw):  # type: ignore[no-untyped-def]
    w = make_window(**kw)
    w.set_language("fr")
    w.document_view.load(TEXT, None)
    qtbot.waitUntil(lambda: main_text(w) == "Bonjour monde.\n\nAu revoir chat.\n", timeout=10_000)
    return w


def test_the_command_opens_a_second_language_translated_live_beside_the_first(
    make_window, qtbot
) -> None:
    w = loaded(make_window, qtbot)
    action = w.actions_.second_pane
    assert action.shortcut().toString() == "Ctrl+Shift+T"
    action.trigger()
    view = w.document_view
    pane = view.second.pane
    assert pane is not None and action.isChecked()
    assert view.splitter.indexOf(pane) == 2  # beside the first target
    assert pane.lang == "de" and pane.language.currentData() == "de"
    # each block arrives in its own answer: wait for both (the second may come a beat later)
    qtbot.waitUntil(
        lambda: "Hallo Welt." in second_text(w) and "Tschüss Katze." in second_text(w),
        timeout=10_000,
    )
    assert "Hallo Welt." in second_text(w)
    assert "Tschüss Katze." in second_text(w)
    # a model of its own, on a review of its own; the first pane is untouched
    assert pane.model is not view.review_ctl.model
    assert pane.model.review.lang == "de" and view.review.lang == "fr"
    assert w.findChild(QTextBrowser, "targetPreview") is view.preview
    assert main_text(w) == "Bonjour monde.\n\nAu revoir chat.\n"

    # an edit goes to both, each in its language
    view.source.setPlainText(TEXT + "\nHello cat.\n")
    view.send_update()
    qtbot.waitUntil(lambda: "Hallo Katze." in second_text(w), timeout=10_000)
    qtbot.waitUntil(lambda: main_text(w).endswith("Bonjour chat.\n"), timeout=10_000)

    # its own box changes its language (a new translator: the old one's answers are not shown)
    index = pane.language.findData("fr")
    pane.language.setCurrentIndex(index)
    pane.language.activated.emit(index)
    assert pane.lang == "fr" and pane.model.review.lang == "fr"
    qtbot.waitUntil(lambda: "Bonjour chat." in second_text(w), timeout=10_000)

    # closing: the command again, or its close button
    action.trigger()
    assert view.second.pane is None and view.splitter.count() == 2


def test_closing_the_pane_cancels_its_requests(make_window, qtbot, provider) -> None:
    w = loaded(make_window, qtbot)
    view = w.document_view
    busy: list[bool] = []
    view.busy.connect(busy.append)
    provider.hold_answers()
    asked = len(provider.requests)
    w.set_second_pane(True)
    qtbot.waitUntil(lambda: len(provider.requests) > asked, timeout=10_000)  # in flight, held
    qtbot.waitUntil(lambda: bool(busy) and busy[-1], timeout=5_000)
    pane = view.second.pane
    assert pane is not None
    translator = view.worker._panes[pane.key]  # the pane's live translator on the engine thread
    assert translator.busy
    pane.close_requested.emit()  # its ✕ button
    assert view.second.pane is None and not w.actions_.second_pane.isChecked()
    # the held request was cancelled with its translator: the document is idle again
    qtbot.waitUntil(lambda: not translator.busy, timeout=5_000)
    assert pane.key not in view.worker._panes
    qtbot.waitUntil(lambda: bool(busy) and not busy[-1], timeout=5_000)
    view.send_update(force=True)  # and the engine has no pane translator left to feed
    qtbot.waitUntil(lambda: bool(busy) and not busy[-1], timeout=5_000)
    assert len(provider.requests) == asked + 1


def test_the_second_pane_is_filled_from_memory_without_a_request(
    make_window, qtbot, provider
) -> None:
    w = loaded(make_window, qtbot, memory=True)
    w.set_language("de")
    qtbot.waitUntil(lambda: main_text(w) == "Hallo Welt.\n\nTschüss Katze.\n", timeout=10_000)
    w.set_language("fr")
    qtbot.waitUntil(lambda: main_text(w) == "Bonjour monde.\n\nAu revoir chat.\n", timeout=10_000)
    asked = len(provider.requests)
    w.set_second_pane(True)
    qtbot.waitUntil(lambda: second_text(w) == "Hallo Welt.\nTschüss Katze.", timeout=10_000)
    round_trip(qtbot, w.document_view)  # the pane's session is not busy: nothing more to send
    assert len(provider.requests) == asked


def test_the_guide_lists_the_second_pane_and_the_project_panel(make_window, qtbot) -> None:
    from fastdesk.ui.workbench.guide import guide_html

    w = make_window()
    text = guide_html(w.actions_.shortcut_rows())
    assert "Second Translation" in text and "Ctrl+Shift+T" in text
    assert "Project" in text and "Ctrl+Shift+J" in text


def test_a_new_document_keeps_the_answers_its_blocks_already_had(make_window, qtbot) -> None:
    """The pane's translator does not announce again the blocks the new document shares with the
    old one (ids are content hashes): the pane's new review takes them from the old one."""
    w = loaded(make_window, qtbot)
    w.set_second_pane(True)
    qtbot.waitUntil(lambda: second_text(w) == "Hallo Welt.\nTschüss Katze.", timeout=10_000)
    w.document_view.load("Hello world.\n\nHello cat.\n", None)
    qtbot.waitUntil(lambda: second_text(w) == "Hallo Welt.\nHallo Katze.", timeout=10_000)


def test_the_second_pane_scrolls_with_the_source(make_window, qtbot) -> None:
    w = make_window()
    w.set_language("fr")
    text = "".join(f"Hello world {i}.\n\n" for i in range(200))
    view = w.document_view
    view.load(text, None)
    qtbot.waitUntil(lambda: not view.pending and view.review_ctl.doc is not None, timeout=10_000)
    w.set_second_pane(True)
    pane = view.second.pane
    qtbot.waitUntil(lambda: pane.preview.toPlainText().count("Hallo") == 200, timeout=10_000)
    bar = view.source.verticalScrollBar()
    bar.setValue(bar.maximum() // 2)
    qtbot.waitUntil(lambda: pane.preview.verticalScrollBar().value() > 0, timeout=5_000)
    import re

    def top_number(edit) -> int:  # type: ignore[no-untyped-def]
        block = edit.cursorForPosition(edit.viewport().rect().topLeft()).block()
        while not re.search(r"\d+", block.text()):
            block = block.next()
        return int(re.search(r"\d+", block.text()).group())

    qtbot.waitUntil(lambda: abs(top_number(pane.preview) - top_number(view.source)) <= 1)
    assert top_number(view.source) > 50  # the middle of the document, not its top


def test_the_second_pane_marks_each_blocks_state_in_its_language(make_window, qtbot) -> None:
    from fastdesk.review.model import STATE_STYLES

    w = loaded(make_window, qtbot)
    w.set_second_pane(True)
    pane = w.document_view.second.pane
    qtbot.waitUntil(lambda: "Hallo Welt." in second_text(w), timeout=10_000)
    qtbot.waitUntil(lambda: bool(pane.margin.blocks()), timeout=5_000)
    key, top, bottom = pane.margin.blocks()[0]
    assert pane.model.review.state_of(key) == "machine"
    assert pane.margin.colour_at((top + bottom) // 2) == STATE_STYLES["machine"].colour
    # approving in the first pane's language leaves the second's state alone
    w.document_view.review_ctl.approve(key)
    assert w.document_view.review.state_of(key) == "approved"
    assert pane.model.review.state_of(key) == "machine"


def _replace_whole_text(w, how: str, first: Path, second: Path) -> None:  # type: ignore[no-untyped-def]
    """``second``'s text in place of ``first``'s, the way ``how`` names (a menu's path)."""
    view, files = w.document_view, w.files
    text = second.read_text(encoding="utf-8")
    if how == "open":
        assert w.open_file(second)
    elif how == "recent":
        files.open_recent(str(second))
    elif how == "dropped":
        view.files_dropped.emit([str(second)])
    elif how == "project page":  # the project panel's pages open so, in a language
        assert w._open_in_language(second, "fr")
    elif how == "reloaded":  # another program wrote the open file
        first.write_text(text, encoding="utf-8")
        view.disk.changed.emit(text)
    else:  # New, then the text pasted
        assert how == "new"
        files.new_document()
        view.source.setPlainText(text)
        view.send_update()


@pytest.mark.parametrize("how", ["open", "recent", "dropped", "project page", "reloaded", "new"])
def test_a_paragraph_shared_with_the_last_document_is_translated_in_both_panes(
    make_window, qtbot, provider, tmp_path: Path, how: str
) -> None:
    """The second pane's twin of the first pane's bug: a document's whole text replaced while
    the last one's answers are in flight. A paragraph both share (the same block id) was in
    flight for the last document's revision, which the pane's new session drops; its live
    translator on the engine thread, having it done, sent nothing more: it stayed "to come" in
    that pane (tests/ui/test_ui_window.py has the first pane's)."""
    first, second = tmp_path / "a.md", tmp_path / "b.md"
    first.write_text("# Hello\n\nThe cat.\n\nGoodbye world.\n", encoding="utf-8")
    second.write_text("# Hello\n\nA dog.\n\nGoodbye world.\n", encoding="utf-8")
    w = make_window()
    w.set_language("fr")
    w.set_second_pane(True)
    view = w.document_view
    pane = view.second.pane
    assert pane is not None and pane.lang == "de"

    def asked_in_german() -> bool:
        return any("(de)" in r.messages[0]["content"] for r in provider.requests)

    provider.hold_answers()
    assert w.open_file(first)
    qtbot.waitUntil(asked_in_german, timeout=10_000)  # a.md's, held
    _replace_whole_text(w, how, first, second)
    provider.release()
    expected = second.read_text(encoding="utf-8")
    assert view.text() == expected
    qtbot.waitUntil(lambda: view.review_ctl.model.doc is not None and not view.pending)
    qtbot.waitUntil(
        lambda: pane.model.doc is not None and pane.model.doc.source == expected,
        timeout=10_000,
    )
    qtbot.waitUntil(lambda: not pane.model.pending, timeout=10_000)
    assert pane.model.export_text() == translated(expected, "de")
    assert view.translation_text() == translated(expected)
    # the shared ones shown too (the pane renders in slices, after its model)
    qtbot.waitUntil(lambda: second_text(w) == "Hallo\nA dog.\nTschüss Welt.", timeout=10_000)


def test_the_second_pane_translates_with_the_opened_documents_glossary(
    make_window, qtbot, provider, tmp_path
) -> None:
    """A project's glossary, in the second pane's language: its translator is planned again with
    the house of the document opened (not the one it was opened with, here none)."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / ".fastdesk-glossary.toml").write_text(
        '[translate.de]\n"world" = "Erdkreis"\n', encoding="utf-8"
    )
    page = folder / "page.md"
    page.write_text(TEXT, encoding="utf-8")
    w = make_window()
    w.set_language("fr")
    w.set_second_pane(True)  # on the untitled document: no house
    assert w.open_file(page)

    def german_with_glossary() -> bool:
        systems = [r.messages[0]["content"] for r in provider.requests]
        return any("(de)" in s and '"Erdkreis"' in s for s in systems)

    qtbot.waitUntil(german_with_glossary, timeout=10_000)
