"""Reading ease before and after simplify, by each language's published formula, and the target
reading level simplify is asked for.

Why these formulas and not a library's: textstat (MIT) implements the same ones, but from 0.7.4
it counts English syllables with NLTK's CMU dictionary, which it downloads from the internet on
first use; a desktop app (and its tests) must not. The formulas are a few lines each; syllables
are counted, as textstat does for every language but English, from the hyphenation dictionaries
of pyphen (LGPL/GPL/MPL tri-licensed, LibreOffice's dictionaries): a hyphenation point is a
syllable boundary. Every formula here is a Flesch-style *reading ease*: about 0-100, higher is
easier, so "before" and "after" compare the same way in every language:

==  ===================================================  ========================================
en  Flesch reading ease (Flesch 1948)                    206.835 - 1.015 W/S - 84.6 Sy/W
fr  Kandel & Moles (1958), Flesch for French             207 - 1.015 W/S - 73.6 Sy/W
de  Amstad (1978), Flesch for German                     180 - W/S - 58.5 Sy/W
es  Fernández Huerta (1959), as corrected (Law 2011)     206.84 - 1.02 W/S - 60 Sy/W
it  Flesch-Vacca (1972)                                  206 - W/S - 65 Sy/W
nl  Douma (1960)                                         206.835 - 0.93 W/S - 77 Sy/W
pt  Martins et al. (1996), Flesch for Portuguese         248.835 - 1.015 W/S - 84.6 Sy/W
==  ===================================================  ========================================

(W words, S sentences, Sy syllables.) Other languages have no score (``None``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from fastdesk.document.blocks import parse
from fastdesk.document.languages import primary as primary_subtag
from fastdesk.translate.language import prose

__all__ = [
    "FORMULAS",
    "Readability",
    "ReadingLevel",
    "compare",
    "harder",
    "preload",
    "reading_ease",
]

# language → (formula name, constant, per word-per-sentence, per syllable-per-word)
FORMULAS: dict[str, tuple[str, float, float, float]] = {
    "en": ("Flesch reading ease", 206.835, 1.015, 84.6),
    "fr": ("Kandel-Moles", 207.0, 1.015, 73.6),
    "de": ("Amstad", 180.0, 1.0, 58.5),
    "es": ("Fernández Huerta", 206.84, 1.02, 60.0),
    "it": ("Flesch-Vacca", 206.0, 1.0, 65.0),
    "nl": ("Douma", 206.835, 0.93, 77.0),
    "pt": ("Flesch (Martins)", 248.835, 1.015, 84.6),
}
MIN_WORDS = 20  # fewer, and one long word swings the score: a block is not judged
_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
_SENTENCE_END = re.compile(r"[.!?…;:]+(?=\s|$)")


@dataclass(frozen=True)
class Readability:
    """One text's reading ease (higher is easier) and the counts behind it."""

    score: float
    formula: str
    words: int
    sentences: int
    syllables: int


@lru_cache(maxsize=32)
def _hyphenator(lang: str) -> object | None:
    import pyphen  # type: ignore[import-untyped]  # only when a score is asked for

    return pyphen.Pyphen(lang=lang) if lang in pyphen.LANGUAGES else None


def preload(lang: str) -> None:
    """Load ``lang``'s hyphenation dictionary now (~0.2 s holding the GIL), not at simplify's
    first answer, where it held back the answers streaming in beside it."""
    primary = primary_subtag(lang.strip())
    if primary in FORMULAS:
        _hyphenator(primary)


def _syllables(word: str, lang: str) -> int:
    dic = _hyphenator(lang)
    if dic is None:  # never for the languages of FORMULAS
        return max(1, len(re.findall(r"[aeiouyàâäéèêëîïôöûüùáíóúñ]+", word.lower())))
    return len(dic.positions(word.lower())) + 1  # type: ignore[attr-defined]


