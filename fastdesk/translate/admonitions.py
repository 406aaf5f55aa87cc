"""Admonition and callout types are syntax: ``!!! info "Note"`` (Python-Markdown, MkDocs),
``??? tip`` (collapsible), ``:::warning Title`` (Docusaurus) must come back with the same type.

A model asked to translate prose in upper case writes ``!!! INFO "NOTE"``: the title is prose
and may change, the type (``info``, and any classes after it such as ``inline end``) may not,
since the site generator only knows its own names. :func:`keep_types` puts the source's types
back when the answer has the same openers in the same order (a repair, not a retry: the rest of
the answer is right); :func:`check_types` says what could not be repaired.
"""

from __future__ import annotations

import re

__all__ = ["check_types", "keep_types"]

# the marker and the type (with classes) of an opening line; a title in quotes follows
_OPENER = re.compile(
    r"^(?P<lead>[ \t]*(?:>[ \t]*)*)"
    r"(?P<syntax>(?:!!!|\?\?\?\+?)[ \t]+[\w-]+(?:[ \t]+[\w-]+)*(?=[ \t]*(?:\"|$))"
    r"|:{3,}[\w-]+)",
    re.MULTILINE,
)


def _openers(text: str) -> list[re.Match[str]]:
    return list(_OPENER.finditer(text))


def _norm(syntax: str) -> str:
    return " ".join(syntax.split())


def keep_types(source: str, answer: str) -> str:
    """``answer`` with each admonition opener's marker and type as the source has them (when
    both hold the same number of openers, of the same markers); else ``answer`` as it is."""
    theirs, ours = _openers(source), _openers(answer)
    if not theirs or len(theirs) != len(ours):
        return answer
    pairs = list(zip(theirs, ours, strict=True))
    if any(a["syntax"][:3] != b["syntax"][:3] for a, b in pairs):
        return answer  # a different kind of opener: not a case or spelling slip
    out = answer
    for a, b in reversed(pairs):
        if _norm(a["syntax"]) != _norm(b["syntax"]):
            out = out[: b.start("syntax")] + a["syntax"] + out[b.end("syntax") :]
    return out


def check_types(source: str, answer: str) -> str | None:
    """What differs in the answer's admonition openers (None: the same types, in order)."""
    theirs = [_norm(m["syntax"]) for m in _openers(source)]
    ours = [_norm(m["syntax"]) for m in _openers(answer)]
    if theirs == ours:
        return None
    if len(theirs) != len(ours):
        return f"admonitions: {len(theirs)} in the source, {len(ours)} in the answer"
    a, b = next((a, b) for a, b in zip(theirs, ours, strict=True) if a != b)
    return f"admonition type changed: {a} → {b}"
