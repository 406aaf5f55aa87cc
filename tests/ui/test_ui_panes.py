"""The target panes apply only what changed, in slices, without moving the reader's view."""

from __future__ import annotations

import itertools
import math
import time
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from PySide6.QtCore import QEvent, QObject, QPoint, QRect
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QApplication

from fastdesk.ui.panes.incremental import RenderScheduler
from fastdesk.ui.panes.preview import TargetPreview
from fastdesk.ui.panes.render import segment
from fastdesk.ui.panes.target_editor import TargetEditor
from tests.fakes import FakeClock
from tests.ui.uifakes import translated


def resting(scheduler: RenderScheduler) -> bool:
    """No slice is due now: the scheduler's one timer is off (all done) or set for a pause or a
    gap to end (a slice to run next turn sets it to 0), so nothing runs before then. What a test
    waits for before asserting that something was not shown, instead of a fixed wait."""
    timer = scheduler._timer
    return not timer.isActive() or timer.interval() > 0


def settle(pane, qtbot) -> None:
    scheduler = RenderScheduler()
    scheduler.add(pane)
    scheduler.kick()
    qtbot.waitUntil(lambda: pane.settled)


def paragraphs(count: int, first: str | None = None) -> list:
    segs = [segment(f"b{i}", f"Paragraph {i} of the translation.\n\n") for i in range(count)]
    if first is not None:
        segs[0] = segment("b0", first)
    return segs


def top_text(editor: TargetEditor) -> str:
    return editor.firstVisibleBlock().text()


def test_editor_holds_exactly_the_wanted_text(qtbot) -> None:
    editor = TargetEditor()
    qtbot.addWidget(editor)
    segs = [segment("a", "# Titre\r\n\r\n"), segment("b", "Émoji 😀 ok\n"), segment("c", "fin")]
    editor.want(segs)
    settle(editor, qtbot)
    assert editor.toPlainText() == "# Titre\n\nÉmoji 😀 ok\nfin"
    editor.want([segs[0], segment("b", "Émoji 😀 très bien\n"), segs[2]])
    settle(editor, qtbot)
    assert editor.toPlainText() == "# Titre\n\nÉmoji 😀 très bien\nfin"
    editor.want([segs[2]])
    settle(editor, qtbot)
    assert editor.toPlainText() == "fin"


def test_editor_view_does_not_jump_when_a_block_above_grows(qtbot) -> None:
    editor = TargetEditor()
    qtbot.addWidget(editor)
    editor.resize(500, 300)
    editor.show()
    editor.want(paragraphs(200))
    settle(editor, qtbot)
    editor.verticalScrollBar().setValue(150)
    before = top_text(editor)
    assert before.startswith("Paragraph")
    editor.want(paragraphs(200, first="A much longer first block.\n" * 12 + "\n"))
    settle(editor, qtbot)
    assert top_text(editor) == before


def test_editor_at_the_top_stays_at_the_top_while_filling(qtbot) -> None:
    editor = TargetEditor()
    qtbot.addWidget(editor)
    editor.show()
    editor.want(paragraphs(100))
    settle(editor, qtbot)
    assert editor.verticalScrollBar().value() == 0
    assert top_text(editor) == "Paragraph 0 of the translation."


