"""Glossaries from translation tools: TBX (TermBase eXchange, TBX-Basic and TBX v3) and
CSV/TSV tables (OmegaT's tab-separated ``source<TAB>target<TAB>comment``), read into the same
kept terms and forced translations as a TOML glossary (see ``glossary``).

TBX: the file's ``xml:lang`` (else ``en``) is the source language; each entry's first term in
another language is that language's translation of the entry's source term; a translation
equal to the source term keeps it as it is. Tables: a first row of language codes
(``en,fr,de``) names the columns; without one, the target language comes from the file name
(``glossary.fr.tsv``) and the columns are source, target, comment. An empty target keeps the
term. Lines starting with ``#`` are comments.
"""

from __future__ import annotations

import csv
import io
import re
import xml.etree.ElementTree as etree
from collections.abc import Iterable, Sequence
from pathlib import Path

from fastdesk.config.fileio import BrokenFile

__all__ = ["EXCHANGE_SUFFIXES", "neutralised", "read_exchange", "write_table"]

EXCHANGE_SUFFIXES = frozenset({".tbx", ".csv", ".tsv", ".tab"})
_LANG_RE = re.compile(r"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*$")
_XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"

Parsed = tuple[list[str], dict[str, dict[str, str]]]

# A cell a spreadsheet would take as a formula (or, for tab and CR, one that breaks out of its
# cell): OWASP's "CSV Injection" guidance is to prefix it with a single quote.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def read_exchange(path: Path, text: str) -> Parsed:
    """Kept terms and per-language translations from a .tbx, .csv or .tsv glossary.

    A file that cannot be read as one raises ``BrokenFile`` (the glossary reports it, with its
    line, as it does a broken TOML glossary)."""
    try:
        if path.suffix.lower() == ".tbx":
            return _tbx(text)
        return _table(path, text)
    except _Bad as exc:
        raise BrokenFile(path, exc.reason, exc.line) from None


class _Bad(Exception):
    def __init__(self, reason: str, line: int | None = None) -> None:
        super().__init__(reason)
        self.reason, self.line = reason, line


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _tbx(text: str) -> Parsed:
    try:
        root = etree.fromstring(text)
    except etree.ParseError as exc:
        raise _Bad(f"not valid TBX (XML): {exc}", exc.position[0]) from None
    if _local(root.tag) not in ("martif", "tbx"):
        raise _Bad(f"not a TBX file (its root is <{_local(root.tag)}>)")
    source_lang = (root.get(_XML_LANG) or "en").lower()
    keep: list[str] = []
    tables: dict[str, dict[str, str]] = {}
    for entry in root.iter():
        if _local(entry.tag) not in ("termEntry", "conceptEntry"):
            continue
        terms: dict[str, str] = {}
        for lang_set in entry:
            if _local(lang_set.tag) not in ("langSet", "langSec"):
                continue
            lang = (lang_set.get(_XML_LANG) or "").lower()
            term = next((el for el in lang_set.iter() if _local(el.tag) == "term"), None)
            if lang and term is not None and "".join(term.itertext()).strip():
                terms.setdefault(lang, "".join(term.itertext()).strip())
        source = terms.pop(source_lang, None) or terms.pop(source_lang.split("-")[0], None)
        if source is None:
            continue
        for lang, target in terms.items():
            if target == source:
                keep.append(source)
            else:
                tables.setdefault(lang, {})[source] = target
    return keep, tables


def neutralised(cell: str) -> str:
    """``cell`` as written to a CSV or TSV file: one a spreadsheet would run as a formula
    (``=HYPERLINK(…)``, ``+cmd|' /C calc'!A0``, ``@SUM(…)``, or starting with a tab or a
    carriage return) gets a leading single quote, as OWASP recommends; read back by
    :func:`read_exchange`, which takes that quote off."""
    return "'" + cell if cell.startswith(_FORMULA_STARTS) else cell


def _restored(cell: str) -> str:
    """A cell as written by :func:`neutralised`, back as it was."""
    return cell[1:] if cell.startswith("'") and cell[1:].startswith(_FORMULA_STARTS) else cell


def write_table(rows: Iterable[Sequence[str]], tab: bool = False) -> str:
    """Rows as CSV (TSV with ``tab``), every cell :func:`neutralised`: the one writer of the
    tables fastdesk exports, safe in the spreadsheet that opens them."""
    out = io.StringIO()
    delimiter = "\t" if tab else ","
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\n")
    # the csv module leaves a lone CR unquoted with "\n" lines: a reader would end the row
    # there and start the next cell with what follows ("\r=cmd"); such a row is all quoted
    quoted = csv.writer(out, delimiter=delimiter, lineterminator="\n", quoting=csv.QUOTE_ALL)
    for row in rows:
        cells = [neutralised(cell) for cell in row]
        (quoted if any("\r" in c for c in cells) else writer).writerow(cells)
    return out.getvalue()


def _table(path: Path, text: str) -> Parsed:
    tab = path.suffix.lower() in (".tsv", ".tab") or ("\t" in text.split("\n", 1)[0])
    rows = [
        (n, [_restored(c) for c in row])
        for n, row in enumerate(csv.reader(io.StringIO(text), delimiter="\t" if tab else ","), 1)
        if row and any(c.strip() for c in row) and not row[0].lstrip().startswith("#")
    ]
    if not rows:
        return [], {}
    header = [c.strip() for c in rows[0][1]]
    if len(header) >= 2 and all(_LANG_RE.match(c) for c in header if c):
        langs, rows = [c.lower() for c in header[1:]], rows[1:]
    else:
        suffix = path.stem.rpartition(".")[2]
        if "." not in path.stem or not _LANG_RE.match(suffix):
            raise _Bad(
                "which language? name the file glossary.LANG.tsv (e.g. glossary.fr.tsv) or "
                "start it with a row of language codes (en, fr)",
                1,
            )
        langs = [suffix.lower()]
    keep: list[str] = []
    tables: dict[str, dict[str, str]] = {}
    for number, row in rows:
        source = row[0].strip()
        if not source:
            raise _Bad("a row without a source term", number)
        targets = [c.strip() for c in row[1 : 1 + len(langs)]]
        if not any(targets):
            keep.append(source)
        for lang, target in zip(langs, targets, strict=False):
            if target:
                tables.setdefault(lang, {})[source] = target
    return keep, tables
