"""Consistency across a document and a project: the QA pass every CAT tool has (Xbench,
Verifika, memoQ QA, Trados) and the per-block checks cannot do, since it looks at many blocks.

* One source, several translations: the same source block (whitespace aside) translated two
  ways, in one document or across a project's pages; an editor picks one and uses it
  everywhere (:func:`use_everywhere`).
* Several sources, one translation: two different source blocks given the same translation
  (one of them is probably wrong; a sentence of one word is left out, "OK" and "Okay").
* Glossary drift: how each glossary term is rendered, per language and page; a term rendered
  other than the glossary says, or two ways, drifts (:func:`glossary_drift`).

Qt-free and deterministic: a window's problems list, its drift view and the command line's
report read the same results.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from fastdesk.translate.glossary import Glossary, _pattern
from fastdesk.translate.term_align import rendering

SEVERAL_TRANSLATIONS = "several translations"
ONE_TRANSLATION = "one translation"
MIN_WORDS_SHARED = 2  # two sources of one word each may share a translation ("OK", "Okay")
NOT_FOUND = ""  # a term whose rendering could not be found in a block's translation


@dataclass(frozen=True, slots=True)
class Unit:
    """One translated block: where it is, its source and its translation into ``lang``."""

    document: str
    block: int  # the block's index in its document
    line: int  # its first source line (1-based)
    source: str
    translation: str
    lang: str


@dataclass(frozen=True, slots=True)
class Place:
    document: str
    block: int
    line: int

    def as_dict(self) -> dict[str, object]:
        return {"document": self.document, "block": self.block, "line": self.line}


@dataclass(frozen=True, slots=True)
class Variant:
    """One of the texts an inconsistency is between, and where each is."""

    text: str
    places: tuple[Place, ...]

    def as_dict(self) -> dict[str, object]:
        return {"text": self.text, "places": [p.as_dict() for p in self.places]}


@dataclass(frozen=True, slots=True)
class Inconsistency:
    """``kind`` SEVERAL_TRANSLATIONS: ``shared`` is the source, ``variants`` its translations;
    ONE_TRANSLATION: ``shared`` is the translation, ``variants`` the sources given it."""

    kind: str
    lang: str
    shared: str
    variants: tuple[Variant, ...]

    @property
    def places(self) -> tuple[Place, ...]:
        return tuple(p for v in self.variants for p in v.places)

    def detail(self) -> str:
        """One line for a problems list."""
        if self.kind == SEVERAL_TRANSLATIONS:
            return f"this source is translated {len(self.variants)} ways in {self._where()}"
        return f"{len(self.variants)} different sources have this one translation ({self._where()})"

    def _where(self) -> str:
        documents = {p.document for p in self.places}
        return "this document" if len(documents) == 1 else f"{len(documents)} documents"

    def as_dict(self) -> dict[str, object]:
        key = "source" if self.kind == SEVERAL_TRANSLATIONS else "translation"
        name = "translations" if self.kind == SEVERAL_TRANSLATIONS else "sources"
        return {
            "kind": self.kind,
            "lang": self.lang,
            key: self.shared,
            name: [v.as_dict() for v in self.variants],
        }


def _norm(text: str) -> str:
    return " ".join(text.split())


def inconsistencies(units: Iterable[Unit]) -> list[Inconsistency]:
    """Every source translated several ways, and every translation given to several sources,
    per target language, in the order they first occur."""
    by_source: dict[tuple[str, str], dict[str, list[Place]]] = defaultdict(dict)
    by_translation: dict[tuple[str, str], dict[str, list[Place]]] = defaultdict(dict)
    for unit in units:
        source, translation = _norm(unit.source), _norm(unit.translation)
        if not source or not translation or source == translation:
            continue  # code, a name, a number: kept as it is, nothing to compare
        place = Place(unit.document, unit.block, unit.line)
        by_source[(unit.lang, source)].setdefault(translation, []).append(place)
        if len(source.split()) >= MIN_WORDS_SHARED:
            by_translation[(unit.lang, translation)].setdefault(source, []).append(place)
    found = [
        Inconsistency(kind, lang, shared, tuple(Variant(t, tuple(p)) for t, p in texts.items()))
        for kind, table in ((SEVERAL_TRANSLATIONS, by_source), (ONE_TRANSLATION, by_translation))
        for (lang, shared), texts in table.items()
        if len(texts) > 1
    ]
    return sorted(
        found,
        key=lambda i: (i.places[0].document, i.places[0].block, i.kind != SEVERAL_TRANSLATIONS),
    )


class Tracker:
    """Which keys (blocks) are in an inconsistency, kept up to date one block at a time: the
    window's problems list follows a long document's answers as they stream in, and a pass
    over every block each time grew with the document (bench_ui.py --problems)."""

    def __init__(self) -> None:
        self._of: dict[str, tuple[str, str]] = {}  # key → (source, translation), normalized
        self._sources: dict[str, Counter[str]] = defaultdict(Counter)  # source → translations
        self._translations: dict[str, Counter[str]] = defaultdict(Counter)  # the reverse
        self._keys: dict[tuple[int, str], set[str]] = defaultdict(set)  # (side, text) → keys
        self._odd: set[tuple[int, str]] = set()  # groups with more than one variant

    def clear(self) -> None:
        self.__init__()  # type: ignore[misc]

    def put(self, key: str, source: str, translation: str | None) -> None:
        """``key``'s source and translation now (None: it has none)."""
        self.drop(key)
        src, dst = _norm(source), _norm(translation or "")
        if not src or not dst or src == dst:
            return
        self._of[key] = (src, dst)
        self._change((0, src), self._sources[src], dst, key, 1)
        if len(src.split()) >= MIN_WORDS_SHARED:
            self._change((1, dst), self._translations[dst], src, key, 1)

    def drop(self, key: str) -> None:
        old = self._of.pop(key, None)
        if old is None:
            return
        src, dst = old
        self._change((0, src), self._sources[src], dst, key, -1)
        if len(src.split()) >= MIN_WORDS_SHARED:
            self._change((1, dst), self._translations[dst], src, key, -1)

    def _change(
        self, group: tuple[int, str], counts: Counter[str], variant: str, key: str, by: int
    ) -> None:
        counts[variant] += by
        if counts[variant] <= 0:
            del counts[variant]
        keys = self._keys[group]
        (keys.add if by > 0 else keys.discard)(key)
        if len(counts) > 1:
            self._odd.add(group)
        else:
            self._odd.discard(group)

    def odd(self) -> set[str]:
        """The keys of every group with more than one variant."""
        return {key for group in self._odd for key in self._keys[group]}


