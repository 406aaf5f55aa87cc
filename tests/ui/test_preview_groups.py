"""The rendered view keeps its blocks in group frames: each block renders as it would alone,
the groups add no gap, no empty frame is left, and the end of a long document is reachable."""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QTextDocument

from fastdesk.ui.panes import run_starts
from fastdesk.ui.panes.incremental import Incremental
from fastdesk.ui.panes.preview import TargetPreview
from fastdesk.ui.panes.render import Segment, segment
from tests.ui.test_ui_panes import KINDS, Paints, assert_runs_tile, mixed, paragraphs_of

_ALONE: dict[str, list[tuple]] = {}


def fill(preview: TargetPreview, segs: list[Segment]) -> None:
    preview.want(segs)
    while not preview.step(time.perf_counter() + 10):
        pass


def alone(seg: Segment, qtbot) -> list[tuple]:
    """What the block looks like rendered alone (cached by text: a pane per text is slow)."""
    if seg.text not in _ALONE:
        pane = TargetPreview()
        qtbot.addWidget(pane)
        fill(pane, [seg])
        _ALONE[seg.text] = paragraphs_of(pane, 0)
    return _ALONE[seg.text]


def group_frames(doc: QTextDocument) -> list[tuple[int, int]]:
    return [(f.firstPosition(), f.lastPosition()) for f in doc.rootFrame().childFrames()]


