"""The translation memory as TMX 1.4b, the exchange format of every translation-memory tool.

One ``<tu>`` per source text (a block, Markdown and all, as plain text in ``<seg>``), with a
``<tuv>`` for the source and one per target language. Written and read with the standard
library. Imported entries are stored under the current prompt version, so a later translation
of the same block is answered from memory, with no request.
"""

from __future__ import annotations

import xml.etree.ElementTree as etree
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from fastdesk import __version__
from fastdesk.config.fileio import MAX_INTERCHANGE_BYTES, FileError, read_xml, xml_text
from fastdesk.document.languages import is_bcp47
from fastdesk.translate.checks import CARRIED_CHECKS, check_block
from fastdesk.translate.events import Flag
from fastdesk.translate.glossary import Glossary
from fastdesk.translate.job import JobSpec
from fastdesk.translate.memory import IMPORTED, Memory, MemoryKey
from fastdesk.translate.prompts import PROMPT_VERSION
from fastdesk.translate.style import Style

__all__ = ["TmxError", "TmxImport", "TmxUnit", "export_tmx", "import_tmx", "read_tmx", "write_tmx"]

_LANG = "{http://www.w3.org/XML/1998/namespace}lang"


class TmxError(ValueError):
    """Not a TMX file fastdesk can read; the message says why."""


@dataclass(frozen=True)
class TmxUnit:
    source_lang: str
    source: str
    targets: tuple[tuple[str, str], ...]  # (language, text)


def write_tmx(units: Iterable[TmxUnit]) -> str:
    units = list(units)
    langs = {u.source_lang for u in units}
    root = etree.Element("tmx", {"version": "1.4"})
    etree.SubElement(
        root,
        "header",
        {
            "creationtool": "fastdesk",
            "creationtoolversion": __version__,
            "segtype": "paragraph",
            "o-tmf": "fastdesk",
            "adminlang": "en",
            "srclang": langs.pop() if len(langs) == 1 else "*all*",
            "datatype": "plaintext",
        },
    )
    body = etree.SubElement(root, "body")
    for unit in units:
        tu = etree.SubElement(body, "tu", {"srclang": unit.source_lang})
        for lang, text in ((unit.source_lang, unit.source), *unit.targets):
            tuv = etree.SubElement(tu, "tuv", {_LANG: lang})
            etree.SubElement(tuv, "seg").text = text
    return xml_text(root)


def read_tmx(path: str | Path) -> list[TmxUnit]:
    try:
        root = read_xml(path, MAX_INTERCHANGE_BYTES)
    except FileError as exc:  # a named pipe, a device, too large, not XML
        raise TmxError(str(exc)) from None
    if root.tag != "tmx":
        raise TmxError(f"{path}: not a TMX file (its root is <{root.tag}>)")
    header = root.find("header")
    default = header.get("srclang", "*all*") if header is not None else "*all*"
    units = []
    for tu in root.iter("tu"):
        tuvs = [
            (tuv.get(_LANG) or tuv.get("lang") or "", "".join(seg.itertext()))
            for tuv in tu.findall("tuv")
            if (seg := tuv.find("seg")) is not None
        ]
        tuvs = [(lang, text) for lang, text in tuvs if lang]
        if len(tuvs) < 2:
            continue
        wanted = (tu.get("srclang") or default).lower()
        src = next((t for t in tuvs if t[0].lower() == wanted), tuvs[0])
        targets = tuple(t for t in tuvs if t is not src and t[1].strip())
        if targets:
            units.append(TmxUnit(src[0], src[1], targets))
    return units


def export_tmx(memory: Memory, lang: str | None = None) -> list[TmxUnit]:
    """The memory's translations (those whose source text it knows), grouped by source."""
    grouped: dict[tuple[str, str], dict[str, str]] = {}
    for key, answer, source_lang in memory.translations(lang):
        grouped.setdefault((source_lang, key.text), {}).setdefault(key.lang, answer)
    return [
        TmxUnit(slang, text, tuple(sorted(targets.items())))
        for (slang, text), targets in grouped.items()
    ]


@dataclass
class TmxImport:
    """What an import did: every figure the one-line summary gives."""

    offered: int = 0  # translations in the file
    stored: int = 0
    flagged: int = 0  # stored with the flags a model's answer would get (shown, to review)
    refused: int = 0  # not stored: a NUL byte, a language code that is not one
    brought_in: list[str] = field(default_factory=list)  # not stored: a link, code… changed
    kept: int = 0  # still in the memory once it is back within its limit

    def summary(self) -> str:
        parts = [f"kept {self.kept} of {self.offered} translations"]
        if self.flagged:
            parts.append(f"{self.flagged} flagged (to review)")
        if self.brought_in:
            parts.append(
                f"{len(self.brought_in)} refused (a link, code or placeholder not the source's)"
            )
        if self.refused:
            parts.append(f"{self.refused} refused (NUL bytes or bad language codes)")
        if self.kept < self.stored:
            parts.append(
                f"{self.stored - self.kept} did not fit in the memory (your own translations "
                "are never evicted for an import)"
            )
        return "; ".join(parts)


def import_tmx(
    memory: Memory,
    units: Iterable[TmxUnit],
    glossary: Glossary | None,
    style: Style | None = None,
    progress: Callable[[], None] | None = None,
) -> TmxImport:
    """Store every target of ``units`` as a translation, checked as a model's answer is, under
    the keys the engine looks up with this glossary and house style; says what was kept.

    A translation whose link targets, code, HTML or placeholders are not its source's is not
    stored (a model cannot change a link target: only a file can; each is named in
    :attr:`TmxImport.brought_in`); the other flags go with it, so a block it answers is
    flagged. Everything is stored in one transaction, once every unit is checked: an
    interruption (Ctrl+C) leaves the memory as it was. ``progress`` is called once a unit."""

    entries: list[tuple[MemoryKey, str, tuple[Flag, ...], str]] = []
    done = TmxImport()
    for unit in units:
        for lang, text in unit.targets:
            done.offered += 1
            if progress is not None:
                progress()
            if "\x00" in text or "\x00" in unit.source or not is_bcp47(lang):
                done.refused += 1
                continue
            # the key the engine looks up
            spec = JobSpec(target_lang=lang, glossary=glossary, style=style)
            used = spec.glossary_for(unit.source)
            key = MemoryKey(
                unit.source,
                spec.mode,
                lang,
                PROMPT_VERSION,
                used.version if used else "",
                spec.style_version,
            )
            flags = tuple(
                check_block(unit.source, text, target_lang=lang, mode=spec.mode, glossary=glossary)
            )
            carried = [f for f in flags if f.check in CARRIED_CHECKS]
            if carried:
                done.brought_in.append(f"{_excerpt(unit.source)} ({lang}): {carried[0].detail}")
                continue
            entries.append((key, text, flags, unit.source_lang))
            done.flagged += bool(flags)
    stored = memory.put_all(entries, provider=IMPORTED, model=IMPORTED)
    done.stored = stored or 0
    done.kept = memory.present([k for k, _t, _f, _s in entries]) if stored else 0
    return done


def _excerpt(text: str, limit: int = 60) -> str:
    """A unit's source, on one line, short enough to name it."""
    text = " ".join(text.split())
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")
