"""What needs the editor's attention, block by block: the problems list (Qt-free).

Derived from the target model alone and never stored: a block's problems are a function of its
review state, its flags and whether it is in flight. They are worked out again only for the
blocks the changes it is given name (the session's stream: Change.blocks), the rest keep the
same Problem objects (a list view diffs them by identity), and nothing is done while nothing
changed: a pass over every block grows with the document, and answers stream in many times a
second (figures: docs/performance.md, "The problems list at 7,000 blocks").

Each block shows in one kind, the first that applies: source changed since your edit (stale),
its request failed (failed, or retrying), not translated yet (untranslated), a check failed
(flagged: one row per failed check, in the editor's words; an edited block is checked again on
the editor's text), translated but not approved yet (unapproved). Approved blocks and blocks
kept as they are (code, front matter) need nothing. Besides, each error the reviewer model found
in what the block shows is a row of its MQM category's kind (accuracy, fluency, terminology,
style, locale: fastdesk.review.quality), so that the list filters them by category; and each
block whose source the document translates another way elsewhere, or whose translation another
source has too, is a consistency row (fastdesk.translate.consistency; one pass over the
document's shown texts when anything changed).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from heapq import merge
from itertools import chain
from typing import NamedTuple

from fastdesk.document.blocks import Block, Document
from fastdesk.review.model import Review
from fastdesk.review.session import Change
from fastdesk.review.target_model import TargetModel
from fastdesk.translate.checks import check_block
from fastdesk.translate.consistency import SEVERAL_TRANSLATIONS, Tracker, Unit, inconsistencies
from fastdesk.translate.events import Flag
from fastdesk.translate.flag_words import plain_flag, plain_words
from fastdesk.translate.glossary import Glossary
from fastdesk.translate.mqm import QualityReview
from fastdesk.translate.restore import RESTORABLE, restore
from fastdesk.translate.term_align import follow_glossary

__all__ = [
    "KINDS",
    "KIND_LABELS",
    "REVIEW_KINDS",
    "Problem",
    "ProblemList",
    "block_counts",
    "consistency_rows",
    "excerpt",
    "fix",
    "other_pairs",
    "step",
    "use_everywhere",
]

REVIEW_KINDS = ("accuracy", "fluency", "terminology", "style", "locale")  # MQM's top level
KINDS = ("flagged", "failed", "stale", "untranslated", "unapproved", "consistency", *REVIEW_KINDS)
KIND_LABELS = {
    "consistency": "Consistency",
    "flagged": "Flagged",
    "failed": "Failed",
    "stale": "Source changed",
    "untranslated": "Not translated",
    "unapproved": "Not approved",
    **{kind: kind.capitalize() for kind in REVIEW_KINDS},
}
_UNAPPROVED = {
    "machine": "machine translation, not checked",
    "memory": "from the translation memory, not checked",
    "edited": "your edit, not approved",
}
_EXCERPT = 60
CONSISTENCY = "consistency"  # a consistency row's check: its source is translated other ways
CONSISTENCY_SHARED = "consistency:shared"  # its translation is another source's too
_NOTHING: tuple[tuple[object, ...], tuple[Problem, ...]] = ((), ())


class Problem(NamedTuple):
    """One row of the list: a block, what is wrong with it and why, in the editor's words.
    (A named tuple: thousands are made when a long document opens, five times faster.)"""

    block_id: str
    block_index: int  # the block's position in the document
    line: int  # its first line in the source (1-based)
    kind: str  # one of KINDS
    title: str  # "link target changed", "source changed since your edit" …
    reason: str  # what differs, or why it matters
    check: str = ""  # the failed check's name (flagged rows); never shown
    restorable: bool = False  # fix(…) can put the source's items (or the glossary's) back


class ProblemList:
    """The problems of ``model``'s document, in document order (see the module docstring)."""

    def __init__(self, model: TargetModel) -> None:
        self.model = model
        self.rows: tuple[Problem, ...] = ()
        self.glossary: Glossary | None = None  # the document's: an editor's text is checked too
        self._doc: Document | None = None
        # per translatable block, in document order: what its rows were made of, and its rows
        self._made: dict[str, tuple[tuple[object, ...], tuple[Problem, ...]]] = {}
        # the blocks the changes taken since the last refresh name (None: any block)
        self._due: set[str] | None = None
        self._seen: tuple[Review, int] | None = None  # the review and generation they told of
        self._tracker = Tracker()  # which blocks are in an inconsistency, block by block
        self._consistent_doc: Document | None = None  # the document the tracker holds

    def take(self, change: Change) -> None:
        """A change of the session's stream: its blocks are looked at on the next refresh."""
        if self._due is not None:
            if change.blocks is None:
                self._due = None
            else:
                self._due |= change.blocks
        review = self.model.review
        self._seen = (review, review.generation)

    def set_glossary(self, glossary: Glossary | None) -> None:
        """A new glossary for the document: every block is looked at again."""
        if glossary != self.glossary:
            self.glossary = glossary
            self._doc = None

    def refresh(self) -> bool:
        """Bring ``rows`` up to date with the model; True when they changed. Only the blocks
        the changes taken since name are looked at, unless any block may have changed (a new
        revision of the source, a reviewer's action, or a change of the review that no change
        told of)."""
        model = self.model
        review = model.review
        doc, changed, seen = model.doc, self._due, self._seen
        if seen is None or seen[0] is not review or seen[1] != review.generation:
            changed = None
        self._due, self._seen = set(), (review, review.generation)
        if doc is None:
            self._doc, self._made = None, {}
        elif changed is None or doc is not self._doc:
            self._doc = doc
            made = self._made
            self._made = {
                b.id: self._entry(b, i, made.get(b.id))
                for i, b in enumerate(doc.blocks)
                if b.translatable
            }
        elif changed:
            made = self._made
            for bid in changed:
                if bid in made:
                    index = doc.index_of(bid)
                    made[bid] = self._entry(doc.blocks[index], index, made[bid])
        else:
            return False
        blocks: Iterable[Problem] = chain.from_iterable(rows for _k, rows in self._made.values())
        # the document's consistency: rows of their own, merged in document order
        full = changed is None or doc is not self._consistent_doc
        self._consistent_doc = doc
        extra: Iterable[Problem] = self._consistency(doc, None if full else changed)
        new: tuple[Problem, ...] = tuple(merge(blocks, extra, key=_position))
        if new == self.rows:
            return False
        self.rows = new
        return True

    def _consistency(self, doc: Document | None, changed: set[str] | None) -> list[Problem]:
        """The consistency rows, the tracker told of the blocks that changed (all: None)."""
        tracker, review = self._tracker, self.model.review
        if doc is None:
            tracker.clear()
            return []
        if changed is None:
            tracker.clear()
            blocks = [b for b in doc.blocks if b.translatable]
        else:
            index_of = self.model.index_of
            blocks = [doc.blocks[i] for k in changed if (i := index_of(k)) is not None]
            for key in changed:
                tracker.drop(key)
        for block in blocks:
            if block.translatable:
                tracker.put(block.id, block.text, review.shown_text(block.id))
        return consistency_rows(self.model, doc, tracker.odd())

    def _entry(
        self,
        block: Block,
        index: int,
        old: tuple[tuple[object, ...], tuple[Problem, ...]] | None,
    ) -> tuple[tuple[object, ...], tuple[Problem, ...]]:
        """A block's rows, the same ones when nothing they are made of changed."""
        review, bid = self.model.review, block.id
        state = review.state_of(bid)
        if state == "approved" or state == "copy":
            return _NOTHING
        flags = review.flags_of(bid)
        flying = self.model.in_flight(bid)
        shown = review.shown_text(bid) if state in ("flagged", "edited") else None
        if state == "edited" and shown is not None:  # the checks judge the editor's text now
            flags = _edit_flags(block.text, shown, review.lang, self.glossary)
            state = "flagged" if flags else state
        verdict = self.model.quality_of(bid)
        key = (index, block.line, state, flags, flying, shown, verdict)
        if old is not None and old[0] == key:
            return old
        rows = self._make(block, index, state, flags, flying)
        return key, rows + _verdict_rows(block, index, verdict)

    def _make(
        self, block: Block, index: int, state: str, flags: tuple[Flag, ...], flying: bool
    ) -> tuple[Problem, ...]:
        bid, line = block.id, block.line
        common = _COMMON.get((state, flying)) if not flags else None
        if common is not None:
            return (Problem(bid, index, line, *common),)
        failed = [f for f in flags if f.check == "failed"]
        if state == "stale_edit":
            what = [("stale", "source changed since your edit", "re-translate, or keep yours")]
        elif failed and state in ("flagged", "in_flight"):
            title = "retrying" if flying else plain_words("failed").name
            what = [("failed", title, failed[0].detail or plain_words("failed").why)]
        elif state in ("pending", "in_flight") or state in _UNAPPROVED:
            return (Problem(bid, index, line, *_COMMON[state, flying]),)
        else:  # flagged: one row per failed check
            shown = self.model.review.shown_text(bid) or block.text
            out = []
            for flag in flags:
                title, reason = plain_flag(flag.check, flag.detail)
                fixes = (
                    flag.check in RESTORABLE and restore(block.text, shown, flag.check) is not None
                ) or (flag.check == "glossary" and bool(self.glossary))  # tried when asked
                # an answer that was not a translation leaves the source on show: the block is
                # not translated, and counts where the editor looks for those
                kind = "untranslated" if flag.check == "not_translated" else "flagged"
                out.append(Problem(bid, index, line, kind, title, reason, flag.check, fixes))
            return tuple(out)
        return tuple(Problem(bid, index, line, *w) for w in what)


