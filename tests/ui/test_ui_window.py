"""The window end to end: real engine and LiveTranslator in the worker thread, a fake provider."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QInputMethodEvent, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDialog,
    QLabel,
    QMenu,
    QMessageBox,
    QPlainTextEdit,
    QTextBrowser,
    QToolButton,
)

from fastdesk.config.settings import Settings, load_settings
from fastdesk.providers.base import AuthenticationError, RequestStats
from fastdesk.translate.engine import Engine
from fastdesk.translate.events import BlockDone
from fastdesk.ui.bridge.delivery import Delivery
from tests.hostile import full_disk
from tests.ui.uifakes import translated


def target_text(window) -> str:
    return window.findChild(QPlainTextEdit, "targetEditor").toPlainText()


def test_contract_widgets_exist(make_window) -> None:
    w = make_window()
    assert isinstance(w.findChild(QPlainTextEdit, "sourceEditor"), QPlainTextEdit)
    assert isinstance(w.findChild(QPlainTextEdit, "targetEditor"), QPlainTextEdit)
    assert isinstance(w.findChild(QTextBrowser, "targetPreview"), QTextBrowser)
    for name in ("modeSelector", "languageSelector", "providerSelector"):
        assert isinstance(w.findChild(QComboBox, name), QComboBox)
    for name in ("latencyLabel", "costLabel"):
        assert isinstance(w.findChild(QLabel, name), QLabel)
    languages = w.findChild(QComboBox, "languageSelector")
    codes = {languages.itemData(i) for i in range(languages.count())}
    assert {"fr", "fr-CA", "de", "es-MX", "pt-BR", "ja", "zh-Hans", "uk"} <= codes


def test_typing_updates_the_target(make_window, qtbot) -> None:
    w = make_window()
    source = w.findChild(QPlainTextEdit, "sourceEditor")
    source.setFocus()
    qtbot.keyClicks(source, "# Hello")
    qtbot.keyClick(source, Qt.Key.Key_Return)
    qtbot.keyClick(source, Qt.Key.Key_Return)
    qtbot.keyClicks(source, "Hello world, the cat.")
    expected = translated("# Hello\n\nHello world, the cat.")
    qtbot.waitUntil(lambda: target_text(w) == expected, timeout=5000)
    # the rendered view holds the same blocks
    qtbot.waitUntil(lambda: len(w.document_view.preview.lengths) == 2)
    assert "Bonjour monde" in w.document_view.preview.toPlainText()
    qtbot.waitUntil(lambda: "first token" in w.status.latency.text())
    assert w.status.latency.text().startswith("groq · fake-model")


def test_only_the_edited_block_is_sent_again(make_window, qtbot, provider) -> None:
    w = make_window()
    w.document_view.source.setPlainText("Hello world.\n\nThe cat.\n")
    qtbot.waitUntil(lambda: target_text(w) == translated("Hello world.\n\nThe cat.\n"))
    sent = len(provider.requests)
    cursor = w.document_view.source.textCursor()
    cursor.movePosition(cursor.MoveOperation.End)
    w.document_view.source.setTextCursor(cursor)
    qtbot.keyClicks(w.document_view.source, "Goodbye.")
    qtbot.waitUntil(lambda: target_text(w).endswith("chat.\nAu revoir."))
    new = provider.requests[sent:]
    assert new and all("Hello" not in r.messages[-1]["content"] for r in new)


def test_stale_results_are_dropped(make_window, qtbot, provider) -> None:
    provider.hold_answers()
    w = make_window()
    seen: list[str] = []
    w.document_view.target_editor.document().contentsChanged.connect(
        lambda: seen.append(target_text(w))
    )
    w.document_view.source.setPlainText("Hello")
    qtbot.waitUntil(provider.started.is_set)
    # a new revision before the first answer came
    w.document_view.source.setPlainText("Hello world")
    qtbot.waitUntil(lambda: len(provider.requests) >= 2)  # the worker has the new revision
    provider.release()
    qtbot.waitUntil(lambda: target_text(w) == "Bonjour monde")
    assert "Bonjour" not in seen  # the answer for the stale "Hello" never showed


def test_an_answer_for_a_block_the_document_lost_is_not_shown(make_window, qtbot) -> None:
    w = make_window()
    w.document_view.source.setPlainText("Hello world")
    qtbot.waitUntil(lambda: target_text(w) == "Bonjour monde")
    old = w.document_view.revision - 1
    w.document_view.deliveries.on_delivery(
        Delivery(revision=old, events=(BlockDone(old, "gone", "STALE", "model"),))
    )
    qtbot.waitUntil(lambda: w.document_view.scheduler.idle)
    assert target_text(w) == "Bonjour monde"


def test_mode_and_language_switches(make_window, qtbot) -> None:
    w = make_window()
    w.document_view.source.setPlainText("Hello world, the cat.")
    qtbot.waitUntil(lambda: target_text(w) == "Bonjour monde, the chat.")
    w.findChild(QComboBox, "languageSelector").setCurrentIndex(w.selectors.language.findData("de"))
    qtbot.waitUntil(lambda: target_text(w) == "Hallo Welt, the Katze.")
    assert w.document_view.target_title.text() == "Translation — German"
    w.set_mode("simplify")
    qtbot.waitUntil(lambda: target_text(w) == "Hi world, the cat.")
    saved = load_settings()[0]
    assert (saved.mode, saved.target_language) == ("simplify", "de")


def test_language_box_accepts_names_and_codes(make_window) -> None:
    w = make_window()
    box = w.selectors.language
    for typed, code in (("German", "de"), ("pt-BR", "pt-BR"), ("fr-BE", "fr-BE")):
        box.setEditText(typed)
        box.lineEdit().editingFinished.emit()
        assert box.currentData() == code
    box.setEditText("not a language at all")
    box.lineEdit().editingFinished.emit()
    assert box.currentData() == "fr-BE"


def test_error_is_shown_with_details_on_click(make_window, qtbot, provider) -> None:
    provider.fail_with = AuthenticationError("groq", "invalid API key", status=401)
    w = make_window()
    w.document_view.source.setPlainText("Hello world")
    button = w.findChild(QToolButton, "errorButton")
    qtbot.waitUntil(button.isVisible)
    assert "key was refused" in button.text()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    box = w.findChild(QMessageBox, "errorDetails")
    assert box is not None and box.isVisible()
    assert "invalid API key" in box.detailedText()
    box.close()
    assert "error" in w.status.latency.text()


def test_costs_unknown_price_is_never_zero(make_window) -> None:
    w = make_window()
    status = w.status
    assert status.cost.text().startswith("last –")
    status.request_done(RequestStats("groq", "m", "ok", 120.0, 400.0, 10, 20, None, None, 50.0))
    assert status.cost.text() == (
        "last cost unknown · session 1 request of unknown cost · today 1 request of unknown cost"
    )
    status.request_done(RequestStats("groq", "m", "ok", 100.0, 300.0, 10, 20, 0.000025, None, 60.0))
    assert status.cost.text().startswith(
        "last $0.000025 · session $0.000025 + 1 request of unknown cost · today $0.000025"
    )
    assert status.latency.text() == "groq · m · first token 100 ms · total 300 ms · 60 tok/s"


def test_reaching_the_daily_budget_pauses_live(make_window, qtbot) -> None:
    w = make_window(settings=Settings(debounce_ms=40, daily_budget_usd=0.00001))
    w.status.request_done(RequestStats("groq", "m", "ok", 100.0, 300.0, 10, 20, 0.00002))
    w.news.check_budget()
    assert not w.live
    assert "Daily budget reached" in w.status.error_button.text()
    assert load_settings()[0].live  # paused for today, not switched off for good


def test_memory_answers_show_as_such(make_window, qtbot, provider) -> None:
    w = make_window(memory=True)
    w.document_view.source.setPlainText("Hello world")
    qtbot.waitUntil(lambda: target_text(w) == "Bonjour monde")
    w.document_view.source.setPlainText("Hello world, the cat")
    qtbot.waitUntil(lambda: target_text(w) == "Bonjour monde, the chat")
    requests = len(provider.requests)
    w.document_view.source.setPlainText("Hello world")  # back to a text the memory knows
    qtbot.waitUntil(lambda: target_text(w) == "Bonjour monde")
    qtbot.waitUntil(lambda: w.status.latency.text() == "memory · 0 ms")
    assert w.status.cost.text().startswith("last $0 (memory)")
    assert len(provider.requests) == requests


def test_input_method_composition_does_not_translate(make_window, qtbot) -> None:
    w = make_window()
    w.document_view.source.setFocus()
    revision = w.document_view.revision
    QApplication.sendEvent(w.document_view.source, QInputMethodEvent("ni", []))
    assert w.document_view.source.composing
    assert not w.document_view.sending._debounce.isActive()
    commit = QInputMethodEvent("", [])
    commit.setCommitString("你")
    QApplication.sendEvent(w.document_view.source, commit)
    assert not w.document_view.source.composing
    qtbot.waitUntil(lambda: w.document_view.revision > revision)
    assert w.document_view.source.toPlainText() == "你"


def test_live_off_waits_for_translate_now(make_window, qtbot, provider) -> None:
    w = make_window()
    w.actions_.live.setChecked(False)
    revision = w.document_view.revision
    w.document_view.source.setPlainText("Hello world")
    assert not w.document_view.sending._debounce.isActive() and w.document_view.revision == revision
    w.actions_.translate_now.trigger()
    qtbot.waitUntil(lambda: target_text(w) == "Bonjour monde")


def test_closing_while_streaming_cancels_within_a_second(make_window, qtbot, provider) -> None:
    provider.hold_answers()  # the answer never comes
    w = make_window()
    w.document_view.source.setPlainText("Hello world")
    qtbot.waitUntil(provider.started.is_set)
    assert w.status.activity.isVisible()
    assert w.close()
    # the worker's thread had ended when close() returned, while the answer was still held (it
    # never comes): the request was cancelled, not waited for; close gives the thread a second
    # at most (EngineWorker.stop), so one still running would mean it was left behind
    assert provider.hold is not None and not provider.hold.is_set()
    assert not w.document_view.worker.running


def test_unsaved_edits_ask_before_closing(make_window, qtbot) -> None:
    w = make_window()
    w.document_view.source.setPlainText("Hello")
    w.document_view.source.document().setModified(True)
    w.files._ask_save = lambda: "cancel"
    assert not w.close()
    assert w.isVisible() and w.document_view.worker.running
    w.files._ask_save = lambda: "discard"
    assert w.close()


def test_open_save_and_export_keep_bytes(make_window, qtbot, tmp_path: Path) -> None:
    doc = tmp_path / "guide.md"
    doc.write_bytes("# Hello\r\n\r\nHello world \u00a0!\r\n".encode())
    w = make_window()
    assert w.open_file(doc)
    assert w.windowTitle().startswith("guide.md")
    qtbot.waitUntil(lambda: target_text(w).startswith("# Bonjour"))
    qtbot.waitUntil(lambda: not w.document_view.pending)
    w.document_view.source.document().setModified(True)
    assert w.files.save()
    assert doc.read_bytes() == "# Hello\r\n\r\nHello world \u00a0!\r\n".encode()
    out = tmp_path / "out" / "guide.fr.md"
    assert w.files.export_translation(out)
    assert out.read_bytes() == "# Bonjour\r\n\r\nBonjour monde \u00a0!\r\n".encode()
    assert load_settings()[0].recent_files[0] == str(doc)


def test_a_recent_file_with_an_ampersand_shows_it_and_opens_it(
    make_window, qtbot, tmp_path: Path
) -> None:
    """Qt takes "&" in a menu item for the letter that chooses it: "R&D notes.md" showed as
    "RD notes.md" (Alt+D chose it). The recent files show each name as it is."""
    doc = tmp_path / "R&D notes.md"
    doc.write_text("Hello\n", encoding="utf-8")
    w = make_window()
    w.settings = replace(w.settings, recent_files=(str(doc),))
    menu = QMenu(w)
    w.fill_recent_menu(menu)
    (action,) = menu.actions()
    assert action.text() == str(doc).replace("&", "&&")  # shown as one "&"
    assert QKeySequence.mnemonic(action.text()).isEmpty()  # no letter taken for a shortcut
    action.trigger()
    qtbot.waitUntil(lambda: w.document_view.path == doc)


def test_opening_a_bad_file_says_why(make_window, tmp_path: Path) -> None:
    bad = tmp_path / "image.md"
    bad.write_bytes(b"\x89PNG\x00\x00")
    w = make_window()
    assert not w.open_file(bad)
    box = w.findChild(QMessageBox, "warningBox")
    assert box is not None and "binary" in box.text()
    box.close()


def test_a_save_that_fails_names_the_file_and_the_reason_in_the_command_lines_words(
    make_window, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk: the warning names the file and says why as `fastdesk translate` would, and
    the file on disk is left as it was."""
    doc = tmp_path / "guide.md"
    doc.write_text("# Hello\n", encoding="utf-8")
    w = make_window()
    assert w.open_file(doc)
    w.document_view.source.setPlainText("# Hello again\n")
    full_disk(monkeypatch, tmp_path, "guide.md")
    assert not w.files.save()
    box = w.findChild(QMessageBox, "warningBox")
    assert box is not None and box.text() == f"{doc}: no space left on the disk"
    box.close()
    assert doc.read_text(encoding="utf-8") == "# Hello\n"


