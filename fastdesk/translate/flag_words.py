"""How a check's flag is put to an editor: a short name in plain words, and why it matters when
the flag's own detail says nothing. The problems list, the review's records and the bilingual
export all say a flag this way (the check names themselves are never shown)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PLAIN_WORDS", "CheckWords", "plain_flag", "plain_words"]


@dataclass(frozen=True, slots=True)
class CheckWords:
    """How a flag is put to an editor: a short name, and why it matters when the flag's own
    detail says nothing."""

    name: str
    why: str


PLAIN_WORDS: dict[str, CheckWords] = {
    "thinking": CheckWords(
        "model's reasoning left in", "the model wrote about the task, not only the translation"
    ),
    "code": CheckWords("code block changed", "code must come back byte for byte"),
    "inline_code": CheckWords("code span changed", "code spans are names and commands"),
    "links": CheckWords(
        "link target changed", "a link or image points elsewhere than the source's"
    ),
    "html": CheckWords("HTML tags changed", "the source's HTML tags and attributes must stay"),
    "placeholders": CheckWords(
        "placeholder changed", "template placeholders are filled in by software, not read"
    ),
    "structure": CheckWords(
        "structure changed", "headings, lists, tables and paragraphs must match the source"
    ),
    "glossary": CheckWords("glossary term not followed", "the glossary says how this term goes"),
    "accents": CheckWords("accents missing", "the language's accented letters are missing"),
    "numbers": CheckWords(
        "number changed", "a number, date, version or unit of the source is not in the answer"
    ),
    "omission": CheckWords("text left out", "a sentence is missing or left in the source language"),
    "failed": CheckWords("translation failed", "the request for this block failed"),
    "not_translated": CheckWords(
        "not translated: answer rejected",
        "the model's answer was not a translation: the source is shown",
    ),
    "dialect": CheckWords("site syntax changed", "the site generator's markup must stay"),
    "admonition": CheckWords(
        "admonition type changed", "the site generator knows its admonition types by name"
    ),
    "readability": CheckWords(
        "harder to read", "the simplified text reads harder than its source by the formula"
    ),
    "repeated": CheckWords(
        "same answer as other blocks",
        "several different blocks got this one answer: the model may have stopped translating",
    ),
}
"""Every flag's plain-language name and reason, by the check name it carries (never shown)."""


def plain_words(check: str) -> CheckWords:
    """The editor's words for a flag; an unknown check (a newer version's) gets neutral ones."""
    return PLAIN_WORDS.get(check) or CheckWords("needs a look", "a check failed on this block")


def plain_flag(check: str, detail: str) -> tuple[str, str]:
    """(name, reason) of a flag for an editor. The reason is what differs, without the label
    the name says already ("link target changed: a → b" gives "a → b"), else why it matters."""
    words = plain_words(check)
    head, sep, rest = detail.partition(" changed: ")
    if sep and ";" not in detail and len(head) < 30:
        detail = rest
    return words.name, detail or words.why
