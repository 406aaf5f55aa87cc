"""Where each block's run starts in the rendered view's document, and which group frame holds it.

The one record of where blocks are: fastdesk.ui.panes.preview edits the document and tells this
what it moved. Positions only (no Qt), so that what a step's edits do to them reads apart."""

from __future__ import annotations

import bisect
import itertools

GROUP = 100  # blocks per group frame when a document fills (see TargetPreview)


class RunStarts:
    """``starts[i]``: the document position where block i's run begins, plus the end (the run
    ends with its closing paragraph break); ``firsts``: the index of each group's first block,
    in order. A group's frame has a start marker (the "glue" before it) and its last run ends
    with the frame's end marker, so that run ends one position before the next run starts.

    During a step, the starts from ``lag[0]`` on are short by ``lag[1]`` (see ``shift``)."""

    def __init__(self) -> None:
        self.starts: list[int] = [0]
        self.lag: tuple[int, int] | None = None
        self.firsts: list[int] = []

    def clear(self) -> None:
        """No blocks (the next one starts a group afresh)."""
        self.starts, self.firsts, self.lag = [0], [], None

    @property
    def count(self) -> int:
        return len(self.starts) - 1

    @property
    def lengths(self) -> list[int]:
        """How many document characters each block holds (its closing paragraph break
        included): derived from the block starts and the groups."""
        out = [b - a for a, b in itertools.pairwise(self.starts)]
        for first in self.firsts[1:]:
            out[first - 1] -= 1  # the next group's start marker
        return out

    def length(self, index: int) -> int:
        return self.stop(index) - self.starts[index]

    def stop(self, index: int) -> int:
        """Where block `index`'s run ends (just after its closing break or end marker)."""
        after = self.starts[index + 1]
        return after - 1 if self.last_in_group(index) and index + 1 < self.count else after

    def group_of(self, index: int) -> int:
        return bisect.bisect_right(self.firsts, index) - 1

    def last_in_group(self, index: int) -> bool:
        return index + 1 >= self.group_end(self.group_of(index))

    def group_end(self, group: int) -> int:
        """The index after group `group`'s last block."""
        return self.firsts[group + 1] if group + 1 < len(self.firsts) else self.count

    def last_has_room(self) -> bool:
        """A block added at the end goes in the last group (else in a new group frame)."""
        count = self.count
        return bool(count) and count - self.firsts[-1] < GROUP

    def room(self) -> int:
        """How many blocks added at the end go in the group they start in: the last one's room
        left, or a new one's (GROUP)."""
        return GROUP - (self.count - self.firsts[-1]) if self.last_has_room() else GROUP

    def index_at(self, position: int, shown: int) -> int:
        """The block at `position`, one of the first `shown`; the glue before a group (the gap
        above its first block) belongs to that block, as a margin's hit does in one frame."""
        index = bisect.bisect_right(self.starts, position) - 1
        if 0 <= index < self.count - 1 and position >= self.stop(index):
            index += 1
        return max(0, min(shown - 1, index))

    def open_group(self) -> None:
        """A new group frame after the last block: its start marker takes the end's place."""
        count = self.count
        self.starts[count] += 1
        self.firsts.append(count)

    def insert(self, index: int) -> None:
        """A block of one character (an empty paragraph) put in at `index`."""
        self.starts.insert(index + 1, self.starts[index] + 1)
        self.shift(index + 2, 1)
        self.shift_firsts(index, 1)

    def append(self, lengths: list[int]) -> None:
        """Blocks of these lengths after the last one, in its group (none lagging)."""
        base = self.starts[-1]
        self.starts.extend(base + n for n in itertools.accumulate(lengths))

    def remove(self, index: int, removed: int) -> None:
        """Block `index` gone, with `removed` characters (its group's, if it went too, taken out
        of ``firsts`` already); the next block's start, or the end, takes its place."""
        del self.starts[index]
        self.shift(index, -removed)
        self.shift_firsts(index, -1)

    def shift(self, first: int, delta: int) -> None:
        """The starts from `first` on move by `delta`: lazily, as ``lag``, until a step's edits
        reach them or it ends. Why: one block rendered moves every start after it, and moving
        them all after each of a slice's few edits grows with the document (a large share of
        the GUI thread's time while a long document's stand-ins render: docs/performance.md);
        the slice's edits mostly go down from one block to the next."""
        if not delta:
            return
        if self.lag is None:
            self.lag = (first, delta)
            return
        since, by = self.lag
        starts = self.starts
        if first >= since:  # those between catch up; the rest lag by both
            starts[since:first] = [p + by for p in starts[since:first]]
            self.lag = (first, by + delta)
        else:
            starts[first:since] = [p + delta for p in starts[first:since]]
            self.lag = (since, by + delta)

    def catch_up(self, upto: int | None = None) -> None:
        """Make the starts before `upto` (None: all of them) true."""
        if self.lag is None:
            return
        since, by = self.lag
        if upto is not None and upto <= since:
            return
        starts = self.starts
        end = len(starts) if upto is None else min(upto, len(starts))
        starts[since:end] = [p + by for p in starts[since:end]]
        self.lag = None if end >= len(starts) else (end, by)

    def shift_firsts(self, index: int, delta: int) -> None:
        """Blocks after `index` moved by `delta` places (one inserted or removed there)."""
        self.firsts = [f + delta if f > index else f for f in self.firsts]


def index_after_removal(kept: int | None, removed: int) -> int | None:
    """Where block `kept` is once block `removed` is gone (None: it was that block)."""
    if kept is None or kept < removed:
        return kept
    return None if kept == removed else kept - 1
