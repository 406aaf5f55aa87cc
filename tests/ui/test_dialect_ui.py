"""A page of a docs project opened in the window is translated as the command line translates
it: admonition and tab bodies as Markdown of their own, their opening lines kept as syntax
(pytest-qt, offscreen; the fake provider marks what it translated)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ui.test_review_ui import wait_settled
from tests.ui.uifakes import WordProvider, make_engine_factory

PAGE = """# Hello

!!! note "Hello world"
    The cat sleeps.

    Goodbye cat.

=== "Hello"
    Hello world.

Goodbye world.
"""


def mkdocs_page(root: Path) -> Path:
    (root / ".git").mkdir(parents=True)
    (root / "mkdocs.yml").write_text("site_name: S\n", encoding="utf-8")
    (root / "docs").mkdir()
    page = root / "docs" / "page.md"
    page.write_text(PAGE, encoding="utf-8")
    return page


def test_an_admonition_body_is_translated_in_the_window_as_on_the_command_line(
    make_window, qtbot, provider: WordProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fastdesk.cli import common
    from fastdesk.cli.main import run

    page = mkdocs_page(tmp_path / "site")
    out = tmp_path / "page.fr.md"
    monkeypatch.setattr(common, "build_engine", lambda *a, **k: make_engine_factory(provider)())
    assert run(["translate", str(page), "--to", "fr", "--no-memory", "-o", str(out)]) == 0
    written = out.read_text(encoding="utf-8")
    assert '!!! note "Bonjour monde"\n    The chat sleeps.\n\n    Au revoir chat.\n' in written
    assert '=== "Bonjour"\n    Bonjour monde.\n' in written
    provider.requests.clear()

    w = make_window()
    assert w.open_file(page)
    wait_settled(w, qtbot)
    ctl = w.document_view.review_ctl
    qtbot.waitUntil(lambda: ctl.target_text() == written, timeout=10_000)
    # the opening lines are syntax: never sent, only the titles and bodies
    sent = [m["content"] for r in provider.requests for m in r.messages if m["role"] == "user"]
    assert sent and all("!!!" not in text and "===" not in text for text in sent)
    assert any("The cat sleeps." in text for text in sent)
    # the bodies are the review's translatable blocks, shown as translated, not as copies
    review = w.document_view.review
    body = next(b for b in review.doc.blocks if "The cat sleeps." in b.text)
    assert body.translatable and review.state_of(body.id) not in ("copy", None)