def test_preview_view_does_not_jump_when_a_block_above_grows(qtbot) -> None:
    preview = TargetPreview()
    qtbot.addWidget(preview)
    preview.resize(500, 300)
    preview.show()
    preview.want(paragraphs(120))
    settle(preview, qtbot)
    bar = preview.verticalScrollBar()
    bar.setValue(bar.maximum() // 2)
    index = preview.index_at(preview.cursorForPosition(QPoint(0, 0)).position())
    preview.want(paragraphs(120, first="Longer.\n\n" + "More text here. " * 200 + "\n\n"))
    settle(preview, qtbot)
    assert preview.index_at(preview.cursorForPosition(QPoint(0, 0)).position()) == index


KINDS = [
    "## Titre {i}\n\n",
    "Un paragraphe {i} avec du **gras**, un [lien](https://example.com) et `du code`.\n\n",
    "- point {i}\n- autre point\n\n",
    "| A | B |\n|---|--:|\n| {i} | 2 |\n\n",
    "```python\nprint({i})\n```\n\n",
    "> citation {i}\n\n",
    "1. un {i}\n2. deux\n\n",
    "---\n\n",
]


def mixed(count: int, tag: str = "") -> list:
    return [segment(f"b{i}", KINDS[i % len(KINDS)].format(i=f"{i}{tag}")) for i in range(count)]


def paragraphs_of(preview: TargetPreview, index: int) -> list[tuple]:
    """What the reader sees of block `index`: each paragraph's text and formats, in order."""
    doc = preview.document()
    start = preview.block_start(index)
    end = start + preview.lengths[index]
    out = []
    block = doc.findBlock(start)
    while block.isValid() and block.position() < end:
        fmt, char = block.blockFormat(), block.charFormat()
        first = block.begin()
        text_format = first.fragment().charFormat() if not first.atEnd() else char
        cursor = QTextCursor(block)
        out.append(
            (
                block.text(),
                fmt.headingLevel(),
                round(fmt.topMargin(), 1),
                round(fmt.bottomMargin(), 1),
                round(fmt.leftMargin(), 1),
                fmt.background().color().name(),
                fmt.lineHeight(),
                fmt.lineHeightType(),
                char.foreground().color().name(),
                char.fontItalic(),
                text_format.fontFixedPitch(),
                text_format.fontWeight(),
                cursor.currentTable() is not None,
                cursor.currentList() is not None,
            )
        )
        block = block.next()
    return out


def assert_runs_tile(preview: TargetPreview) -> None:
    """The blocks' runs cover the document but for its frames' glue: the start marker of each
    group frame (a root block of its own before it) and the final root block after the last."""
    doc = preview.document()
    ends = [preview.block_start(i) + n for i, n in enumerate(preview.lengths)]
    glue = [0, *ends][: len(ends)]  # where each run's preceding glue would stand
    for i, end in enumerate(glue):
        gap = preview.block_start(i) - end
        assert gap == 1 if i == 0 else gap in (0, 1), i
        if gap:  # a group starts: the previous one ended just before its start marker
            assert doc.characterAt(end) == "\ufdd0", i
            assert i == 0 or doc.characterAt(end - 1) == "\ufdd1", i
    if ends:
        assert doc.characterAt(ends[-1] - 1) == "\ufdd1"  # the last group's end marker
        assert ends[-1] == doc.characterCount() - 1  # then only the final root block


def alone(seg, qtbot) -> list[tuple]:
    preview = TargetPreview()
    qtbot.addWidget(preview)
    preview.want([seg])
    settle(preview, qtbot)
    return paragraphs_of(preview, 0)


def test_a_block_renders_as_it_would_alone_whatever_stands_or_stood_around_it(qtbot) -> None:
    """No format leaks from a neighbour or from the text a block replaced: a list after a
    quote is not grey, a paragraph where a heading stood has no heading margins."""
    preview = TargetPreview()
    qtbot.addWidget(preview)
    first = mixed(24)
    changed = list(first)
    changed[3] = segment("b3", "## Devenu titre\n\n")  # a table becomes a heading
    changed[9] = segment("b9", "Plus de code\n\n```\nx\n```\n\n")
    shuffled = changed[:5] + changed[7:12] + [segment("n", "Nouveau **bloc**\n\n")] + changed[12:]
    for wanted in (first, changed, shuffled, shuffled[::-1], mixed(9, "x")):
        preview.want(wanted)
        settle(preview, qtbot)
        assert preview.toPlainText().count("\u200b") == 0
        for i, seg in enumerate(wanted):
            assert paragraphs_of(preview, i) == alone(seg, qtbot), (i, seg.text)


def test_preview_keeps_block_boundaries_and_shows_expansions_inside_their_block(qtbot) -> None:
    preview = TargetPreview()
    qtbot.addWidget(preview)
    segs = [
        segment("h", "# Titre\n\n"),
        segment("l", "- un\n- deux\n\n"),
        segment("t", "| a | b |\n|---|---|\n| 1 | 2 |\n\n"),
        segment("c", "```\ncode()\n```\n"),
    ]
    preview.want(segs)
    settle(preview, qtbot)
    assert len(preview.lengths) == 4
    assert_runs_tile(preview)
    assert preview.document().findBlock(preview.block_start(0)).text() == "Titre"
    preview.set_expansion("h", "Un paragraphe généré.")
    settle(preview, qtbot)
    text = preview.toPlainText()
    assert "Un paragraphe généré." in text and "Generated by the model" in text
    assert len(preview.lengths) == 4
    heading = preview.document().toRawText()[: preview.lengths[0]]
    assert "Un paragraphe généré." in heading  # inside the heading's block, not the list's
    preview.want([])
    settle(preview, qtbot)
    assert preview.lengths == [] and preview.toPlainText() == ""


def test_a_hidden_pane_waits_for_the_stream_to_pause_then_takes_the_final_text(
    qtbot, monkeypatch
) -> None:
    # The scheduler's pause is read on a clock the test moves (its module's perf_counter): the
    # stream's pace and the pause are the test's, not the machine's.
    from fastdesk.ui.panes import incremental

    clock = FakeClock()
    monkeypatch.setattr(incremental, "time", SimpleNamespace(perf_counter=clock.monotonic))
    shown_pane, hidden_pane = TargetPreview(), TargetEditor()
    for pane in (shown_pane, hidden_pane):
        qtbot.addWidget(pane)
    edits = []
    hidden_pane.document().contentsChange.connect(lambda *args: edits.append(args))
    scheduler = RenderScheduler(quiet_ms=500)
    raw = False
    scheduler.add(hidden_pane, lambda: raw)
    scheduler.add(shown_pane, lambda: not raw)
    texts = [f"Bloc {i} en cours" for i in range(5)]
    for word in range(8):  # a stream: the texts grow every 30 ms
        texts = [f"{t} mot{word}" for t in texts]
        segs = [segment(f"b{i}", t + "\n\n") for i, t in enumerate(texts)]
        shown_pane.want(segs)
        hidden_pane.want(segs)
        scheduler.kick()
        qtbot.waitUntil(lambda: shown_pane.settled)  # the pane on screen keeps up
        clock.now += 0.03
    assert edits == [] and not scheduler.idle  # nothing done for the hidden one yet
    clock.now += 0.5  # the stream paused
    with qtbot.waitSignal(scheduler.settled, timeout=10_000):  # (a hang guard)
        pass
    assert hidden_pane.toPlainText() == "".join(s.text for s in segs)
    assert len(edits) <= len(segs)  # the final texts, once each (not every growing version)
    # shown at once when it becomes the pane on screen, without waiting for a pause (the clock
    # stands still from here: a pause never comes)
    more = [segment("b0", "Tout neuf\n\n"), *segs[1:]]
    shown_pane.want(more)
    hidden_pane.want(more)
    raw = True
    scheduler.kick()
    qtbot.waitUntil(lambda: hidden_pane.toPlainText().startswith("Tout neuf"), timeout=10_000)
    assert "Tout neuf" not in shown_pane.toPlainText()  # hidden now: waits for a pause
    qtbot.waitUntil(lambda: resting(scheduler))  # the clock stands still: the pause never comes
    assert "Tout neuf" not in shown_pane.toPlainText()
    clock.now += 0.5
    qtbot.waitUntil(lambda: "Tout neuf" in shown_pane.toPlainText(), timeout=10_000)


def test_a_hidden_raw_pane_takes_final_answers_while_the_stream_goes_on(qtbot) -> None:
    """Answers one after another, never a pause: the raw editor behind the rendered view shows
    each final answer (a pane added with ``follows``), while a growing one alone waits."""
    shown_pane, hidden_pane = TargetPreview(), TargetEditor()
    for pane in (shown_pane, hidden_pane):
        qtbot.addWidget(pane)
    scheduler = RenderScheduler(quiet_ms=60_000)  # a pause that never comes within the test
    scheduler.add(hidden_pane, lambda: False, follows=True)
    scheduler.add(shown_pane)
    segs = [segment(f"b{i}", f"Source {i}\n\n") for i in range(6)]

    def want(new: list, *, final: bool) -> None:
        for pane in (shown_pane, hidden_pane):
            pane.want(new)
        scheduler.kick(final=final)
        qtbot.waitUntil(lambda: resting(scheduler))  # the next answer, once this one is in

    want(segs, final=True)
    qtbot.waitUntil(lambda: hidden_pane.toPlainText() == "".join(s.text for s in segs))
    for i in range(6):  # block i grows, then is done; the next one starts
        segs[i] = segment(f"b{i}", f"Réponse {i} en cours\n\n")
        want(list(segs), final=False)
        segs[i] = segment(f"b{i}", f"Réponse {i}\n\n")
        want(list(segs), final=True)
        qtbot.waitUntil(
            lambda i=i: hidden_pane.settled and f"Réponse {i}\n" in hidden_pane.toPlainText(),
            timeout=5000,
        )  # (settled: a catch-up cut by its slice's deadline takes whatever is wanted next)
    grown = [segment("b0", "Réponse 0 plus longue\n\n"), *segs[1:]]
    want(grown, final=False)
    assert resting(scheduler)  # (want waited): nothing more runs before the pause, 60 s away
    assert shown_pane.settled and "plus longue" in shown_pane.toPlainText()
    assert "plus longue" not in hidden_pane.toPlainText()  # growing only: waits for a pause


def test_an_edited_block_reaches_the_hidden_raw_pane_in_the_next_slice(qtbot) -> None:
    """A backlog of 300 answers still to show in both panes, one block a slice (a budget of
    0 ms), the pane on screen busy: a block the user edits (a new id), then its answer, each
    shows in the hidden raw pane in the very next slice, before the backlog's blocks. They
    waited for the backlog: an edit during a 4,000-block fill showed 6.8 s after its answer
    reached the GUI thread (benchmarks/bench_window_fill.py)."""
    shown_pane, hidden_pane = TargetEditor(), TargetEditor()
    for pane in (shown_pane, hidden_pane):
        qtbot.addWidget(pane)
        pane.want(paragraphs(400))
        settle(pane, qtbot)
    scheduler = RenderScheduler(budget_ms=0.0, quiet_ms=60_000)  # no pause within the test
    scheduler.add(hidden_pane, lambda: False, follows=True)
    scheduler.add(shown_pane)
    segs = [segment(f"b{i}", f"Réponse {i}.\n\n") for i in range(300)] + paragraphs(400)[300:]

    def next_slice(new: list) -> None:
        for pane in (shown_pane, hidden_pane):
            pane.want(new)
        with qtbot.waitSignal(scheduler.rendered, timeout=5000):
            scheduler.kick(final=True)

    next_slice(segs)  # the backlog: 300 answers at once
    segs[250] = segment("e250", "Édité.\n\n")  # the source's edit: a new block id
    next_slice(list(segs))
    text = hidden_pane.toPlainText()
    assert "Édité." in text and "Réponse 249." not in text  # the backlog still waits
    segs[250] = segment("e250", "Réponse éditée.\n\n")  # the edited block's answer
    next_slice(list(segs))
    text = hidden_pane.toPlainText()
    assert "Réponse éditée." in text and "Réponse 249." not in text
    for _ in range(2):  # the pane on screen: its next slice (every other one at most)
        with qtbot.waitSignal(scheduler.rendered, timeout=5000):
            pass
    text = shown_pane.toPlainText()
    assert "Réponse éditée." in text and "Réponse 249." not in text  # first there too
    with qtbot.waitSignal(scheduler.settled, timeout=20_000):
        scheduler.kick(final=True)
    assert hidden_pane.toPlainText() == "".join(s.text for s in segs)


def test_an_edit_during_a_fill_is_one_replacement_not_an_alignment(qtbot, monkeypatch) -> None:
    """Half the blocks shown, then one of them edited (a new id and text): the step replaces
    it and appends the rest; difflib's alignment ran on every step of the fill."""
    editor = TargetEditor()
    qtbot.addWidget(editor)
    full = paragraphs(400)
    editor.want(full)
    while len(editor.shown) < 200:
        editor.step(time.perf_counter() - 1)  # a block a step: the fill half done
    edited = [*full[:50], segment("new50", "Édité.\n\n"), *full[51:]]
    editor.want(edited)
    aligned = []
    monkeypatch.setattr(
        "fastdesk.ui.panes.render.difflib.SequenceMatcher",
        lambda *a, **k: aligned.append(a) or pytest.fail("difflib aligned the fill"),
    )
    while not editor.step(time.perf_counter() + 1):
        pass
    assert editor.toPlainText() == "".join(s.text for s in edited) and not aligned


def test_a_hidden_rendered_view_keeps_a_long_fill_as_stand_ins_until_it_is_shown(
    qtbot, monkeypatch
) -> None:
    """Rendering thousands of blocks for a view nobody looks at kept the GUI thread busy for
    seconds after the last answer: the hidden view puts stand-ins in and stops (the scheduler
    is idle), then renders them once shown, from its reader's place."""
    monkeypatch.setattr(TargetPreview, "stand_ins_from", 100)  # (1,000: too long a test)
    shown_pane, hidden_pane = TargetEditor(), TargetPreview()
    for pane in (shown_pane, hidden_pane):
        qtbot.addWidget(pane)
        pane.resize(500, 300)
        pane.show()
    scheduler = RenderScheduler(quiet_ms=50)
    raw = True
    scheduler.add(shown_pane, lambda: raw)
    scheduler.add(hidden_pane, lambda: not raw)
    segs = mixed(350)
    shown_pane.want(segs)
    hidden_pane.want(segs)
    with qtbot.waitSignal(scheduler.settled, timeout=5000):
        scheduler.kick()
    assert scheduler.idle and shown_pane.settled
    assert len(hidden_pane.shown) == 350 and hidden_pane.parked
    assert all(hidden_pane.placeholder(i) for i in range(350))
    assert not scheduler._timer.isActive()  # and it stays so: no slice is to run for it
    assert all(hidden_pane.placeholder(i) for i in range(350))
    raw = False
    with qtbot.waitSignal(scheduler.settled, timeout=10000):
        scheduler.kick()  # (the view does so when it shows a pane)
    assert hidden_pane.settled and not hidden_pane.parked
    assert not any(hidden_pane.placeholder(i) for i in range(350))
    # a hidden view that shows every block already follows changes as before
    raw = True
    changed = [*segs[:10], segment("b10", "Changé.\n\n"), *segs[11:]]
    shown_pane.want(changed)
    hidden_pane.want(changed)
    with qtbot.waitSignal(scheduler.settled, timeout=5000):
        scheduler.kick()
    assert hidden_pane.settled and hidden_pane.shown[10].text == "Changé.\n\n"


@pytest.mark.parametrize("pane_type", [TargetEditor, TargetPreview])
def test_a_step_out_of_time_leaves_its_ops_to_the_next_not_a_new_diff(
    qtbot, monkeypatch, pane_type
) -> None:
    """Answers for every block, a block a step (each out of time): the diff is worked out once,
    not once a step (a long fill's backlog diffed 4,000 blocks every ~3 ms slice); new wanted
    texts meanwhile are diffed again, and the pane ends on them."""
    pane = pane_type()
    qtbot.addWidget(pane)
    pane.want(paragraphs(120))
    while not pane.step(time.perf_counter() + 1):
        pass
    diffs = []
    real = pane_type._diff
    monkeypatch.setattr(pane_type, "_diff", lambda self: diffs.append(1) or real(self))
    answers = [segment(s.key, s.text.replace("translation", "answer")) for s in paragraphs(120)]
    pane.want(answers)
    for _ in range(30):
        assert not pane.step(time.perf_counter() - 1)  # deadline passed: one block a step
    assert len(diffs) == 1
    assert [s.text for s in pane.shown[:30]] == [s.text for s in answers[:30]]
    again = [*answers[:60], segment("b60", "Changé.\n\n"), *answers[61:]]
    pane.want(again)
    steps = 0
    while not pane.step(time.perf_counter() - 1):
        steps += 1
        assert steps < 200
    assert len(diffs) == 2 and steps >= 89  # (the 90 blocks left, one a step)
    assert [s.text for s in pane.shown] == [s.text for s in again]


def test_a_slice_always_makes_progress_and_stops_at_its_deadline(qtbot) -> None:
    editor = TargetEditor()
    qtbot.addWidget(editor)
    editor.want(paragraphs(300))
    steps = 0
    while not editor.step(time.perf_counter() - 1):  # deadline already passed: one item
        steps += 1
        assert steps < 1000
    assert steps >= 299
    assert editor.toPlainText() == "".join(s.text for s in paragraphs(300))


def test_scrolling_the_source_scrolls_the_target_by_block(make_window, qtbot) -> None:
    w = make_window()
    w.resize(1000, 500)
    w.toggle_target_view()  # raw view: lines are easy to check
    text = "".join(f"Hello paragraph {i}, the cat.\n\n" for i in range(80))
    w.document_view.source.setPlainText(text)
    qtbot.waitUntil(
        lambda: w.document_view.target_editor.toPlainText() == translated(text), timeout=5000
    )
    qtbot.waitUntil(lambda: len(w.document_view.sync._starts) == 81)
    # two lines per block: block 40 on top
    w.document_view.source.verticalScrollBar().setValue(2 * 40)
    assert (
        w.document_view.target_editor.firstVisibleBlock().text()
        == "Bonjour paragraph 40, the chat."
    )
    w.document_view.target_editor.verticalScrollBar().setValue(2 * 60)
    assert w.document_view.source.firstVisibleBlock().text() == "Hello paragraph 60, the cat."
    w.set_sync_scroll(False)
    w.document_view.source.verticalScrollBar().setValue(0)
    assert (
        w.document_view.target_editor.firstVisibleBlock().text()
        == "Bonjour paragraph 60, the chat."
    )


def test_highlighting_counts_emoji_as_qt_does(qtbot) -> None:
    from PySide6.QtWidgets import QPlainTextEdit

    from fastdesk.ui.panes.highlighter import MarkdownHighlighter

    edit = QPlainTextEdit()
    qtbot.addWidget(edit)
    highlighter = MarkdownHighlighter(edit.document())
    edit.setPlainText("😀😀 `code` after")
    highlighter.rehighlight()
    formats = edit.document().firstBlock().layout().formats()
    code = [f for f in formats if f.format.fontFixedPitch()]
    assert [(f.start, f.length) for f in code] == [(5, 6)]  # two emoji = 4 units, a space


@pytest.mark.parametrize("end", ["---", "..."])
def test_the_source_is_muted_as_front_matter_only_as_far_as_the_parser_reads_it(
    qtbot, end: str
) -> None:
    """The highlighter ends front matter where the parser does (YAML's "..." too): after it,
    the document is coloured as Markdown, not greyed to its end."""
    from PySide6.QtWidgets import QPlainTextEdit

    from fastdesk.document.blocks import parse
    from fastdesk.ui.panes.highlighter import MarkdownHighlighter

    text = f"---\ntitle: Spec\n{end}\n\n# Introduction\n\nSee `code` here.\n"
    assert parse(text).blocks[1].kind == "heading"  # the parser's reading
    edit = QPlainTextEdit()
    qtbot.addWidget(edit)
    highlighter = MarkdownHighlighter(edit.document())
    edit.setPlainText(text)
    highlighter.rehighlight()
    document = edit.document()
    heading = document.findBlockByNumber(4)
    assert heading.text() == "# Introduction" and heading.userState() != 3  # not front matter
    formats = document.findBlockByNumber(6).layout().formats()
    assert any(f.format.fontFixedPitch() for f in formats)  # the inline code coloured as code


def test_the_tint_follows_its_block_through_edits_and_goes_with_it(qtbot) -> None:
    preview = TargetPreview()
    qtbot.addWidget(preview)
    segs = paragraphs(6)
    preview.want(segs)
    settle(preview, qtbot)
    preview.show_block(3)

    def tinted() -> str:
        (selection,) = preview.extraSelections()
        return selection.cursor.selectedText().rstrip("\u2029")

    assert tinted() == "Paragraph 3 of the translation."
    segs[1] = segment("b1", "A much longer block above.\n\n" * 3)  # above it: moves it
    segs[3] = segment("b3", "Paragraphe 3, retraduit.\n\n")  # the block itself, rewritten
    preview.want(segs)
    settle(preview, qtbot)
    assert tinted() == "Paragraphe 3, retraduit."
    preview.want(segs[:3] + segs[4:])  # and removed: no tint left behind
    settle(preview, qtbot)
    assert preview.tinted_block is None and preview.extraSelections() == []


class Paints(QObject):
    """An event filter that records the paint events of the objects it is installed on: which
    object (``seen``) and which rectangle (``rects``)."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[QObject] = []
        self.rects: list[QRect] = []

    @staticmethod
    def flush() -> None:
        """Every paint asked for so far is done: a widget's update() posts an update request,
        which paints when it is delivered. "No paint came" is asserted after this, not after
        some milliseconds (which a busy machine may not give the event loop)."""
        QApplication.sendPostedEvents()
        QApplication.processEvents()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.seen.append(watched)
            self.rects.append(event.region().boundingRect())  # type: ignore[attr-defined]
        return False


def test_repainting_the_scroll_bar_or_the_margin_leaves_the_pane_beneath_alone(qtbot) -> None:
    """Both are repainted after render slices: the pane's frame, the stack, the splitter and the
    window beneath them must not be repainted with them (measured ~0.5 ms each, each time)."""
    from fastdesk.ui.panes.common import flat_scroll_bars
    from fastdesk.ui.review.widgets import ReviewMargin

    preview = TargetPreview()
    qtbot.addWidget(preview)
    flat_scroll_bars(preview)
    margin = ReviewMargin(preview, lambda key: "machine", lambda key: "")
    preview.resize(400, 300)
    preview.want(paragraphs(40))
    settle(preview, qtbot)
    preview.show()
    qtbot.waitExposed(preview)
    bar = preview.verticalScrollBar()

    paints = Paints()
    for widget in (preview, bar, margin):
        widget.installEventFilter(paints)
    paints.flush()
    paints.seen.clear()
    bar.update()
    margin.update()
    qtbot.waitUntil(lambda: bar in paints.seen and margin in paints.seen)
    paints.flush()
    assert preview not in paints.seen


def test_filling_the_preview_selects_nothing(qtbot) -> None:
    """The reader's cursor may ride along with blocks put at it, but never spans them."""
    preview = TargetPreview()
    qtbot.addWidget(preview)
    preview.want(paragraphs(30))
    settle(preview, qtbot)
    assert not preview.textCursor().hasSelection()
    assert preview.textCursor().selectedText() == ""


def test_preview_decorates_a_streamed_delivery_as_a_full_pass_would(qtbot) -> None:
    """Unchanged blocks keep their decorated segment by identity; changed ones, a new context
    or an expansion are decorated again, so the pane wants what a fresh pane would."""
    from fastdesk.document.html import Context

    def decorated_fresh(segs, contexts, expansions) -> tuple:
        fresh = TargetPreview()
        qtbot.addWidget(fresh)
        fresh.set_contexts(contexts)
        fresh.expansions.update(expansions)
        fresh.want(segs)
        return tuple(s.text for s in fresh.wanted)

    preview = TargetPreview()
    qtbot.addWidget(preview)
    segs = paragraphs(6)
    contexts = {"b1": Context(number=3), "b4": Context(number=7)}
    preview.set_contexts(contexts)
    preview.want(segs)
    first = preview.wanted
    assert tuple(s.text for s in first) == decorated_fresh(segs, contexts, {})
    delivery = list(segs)
    delivery[4] = segment("b4", "Paragraphe 4 traduit.\n\n")  # one block answered
    preview.want(delivery)
    assert preview.wanted[0] is first[0] and preview.wanted[1] is first[1]  # reused as they were
    assert preview.wanted[4] is not first[4]
    assert tuple(s.text for s in preview.wanted) == decorated_fresh(delivery, contexts, {})
    preview.set_expansion("b2", "Generated.")  # an expansion re-decorates its block
    assert "\x00Generated." in preview.wanted[2].text
    assert tuple(s.text for s in preview.wanted) == decorated_fresh(
        delivery, contexts, {"b2": "Generated."}
    )
    moved = {"b1": Context(number=4), "b4": Context(number=7)}  # a new context: renders again
    preview.set_contexts(moved)
    assert preview.wanted[1].text != first[1].text
    assert tuple(s.text for s in preview.wanted) == decorated_fresh(
        delivery, moved, {"b2": "Generated."}
    )


_TEXTS = [f"Bloc {i}.\n\n" for i in range(6)] + ["Long bloc 😀, deux lignes\nici.\n\n", "x\n"]


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(  # wanted lists, each: block texts (indices into _TEXTS), and how to take it
        st.tuples(
            st.lists(st.integers(0, len(_TEXTS) - 1), max_size=12),
            st.sampled_from(["slices", "bulk", "half"]),
        ),
        min_size=1,
        max_size=6,
    )
)
@example(  # found by hypothesis: a long block replaced by two short ones, all at once
    texts=[
        ([0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 6], "slices"),
        ([], "half"),
        ([], "half"),
        ([0, 0, 0, 0, 0], "bulk"),
    ]
)
def test_any_sequence_of_wanted_texts_and_steps_ends_on_the_last(qtbot, texts) -> None:
    """Steps cut short (one block each), all-at-once steps, and wanted texts changed half way:
    the raw pane ends holding exactly the last wanted text, its block starts true (the ops a
    step ran out of time for, and the starts, are kept between steps)."""
    editor = TargetEditor()
    qtbot.addWidget(editor)
    for picks, how in texts:
        editor.want([segment(f"b{n}", _TEXTS[i]) for n, i in enumerate(picks)])
        if how == "bulk":
            with editor.all_at_once():
                assert editor.step(math.inf)
        else:
            for _ in range(3 if how == "half" else 10_000):
                if editor.step(time.perf_counter() - 1):
                    break
    wanted = editor.wanted
    while not editor.step(time.perf_counter() - 1):
        pass
    assert editor.toPlainText() == "".join(s.text for s in wanted)
    fresh = [0, *itertools.accumulate(s.qlen for s in wanted)]
    assert editor.starts() == fresh


