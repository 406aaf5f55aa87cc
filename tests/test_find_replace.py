"""Replace All in the target at once (fastdesk.document.find.replace_in_blocks) gives the blocks
exactly what replacing one match at a time as typed edits gave (diff_target_edit per match)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastdesk.document.find import BadPattern, Query, find_all, replace_in_blocks, replacement
from fastdesk.document.target import TargetView
from fastdesk.review.model import diff_target_edit


def view_of(blocks: list[str]) -> TargetView:
    spans, pos = [], 0
    for k, text in enumerate(blocks):
        spans.append((f"b{k}", pos, pos + len(text)))
        pos += len(text)
    return TargetView("".join(blocks), tuple(spans), frozenset())


def one_at_a_time(view: TargetView, query: Query, template: str) -> list[tuple[str, str]]:
    """The per-match path: from the last match to the first, each a typed edit of the pane
    attributed to blocks, the pane's blocks following each attribution."""
    texts = {bid: view.text[s:e] for bid, s, e in view.spans}
    order = [bid for bid, _s, _e in view.spans]
    for match in reversed(find_all(view.text, query)):
        now = view_of([texts[bid] for bid in order])  # (ids b0, b1, … as in ``view``)
        new_text = now.text[: match.start()] + replacement(match, query, template)
        new_text += now.text[match.end() :]
        for bid, text in diff_target_edit(now, new_text, at=match.start()):
            texts[bid] = text
    return [(bid, texts[bid]) for bid, s, e in view.spans if texts[bid] != view.text[s:e]]


DOCS = [
    [
        "# Bonjour monde\n\n",
        "Bonjour monde. Le monde est grand.\n\n",
        "- monde\n- Monde\n\n",
        "`monde` dans le code\n",
    ],
    ["ab\n\n", "ba\n\n", "aab\n"],
    ["Première ligne é\n\n", "deuxième ligne\n\n", "🙂 troisième ligne\n"],
]
QUERIES = [
    (Query("monde"), "univers"),
    (Query("monde", case=True, word=True), "terre"),
    (Query(r"(\w+) (\w+)", regex=True), r"\2 \1"),
    (Query("\n\n", regex=True), " "),  # matches that span two blocks
    (Query(r"b\n\nb", regex=True), "b"),  # the replacement is the match's end: shorter edit
    (Query("a"), "aa"),
    (Query("ligne"), ""),
    (Query("é"), "e"),
    (Query(r"^", regex=True), "> "),  # (empty matches are not matches)
    (Query("ligne\n\ndeux", regex=True), "ligne\n\ndeux"),  # the same text: nothing changes
]


@pytest.mark.parametrize("blocks", DOCS)
@pytest.mark.parametrize(("query", "template"), QUERIES)
def test_replace_all_at_once_is_one_match_at_a_time(blocks, query, template) -> None:
    view = view_of(blocks)
    changed, count = replace_in_blocks(view, query, template)
    assert count == len(find_all(view.text, query))
    assert changed == one_at_a_time(view, query, template)
    texts = dict((bid, view.text[s:e]) for bid, s, e in view.spans) | dict(changed)
    whole = view.text
    for m in reversed(find_all(view.text, query)):  # (non-empty matches only)
        whole = whole[: m.start()] + replacement(m, query, template) + whole[m.end() :]
    assert "".join(texts.values()) == whole


def test_counts_matches_and_leaves_untouched_blocks_out() -> None:
    view = view_of(DOCS[0])
    changed, count = replace_in_blocks(view, Query("monde", code=True), "univers")
    assert count == 6  # "Monde" too: case is not matched unless asked
    assert [bid for bid, _t in changed] == ["b0", "b1", "b2", "b3"]
    changed, count = replace_in_blocks(view, Query("monde"), "univers")
    assert count == 5  # the code span's is passed over unless asked
    assert [bid for bid, _t in changed] == ["b0", "b1", "b2"]
    changed, count = replace_in_blocks(view, Query("grand", word=True), "vaste")
    assert (changed, count) == ([("b1", "Bonjour monde. Le monde est vaste.\n\n")], 1)
    assert replace_in_blocks(view, Query("absent"), "x") == ([], 0)
    with pytest.raises(BadPattern, match="Not a valid replacement"):
        replace_in_blocks(view, Query("(monde)", regex=True), r"\2")


@settings(max_examples=150, deadline=None)
@given(
    blocks=st.lists(st.text(alphabet="ab\n é", max_size=8), min_size=1, max_size=6),
    needle=st.text(alphabet="ab\n é", min_size=1, max_size=3),
    template=st.text(alphabet="ab\n", max_size=3),
)
def test_any_document_any_literal(blocks, needle, template) -> None:
    view = view_of(blocks)
    changed, _count = replace_in_blocks(view, Query(needle), template)
    assert changed == one_at_a_time(view, Query(needle), template)
