"""Which words of a translation render a source term: for the glossary's one-click fix (the
wrong rendering replaced by the glossary's) and for Add to Glossary's guess of the translation.

Deterministic, no model and no dictionary, in this order:

1. the term itself in the translation (left untranslated);
2. the words of the translation that the translations of the document's other blocks holding
   the term share, and the blocks without it do not (a term rendered "Tirez" in one block is
   "Tirez" or "tirer" in the others: words are compared by their first four letters, so
   inflections meet);
3. only for a guess (``guess=True``, never for a fix): as many words as the term has, where the
   term stands in the source, scaled to the translation's length.

The fix (:func:`follow_glossary`) uses only the first two and returns None when they find
nothing or when the result would still fail the glossary check: the text stays the editor's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from fastdesk.translate.glossary import _SOURCE_SUFFIX, Glossary, _pattern

__all__ = ["follow_glossary", "guess_rendering", "rendering"]

_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
MAX_WORDS = 4  # the longest rendering looked for
MAX_CONTRAST = 200  # blocks without the term compared against (the first, in document order)
MIN_SCORE = 0.5  # shared by the term's blocks at least this much more than by the others


def _key(word: str) -> str:
    return word.casefold()[:4]


def _grams(text: str, longest: int = MAX_WORDS) -> list[tuple[int, int, tuple[str, ...]]]:
    """(start, end, word keys) of every run of 1 … ``longest`` words, in order."""
    words = list(_WORD.finditer(text))
    out = []
    for n in range(1, longest + 1):
        for i in range(len(words) - n + 1):
            run = words[i : i + n]
            out.append((run[0].start(), run[-1].end(), tuple(_key(w.group()) for w in run)))
    return out


def rendering(
    source: str,
    target: str,
    term: str,
    *,
    others: Iterable[tuple[str, str]] = (),
    avoid: str = "",
    guess: bool = False,
) -> tuple[int, int] | None:
    """The span of ``target`` that renders ``term`` of ``source`` (see the module); ``others``:
    (source, translation) of the document's other blocks; ``avoid``: a rendering the answer is
    known not to use (the glossary's: blocks that follow it say nothing of the wrong one)."""
    found = _pattern(term, _SOURCE_SUFFIX).search(target)
    if found is not None:
        return found.start(), found.end()
    span = _shared(target, term, others, avoid)
    if span is None and guess:
        span = _by_position(source, target, term)
    return span


def _shared(
    target: str, term: str, others: Iterable[tuple[str, str]], avoid: str
) -> tuple[int, int] | None:
    has_term = _pattern(term, _SOURCE_SUFFIX)
    avoided = _pattern(avoid) if avoid.strip() else None
    with_term: list[set[tuple[str, ...]]] = []
    without: list[set[tuple[str, ...]]] = []
    for src, dst in others:
        if has_term.search(src):
            if avoided is None or not avoided.search(dst):
                with_term.append({g for _s, _e, g in _grams(dst)})
        elif len(without) < MAX_CONTRAST:
            without.append({g for _s, _e, g in _grams(dst)})
    if not with_term:
        return None
    best: tuple[float, int, int, int] | None = None
    for start, end, gram in _grams(target):
        a = sum(gram in keys for keys in with_term) / len(with_term)
        b = sum(gram in keys for keys in without) / len(without) if without else 0.0
        score = a - b
        if score < MIN_SCORE:
            continue
        rank = (-score, len(gram), start, end)
        if best is None or rank < best:
            best = rank
    return (best[2], best[3]) if best is not None else None


def _by_position(source: str, target: str, term: str) -> tuple[int, int] | None:
    """As many words as the term has, where it stands in the source, scaled to the target."""
    at = _pattern(term, _SOURCE_SUFFIX).search(source)
    theirs = list(_WORD.finditer(source))
    ours = list(_WORD.finditer(target))
    if at is None or not theirs or not ours:
        return None
    first = sum(w.start() < at.start() for w in theirs)
    size = max(1, len(_WORD.findall(at.group())))
    i = min(round(first * len(ours) / len(theirs)), len(ours) - 1)
    j = min(i + size, len(ours))
    return ours[i].start(), ours[j - 1].end()


def guess_rendering(
    source: str, target: str, term: str, others: Iterable[tuple[str, str]] = ()
) -> str:
    """The words of ``target`` most likely to render ``term`` ("" when the source does not
    hold the term): a proposal the editor confirms."""
    span = rendering(source, target, term, others=others, guess=True)
    return target[span[0] : span[1]] if span is not None else ""


def follow_glossary(
    source: str,
    target: str,
    glossary: Glossary,
    lang: str | None,
    others: Sequence[tuple[str, str]] = (),
) -> str | None:
    """``target`` with each wrong rendering of a glossary term the source holds replaced by the
    glossary's (a kept term: the term); None when one is not found with the first two steps
    (see the module) or when the result would still fail the check."""
    if not glossary.check(source, target, lang):
        return None
    occurring = glossary.for_text(source, lang)
    wanted = [(t, t) for t in occurring.keep_for(lang)]
    wanted += list(occurring.terms_for(lang).items()) if lang else []
    out = target
    for term, rendered in wanted:
        one = (
            Glossary(keep=(term,))
            if term == rendered
            else Glossary(translate={lang or "": {term: rendered}})
        )
        if not one.check(source, out, lang):
            continue
        span = rendering(source, out, term, others=others, avoid=rendered)
        if span is None:
            return None
        start, end = span
        was = out[start:end]
        new = rendered[:1].upper() + rendered[1:] if was[:1].isupper() else rendered
        out = out[:start] + new + out[end:]
    return out if out != target and not glossary.check(source, out, lang) else None