def test_while_a_stream_goes_on_a_pane_on_screen_takes_far_blocks_only_now_and_then(
    qtbot,
) -> None:
    """Answers far below the view wait (a slice now and then: the GIL is the engine's), a change
    on screen shows at once, and when the stream pauses the far ones all come."""
    editor = TargetEditor()
    qtbot.addWidget(editor)
    editor.resize(400, 300)
    editor.show()
    segs = paragraphs(400)
    editor.want(segs)
    settle(editor, qtbot)
    answers = [segment(s.key, s.text.replace("translation", "answer")) for s in segs]
    scheduler = RenderScheduler(quiet_ms=60_000, far_gap_ms=60_000)  # the stream goes on
    scheduler.add(editor)
    editor.want([*segs[:200], *answers[200:]])
    scheduler.kick()
    qtbot.waitUntil(lambda: resting(scheduler))  # a slice, then the gap: 60 s
    done = sum(s.text == a.text for s, a in zip(editor.shown, answers, strict=True))
    assert 0 < done < 200
    wanted = [*answers[:10], *editor.wanted[10:]]
    editor.want(wanted)
    scheduler.kick()
    qtbot.waitUntil(lambda: [s.text for s in editor.shown[:10]] == [a.text for a in answers[:10]])
    scheduler.quiet = 0.0  # the stream pauses
    scheduler.kick()
    qtbot.waitUntil(lambda: editor.settled)
    assert editor.toPlainText() == "".join(s.text for s in wanted)
