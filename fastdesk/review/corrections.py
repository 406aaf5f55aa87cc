"""The editor's approved corrections, read from the review files, as the model's examples and as
glossary entries the editor has been making by hand.

A correction is a block whose reviewer's text was edited and then approved (its source is the
one the edit was made against, still the block's: a stale edit is not one). They are read from
the ``*.fastdesk.json`` review files of a docs project (or of a lone document's folder), without
changing any file: a review file that cannot be used is skipped here (opening its document says
why and sets it aside).

An editor who replaces the same word the same way in several blocks ("tirer" → "extraire" in
three) is writing a glossary entry one block at a time: :func:`propose_entries` finds those,
with the source term the blocks share, for the window and ``fastdesk glossary suggest`` to offer.
"""

from __future__ import annotations

import logging
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from fastdesk.config.fileio import MAX_DOCUMENT_STATE_BYTES, FileError, parse_json
from fastdesk.document.word_diff import word_diff
from fastdesk.review.model import SIDECAR_SUFFIX, Review, review_path
from fastdesk.translate.examples import Example, words
from fastdesk.translate.glossary import Glossary, read_house_text

__all__ = [
    "MIN_REPEATS",
    "Proposal",
    "corrections",
    "propose_entries",
    "review_corrections",
    "review_files",
]

log = logging.getLogger(__name__)

MIN_REPEATS = 3  # the same change in this many blocks is a rule, not a one-off
MAX_TERM_WORDS = 3
MAX_REVIEW_FILES = 2000  # a project's worth: beyond it the corrections of the first are used
_SKIP_DIRS = frozenset({".git", "node_modules", ".venv", "site", "build", "public"})
_TERM = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")


def review_files(folder: Path, *, recursive: bool = True) -> list[Path]:
    """The review files under ``folder`` (a project's root; a lone document's folder with
    ``recursive=False``), in a stable order, at most MAX_REVIEW_FILES."""
    found: list[Path] = []
    if recursive:
        for path in sorted(folder.rglob(f"*{SIDECAR_SUFFIX}")):
            if not _SKIP_DIRS.intersection(path.relative_to(folder).parts[:-1]):
                found.append(path)
    else:
        found = sorted(folder.glob(f"*{SIDECAR_SUFFIX}"))
    return [p for p in found if p.is_file()][:MAX_REVIEW_FILES]


def corrections(files: Iterable[Path], lang: str, root: Path | None = None) -> list[Example]:
    """Every approved correction in ``lang`` in these review files (source, correction, the
    machine's answer it corrected), file by file in document order. Each is read only inside
    ``root`` (the project's; else its own folder): a review file linked to one outside is not
    sent as an example."""
    out: list[Example] = []
    for path in files:
        review = _review(path, lang, root if root is not None else path.absolute().parent)
        if review is not None:
            out += review_corrections(review)
    return out


def review_corrections(review: Review) -> list[Example]:
    """The approved corrections of one review (an open document's, unsaved changes too)."""
    out: list[Example] = []
    doc = review.doc
    if doc is None:
        return out
    # only the blocks with a reviewer's record (few), in document order: the window asks at
    # every change of the review
    where = {}
    for bid in review.overlay():
        try:
            where[bid] = doc.index_of(bid)
        except KeyError:
            continue  # a record of a block the source lost
    for bid in sorted(where, key=where.__getitem__):
        block = doc.blocks[where[bid]]
        info = review.info(block.id)
        if not (info.edited and info.approved and info.text) or info.state == "stale_edit":
            continue
        machine = (info.machine or "").strip()
        if info.text.strip() == machine:
            continue  # edited back to what the machine said: nothing to learn
        out.append(Example(block.split()[1].strip(), info.text.strip(), machine))
    return out


def _review(path: Path, lang: str, root: Path) -> Review | None:
    """The review of one language from a review file, read only (never set aside here)."""
    source = path.with_name(path.name.removesuffix(SIDECAR_SUFFIX))
    if review_path(source) != path:
        return None
    try:
        data = parse_json(read_house_text(path, root, MAX_DOCUMENT_STATE_BYTES), path)
        entry = data.get("languages", {}).get(lang) if isinstance(data, dict) else None
        return Review.from_dict(entry, source) if isinstance(entry, dict) else None
    except (FileError, ValueError, AttributeError) as exc:
        log.info("corrections: %s skipped (%s)", path, exc)
        return None


# ---- glossary entries the editor keeps making ---------------------------------------------------


@dataclass(frozen=True)
class Proposal:
    """The same change made in ``count`` blocks: ``before`` → ``after`` in the target, for
    ``source_term`` in the source (None when the blocks share no telling word)."""

    before: str
    after: str
    count: int
    source_term: str | None
    lang: str

    def message(self) -> str:
        line = f'you changed "{self.before}" to "{self.after}" {self.count} times'
        if self.source_term:
            line += f' (for "{self.source_term}")'
        return line + ": add to the glossary?"


def propose_entries(
    examples: Sequence[Example],
    lang: str,
    *,
    glossary: Glossary | None = None,
    min_repeats: int = MIN_REPEATS,
) -> list[Proposal]:
    """Word changes (one to three words replaced by one to three) made the same way in at
    least ``min_repeats`` different blocks, most frequent first; none the glossary already
    says for ``lang``."""
    where: dict[tuple[str, str], dict[str, tuple[str, str]]] = defaultdict(dict)
    for example in examples:
        if not example.machine:
            continue
        for before, after in _replacements(example.machine, example.target):
            key = (before.casefold(), after.casefold())
            where[key].setdefault(example.source, (before, after))
    known = {t.casefold() for t in (glossary.terms_for(lang).values() if glossary else ())}
    frequency = Counter(w for e in examples for w in words(e.source))
    out: list[Proposal] = []
    for (_b, after_folded), sources in where.items():
        if len(sources) < min_repeats or after_folded in known:
            continue
        before, after = Counter(sources.values()).most_common(1)[0][0]
        out.append(
            Proposal(before, after, len(sources), _source_term(list(sources), frequency), lang)
        )
    out.sort(key=lambda p: (-p.count, p.before.casefold(), p.after))
    return out


def _replacements(machine: str, corrected: str) -> list[tuple[str, str]]:
    """(removed, added) for each change of a few whole words into a few others."""
    pieces = word_diff(machine, corrected)
    out: list[tuple[str, str]] = []
    for i, piece in enumerate(pieces):
        if piece.op != "delete" or i + 1 >= len(pieces) or pieces[i + 1].op != "insert":
            continue
        before, after = piece.text.strip(), pieces[i + 1].text.strip()
        if all(_is_term(t) for t in (before, after)) and before.casefold() != after.casefold():
            out.append((before, after))
    return out


def _is_term(text: str) -> bool:
    parts = text.split()
    return 0 < len(parts) <= MAX_TERM_WORDS and all(_TERM.fullmatch(p) for p in parts)


def _source_term(sources: Sequence[str], frequency: Counter[str]) -> str | None:
    """The word every one of these sources has that the other corrections' sources have least
    (the term the change is about, not "the"), as the first source spells it."""
    shared = set.intersection(*(set(words(s)) for s in sources))
    if not shared:
        return None
    best = min(shared, key=lambda w: (frequency[w], -len(w), w))
    if frequency[best] > 2 * len(sources):  # in most blocks: a common word, not the term
        return None
    m = re.search(rf"(?<!\w){re.escape(best)}(?!\w)", sources[0], re.IGNORECASE)
    return m.group(0) if m else best
