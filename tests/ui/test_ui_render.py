"""The Qt-free half of the target panes: segments and their diff."""

from __future__ import annotations

import random

from fastdesk.ui.panes import render
from fastdesk.ui.panes.render import Segment, diff, same_texts, segment


def segs(*texts: str) -> list[Segment]:
    return [segment(f"id{i}-{t}", t) for i, t in enumerate(texts)]


def apply(old: list[Segment], new: list[Segment]) -> list[Segment]:
    out = list(old)
    for i1, i2, j1, j2 in reversed(diff(old, new)):
        out[i1:i2] = new[j1:j2]
    return out


def test_utf16_lengths_count_emoji_twice() -> None:
    assert segment("x", "a😀b").qlen == 4
    assert segment("x", "é").qlen == 1


def test_streaming_changes_are_per_block() -> None:
    old = segs("# T\n\n", "Bon", "C\n")
    new = segs("# T\n\n", "Bonjour", "C\n")
    assert diff(old, new) == [(1, 2, 1, 2)]


def test_insertion_is_one_small_edit_not_a_rewrite() -> None:
    old = segs(*[f"p{i}\n\n" for i in range(50)])
    new = [*old[:10], segment("new", "inserted\n\n"), *old[10:]]
    ops = diff(old, new)
    assert ops == [(10, 10, 10, 11)]


def test_unchanged_text_with_a_new_id_needs_no_edit() -> None:
    old = [segment("a", "Bonjour\n")]
    new = [segment("a2", "Bonjour\n")]  # edited source, previous translation kept on screen
    assert diff(old, new) == []


def test_random_edits_converge() -> None:
    rng = random.Random(7)
    words = ["a\n", "b\n", "c\n", "dd\n", "e\n\n", ""]
    for _ in range(300):
        old = [segment("k", rng.choice(words)) for _ in range(rng.randint(0, 8))]
        new = [segment("k", rng.choice(words)) for _ in range(rng.randint(0, 8))]
        assert [s.text for s in apply(old, new)] == [s.text for s in new]


def plain_diff(old: list[Segment], new: list[Segment]) -> list[tuple[int, int, int, int]]:
    """diff's first steps written as plain loops: the common ends, then the middle pairwise
    (or, for keys that start the other's, pairwise plus one insertion or removal)."""
    n, m = len(old), len(new)
    p = 0
    while p < n and p < m and old[p].text == new[p].text:
        p += 1
    s = 0
    while s < n - p and s < m - p and old[n - 1 - s].text == new[m - 1 - s].text:
        s += 1
    common = min(n - s - p, m - s - p)
    pairs = [(p + k, p + k + 1, p + k, p + k + 1) for k in range(common)]
    pairs = [op for op in pairs if old[op[0]].text != new[op[2]].text]
    if n - s - p == m - s - p:
        return pairs
    if all(old[p + k].key == new[p + k].key for k in range(common)):
        return [*pairs, (p + common, n - s, p + common, m - s)]
    return diff(old, new)  # difflib's alignment: the same code either way


def test_the_diff_scans_agree_with_plain_loops() -> None:
    rng = random.Random(11)
    words = ["a\n", "b\n", "c\n", "dd\n", "e\n\n"]
    for _ in range(2000):
        old = [segment(rng.choice("kl"), rng.choice(words)) for _ in range(rng.randint(0, 9))]
        new = [segment(rng.choice("kl"), rng.choice(words)) for _ in range(rng.randint(0, 9))]
        # some of them the very objects shown (as segments_of hands unchanged blocks on)
        new = [old[i] if i < len(old) and rng.random() < 0.5 else x for i, x in enumerate(new)]
        assert diff(old, new) == plain_diff(old, new), (old, new)
        assert same_texts(old, new) == ([x.text for x in old] == [x.text for x in new])


def test_stylesheet_fills_palette_colours() -> None:
    light, dark = render.stylesheet(False), render.stylesheet(True)
    assert "var(" not in light and "var(" not in dark
    assert light != dark


def test_block_html_is_cached_markdown() -> None:
    assert "<h2>" in render.block_html("## Title\n")
    assert render.block_html("| a |\n|---|\n| 1 |\n").count("<td>") == 1


def test_a_fill_that_streams_as_it_grows_is_per_block_edits_and_one_insertion() -> None:
    full = [segment(f"b{i}", f"Paragraph {i}.\n\n") for i in range(500)]
    shown = [*full[:200]]
    shown[80] = segment("b80", "Paragr")  # still streaming when it was shown
    shown[150] = segment("b150", "Para")
    ops = diff(shown, full)
    assert ops == [(80, 81, 80, 81), (150, 151, 150, 151), (200, 200, 200, 500)]
    assert [s.text for s in apply(shown, full)] == [s.text for s in full]
    # and the other way round: blocks gone from the end, one still changing
    fewer = [*full[:300]]
    fewer[10] = segment("b10", "Shorter.\n\n")
    assert diff(full, fewer) == [(10, 11, 10, 11), (300, 500, 300, 300)]


def test_same_texts_is_an_empty_diff() -> None:
    rng = random.Random(11)
    words = ["a\n", "b\n", "c\n"]
    for _ in range(200):
        old = [segment(f"k{i}", rng.choice(words)) for i in range(rng.randint(0, 4))]
        new = [segment(f"j{i}", rng.choice(words)) for i in range(rng.randint(0, 4))]
        assert same_texts(old, new) == (diff(old, new) == [])


def test_a_step_starts_at_the_top_of_the_view_and_ends_with_the_same_texts() -> None:
    from fastdesk.ui.panes.incremental import _nearest_first

    rng = random.Random(3)
    for _ in range(200):
        old = segs(*(rng.choice("abcde") for _ in range(rng.randrange(0, 30))))
        new = segs(*(rng.choice("abcdef") for _ in range(rng.randrange(0, 30))))
        ops = diff(old, new)
        top = rng.randrange(0, len(old) + 1)
        out = list(old)
        order = list(_nearest_first(ops, top))
        for i1, i2, j1, j2 in order:
            out[i1:i2] = new[j1:j2]
        assert [s.text for s in out] == [s.text for s in new]
        below = [op for op in ops if op[1] > top]
        assert [op[2:] for op in order[: len(below)]] == [op[2:] for op in below]  # view first
