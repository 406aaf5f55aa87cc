"""The ``numbers`` and ``omission`` checks on a corpus of realistic EN→FR/DE/ES translations
(tests/data/meaning_corpus.py) with errors injected: every changed number and every dropped
sentence is flagged, and the faithful corpus gets no flag at all."""

from __future__ import annotations

import re

import pytest

from fastdesk.translate.checks import check_block
from fastdesk.translate.glossary import Glossary
from fastdesk.translate.meaning_checks import extract, numbers_problem, omission_problem, sentences
from tests.data.meaning_corpus import CORPUS, KEPT_TERM, MERGED, NEGATIONS, TERM_TRANSLATED

PAIRS = [(src, lang, answer) for src, answers in CORPUS for lang, answer in answers.items()]
IDS = [f"{n // 3}-{lang}" for n, (_s, lang, _a) in enumerate(PAIRS)]


def flags_of(source: str, answer: str, lang: str, **kw: object) -> dict[str, str]:
    found = check_block(source, answer, target_lang=lang, mode="translate", **kw)  # type: ignore[arg-type]
    return {f.check: f.detail for f in found}


@pytest.mark.parametrize(("source", "lang", "answer"), PAIRS, ids=IDS)
def test_faithful_corpus_gets_no_flag(source: str, lang: str, answer: str) -> None:
    assert flags_of(source, answer, lang) == {}


def _changed_numbers(answer: str) -> list[str]:
    """The answer with one run of digits changed, for each run: 30 → 3, 7 → 8."""
    out = []
    for m in re.finditer(r"\d+", answer):
        digits = m.group()
        new = digits[:-1]
        if not new or int(new) == int(digits):  # 00 → 0 is the same number: 00 → 01
            new = digits[:-1] + str((int(digits[-1]) + 1) % 10)
        out.append(answer[: m.start()] + new + answer[m.end() :])
    return out


@pytest.mark.parametrize(("source", "lang", "answer"), PAIRS, ids=IDS)
def test_every_changed_number_is_flagged(source: str, lang: str, answer: str) -> None:
    wrong = _changed_numbers(answer)
    assert wrong
    for text in wrong:
        assert "numbers" in flags_of(source, text, lang), text


@pytest.mark.parametrize(("source", "lang", "answer"), PAIRS, ids=IDS)
def test_every_dropped_sentence_is_flagged(source: str, lang: str, answer: str) -> None:
    parts = sentences(answer)
    assert len(parts) == len(sentences(source)) >= 2
    for n in range(len(parts)):
        text = " ".join(parts[:n] + parts[n + 1 :])
        flags = flags_of(source, text, lang)
        assert "omission" in flags or "numbers" in flags, (n, text)


@pytest.mark.parametrize(("source", "answer", "lang"), MERGED)
def test_two_sentences_merged_into_one_are_no_omission(source: str, answer: str, lang: str) -> None:
    assert len(sentences(answer)) < len(sentences(source))
    assert flags_of(source, answer, lang) == {}


def test_a_dropped_sentence_without_numbers_is_an_omission() -> None:
    source, answers = CORPUS[6]
    kept = sentences(answers["fr"])[0]  # the password's length: its number stays
    detail = flags_of(source, kept, "fr")["omission"]
    assert detail.startswith("2 sentences became 1")


@pytest.mark.parametrize(("index", "lang", "good", "bad"), TERM_TRANSLATED)
def test_a_translated_kept_term_is_a_glossary_flag(
    index: int, lang: str, good: str, bad: str
) -> None:
    source, answers = CORPUS[index]
    glossary = Glossary(keep=(KEPT_TERM,))
    assert flags_of(source, answers[lang], lang, glossary=glossary) == {}
    flags = flags_of(source, answers[lang].replace(good, bad), lang, glossary=glossary)
    assert set(flags) == {"glossary"}


