"""Glossaries: terms a translation must keep as they are, and terms it must translate one fixed way.

A glossary is loaded from TOML files (or TBX, CSV and TSV files from translation tools:
``glossary_formats``) (a global one named by the settings, then the one found next to
the document; later files win) and then cut down per block with :meth:`Glossary.for_text`, so the
prompt only carries the entries that block needs and the translation memory key (the cut-down
glossary's :attr:`Glossary.version`) only changes when an entry that matters to the block changes.

File format::

    [keep]
    terms = ["fastdesk", "Groq", "Cerebras"]

    [translate.fr]
    "pull request" = "demande de fusion"

``keep = ["fastdesk", ...]`` (a plain array) is accepted too. Language keys are BCP-47 codes; a
lookup for ``fr-CA`` uses the ``fr`` table with the ``fr-CA`` entries on top. For one language a
forced translation beats a kept term; a later file that keeps a term drops the earlier files'
translations of it.
"""

from __future__ import annotations

import hashlib
import json
import re
import stat
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

import ahocorasick

from fastdesk.config.fileio import (
    MAX_STATE_BYTES,
    BrokenFile,
    FileError,
    Outside,
    decode_state_text,
    parse_toml,
    read_confined,
    read_state_text,
)
from fastdesk.document.verbatim import mask
from fastdesk.translate.events import Flag
from fastdesk.translate.glossary_formats import EXCHANGE_SUFFIXES, read_exchange

FOLDER_GLOSSARY = ".fastdesk-glossary.toml"
# the same from a translation tool (first found wins): see glossary_formats
FOLDER_GLOSSARIES = (
    FOLDER_GLOSSARY,
    *(f".fastdesk-glossary{s}" for s in (".tbx", ".tsv", ".csv")),
)

_LANG_RE = re.compile(r"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*$")
# Inflections tolerated on a forced translation's words in the answer (demande → demandes,
# solicitud → solicitudes, Anfrage → Anfragen): a glossary gives one form, a sentence needs another.
_TARGET_SUFFIX = r"(?:s|x|es|e|n|en)?"
# Plural tolerated on a source term (pull request → pull requests).
_SOURCE_SUFFIX = r"(?:s|es)?"


class GlossaryError(Exception):
    """A glossary file that cannot be used; the message names the file and, when known, the line."""

    def __init__(self, path: Path | str, line: int | None, reason: str) -> None:
        self.path = Path(path)
        self.line = line
        self.reason = reason
        where = f"{self.path}" if line is None else f"{self.path}, line {line}"
        super().__init__(f"{where}: {reason}")


def normalize_lang(lang: str) -> str:
    """BCP-47 tags are case-insensitive; ``pt_BR`` is a common misspelling of ``pt-BR``."""
    return lang.strip().replace("_", "-").lower()


def primary_subtag(lang: str) -> str:
    """``fr-CA`` → ``fr``: the fallback table, and the key of per-language rules elsewhere."""
    return normalize_lang(lang).split("-", 1)[0]


@lru_cache(maxsize=4096)
def _pattern(term: str, suffix: str = "", per_word: bool = False) -> re.Pattern[str]:
    """Whole-word, case-insensitive match of ``term``; any run of whitespace matches a space.
    ``suffix`` is allowed after the last word (or, with ``per_word``, after every word)."""
    words = term.split()
    parts = [re.escape(w) for w in words]
    for i, word in enumerate(words):
        if word[-1:].isalpha() and (per_word or i == len(words) - 1):
            parts[i] += suffix
    return re.compile(r"(?<!\w)" + r"\s+".join(parts) + r"(?!\w)", re.IGNORECASE)


@lru_cache(maxsize=4096)
def _verbatim(form: str) -> re.Pattern[str]:
    """The exact spelling as a whole word (a German genitive s aside: Fastdesks)."""
    return re.compile(r"(?<!\w)" + re.escape(form) + r"s?(?!\w)")