def test_layout_and_view_are_remembered(make_window, qtbot) -> None:
    w = make_window()
    assert not w.document_view.showing_raw
    w.actions_.toggle_view.trigger()
    assert w.document_view.showing_raw and w.document_view.target_editor.isVisible()
    w.document_view.splitter.setSizes([300, 900])
    w.close()
    window = load_settings()[0].window
    assert {"geometry", "state", "splitter"} <= set(window) and window["view"] == "raw"
    again = make_window(settings=load_settings()[0])
    assert again.document_view.showing_raw
    left, right = again.document_view.splitter.sizes()
    assert left < right


def test_settings_action_calls_the_hook(make_window, monkeypatch) -> None:
    from fastdesk.ui import MainWindow

    called = []
    monkeypatch.setattr(MainWindow, "open_settings", lambda self: called.append(self))
    w = make_window()
    w.findChild(QAction, "actionSettings").trigger()
    assert called == [w]


def test_sample_document_opens(make_window, qtbot) -> None:
    w = make_window()
    w.files.open_sample()
    assert w.document_view.source.toPlainText().startswith("# Welcome to fastdesk")
    assert not w.document_view.source.document().isModified()
    qtbot.waitUntil(lambda: target_text(w).startswith("# Welcome"), timeout=5000)


@pytest.mark.parametrize("raw", [False, True])
def test_cursor_block_is_highlighted_in_the_other_pane(make_window, qtbot, raw: bool) -> None:
    w = make_window()
    if raw:
        w.toggle_target_view()
    w.document_view.source.setPlainText("Hello\n\nworld\n\nthe cat\n")
    qtbot.waitUntil(lambda: target_text(w) == "Bonjour\n\nmonde\n\nthe chat\n")
    qtbot.waitUntil(lambda: len(w.document_view.sync._starts) == 4)
    cursor = w.document_view.source.textCursor()
    cursor.setPosition(len("Hello\n\nwor"))
    w.document_view.source.setTextCursor(cursor)
    selections = w.document_view.target_editor.extraSelections()
    assert len(selections) == 1
    assert selections[0].cursor.selectedText().startswith("monde")
    if not raw:
        # The rendered view can still be putting blocks' HTML in place of their stand-ins (the
        # source's text, shown until then) in slices: the tint follows its block's new text
        # after the slice, so it is waited for.
        def tinted() -> None:
            assert w.document_view.preview.tinted_block == 1
            tint = w.document_view.preview.extraSelections()
            assert len(tint) == 1
            assert tint[0].cursor.selectedText().startswith("monde")

        qtbot.waitUntil(tinted)


