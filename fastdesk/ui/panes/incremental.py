"""Target panes that converge to the wanted segments a slice at a time.

The target panes never get their whole text replaced while a translation streams in: each holds
the segments it shows, diffs them against the wanted ones (render.diff) and edits only the blocks
that changed, a slice at a time (RenderScheduler), keeping the reader's scroll position.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import time
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, cast

from PySide6.QtCore import QObject, QPoint, QTimer, Signal
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QPlainTextEdit

from fastdesk.ui.bridge.threads import gui_first
from fastdesk.ui.panes import render
from fastdesk.ui.panes.render import Segment

Extent = tuple[str, int, int]  # block id, top and bottom in viewport pixels
FILL_MOVED = 8  # more blocks of a fill than this not in their place: render.diff aligns them
EDITS = 8  # at most this many edited blocks go before the rest of a step (more: a reload)
# Blocks this near the view's top (below it, above it) are "near": their changes go first, and
# while a stream goes on a pane on screen takes the far ones only now and then
# (RenderScheduler's ``far_gap_ms``)
NEAR, NEAR_ABOVE = 80, 20
# How often a pane on screen takes a slice of far work while a stream goes on. 20 ms (a 3 ms
# slice in 20) was too little for long blocks (~2.5 ms each to render, against ~1.6 for one-line
# ones): at the end of a 4,000-block fill the rendered view was 23-32 s behind targetEditor, and
# a pane far behind costs more each slice (its diff, the order of what is left), GUI-thread time
# that also holds the GIL the engine needs to start requests. At 5 ms the fill took 1.38x the
# command line's time instead of 1.58x (paragraphs of a few sentences), 1.48x instead of 2.2x (a
# docs page's shapes), 1.00x instead of 1.22x (a real page), by turns on a loaded machine
# (benchmarks/bench_window_fill.py --doc …; docs/performance.md).
FAR_GAP_MS = 5.0


class Incremental:
    """A pane that shows a list of segments and converges to the wanted list in slices.

    Subclasses edit their widget in ``_replace``/``_insert``/``_remove`` for one segment at a
    time; ``step`` stops at a deadline and resumes from a fresh diff on the next turn.

    A pane may put many new blocks in at once as stand-ins (``_insert_run``: the rendered view
    does, for a long document's first fill) and show them properly afterwards (``_finish``),
    nearest the view's top first, after the diff's own edits: so an answer for a block far down
    shows in the next slice, not when a fill from the top gets there. ``shown`` holds a
    stand-in's wanted segment already (the diff skips it as it does any block unchanged);
    ``placeholder(i)`` tells the two apart.

    While ``at_once`` is set (an edit of the user's, such as Replace All or its undo, in the
    raw editor) a step takes every edit in one go, from the last to the first, inside
    ``_bulk``: at 7,000 blocks a Replace All changes ~1,600 blocks, and a slice at a time the
    raw pane took ~13 s to show them (a few edits, then a layout and repaint, per slice). The
    stream keeps its slices, the blocks on screen first.
    """

    if TYPE_CHECKING:  # what the widget it is mixed into (a QTextEdit or QPlainTextEdit) has

        def textCursor(self) -> QTextCursor: ...

    def __init__(self) -> None:
        self.shown: list[Segment] = []
        self.wanted: tuple[Segment, ...] = ()
        self._settled = True
        self._mark = 0.0  # when the last edit of the current step ended
        # True while ``step`` edits the widget, or SyncScroller catches up after a step: its
        # scroll signals then come from the stream, not the reader (SyncScroller ignores them
        # and catches up once per slice; the review margin repaints with the next render).
        self.editing = False
        # The last step moved the text cursor. The pane's own signals are held back while a
        # step edits: each would be a call into Python, and every call into Python from Qt
        # waits for the GIL, which the engine thread holds much of the time while it streams.
        self.cursor_moved = False
        # The reader put the text cursor somewhere (a cursor signal outside a step) or came into
        # the pane: until then it is only where the stream pushed it (a first fill takes it
        # along to the end), and the source does not highlight the block it happens to be in.
        self.cursor_placed = False
        self.at_once = False
        # The wanted segments whose diff a step last applied in full: while they stay, the
        # steps that render stand-ins need no diff (one walk of every block, a cost that grows
        # with the document and is paid every step: docs/performance.md).
        self._applied: tuple[Segment, ...] | None = None
        self.deadline = math.inf  # the current step's (perf_counter)
        # Blocks a step put in place of another block (a source edit gives its block a new id):
        # their changes go before the rest of a step, and ``urgent`` says one is wanted.
        self._edited_ids: set[str] = set()
        self.urgent = False
        # (wanted, how many shown, top, ops): what a step ran out of time for (see _left_ops)
        self._left: tuple[tuple[Segment, ...], int, int, list[render.Op]] | None = None

    def want(self, segments: Sequence[Segment]) -> None:
        self.wanted = tuple(segments)
        self._applied = None
        self._settled = False
        self.urgent = bool(self._edits())

    def _edits(self) -> list[int]:
        """Shown blocks (indices) an edit changed that are to change: the block of another id
        now, or an edited block's answer; none when more than EDITS (a reload, a paste)."""
        shown, wanted, edited = self.shown, self.wanted, self._edited_ids
        found = (
            k
            for k in render.differing(shown, wanted)
            if wanted[k].key != shown[k].key or wanted[k].key in edited
        )
        first = list(itertools.islice(found, EDITS + 1))
        return first if len(first) <= EDITS else []

    @property
    def settled(self) -> bool:
        return self._settled

    @property
    def filling(self) -> bool:
        """Blocks wanted are still to be added, or shown as stand-ins (a first fill of a long
        document takes seconds): the pane is not as tall as it will be, and Qt may move its view
        as it grows, so where its view sits is not the reader's place."""
        return len(self.shown) < len(self.wanted) or self._unfinished()

    def starts(self) -> list[int]:
        """Start positions (UTF-16) of the shown segments, plus the end."""
        return [0, *itertools.accumulate(s.qlen for s in self.shown)]

    @property
    def parked(self) -> bool:
        """Only stand-ins are left to render: a hidden pane leaves them for when it is shown."""
        return not self._settled and self.wanted is self._applied and self._unfinished()

    def step(self, deadline: float, *, finish: bool = True) -> bool:
        """Apply edits until done (True) or the deadline passes (False: call again). Without
        `finish` (a hidden pane), done leaves any stand-ins as they are (``parked``)."""
        if self._settled:
            return True
        self.deadline = deadline
        if self.parked and not finish:  # only stand-ins left, and they wait to be shown
            return True
        top = self.top_index() if self.shown else 0  # one look-up a step, before it edits
        first: list[render.Op] = []
        if self.parked:  # only stand-ins left: nothing for the diff to find
            seq: list[render.Op] = []
            one_for_one = False
        elif (kept := self._left_ops(top)) is not None:
            seq, one_for_one = kept, True
        else:
            ops = self._diff()
            if not ops and not self._unfinished():
                return self._settle()
            first, ops = self._edits_first(ops)
            one_for_one = _one_for_one(first, ops)
            seq = [*first, *(reversed(ops) if self.at_once else _nearest_first(ops, top))]
        bulk = self.at_once
        if bulk:
            deadline = math.inf
        widget = cast(QObject, self)  # a QPlainTextEdit or QTextBrowser
        # (textCursor: the editor this is mixed into has it)
        cursor = self.textCursor().position()
        self.editing = True
        blocked = widget.blockSignals(True)
        try:
            self._begin(top)
            self._mark = time.perf_counter()
            try:
                with self._bulk() if bulk else contextlib.nullcontext():
                    for n, op in enumerate(seq):
                        if n == len(first):
                            self.urgent = False
                        if not self._apply(op, deadline):
                            if one_for_one:  # (a block for a block is applied whole)
                                self._left = (self.wanted, len(self.shown), top, seq[n + 1 :])
                            return False
                    self.urgent = False
                    self._applied = self.wanted
                    if not finish:
                        return True
                    if not self._finish(top, deadline):
                        return False
            finally:
                self._end()
        finally:
            widget.blockSignals(blocked)
            self.editing = False
            if self.textCursor().position() != cursor:
                self.cursor_moved = True
        return render.same_texts(self.shown, self.wanted) and self._settle()

    def _left_ops(self, top: int) -> list[render.Op] | None:
        """The ops the last step ran out of time for, in the order to apply them, while the
        wanted segments are the same (None: diff again). Kept only when each replaces one block
        by one, so that none moves another. Why: a step gets ~3 ms, and the diff of a 4,000-block
        pane took ~1 ms of it, again each step of a long fill's backlog, while the GUI thread
        held the GIL the engine needs to read its answers (docs/performance.md)."""
        kept, self._left = self._still_left(), None
        if kept is None:
            return None
        ordered_for, ops = kept
        return ops if ordered_for == top else list(_nearest_first(sorted(ops), top))

    def _still_left(self) -> tuple[int, list[render.Op]] | None:
        """(the top they were ordered for, the ops) the last step ran out of time for, while
        they still apply: the same wanted segments, as many shown."""
        kept = self._left
        if kept is None or kept[0] is not self.wanted or kept[1] != len(self.shown):
            return None
        return kept[2], kept[3]

    def far_left(self) -> bool:
        """What the last step ran out of time for is all far from the view (see NEAR): the
        ops are in ``_nearest_first``'s order, so the next one tells."""
        kept = self._still_left()
        if kept is None or not kept[1]:
            return False
        top = self.top_index()
        if top != kept[0]:  # the reader moved: a step puts them in order again
            return False
        i1, i2, _j1, _j2 = kept[1][0]
        return i1 > top + NEAR or i2 <= top - NEAR_ABOVE

    def _diff(self) -> list[render.Op]:
        """The edits from what is shown to what is wanted (``render.diff``). A fill in progress
        (fewer blocks shown than wanted, the last ones differing) whose shown blocks are the
        first wanted ones place for place, but for a few an edit changed meanwhile: those
        replaced and the rest inserted. ``render.diff`` aligns such a pair by difflib, and did
        so again on every step of the fill: after an edit typed during a 4,000-block fill of
        the raw pane, the GUI thread spent minutes at it (benchmarks/bench_window_fill.py)."""
        shown, wanted = self.shown, self.wanted
        n = len(shown)
        if 0 < n < len(wanted) and shown[-1].text != wanted[-1].text:
            others = render.not_same_object(shown, wanted)
            moved = (k for k in others if shown[k].key != wanted[k].key)
            if next(itertools.islice(moved, FILL_MOVED, None), None) is None:
                changed = [(k, k + 1, k, k + 1) for k in render.differing(shown, wanted)]
                return [*changed, (n, n, n, len(wanted))]
        return render.diff(shown, wanted)

    def _edits_first(self, ops: list[render.Op]) -> tuple[list[render.Op], list[render.Op]]:
        """The diff's ops split into the edited blocks' replacements (see ``_edits``), to apply
        first, and the rest: an edit typed during a long document's backlog waited behind the
        backlog's answers in a pane that lagged (benchmarks/bench_window_fill.py). Replacing
        one block by one moves no other, so the order does not change the result."""
        if not self.urgent or self.at_once:  # (at once: from the last edit up, see _bulk)
            return [], ops
        edits = {(k, k + 1, k, k + 1) for k in self._edits()}
        first = [op for op in ops if op in edits]
        return first, [op for op in ops if op not in edits]

    def _settle(self) -> bool:
        """Same texts: take the wanted segments as shown, so that their block ids are current
        too (a block whose source changed may keep its text; the margin and the reviewer's
        edits go by id)."""
        self.shown = list(self.wanted)
        self._settled = True
        self.urgent = False
        return True

    def _apply(self, op: tuple[int, int, int, int], deadline: float) -> bool:
        i1, i2, j1, j2 = op
        common = min(i2 - i1, j2 - j1)
        if self.at_once:
            self._apply_from_the_end(i1, i2, j1, j2, common)
            return True
        for k in range(common):
            self._replace_one(i1 + k, j1 + k)
            if self._out_of_time(deadline):
                return False
        k = common
        while k < j2 - j1:  # more new segments: insert them
            added = self._insert_run(i1 + k, self.wanted, j1 + k, j2)
            self.shown[i1 + k : i1 + k] = self.wanted[j1 + k : j1 + k + added]
            k += added
            if self._out_of_time(deadline):
                return False
        for _ in range(common, i2 - i1):  # fewer: remove the rest
            self._remove(i1 + common)
            del self.shown[i1 + common]
            if self._out_of_time(deadline):
                return False
        return True

    def _replace_one(self, index: int, wanted: int) -> None:
        if self.shown[index].key != self.wanted[wanted].key:
            if len(self._edited_ids) >= 4 * EDITS:  # (a reload: every block has a new id)
                self._edited_ids.clear()
            self._edited_ids.add(self.wanted[wanted].key)
        self._replace(index, self.wanted[wanted])
        self.shown[index] = self.wanted[wanted]

    def _apply_from_the_end(self, i1: int, i2: int, j1: int, j2: int, common: int) -> None:
        """One op of a step taken all at once, its own edits from the end up too: what it
        inserts (a block at a time: only the target editor's own edits and undo go all at once)
        or removes after the blocks it replaces first, then those, last first. A bulk
        step's edits move no start (the target editor's ``_bulk``), so a block replaced by a
        shorter one before an insertion after it put the insertion at the old place: a long
        block replaced by two short ones came out as "Bloc 0. Bloc 0. Bloc 1." where the
        shown segments said five "Bloc 0." (tests/ui/test_ui_panes.py's sequences)."""
        at = i1 + common
        for j in range(j2 - 1, j1 + common - 1, -1):  # inserted: the last first, at one place
            self._insert(at, self.wanted[j])
            self.shown.insert(at, self.wanted[j])
        for index in range(i2 - 1, at - 1, -1):  # removed: the last first
            self._remove(index)
            del self.shown[index]
        for k in range(common - 1, -1, -1):  # replaced: the last first
            self._replace_one(i1 + k, j1 + k)

    def _out_of_time(self, deadline: float) -> bool:
        """True when another edit costing as much as the last one would end past the deadline.

        Checking only for a deadline already passed let one slow edit (a long block's HTML)
        overrun the slice, and the repaint that follows then made a stalled frame."""
        now = time.perf_counter()
        cost = now - self._mark
        self._mark = now
        return now + cost > deadline

    def top_index(self) -> int:
        """The shown block at the top of the view (where a step starts its edits)."""
        widget = cast(QPlainTextEdit, self)
        if widget.verticalScrollBar().value() == 0:
            return 0  # (a hit test walks the layout: none needed at the top)
        return self.index_at(widget.cursorForPosition(QPoint(0, 0)).position())

    def index_at(self, position: int) -> int:
        raise NotImplementedError

    def _bulk(self) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()

    def placeholder(self, index: int) -> bool:
        """Block `index` shows its text as a stand-in for now (see ``_insert_run``)."""
        return False

    def _insert_run(self, index: int, wanted: Sequence[Segment], start: int, stop: int) -> int:
        """Insert ``wanted[start:stop]`` (or its first part) at `index`; returns how many went
        in. A pane may put in a stand-in for each, much cheaper than the block itself, and
        show them properly in ``_finish``: ``shown`` then holds the wanted segment already."""
        self._insert(index, wanted[start])
        return 1

    def _unfinished(self) -> bool:
        """Stand-ins are left to show properly (the diff sees none: they hold the texts)."""
        return False

    def _finish(self, top: int, deadline: float) -> bool:
        """Show stand-ins properly, those nearest the view's top first (True: none left)."""
        return True

    def _begin(self, top: int) -> None:
        """A step starts editing; `top` is the block at the top of the view."""

    def _end(self) -> None: ...
    def _replace(self, index: int, seg: Segment) -> None: ...
    def _insert(self, index: int, seg: Segment) -> None: ...
    def _remove(self, index: int) -> None: ...


def _one_for_one(*groups: list[render.Op]) -> bool:
    """Every op replaces one block by the one at the same place (the stream's case)."""
    return all(i2 == i1 + 1 and j1 == i1 and j2 == j1 + 1 for g in groups for i1, i2, j1, j2 in g)


def _nearest_first(ops: list[render.Op], top: int) -> Iterator[render.Op]:
    """The diff's replacements nearest the view first: from its top down to NEAR blocks below,
    then up to NEAR_ABOVE above it, then the rest below, then the rest above, upwards; each
    shifted by what the ones applied before it inserted or removed above it.

    Why: applied bottom-up, a step that ran out of time left the top of the document for the
    next one, and the next diff again started at the bottom: while a long document streamed,
    the blocks on screen could wait for minutes (the top of the rendered view stayed English).
    And in this order an op far from the view comes only when no near one is left (``far_left``).
    """
    below = [op for op in ops if op[1] > top]
    above = [op for op in ops if op[1] <= top]
    near_below = [op for op in below if op[0] <= top + NEAR]
    near_above = [op for op in above if op[1] > top - NEAR_ABOVE]
    far_below = below[len(near_below) :]
    far_above = above[: len(above) - len(near_above)]
    moved: list[tuple[int, int]] = []  # (old start, change in count) of applied ops
    for op in itertools.chain(near_below, reversed(near_above), far_below, reversed(far_above)):
        i1, i2, j1, j2 = op
        shift = sum(d for start, d in moved if start < i1)
        yield (i1 + shift, i2 + shift, j1, j2)
        if (j2 - j1) != (i2 - i1):
            moved.append((i1, (j2 - j1) - (i2 - i1)))


class RenderScheduler(QObject):
    """Runs the target panes' incremental updates in slices of at most `budget_ms` per turn.

    One timer for both panes, so together they never hold the event loop longer than one slice.
    A slice is not the whole frame: the repaint it causes and Qt's queued layout work follow in
    the same turn, so the budget is well under a frame (benchmarks/bench_ui.py compares budgets
    in paired runs; figures: docs/performance.md, "Figures behind the code's choices").

    The pane on screen goes first. A hidden one (the raw editor behind the rendered view, or
    the other way round) is brought up to date once the wanted texts have stayed the same for
    `quiet_ms`: while a document streams in it would redo every growing block for nobody;
    afterwards it takes the final texts once, in the same slices, and is ready when shown. A
    hidden pane added with ``follows`` (the raw editor: plain text, ~0.1 ms a block) does not
    wait for a pause after a change that holds final texts (``kick(final=True)``: an answer
    done, a new revision, a reviewer's action): it takes them in the slices the pane on screen
    leaves, and every other slice while that pane has work too (a long first fill keeps the
    rendered view busy for seconds); at most once every `follow_ms` (each catch-up diffs every
    block: once per delivery of answers, 4,000 blocks cost the GUI thread ~16 s more). Waiting for
    a pause, the raw editor showed none of a 4,000-block document's answers until the last one
    (answers came every 50 ms) and a typed sentence's answer 250 ms late (docs/performance.md,
    "The window as fast as the wire"). A change to an edited block (a pane's ``urgent``: the
    user's edit in the source, or its answer) takes the next slice, and goes first in it. Growing
    answers alone still wait for the pause. A long first fill of a hidden rendered view puts
    stand-ins in and renders them once it is shown, from where its reader is: at 7,000 blocks
    rendering them all took ~4 s of the GUI thread after the last answer, for a view nobody was
    looking at. While the wanted texts keep changing (a stream), a pane on screen whose work
    left is all far from its view (``Incremental.far_left``) gets one slice every `far_gap_ms`:
    back to back, those slices held the GIL the engine needs to read the answers.
    """

    rendered = Signal()  # a slice was applied (views may have moved)
    settled = Signal()  # everything wanted is shown, hidden panes included

    def __init__(
        self,
        parent: QObject | None = None,
        *,
        budget_ms: float = 3.0,
        quiet_ms: float = 250.0,
        follow_ms: float = 100.0,
        far_gap_ms: float = FAR_GAP_MS,
    ) -> None:
        super().__init__(parent)
        self.far_gap = far_gap_ms / 1000.0
        self._far_next = -math.inf  # a pane on screen with far work only: its next slice
        self.follow_every = follow_ms / 1000.0
        self.budget = budget_ms / 1000.0
        self.quiet = quiet_ms / 1000.0
        self._panes: list[tuple[Incremental, Callable[[], bool], bool]] = []
        self._kicked = -math.inf  # when the wanted texts last changed
        self._due = False  # final texts for the hidden panes that follow them (see above)
        self._hidden_turn = False  # the next slice is theirs (while the pane on screen works)
        self._following = False  # they are catching up (until they have settled)
        self._followed = -math.inf  # when they last caught up
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._tick)

    def add(
        self, pane: Incremental, shown: Callable[[], bool] = lambda: True, *, follows: bool = False
    ) -> None:
        """``follows``: hidden, the pane still takes final texts at once (see the docstring)."""
        self._panes.append((pane, shown, follows))

    def remove(self, pane: Incremental) -> None:
        self._panes = [entry for entry in self._panes if entry[0] is not pane]

    def kick(self, *, final: bool = False) -> None:
        """The wanted texts changed (or a pane was shown): work starts on the next turn.
        ``final``: the change holds final texts, not only answers that grew."""
        self._kicked = time.perf_counter()
        self._due = self._due or final
        self._timer.start(0)

    @property
    def idle(self) -> bool:
        return all(pane.settled or (pane.parked and not shown()) for pane, shown, _ in self._panes)

    def _tick(self) -> None:
        with gui_first():
            self._slice()

    def _slice(self) -> None:
        now = time.perf_counter()
        deadline = now + self.budget
        visible = [p for p, shown, _ in self._panes if shown() and not p.settled]
        hidden = [(p, f) for p, shown, f in self._panes if not (shown() or p.settled or p.parked)]
        due = [p for p, follows in hidden if follows] if self._due else []
        follow_in = self._followed + self.follow_every - now
        if due and follow_in > 0 and not self._following:
            due = []  # it caught up a moment ago: once more when the interval is over
        far_wait = self._far_next - now
        streaming = now < self._kicked + self.quiet
        if visible and far_wait > 0 and streaming and all(p.far_left() for p in visible):
            visible = []  # far from the view, while the stream goes on: now and then
        urgent = [p for p, follows in hidden if follows and p.urgent]
        if urgent:  # an edited block: the next slice, whatever else is waiting
            panes, finish = urgent, False
        elif visible and due and self._hidden_turn:  # every other slice, while both have work
            panes, finish = due, False
        elif visible:
            panes, finish = visible, True
        elif now >= self._kicked + self.quiet:
            panes, finish = [p for p, _ in hidden], False
        elif due:
            panes, finish = due, False
        else:
            wait = self._kicked + self.quiet - now
            if self._due and any(f for _, f in hidden):
                wait = min(wait, follow_in)
            if any(shown() and not p.settled for p, shown, _ in self._panes):
                wait = min(wait, far_wait)  # (put off above)
            self._timer.start(max(1, math.ceil(wait * 1000)))
            return
        if panes is visible:
            self._far_next = now + self.far_gap
        self._hidden_turn = bool(visible and due) and not self._hidden_turn
        self._following = self._following or panes is due
        for pane in panes:
            if not pane.step(deadline, finish=finish):
                self.rendered.emit()
                self._timer.start(0)
                return
        if all(p.settled for p, follows in hidden if follows):
            if self._following:
                self._followed = time.perf_counter()
            self._due = self._following = False
        self.rendered.emit()
        if self.idle:
            self.settled.emit()
        else:
            self._timer.start(0)
