"""Find and replace in a text: the rule behind the window's find bar, without Qt.

Why a module of its own: case, whole word and regular expression combine into one pattern, and a
replacement may refer to groups; both deserve plain unit tests, and the bar only shows results.
Positions are Python indices; the bar converts them to Qt's UTF-16 positions.
"""

from __future__ import annotations

import bisect
import dataclasses
import re
from collections.abc import Collection
from dataclasses import dataclass

from fastdesk.document.target import TargetView
from fastdesk.document.text_ends import common_suffix
from fastdesk.document.verbatim import verbatim_spans

__all__ = [
    "BadPattern",
    "Change",
    "Query",
    "find_all",
    "plan",
    "replace_in_blocks",
    "replacement",
    "summary",
    "verbatim_count",
    "with_case_of",
]


class BadPattern(ValueError):
    """A regular expression that does not compile; the message is one line for the bar."""


@dataclass(frozen=True)
class Query:
    text: str
    case: bool = False  # match case
    word: bool = False  # whole words only
    regex: bool = False  # ``text`` is a regular expression (Python syntax)
    # the replacement takes each match's case: all lower, Capitalised or UPPER (as VS Code's
    # "preserve case": "pull request" → "demande de fusion" gives "Demande de fusion" on
    # "Pull request" and "DEMANDE DE FUSION" on "PULL REQUEST")
    preserve_case: bool = False
    # matches in code (spans and blocks) and link targets count too; off, they are passed over
    # (fastdesk.document.verbatim): "(#preprocessors)" is an anchor, not a word of the prose
    code: bool = False

    def pattern(self) -> re.Pattern[str]:
        body = self.text if self.regex else re.escape(self.text)
        if self.word:
            body = rf"(?<!\w)(?:{body})(?!\w)"
        flags = re.MULTILINE | (0 if self.case else re.IGNORECASE)
        try:
            return re.compile(body, flags)
        except re.error as exc:
            raise BadPattern(f"Not a valid regular expression: {exc}") from None


def find_all(text: str, query: Query) -> list[re.Match[str]]:
    """Every non-empty match of ``query`` in ``text``, in order (an empty query finds nothing);
    without ``query.code``, none that touches code or a link target."""
    if not query.text:
        return []
    found = [m for m in query.pattern().finditer(text) if m.end() > m.start()]
    if query.code or not found:
        return found
    spans = verbatim_spans(text)
    starts = [start for start, _end in spans]

    def in_verbatim(match: re.Match[str]) -> bool:
        k = bisect.bisect_right(starts, match.start()) - 1
        if k >= 0 and match.start() < spans[k][1]:
            return True
        return k + 1 < len(spans) and spans[k + 1][0] < match.end()

    return [m for m in found if not in_verbatim(m)]


def verbatim_count(text: str, query: Query) -> int:
    """How many matches ``find_all`` passes over as code or link targets (0 with ``code``)."""
    if query.code or not query.text:
        return 0
    every = dataclasses.replace(query, code=True)
    return len(find_all(text, every)) - len(find_all(text, query))


def replacement(match: re.Match[str], query: Query, template: str) -> str:
    """What replaces ``match``: ``template`` as written, or with ``\\1``/``\\g<name>`` expanded
    for a regular expression."""
    if query.regex:
        try:
            text = match.expand(template)
        except (re.error, IndexError) as exc:
            raise BadPattern(f"Not a valid replacement: {exc}") from None
    else:
        text = template
    return with_case_of(match.group(), text) if query.preserve_case else text


def with_case_of(found: str, text: str) -> str:
    """``text`` in the case pattern of ``found``: UPPER (two letters or more, all capitals),
    Capitalised (first letter a capital) or all lower; otherwise ``text`` as written."""
    letters = [c for c in found if c.isalpha()]
    if not letters:
        return text
    if len(letters) > 1 and all(c.isupper() for c in letters):
        return text.upper()
    if letters[0].isupper():
        at = next((i for i, c in enumerate(text) if c.isalpha()), None)
        return text if at is None else text[:at] + text[at].upper() + text[at + 1 :]
    if all(c.islower() for c in letters):
        return text.lower()
    return text