def test_the_tint_of_the_cursor_block_outlives_a_palette_change(make_window, qtbot) -> None:
    """A palette change renders the view again from nothing: the block under the source's
    cursor is tinted again once it is back (the source tells only when its cursor changes
    block). It once stayed untinted, and in a random order the cursor test above failed so."""
    w = make_window()
    view = w.document_view
    view.source.setPlainText("Hello\n\nworld\n\nthe cat\n")
    qtbot.waitUntil(lambda: target_text(w) == "Bonjour\n\nmonde\n\nthe chat\n")
    qtbot.waitUntil(lambda: len(view.sync._starts) == 4)
    cursor = view.source.textCursor()
    cursor.setPosition(len("Hello\n\nwor"))
    view.source.setTextCursor(cursor)
    qtbot.waitUntil(lambda: view.preview.tinted_block == 1)
    view.apply_palette()  # (what the window does when the palette or the theme changes)

    def tinted_again() -> None:
        assert view.preview.tinted_block == 1
        tint = view.preview.extraSelections()
        assert len(tint) == 1 and tint[0].cursor.selectedText().startswith("monde")

    qtbot.waitUntil(tinted_again)


def test_no_provider_shows_the_first_run_panel(qtbot) -> None:
    from fastdesk.translate.wiring import NotConfigured
    from fastdesk.ui import MainWindow

    def no_provider() -> Engine:
        raise NotConfigured("no provider is configured: set GROQ_API_KEY")

    w = MainWindow(engine_factory=no_provider, settings=Settings(debounce_ms=40))
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(lambda: w.news.first_run is not None and w.news.first_run.isVisible())
    w.document_view.source.setPlainText("Hello world")  # the target still mirrors the document
    qtbot.waitUntil(lambda: target_text(w) == "Hello world")
    assert "no provider" in w.status.error_button.text()
    assert "GROQ_API_KEY" in w.status.error_detail
    w.close()