def check(preview: TargetPreview, segs: list[Segment], qtbot, group: int | None = None) -> None:
    """Each block as alone, the runs tiling the document, and every group frame holding blocks
    (at most `group` each, when given: a fill's groups)."""
    assert [s.text for s in preview.shown] == [s.text for s in segs]
    assert_runs_tile(preview)
    for i, seg in enumerate(segs):
        assert paragraphs_of(preview, i) == alone(seg, qtbot), (i, seg.text)
    starts = [preview.block_start(i) for i in range(len(segs))]
    frames = group_frames(preview.document())
    held = [sum(first <= s <= last for s in starts) for first, last in frames]
    assert all(held), held  # no empty frame (it would show an empty line)
    assert sum(held) == len(segs)
    if group is not None:
        assert max(held, default=0) <= group and len(frames) == -(-len(segs) // group)


@pytest.fixture
def small_groups(monkeypatch) -> int:
    monkeypatch.setattr(run_starts, "GROUP", 4)
    return 4


@pytest.fixture
def stand_ins(monkeypatch) -> None:
    """Stand-ins for any fill of more than a group (the pane's own threshold: 1,000 blocks)."""
    monkeypatch.setattr(TargetPreview, "stand_ins_from", run_starts.GROUP)


def test_a_fill_of_several_groups_renders_each_block_as_alone(qtbot) -> None:
    preview = TargetPreview()
    qtbot.addWidget(preview)
    segs = mixed(350)
    fill(preview, segs)
    assert run_starts.GROUP == 100
    check(preview, segs, qtbot, group=100)


def test_edits_at_a_groups_edges_and_across_them_keep_every_block_as_alone(
    qtbot, small_groups
) -> None:
    preview = TargetPreview()
    qtbot.addWidget(preview)
    segs = mixed(13)  # groups: 0-3, 4-7, 8-11, 12
    fill(preview, segs)
    check(preview, segs, qtbot, group=4)
    new = [segment(f"n{i}", KINDS[(i + 3) % len(KINDS)].format(i=f"n{i}")) for i in range(8)]
    steps = [
        [*segs[:3], new[0], *segs[4:]],  # a group's last replaced
        [*segs[:4], new[1], *segs[5:]],  # a group's first replaced
        [*segs[:4], new[2], *segs[4:]],  # inserted before a group's first
        segs[:3] + segs[5:],  # a group's last and the next one's first removed
        [*segs[:2], new[3], new[4], *segs[6:]],  # across a boundary, replaced
        segs[:12],  # the last group (one block) removed: its frame goes
        [*segs[:8], new[5]],  # a group emptied, one added at the end
        segs[4:8] + segs[:4],  # the first group's blocks moved after the second's
        [new[6], *segs],  # before the very first
        [new[7]],
        segs,
    ]
    for wanted in steps:
        fill(preview, wanted)
        check(preview, wanted, qtbot)
    fill(preview, [])
    assert group_frames(preview.document()) == [] and preview.toPlainText() == ""
    fill(preview, segs)  # and afresh
    check(preview, segs, qtbot, group=4)


def tops(preview: TargetPreview) -> list[float]:
    doc = preview.document()
    layout = doc.documentLayout()
    return [
        layout.blockBoundingRect(doc.findBlock(preview.block_start(i))).top()
        for i in range(preview.block_count)
    ]


def test_groups_add_no_gap_between_blocks(qtbot, monkeypatch) -> None:
    """Blocks stand where one frame of them all would put them (the root frame does the same:
    Qt applies no margin above a frame's first paragraph, and none below the last)."""
    segs = mixed(40)
    placed = []
    for group in (4, 10**6):  # several groups; one for all
        monkeypatch.setattr(run_starts, "GROUP", group)
        preview = TargetPreview()
        qtbot.addWidget(preview)
        preview.resize(600, 400)
        preview.show()
        fill(preview, segs)
        placed.append((tops(preview), preview.document().size().height()))
    assert placed[0] == placed[1]
    # and between like paragraphs the distance is the same inside a group and across groups
    monkeypatch.setattr(run_starts, "GROUP", 4)
    preview = TargetPreview()
    qtbot.addWidget(preview)
    preview.resize(600, 400)
    fill(preview, [segment(f"p{i}", f"Paragraphe {i}.\n\n") for i in range(12)])
    assert len(set(b - a for a, b in zip(tops(preview), tops(preview)[1:], strict=False))) == 1


def test_ctrl_end_shows_the_last_block_of_a_long_document(qtbot) -> None:
    preview = TargetPreview()
    qtbot.addWidget(preview)
    preview.resize(500, 400)
    preview.show()
    segs = [segment(f"b{i}", f"Bloc {i} du document.\n\n") for i in range(2100)]
    fill(preview, segs)
    cursor = preview.textCursor()
    cursor.setPosition(preview.block_start(5))  # the reader's cursor in the first group
    preview.setTextCursor(cursor)
    qtbot.keyClick(preview, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
    shown = preview.visible_blocks()
    assert shown and shown[-1][0] == "b2099"
    assert 0 <= shown[-1][2] <= preview.viewport().height()
    assert preview.textCursor().atEnd()  # the cursor too (Qt's stayed in its group's frame)
    assert preview.index_at(preview.textCursor().position()) == 2099
    qtbot.keyClick(preview, Qt.Key.Key_Home, Qt.KeyboardModifier.ControlModifier)
    assert preview.visible_blocks()[0][0] == "b0"
    assert preview.textCursor().atStart() and preview.index_at(0) == 0


_POOL = [segment(f"k{i}", KINDS[i % len(KINDS)].format(i=i)) for i in range(24)]


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.lists(st.integers(0, len(_POOL) - 1), max_size=14, unique=True),
        min_size=1,
        max_size=5,
    )
)
def test_any_sequence_of_edits_shows_what_a_fresh_pane_shows(qtbot, small_groups, texts) -> None:
    preview = TargetPreview()
    qtbot.addWidget(preview)
    for picks in texts:
        wanted = [_POOL[i] for i in picks]
        fill(preview, wanted)
        check(preview, wanted, qtbot)
        fresh = TargetPreview()
        qtbot.addWidget(fresh)
        fill(fresh, wanted)
        assert tops(preview) == tops(fresh)


