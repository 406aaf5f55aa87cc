"""The ``numbers`` check on what the WMT MQM translations raters found flawless still tripped,
and on the changes it still missed (benchmarks/bench_meaning.py): units after a hyphen or a
spelled number, a measure the source says twice in two units, "a foot", ½, a list [1,1], a
Chinese number read digit by digit, a figure run on after a date."""

from __future__ import annotations

import pytest

from fastdesk.translate.meaning_checks import numbers_problem


@pytest.mark.parametrize(
    ("source", "answer", "lang"),
    [
        # a unit after a hyphen, a spelled number before a unit, converted and rounded
        ("That's about a 15-foot boat.", "Das ist etwa fünf Meter lang.", "de"),
        (
            "I mean, thousands of dollars to make this eight-foot robot.",
            "Ich meine, Tausende von Dollars für diesen 2,5 Meter großen Roboter.",
            "de",
        ),
        (
            "So these are large-scale robots -- 8 ft., 12 ft. long proteins.",
            "Das sind große Roboter – zweieinhalb bis vier Meter lange Proteine.",
            "de",
        ),
        (
            "Proteins can fold in 10000 nanoseconds.",
            "Proteine können sich in zehn Mikrosekunden falten.",
            "de",
        ),
        ("It is about a foot long.", "Es ist ca. 30cm lang.", "de"),
        # the source says one measure twice, the answer once
        (
            "It's about 120 feet above the water, or 40 meters.",
            "Er befindet sich etwa 40 Meter über dem Wasser.",
            "de",
        ),
        (
            "It will raise itself to 115 Fahrenheit, 43 or 44 degrees Centigrade, for two days.",
            "Es wird sich zwei Tage lang auf 43 oder 44 Grad Celsius aufheizen.",
            "de",
        ),
        # a vulgar fraction after a figure
        (
            "The top 20 percent are about three and a half, four times as rich.",
            "Die obersten 20 Prozent sind um die 3½, 4 mal so reich.",
            "de",
        ),
        # [1,1] is two numbers where the decimal mark is a point, even copied into German
        (
            "看左面，[1,1] 的输入等于0输出。",
            "On the left, the input [1, 1] equals the output 0.",
            "en",
        ),
        (
            "On the left, [1,1] input equals 0 output.",
            "Links ist der Eingang [1,1] gleich 0.",
            "de",
        ),
        # 九二 read digit by digit: the '92 of the "1992 Consensus"
        ("民进党拒绝接受“九二共识”。", 'The DPP rejects the "1992 Consensus".', "en"),
        ("民进党拒绝接受“九二共识”。", 'The DPP rejects the "92 Consensus".', "en"),
        # a Chinese numeral's unit, converted
        ("蛋白质能在一万纳秒内折叠。", "Proteins fold in 10 microseconds.", "en"),
    ],
)
def test_the_same_number_in_another_form_is_no_change(source: str, answer: str, lang: str) -> None:
    assert numbers_problem(source, answer, lang) is None


@pytest.mark.parametrize(
    ("source", "answer", "lang", "detail"),
    [
        # a figure run on after a date is read, not swallowed by the date
        (
            "但反对者指责他试图推迟1990 年10 月发生的政治变革。",
            "Opponents accused him of delaying the change of October 1990.3 The government…",
            "en",
            "number added: 3",
        ),
        # one unit on both sides: 210 feet is no rounding of 200 feet
        ("The tower is 200 feet tall.", "The tower is 210 feet tall.", "en", "200 → 210"),
        # the second measure does not hide a first one mistranslated
        (
            "It's about 120 feet above the water, or 40 meters.",
            "Es ist etwa 120 Meter über dem Wasser, oder 40 Meter.",
            "de",
            "→ 120",
        ),
        (
            "It will raise itself to 115 Fahrenheit, 43 or 44 degrees Centigrade.",
            "Es wird sich auf 53 oder 54 Grad Celsius aufheizen.",
            "de",
            "115",
        ),
        (
            "Robots -- 8 ft., 12 ft. long proteins.",
            "Roboter – 8 Fuß, 3 Fuß lange Proteine.",
            "de",
            "12 → 3",
        ),
        ("That's about a 15-foot boat.", "Das ist etwa neun Meter lang.", "de", "15"),
        # the 20 of 二十大 in the answer is the source's, not the dropped 10 changed
        (
            "新华社北京2月10日电 党的二十大精神研讨班10日下午结业。",
            "Beijing, February 10th: the 20th Party Congress seminar ended in the afternoon.",
            "en",
            "numbers missing: 10",
        ),
    ],
)
def test_changes_in_those_forms_are_still_changes(
    source: str, answer: str, lang: str, detail: str
) -> None:
    found = numbers_problem(source, answer, lang)
    assert found is not None and detail in found, found