@dataclass(frozen=True)
class Glossary:
    """Kept terms (all languages) and forced translations (per target language)."""

    keep: tuple[str, ...] = ()
    translate: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Normalized language keys: lookups and the version ignore spelling (fr-ca, fr_CA, fr-CA).
        tables: dict[str, dict[str, str]] = {}
        for lang, table in self.translate.items():
            tables.setdefault(normalize_lang(lang), {}).update(table)
        object.__setattr__(self, "translate", {k: v for k, v in tables.items() if v})
        object.__setattr__(self, "keep", tuple(self.keep))
        # each language's merged terms and their automaton, built once (see _Lookup), and
        # the last texts' entries: caches, not part of the glossary's value
        self._per_lang: dict[str | None, _Lookup]
        self._for_text: dict[tuple[str, str | None], Glossary]
        object.__setattr__(self, "_per_lang", {})
        object.__setattr__(self, "_for_text", {})

    def __hash__(self) -> int:
        return hash(self.version)

    def _lookup(self, lang: str | None) -> _Lookup:
        key = normalize_lang(lang) if lang else None
        found = self._per_lang.get(key)
        if found is None:
            with _BUILDING:  # the engine checks answers on worker threads: build it once
                found = self._per_lang.get(key)
                if found is None:
                    found = self._per_lang[key] = _Lookup.build(self, key)
        return found

    def __bool__(self) -> bool:
        return bool(self.keep or self.translate)

    @cached_property
    def version(self) -> str:
        """A short hash of the content, stable across runs and file order of the same entries."""
        content = {
            "keep": sorted(self.keep),
            "translate": {
                lang: sorted(table.items()) for lang, table in sorted(self.translate.items())
            },
        }
        blob = json.dumps(content, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()[:12]

    def terms_for(self, lang: str | None) -> dict[str, str]:
        """Forced translations for ``lang``: the primary subtag's table, the full tag's on top."""
        return dict(self._lookup(lang).terms)

    def keep_for(self, lang: str | None) -> tuple[str, ...]:
        """Kept terms, less those that ``lang`` translates a fixed way (the more specific rule)."""
        return self._lookup(lang).keep

    def for_text(self, text: str, lang: str | None) -> Glossary:
        """Only the entries that occur in ``text`` (whole words, any case), for ``lang``: in
        time linear in the text whatever the glossary's size (see _Lookup); the last texts'
        answers are kept, as the engine asks for a block's when it plans, sends and checks."""
        key = (text, normalize_lang(lang) if lang else None)
        cache = self._for_text
        found = cache.get(key)
        if found is None:
            lookup = self._lookup(lang)
            keep, table = lookup.occurring(text)
            found = Glossary(
                keep=keep, translate={normalize_lang(lang): table} if lang and table else {}
            )
            if len(cache) >= _CACHED_TEXTS:
                cache.pop(next(iter(cache), key), None)
            cache[key] = found
        return found

    def prompt_lines(self, lang: str | None) -> list[str]:
        """One self-contained instruction per line (the prompt may bullet them); empty if none."""
        lines: list[str] = []
        keep = self.keep_for(lang)
        if keep:
            terms = ", ".join(f'"{t}"' for t in keep)
            lines.append(f"Never translate these terms, write them exactly as given: {terms}.")
        lines.extend(f'Translate "{s}" as "{t}".' for s, t in self.terms_for(lang).items())
        return lines

    def check(self, source: str, answer: str, lang: str | None) -> list[Flag]:
        """Kept terms found in ``source`` must be in ``answer`` verbatim (the source's spelling or
        the glossary's: a sentence start may capitalize a lower-case brand);
        a forced translation's target must be in ``answer`` when its source term is in ``source``.
        ``lang=None`` (simplify mode: no translation) checks kept terms only. A term the
        source has only in code, a link's target or label, a URL or an identifier asks nothing
        (fastdesk.document.verbatim): those are names, not the prose the glossary governs."""
        flags: list[Flag] = []
        prose = mask(source)
        keep, table = self._lookup(lang).occurring(prose)
        for term in keep:
            forms = dict.fromkeys(m.group(0) for m in _pattern(term).finditer(prose))
            flags.extend(
                Flag("glossary", f'"{form}" must stay as is, not found in the answer')
                for form in forms
                if not (_verbatim(form).search(answer) or _verbatim(term).search(answer))
            )
        for src, dst in table.items():
            if not _pattern(dst, _TARGET_SUFFIX, True).search(answer):
                flags.append(Flag("glossary", f'"{src}" must be translated as "{dst}"'))
        return flags


EMPTY = Glossary()
_CACHED_TEXTS = 256
_BUILDING = threading.Lock()


def _key(text: str) -> str:
    """What the automaton matches: case folded, each run of whitespace one space."""
    return " ".join(text.casefold().split())


@dataclass(frozen=True)
class _Lookup:
    """One language's terms, and an Aho–Corasick automaton (pyahocorasick) over them: which
    terms occur in a text is found in one pass over the text, whatever the glossary's size
    (5,000 terms tested one by one made a block cost seconds). The automaton finds candidates
    (case folded, any whitespace); each is then confirmed by the term's own whole-word
    pattern, so what counts as an occurrence is exactly what it was term by term."""

    terms: Mapping[str, str]  # forced translations: source → target, in the glossary's order
    keep: tuple[str, ...]
    automaton: Any  # ahocorasick.Automaton, or None when there are no terms
    entries: tuple[tuple[bool, str], ...]  # (forced?, term) by index, the automaton's values

    @classmethod
    def build(cls, glossary: Glossary, lang: str | None) -> _Lookup:
        merged: dict[str, tuple[str, str]] = {}  # casefold → (source, target): linear
        if lang:
            for key in dict.fromkeys((primary_subtag(lang), lang)):
                for source, target in glossary.translate.get(key, {}).items():
                    folded = source.casefold()
                    merged.pop(folded, None)
                    merged[folded] = (source, target)
        terms = dict(merged.values())
        keep = tuple(t for t in glossary.keep if t.casefold() not in merged)
        entries = tuple([(False, t) for t in keep] + [(True, s) for s in terms])
        automaton = None
        if entries:
            automaton = ahocorasick.Automaton()
            by_key: dict[str, list[int]] = {}
            for index, (_forced, term) in enumerate(entries):
                by_key.setdefault(_key(term), []).append(index)
            for key, indexes in by_key.items():
                if key:
                    automaton.add_word(key, tuple(indexes))
            if len(automaton):
                automaton.make_automaton()
            else:
                automaton = None
        return cls(terms, keep, automaton, entries)

    def occurring(self, text: str) -> tuple[tuple[str, ...], dict[str, str]]:
        """(kept terms, forced translations) that occur in ``text`` as whole words."""
        if self.automaton is None or not text:
            return (), {}
        found: set[int] = set()
        for _end, indexes in self.automaton.iter(_key(text)):
            found.update(indexes)
        keep, table = [], {}
        for index in sorted(found):
            forced, term = self.entries[index]
            if _pattern(term, _SOURCE_SUFFIX if forced else "").search(text) is None:
                continue
            if forced:
                table[term] = self.terms[term]
            else:
                keep.append(term)
        return tuple(keep), table


# --- files ------------------------------------------------------------------------------------


def find_folder_glossary(doc_path: Path, root: Path | None = None) -> Path | None:
    """The nearest ``.fastdesk-glossary.toml`` (or TBX, TSV, CSV) in the document's folder or a
    parent (see :func:`find_nearest`)."""
    return find_nearest(doc_path, FOLDER_GLOSSARIES, root)


def find_nearest(doc_path: Path, names: Iterable[str], root: Path | None = None) -> Path | None:
    """The first of ``names`` in the document's folder or a parent (the glossary, the house
    style), stopping at ``root`` (a docs project's), the top of a git work tree (a folder
    holding ``.git``) or a project's configuration. Never in the user's home or above it, nor
    in a folder anyone may write to (``/tmp``): a file there would steer the prompts of every
    document below."""
    path = Path(doc_path).absolute()
    folder = path if path.is_dir() else path.parent
    home = Path.home().absolute()
    names = tuple(names)
    for candidate in (folder, *folder.parents):
        if candidate == home or candidate in home.parents or _anyone_writes(candidate):
            return None
        for name in names:
            found = candidate / name
            if found.is_file():
                return found
        if candidate == root or any((candidate / m).exists() for m in _TOPS):
            return None
    return None


# a folder holding one of these is the top of a repository or a docs project
_TOPS = (".git", ".fastdesk.toml", "mkdocs.yml", "mkdocs.yaml", "docusaurus.config.js", "hugo.toml")


def house_top(path: Path, root: Path | None = None) -> Path:
    """The folder a house file found at ``path`` must lie in, symlinks followed: ``root`` (a
    docs project's) when given, else the nearest folder at or above the file's that is a
    repository's or a project's top, else the file's own folder."""
    if root is not None:
        return root
    folder = Path(path).absolute().parent
    home = Path.home().absolute()
    for candidate in (folder, *folder.parents):
        if candidate == home or candidate in home.parents or _anyone_writes(candidate):
            break
        if any((candidate / m).exists() for m in _TOPS):
            return candidate
    return folder


def read_house_text(path: Path, root: Path | None = None, max_bytes: int = MAX_STATE_BYTES) -> str:
    """The text of a house file (a project's configuration, style, glossary, review sidecar):
    the one reader for them. Read only when it lies inside :func:`house_top` as the disk has it
    (:func:`fastdesk.config.fileio.read_confined`: a symlink out, or one swapped in while it is
    opened, is refused); UTF-8 (a BOM allowed) without NUL bytes (nothing binary is sent).
    FileNotFoundError, FileError (:class:`~fastdesk.config.fileio.Outside` for a path out) or
    BrokenFile, each naming the file."""
    data = read_confined(path, house_top(path, root), max_bytes)
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        raise BrokenFile(path, "holds NUL bytes (a binary file?): not read, nothing sent", line)
    return decode_state_text(data, path)


@dataclass(frozen=True)
class HouseFile:
    """A file of a project's house (not the user's own global glossary): read only inside
    ``root`` (see :func:`read_house_text`)."""

    path: Path
    root: Path | None = None


def _anyone_writes(folder: Path) -> bool:
    try:
        return bool(folder.stat().st_mode & stat.S_IWOTH)
    except OSError:
        return True


def load_glossary(paths: Iterable[Path | HouseFile]) -> Glossary:
    """Merge glossary files in order; a later file wins over an earlier one. A project's file
    comes as a :class:`HouseFile` (read inside its root); a plain path is the user's own."""
    keep: dict[str, str] = {}  # casefold → spelling
    tables: dict[str, dict[str, tuple[str, str]]] = {}  # lang → casefold source → (source, target)
    for path in paths:
        file_keep, file_tables = _read_file(path)
        for term in file_keep:
            folded = term.casefold()
            keep.pop(folded, None)
            keep[folded] = term
            for table in tables.values():
                table.pop(folded, None)
        for lang, entries in file_tables.items():
            table = tables.setdefault(lang, {})
            for source, target in entries.items():
                table.pop(source.casefold(), None)
                table[source.casefold()] = (source, target)
    return Glossary(
        keep=tuple(keep.values()),
        translate={lang: dict(pairs.values()) for lang, pairs in tables.items()},
    )


def _read_file(source: Path | HouseFile) -> tuple[list[str], dict[str, dict[str, str]]]:
    """One glossary file, strictly read (regular files only, size and nesting bounded). A bad
    one is the user's file: it is reported, never moved or changed."""
    path = Path(source.path) if isinstance(source, HouseFile) else Path(source)
    try:
        if isinstance(source, HouseFile):
            text = read_house_text(path, source.root)
        else:
            text = read_state_text(path)
        if path.suffix.lower() in EXCHANGE_SUFFIXES:  # TBX, CSV, TSV: from translation tools
            return read_exchange(path, text)
        data = parse_toml(text, path)
    except FileNotFoundError as exc:
        raise GlossaryError(path, None, "cannot read the glossary (no such file)") from exc
    except (BrokenFile, Outside) as exc:
        raise GlossaryError(path, exc.line, exc.reason) from exc
    except FileError as exc:
        raise GlossaryError(path, None, f"cannot read the glossary ({exc.reason})") from exc
    return _validate(path, text, data)


def _validate(
    path: Path, text: str, data: dict[str, object]
) -> tuple[list[str], dict[str, dict[str, str]]]:
    def fail(reason: str, *keys: str) -> GlossaryError:
        return GlossaryError(path, _line_of(text, keys), reason)

    unknown = [k for k in data if k not in ("keep", "translate")]
    if unknown:
        raise fail(
            f"unknown section {unknown[0]!r} (expected [keep] and [translate.LANG])", *unknown
        )
    keep_value = data.get("keep", [])
    if isinstance(keep_value, dict):
        extra = [k for k in keep_value if k != "terms"]
        if extra:
            raise fail(f"unknown key {extra[0]!r} in [keep] (expected terms = [...])", extra[0])
        keep_value = keep_value.get("terms", [])
    if not isinstance(keep_value, list):
        raise fail("keep terms must be an array of strings", "terms", "keep")
    for term in keep_value:
        if not isinstance(term, str) or not term.strip():
            raise fail(f"keep terms must be non-empty strings, not {term!r}", "terms", "keep")
    translate = data.get("translate", {})
    if not isinstance(translate, dict):
        raise fail("translate must be tables such as [translate.fr]", "translate")
    tables: dict[str, dict[str, str]] = {}
    for lang, table in translate.items():
        if not _LANG_RE.match(lang):
            raise fail(f"{lang!r} is not a language code such as fr or pt-BR", lang)
        if not isinstance(table, dict):
            raise fail(f"[translate.{lang}] must be a table of term = translation", lang)
        for source, target in table.items():
            if not isinstance(target, str) or not target.strip() or not source.strip():
                raise fail(f"[translate.{lang}] {source!r} must map to a non-empty string", source)
        tables.setdefault(normalize_lang(lang), {}).update(
            {s.strip(): t.strip() for s, t in table.items()}
        )
    return [t.strip() for t in keep_value], tables


def _line_of(text: str, keys: Iterable[str]) -> int | None:
    """Best-effort line of a key, for messages about well-formed TOML with the wrong content."""
    lines = text.splitlines()
    for key in keys:
        pattern = re.compile(r"""(?:^|[\s.\["'])""" + re.escape(key) + r"""(?:$|[\s.\]"'=])""")
        for number, line in enumerate(lines, 1):
            if pattern.search(line):
                return number
    return None
