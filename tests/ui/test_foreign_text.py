"""Text we did not write reaches the window as text: a reviewer's explanation, a server's
error, a model id, a file name, a project's strings and headings, each carrying HTML, an image
of a private file, an image of /dev/zero (read until the process dies) or an smb: link, shows
as the characters it holds in the window's labels, tooltips and message boxes, and nothing is
handed to the desktop (pytest-qt, offscreen; the real window on the fake provider)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, Qt, QUrl
from PySide6.QtGui import QDesktopServices, QHelpEvent, QTextDocument
from PySide6.QtGui import Qt as GuiQt
from PySide6.QtWidgets import QApplication, QDockWidget, QLabel, QMessageBox, QTreeWidget

from fastdesk.config.settings import Settings
from fastdesk.providers.base import BadRequestError, RequestStats
from fastdesk.ui.panes import underlines as underlines_module
from tests.ui.test_review_ui import raw, target_text, wait_settled
from tests.ui.uifakes import fake_answer

PAYLOADS = [
    "<b>bold</b> and <i>italic</i>",
    '<img src="file:///home/me/photo.png">',
    '<img src="file:///dev/zero">',
    "<a href=smb://host/share/x.exe>renew your key</a>",
]
IDS = ["html", "file-image", "dev-zero", "smb-link"]


def shown(text: str) -> str:
    """What Qt puts on screen for a tooltip or an auto-format label holding ``text``: rich
    text when ``Qt.mightBeRichText`` says so (Qt's own test), else the characters."""
    doc = QTextDocument()
    if GuiQt.mightBeRichText(text):
        doc.setHtml(text)
    else:
        doc.setPlainText(text)
    return doc.toPlainText()


def as_text(label: QLabel, payload: str) -> None:
    """``label`` shows ``payload`` as its characters, and opens no link."""
    if label.textFormat() != Qt.TextFormat.PlainText:
        assert label.textFormat() != Qt.TextFormat.AutoText or not GuiQt.mightBeRichText(
            label.text()
        ), label.text()
        assert payload in shown(label.text())
    assert payload in label.text() or payload in shown(label.text())
    assert not label.openExternalLinks() or label.textFormat() == Qt.TextFormat.PlainText


@pytest.fixture
def opened_urls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    urls: list[str] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: urls.append(url.toString()))
    return urls


