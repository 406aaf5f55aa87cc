"""The editor's approved corrections: read from review files, offered as examples, and the same
word change made in several blocks proposed as a glossary entry."""

from __future__ import annotations

import asyncio
from pathlib import Path

from fastdesk.document.blocks import parse
from fastdesk.review.corrections import (
    corrections,
    propose_entries,
    review_files,
)
from fastdesk.review.model import Review, review_path, save_review
from fastdesk.routing.retry import RetryPolicy
from fastdesk.routing.router import Router
from fastdesk.translate.engine import Engine
from fastdesk.translate.events import BlockDone
from fastdesk.translate.examples import Example
from fastdesk.translate.glossary import Glossary
from fastdesk.translate.job import JobSpec
from tests.fakes import FakeProvider, instructions

SOURCE = """# Images

Pull the image from the registry.

Pull the latest changes before you start.

Always pull before you push your branch.

Run the tests.

Build the site.
"""
MACHINE = [
    "# Images",
    "Tirez l'image du registre.",
    "Tirez les dernières modifications avant de commencer.",
    "Tirez toujours avant de pousser votre branche.",
    "Lancez les tests.",
    "Construisez le site.",
]
CORRECTED = {
    1: "Extrayez l'image du registre.",
    2: "Extrayez les dernières modifications avant de commencer.",
    3: "Extrayez toujours avant de pousser votre branche.",
    4: "Exécutez les tests.",
}


def reviewed(path: Path, *, approve: bool = True, lang: str = "fr") -> Path:
    """A document whose machine answers the editor corrected (and approved, unless told)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(SOURCE, encoding="utf-8")
    doc = parse(SOURCE)
    review = Review(path, lang, doc)
    for block, answer in zip(doc.blocks, MACHINE, strict=True):
        trail = block.text[len(block.text.rstrip("\n")) :]
        review.apply_event(BlockDone(0, block.id, answer + trail, "model"))
    for i, text in CORRECTED.items():
        bid = doc.blocks[i].id
        review.edit(bid, text + "\n\n")
        if approve:
            assert review.approve(bid)
    save_review(review)
    return review_path(path)


def test_approved_edits_are_the_corrections(tmp_path: Path) -> None:
    reviewed(tmp_path / "docs" / "images.md")
    reviewed(tmp_path / "docs" / "draft.md", approve=False)  # edited only: not yet a correction
    files = review_files(tmp_path)
    assert [p.name for p in files] == ["draft.md.fastdesk.json", "images.md.fastdesk.json"]
    found = corrections(files, "fr")
    assert [(e.source, e.target) for e in found][:2] == [
        ("Pull the image from the registry.", "Extrayez l'image du registre."),
        ("Pull the latest changes before you start.", CORRECTED[2]),
    ]
    assert len(found) == 4
    assert found[0].machine == "Tirez l'image du registre."
    assert corrections(files, "de") == []


def test_a_broken_review_file_is_skipped_and_left_alone(tmp_path: Path) -> None:
    good = reviewed(tmp_path / "a.md")
    bad = tmp_path / "b.md.fastdesk.json"
    bad.write_text("{not json", encoding="utf-8")
    assert len(corrections([bad, good], "fr")) == 4
    assert bad.read_text(encoding="utf-8") == "{not json"


def test_a_correction_teaches_the_next_request(tmp_path: Path) -> None:
    from fastdesk.config.settings import Settings
    from fastdesk.project.house import house_for

    (tmp_path / ".git").mkdir()
    page = tmp_path / "guide.md"
    page.write_text(SOURCE, encoding="utf-8")
    bank = house_for(page, Settings()).examples("fr")
    assert bank is not None  # read when first used: the correction below is in it
    reviewed(page)
    fake = FakeProvider(answer=lambda r: "Extrayez le conteneur du registre avant de commencer.")
    engine = Engine(Router({fake.name: fake}, retry=RetryPolicy.none()))
    spec = JobSpec(target_lang="fr", examples=bank)
    assert len(bank) == 4
    asyncio.run(engine.run(parse("Pull the container from the registry.\n"), spec))
    system = instructions(fake.requests[0])
    assert "Extrayez l'image du registre." in system  # the most similar correction
    assert "Construisez" not in system and "Exécutez les tests" not in system


def test_the_same_change_in_three_blocks_proposes_an_entry(tmp_path: Path) -> None:
    reviewed(tmp_path / "guide.md")
    found = corrections(review_files(tmp_path), "fr")
    (proposal,) = propose_entries(found, "fr")
    assert (proposal.before, proposal.after, proposal.count) == ("Tirez", "Extrayez", 3)
    assert proposal.source_term == "Pull"
    assert proposal.message() == (
        'you changed "Tirez" to "Extrayez" 3 times (for "Pull"): add to the glossary?'
    )
    # twice is not yet a rule; and what the glossary already says is not proposed again
    assert propose_entries(found[1:], "fr") == []
    known = Glossary(translate={"fr": {"pull": "extrayez"}})
    assert propose_entries(found, "fr", glossary=known) == []


def test_the_same_block_corrected_twice_counts_once() -> None:
    same = [Example("Pull it.", "Extrayez-le.", "Tirez-le.")] * 3
    assert propose_entries(same, "fr") == []
