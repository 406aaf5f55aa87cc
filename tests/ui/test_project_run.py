"""Translate Project in the window: every page of the project in each language, written as
`fastdesk translate DIR` writes them, with progress and a Stop (pytest-qt, offscreen; the real
engine on a fake provider)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QProgressDialog, QPushButton

from tests.project_kit import write
from tests.ui.test_project_panel import opened, settle, site  # noqa: F401 - the fixture


def test_translate_project_writes_every_page_in_every_language(
    make_window,
    qtbot,
    site: Path,  # noqa: F811
) -> None:
    window = opened(make_window, qtbot, site, page=None)
    action = window.findChild(QAction, "actionTranslateProject")
    translate_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Translate")
    assert action in translate_menu.actions()
    with qtbot.waitSignal(window.project_run.finished, timeout=20_000) as signal:
        action.trigger()
        progress = window.findChild(QProgressDialog, "projectRunProgress")
        assert progress is not None and progress.isVisible()
    assert signal.args == ["Project translated: 4 of 4 pages written"]
    assert window.findChild(QProgressDialog, "projectRunProgress") is None or not (
        window.findChild(QProgressDialog, "projectRunProgress").isVisible()
    )
    for name in ("guide", "index"):
        for lang in ("fr", "de"):
            target = site / f"docs/{name}.{lang}.md"
            assert target.is_file(), target
    assert "Bonjour monde" in (site / "docs/guide.fr.md").read_text(encoding="utf-8")
    assert "Project translated" in window.statusBar().currentMessage()
    settle(qtbot, window)
    qtbot.waitUntil(lambda: "✓" in window.project.dock.rows[_p("docs/guide.md")].text(1))


def test_stop_ends_the_run_and_keeps_nothing_half_written(
    make_window,
    qtbot,
    site: Path,  # noqa: F811
    provider,
) -> None:
    window = opened(make_window, qtbot, site, page=None)
    qtbot.waitUntil(lambda: not window.document_view.pending, timeout=10_000)
    provider.hold_answers()  # the run waits on the provider
    assert window.project_run.start(window.project.project)
    progress = window.project_run.progress
    assert progress is not None and progress.isVisible()
    qtbot.waitUntil(lambda: bool(provider.requests), timeout=10_000)
    stop = progress.findChild(QPushButton)
    assert stop is not None and stop.text() == "&Stop"
    with qtbot.waitSignal(window.project_run.finished) as signal:
        stop.click()
    assert signal.args[0].startswith("Stopped:")
    assert not window.project_run.running and window.project_run.progress is None
    provider.release()
    assert not [p for p in (site / "docs").glob("*.md") if p.stem.count(".")]  # none written


def _p(text: str):  # type: ignore[no-untyped-def]
    from pathlib import PurePosixPath

    return PurePosixPath(text)


MKDOCS_TABS = """\
site_name: t
nav:
  - Hello: index.md
  - Goodbye world: guide.md
plugins:
  - i18n:
      languages:
        - locale: en
          default: true
        - locale: fr
markdown_extensions:
  - pymdownx.tabbed:
      alternate_style: true
      slugify: !!python/object/apply:pymdownx.slugs.slugify {kwds: {case: lower}}
"""


def test_translate_project_points_links_at_moved_tabs_and_translates_the_nav(
    make_window, qtbot, tmp_path: Path
) -> None:
    """The window's run writes what the command line writes: links into a content tab whose
    title was translated follow its new id (from another page too), nav titles translated."""
    root = tmp_path / "site"
    write(root / "mkdocs.yml", MKDOCS_TABS)
    write(root / "docs/index.md", '# Start\n\n=== "Hello"\n\n    Goodbye cat.\n')
    write(root / "docs/guide.md", "# Guide\n\nSee [the tab](index.md#hello).\n")
    window = opened(make_window, qtbot, root, page=None)
    with qtbot.waitSignal(window.project_run.finished, timeout=20_000) as signal:
        window.project_run.start(window.project.project)
    assert signal.args == ["Project translated: 2 of 2 pages written"]
    guide = (root / "docs/guide.fr.md").read_text(encoding="utf-8")
    assert "[the tab](index.md#bonjour)" in guide
    config = (root / "mkdocs.yml").read_text(encoding="utf-8")
    assert config == MKDOCS_TABS.replace(
        "        - locale: fr\n",
        '        - locale: fr\n          nav_translations:\n            "Hello": "Bonjour"\n'
        '            "Goodbye world": "Au revoir monde"\n',
    )


def test_translate_project_with_no_stale_page_translates_the_labels_lacking(
    make_window, qtbot, tmp_path: Path
) -> None:
    """As `fastdesk translate DIR` does: every page up to date, the nav titles a language
    lacks (a project translated before they were) are translated all the same."""
    root = tmp_path / "site"
    write(root / "mkdocs.yml", MKDOCS_TABS)
    write(root / "docs/index.md", "# Start\n\nGoodbye cat.\n")
    write(root / "docs/guide.md", "# Guide\n\nHello world.\n")
    window = opened(make_window, qtbot, root, page=None)
    with qtbot.waitSignal(window.project_run.finished, timeout=20_000):
        window.project_run.start(window.project.project)
    translated = (root / "mkdocs.yml").read_text(encoding="utf-8")
    assert '"Hello": "Bonjour"' in translated
    write(root / "mkdocs.yml", MKDOCS_TABS)  # the titles' translations gone, no page stale
    with qtbot.waitSignal(window.project_run.finished, timeout=20_000) as signal:
        window.project_run.start(window.project.project)
    assert signal.args == ["Project translated: 2 of 2 pages written"]
    assert (root / "mkdocs.yml").read_text(encoding="utf-8") == translated