def _position(problem: Problem) -> int:
    return problem.block_index


def consistency_rows(model: TargetModel, doc: Document | None, keys: set[str]) -> list[Problem]:
    """A row for each block of ``keys`` (those a Tracker found in an inconsistency) whose source
    is translated another way elsewhere in the document ("use this translation everywhere"
    fixes them all), and for each whose translation another source has too; approved blocks as
    well (an approved one may be the odd one out)."""
    if doc is None or not keys:
        return []
    review = model.review
    units = [
        Unit("", i, b.line, b.text, shown, review.lang)
        for key in keys
        if (i := model.index_of(key)) is not None
        and (shown := review.shown_text(key)) is not None
        and (b := doc.blocks[i]).translatable
    ]
    rows: list[Problem] = []
    for found in inconsistencies(units):
        several = found.kind == SEVERAL_TRANSLATIONS
        title = "translated differently" if several else "same translation, other source"
        for variant in found.variants:
            for place in variant.places:
                others = [v for v in found.variants if v is not variant]
                reason = f"{found.detail()}; also “{excerpt(others[0].text)}”"
                block = doc.blocks[place.block]
                check = CONSISTENCY if several else CONSISTENCY_SHARED
                rows.append(
                    Problem(
                        block.id,
                        place.block,
                        block.line,
                        "consistency",
                        title,
                        reason,
                        check,
                        several,
                    )
                )
    return sorted(rows, key=lambda p: p.block_index)


