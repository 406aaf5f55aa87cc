"""The translation memory as TMX 1.4b, the exchange format of every translation-memory tool.

One ``<tu>`` per source text (a block, Markdown and all, as plain text in ``<seg>``), with a
``<tuv>`` for the source and one per target language. Written and read with the standard
library. Imported entries are stored under the current prompt version, so a later translation
of the same block is answered from memory, with no request.
"""

from __future__ import annotations

import xml.etree.ElementTree as etree
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from fastdesk import __version__
from fastdesk.config.fileio import xml_text
from fastdesk.translate.engine import JobSpec
from fastdesk.translate.glossary import Glossary
from fastdesk.translate.memory import Memory, MemoryKey
from fastdesk.translate.prompts import PROMPT_VERSION

__all__ = ["TmxError", "TmxUnit", "export_tmx", "import_tmx", "read_tmx", "write_tmx"]

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
        root = etree.parse(path).getroot()
    except (OSError, etree.ParseError) as exc:
        raise TmxError(f"{path}: not readable XML ({exc})") from None
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


def import_tmx(memory: Memory, units: Iterable[TmxUnit], glossary: Glossary | None) -> int:
    """Store every target of ``units`` as a translation; returns how many were stored."""

    keys, stored = [], 0
    for unit in units:
        for lang, text in unit.targets:
            spec = JobSpec(target_lang=lang, glossary=glossary)  # the key the engine looks up
            used = spec.glossary_for(unit.source)
            key = MemoryKey(
                unit.source, spec.mode, lang, PROMPT_VERSION, used.version if used else ""
            )
            if memory.put(key, text, provider="tmx", model="tmx"):
                keys.append((key, unit.source_lang))
                stored += 1
    for source_lang in {s for _k, s in keys}:
        memory.remember([k for k, s in keys if s == source_lang], source_lang)
    return stored
