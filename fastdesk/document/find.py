"""Find and replace in a text: the rule behind the window's find bar, without Qt.

Why a module of its own: case, whole word and regular expression combine into one pattern, and a
replacement may refer to groups; both deserve plain unit tests, and the bar only shows results.
Positions are Python indices; the bar converts them to Qt's UTF-16 positions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["BadPattern", "Query", "find_all", "replacement"]


class BadPattern(ValueError):
    """A regular expression that does not compile; the message is one line for the bar."""


@dataclass(frozen=True)
class Query:
    text: str
    case: bool = False  # match case
    word: bool = False  # whole words only
    regex: bool = False  # ``text`` is a regular expression (Python syntax)

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
    """Every non-empty match of ``query`` in ``text``, in order (an empty query finds nothing)."""
    if not query.text:
        return []
    return [m for m in query.pattern().finditer(text) if m.end() > m.start()]


def replacement(match: re.Match[str], query: Query, template: str) -> str:
    """What replaces ``match``: ``template`` as written, or with ``\\1``/``\\g<name>`` expanded
    for a regular expression."""
    if not query.regex:
        return template
    try:
        return match.expand(template)
    except (re.error, IndexError) as exc:
        raise BadPattern(f"Not a valid replacement: {exc}") from None
