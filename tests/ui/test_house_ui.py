"""The Style and Glossary docks: they write the project's files, and what they write is in the
next prompt (pytest-qt, offscreen)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QPushButton

from fastdesk.translate.glossary import load_glossary
from tests.ui.test_review_ui import raw, type_in_target, wait_settled
from tests.ui.test_workbench import key
from tests.ui.uifakes import WordProvider

TEXT = "# Hello\n\nHello world.\n\nThe cat sleeps.\n"


def docs_page(tmp_path: Path, glossary: str, text: str = TEXT) -> Path:
    """docs/page.md with ``text``, beside a glossary file of ``glossary``."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / ".fastdesk-glossary.toml").write_text(glossary, encoding="utf-8")
    doc = folder / "page.md"
    doc.write_text(text, encoding="utf-8")
    return doc


def opened(make_window, qtbot, tmp_path: Path):  # type: ignore[no-untyped-def]
    doc = docs_page(tmp_path, '# ours\n[translate.fr]\n"world" = "monde"\n')
    folder = doc.parent
    w = make_window()
    assert w.open_file(doc)
    qtbot.waitUntil(lambda: "chat" in w.document_view.review_ctl.target_text(), timeout=5000)
    return w, folder


def last_system(provider: WordProvider) -> str:
    """The last request's instructions: the shared first message and what it adds after."""
    return "\n\n".join(str(m["content"]) for m in provider.requests[-1].messages[:-1])


def test_the_glossary_dock_lists_adds_and_deletes_into_the_file(
    make_window, qtbot, provider: WordProvider, tmp_path: Path
) -> None:
    w, folder = opened(make_window, qtbot, tmp_path)
    assert '"world"' in last_system(provider)  # the document's glossary was sent
    key(qtbot, w, "Ctrl+Alt+G")
    dock = w.house.glossary_dock
    assert dock.isVisible() and w.findChild(type(dock), "glossaryView") is dock
    table = dock.table
    assert [(table.item(0, 0).text(), table.item(0, 1).text())] == [("world", "monde")]
    # Add to Glossary from a selection in the source
    source = w.document_view.source
    cursor = source.document().find("cat")
    source.setTextCursor(cursor)
    key(qtbot, w, "Ctrl+Shift+G")
    assert dock.source.text() == "cat"
    # nothing selected in the translation: the block's words where the term stands, selected
    assert dock.target.text() == "chat" and dock.target.selectedText() == "chat"
    menu = w.house.context_menu(source)  # right-click offers it too
    assert "actionAddToGlossary" in [a.objectName() for a in menu.actions()]
    menu.deleteLater()
    dock.target.setText("félin")
    before = len(provider.requests)
    dock.target.returnPressed.emit()
    path = folder / ".fastdesk-glossary.toml"
    assert load_glossary([path]).terms_for("fr") == {"world": "monde", "cat": "félin"}
    assert path.read_text(encoding="utf-8").startswith("# ours\n")
    qtbot.waitUntil(lambda: len(provider.requests) > before, timeout=5000)
    qtbot.waitUntil(lambda: '"cat" as "félin"' in last_system(provider), timeout=5000)
    qtbot.waitUntil(lambda: not w.house.loading, timeout=5000)  # the window takes it after
    assert table.rowCount() == 2
    # delete the selected entry
    table.selectRow([table.item(r, 0).text() for r in range(2)].index("cat"))
    dock.findChild(QPushButton, "glossaryDelete").click()
    assert load_glossary([path]).terms_for("fr") == {"world": "monde"}


def test_the_style_dock_says_what_a_change_costs_and_saving_sends_it(
    make_window, qtbot, provider: WordProvider, tmp_path: Path
) -> None:
    w, folder = opened(make_window, qtbot, tmp_path)
    key(qtbot, w, "Ctrl+Alt+S")
    dock = w.house.style_dock
    assert dock.isVisible() and "saving creates it" in dock.where.text()
    dock.editor.setPlainText("## fr\nVouvoyez le lecteur.\n")
    assert dock.impact.text() == "Saving sends 3 blocks of this document again (this language)"
    dock.editor.setPlainText("## de\nSiezen.\n")
    assert dock.impact.text() == "No block of this document changes"
    dock.editor.setPlainText("## fr\nVouvoyez le lecteur.\n")
    typed = dock.editor.document().find("le lecteur")
    typed.insertText("la lectrice")  # typed, not saved: showing the dock again keeps it
    w.house.fill()
    assert "la lectrice" in dock.editor.toPlainText()
    typed = dock.editor.document().find("la lectrice")
    typed.insertText("le lecteur")
    before = len(provider.requests)
    dock.save_button.click()
    assert (folder / ".fastdesk-style.md").read_text(encoding="utf-8") == (
        "## fr\nVouvoyez le lecteur.\n"
    )
    qtbot.waitUntil(lambda: len(provider.requests) > before, timeout=5000)
    assert "Vouvoyez le lecteur." in last_system(provider)


