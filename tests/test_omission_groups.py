"""benchmarks/omission_groups.py sorts the omissions raters mark by kind (docs/quality.md's
table of what a deterministic check can see rests on it) and counts how often raters agree on
an omission in one answer rated several times."""

from __future__ import annotations

import pytest

from benchmarks.omission_groups import agreement, group, segment_group

SOURCE_ZH = "我们在花园里种了三棵树（两棵苹果树），后来又搬走了一棵。邻居也很喜欢它们。"
SOURCE_EN = "The old bridge was closed in 1998, and a ferry carries cars across the river."


@pytest.mark.parametrize(
    ("span", "source", "kind"),
    [
        ("（两棵苹果树）", SOURCE_ZH, "in brackets"),
        ("后来又搬走了一棵", SOURCE_ZH, "a clause or sentence"),
        ("邻居也很喜欢它们。", SOURCE_ZH, "a clause or sentence"),
        ("也", SOURCE_ZH, "a function word"),
        ("它们", SOURCE_ZH, "a function word"),
        ("花园", SOURCE_ZH, "a content word or phrase"),
        ("“", SOURCE_ZH, "punctuation"),
        ("in 1998", SOURCE_EN, "a figure"),
        ("and a ferry carries cars across the river", SOURCE_EN, "a clause or sentence"),
        ("old", SOURCE_EN, "a content word or phrase"),
        ("was in", SOURCE_EN, "a function word"),
        (",", SOURCE_EN, "punctuation"),
    ],
)
def test_a_span_is_sorted_by_kind(span: str, source: str, kind: str) -> None:
    assert group(span, source) == kind


def test_a_translation_is_sorted_by_its_most_visible_omission() -> None:
    assert segment_group(["也", "后来又搬走了一棵"], SOURCE_ZH) == "a clause or sentence"
    assert segment_group(["花园", "也"], SOURCE_ZH) == "a content word or phrase"
    assert segment_group([], SOURCE_ZH) == "punctuation"


def test_agreement_counts_the_ratings_of_answers_given_more_than_once() -> None:
    ratings = [
        # one answer, three ratings, one of them a major omission and one a minor
        ("猫也睡了。", "The cat slept.", True, True),
        ("猫也睡了。", "The cat  slept.", False, False),
        ("猫也睡了。", "The cat slept.", True, False),
        # given twice, never marked major: not counted
        ("狗醒了。", "The dog woke up.", True, False),
        ("狗醒了。", "The dog woke up.", False, False),
        # marked major but given once: nothing to agree with
        ("鸟飞了。", "The bird.", True, True),
    ]
    assert agreement(ratings) == (1, 3, 2)