@pytest.mark.parametrize(("index", "lang", "good", "bad"), NEGATIONS)
def test_a_flipped_negation_is_beyond_the_deterministic_checks(
    index: int, lang: str, good: str, bad: str
) -> None:
    """The reviewer's business (tests/test_review.py): here only that the corpus holds it."""
    source, answers = CORPUS[index]
    assert good in answers[lang]
    assert flags_of(source, answers[lang].replace(good, bad), lang) == {}


def test_a_sentence_left_in_english_inside_a_translated_block() -> None:
    source, answers = CORPUS[2]
    english = sentences(source)[2]
    answer = " ".join([*sentences(answers["fr"])[:2], english])
    assert flags_of(source, answer, "fr") == {"omission": f"left untranslated: {english!r}"}


def test_half_the_sentences_is_an_omission_whatever_the_length() -> None:
    source = "One. Two is here. Three is there. Four is last."
    assert omission_problem(source, "Un, deux, trois et quatre sont ici et là, enfin.", "fr") == (
        "4 sentences became 1"
    )


@pytest.mark.parametrize(
    ("source", "answer", "lang"),
    [
        ("It costs 1,000.5 USD.", "Il coûte 1 000,5 USD.", "fr"),
        ("It costs 1,000.5 USD.", "Es kostet 1.000,5 USD.", "de"),
        ("It costs 1,000.5 USD.", "Il coûte 1\u202f000,5 USD.", "fr"),
        ("It costs 1,000.5 CHF.", "Es kostet 1'000.5 CHF.", "de-CH"),
        ("We have 1,000 users.", "Wir haben 1.000 Nutzer.", "de"),
        ("A 1,000,000 rows table.", "Eine Tabelle mit 1.000.000 Zeilen.", "de"),
        ("Released on 2026-03-12.", "Veröffentlicht am 12.03.2026.", "de"),
        ("Released on March 12, 2026.", "Publiée le 12/03/2026.", "fr"),
        ("The meeting is at 3 PM.", "Die Besprechung ist um 15 Uhr.", "de"),
        ("The file is 5 MB.", "Le fichier fait 5 Mo.", "fr"),
        ("It costs $0.05.", "Cuesta 0,05 $.", "es"),
        ("Follow these 3 steps.", "Suivez ces trois étapes.", "fr"),
        ("Keep it 2 hours.", "Gardez-le 2 h.", "fr"),
    ],
)
def test_locale_forms_of_the_same_number_are_not_a_change(
    source: str, answer: str, lang: str
) -> None:
    assert numbers_problem(source, answer, lang) is None


@pytest.mark.parametrize(
    ("source", "answer", "lang", "detail"),
    [
        ("Keep it for 30 days.", "Conservez-le 3 jours.", "fr", "number changed: 30 → 3"),
        ("It took 15 s.", "Es dauerte 1,5 s.", "de", "number changed: 15 s → 1,5 s"),
        ("The file is 5 GB.", "Le fichier fait 5 Mo.", "fr", "number changed: 5 GB → 5 MB"),
        (
            "Use version 3.11.2 or later.",
            "Utilisez la version 3.12.2 ou ultérieure.",
            "fr",
            "version changed: 3.11.2 → 3.12.2",
        ),
        (
            "Released on March 12, 2026.",
            "Publiée le 12 avril 2026.",
            "fr",
            "date changed: March 12, 2026 → 12 avril 2026",
        ),
        ("Open at 3 PM.", "Ouvert à 13 h.", "fr", "time changed: 3 PM → 13 h"),
        ("Ports 80, 443 and 8080.", "Ports 80 et 443.", "fr", "numbers missing: 8080"),
    ],
)
def test_changes_are_named(source: str, answer: str, lang: str, detail: str) -> None:
    assert numbers_problem(source, answer, lang) == detail


def test_identifiers_with_digits_are_not_numbers() -> None:
    assert [i.text for i in extract("Use UTF-8 on x86_64 with IPv6, H2O and mp3.")] == ["8"]