def test_an_edit_repaints_what_it_changed_on_screen_and_nothing_off_screen(
    qtbot, small_groups
) -> None:
    """Qt asks for the whole view after an edit in a child frame: the pane repaints from the
    edited block down, and nothing for an edit below the view."""
    preview = TargetPreview()
    qtbot.addWidget(preview)
    preview.resize(500, 300)
    preview.show()
    qtbot.waitExposed(preview)
    segs = [segment(f"p{i}", f"Paragraphe {i}.\n\n") for i in range(60)]
    fill(preview, segs)
    preview.verticalScrollBar().setValue(preview.verticalScrollBar().maximum() // 2)
    shown = preview.visible_blocks()
    keys = [s.key for s in segs]
    paints = Paints()
    preview.viewport().installEventFilter(paints)
    paints.flush()
    paints.rects.clear()
    below = keys.index(shown[-1][0]) + 8  # in a later group than the view's last block
    fill(preview, [*segs[:below], segment(f"p{below}", "Plus long.\n\n" * 3), *segs[below + 1 :]])
    paints.flush()
    assert paints.rects == []
    key, top, _bottom = shown[len(shown) // 2]
    index = keys.index(key)
    fill(
        preview,
        [*segs[:index], segment(key, "Changé, sur deux\n\nparagraphes.\n\n"), *segs[index + 1 :]],
    )
    qtbot.waitUntil(lambda: bool(paints.rects))  # the repaint comes, however busy the machine
    paints.flush()  # and all of it
    # from just above the edited block (the gap above it) down, not the whole view
    assert 0 < min(r.top() for r in paints.rects) <= top
    assert max(r.bottom() for r in paints.rects) >= preview.viewport().height() - 1


def one_by_one(monkeypatch) -> None:
    """Fills without stand-ins: every block rendered in turn, as before they existed."""
    monkeypatch.setattr(TargetPreview, "_insert_run", Incremental._insert_run)


def step_once(preview: TargetPreview) -> None:
    preview.step(time.perf_counter() - 1)  # (past its deadline: a slice's least work)


def on_screen(qtbot, width: int = 600, height: int = 400) -> TargetPreview:
    preview = TargetPreview()
    qtbot.addWidget(preview)
    preview.resize(width, height)
    preview.show()
    return preview


def put_stand_ins(preview: TargetPreview, segs: list[Segment]) -> int:
    """Want `segs` and take slices until every block is in (as stand-ins): how many slices."""
    preview.want(segs)
    steps = 0
    while len(preview.shown) < len(segs):
        step_once(preview)
        steps += 1
    return steps


def test_a_long_first_fill_puts_stand_ins_in_at_once_and_renders_from_the_view(
    qtbot, monkeypatch, stand_ins
) -> None:
    """More than a group of blocks to add: each shows its Markdown greyed within a few slices,
    then renders from the view's top down, then upwards; the result is what a fill one block
    at a time gives, to the pixel."""
    preview = on_screen(qtbot)
    segs = mixed(450)
    assert put_stand_ins(preview, segs) == 5  # a group of stand-ins a slice (450 blocks: 5 groups)
    assert preview.filling and all(preview.placeholder(i) for i in range(len(segs)))
    assert "## Titre 8" in preview.toPlainText()  # the Markdown itself, for now
    preview.verticalScrollBar().setValue(preview.verticalScrollBar().maximum() // 2)
    top = preview.index_at(preview.cursorForPosition(QPoint(0, 0)).position())
    assert 150 < top < 300
    for _ in range(8):
        step_once(preview)
    drawn = [i for i in range(len(segs)) if not preview.placeholder(i)]
    assert drawn == list(range(top, top + 8))  # the view's top first, down from it
    assert preview.index_at(preview.cursorForPosition(QPoint(0, 0)).position()) == top
    while not preview.step(time.perf_counter() + 10):
        pass
    assert not preview.filling and not any(preview.placeholder(i) for i in range(len(segs)))
    check(preview, segs, qtbot, group=100)
    placed = tops(preview), preview.toPlainText(), preview.lengths
    one_by_one(monkeypatch)
    fresh = on_screen(qtbot)
    fill(fresh, segs)
    assert (tops(fresh), fresh.toPlainText(), fresh.lengths) == placed


def test_a_block_that_changes_during_the_fill_renders_before_the_other_stand_ins(
    qtbot, stand_ins
) -> None:
    """The edit typed half way down a document still filling: its answer renders in the next
    slice, wherever the view is, ahead of the stand-ins around it."""
    preview = on_screen(qtbot)
    segs = mixed(300)
    put_stand_ins(preview, segs)
    edited = [*segs[:250], segment("b250", "La réponse, enfin.\n\n"), *segs[251:]]
    preview.want(edited)
    step_once(preview)
    assert [i for i in range(300) if not preview.placeholder(i)] == [250]
    assert preview.shown[250].text == "La réponse, enfin.\n\n"
    assert paragraphs_of(preview, 250) == alone(edited[250], qtbot)


_FILL_POOL = [segment(f"f{i}", KINDS[i % len(KINDS)].format(i=f"f{i}")) for i in range(40)]


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.tuples(
            st.lists(st.integers(0, len(_FILL_POOL) - 1), max_size=30, unique=True),
            st.integers(0, 6),  # slices applied before the next change
        ),
        min_size=1,
        max_size=5,
    )
)
# A stand-in removed before a rendered block left its grey as that block's block char format
# (Qt keeps it on the character before the paragraph): the code block's stayed grey for good.
@example(changes=[([3, 0, 1, 2, 4], 1), ([3, 4], 1), ([], 1), ([0, 4], 0)])
def test_changes_while_stand_ins_remain_end_as_a_fresh_pane_shows(
    qtbot, small_groups, monkeypatch, changes
) -> None:
    """Whatever the wanted blocks become while stand-ins are left (blocks inserted, removed,
    replaced around them, the view anywhere), the pane ends as a fresh one shows them."""
    monkeypatch.setattr(TargetPreview, "stand_ins_from", small_groups)
    preview = on_screen(qtbot, 400, 300)
    for picks, slices in changes:
        wanted = [_FILL_POOL[i] for i in picks]
        preview.want(wanted)
        for _ in range(slices):
            step_once(preview)
        bar = preview.verticalScrollBar()
        bar.setValue(bar.maximum() * slices // 6)
    fill(preview, wanted)
    check(preview, wanted, qtbot)
    fresh = on_screen(qtbot, 400, 300)
    fill(fresh, wanted)
    assert tops(preview) == tops(fresh)


def test_a_palette_change_while_stand_ins_remain_renders_everything_again(qtbot, stand_ins) -> None:
    """The pane starts afresh from the same wanted blocks: none is left a stand-in or lost."""
    preview = TargetPreview()
    qtbot.addWidget(preview)
    segs = mixed(230)
    preview.want(segs)
    for _ in range(5):
        step_once(preview)
    assert preview.placeholder(200)
    preview.apply_palette()
    assert preview.shown == [] and preview.filling
    while not preview.step(time.perf_counter() + 10):
        pass
    assert not any(preview.placeholder(i) for i in range(len(segs)))
    check(preview, segs, qtbot, group=100)


def test_stand_ins_rendered_above_the_view_leave_what_it_shows_unpainted_until_the_last(
    qtbot, stand_ins
) -> None:
    """The reader half way down: the stand-ins above render while the view follows what it
    shows (same block, same place), with no repaint of it; the last one repaints it once (its
    pixels kept still were up to half a pixel off)."""
    preview = on_screen(qtbot, 500, 300)
    qtbot.waitExposed(preview)
    segs = mixed(450)
    put_stand_ins(preview, segs)
    bar = preview.verticalScrollBar()
    bar.setValue(bar.maximum() // 2)
    top = preview.index_at(preview.cursorForPosition(QPoint(0, 0)).position())
    while any(preview.placeholder(i) for i in range(top, len(segs))):
        step_once(preview)
    Paints.flush()
    shown = preview.visible_blocks()
    paints = Paints()
    preview.viewport().installEventFilter(paints)
    value = bar.value()
    for _ in range(30):
        step_once(preview)
        paints.flush()
    assert paints.rects == []
    assert bar.value() != value  # (the view moved down the document with what it shows)
    assert preview.visible_blocks() == shown
    while not preview.step(time.perf_counter() - 1):
        pass
    qtbot.waitUntil(lambda: bool(paints.rects))  # the repaint comes, however busy the machine
    paints.flush()  # and all of it
    assert len(paints.rects) == 1 and paints.rects[0].height() == preview.viewport().height()
    assert preview.visible_blocks() == shown