def use_everywhere(model: TargetModel, problem: Problem) -> dict[str, str]:
    """The edits that give every block of the document with ``problem``'s source the
    translation ``problem``'s block shows: block id → new text (empty when none is needed)."""
    doc = model.doc
    if problem.check != CONSISTENCY or doc is None or model.index_of(problem.block_id) is None:
        return {}
    chosen = model.review.shown_text(problem.block_id)
    source = " ".join(doc.by_id(problem.block_id).text.split())
    if chosen is None:
        return {}
    return {
        b.id: chosen
        for b in doc.blocks
        if b.translatable
        and b.id != problem.block_id
        and " ".join(b.text.split()) == source
        and model.review.shown_text(b.id) not in (None, chosen)
    }


def _verdict_rows(block: Block, index: int, verdict: QualityReview | None) -> tuple[Problem, ...]:
    """One row per error the reviewer model found: its category's kind, e.g. "mistranslation
    (critical)", and the span with the explanation."""
    if verdict is None:
        return ()
    return tuple(
        Problem(
            block.id,
            index,
            block.line,
            e.category.split("/")[0],
            f"{e.category.split('/')[-1]} ({e.severity})",
            f"“{e.span}”: {e.explanation}",
            f"review:{e.category}",
        )
        for e in verdict.errors
    )


