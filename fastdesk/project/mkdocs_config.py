"""What an MkDocs configuration says about anchors and the navigation, read and written as text.

Two things a translation changes are computed by MkDocs' Markdown extensions from text: a
heading's anchor (the ``toc`` extension slugifies its text, unless ``attr_list`` lets the page
name it) and a content tab's id (``pymdownx.tabbed`` with ``slugify`` makes it from the tab's
title, after its heading's anchor with ``combine_header_slug``). :func:`markdown_settings`
reads which slugify functions the site uses, so that links into translated headings and tabs
can be pointed at the anchors the French build will have (fastdesk.project.anchors).

The ``nav`` titles are not in any page: mkdocs-static-i18n takes their translations from each
language's ``nav_translations`` in the plugin's configuration. :func:`nav_titles` lists the
titles; :func:`with_nav_translations` adds entries to a language's ``nav_translations``,
leaving every other byte of the file as it was (a YAML load and dump would reorder it and drop
its comments; PyYAML is no dependency, and MkDocs' ``!!python`` tags are not plain YAML).
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from fastdesk.config.fileio import MAX_STATE_BYTES, FileError, read_confined

__all__ = [
    "MarkdownSettings",
    "NavError",
    "Slugify",
    "config_name",
    "markdown_settings",
    "mkdocs_settings",
    "nav_titles",
    "read_config",
    "with_nav_translations",
]

Slugify = Callable[[str, str], str]  # (text, separator) → slug, as Python-Markdown calls one


class NavError(Exception):
    """A configuration whose ``nav_translations`` cannot be written without rewriting more of
    it (flow-style YAML): one line for the user."""


@dataclass(frozen=True)
class MarkdownSettings:
    """The settings of the site's Markdown extensions that decide its anchors. A slugify of
    None: one fastdesk cannot compute (a function of the site's own), so nothing is rewritten
    for it."""

    attr_list: bool = False
    toc_slugify: Slugify | None = None
    toc_separator: str = "-"
    tab_slugify: Slugify | None = None  # None also when tabs are numbered (__tabbed_1_1)
    tab_separator: str = "-"
    combine_header_slug: bool = False


# ---- the text as YAML blocks ------------------------------------------------------------------


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _blank(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


def _top_block(lines: list[str], key: str) -> tuple[int, int] | None:
    """The lines (start, end) below a top-level ``key:``, to the next top-level key."""
    head = re.compile(rf"{re.escape(key)}[ \t]*:[ \t]*(?:#.*)?$")
    for i, line in enumerate(lines):
        if head.match(line):
            end = i + 1
            while end < len(lines) and (_blank(lines[end]) or lines[end][:1] in (" ", "\t")):
                end += 1
            return i + 1, end
    return None


def _below(lines: list[str], i: int, column: int, end: int) -> int:
    """The end of the lines after line ``i`` indented deeper than ``column``."""
    j = i + 1
    while j < end and (_blank(lines[j]) or _indent(lines[j]) > column):
        j += 1
    return j


def _extension(lines: list[str], name: str) -> str | None:
    """A Markdown extension's options as text ("" without options), None when the
    configuration does not turn it on."""
    found = _top_block(lines, "markdown_extensions")
    if found is None:
        return None
    start, end = found
    item = re.compile(rf"[ \t]*(?:-[ \t]+)?{re.escape(name)}[ \t]*(?::.*)?$")
    for i in range(start, end):
        if item.fullmatch(lines[i]):
            column = lines[i].index(name[0], _indent(lines[i]))
            stop = _below(lines, i, column - (2 if "-" in lines[i][:column] else 0), end)
            return "\n".join([lines[i].partition(":")[2], *lines[i + 1 : stop]])
    return None


# ---- slugify functions, as the packages the site uses define them ----------------------------


def _toc_slugify(value: str, separator: str, unicode: bool = False) -> str:
    """Python-Markdown's ``markdown.extensions.toc.slugify`` (and ``slugify_unicode``)."""
    if not unicode:
        value = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode("ascii")
    value = re.sub(r"[^\w\s-]", "", value).strip().lower()
    return re.sub(rf"[{separator}\s]+", separator, value)


def _pymdownx_slugify(
    text: str, sep: str, case: str = "none", percent_encode: bool = False, normalize: str = "NFC"
) -> str:
    """pymdown-extensions' ``pymdownx.slugs.slugify(case=…, percent_encode=…, normalize=…)``."""
    form = normalize if normalize in ("NFC", "NFD", "NFKC", "NFKD") else "NFC"
    slug = re.sub(r"</?[^>]*>", "", unicodedata.normalize(form, text)).strip()  # type: ignore[arg-type]
    if case == "lower":
        slug = slug.lower()
    elif case == "lower-ascii":
        slug = re.sub(r"[A-Z]", lambda m: m.group(0).lower(), slug)
    elif case == "fold":
        slug = slug.casefold()
    slug = re.sub(r"[^\w\- ]", "", slug).replace(" ", sep)
    return quote(slug.encode("utf-8")) if percent_encode else slug


def _slugify(options: str) -> tuple[bool, Slugify | None]:
    """Whether an extension's options name a ``slugify:``, and the function (None: one
    fastdesk does not know, a function of the site's own)."""
    m = re.search(r"^(?P<lead>[ \t]*)slugify[ \t]*:", options, re.MULTILINE)
    if m is None:
        return False, None
    lines = options[m.start() :].splitlines()  # the value and its own deeper lines (kwds: …)
    value = "\n".join(lines[: _below(lines, 0, len(m["lead"]), len(lines))])
    if "pymdownx.slugs.slugify" in value:
        case = re.search(r"\bcase[ \t]*:[ \t]*['\"]?([\w-]+)", value)
        norm = re.search(r"\bnormalize[ \t]*:[ \t]*['\"]?(\w+)", value)
        percent = re.search(r"\bpercent_encode[ \t]*:[ \t]*(?:true|True|yes)\b", value)
        return True, functools.partial(
            _pymdownx_slugify,
            case=case.group(1) if case else "none",
            percent_encode=percent is not None,
            normalize=norm.group(1) if norm else "NFC",
        )
    if "markdown.extensions.toc.slugify_unicode" in value:
        return True, functools.partial(_toc_slugify, unicode=True)
    if "markdown.extensions.toc.slugify" in value:
        return True, _toc_slugify
    return True, None


def _option(options: str, key: str) -> str | None:
    m = re.search(rf"^[ \t]*{key}[ \t]*:[ \t]*(.*?)[ \t]*(?:#.*)?$", options, re.MULTILINE)
    return m.group(1).strip("'\"") if m else None


def markdown_settings(config: str) -> MarkdownSettings:
    """The anchor settings of an MkDocs configuration's text."""
    lines = config.splitlines()
    toc = _extension(lines, "toc") or ""
    tabbed = _extension(lines, "pymdownx.tabbed") or ""
    named, toc_slugify = _slugify(toc)
    combine = (_option(tabbed, "combine_header_slug") or "").lower() in ("true", "yes", "on")
    return MarkdownSettings(
        attr_list=_extension(lines, "attr_list") is not None,
        toc_slugify=toc_slugify if named else _toc_slugify,
        toc_separator=_option(toc, "separator") or "-",
        tab_slugify=_slugify(tabbed)[1],
        tab_separator=_option(tabbed, "separator") or "-",
        combine_header_slug=combine,
    )


def config_name(root: Path) -> str | None:
    """The MkDocs configuration file's name at ``root`` (None: there is none)."""
    return next((n for n in ("mkdocs.yml", "mkdocs.yaml") if (root / n).is_file()), None)


def read_config(root: Path) -> str | None:
    """The MkDocs configuration's text, read only when it lies inside ``root`` (None: none
    there, or not readable)."""
    name = config_name(root)
    if name is None:
        return None
    try:
        return read_confined(root / name, root, MAX_STATE_BYTES).decode("utf-8")
    except (OSError, FileError, UnicodeDecodeError):
        return None


def mkdocs_settings(root: Path) -> MarkdownSettings | None:
    """The anchor settings of the MkDocs configuration at ``root`` (None: none can be read)."""
    config = read_config(root)
    return None if config is None else markdown_settings(config)


# ---- the navigation's titles ------------------------------------------------------------------

_QUOTED = r"\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\n]|'')*'"
_NAV_ITEM = re.compile(
    rf"(?P<lead>[ \t]*-[ \t]+)(?P<key>{_QUOTED}|[^\s'\"#\[{{&*!|>%@`-][^#\n]*?)[ \t]*:"
    r"(?:[ \t]+(?P<value>[^\n]*?))?[ \t]*$"
)
_ENTRY = re.compile(rf"[ \t]*(?P<key>{_QUOTED}|[^\s'\"#][^#\n]*?)[ \t]*:(?:[ \t]|$)")


def _scalar(text: str) -> str:
    """A one-line YAML scalar's value (quoted or plain)."""
    if text.startswith('"'):
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            return text[1:-1]
        return value if isinstance(value, str) else text
    if text.startswith("'"):
        return text[1:-1].replace("''", "'")
    return text


def nav_titles(config: str) -> list[str]:
    """The titles of the ``nav`` (pages' and sections'), each once, in order; [] without a
    ``nav`` (MkDocs then titles pages by their own headings, translated with the page)."""
    lines = config.splitlines()
    found = _top_block(lines, "nav")
    if found is None:
        return []
    out: dict[str, None] = {}
    for line in lines[found[0] : found[1]]:
        m = _NAV_ITEM.fullmatch(line)
        if m is not None:
            title = _scalar(m["key"]).strip()
            if title:
                out[title] = None
    return list(out)


# ---- writing a language's nav_translations ----------------------------------------------------


def _language_item(lines: list[str], lang: str) -> tuple[int, int, int] | None:
    """The i18n plugin's item for ``lang`` in ``plugins``: (its first line, its end, the
    column of its keys)."""
    found = _top_block(lines, "plugins")
    if found is None:
        return None
    start, end = found
    locale = re.compile(rf"(?P<lead>[ \t]*(?P<dash>-[ \t]+)?)locale[ \t]*:[ \t]*['\"]?"
                        rf"{re.escape(lang)}['\"]?[ \t]*(?:#.*)?$")  # fmt: skip
    for i in range(start, end):
        m = locale.fullmatch(lines[i])
        if m is None:
            continue
        column = len(m["lead"])
        first = i
        while m["dash"] is None:  # up to the line that opens the item (- name: …)
            first -= 1
            if first < start:
                return None
            line = lines[first]
            if _blank(line) or (_indent(line) == column and line.strip()[:1] != "-"):
                continue
            opener = re.match(r"[ \t]*-[ \t]+", line)
            if opener is None or opener.end() != column:
                return None
            break
        return first, _below(lines, first, column - 1, end), column
    return None


def _quoted(text: str) -> str:
    """A YAML double-quoted scalar (JSON's string syntax is one)."""
    return json.dumps(text, ensure_ascii=False)


def with_nav_translations(
    config: str, lang: str, translations: Mapping[str, str]
) -> tuple[str, dict[str, str] | None]:
    """``config`` with the entries of ``translations`` (nav title → its translation) that
    ``lang``'s ``nav_translations`` lacks added to it (made when there is none); every entry
    already there is kept (a translator's, an earlier run's), and every other byte of the file.
    Returns the new text (the same when none was added) and the entries ``lang`` has now, None
    when the plugin's configuration lists no ``lang`` (nothing is written). Raises NavError
    when the item's ``nav_translations`` is flow-style YAML."""
    kept = config.splitlines(keepends=True)
    lines = [line.rstrip("\r\n") for line in kept]
    item = _language_item(lines, lang)
    if item is None:
        return config, None
    first, end, column = item
    head = re.compile(r"[ \t]*(?:-[ \t]+)?nav_translations[ \t]*:(?P<rest>.*)$")
    at = next(
        (
            i
            for i in range(first, end)
            if head.fullmatch(lines[i]) and _key_column(lines[i]) == column
        ),
        None,
    )
    have: dict[str, str] = {}
    pad = " " * (column + 2)
    if at is not None:
        rest = head.fullmatch(lines[at])["rest"].split(" #")[0].strip()  # type: ignore[index]
        if rest not in ("", "{}"):
            raise NavError(
                f"the nav_translations of {lang} are flow-style YAML; write them one per line "
                "for fastdesk to add its own"
            )
        stop = _below(lines, at, column, end)
        inner = [k for k in range(at + 1, stop) if not _blank(lines[k])]
        for k in inner:
            m = _ENTRY.match(lines[k])
            if m is not None:
                value = lines[k][m.end() :].split(" #")[0].strip()
                have[_scalar(m["key"]).strip()] = _scalar(value)
        pad = " " * _indent(lines[inner[0]]) if inner else pad
        last = (inner[-1] if inner else at) + 1
    else:
        last = max(k for k in range(first, end) if not _blank(lines[k])) + 1
    added = {k: v for k, v in translations.items() if k not in have}
    if not added:
        return config, have
    newline = "\r\n" if kept[0].endswith("\r\n") else "\n"
    new = [f"{pad}{_quoted(k)}: {_quoted(v)}{newline}" for k, v in added.items()]
    if at is None:
        new.insert(0, " " * column + "nav_translations:" + newline)
    elif lines[at].split(" #")[0].rstrip().endswith("{}"):  # nav_translations: {} → a block
        kept[at] = kept[at].replace("{}", "", 1).rstrip(" \t\r\n") + newline
    if last and not kept[last - 1].endswith(("\n", "\r")):
        kept[last - 1] += newline
    kept[last:last] = new
    return "".join(kept), {**have, **added}


def _key_column(line: str) -> int:
    """The column a line's key starts at (after its item's dash)."""
    m = re.match(r"[ \t]*(?:-[ \t]+)?", line)
    return m.end() if m else 0