def reading_ease(markdown: str, lang: str) -> Readability | None:
    """The reading ease of a text's prose (code, URLs and tags aside); None for a language
    without a formula or a text without words."""
    primary = primary_subtag(lang.strip())
    formula = FORMULAS.get(primary)
    if formula is None:
        return None
    words: list[str] = []
    sentences = 0
    for block in parse(markdown).blocks:  # a heading, a list item, a cell ends a sentence too
        if not block.translatable:
            continue
        for part in _SENTENCE_END.split(prose(block.split()[1])):
            found = _WORD.findall(part)
            sentences += bool(found)
            words += found
    if not words:
        return None
    syllables = sum(_syllables(w, primary) for w in words)
    name, base, per_sentence, per_syllable = formula
    score = base - per_sentence * len(words) / sentences - per_syllable * syllables / len(words)
    return Readability(round(score, 1), name, len(words), sentences, syllables)


def compare(source: str, answer: str, lang: str) -> dict[str, object] | None:
    """The report's ``readability`` entry of a document: before, after, formula, and whether
    the answer is harder to read than its source (None: the language has no formula)."""
    before, after = reading_ease(source, lang), reading_ease(answer, lang)
    if before is None or after is None:
        return None
    return {
        "before": before.score,
        "after": after.score,
        "formula": before.formula,
        "harder": after.score < before.score,
    }


def harder(source: str, answer: str, lang: str) -> str | None:
    """Why ``answer`` reads harder than ``source`` (None: it does not, or there are too few
    words in the source for a formula to tell)."""
    before = reading_ease(source, lang)
    if before is None or before.words < MIN_WORDS:
        return None
    after = reading_ease(answer, lang)
    if after is None or after.score >= before.score:
        return None
    return (
        f"harder to read than its source ({before.formula} {before.score:g} → {after.score:g}; "
        "higher is easier)"
    )


# ---- the target reading level --------------------------------------------------------------

_CEFR = {
    "A1": "a beginner (CEFR A1): the most common words, very short sentences, present tense",
    "A2": "an elementary reader (CEFR A2): common everyday words, short sentences of one idea",
    "B1": "an intermediate reader (CEFR B1): everyday words, sentences of 15 words or fewer, "
    "technical terms explained once",
    "B2": "an upper-intermediate reader (CEFR B2): clear standard language, some technical "
    "terms where they are needed",
    "C1": "an advanced reader (CEFR C1): precise language, no needless complexity",
    "C2": "a proficient reader (CEFR C2): the register of the source, made clearer",
}
_PLAIN = (
    "plain language (as ISO 24495-1 defines it): readers find what they need, understand it "
    "the first time and can use it: short sentences, common words, active voice"
)
_GRADE = re.compile(
    r"^(?:(?:us\s+)?(?:school\s+)?grade\s*(\d{1,2})|(\d{1,2})(?:st|nd|rd|th)\s+grade)$"
)


@dataclass(frozen=True)
class ReadingLevel:
    """What simplify aims at: ``plain``, a CEFR level (``A1``…``C2``) or a school grade."""

    label: str  # plain | A1…C2 | grade N

    @classmethod
    def parse(cls, value: str) -> ReadingLevel:
        """``B1``, ``CEFR a2``, ``plain language``, ``grade 6``, ``6th grade``; ValueError with
        the accepted forms otherwise."""
        text = " ".join(value.strip().strip("*_`").split()).casefold()
        text = text.removeprefix("cefr").strip()
        if text in ("plain", "plain language"):
            return cls("plain")
        if text.upper() in _CEFR:
            return cls(text.upper())
        m = _GRADE.match(text)
        if m and 1 <= int(m.group(1) or m.group(2)) <= 12:
            return cls(f"grade {int(m.group(1) or m.group(2))}")
        raise ValueError(
            f"reading level {value.strip()!r} is not one of: plain, A1, A2, B1, B2, C1, C2, "
            "grade 1-12"
        )

    def instruction(self) -> str:
        """The line simplify's system message carries."""
        if self.label == "plain":
            who = _PLAIN
        elif self.label in _CEFR:
            who = _CEFR[self.label]
        else:
            who = f"a reader in US school {self.label}"
        return f"Target reading level: write for {who}."