def use_everywhere(inconsistency: Inconsistency, chosen: str) -> list[tuple[Place, str]]:
    """The edits that give every place of a SEVERAL_TRANSLATIONS inconsistency the ``chosen``
    translation: (place, new translation) for each place that has another one."""
    if inconsistency.kind != SEVERAL_TRANSLATIONS:
        raise ValueError("only a source translated several ways has one translation to use")
    if chosen not in {v.text for v in inconsistency.variants}:
        raise ValueError("the chosen translation is not one of the source's")
    return [(p, chosen) for v in inconsistency.variants if v.text != chosen for p in v.places]


# --- glossary drift --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TermUse:
    """How one glossary term is rendered into ``lang``: each rendering and where (NOT_FOUND:
    no rendering found in that block's translation)."""

    term: str
    lang: str
    expected: str | None  # the glossary's translation; None: a kept term (stays as is)
    renderings: tuple[tuple[str, tuple[Place, ...]], ...]

    @property
    def drifts(self) -> bool:
        """Rendered two ways, or other than the glossary says."""
        texts = {r for r, _p in self.renderings}
        want = self.expected if self.expected is not None else self.term
        return len(texts) > 1 or any(r.casefold() != want.casefold() for r in texts)

    def pages(self) -> dict[str, dict[str, int]]:
        """Per document: rendering → how many blocks."""
        out: dict[str, dict[str, int]] = {}
        for text, places in self.renderings:
            for place in places:
                row = out.setdefault(place.document, {})
                row[text] = row.get(text, 0) + 1
        return out

    def as_dict(self) -> dict[str, object]:
        return {
            "term": self.term,
            "lang": self.lang,
            "expected": self.expected,
            "drifts": self.drifts,
            "renderings": [
                {"text": text, "places": [p.as_dict() for p in places]}
                for text, places in self.renderings
            ],
        }


def glossary_drift(units: Sequence[Unit], glossary: Glossary) -> list[TermUse]:
    """Each glossary term that occurs in the units' sources, per target language: its
    renderings across pages (found as the term-alignment fix finds them: the glossary's
    translation, the term itself, or the words the document's blocks holding the term share)."""
    by_doc: dict[tuple[str, str], list[Unit]] = defaultdict(list)
    for unit in units:
        by_doc[(unit.document, unit.lang)].append(unit)
    uses: dict[tuple[str, str], dict[str, list[Place]]] = {}
    expected: dict[tuple[str, str], str | None] = {}
    for (_document, lang), doc_units in by_doc.items():
        terms: dict[str, str | None] = dict.fromkeys(glossary.keep_for(lang))
        terms.update(glossary.terms_for(lang))
        others = [(u.source, u.translation) for u in doc_units]
        for term, wanted in terms.items():
            pattern = _pattern(term)
            for unit in doc_units:
                if not pattern.search(unit.source):
                    continue
                text = _rendered(unit, term, wanted, others)
                table = uses.setdefault((term, lang), {})
                table.setdefault(text, []).append(Place(unit.document, unit.block, unit.line))
                expected[(term, lang)] = wanted
    return [
        TermUse(term, lang, expected[(term, lang)], tuple((t, tuple(p)) for t, p in table.items()))
        for (term, lang), table in sorted(uses.items())
    ]


def _rendered(unit: Unit, term: str, wanted: str | None, others: list[tuple[str, str]]) -> str:
    target = unit.translation
    if wanted is not None:
        hit = _pattern(wanted).search(target)
        if hit is not None:
            return wanted
    span = rendering(unit.source, target, term, others=others, avoid=wanted or "")
    if span is None:
        return NOT_FOUND
    text = target[span[0] : span[1]]
    if wanted is None and text.casefold() == term.casefold():
        return term
    return text
