"""XLIFF 1.2 (what OmegaT, Okapi, Weblate and most CAT tools read), written and read with the
standard library. Segments are plain text: Markdown inside is escaped as XML, never turned into
inline tags, so it comes back byte for byte.

States: approved → ``final`` (``approved="yes"``), edited → ``translated``, a machine, memory or
flagged answer and a source-changed edit → ``needs-review-translation`` (with a note saying
why), no translation → ``needs-translation`` (empty target). Read back: ``final``/``signed-off``
or ``approved="yes"`` is an approval, ``translated`` a correction, ``needs-review-*`` a draft
(taken in only when its text changed), ``new``/``needs-translation`` nothing.
"""

from __future__ import annotations

import xml.etree.ElementTree as etree
from pathlib import Path

from fastdesk.config.fileio import MAX_INTERCHANGE_BYTES, FileError, read_xml, xml_text
from fastdesk.review.interchange.units import Incoming, Unit

__all__ = ["NS", "XliffError", "read_xliff", "write_xliff"]

NS = "urn:oasis:names:tc:xliff:document:1.2"
_XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"
_STATE = {
    "approved": "final",
    "edited": "translated",
    "machine": "needs-review-translation",
    "memory": "needs-review-translation",
    "flagged": "needs-review-translation",
    "stale_edit": "needs-review-translation",
    "stale": "needs-review-translation",  # a translation of the block's former source
}
_READ = {
    "final": "approved",
    "signed-off": "approved",
    "translated": "translated",
    "new": "new",
    "needs-translation": "new",
}


class XliffError(ValueError):
    """Not an XLIFF 1.2 file fastdesk can read; the message says why."""


def write_xliff(units: list[Unit], *, original: str, source_lang: str, target_lang: str) -> str:
    etree.register_namespace("", NS)
    root = etree.Element(f"{{{NS}}}xliff", {"version": "1.2"})
    file = etree.SubElement(
        root,
        f"{{{NS}}}file",
        {
            "original": original,
            "source-language": source_lang,
            "target-language": target_lang,
            "datatype": "x-markdown",
            "tool-id": "fastdesk",
        },
    )
    header = etree.SubElement(file, f"{{{NS}}}header")
    etree.SubElement(header, f"{{{NS}}}tool", {"tool-id": "fastdesk", "tool-name": "fastdesk"})
    body = etree.SubElement(file, f"{{{NS}}}body")
    for unit in units:
        attrs = {"id": unit.id, "resname": f"line {unit.line}", _XML_SPACE: "preserve"}
        if unit.state == "approved":
            attrs["approved"] = "yes"
        tu = etree.SubElement(body, f"{{{NS}}}trans-unit", attrs)
        etree.SubElement(tu, f"{{{NS}}}source").text = unit.source
        state = _STATE.get(unit.state, "needs-review-translation")
        target = etree.SubElement(tu, f"{{{NS}}}target", {"state": state})
        if unit.target is None:
            target.set("state", "needs-translation")
        else:
            target.text = unit.target
        for note in _notes(unit):
            etree.SubElement(tu, f"{{{NS}}}note", {"from": "fastdesk"}).text = note
    return xml_text(root)


def _notes(unit: Unit) -> list[str]:
    notes = [f"fastdesk state: {unit.state}"]
    notes += [
        f"check {f.check}: {f.detail}" if f.detail else f"check {f.check}" for f in unit.flags
    ]
    if unit.base is not None:
        notes.append(f"the source changed since this translation, which was made for: {unit.base}")
    return notes


def read_xliff(path: str | Path) -> tuple[dict[str, str], list[Incoming]]:
    """The file's attributes (original, source-language, target-language) and its units."""
    try:
        root = read_xml(path, MAX_INTERCHANGE_BYTES)
    except FileError as exc:  # a named pipe, a device, too large, not XML
        raise XliffError(str(exc)) from None
    ns = root.tag[1 : root.tag.index("}")] if root.tag.startswith("{") else ""
    q = (lambda name: f"{{{ns}}}{name}") if ns else (lambda name: name)
    if root.tag != q("xliff") or not root.get("version", "").startswith("1."):
        raise XliffError(f"{path}: not an XLIFF 1.x file (fastdesk reads XLIFF 1.2)")
    files = root.findall(q("file"))
    if len(files) != 1:
        raise XliffError(f"{path}: {len(files)} <file> elements; fastdesk reads one per file")
    file = files[0]
    units = []
    for tu in file.iter(q("trans-unit")):
        source = tu.find(q("source"))
        target = tu.find(q("target"))
        text = None if target is None else "".join(target.itertext())
        state = "translated" if target is not None and text else "new"
        if target is not None and target.get("state"):
            raw = target.get("state", "")
            state = _READ.get(raw, "fuzzy" if raw.startswith("needs-") else "translated")
        if tu.get("approved") == "yes" and text:
            state = "approved"
        units.append(
            Incoming(
                id=tu.get("id", ""),
                source="" if source is None else "".join(source.itertext()),
                target=text,
                state=state,
            )
        )
    meta = {k: file.get(k, "") for k in ("original", "source-language", "target-language")}
    return meta, units
