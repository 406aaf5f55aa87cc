"""House style: a team's instructions to the model, per project and language, shared by git.

A ``.fastdesk-style.md`` file at the project's root or beside the documents (found like the
folder glossary: :func:`fastdesk.translate.glossary.find_nearest`) holds level-2 sections::

    # House style            (text before the first section is for people: not sent)

    ## All languages
    Audience: administrators. Short sentences. Metric units.

    ## fr
    Vouvoyer le lecteur. « Courriel », jamais « e-mail ».

    ## Simplify
    Reading level: B1

``## All languages`` (or ``## All``) applies to every request; ``## fr`` to French (``## fr-CA``
on top of it for Canadian French); ``## Simplify`` to simplify mode, where a ``Reading level:``
line sets the target (:mod:`fastdesk.translate.readability`). A file without any section is all
one ``All languages`` section.

The applicable text goes first in the system message after the fixed rules and before the
glossary: it is the same for every request of a project and language, so the providers' prompt
caches (Groq's and Cerebras's are automatic, by exact prefix) serve it. Its digest is part of the
translation memory key, so editing one language's section makes that language's blocks stale and
no other's (:func:`blocks_affected` counts them).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from fastdesk.config.fileio import BrokenFile, FileError, Outside
from fastdesk.document.blocks import Document
from fastdesk.translate.glossary import (
    find_nearest,
    normalize_lang,
    primary_subtag,
    read_house_text,
)
from fastdesk.translate.readability import ReadingLevel

STYLE_FILE = ".fastdesk-style.md"
MAX_STYLE_BYTES = 64 * 1024  # a style guide, not a book: it goes with every request

ALL = "all"
SIMPLIFY = "simplify"
_SECTION = re.compile(r"^##[ \t]+(.+?)[ \t]*#*[ \t]*$", re.MULTILINE)
_LANG = re.compile(r"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*$")
_IN_PARENS = re.compile(r"\(([A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*)\)\s*$")  # "French (fr)"
_READING = re.compile(r"^[ \t]*(?:[-*][ \t]+)?reading level[ \t]*:[ \t]*(.+?)[ \t]*$", re.I | re.M)
_FENCE = re.compile(r"^(?:```|~~~).*?^(?:```|~~~)[ \t]*$", re.MULTILINE | re.DOTALL)


class StyleError(Exception):
    """A style file that cannot be read: one line naming it."""


def _section_key(title: str) -> str | None:
    """``All languages`` → all, ``Simplify`` → simplify, ``fr-CA``/``French (fr-CA)`` → fr-ca."""
    low = title.strip().casefold()
    if low in ("all", "all languages", "every language", "*"):
        return ALL
    if low in ("simplify", "simplification", "plain language"):
        return SIMPLIFY
    m = _IN_PARENS.search(title)
    code = m.group(1) if m else title.strip()
    return normalize_lang(code) if _LANG.match(code) else None


@dataclass(frozen=True)
class Style:
    """The sections of a style file (key → text) and a reading level given outside it."""

    sections: Mapping[str, str] = field(default_factory=dict)
    reading_level: ReadingLevel | None = None  # the window's or --reading-level: beats the file
    path: Path | None = None
    warnings: tuple[str, ...] = ()  # what in the file is not used, one line each

    def __bool__(self) -> bool:
        return bool(self.sections) or self.reading_level is not None

    def text_for(self, mode: str, lang: str | None) -> str:
        """The instructions that apply to one request, as sent (empty: none)."""
        keys = [ALL]
        if mode == SIMPLIFY:
            keys.append(SIMPLIFY)
        elif lang:
            keys += list(dict.fromkeys((primary_subtag(lang), normalize_lang(lang))))
        parts = [self.sections[k].strip() for k in keys if self.sections.get(k, "").strip()]
        level = self.level(mode)
        if level is not None:
            parts = [_READING.sub("", p).strip() for p in parts]
            parts = [p for p in parts if p]
            parts.append(level.instruction())
        return "\n\n".join(parts)

    def level(self, mode: str) -> ReadingLevel | None:
        """Simplify's target reading level: the one given outside the file, else the file's."""
        if mode != SIMPLIFY:
            return None
        if self.reading_level is not None:
            return self.reading_level
        for key in (SIMPLIFY, ALL):
            m = _READING.search(_FENCE.sub("", self.sections.get(key, "")))
            if m:
                try:
                    return ReadingLevel.parse(m.group(1))
                except ValueError:  # said once, by parse_style's warnings
                    return None
        return None

    def version(self, mode: str, lang: str | None) -> str:
        """A short digest of :meth:`text_for` ("" without any): part of the memory key."""
        text = self.text_for(mode, lang)
        if not text:
            return ""
        return hashlib.blake2b(text.encode(), digest_size=6).hexdigest()

    def with_level(self, level: ReadingLevel | None) -> Style:
        return Style(self.sections, level, self.path, self.warnings)


EMPTY = Style()


def parse_style(text: str, path: Path | None = None) -> Style:
    """Sections by their level-2 headings (headings inside fenced code are text)."""
    fences = [m.span() for m in _FENCE.finditer(text)]
    heads = [m for m in _SECTION.finditer(text) if not any(a <= m.start() < b for a, b in fences)]
    if not heads:
        return _checked(Style({ALL: text.strip()} if text.strip() else {}, path=path))
    sections: dict[str, str] = {}
    warnings: list[str] = []
    for i, m in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        key = _section_key(m.group(1))
        body = text[m.end() : end].strip("\n")
        if key is None:
            warnings.append(
                f'section "{m.group(1).strip()}" is not used (sections: All languages, '
                "Simplify, or a language code such as fr)"
            )
            continue
        sections[key] = f"{sections[key]}\n\n{body}" if key in sections else body
    return _checked(Style(sections, path=path, warnings=tuple(warnings)))


def _checked(style: Style) -> Style:
    """The style with a warning for a reading level it cannot use."""
    for key in (SIMPLIFY, ALL):
        m = _READING.search(_FENCE.sub("", style.sections.get(key, "")))
        if m:
            try:
                ReadingLevel.parse(m.group(1))
            except ValueError as exc:
                return Style(style.sections, None, style.path, (*style.warnings, str(exc)))
            break
    return style


def find_style_file(doc_path: Path, root: Path | None = None) -> Path | None:
    """The nearest ``.fastdesk-style.md`` beside the document or above it, as the folder
    glossary is found (not above ``root``, the project's, a git work tree's top or a project's
    configuration; never in the home folder or a folder anyone may write to)."""
    return find_nearest(doc_path, (STYLE_FILE,), root)


def load_style(path: Path, root: Path | None = None) -> Style:
    """The style file at ``path``, read inside ``root`` (the project's; see
    :func:`fastdesk.translate.glossary.read_house_text`); StyleError (one line) when it cannot
    be read or leads outside."""
    try:
        return parse_style(read_house_text(path, root, MAX_STYLE_BYTES), path)
    except FileNotFoundError:
        raise StyleError(f"{path}: cannot read the style file (no such file)") from None
    except (Outside, BrokenFile) as exc:
        raise StyleError(f"{path}: style file {exc.detail}") from None
    except FileError as exc:
        raise StyleError(f"{path}: cannot read the style file ({exc.reason})") from None


def blocks_affected(
    doc: Document, old: Style | None, new: Style | None, mode: str, lang: str
) -> int:
    """How many blocks of ``doc`` a change of style from ``old`` to ``new`` sends again in
    ``lang`` when that language's instructions changed (else none): as the planner sends them
    (fastdesk.translate.planning.plan), translatable blocks with text, a text repeated in
    several blocks once (code, front matter and link definitions are copied, never sent)."""
    before = old.version(mode, lang) if old else ""
    after = new.version(mode, lang) if new else ""
    if before == after:
        return 0
    cores = (b.split()[1] for b in doc.blocks if b.translatable)
    return len({core for core in cores if core.strip()})
