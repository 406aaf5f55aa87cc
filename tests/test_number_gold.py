"""The numbers gold of benchmarks/bench_meaning.py names why the issue's gold (digit runs as
written) counts a number as changed when it is the same number written another way, and still
counts a real change (docs/quality.md's accounting rests on it)."""

from __future__ import annotations

import pytest

from benchmarks.number_gold import artefact, as_written, changed

Langs = tuple[str, str]


def _error(span: str) -> list[tuple[str, str, str, str]]:
    return [("Accuracy/Mistranslation", "major", "target", span)]


@pytest.mark.parametrize(
    ("source", "target", "span", "langs", "reason"),
    [
        (
            "40000 years ago, we're still doing cave paintings.",
            "vor 40.000 Jahren machen wir immer noch Höhlenmalereien.",
            "vor 40.000 Jahren machen wir immer noch Höhlenmalereien",
            ("en", "de"),
            "separators",
        ),
        (
            "第十六届中日节能环保综合论坛",
            "The 16th China-Japan Forum",
            "16th China-Japan Forum",
            ("zh", "en"),
            "Chinese numerals",
        ),
        (
            "拒绝接受“九二共识”。",
            'rejects the "92 Consensus".',
            "92 Consensus",
            ("zh", "en"),
            "Chinese numerals",
        ),
        (
            "今年1月出口315.1亿美元",
            "exports of 31.51 billion U.S. dollars",
            "31.51 billion",
            ("zh", "en"),
            "scale words",
        ),
        (
            "母公司股价蒸发千亿美元",
            "shares evaporate by $100 billion",
            "$100 billion",
            ("zh", "en"),
            "scale words",
        ),
        (
            "我们有两百五十万个部分。",
            "2.5 million parts in five years",
            "2.5 million parts",
            ("zh", "en"),
            "scale words",
        ),
    ],
)
def test_the_same_number_written_another_way_is_named(
    source: str, target: str, span: str, langs: Langs, reason: str
) -> None:
    errors = _error(span)
    assert as_written(errors, source, target)  # the gold counts it
    assert artefact(errors, source, target, langs) == reason
    assert not changed(errors, source, target, langs)


@pytest.mark.parametrize(
    ("source", "target", "span"),
    [
        ("出超金额仅23.4亿美元", "to $2.35 billion", "$2.35 billion"),
        ("推迟1990 年10 月发生的政治变革", "in October 1990.3 The government", "1990.3"),
    ],
)
def test_a_changed_number_is_no_artefact(source: str, target: str, span: str) -> None:
    errors = _error(span)
    assert as_written(errors, source, target)
    assert artefact(errors, source, target, ("zh", "en")) is None
    assert changed(errors, source, target, ("zh", "en"))