def test_an_edit_that_drops_a_glossary_term_is_a_problem(
    make_window, qtbot, provider: WordProvider, tmp_path: Path
) -> None:
    w, _folder = opened(make_window, qtbot, tmp_path)
    problems = w.workbench.problem_list
    assert problems.glossary is not None
    wait_settled(w, qtbot)
    raw(w)
    type_in_target(w, qtbot, "Bonjour mon", "X")  # monde → monXde
    qtbot.waitUntil(
        lambda: [problems.refresh(), any(p.check == "glossary" for p in problems.rows)][1],
        timeout=5000,
    )
    row = next(p for p in problems.rows if p.check == "glossary")
    assert "monde" in row.reason


def test_simplify_shows_the_reading_ease_before_and_after(
    make_window, qtbot, provider: WordProvider
) -> None:
    from fastdesk.config.settings import Settings

    w = make_window(settings=Settings(debounce_ms=40, mode="simplify"))
    label = w.status.readability
    w.document_view.source.setPlainText("We utilize the tools and commence the work today.\n")
    wait_settled(w, qtbot)
    assert "use the tools" in w.document_view.review_ctl.target_text()

    def scores() -> tuple[float, ...]:
        text = label.text() if label.isVisible() else ""
        return tuple(float(x) for x in text.split("ease ")[1].split(" → ")) if text else ()

    # "use" and "start" have fewer syllables than "utilize" and "commence": easier to read
    qtbot.waitUntil(lambda: len(scores()) == 2 and scores()[1] > scores()[0], timeout=5000)
    wait_settled(w, qtbot)
    # a reading level chosen in the window goes with the next requests
    before = len(provider.requests)
    dock = w.house.style_dock
    dock.level.setCurrentIndex(dock.level.findData("B1"))
    qtbot.waitUntil(lambda: len(provider.requests) > before, timeout=5000)
    assert "CEFR B1" in provider.requests[-1].messages[0]["content"]
    wait_settled(w, qtbot)
    w.set_mode("translate")  # translating: no reading ease
    qtbot.waitUntil(lambda: not label.isVisible(), timeout=5000)


