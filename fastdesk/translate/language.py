"""Is an answer a translation at all? Its language and its length, against its source.

A model that returns a fixed text, echoes the source, answers in the wrong language, or answers
far shorter or longer than its source must not be written as a translation. The language is
identified by py3langid (BSD-3-Clause): it ships its model inside the package (nothing to
download at run time, which cannot happen here), classifies a paragraph in well under a
millisecond once loaded (~0.8 s, once, on the engine's thread), and covers the ~100 languages
the app offers; fastText needs a model download, lingua-language-detector is a 96 MB wheel.
Text shorter than ``MIN_LETTERS`` letters is not judged: no identifier is reliable there
("Getting started" is English with 30 % confidence).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from fastdesk.document.languages import language_name, primary

MIN_LETTERS = 40  # less prose than this is not identified (headings, names, numbers)
MIN_ANSWER_LETTERS = 20  # an answer to a source that was identified may be judged on less
SURE = 0.9  # the identifier's confidence needed to call an answer "in another language"
LIKELY = 0.75  # enough to name a source's language in an export (English vs Pidgin: ~0.85)
LENGTH_RATIO = (0.5, 2.5)  # an answer outside this share of its source's length is suspect
DENSE_SCRIPTS = {"ja", "zh", "ko"}  # a few characters say what a paragraph of Latin letters do
DENSE_LOW = 0.2
MIN_LENGTH_CHARS = 60  # shorter sources vary too much in length to judge a ratio
NO_LANGUAGE = "zxx"  # the identifier's "no linguistic content" (ids, hashes): nothing to judge
RUNAWAY_RATIO = 3.0  # an answer past this many times its expected length is stopped
SAMPLE_CHARS = 4000  # of a document's text: enough to say its language

_NOT_PROSE = re.compile(
    r"```.*?```|`[^`\n]*`|\]\([^)\s]*\)|https?://\S+|<[^>\n]*>|\{\{?[^}\n]*\}\}?|[*_#>|\[\]-]",
    re.DOTALL,
)
_LETTER = re.compile(r"[^\W\d_]")
_lock = threading.Lock()


@lru_cache(maxsize=1)
def _identifier() -> Any:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier  # type: ignore[import-untyped]  # ships no types

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def preload() -> None:
    """Load the identifier now rather than at the first answer. Loading holds the GIL for up to
    ~25 ms in one piece (numpy's import, copying its 39 MB table): in the window, done at the
    first answer, that was the one beat over 16 ms of a 500-block stream."""
    with _lock:
        _identifier()


def prose(text: str) -> str:
    """The words of a Markdown block, without code, link targets, URLs, tags and markup."""
    return " ".join(_NOT_PROSE.sub(" ", text).split())


def identify(text: str, min_letters: int = MIN_LETTERS) -> dict[str, float] | None:
    """Language → probability for the prose of ``text``; None when it is too short to tell."""
    ranked = _ranked(text, min_letters)
    return None if ranked is None else dict(ranked)


@lru_cache(maxsize=256)
def _ranked(text: str, min_letters: int) -> tuple[tuple[str, float], ...] | None:
    """Kept for the last few hundred texts: each answered block's source is identified twice
    (is the answer a translation? which language does the memory record?), on the engine's
    thread, which holds the GIL the window needs meanwhile."""
    words = prose(text)
    if len(_LETTER.findall(words)) < min_letters:
        return None
    with _lock:  # the identifier is not documented as thread-safe
        ranked = _identifier().rank(words)
    return tuple((str(lang), float(p)) for lang, p in ranked)


def source_language(text: str) -> str | None:
    """The language ``text`` is most likely in (a primary code), or None: too short to tell,
    or unclear. What the memory records as an answer's source language: a label for TMX only
    (the memory's keys do not hold it), so a likely language will do."""
    langs = identify(text)
    if langs is None:
        return None
    top = _top(langs)
    return top if langs[top] >= LIKELY else None


def document_language(texts: Iterable[str], chars: int = SAMPLE_CHARS) -> str | None:
    """The language of a document's blocks, from their first ``chars`` characters (or None:
    too little prose, or unclear): one identification for a long document instead of one a
    block, where the blocks' own language is not what is judged (simplify keeps each block in
    it: its reading ease is measured by the document's formula, as the report's is)."""
    sample: list[str] = []
    size = 0
    for text in texts:
        sample.append(text)
        size += len(text)
        if size >= chars:
            break
    return source_language("\n\n".join(sample)[:chars])


def not_translated(source: str, answer: str, target_lang: str) -> str | None:
    """Why ``answer`` is not a translation of ``source`` into ``target_lang`` (None: it may be).

    Only judged when both are long enough to identify and the source is not already in the
    target language (then an answer equal to it is a fine translation).
    """
    target = primary(target_lang)
    source_langs = identify(source)
    if source_langs is None or _top(source_langs) in (target, NO_LANGUAGE):
        return None  # too short, in the target already, or not language (commit hashes)
    if " ".join(answer.split()) == " ".join(source.split()):
        if source_langs[_top(source_langs)] < LIKELY:
            return None  # not clearly in any language (names, Latin binomials): an echo may be
        return f"the answer is the source unchanged, not {language_name(target)}"
    answer_langs = identify(answer, MIN_ANSWER_LETTERS)
    if answer_langs is not None:
        lang = _top(answer_langs)
        if lang != target and answer_langs[lang] >= SURE and answer_langs.get(target, 0) < 0.05:
            return f"the answer is in {language_name(lang)}, not {language_name(target)}"
    return length_mismatch(source, answer, target)


def length_mismatch(source: str, answer: str, target_lang: str = "") -> str | None:
    """An answer far shorter or longer than its source (a fixed text, a summary, a ramble)."""
    if len(source.strip()) < MIN_LENGTH_CHARS:
        return None
    ratio = len(answer.strip()) / len(source.strip())
    low, high = LENGTH_RATIO
    if primary(target_lang) in DENSE_SCRIPTS:
        low = DENSE_LOW
    if ratio < low or ratio > high:
        return f"the answer is {ratio:.1f}× the length of its source"
    return None


def _top(langs: dict[str, float]) -> str:
    return max(langs, key=langs.__getitem__)