class _Tips:
    """Stands in for QToolTip where a widget shows its own tooltips: what it was asked."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def showText(self, _pos: Any, text: str, *_a: Any) -> None:
        self.texts.append(text)

    def hideText(self) -> None:
        pass


@pytest.mark.parametrize("payload", PAYLOADS, ids=IDS)
def test_a_reviewers_explanation_is_text_in_the_underline_and_margin_tooltips(
    make_window, qtbot, provider, monkeypatch: pytest.MonkeyPatch, payload: str
) -> None:
    def answer(request) -> str:  # type: ignore[no-untyped-def]
        system = request.messages[0]["content"]
        user = request.messages[-1]["content"]
        if "translation reviewer" in system:
            error = {
                "span": "Bonjour",
                "category": "accuracy/mistranslation",
                "severity": "minor",
                "explanation": payload,
            }
            return json.dumps({"errors": [error] if "Bonjour" in user else []})
        return fake_answer(request)

    provider.answer = answer
    tips = _Tips()
    monkeypatch.setattr(underlines_module, "QToolTip", tips)
    w = make_window(settings=Settings(debounce_ms=40, review="on"))
    raw(w)
    w.document_view.source.setPlainText("Hello world.\n")
    qtbot.waitUntil(lambda: "Bonjour" in target_text(w))
    wait_settled(w, qtbot)
    underlines = w.document_view.underlines
    qtbot.waitUntil(lambda: len(underlines.marks) == 1, timeout=5000)
    ((cursor, _line),) = underlines.marks
    editor = w.document_view.target_editor
    probe = editor.textCursor()
    probe.setPosition(cursor.selectionStart() + 1)
    at = editor.cursorRect(probe).center()
    event = QHelpEvent(QEvent.Type.ToolTip, at, editor.viewport().mapToGlobal(at))
    QApplication.sendEvent(editor.viewport(), event)  # a hover: the underlines' filter answers
    assert tips.texts, "no tooltip shown"
    assert payload in shown(tips.texts[-1])
    block_id = w.document_view.review_ctl.model.doc.blocks[0].id
    assert payload in shown(w.document_view.review_ctl.tooltip_of(block_id))
    dock = w.findChild(QDockWidget, "problemsView")
    dock.show()  # the problems list: the verdict's row and its tooltip
    qtbot.waitUntil(lambda: any(p.kind == "accuracy" for p in dock.rows), timeout=5000)
    model = dock.model
    row = next(i for i, p in enumerate(model.rows) if p.kind == "accuracy")
    tooltip = model.data(model.index(row, 0), Qt.ItemDataRole.ToolTipRole)
    assert isinstance(tooltip, str) and payload in shown(tooltip)


@pytest.mark.parametrize("payload", PAYLOADS, ids=IDS)
def test_a_servers_error_is_text_in_the_status_bar_and_the_problem_box(
    make_window, qtbot, provider, opened_urls: list[str], payload: str
) -> None:
    message = f"{payload} " + "and the server says more " * 8
    provider.fail_with = BadRequestError("groq", message, status=400)
    w = make_window()
    w.document_view.source.setPlainText("Hello world\n")
    qtbot.waitUntil(lambda: w.status.error_button.isVisible(), timeout=5000)
    assert payload in shown(w.status.error_button.toolTip())  # cut: the whole on hover
    w.status.show_error_details()
    box = w.findChild(QMessageBox, "errorDetails")
    assert box is not None
    assert box.textFormat() == Qt.TextFormat.PlainText
    assert payload in box.text()
    for label in box.findChildren(QLabel):
        assert label.textFormat() == Qt.TextFormat.PlainText
        assert not label.openExternalLinks()
        label.linkActivated.emit("smb://host/share/x.exe")  # a link, were there one
    assert opened_urls == []
    box.close()


@pytest.mark.parametrize("payload", PAYLOADS, ids=IDS)
def test_a_model_id_and_a_status_message_are_text(
    make_window, qtbot, provider, payload: str
) -> None:
    w = make_window()
    stats = RequestStats(provider="groq", model=payload, status="ok", ttfb_ms=10, total_ms=20)
    w.status.request_done(stats)
    as_text(w.status.latency, payload)
    w.status.latency.resize(40, w.status.latency.height())  # cut: the whole in the tooltip
    assert payload in shown(w.status.latency.toolTip())
    bar = w.statusBar()
    bar.showMessage(f"{payload} " * 30)
    qtbot.waitUntil(lambda: bool(bar.toolTip()), timeout=5000)
    assert payload in shown(bar.toolTip())


def test_a_file_name_is_text_in_the_title_and_the_warning_box(
    make_window, qtbot, tmp_path: Path, opened_urls: list[str]
) -> None:
    name = '<img src="photo.png"><a href=smb:x>y<.md'
    good = tmp_path / name
    good.write_text("# Hello\n\nHello world.\n", encoding="utf-8")
    w = make_window()
    assert w.open_file(good)
    as_text(w.document_view.source_title, name)
    bad = tmp_path / ("<b>bad</b>.md".replace("/", ""))
    bad.write_bytes(b"\xff\xfe not UTF-8")
    assert not w.open_file(bad)
    box = w.findChild(QMessageBox, "warningBox")
    assert box is not None and box.textFormat() == Qt.TextFormat.PlainText
    assert bad.name in box.text()
    assert opened_urls == []


@pytest.mark.parametrize("payload", PAYLOADS, ids=IDS)
def test_a_projects_strings_are_text_in_the_outline_and_the_project_panel(
    make_window, qtbot, tmp_path: Path, payload: str
) -> None:
    site = tmp_path / "site"
    (site / "en").mkdir(parents=True)
    (site / "fr").mkdir()
    (site / "en" / "index.md").write_text(f"# {payload}\n\nHello world.\n", encoding="utf-8")
    (site / ".fastdesk.toml").write_text(
        f'languages = ["fr"]\nlayout = {json.dumps(payload)}\n'
        '[[roots]]\nsource = "en"\ntarget = "{lang}/{path}"\n',
        encoding="utf-8",
    )
    w = make_window()
    assert w.open_project(site)
    summary = w.findChild(QLabel, "projectSummary")
    assert summary is not None
    qtbot.waitUntil(lambda: bool(summary.text()), timeout=5000)
    assert payload in shown(summary.text())
    assert w.open_file(site / "en" / "index.md")
    dock = w.findChild(QDockWidget, "outlineView")
    dock.show()  # the outline fills while on show
    tree = dock.findChild(QTreeWidget)
    qtbot.waitUntil(lambda: tree.topLevelItemCount() == 1, timeout=5000)
    assert payload in shown(tree.topLevelItem(0).toolTip(0))


def test_nothing_but_web_pages_and_mail_opens_from_a_rendered_link(
    make_window, qtbot, opened_urls: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The one path links take (fastdesk.ui.panes.links), with its "not opened" tooltip."""
    from fastdesk.ui.panes import links

    tips = _Tips()
    w = make_window()
    with monkeypatch.context() as patch:
        patch.setattr("fastdesk.ui.panes.links.QToolTip", tips)
        links.clicked(w.document_view.preview, QUrl("smb://host/share/<b>x</b>.exe"))
        links.clicked(w.document_view.preview, QUrl("file:///dev/zero"))
    assert opened_urls == []
    assert all("Not opened" in shown(t) for t in tips.texts) and len(tips.texts) == 2
    links.clicked(w.document_view.preview, QUrl("https://example.org/"))
    assert opened_urls == ["https://example.org/"]
