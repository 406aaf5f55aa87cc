"""Where a Markdown text is not prose: code blocks and spans, link targets, reference labels and
definitions, autolinks and bare URLs, dotted identifiers.

Why: a word there is a name a program or a link depends on. Replace All passes over these
places unless asked (``(#preprocessors)`` is an anchor, `` `markdown.preprocessors` `` a module),
and the glossary check does not ask a translation to carry a term the source has only there.
A scan by regular expressions, line by line for fences (CommonMark 4.5's opening and closing
runs), inline for the rest; positions are Python indices into the text.
"""

from __future__ import annotations

import re

__all__ = ["mask", "verbatim_spans"]

Span = tuple[int, int]

_FENCE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})")
_INDENTED_RUN = re.compile(r"(?:^|\n\n)((?:(?: {4}|\t)[^\n]*(?:\n|$))+)")
_CODE_SPAN = re.compile(r"(?<![`\\])(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)
# ](target "title"): the part after "](" up to the closing parenthesis (one level nested)
_DESTINATION = re.compile(r"\]\(((?:[^()\s]|\([^()\s]*\))*)")
_REFERENCE = re.compile(r"\[[^\[\]\n]*\]\[([^\[\]\n]*)\]")  # [text][label]: the label
_DEFINITION = re.compile(r"^[ ]{0,3}\[[^\[\]\n]+\]:[ \t]*\S+.*$", re.MULTILINE)
_AUTOLINK = re.compile(r"<[A-Za-z][A-Za-z0-9.+-]{1,31}:[^<>\s]*>|<[^<>\s@]+@[^<>\s@]+>")
_BARE_URL = re.compile(r"(?<![\w/@.])(?:https?|ftp)://[^\s<>\"'`\[\]()]+|(?<![\w/@.])www\.\S+")
_IDENTIFIER = re.compile(r"(?<![\w.])[A-Za-z_]\w+(?:(?:\.|::)[A-Za-z_]\w+)+(?:\(\))?(?![\w])")


def _fences(text: str) -> list[Span]:
    """Fenced code blocks, fences included (an unclosed one runs to the end)."""
    spans: list[Span] = []
    at, opened, run = 0, -1, ""
    for line in text.splitlines(keepends=True):
        found = _FENCE.match(line)
        if opened < 0 and found:
            opened, run = at, found.group(1)
        elif opened >= 0 and found and _closes(found.group(1), run, line[found.end() :]):
            spans.append((opened, at + len(line)))
            opened = -1
        at += len(line)
    if opened >= 0:
        spans.append((opened, len(text)))
    return spans


def _closes(fence: str, run: str, rest: str) -> bool:
    """A closing fence: the opening's character, at least as many, nothing after it."""
    return fence[0] == run[0] and len(fence) >= len(run) and not rest.strip()


def verbatim_spans(text: str) -> list[Span]:
    """The places of ``text`` that are not prose, sorted and merged."""
    spans = _fences(text)
    blocked = list(spans)

    def outside(start: int) -> bool:
        return not any(a <= start < b for a, b in blocked)

    for m in _INDENTED_RUN.finditer(text):
        if outside(m.start(1)) and not _in_list(text, m.start(1)):
            spans.append(m.span(1))
    for pattern, group in (
        (_CODE_SPAN, 0),
        (_DESTINATION, 1),
        (_REFERENCE, 1),
        (_DEFINITION, 0),
        (_AUTOLINK, 0),
        (_BARE_URL, 0),
        (_IDENTIFIER, 0),
    ):
        for m in pattern.finditer(text):
            if m.end(group) > m.start(group) and outside(m.start(group)):
                spans.append(m.span(group))
    return _merged(spans)


def _in_list(text: str, start: int) -> bool:
    """An indented run right after a list item is the item's continuation, not code."""
    before = text[:start].rstrip("\n")
    last = before[before.rfind("\n") + 1 :]
    return bool(re.match(r"\s*(?:[-*+]|\d{1,9}[.)])\s", last)) or last.startswith((" ", "\t"))


def _merged(spans: list[Span]) -> list[Span]:
    out: list[Span] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def mask(text: str, spans: list[Span] | None = None) -> str:
    """``text`` with its verbatim places blanked (spaces; line ends kept): positions stay."""
    chars = list(text)
    for start, end in verbatim_spans(text) if spans is None else spans:
        for k in range(start, end):
            if chars[k] != "\n":
                chars[k] = " "
    return "".join(chars)
