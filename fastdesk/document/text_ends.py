"""Where two versions of a text stop being the same: how long a start and an end they share.

One place for it: the live parse finds the edited blocks with it (``blocks.reparse``), the review
finds which blocks a reviewer's keystroke touched, and the window replaces only what a file
changed on disk. Texts are compared a chunk at a time (C-speed slice comparisons), then
character by character inside the chunk that differs: one pass, also over a 5 MB document.
Any sequence will do (the target model compares lists of block ids with them).
"""

from __future__ import annotations

from collections.abc import Sequence

_CHUNK = 4096  # characters compared at once


def common_prefix(a: Sequence[object], b: Sequence[object], limit: int | None = None) -> int:
    """How many characters ``a`` and ``b`` share at the start (``limit`` at most)."""
    limit = min(len(a), len(b)) if limit is None else limit
    i = 0
    while i < limit and a[i : i + _CHUNK] == b[i : i + _CHUNK]:
        i += _CHUNK
    i = min(i, limit)
    while i < limit and a[i] == b[i]:
        i += 1
    return i


def common_suffix(a: Sequence[object], b: Sequence[object], limit: int | None = None) -> int:
    """How many characters ``a`` and ``b`` share at the end (``limit`` at most)."""
    limit = min(len(a), len(b)) if limit is None else limit
    n = 0
    while n < limit:
        size = min(_CHUNK, limit - n)
        if a[len(a) - n - size : len(a) - n] != b[len(b) - n - size : len(b) - n]:
            break
        n += size
    while n < limit and a[len(a) - n - 1] == b[len(b) - n - 1]:
        n += 1
    return n
