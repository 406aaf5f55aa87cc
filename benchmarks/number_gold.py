"""The numbers golds of ``bench_meaning.py`` on an MQM segment, and why the issue's gold counts
a number as changed when it is the same number written another way (prints nothing).

A rater's Accuracy error whose span holds a digit is a changed number when a figure of the span
is not on the other side. Issue 41 measured "not on the other side" digit run by digit run as
written, so three things read as changes that are none:

* separators: 40000 → 40.000, 2500 → 2,500 (the run 000 or 500 is nowhere opposite);
* Chinese numerals: 二十大 → "the 20th Party Congress", 十六 → 16th, 三维 → 3D, and digit by
  digit 九二共识 → "the 92 Consensus" (or "1992 Consensus");
* scale words: 315.1亿 → 31.51 billion, 25万 → 250000, 千亿 → $100 billion.

``explain`` names which one a figure is; ``changed`` is the gold without them. The error's
span is where the rater saw something wrong, not always the number (40.000 in "vor 40.000
Jahren machen wir …" is in a span marking the verb), which is why the written-out number can
be in a gold span without being the error.
"""

from __future__ import annotations

import re
from decimal import Decimal

from fastdesk.translate.number_words import SCALE_AFTER, chinese, digitwise, scale_value

FIGURE = re.compile(r"\d+(?:[.,'\u00a0\u202f\u2009 ]\d+)*")  # 40.000 and 40000: one figure
_SEP = re.compile(r"[.,'\u00a0\u202f\u2009 ]")
REASONS = ("separators", "Chinese numerals", "scale words")


def _readings(figure: str) -> set[Decimal]:
    """What a figure may stand for: its digits without separators (40.000, 2,500), or with its
    one mark as a decimal point (31.51, 3,5; a mark before three digits may be either)."""
    digits = _SEP.sub("", figure)
    marks = _SEP.findall(figure)
    if len(marks) != 1 or marks[0] not in ".,":
        return {Decimal(digits)}
    whole, part = _SEP.split(figure)
    point = Decimal(f"{whole}.{part}")  # both digits: FIGURE read them
    return {point, Decimal(digits)} if len(part) == 3 else {point}


def _scaled(text: str, end: int, values: set[Decimal], lang: str) -> set[Decimal]:
    """``values`` times the scale word after ``end`` (2.5 million, 315.1亿), if one follows."""
    m = SCALE_AFTER.match(text, end)
    if m is None:
        return set()
    word = m.group(1) or m.group(2)
    return {v * f for v in values for f in scale_value(word, lang)}


def _side(text: str, lang: str) -> tuple[set[Decimal], set[Decimal], set[Decimal]]:
    """A side's figures' readings, its Chinese numerals' values, and its scaled values."""
    figures: set[Decimal] = set()
    scaled: set[Decimal] = set()
    for m in FIGURE.finditer(text):
        readings = _readings(m.group())
        figures |= readings
        scaled |= _scaled(text, m.end(), readings, lang)
    numerals = {value for _w, value in chinese(text)} | set(digitwise(text))
    return figures, numerals, scaled | numerals


def explain(figure: str, end: int, text: str, lang: str, other: str, other_lang: str) -> str | None:
    """Why ``figure`` (ending at ``end`` of ``text``) is the same number as one of ``other``,
    written another way (one of REASONS), or None: it is not there, a changed number."""
    figures, numerals, scaled = _side(other, other_lang)
    readings = _readings(figure)
    if readings & figures:  # 40.000 is 40000 (not 31.51 315.1: the same digits)
        return "separators"
    if readings & numerals:
        return "Chinese numerals"
    if (readings | _scaled(text, end, readings, lang)) & scaled:
        return "scale words"
    return None


def _in_text(span: str, text: str) -> tuple[str, int]:
    """The text a span was cut from, and where the span starts in it (for the scale word
    after a figure at the span's end), or the span alone."""
    at = text.find(span)
    return (text, at) if at >= 0 else (span, 0)


Error = tuple[str, str, str, str]  # category, severity, side, span


def digit_errors(errors: list[Error]) -> list[Error]:
    """The Accuracy errors whose span holds a digit."""
    return [e for e in errors if e[0].startswith("Accuracy") and FIGURE.search(e[3])]


def changed(errors: list[Error], source: str, target: str, langs: tuple[str, str]) -> bool:
    """A figure of an Accuracy error's span is in no form on the other side."""
    for _cat, _sev, side, span in digit_errors(errors):
        here, other = (target, source) if side == "target" else (source, target)
        lang, other_lang = (langs[1], langs[0]) if side == "target" else langs
        text, at = _in_text(span, here)
        for m in FIGURE.finditer(text, at, at + len(span)):
            if explain(m.group(), m.end(), text, lang, other, other_lang) is None:
                return True
    return False


def as_written(errors: list[Error], source: str, target: str) -> bool:
    """Issue 41's gold: a digit run of an Accuracy error's span, as written, is not among the
    other side's."""
    for _cat, _sev, side, span in digit_errors(errors):
        other = source if side == "target" else target
        if set(re.findall(r"\d+", span)) - set(re.findall(r"\d+", other)):
            return True
    return False


def artefact(errors: list[Error], source: str, target: str, langs: tuple[str, str]) -> str | None:
    """Why a segment in the issue's gold holds no changed number (its reasons joined by " + "),
    or None: a figure is changed, or the segment is not in that gold."""
    reasons: list[str] = []
    for _cat, _sev, side, span in digit_errors(errors):
        here, other = (target, source) if side == "target" else (source, target)
        lang, other_lang = (langs[1], langs[0]) if side == "target" else langs
        theirs = set(re.findall(r"\d+", other))
        text, at = _in_text(span, here)
        for m in FIGURE.finditer(text, at, at + len(span)):
            if not set(re.findall(r"\d+", m.group())) - theirs:
                continue  # every run is opposite as written: the gold does not count it
            reason = explain(m.group(), m.end(), text, lang, other, other_lang)
            if reason is None:
                return None
            if reason not in reasons:
                reasons.append(reason)
    return " + ".join(sorted(reasons, key=REASONS.index)) or None