def test_the_same_correction_in_three_blocks_is_offered_as_an_entry(
    make_window, qtbot, provider: WordProvider, tmp_path: Path
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    doc = folder / "page.md"
    doc.write_text("Hello world.\n\nThe world turns.\n\nA world of cats.\n", encoding="utf-8")
    w = make_window()
    assert w.open_file(doc)
    wait_settled(w, qtbot)
    ctl, view = w.document_view.review_ctl, w.document_view
    w.house.show_glossary()
    dock = w.house.glossary_dock
    assert not dock.suggestion.isVisible()
    blocks = [b for b in view.review.doc.blocks if "world" in b.text]
    for block in blocks:
        shown = view.review.shown_text(block.id)
        assert shown is not None and "monde" in shown
        ctl.take_edits(view.review_key(), [(block.id, shown.replace("monde", "terre"))])
        assert ctl.approve(block.id)
    qtbot.waitUntil(lambda: dock.suggestion.isVisible(), timeout=5000)
    assert dock.suggestion.text() == (
        'you changed "monde" to "terre" 3 times (for "world"): add to the glossary?'
    )
    dock.suggest_add.click()
    glossary = load_glossary([folder / ".fastdesk-glossary.toml"])
    assert glossary.terms_for("fr") == {"world": "terre"}
    qtbot.waitUntil(lambda: not dock.suggestion.isVisible(), timeout=5000)  # said now


def test_the_glossary_panel_imports_tbx_or_csv_and_exports_csv(
    make_window, qtbot, provider: WordProvider, tmp_path: Path
) -> None:
    w, folder = opened(make_window, qtbot, tmp_path)
    w.house.show_glossary()
    incoming = tmp_path / "from-tool.csv"
    incoming.write_text("en,fr,de\nbranch,branche,Zweig\nworld,monde,Welt\n", encoding="utf-8")
    assert w.house.import_path(incoming) == 1  # "world" was there already
    path = folder / ".fastdesk-glossary.toml"
    assert load_glossary([path]).terms_for("fr") == {"world": "monde", "branch": "branche"}
    qtbot.waitUntil(lambda: not w.house.loading, timeout=5000)  # read in the engine's thread
    assert w.house.glossary_dock.table.rowCount() == 2
    out = tmp_path / "out.csv"
    w.house.export_path(out)
    assert out.read_text(encoding="utf-8") == "en,fr\nbranch,branche\nworld,monde\n"
    bad = tmp_path / "bad.tbx"
    bad.write_text("<not-tbx/>", encoding="utf-8")
    assert w.house.import_path(bad) == 0
    assert "not a TBX file" in w.house.glossary_dock.message.text()


def test_a_file_opened_inside_a_docs_project_keeps_its_syntax_lines(
    make_window, qtbot, provider: WordProvider, tmp_path: Path
) -> None:
    root = tmp_path / "site"
    (root / ".git").mkdir(parents=True)
    (root / "mkdocs.yml").write_text("site_name: S\n", encoding="utf-8")
    (root / "docs").mkdir()
    page = root / "docs" / "index.md"
    page.write_text('# Hello\n\n--8<-- "includes/world.md"\n\nHello world.\n', encoding="utf-8")
    w = make_window()
    assert w.open_file(page)
    wait_settled(w, qtbot)
    qtbot.waitUntil(lambda: "Bonjour monde." in w.document_view.review_ctl.target_text())
    assert '--8<-- "includes/world.md"' in w.document_view.review_ctl.target_text()
    sent = [m["content"] for r in provider.requests for m in r.messages if m["role"] == "user"]
    assert sent and all("--8<--" not in text for text in sent)


def test_a_new_approval_is_an_example_for_the_next_request_at_once(
    make_window, qtbot, provider: WordProvider, tmp_path: Path
) -> None:
    w, folder = opened(make_window, qtbot, tmp_path)
    wait_settled(w, qtbot)
    view, ctl = w.document_view, w.document_view.review_ctl
    block = next(b for b in view.review.doc.blocks if "cat" in b.text)
    ctl.take_edits(view.review_key(), [(block.id, "Le félin somnole.\n")])
    assert ctl.approve(block.id)
    assert not list(folder.glob("*.fastdesk.json"))  # not saved: the approval alone teaches
    before = len(provider.requests)
    cursor = view.source.document().find("Hello world.")
    cursor.setPosition(cursor.selectionStart())
    cursor.insertText("The cat sleeps a lot.\n\n")
    qtbot.waitUntil(lambda: len(provider.requests) > before, timeout=5000)
    qtbot.waitUntil(lambda: "Le félin somnole." in last_system(provider), timeout=5000)


def test_the_reading_level_chosen_in_the_window_is_saved_and_comes_back(
    make_window, qtbot, provider: WordProvider
) -> None:
    from fastdesk.config.settings import Settings, load_settings

    w = make_window(settings=Settings(debounce_ms=40, reading_level="grade 5"))
    dock = w.house.style_dock
    assert dock.level.currentData() == "grade 5"  # not one of the listed: added
    assert w.house.level is not None and w.house.level.label == "grade 5"
    dock.level.setCurrentIndex(dock.level.findData("A2"))
    assert load_settings()[0].reading_level == "A2"
    again = make_window(settings=load_settings()[0])
    assert again.house.style_dock.level.currentData() == "A2"
    dock.level.setCurrentIndex(dock.level.findData(""))
    assert load_settings()[0].reading_level == ""


def test_a_glossary_problem_is_fixed_in_one_click_and_undone_in_one_step(
    make_window, qtbot, provider: WordProvider, tmp_path: Path
) -> None:
    from fastdesk.ui.workbench.problems import FIX, GLOSSARY_FIX_TEXT
    from tests.ui.test_problems_ui import click, shown

    text = "The cat sleeps.\n\nA cat eats.\n\nHello world.\n"
    doc = docs_page(tmp_path, '[translate.fr]\n"cat" = "félin"\n', text)
    w = make_window()
    assert w.open_file(doc)
    wait_settled(w, qtbot)
    view = w.document_view
    first = next(b.id for b in view.review.doc.blocks if "sleeps" in b.text)
    assert view.review.shown_text(first) == "The chat sleeps.\n\n"  # the model ignored it
    key(qtbot, w, "Ctrl+Shift+M")
    dock = w.workbench.problems
    qtbot.waitUntil(lambda: any(p.check == "glossary" for p in dock.rows), timeout=5000)
    row = next(n for n, p in enumerate(dock.rows) if p.block_id == first)
    assert dock.rows[row].check == "glossary" and shown(dock, row, FIX) == GLOSSARY_FIX_TEXT
    click(qtbot, dock, row, FIX)
    assert view.review.shown_text(first) == "The félin sleeps.\n\n"
    assert view.review.state_of(first) == "edited"  # the editor's own correction
    qtbot.waitUntil(lambda: all(p.block_id != first for p in dock.rows if p.kind == "flagged"))
    view.review_ctl.undo_stack.undo()  # one step takes it back
    qtbot.waitUntil(lambda: view.review.shown_text(first) == "The chat sleeps.\n\n", timeout=5000)


def test_the_house_is_read_off_the_window_thread_and_the_first_request_has_it(
    make_window, qtbot, provider: WordProvider, tmp_path: Path
) -> None:
    import threading

    from PySide6.QtCore import QTimer

    from fastdesk.project.house import house_for

    doc = docs_page(tmp_path, '[translate.fr]\n"world" = "monde"\n')
    w = make_window()
    gate, entered = threading.Event(), threading.Event()
    readers: list[int] = []
    opened: list[bool] = []

    def held(path, settings):  # type: ignore[no-untyped-def]
        readers.append(threading.get_ident())
        entered.set()
        opened.append(gate.wait(timeout=30))  # a bound, not a measure: False fails the test
        return house_for(path, settings)

    w.house.load = held
    ticks: list[int] = []
    timer = QTimer(w)
    timer.setInterval(1)
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start()
    assert w.open_file(doc)  # returns while the house is being read
    qtbot.waitUntil(entered.is_set, timeout=5000)
    ticks.clear()
    qtbot.waitUntil(lambda: len(ticks) >= 3, timeout=5000)  # the window goes on meanwhile
    assert w.house.loading and not provider.requests  # nothing sent without its house
    gate.set()
    qtbot.waitUntil(lambda: "Bonjour monde." in w.document_view.review_ctl.target_text())
    qtbot.waitUntil(lambda: not w.house.loading, timeout=5000)
    timer.stop()
    assert opened == [True] and readers != [threading.get_ident()]
    assert w.house.house.glossary is not None
    assert w.house.glossary_dock.isHidden() or w.house.glossary_dock.table.rowCount() == 1
    assert all('"world"' in r.messages[0]["content"] for r in provider.requests)


def test_a_long_reading_ease_measure_spaces_the_next(
    make_window, qtbot, provider: WordProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A measure holds the GIL the engine needs: after one that took 2 s (on the window's
    clock), the next waits READABILITY_SPACING times as long, then happens."""
    from fastdesk.config.settings import Settings
    from fastdesk.ui.workbench import house
    from tests.fakes import FakeClock

    clock = FakeClock()
    measured: list[str] = []

    def slow(source: str, target: str, lang: str | None) -> tuple[str, str]:
        measured.append(target)
        clock.now += 2.0
        return real(source, target, lang)

    real = house.readability_line
    monkeypatch.setattr(house, "readability_line", slow)
    w = make_window(settings=Settings(debounce_ms=40, mode="simplify"), clock=clock)
    source = w.document_view.source
    source.setPlainText("We utilize the tools.\n")
    wait_settled(w, qtbot)
    qtbot.waitUntil(lambda: len(measured) >= 1 and w.status.readability.isVisible(), timeout=5000)
    count = len(measured)
    source.setPlainText("We utilize the tools.\n\nWe commence the work.\n")
    wait_settled(w, qtbot)
    # the target changed: the measure is due (after its short delay), and put off until then
    qtbot.waitUntil(lambda: not w.house._readability.isActive() and w.house._spaced.isActive())
    assert len(measured) == count  # put off: 20 s of the window's clock have not passed
    clock.now += 2.0 * house.READABILITY_SPACING
    source.setPlainText("We utilize the tools.\n\nWe commence the work today.\n")
    qtbot.waitUntil(lambda: len(measured) > count, timeout=5000)
    assert "today" in measured[-1]


def test_a_long_document_is_measured_once_its_fill_is_over(
    make_window, qtbot, provider: WordProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No reading ease while a long document's answers stream in (each measure parses both
    texts, with the GIL the engine needs): one when the fill is over, of the whole target."""
    from fastdesk.config.settings import Settings
    from fastdesk.ui.workbench import house

    monkeypatch.setattr(house, "LONG_TEXT", 2_000)
    measured: list[tuple[bool, str]] = []
    real = house.readability_line
    w = make_window(settings=Settings(debounce_ms=40, mode="simplify"))

    def noted(source: str, target: str, lang: str | None) -> tuple[str, str]:
        measured.append((w.house._busy, target))
        return real(source, target, lang)

    monkeypatch.setattr(house, "readability_line", noted)
    text = "".join(f"We utilize the tools in part {i}.\n\n" for i in range(120))
    provider.hold_answers()
    w.document_view.source.setPlainText(text)
    qtbot.waitUntil(lambda: w.house._busy and len(provider.requests) >= 1)
    # busy started the measure's short delay: over, and no measure (a short one would be)
    qtbot.waitUntil(lambda: not w.house._readability.isActive())
    assert measured == []
    provider.release()
    wait_settled(w, qtbot)
    qtbot.waitUntil(lambda: w.status.readability.isVisible())
    assert measured and not any(busy for busy, _target in measured)
    assert "part 119" in measured[-1][1]


def test_export_as_csv_neutralises_a_cloned_projects_formulas(
    make_window, qtbot, provider: WordProvider, tmp_path: Path
) -> None:
    import csv
    import io

    doc = docs_page(
        tmp_path,
        '[translate.fr]\n"world" = "=HYPERLINK(\\"https://evil.example\\",\\"x\\")"\n'
        '"cat" = "+cmd|\' /C calc\'!A0"\n"sleeps" = "@SUM(A1:A9)"\n',
    )
    w = make_window()
    assert w.open_file(doc)
    qtbot.waitUntil(lambda: not w.house.loading, timeout=5000)
    out = tmp_path / "out.csv"
    w.house.export_path(out)
    rows = list(csv.reader(io.StringIO(out.read_text(encoding="utf-8"))))
    targets = {source: target for source, target in rows[1:]}
    assert targets == {
        "world": '\'=HYPERLINK("https://evil.example","x")',
        "cat": "'+cmd|' /C calc'!A0",
        "sleeps": "'@SUM(A1:A9)",
    }


def test_a_style_file_linked_out_of_the_folder_is_not_sent_from_the_window(
    make_window, qtbot, provider: WordProvider, tmp_path: Path
) -> None:
    import os

    secret = tmp_path / "home" / "id_rsa"
    secret.parent.mkdir()
    secret.write_text("## All languages\nTOP-SECRET-42\n", encoding="utf-8")
    doc = docs_page(tmp_path, '[translate.fr]\n"world" = "monde"\n')
    os.symlink(secret, doc.parent / ".fastdesk-style.md")
    w = make_window()
    said: list[str] = []  # the status bar's passing messages
    w.document_view.message.connect(lambda text, _ms: said.append(text))
    assert w.open_file(doc)
    qtbot.waitUntil(lambda: "chat" in w.document_view.review_ctl.target_text(), timeout=5000)
    assert provider.requests
    assert all("TOP-SECRET" not in str(r.messages) for r in provider.requests)
    # the editor is told, not only the log: one line naming the file, and only once
    refused = [t for t in said if t.startswith("House style not used")]
    assert len(refused) == 1 and ".fastdesk-style.md" in refused[0], said
    assert "TOP-SECRET" not in refused[0]
