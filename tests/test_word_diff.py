"""The word diff shown before deciding on a changed source."""

from __future__ import annotations

import random

from fastdesk.document.word_diff import Piece, diff_html, word_diff


def sides(pieces: list[Piece]) -> tuple[str, str]:
    old = "".join(p.text for p in pieces if p.op != "insert")
    new = "".join(p.text for p in pieces if p.op != "delete")
    return old, new


def test_a_reworded_phrase_is_one_change_not_confetti() -> None:
    pieces = word_diff("The big cat sat down.", "The small dog sat down.")
    assert pieces == [
        Piece("equal", "The "),
        Piece("delete", "big cat"),
        Piece("insert", "small dog"),
        Piece("equal", " sat down."),
    ]


def test_added_words_and_punctuation() -> None:
    pieces = word_diff("Hello world.\n\n", "Hello world, hello.\n\n")
    assert pieces == [
        Piece("equal", "Hello world"),
        Piece("insert", ", hello"),
        Piece("equal", ".\n\n"),
    ]


def test_nothing_is_lost_either_way() -> None:
    rng = random.Random(7)
    words = ["a", "cat", "the", ",", ".", " ", "\n", "é", "dog", "`x`"]
    for _ in range(300):
        old = "".join(rng.choice(words) for _ in range(rng.randint(0, 20)))
        new = "".join(rng.choice(words) for _ in range(rng.randint(0, 20)))
        assert sides(word_diff(old, new)) == (old, new)


def test_html_marks_removed_and_added_and_escapes() -> None:
    out = diff_html(word_diff("a <b> c\nd", "a <i> c\nd"))
    assert '<del title="removed"' in out and "&lt;" in out and "&gt;" in out
    assert '<ins title="added"' in out
    assert "line-through" in out and "underline" in out
    assert "<br>" in out and "<b>" not in out
    assert diff_html(word_diff("same", "same")) == "same"
