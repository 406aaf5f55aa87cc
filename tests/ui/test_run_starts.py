"""The rendered view's record of where blocks start: the starts a step moves lazily come out as
if each move had been made at once, wherever the step reads them."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from fastdesk.ui.panes.run_starts import RunStarts

_STARTS = st.lists(st.integers(0, 1000), min_size=1, max_size=30).map(sorted)
_OPS = st.lists(st.tuples(st.booleans(), st.integers(0, 31), st.integers(-5, 5)), max_size=40)


@given(_STARTS, _OPS)
def test_lagging_starts_read_as_if_moved_at_once(starts: list[int], ops) -> None:
    runs = RunStarts()
    runs.starts = list(starts)
    eager = list(starts)
    for catch_up, at, delta in ops:
        if catch_up:
            runs.catch_up(at)
            assert runs.starts[:at] == eager[:at]
        else:
            runs.shift(at, delta)
            eager[at:] = [p + delta for p in eager[at:]]
    runs.catch_up()
    assert runs.starts == eager
    assert runs.lag is None


def test_groups_tell_where_each_run_ends() -> None:
    """Two groups of two blocks (each one character), the glue before each group: the last run
    of the first group ends one position before the next group's first run starts."""
    runs = RunStarts()
    runs.starts, runs.firsts = [1, 2, 4, 5, 6], [0, 2]
    assert runs.lengths == [1, 1, 1, 1]
    assert [runs.stop(i) for i in range(4)] == [2, 3, 5, 6]
    assert [runs.index_at(p, 4) for p in range(7)] == [0, 0, 1, 2, 2, 3, 3]