@dataclass(frozen=True)
class Change:
    """One match and what replaces it, for the Replace All preview: where it is (Python
    indices into the text), the words around it, and the block it starts in ("" without
    blocks)."""

    start: int
    end: int
    old: str
    new: str
    before: str  # up to CONTEXT characters of its line before the match
    after: str  # and after it
    block: str = ""
    verbatim: bool = False  # in code or a link target (found only with Query.code)


CONTEXT = 30


def plan(text: str, query: Query, template: str, view: TargetView | None = None) -> list[Change]:
    """Every change Replace All would make in ``text``, in order, for the editor to accept or
    skip one by one (BadPattern for a bad pattern or replacement). With ``view`` (the
    translation's blocks), each change names the block it starts in."""
    starts = [start for _bid, start, _end in view.spans] if view and view.spans else []
    code = verbatim_spans(text) if query.code else []
    out = []
    for match in find_all(text, query):
        start, end = match.span()
        line_start = text.rfind("\n", 0, start) + 1
        line_end = text.find("\n", end)
        line_end = len(text) if line_end < 0 else line_end
        before = text[max(line_start, start - CONTEXT) : start]
        after = text[end : min(line_end, end + CONTEXT)]
        block = view.spans[_span_index(starts, start)][0] if view and starts else ""
        new = replacement(match, query, template)
        verbatim = any(a < end and start < b for a, b in code)
        out.append(Change(start, end, match.group(), new, before, after, block, verbatim))
    return out


def summary(count: int, blocks: int | None = None, unit: str = "block") -> str:
    """What Replace All did, for the bar: "Replaced 12 in 9 blocks" ("Nothing replaced")."""
    if not count:
        return "Nothing replaced"
    where = f" in {blocks} {unit}{'s' if blocks != 1 else ''}" if blocks is not None else ""
    return f"Replaced {count}{where}"


def replace_in_blocks(
    view: TargetView, query: Query, template: str, only: Collection[int] | None = None
) -> tuple[list[tuple[str, str]], int]:
    """Replace every match of ``query`` in ``view.text`` at once: the blocks whose text changed,
    with their new texts (in block order), and how many matches there were.

    Why: the target's Replace All edits blocks as the editor's corrections, and replacing one
    match at a time rescanned the whole pane for each (20 s at 7,000 blocks). Each match goes
    to the blocks a typed edit of it would (``review.model.diff_target_edit``, with the match's
    start as where the edit began): its start's block takes the replacement, blocks it swallows
    whole become "", and the block holding its end keeps what follows it. BadPattern for a bad
    pattern or replacement. ``only``: the indices (in order of ``find_all``) of the matches to
    replace, the others skipped (the preview's choice); None: all.
    """
    if not view.spans:
        return [], 0
    matches = find_all(view.text, query)
    if only is not None:
        matches = [m for k, m in enumerate(matches) if k in only]
    news = [replacement(m, query, template) for m in matches]
    texts = {bid: view.text[start:end] for bid, start, end in view.spans}
    starts = [start for _bid, start, _end in view.spans]
    for match, new in zip(reversed(matches), reversed(news), strict=True):
        old = match.group()
        same_end = common_suffix(old, new)  # the edit ends where the two stop differing
        at, old_end = match.start(), match.end() - same_end
        first = _span_index(starts, at)
        last = _span_index(starts, old_end - 1) if old_end > at else first
        bid, start, _end = view.spans[first]
        last_bid, last_start, _last_end = view.spans[last]
        tail = texts[last_bid][old_end - last_start :]
        texts[bid] = texts[bid][: at - start] + new[: len(new) - same_end]
        for k in range(first + 1, last + 1):
            texts[view.spans[k][0]] = ""
        texts[last_bid if last > first else bid] += tail
    changed = [
        (bid, texts[bid]) for bid, start, end in view.spans if texts[bid] != view.text[start:end]
    ]
    return changed, len(matches)


def _span_index(starts: list[int], offset: int) -> int:
    """The block holding ``offset``; an insertion at the very end belongs to the last block."""
    return max(0, min(bisect.bisect_right(starts, offset) - 1, len(starts) - 1))
