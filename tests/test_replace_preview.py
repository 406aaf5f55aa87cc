"""Replace All's preview and preserve case (fastdesk.document.find): each change shown with
its words around it, a chosen subset replaced, the match's case kept, a count in words."""

from __future__ import annotations

import pytest

from fastdesk.document.find import (
    BadPattern,
    Query,
    find_all,
    plan,
    replace_in_blocks,
    summary,
    with_case_of,
)
from tests.test_find_replace import view_of


@pytest.mark.parametrize(
    ("found", "text", "expected"),
    [
        ("pull request", "demande de fusion", "demande de fusion"),
        ("Pull request", "demande de fusion", "Demande de fusion"),
        ("PULL REQUEST", "demande de fusion", "DEMANDE DE FUSION"),
        ("pull request", "Demande de Fusion", "demande de fusion"),  # all lower: lower
        ("pUll", "demande", "demande"),  # no pattern: as written
        ("A", "bc", "Bc"),  # one capital letter is Capitalised, not UPPER
        ("123", "abc", "abc"),  # no letters: as written
        ("Élan", "été", "Été"),
        ("Pull", "« demande »", "« Demande »"),  # the first letter, after punctuation
    ],
)
def test_with_case_of(found: str, text: str, expected: str) -> None:
    assert with_case_of(found, text) == expected


def test_preserve_case_on_the_issue_s_heading() -> None:
    text = "# Pull requests\n\nOpen a pull request. PULL REQUEST rules.\n"
    loose = Query("pull request")
    kept = Query("pull request", preserve_case=True)
    word = Query("pull request", word=True, preserve_case=True)
    new = [c.new for c in plan(text, loose, "demande de fusion")]
    assert new == ["demande de fusion"] * 3  # as before: the case is lost
    assert [c.new for c in plan(text, kept, "demande de fusion")] == [
        "Demande de fusion",
        "demande de fusion",
        "DEMANDE DE FUSION",
    ]
    # whole words: "Pull requests" is not "pull request"
    assert [c.old for c in plan(text, word, "demande de fusion")] == [
        "pull request",
        "PULL REQUEST",
    ]


def test_plan_names_each_change_in_its_line_and_block() -> None:
    view = view_of(["# Bonjour monde\n\n", "Le monde est grand, le monde aussi.\n"])
    changes = plan(view.text, Query("monde"), "univers", view)
    assert [(c.block, c.old, c.new) for c in changes] == [
        ("b0", "monde", "univers"),
        ("b1", "monde", "univers"),
        ("b1", "monde", "univers"),
    ]
    first, second = changes[0], changes[1]
    assert (first.before, first.after) == ("# Bonjour ", "")  # the line only
    assert (second.before, second.after) == ("Le ", " est grand, le monde aussi.")
    assert view.text[second.start : second.end] == "monde"
    assert plan(view.text, Query("absent"), "x", view) == []
    with pytest.raises(BadPattern):
        plan(view.text, Query("(monde)", regex=True), r"\2", view)


def test_long_lines_are_cut_around_the_match() -> None:
    text = "x" * 100 + "monde" + "y" * 100
    (change,) = plan(text, Query("monde"), "u")
    assert change.before == "x" * 30 and change.after == "y" * 30


def test_only_the_accepted_matches_are_replaced() -> None:
    view = view_of(["# monde\n\n", "monde et monde\n\n", "fin monde\n"])
    assert len(find_all(view.text, Query("monde"))) == 4
    changed, count = replace_in_blocks(view, Query("monde"), "terre", only={1, 3})
    assert count == 2
    assert changed == [("b1", "terre et monde\n\n"), ("b2", "fin terre\n")]
    changed, count = replace_in_blocks(view, Query("monde"), "terre", only=set())
    assert (changed, count) == ([], 0)
    everything, count = replace_in_blocks(view, Query("monde"), "terre", only=None)
    assert count == 4 and len(everything) == 3


def test_summary() -> None:
    assert summary(12, 9) == "Replaced 12 in 9 blocks"
    assert summary(1, 1) == "Replaced 1 in 1 block"
    assert summary(3) == "Replaced 3"
    assert summary(0, 0) == "Nothing replaced"
    assert summary(2, 2, "line") == "Replaced 2 in 2 lines"
