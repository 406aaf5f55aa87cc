"""Consistency across a document and a project (fastdesk.translate.consistency): one source
translated several ways, several sources given one translation, one translation used
everywhere, and glossary terms that drift between pages."""

from __future__ import annotations

import pytest

from fastdesk.translate.consistency import (
    ONE_TRANSLATION,
    SEVERAL_TRANSLATIONS,
    Place,
    Tracker,
    Unit,
    glossary_drift,
    inconsistencies,
    use_everywhere,
)
from fastdesk.translate.glossary import Glossary

SAVE = "Save your work before you close the window."
SAVE_A = "Speichern Sie Ihre Arbeit, bevor Sie das Fenster schließen."
SAVE_B = "Sichern Sie Ihre Arbeit, bevor Sie das Fenster schließen."
KEEP = "Keep your work before you close the window."


def unit(doc: str, block: int, source: str, translation: str, lang: str = "de") -> Unit:
    return Unit(doc, block, 2 * block + 1, source, translation, lang)


def test_one_source_translated_two_ways_across_pages() -> None:
    units = [
        unit("a.md", 0, SAVE, SAVE_A),
        unit("a.md", 4, "Other text here.", "Anderer Text hier."),
        unit("b.md", 2, SAVE.replace(" ", "  "), SAVE_B),  # whitespace is no difference
        unit("c.md", 1, SAVE, SAVE_A),
    ]
    [found] = inconsistencies(units)
    assert found.kind == SEVERAL_TRANSLATIONS and found.shared == SAVE
    assert [(v.text, [p.document for p in v.places]) for v in found.variants] == [
        (SAVE_A, ["a.md", "c.md"]),
        (SAVE_B, ["b.md"]),
    ]
    assert found.detail() == "this source is translated 2 ways in 3 documents"
    assert found.as_dict()["translations"] == [
        {"text": SAVE_A, "places": [{"document": "a.md", "block": 0, "line": 1},
                                    {"document": "c.md", "block": 1, "line": 3}]},
        {"text": SAVE_B, "places": [{"document": "b.md", "block": 2, "line": 5}]},
    ]  # fmt: skip


def test_two_sources_given_one_translation() -> None:
    units = [unit("a.md", 0, SAVE, SAVE_A), unit("a.md", 3, KEEP, SAVE_A)]
    [found] = inconsistencies(units)
    assert found.kind == ONE_TRANSLATION and found.shared == SAVE_A
    assert [v.text for v in found.variants] == [SAVE, KEEP]
    assert found.detail() == "2 different sources have this one translation (this document)"


@pytest.mark.parametrize(
    "units",
    [
        # each language is its own
        [unit("a.md", 0, SAVE, SAVE_A, "de"), unit("a.md", 0, SAVE, "Enregistrez.", "fr")],
        # a block kept as it is (code, a name) has nothing to compare
        [unit("a.md", 0, "`make`", "`make`"), unit("a.md", 1, "`make`", "`make`")],
        # one-word sources may share a translation
        [unit("a.md", 0, "OK", "In Ordnung"), unit("a.md", 1, "Okay", "In Ordnung")],
        # the same source the same way
        [unit("a.md", 0, SAVE, SAVE_A), unit("b.md", 0, SAVE, SAVE_A)],
    ],
)
def test_what_is_no_inconsistency(units: list[Unit]) -> None:
    assert inconsistencies(units) == []


def test_use_everywhere_edits_only_the_other_places() -> None:
    units = [
        unit("a.md", 0, SAVE, SAVE_A),
        unit("b.md", 2, SAVE, SAVE_B),
        unit("c.md", 1, SAVE, SAVE_B),
    ]
    [found] = inconsistencies(units)
    assert use_everywhere(found, SAVE_A) == [
        (Place("b.md", 2, 5), SAVE_A),
        (Place("c.md", 1, 3), SAVE_A),
    ]
    with pytest.raises(ValueError, match="not one of"):
        use_everywhere(found, "Something else.")


def test_glossary_drift_per_page_and_language() -> None:
    glossary = Glossary(keep=("fastdesk",), translate={"de": {"workspace": "Arbeitsbereich"}})
    units = [
        unit("a.md", 0, "Open the workspace in fastdesk.", "Arbeitsbereich in fastdesk öffnen."),
        unit("b.md", 0, "The workspace is saved.", "Der Workspace wird gespeichert."),
        unit("b.md", 1, "Close the workspace now.", "Schließen Sie jetzt den Workspace."),
        unit("b.md", 2, "Nothing to see.", "Nichts zu sehen."),
    ]  # fmt: skip
    uses = {u.term: u for u in glossary_drift(units, glossary)}
    assert set(uses) == {"fastdesk", "workspace"}
    assert not uses["fastdesk"].drifts
    drift = uses["workspace"]
    assert drift.drifts and drift.expected == "Arbeitsbereich"
    assert drift.pages() == {"a.md": {"Arbeitsbereich": 1}, "b.md": {"Workspace": 2}}
    assert drift.as_dict()["drifts"] is True


def test_a_term_whose_rendering_is_not_found_drifts() -> None:
    glossary = Glossary(translate={"de": {"workspace": "Arbeitsbereich"}})
    [use] = glossary_drift([unit("a.md", 0, "The workspace.", "Der Ort.")], glossary)
    assert use.drifts
    assert "Arbeitsbereich" not in {text for text, _p in use.renderings}


def test_the_tracker_follows_block_by_block() -> None:
    tracker = Tracker()
    tracker.put("a", SAVE, SAVE_A)
    tracker.put("b", SAVE, SAVE_A)
    assert tracker.odd() == set()
    tracker.put("b", SAVE, SAVE_B)  # b's translation changed
    assert tracker.odd() == {"a", "b"}
    tracker.put("c", KEEP, SAVE_A)  # another source given a's translation
    assert tracker.odd() == {"a", "b", "c"}
    tracker.drop("c")
    tracker.put("b", SAVE, None)  # b has no translation any more
    assert tracker.odd() == set()
