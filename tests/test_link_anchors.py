"""One model of a page's anchors in the source and in the translation, for every generator.

fastdesk.project.anchors computes, from a page's source and its review, the anchors its
translation moves (MkDocs' headings and tabs, Hugo's definition terms); fastdesk.project.sync
gathers them per language and rewrites every target's links with them in one pass. Hugo's
terms come from the reviews as MkDocs' headings do, not from the targets on disk: a run writes
each target once, with its links right, and a page written alone (the window's Save, `fastdesk
export`) follows a term whose page is translated but not yet written.
"""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path, PurePosixPath

import pytest

import fastdesk.project.sync as sync
from fastdesk.cli.main import run
from fastdesk.project.anchors import anchor_model
from fastdesk.project.layout import find_project
from fastdesk.project.record import WrittenRecord
from fastdesk.project.sync import open_pair, write_target
from tests.emulator import Emulator
from tests.project_kit import write

HUGO = Path(__file__).parent / "data/sites/hugo"


def test_a_hugo_run_writes_each_target_once_with_its_links_to_terms_right(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, translating: Emulator
) -> None:
    root = tmp_path / "site"
    shutil.copytree(HUGO, root)
    written: Counter[str] = Counter()
    real = sync.atomic_write_text  # type: ignore[attr-defined]  # (the one writer of targets)

    def counted(path: Path, text: str) -> None:
        written[Path(path).relative_to(root).as_posix()] += 1
        real(path, text)

    monkeypatch.setattr(sync, "atomic_write_text", counted)
    assert run(["translate", str(root), "--to", "fr"]) == 0
    assert written["content/fr/guide/setup.md"] == 1 and set(written.values()) == {1}
    project = find_project(root, ("fr",))
    terms = PurePosixPath("content/en/guide/terms.md")
    pair = open_pair(project, terms, "fr", WrittenRecord(root))
    model = anchor_model(project)
    assert model is not None
    moved = model(pair.doc, pair.review.shown_text)
    assert "section-page" in moved  # the term was translated: its id moved
    setup = (root / "content/fr/guide/setup.md").read_text(encoding="utf-8")
    assert f"(../terms/#{moved['section-page']})" in setup
    assert f'"/guide/terms.md#{moved["section-page"]}"' in setup


def test_a_page_saved_alone_follows_a_term_whose_page_is_not_written_yet(
    tmp_path: Path, translating: Emulator
) -> None:
    """The window's Save writes one page: the term it links to is in the other page's review
    (translated in the window), its target not written yet."""
    root = tmp_path / "site"
    shutil.copytree(HUGO, root)
    assert run(["translate", str(root), "--to", "fr"]) == 0
    setup_fr = root / "content/fr/guide/setup.md"
    (root / "content/fr/guide/terms.md").unlink()
    setup_fr.unlink()
    project = find_project(root, ("fr",))
    pair = write_target(project, PurePosixPath("content/en/guide/setup.md"), "fr")
    assert not pair.conflict and not pair.missing()
    text = setup_fr.read_text(encoding="utf-8")
    assert "(../terms/#section-page)" not in text and "terms/#" in text


def test_no_model_where_the_generator_keeps_every_anchor(tmp_path: Path) -> None:
    """A Hugo site that gives its terms no ids keeps every heading's anchor as an explicit id
    (and Docusaurus too): nothing moves, no link is rewritten, no page is written again."""
    root = tmp_path / "site"
    shutil.copytree(HUGO, root)
    config = root / "hugo.toml"
    config.write_text(
        config.read_text(encoding="utf-8").replace("autoDefinitionTermID = true", ""),
        encoding="utf-8",
    )
    assert anchor_model(find_project(root, ("fr",))) is None
    assert anchor_model(find_project(HUGO, ("fr",))) is not None
    write(root / "docs/docusaurus.config.js", "module.exports = {};\n")
    write(root / "docs/docs/intro.md", "# Intro\n")
    assert anchor_model(find_project(root / "docs", ("fr",))) is None
