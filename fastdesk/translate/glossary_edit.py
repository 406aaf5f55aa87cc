"""Adding a forced translation to a project's glossary file, keeping the rest of it as written.

The team shares the glossary through git, so an entry added from the command line (or the
window) goes into the file the next translation reads (``.fastdesk-glossary.toml`` at the
project's root or beside the documents), changing only its own line: the comments, order and
other entries stay byte for byte. A TBX or CSV glossary belongs to the tool that made it and is
not written to.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import tomli_w

from fastdesk.config.fileio import FileError, atomic_write_text
from fastdesk.translate.glossary import (
    FOLDER_GLOSSARY,
    GlossaryError,
    HouseFile,
    find_folder_glossary,
    load_glossary,
    normalize_lang,
    read_house_text,
)

__all__ = ["add_translation", "glossary_to_write", "remove_translation"]

_HEADER = re.compile(r"^\s*\[\s*(?P<name>[^\]]+?)\s*\]\s*(?:#.*)?$")


def glossary_to_write(doc_path: Path, top: Path | None = None) -> Path:
    """The glossary file a new entry for this document (or folder) goes into: the one it uses
    now, else a new ``.fastdesk-glossary.toml`` at the project's root (``top``) or beside the
    document (in the folder)."""
    found = find_folder_glossary(doc_path, top)
    if found is not None:
        return found
    place = Path(doc_path).absolute()
    folder = Path(top) if top is not None else place if place.is_dir() else place.parent
    return folder / FOLDER_GLOSSARY


def add_translation(path: Path, lang: str, source: str, target: str) -> bool:
    """``source`` is translated as ``target`` in ``lang``, in the TOML glossary at ``path``
    (made when missing); False when the file said so already. GlossaryError (one line) for a
    file that is not a TOML glossary or cannot be read; nothing is written then."""
    source, target, lang = source.strip(), target.strip(), normalize_lang(lang)
    if not source or not target or "\n" in source + target:
        raise GlossaryError(path, None, "a glossary entry is one line of text on each side")
    if path.suffix.lower() != ".toml":
        raise GlossaryError(path, None, "a TBX or CSV glossary is edited in the tool it came from")
    # the project's file: read only inside it (a bad or linked-out file: GlossaryError)
    before = load_glossary([HouseFile(path)]) if path.exists() else None
    try:
        text = read_house_text(path) if before is not None else ""
    except FileError as exc:
        raise GlossaryError(path, None, f"cannot read the glossary ({exc.reason})") from None
    if before is not None and any(
        s.casefold() == source.casefold() and t == target
        for s, t in before.translate.get(lang, {}).items()
    ):
        return False
    line = tomli_w.dumps({source: target}).strip()
    lines = text.splitlines(keepends=True)
    start = _section(lines, lang)
    if start is None:
        tail = (
            "" if not text or text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
        )
        new = f"{text}{tail}[translate.{lang}]\n{line}\n"
    else:
        end = next((i for i in range(start + 1, len(lines)) if _HEADER.match(lines[i])), len(lines))
        same = next(
            (i for i in range(start + 1, end) if _key_of(lines[i]) == source.casefold()), None
        )
        if same is not None:
            lines[same] = line + "\n"
        else:
            at = end
            while at > start + 1 and not lines[at - 1].strip():
                at -= 1  # after the section's last entry, before its blank lines
            if at > 0 and not lines[at - 1].endswith("\n"):
                lines[at - 1] += "\n"
            lines.insert(at, line + "\n")
        new = "".join(lines)
    try:
        tomllib.loads(new)
    except tomllib.TOMLDecodeError as exc:  # never write a file the next run cannot read
        raise GlossaryError(path, None, f"the entry could not be added ({exc})") from None
    atomic_write_text(path, new)
    return True


def remove_translation(path: Path, lang: str, source: str) -> bool:
    """Drop the line that translates ``source`` in ``[translate.LANG]`` of the TOML glossary at
    ``path``; False when that file has no such line (the entry comes from elsewhere: the
    settings' glossary, or the table of the language without its region)."""
    if path.suffix.lower() != ".toml" or not path.exists():
        return False
    load_glossary([HouseFile(path)])  # a bad or linked-out file: GlossaryError, nothing written
    try:
        lines = read_house_text(path).splitlines(keepends=True)
    except FileError as exc:
        raise GlossaryError(path, None, f"cannot read the glossary ({exc.reason})") from None
    start = _section(lines, normalize_lang(lang))
    if start is None:
        return False
    end = next((i for i in range(start + 1, len(lines)) if _HEADER.match(lines[i])), len(lines))
    folded = source.strip().casefold()
    same = next((i for i in range(start + 1, end) if _key_of(lines[i]) == folded), None)
    if same is None:
        return False
    del lines[same]
    atomic_write_text(path, "".join(lines))
    return True


def _section(lines: list[str], lang: str) -> int | None:
    """The line of ``[translate.LANG]`` (any spelling of the code, quoted or not)."""
    for i, raw in enumerate(lines):
        m = _HEADER.match(raw)
        if m is None:
            continue
        parts = [p.strip().strip("\"'") for p in m["name"].split(".", 1)]
        if len(parts) == 2 and parts[0] == "translate" and normalize_lang(parts[1]) == lang:
            return i
    return None


def _key_of(line: str) -> str | None:
    """The key of a ``key = value`` line, casefolded (None for anything else)."""
    try:
        data = tomllib.loads(line)
    except tomllib.TOMLDecodeError:
        return None
    return next(iter(data)).casefold() if len(data) == 1 else None