def test_saved_settings_are_followed(make_window, qtbot, provider) -> None:
    w = make_window()
    w.document_view.source.setPlainText("Hello world")
    qtbot.waitUntil(lambda: target_text(w) == "Bonjour monde")
    w.open_settings()
    dialog = w.findChild(QDialog, "settingsDialog")
    assert dialog is not None and dialog.isVisible()
    dialog.settingsSaved.emit(Settings(target_language="de", debounce_ms=40))
    dialog.close()
    assert w.selectors.language.currentData() == "de"
    qtbot.waitUntil(lambda: target_text(w) == "Hallo Welt")


def test_expand_shows_generated_text_for_that_block_only(make_window, qtbot) -> None:
    w = make_window()
    w.document_view.source.setPlainText("# Hello\n\nHello world, the cat.\n")
    qtbot.waitUntil(lambda: target_text(w) == "# Bonjour\n\nBonjour monde, the chat.\n")
    qtbot.waitUntil(lambda: len(w.document_view.sync._starts) == 3)
    cursor = w.document_view.source.textCursor()
    cursor.setPosition(len("# Hello\n\nHel"))
    w.document_view.source.setTextCursor(cursor)
    w.document_view.source.setFocus()
    w.actions_.expand.trigger()
    qtbot.waitUntil(lambda: "Generated by the model" in w.document_view.preview.toPlainText())
    qtbot.waitUntil(lambda: not w.status.activity.isVisible())
    key = w.document_view.source_blocks[1].key
    assert "Bonjour" in w.document_view.preview.expansions[key]
    assert list(w.document_view.preview.expansions) == [key]
    assert target_text(w) == "# Bonjour\n\nBonjour monde, the chat.\n"  # not in the translation
    assert w.document_view.translation_text() == "# Bonjour\n\nBonjour monde, the chat.\n"


def test_a_paragraph_shared_with_the_last_document_is_translated(
    make_window, qtbot, provider, tmp_path: Path
) -> None:
    """Opening a document while the last one's answers are in flight: a paragraph both share
    (the same block id) was answered for the last document's revision, which the new review
    drops, and the worker's translator, having it done, sent nothing more: it stayed "to come"."""
    first, second = tmp_path / "a.md", tmp_path / "b.md"
    first.write_text("# Hello\n\nThe cat.\n\nGoodbye world.\n", encoding="utf-8")
    second.write_text("# Hello\n\nA dog.\n\nGoodbye world.\n", encoding="utf-8")
    w = make_window()
    view = w.document_view
    provider.hold_answers()
    assert w.open_file(first)
    qtbot.waitUntil(lambda: bool(provider.requests), timeout=10_000)  # a.md's, held
    assert w.open_file(second)
    provider.release()
    qtbot.waitUntil(lambda: view.review_ctl.model.doc is not None and not view.pending)
    shown = view.translation_text()
    assert "Bonjour" in shown and "Au revoir monde" in shown  # the shared ones too
    assert shown == translated(second.read_text(encoding="utf-8"))  # every block of b.md
    assert view.review_ctl.model.doc.source == view.text()
