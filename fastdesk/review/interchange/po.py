"""PO (gettext) files through polib: one entry per block, ``msgctxt`` the block id, ``msgid``
its source, ``msgstr`` the translation (empty: none yet).

A source-changed edit, a translation of a block's former source and a flagged answer are
``fuzzy`` (they need a translator's look);
reading back, a fuzzy entry is a draft (taken in only when its text changed), any other
translated entry a correction. PO has no "approved": approvals stay in the review.
"""

from __future__ import annotations

import re
from pathlib import Path

import polib

from fastdesk.config.fileio import MAX_INTERCHANGE_BYTES, FileError, read_file_bytes
from fastdesk.review.interchange.units import Incoming, Unit

__all__ = ["PoError", "read_po", "write_po"]


_CHARSET = re.compile(rb"charset=([A-Za-z0-9_.:-]+)")


class PoError(ValueError):
    """Not a PO file fastdesk can read; the message says why."""


def write_po(units: list[Unit], *, original: str, source_lang: str, target_lang: str) -> str:
    po = polib.POFile(wrapwidth=0)
    po.metadata = {
        "Project-Id-Version": original,
        "Language": target_lang,
        "MIME-Version": "1.0",
        "Content-Type": "text/plain; charset=UTF-8",
        "Content-Transfer-Encoding": "8bit",
        "X-Generator": "fastdesk",
        "X-Source-Language": source_lang,
    }
    for unit in units:
        flags = ["fuzzy"] if unit.state in ("stale_edit", "stale", "flagged") else []
        notes = [f"fastdesk state: {unit.state}"]
        notes += [f"check {f.check}: {f.detail}".rstrip(": ") for f in unit.flags]
        po.append(
            polib.POEntry(
                msgctxt=unit.id,
                msgid=unit.source,
                msgstr=unit.target or "",
                occurrences=[(original, str(unit.line))],
                comment="\n".join(notes),
                flags=flags,
                previous_msgid=unit.base,
            )
        )
    return str(po) + "\n"


def read_po(path: str | Path) -> tuple[dict[str, str], list[Incoming]]:
    """The file's metadata (original, source-language, target-language) and its entries."""
    try:
        data = read_file_bytes(path, MAX_INTERCHANGE_BYTES)
    except FileNotFoundError:
        raise PoError(f"{path}: no such file") from None
    except FileError as exc:  # a named pipe, a device, too large: refused before reading
        raise PoError(str(exc)) from None
    try:
        charset = _CHARSET.search(data[:8192])
        text = data.decode(charset.group(1).decode("ascii") if charset else "utf-8")
        po = polib.pofile(text, wrapwidth=0)  # the text, not the path: read once, bounded
    except (OSError, ValueError, LookupError) as exc:  # UnicodeDecodeError is a ValueError
        raise PoError(f"{path}: not a readable PO file ({exc})") from None
    units = [
        Incoming(
            id=entry.msgctxt or "",
            source=entry.msgid,
            target=entry.msgstr or None,
            state="fuzzy" if entry.fuzzy else ("translated" if entry.msgstr else "new"),
        )
        for entry in po
        if not entry.obsolete
    ]
    occurrence = next((e.occurrences[0][0] for e in po if e.occurrences), "")
    meta = {
        "original": occurrence or po.metadata.get("Project-Id-Version", ""),
        "source-language": po.metadata.get("X-Source-Language", ""),
        "target-language": po.metadata.get("Language", ""),
    }
    return meta, units