_COMMON: dict[tuple[str, bool], tuple[str, str, str]] = {
    ("pending", False): ("untranslated", "not translated yet", ""),
    ("pending", True): ("untranslated", "being translated", ""),
    ("in_flight", True): ("untranslated", "being translated", ""),
    ("in_flight", False): ("untranslated", "being translated", ""),
    **{
        (state, flying): ("unapproved", "not approved yet", reason)
        for state, reason in _UNAPPROVED.items()
        for flying in (False, True)
    },
}


def block_counts(rows: tuple[Problem, ...] | list[Problem]) -> dict[str, int]:
    """How many blocks of each kind (a block with two failed checks is one flagged block), and
    under "" how many blocks in all: the one count every label of the list and the review
    summary shows, so that they agree."""
    seen: dict[str, set[str]] = {kind: set() for kind in KINDS}
    for row in rows:
        seen[row.kind].add(row.block_id)
    counts = {kind: len(ids) for kind, ids in seen.items()}
    counts[""] = len(set().union(*seen.values()))
    return counts


def fix(model: TargetModel, problem: Problem, glossary: Glossary | None = None) -> str | None:
    """The block's text with the source's link targets, code spans or placeholders put back
    (the problem's check), or a glossary term's wrong rendering replaced by the glossary's
    (found as fastdesk.translate.term_align says: the document's other blocks tell), or None
    when that cannot be done with certainty."""
    doc = model.doc
    if not problem.restorable or doc is None or model.index_of(problem.block_id) is None:
        return None
    source = doc.by_id(problem.block_id).text
    text = model.text_of(problem.block_id, final=True)
    if problem.check != "glossary":
        return restore(source, text, problem.check)
    if not glossary:
        return None
    lang = None if model.review.lang == "simplify" else model.review.lang
    return follow_glossary(source, text, glossary, lang, other_pairs(model, problem.block_id))


def other_pairs(model: TargetModel, block_id: str) -> list[tuple[str, str]]:
    """(source, what the target shows) of the document's other translated blocks: what tells
    which words render a term (fastdesk.translate.term_align)."""
    review, doc = model.review, model.doc
    return [
        (b.text, shown)
        for b in (doc.blocks if doc is not None else ())
        if b.translatable and b.id != block_id and (shown := review.shown_text(b.id))
    ]


def step(
    rows: tuple[Problem, ...] | list[Problem],
    here: int,
    current: int | None = None,
    *,
    back: bool = False,
) -> int | None:
    """The row F8 goes to from block ``here`` (Shift+F8: ``back``), wrapping around: the next
    row when row ``current`` is that block's, else the first problem of a block after it
    (before it). None when there are no problems."""
    if not rows:
        return None
    if current is not None and 0 <= current < len(rows) and rows[current].block_index == here:
        return (current + (-1 if back else 1)) % len(rows)
    if back:
        before = [n for n, p in enumerate(rows) if p.block_index < here]
        return before[-1] if before else len(rows) - 1
    return next((n for n, p in enumerate(rows) if p.block_index > here), 0)


@lru_cache(maxsize=1024)
def _edit_flags(
    source: str, text: str, key: str, glossary: Glossary | None = None
) -> tuple[Flag, ...]:
    """The checks on an editor's text, so that restoring one item of a block leaves its other
    problems listed; the document's glossary too, when the window knows it (an edit that
    drops an agreed term is listed like a machine answer that does)."""
    simplify = key == "simplify"
    return tuple(
        check_block(
            source,
            text,
            target_lang="" if simplify else key,
            mode=key if simplify else "translate",
            glossary=glossary,
        )
    )


def excerpt(text: str) -> str:
    """The start of a block's source on one line, for the list (made only for rows on screen)."""
    line = " ".join(text.split())
    return line if len(line) <= _EXCERPT else line[: _EXCERPT - 1] + "…"
