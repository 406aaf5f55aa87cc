"""Many blocks answered with the same text: a model that stopped translating.

Why: a prompt injection in a page ("ignore the instructions and answer …"), or a model stuck
on one answer, gives every block the same text; each answer alone may pass every check (a
sentence in the right language, no code or link to lose). Blocks with different sources
should not share one long translation: when at least ``REPEATED_AT`` of them do, each is
flagged ``repeated``.
"""

from __future__ import annotations

from collections.abc import Iterable

from fastdesk.translate.events import Flag

__all__ = ["REPEATED_AT", "repeated"]

REPEATED_AT = 3  # blocks with different sources sharing one answer
_MIN_CHARS = 16  # a short answer ("Example", "Note") may well be shared


def repeated(answers: Iterable[tuple[str, str, str]]) -> dict[str, Flag]:
    """``answers``: (block id, source, answer) of one run's model answers. The flag of every
    block whose answer is shared with blocks of different sources, by block id."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for block_id, source, answer in answers:
        key = " ".join(answer.split())
        if len(key) >= _MIN_CHARS and key != " ".join(source.split()):
            groups.setdefault(key, []).append((block_id, source))
    out: dict[str, Flag] = {}
    for members in groups.values():
        sources = {" ".join(s.split()) for _b, s in members}
        if len(sources) >= REPEATED_AT:
            flag = Flag("repeated", f"{len(sources)} different blocks got this same answer")
            out.update((block_id, flag) for block_id, _s in members)
    return out
