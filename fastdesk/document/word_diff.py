"""What changed between two versions of a block, word by word (difflib), for a reader.

Why words, not characters: "the source changed under your edit" is decided by reading which
words went and came; a character diff of a reworded sentence is confetti. Spaces between two
changes are folded into them, so "the big cat" → "a small dog" reads as one change, not three.
"""

from __future__ import annotations

import difflib
import html
import re
from dataclasses import dataclass

__all__ = ["Piece", "diff_html", "word_diff"]

_TOKEN = re.compile(r"\s+|\w+|[^\w\s]")


@dataclass(frozen=True)
class Piece:
    op: str  # equal | delete | insert
    text: str


def word_diff(old: str, new: str) -> list[Piece]:
    """``old`` → ``new`` as pieces: joining the equal and delete pieces gives ``old``, the
    equal and insert pieces ``new`` (nothing is lost, so the view can be trusted)."""
    a, b = _TOKEN.findall(old), _TOKEN.findall(new)
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    runs: list[tuple[str, str, str]] = []  # (equal text) or (deleted, inserted)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        gone, came = "".join(a[i1:i2]), "".join(b[j1:j2])
        if tag == "equal":
            runs.append(("equal", gone, ""))
        else:
            runs.append(("change", gone, came))
    return _pieces(_fold_spaces(runs))


def _fold_spaces(runs: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """A run of spaces alone between two changes joins them (on both sides)."""
    out: list[tuple[str, str, str]] = []
    for i, run in enumerate(runs):
        between = 0 < i < len(runs) - 1 and runs[i + 1][0] == "change"
        if run[0] == "equal" and between and out and out[-1][0] == "change" and not run[1].strip():
            _kind, gone, came = out.pop()
            out.append(("change", gone + run[1], came + run[1]))
        elif run[0] == "change" and out and out[-1][0] == "change":
            _kind, gone, came = out.pop()
            out.append(("change", gone + run[1], came + run[2]))
        else:
            out.append(run)
    return out


def _pieces(runs: list[tuple[str, str, str]]) -> list[Piece]:
    out: list[Piece] = []
    for kind, gone, came in runs:
        if kind == "equal":
            out.append(Piece("equal", gone))
            continue
        if gone:
            out.append(Piece("delete", gone))
        if came:
            out.append(Piece("insert", came))
    return out


# Marked three ways, so the change reads without colour too: struck/underlined, coloured, and
# named for screen readers and hover.
_STYLE = {
    "delete": "background-color:#ffebe9; color:#82071e; text-decoration:line-through;",
    "insert": "background-color:#dafbe1; color:#116329; text-decoration:underline;",
}
_TAG = {"delete": "del", "insert": "ins"}
_TITLE = {"delete": "removed", "insert": "added"}


def diff_html(pieces: list[Piece]) -> str:
    """The pieces as HTML (Qt's rich text and browsers): removed words struck through on red,
    added ones underlined on green; line breaks kept."""
    parts = []
    for piece in pieces:
        text = html.escape(piece.text).replace("\n", "<br>")
        if piece.op == "equal":
            parts.append(text)
        else:
            tag = _TAG[piece.op]
            parts.append(
                f'<{tag} title="{_TITLE[piece.op]}" style="{_STYLE[piece.op]}">{text}</{tag}>'
            )
    return "".join(parts)
