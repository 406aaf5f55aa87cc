"""The editor's corrections as examples for the model: a fix made once is not needed again.

An example is a block's source and the text an editor approved after correcting the machine's
answer (collected from the review files: :mod:`fastdesk.review.corrections`). For each request
the few whose source is most like the text go into the system message, after the house style
and the glossary (:func:`fastdesk.translate.prompts.system_prompt`), within a token budget, and
never the text itself: the last user message stays the text to translate, exactly.

Similarity is the Jaccard index of the two texts' word sets (casefolded): cheap, deterministic,
and it favours blocks about the same things, which is what makes a correction worth repeating.
Only the corrections sharing a word with the text are scored, through an index by word: a
project's thousands of corrections cost a request little (docs/performance.md).
Examples are hints, not instructions: they are not part of the memory key (a new correction
does not make every block stale; the memory keeps answers the editor can re-translate).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from functools import cached_property

from fastdesk.providers.base import estimate_tokens

__all__ = ["Example", "ExampleBank", "words"]

DEFAULT_LIMIT = 3
DEFAULT_BUDGET_TOKENS = 400
MIN_SIMILARITY = 0.15  # below it an example teaches nothing about this text
_WORD = re.compile(r"[^\W_]{2,}")


def words(text: str) -> frozenset[str]:
    """The casefolded words of a text (two letters or more: "a", "à" say nothing)."""
    return frozenset(w.casefold() for w in _WORD.findall(text))


def _unique(examples: Iterable[Example]) -> tuple[Example, ...]:
    """Non-empty examples, one per source (the same source corrected twice: the later one)."""
    unique: dict[str, Example] = {}
    for example in examples:
        if example.source.strip() and example.target.strip():
            unique[example.source.strip()] = example
    return tuple(unique.values())


@dataclass(frozen=True)
class Example:
    """A source block, the machine's answer and the editor's approved correction of it."""

    source: str
    target: str
    machine: str = ""

    @cached_property
    def words(self) -> frozenset[str]:
        return words(self.source)

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.source) + estimate_tokens(self.target) + 6


class ExampleBank:
    """The corrections of one project and language, searched by likeness to a text.

    Given a function rather than the examples, it reads them when first asked (on the
    engine's thread, for the window: reading a project's review files is not the GUI's work)."""

    def __init__(self, examples: Iterable[Example] | Callable[[], Iterable[Example]]) -> None:
        self._load = examples if callable(examples) else None
        self._base: tuple[Example, ...] = ()  # the files' (or the given) examples
        self._extra: tuple[Example, ...] = ()  # the open document's, on top: see update
        # the examples and their index (word → the examples whose source has it), swapped as
        # one: the engine's thread picks while the window's thread updates
        self._state: tuple[tuple[Example, ...], dict[str, list[int]]] = ((), {})
        self._lock = threading.Lock()
        if not callable(examples):
            self._base = tuple(examples)
            self._fill()

    def _fill(self) -> None:
        examples = _unique((*self._base, *self._extra))
        index: dict[str, list[int]] = {}
        for n, example in enumerate(examples):
            for word in example.words:
                index.setdefault(word, []).append(n)
        self._state = (examples, index)

    def update(self, extra: Iterable[Example]) -> None:
        """The open document's approved corrections (unsaved ones too), on top of the files':
        the window gives them at each approval, so the next request has them at once (the
        files are read again only when the document is opened or saved)."""
        extra = tuple(extra)
        with self._lock:
            if extra == self._extra:
                return
            self._extra = extra
            if self._load is None:
                self._fill()

    def _loaded(self) -> tuple[tuple[Example, ...], dict[str, list[int]]]:
        if self._load is not None:
            with self._lock:
                if self._load is not None:
                    self._base = tuple(self._load())
                    self._fill()
                    self._load = None
        return self._state

    @property
    def examples(self) -> tuple[Example, ...]:
        return self._loaded()[0]

    def __len__(self) -> int:
        return len(self.examples)

    def __bool__(self) -> bool:
        return bool(self.examples)

    def __repr__(self) -> str:
        return "ExampleBank(…)" if self._load is not None else f"ExampleBank({len(self)})"

    def pick(
        self,
        text: str,
        *,
        exclude: Collection[str] = (),
        limit: int = DEFAULT_LIMIT,
        budget_tokens: int = DEFAULT_BUDGET_TOKENS,
    ) -> list[tuple[str, str]]:
        """Up to ``limit`` (source, correction) pairs most like ``text``, together within
        ``budget_tokens``; never one whose source is ``text`` or one of ``exclude`` (the blocks
        of the request: the model would copy the answer, not learn from it)."""
        wanted = words(text)
        skip = {t.strip() for t in (text, *exclude)}
        examples, index = self._loaded()
        shared: dict[int, int] = {}  # only the examples with a word in common are scored
        for word in wanted:
            for n in index.get(word, ()):
                shared[n] = shared.get(n, 0) + 1
        scored = sorted(
            (
                (common / (len(wanted) + len(examples[n].words) - common), examples[n].source, n)
                for n, common in shared.items()
                if examples[n].source.strip() not in skip
            ),
            key=lambda item: (-item[0], item[1]),
        )
        out: list[tuple[str, str]] = []
        spent = 0
        for score, _source, n in scored:
            example = examples[n]
            if score < MIN_SIMILARITY or len(out) >= limit:
                break
            if spent + example.tokens > budget_tokens:
                continue  # a long one does not crowd out a shorter, nearly as good one
            spent += example.tokens
            out.append((example.source.strip(), example.target.strip()))
        return out
