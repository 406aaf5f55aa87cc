"""The review model : corrections kept, states, approval, stale edits, sidecar file."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastdesk.document.blocks import Document, parse
from fastdesk.document.target import TargetView
from fastdesk.review.model import (
    Review,
    diff_target_edit,
    load_review,
    review_path,
    save_review,
)
from fastdesk.review.target_model import TargetModel
from fastdesk.translate.events import BlockDelta, BlockDone, BlockFailed, BlockStarted, Flag

TEXT = "# Title\n\nFirst paragraph about cats.\n\nSecond paragraph about dogs.\n\n```\ncode\n```\n"


def fr(text: str) -> str:
    """A stand-in translation that is easy to recognise."""
    return text.upper()


def translated(doc: Document, review: Review, *, origin: str = "model") -> None:
    """What the engine would emit for every block of `doc`."""
    for block in doc.blocks:
        if block.translatable:
            review.apply_event(BlockDone(0, block.id, fr(block.text), origin))
        else:
            review.apply_event(BlockDone(0, block.id, block.text, "copy"))


def fresh(text: str = TEXT, lang: str = "fr", path: Path | None = None) -> tuple[Document, Review]:
    doc = parse(text)
    review = Review(path, lang, doc)
    translated(doc, review)
    return doc, review


def block(doc: Document, needle: str) -> str:
    return next(b.id for b in doc.blocks if needle in b.text)


# ---- corrections kept ---------------------------------------------------------------------------


def test_an_edited_block_survives_retranslation() -> None:
    doc, review = fresh()
    cats = block(doc, "cats")
    review.edit(cats, "Premier paragraphe sur les chats.\n\n")
    assert review.state_of(cats) == "edited"
    review.apply_event(BlockStarted(1, cats))
    assert review.state_of(cats) == "edited"  # not "in flight": the machine is not shown
    review.apply_event(BlockDone(1, cats, "RETRANSLATED\n\n", "model"))
    review.apply_event(BlockDone(2, cats, "FROM MEMORY\n\n", "memory"))
    assert review.state_of(cats) == "edited"
    assert "Premier paragraphe sur les chats." in review.target_text()
    assert "RETRANSLATED" not in review.target_text()
    assert review.info(cats).machine == "FROM MEMORY\n\n"  # kept aside, not shown


def test_typing_the_machine_text_back_is_no_edit() -> None:
    doc, review = fresh()
    cats = block(doc, "cats")
    review.edit(cats, "Mine\n\n")
    review.edit(cats, fr(doc.by_id(cats).text))
    assert review.state_of(cats) == "machine"
    assert not review.has_work()


def test_revert_shows_the_machine_text_again() -> None:
    doc, review = fresh()
    cats = block(doc, "cats")
    review.edit(cats, "Mine\n\n")
    assert review.revert(cats)
    assert review.target_text() == fr(TEXT).replace("```\nCODE\n```", "```\ncode\n```")


def test_editing_a_block_not_in_the_document_is_an_error() -> None:
    _doc, review = fresh()
    with pytest.raises(KeyError):
        review.edit("0000000000000000", "x")


# ---- states -------------------------------------------------------------------------------------


def test_states_follow_engine_events() -> None:
    doc = parse(TEXT)
    review = Review(None, "fr", doc)
    title, cats, dogs, code = (b.id for b in doc.blocks)
    assert review.state_of(title) == "pending"
    assert review.apply_event(BlockStarted(0, title))
    assert not review.apply_event(BlockStarted(0, title))  # no change, no repaint
    assert not review.apply_event(BlockDelta(0, title, "# TI"))
    assert review.state_of(title) == "in_flight"
    review.apply_event(BlockDone(0, title, "# TITRE\n\n", "model"))
    review.apply_event(BlockDone(0, cats, "CHATS\n\n", "memory"))
    review.apply_event(BlockDone(0, dogs, "CHIENS\n\n", "model", (Flag("links", "link lost"),)))
    review.apply_event(BlockDone(0, code, "```\ncode\n```\n", "copy"))
    assert [review.state_of(b) for b in (title, cats, dogs, code)] == [
        "machine",
        "memory",
        "flagged",
        "copy",
    ]
    assert "link target changed: link lost" in review.info(dogs).tooltip
    assert [m[1] for m in review.marks()] == ["machine", "memory", "flagged", "copy"]


def test_a_failed_block_is_flagged_with_the_reason_and_shows_its_source() -> None:
    doc = parse(TEXT)
    review = Review(None, "fr", doc)
    cats = block(doc, "cats")
    review.apply_event(BlockStarted(0, cats))
    review.apply_event(BlockFailed(0, cats, "every provider failed"))
    assert review.state_of(cats) == "flagged"
    assert "every provider failed" in review.info(cats).tooltip
    assert "First paragraph about cats." in review.target_text()


def test_clear_in_flight() -> None:
    doc = parse(TEXT)
    review = Review(None, "fr", doc)
    review.apply_event(BlockStarted(0, doc.blocks[0].id))
    review.clear_in_flight()
    assert review.state_of(doc.blocks[0].id) == "pending"


# ---- approval and summary -----------------------------------------------------------------------


def test_approval_pins_the_approved_text() -> None:
    doc, review = fresh()
    cats = block(doc, "cats")
    approved_text = review.shown_text(cats)
    assert review.approve(cats)
    assert not review.approve(cats)  # already
    review.apply_event(BlockDone(5, cats, "A DIFFERENT ANSWER\n\n", "model"))
    assert review.state_of(cats) == "approved"
    assert review.shown_text(cats) == approved_text
    assert review.unapprove(cats)
    assert review.shown_text(cats) == "A DIFFERENT ANSWER\n\n"


def test_nothing_to_approve() -> None:
    doc = parse(TEXT)
    review = Review(None, "fr", doc)
    cats = block(doc, "cats")
    assert not review.approve(cats)  # no translation yet
    review.apply_event(BlockStarted(0, cats))
    assert not review.approve(cats)  # still none
    review.apply_event(BlockDone(0, doc.blocks[-1].id, doc.blocks[-1].text, "copy"))
    assert not review.approve(doc.blocks[-1].id)  # code: nothing to review


def test_editing_an_approved_block_withdraws_the_approval() -> None:
    doc, review = fresh()
    cats = block(doc, "cats")
    review.approve(cats)
    review.edit(cats, "Chats.\n\n")
    assert review.state_of(cats) == "edited"
    assert review.approve(cats)
    assert review.state_of(cats) == "approved"
    assert review.info(cats).edited and review.info(cats).approved
    assert review.unapprove(cats)
    assert review.state_of(cats) == "edited"  # the edit stays


def test_approve_all_and_summary() -> None:
    text = TEXT + "\nThird, flagged.\n\nFourth, pending.\n"
    doc = parse(text)
    review = Review(None, "fr", doc)
    translated(parse(TEXT), review)
    third, fourth = block(doc, "Third"), block(doc, "Fourth")
    review.apply_event(BlockDone(0, third, "TROIS\n\n", "model", (Flag("code", "x"),)))
    review.edit(block(doc, "dogs"), "Chiens.\n\n")
    s = review.summary()
    assert (s.blocks, s.approved, s.edited, s.flagged, s.pending) == (5, 0, 1, 1, 1)
    assert review.approve_all() == 3  # title, cats, dogs (edited); not flagged, not pending
    s = review.summary()
    assert (s.approved, s.edited, s.flagged, s.pending, s.unreviewed) == (3, 0, 1, 1, 2)
    assert review.state_of(fourth) == "pending"
    assert review.approve_all(include_flagged=True) == 1
    assert review.summary().approved == 4
    assert "4 approved" in str(review.summary())


def test_approvable_names_what_approve_all_approves() -> None:
    doc, review = fresh()
    cats, dogs = block(doc, "cats"), block(doc, "dogs")
    review.apply_event(BlockDone(0, dogs, "X\n\n", "model", (Flag("code", "x"),)))
    assert review.approvable() == [block(doc, "Title"), cats]  # not flagged, not code
    assert review.approvable(include_flagged=True) == [block(doc, "Title"), cats, dogs]
    assert review.approve_all() == 2 and review.approvable() == []


# ---- undo: snapshots of the reviewer's records ----------------------------------------------


def test_restore_puts_back_exactly_what_a_snapshot_took() -> None:
    doc, review = fresh()
    cats, dogs = block(doc, "cats"), block(doc, "dogs")
    review.edit(cats, "Mes chats.\n\n")
    before = review.snapshot([cats, dogs])
    review.approve_all()
    after = review.snapshot([cats, dogs])
    assert review.state_of(cats) == review.state_of(dogs) == "approved"
    generation = review.generation
    assert review.restore(before) == [cats, dogs]  # undo
    assert review.generation > generation
    assert review.state_of(cats) == "edited" and review.shown_text(cats) == "Mes chats.\n\n"
    assert review.state_of(dogs) == "machine"
    assert review.restore(before) == []  # nothing left to change
    assert review.restore(after) == [cats, dogs]  # redo
    assert review.info(cats).edited and review.info(cats).approved


def test_restore_skips_blocks_the_source_lost_and_takes_them_once_back() -> None:
    doc, review = fresh()
    cats = block(doc, "cats")
    before = review.snapshot([cats])
    review.edit(cats, "Mes chats.\n\n")
    review.realign(parse(TEXT.replace("about cats", "about black cats")))
    assert review.restore(before) == []  # that block is gone: nothing else touched
    assert review.summary().stale == 1
    review.realign(doc)  # the source's undo brings it back
    assert review.state_of(cats) == "edited"
    assert review.restore(before) == [cats]
    assert not review.is_kept(cats)  # the edit undone (its machine answer went with the block)


def test_a_group_of_steps_starts_from_each_block_as_it_was_first() -> None:
    doc, review = fresh()
    cats, dogs = block(doc, "cats"), block(doc, "dogs")
    start = review.snapshot([cats])
    review.edit(cats, "Chats.\n\n")
    start = start.joined(review.snapshot([cats, dogs]))  # cats as it was first, dogs as now
    review.edit(dogs, "Chiens.\n\n")
    assert start.block_ids == (cats, dogs)
    assert review.restore(start) == [cats, dogs]
    assert not review.has_work()


def test_a_stale_edit_resolved_can_be_restored_with_its_old_source() -> None:
    doc, review = fresh()
    review.edit(block(doc, "cats"), "Mes chats.\n\n")
    new = parse(TEXT.replace("about cats", "about black cats"))
    review.realign(new)
    black = block(new, "black cats")
    before = review.snapshot([black])
    review.resolve(black, "keep")
    assert review.info(black).base == new.by_id(black).text
    review.restore(before)
    assert review.state_of(black) == "stale_edit"
    assert review.info(black).base == "First paragraph about cats.\n\n"  # the old source kept


def counted_block_by_block(review: Review, doc: Document) -> tuple[int, ...]:
    """The summary as a plain count of state_of over the document's translatable blocks."""
    states = [review.state_of(b.id) for b in doc.blocks if b.translatable]
    return (
        len(states),
        *(states.count(s) for s in ("approved", "flagged", "edited", "stale_edit")),
        *(states.count(s) for s in ("in_flight", "pending")),
    )


def test_summary_and_stale_blocks_agree_with_a_count_block_by_block() -> None:
    rng = random.Random(3)
    base = "".join(f"Paragraph {i}.\n\n" for i in range(12)) + "```\ncode\n```\n"
    for _ in range(200):
        doc = parse(base)
        review = Review(None, "fr", doc)
        for _ in range(rng.randint(0, 40)):
            bid = rng.choice(doc.blocks).id
            pick = rng.randrange(7)
            if pick == 0:
                review.apply_event(BlockStarted(0, bid))
            elif pick == 1:
                flags = (Flag("code", "x"),) if rng.random() < 0.3 else ()
                origin = rng.choice(("model", "memory", "copy"))
                review.apply_event(BlockDone(0, bid, "T.\n\n", origin, flags))
            elif pick == 2:
                review.apply_event(BlockFailed(0, bid, "boom"))
            elif pick == 3:
                review.edit(bid, "Edited.\n\n")
            elif pick == 4:
                review.approve(bid)
            elif pick == 5:  # the source changes under some blocks
                i = rng.randrange(12)
                doc = parse(base.replace(f"Paragraph {i}.", f"Paragraph {i}, changed."))
                review.realign(doc)
            else:
                review.clear_in_flight()
        s = review.summary()
        got = (s.blocks, s.approved, s.flagged, s.edited, s.stale, s.in_flight, s.pending)
        assert got == counted_block_by_block(review, doc)
        stale = [b.id for b in doc.blocks if review.state_of(b.id) == "stale_edit"]
        assert review.stale_blocks() == stale


_ACTIONS = st.lists(
    st.tuples(st.integers(0, 11), st.integers(0, 13), st.integers(0, 12), st.booleans()),
    max_size=60,
)


@settings(max_examples=80, deadline=None)
@given(_ACTIONS)
def test_the_summary_kept_up_to_date_equals_a_full_recount(actions: list) -> None:
    """The summary's counts follow the blocks each action changed: after every action they
    equal a count block by block (asked after each one, so the incremental path is the one
    that runs; realign and idle are among the actions)."""
    base = "".join(f"Paragraph {i}.\n\n" for i in range(12)) + "```\ncode\n```\n"
    doc = parse(base)
    review = Review(None, "fr", doc)
    undo = []
    for pick, index, other, flag in actions:
        bid = doc.blocks[index % len(doc.blocks)].id
        if pick == 0:
            review.apply_event(BlockStarted(0, bid))
        elif pick == 1:
            flags = (Flag("code", "x"),) if flag else ()
            origin = ("model", "memory", "copy")[other % 3]
            review.apply_event(BlockDone(0, bid, f"T{other}.\n\n", origin, flags))
        elif pick == 2:
            review.apply_event(BlockFailed(0, bid, "boom"))
        elif pick == 3:
            undo.append(review.snapshot([bid]))
            review.edit(bid, f"Edited {other}.\n\n")
        elif pick == 4:
            review.approve(bid) if flag else review.unapprove(bid)
        elif pick == 5:
            review.revert(bid)
        elif pick == 6:
            review.resolve(bid, "keep" if flag else "retranslate")
        elif pick == 7 and undo:
            review.restore(undo.pop())
        elif pick == 8:  # the source changes under a block (or back)
            text = base.replace(f"Paragraph {other}.", f"Paragraph {other}, changed.")
            doc = parse(text if flag else base)
            review.realign(doc)
        elif pick == 9:
            review.clear_in_flight()
        elif pick == 10:
            review.approve_all(include_flagged=flag)
        elif pick == 11:
            review.drop_detached()
        s = review.summary()
        got = (s.blocks, s.approved, s.flagged, s.edited, s.stale, s.in_flight, s.pending)
        assert got == counted_block_by_block(review, doc)
        assert s.detached == len(review.detached())


# ---- the source changes -------------------------------------------------------------------------


def test_source_change_under_an_edit_makes_it_stale_then_retranslate() -> None:
    doc, review = fresh()
    cats = block(doc, "cats")
    review.edit(cats, "Mes chats.\n\n")
    new = parse(TEXT.replace("about cats", "about black cats"))
    new_cats = block(new, "black cats")
    assert review.realign(new) == [new_cats]
    assert review.state_of(new_cats) == "stale_edit"
    assert review.info(new_cats).base == "First paragraph about cats.\n\n"
    assert "Mes chats." in review.target_text()  # nothing discarded silently
    review.apply_event(BlockDone(1, new_cats, "NOIRS\n\n", "model"))
    assert review.state_of(new_cats) == "stale_edit"
    assert "Mes chats." in review.target_text()
    assert review.summary().stale == 1
    assert review.resolve(new_cats, "retranslate") is False  # the answer is already there
    assert review.state_of(new_cats) == "machine"
    assert "NOIRS" in review.target_text() and "Mes chats." not in review.target_text()


def test_stale_edit_keep_mine() -> None:
    doc, review = fresh()
    cats = block(doc, "cats")
    review.approve(cats)  # an approval is an edit too: it was of the old source
    new = parse(TEXT.replace("about cats", "about black cats"))
    new_cats = block(new, "black cats")
    review.realign(new)
    assert review.state_of(new_cats) == "stale_edit"
    assert not review.approve(new_cats)  # resolve first
    assert review.resolve(new_cats, "keep") is False
    assert review.state_of(new_cats) == "edited"
    assert review.info(new_cats).base == new.by_id(new_cats).text
    review.apply_event(BlockDone(1, new_cats, "NOIRS\n\n", "model"))
    assert review.shown_text(new_cats) == fr("First paragraph about cats.\n\n")
    with pytest.raises(ValueError):
        review.resolve(new_cats, "maybe")


def test_retranslate_asks_for_a_translation_when_none_is_known() -> None:
    doc, review = fresh()
    review.edit(block(doc, "cats"), "Mes chats.\n\n")
    new = parse(TEXT.replace("about cats", "about black cats"))
    review.realign(new)
    assert review.resolve(block(new, "black cats"), "retranslate") is True
    assert review.state_of(block(new, "black cats")) == "pending"


def test_typing_in_the_source_moves_one_stale_edit_along_and_undo_restores_it() -> None:
    doc, review = fresh()
    cats = block(doc, "cats")
    review.edit(cats, "Mes chats.\n\n")
    reported = []
    text = TEXT
    for word in ("very", " nice", " black"):  # a few keystrokes at a time in the same paragraph
        text = text.replace("about cats", f"about{word} cats") if word == "very" else text
        text = text.replace(" cats", f"{word} cats", 1) if word != "very" else text
        reported += review.realign(parse(text))
    assert len(reported) == 1  # reported stale once, not at every keystroke
    s = review.summary()
    assert (s.stale, s.edited, s.detached) == (1, 0, 0)
    review.realign(parse(TEXT))  # undo back to the source the edit was made for
    assert review.state_of(cats) == "edited"
    assert review.summary().stale == 0


def test_inserting_a_paragraph_above_keeps_the_edit_on_its_block() -> None:
    doc, review = fresh()
    dogs = block(doc, "dogs")
    review.edit(dogs, "Mes chiens.\n\n")
    new = parse(TEXT.replace("First paragraph", "A new paragraph.\n\nFirst paragraph"))
    assert review.realign(new) == []
    assert review.state_of(dogs) == "edited"
    assert review.target_text(new).index("Mes chiens.") > review.target_text(new).index(
        fr("First paragraph")
    )


def test_inserting_a_duplicate_paragraph_keeps_the_edit_on_its_block() -> None:
    text = "Note.\n\nMiddle.\n\nNote.\n\nEnd.\n"
    doc, review = fresh(text)
    second = doc.blocks[2].id
    assert second.endswith("-2")
    review.edit(second, "Remarque (la seconde).\n\n")
    new = parse("Note.\n\n" + text)  # ids renumber: the edited block is now "-3"
    assert new.blocks[3].id.endswith("-3")
    review.realign(new)
    states = [review.state_of(b.id) for b in new.blocks]
    assert states == ["machine", "machine", "machine", "edited", "machine"]
    assert review.target_text(new).endswith("Remarque (la seconde).\n\nEND.\n")


def test_an_edit_whose_block_is_deleted_is_detached_and_comes_back() -> None:
    doc, review = fresh()
    dogs = block(doc, "dogs")
    review.edit(dogs, "Mes chiens.\n\n")
    without = parse(TEXT.replace("Second paragraph about dogs.\n\n", ""))
    review.realign(without)
    assert review.summary().detached == 1
    assert review.detached()[0].text == "Mes chiens.\n\n"
    review.realign(parse(TEXT))  # pasted back
    assert review.state_of(dogs) == "edited"
    assert review.summary().detached == 0
    review.realign(without)
    assert review.drop_detached() == 1 and not review.has_work()


def test_splitting_an_edited_paragraph_follows_the_most_similar_half() -> None:
    text = "# T\n\nThe quick brown fox jumps over the lazy dog near the river bank.\n"
    doc, review = fresh(text)
    fox = block(doc, "fox")
    review.edit(fox, "Le renard.\n")
    split = parse("# T\n\nShort.\n\nThe quick brown fox jumps over the lazy dog near the river.\n")
    review.realign(split)
    assert review.state_of(block(split, "fox")) == "stale_edit"
    assert review.state_of(block(split, "Short")) == "pending"


def test_machine_answers_survive_for_blocks_still_present() -> None:
    _doc, review = fresh()
    new = parse(TEXT.replace("about cats", "about black cats"))
    review.realign(new)
    assert review.state_of(block(new, "dogs")) == "machine"
    assert review.state_of(block(new, "black cats")) == "pending"


def test_realigning_a_rewritten_document_keeps_each_edit_on_its_paragraph() -> None:
    """Another editor rewrote every paragraph on disk and added some: 500 stale edits, each on
    its own paragraph. How long it takes (a character-level diff took 27 s here) is a figure:
    benchmarks/bench_realign.py prints it for this same document."""
    paras = [f"Paragraph {i} says a few words about topic {i}, " * 3 + "\n\n" for i in range(500)]
    doc, review = fresh("".join(paras))
    for b in doc.blocks:
        review.edit(b.id, "mine: " + b.text)
    rewritten = "".join(
        p.replace("words", "things") + ("Added.\n\n" if i % 7 == 0 else "")
        for i, p in enumerate(paras)
    )
    new = parse(rewritten)
    stale = review.realign(new)
    assert len(stale) == 500
    for b in new.blocks:
        info = review.info(b.id)
        if info.state == "stale_edit":
            assert info.base is not None
            assert b.text.split(" says")[0] == info.base.split(" says")[0]  # same paragraph


# ---- what the target pane shows -----------------------------------------------------------------


def _span(view, bid):  # type: ignore[no-untyped-def]
    return view.span_of(bid)


def shown_view(review: Review) -> TargetView:
    """What the target panes show for the review's document (the window's one model of it)."""
    assert review.doc is not None
    model = TargetModel(review)
    model.set_doc(review.doc)
    return model.view()


def test_diff_target_edit_within_one_block() -> None:
    doc, review = fresh()
    view = shown_view(review)
    cats = block(doc, "cats")
    new_text = view.text.replace("CATS", "CHATS")
    assert diff_target_edit(view, new_text) == [(cats, "FIRST PARAGRAPH ABOUT CHATS.\n\n")]


def test_diff_target_edit_across_blocks_and_at_the_end() -> None:
    doc, review = fresh()
    view = shown_view(review)
    cut = view.text.replace("ABOUT CATS.\n\nSECOND PARAGRAPH", "X")
    changes = diff_target_edit(view, cut)
    assert [bid for bid, _t in changes] == [block(doc, "cats"), block(doc, "dogs")]
    assert changes[0][1] == "FIRST PARAGRAPH X" and changes[1][1].startswith(" ABOUT DOGS")
    appended = diff_target_edit(view, view.text + "More.\n")
    assert appended == [(doc.blocks[-1].id, doc.blocks[-1].text + "More.\n")]
    assert diff_target_edit(view, view.text) == []


def test_diff_target_edit_hint_settles_ambiguous_insertions() -> None:
    doc = parse("Aa\n\nBb\n")
    review = Review(None, "fr", doc)
    translated(doc, review)
    view = shown_view(review)  # "AA\n\nBB\n": typing a newline after "AA\n" is ambiguous
    new_text = "AA\n\n\nBB\n"
    assert diff_target_edit(view, new_text)[0][0] == doc.blocks[1].id  # prefix rule: later
    assert diff_target_edit(view, new_text, at=3) == [(doc.blocks[0].id, "AA\n\n\n")]


def test_diff_target_edit_always_rebuilds_the_new_text() -> None:
    rng = random.Random(7)
    _doc, review = fresh(TEXT + "\n- one\n- two\n\nLast words here.\n")
    view = shown_view(review)
    alphabet = "ab \nÉ😀#"
    for _ in range(400):
        old = view.text
        i = rng.randrange(len(old) + 1)
        j = min(len(old), i + rng.randrange(0, 30))
        insert = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 12)))
        new_text = old[:i] + insert + old[j:]
        hint = i if rng.random() < 0.5 else None
        texts = {bid: old[s:e] for bid, s, e in view.spans}
        changes = diff_target_edit(view, new_text, at=hint)
        texts.update(changes)
        assert "".join(texts[bid] for bid, _s, _e in view.spans) == new_text
        assert all(bid in texts for bid, _t in changes)


# ---- the sidecar file ---------------------------------------------------------------------------


def test_review_path() -> None:
    assert review_path(Path("docs/guide.md")) == Path("docs/guide.md.fastdesk.json")


def _worked(tmp_path: Path, lang: str) -> tuple[Path, Document, Review]:
    source = tmp_path / "guide.md"
    source.write_text(TEXT, encoding="utf-8")
    doc, review = fresh(TEXT, lang, source)
    review.edit(block(doc, "cats"), f"Chats ({lang}).\n\n")
    review.approve(block(doc, "Title"))
    review.apply_event(
        BlockDone(0, block(doc, "dogs"), "CHIENS\n\n", "model", (Flag("links", "lost"),))
    )
    return source, doc, review


def test_sidecar_round_trip_restores_the_review_exactly_per_language(tmp_path: Path) -> None:
    source, doc, review_fr = _worked(tmp_path, "fr")
    _source, _doc, review_de = _worked(tmp_path, "de")
    review_de.edit(block(doc, "dogs"), "Hunde.\n\n")
    assert save_review(review_fr) == tmp_path / "guide.md.fastdesk.json"
    save_review(review_de)
    data = json.loads((tmp_path / "guide.md.fastdesk.json").read_text(encoding="utf-8"))
    assert data["version"] == 1 and set(data["languages"]) == {"fr", "de"}
    for original in (review_fr, review_de):
        loaded, warnings = load_review(source, original.lang, doc)
        assert warnings == []
        assert loaded.to_dict() == original.to_dict()
        assert loaded.target_text() == original.target_text()
        assert [m for m in loaded.marks()] == [m for m in original.marks()]
        assert loaded.info(block(doc, "dogs")).flags == original.info(block(doc, "dogs")).flags
    none, warnings = load_review(source, "es", doc)
    assert not none.has_work() and warnings == []


def test_stale_and_detached_edits_survive_the_sidecar(tmp_path: Path) -> None:
    source, doc, review = _worked(tmp_path, "fr")
    review.edit(block(doc, "dogs"), "Chiens.\n\n")
    changed = parse(
        TEXT.replace("about cats", "about big cats").replace("Second paragraph about dogs.\n\n", "")
    )
    review.realign(changed)
    save_review(review)
    loaded, _ = load_review(source, "fr", changed)
    assert loaded.to_dict() == review.to_dict()
    assert loaded.summary().stale == 1 and loaded.summary().detached == 1
    assert loaded.info(block(changed, "big cats")).base == "First paragraph about cats.\n\n"


def test_reload_after_an_external_change_realigns_by_block(tmp_path: Path) -> None:
    source, doc, review = _worked(tmp_path, "fr")
    review.edit(block(doc, "dogs"), "Mes chiens.\n\n")
    save_review(review)
    # another editor inserts a paragraph above the edited ones and rewords the first
    changed = TEXT.replace(
        "First paragraph about cats.", "Inserted.\n\nFirst paragraph about cats!"
    )
    source.write_text(changed, encoding="utf-8")
    loaded, warnings = load_review(source, "fr", parse(source.read_text(encoding="utf-8")))
    new = loaded.doc
    assert warnings == [] and new is not None
    assert loaded.state_of(block(new, "dogs")) == "edited"
    assert loaded.shown_text(block(new, "dogs")) == "Mes chiens.\n\n"
    assert loaded.state_of(block(new, "cats!")) == "stale_edit"
    assert loaded.state_of(block(new, "Inserted")) == "pending"
    assert loaded.state_of(block(new, "Title")) == "approved"


def test_sidecar_write_is_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _source, doc, review = _worked(tmp_path, "fr")
    path = save_review(review)
    assert path is not None
    before = path.read_bytes()
    review.edit(block(doc, "dogs"), "Changé.\n\n")

    def fail(*_args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError):
        save_review(review)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["guide.md", "guide.md.fastdesk.json"]


@pytest.mark.parametrize(
    "content",
    [
        b"{not json",
        b"\xff\xfe garbage",
        b'{"version": 99, "languages": {}}',
        b"[1, 2]",
        b'{"version": 1, "languages": {"fr": {"lang": "fr", "source": 3}}}',
    ],
)
def test_a_broken_sidecar_is_set_aside_with_a_warning(tmp_path: Path, content: bytes) -> None:
    source = tmp_path / "guide.md"
    source.write_text(TEXT, encoding="utf-8")
    review_path(source).write_bytes(content)
    review, warnings = load_review(source, "fr", parse(TEXT))
    assert not review.has_work() and review.doc is not None
    assert len(warnings) == 1 and "guide.md.fastdesk.json" in warnings[0]
    aside = list(tmp_path.glob("guide.md.fastdesk.json.broken-*"))
    assert len(aside) == 1 and aside[0].read_bytes() == content
    assert not review_path(source).exists()
    review.edit(review.doc.blocks[0].id, "# Titre\n\n")
    assert save_review(review) == review_path(source)  # and writing works again


def test_untitled_reviews_have_no_sidecar() -> None:
    _doc, review = fresh()
    assert save_review(review) is None


def test_records_fall_back_to_positions_when_ids_differ(tmp_path: Path) -> None:
    """A later fastdesk may cut or hash blocks differently: same block count, same positions."""
    source, doc, review = _worked(tmp_path, "fr")
    path = save_review(review)
    assert path is not None
    data = json.loads(path.read_text(encoding="utf-8"))
    for entry in data["languages"]["fr"]["blocks"]:
        entry["id"] = "f" * 16 + f"-{entry['i']}"
    path.write_text(json.dumps(data), encoding="utf-8")
    loaded, warnings = load_review(source, "fr", doc)
    assert warnings == []
    assert loaded.to_dict() == review.to_dict()


# ---- with a real live translator ----------------------------------------------------------


def test_a_live_translator_never_overwrites_a_correction() -> None:
    """Engine events from a LiveTranslator drive the review; retranslation and a source edit
    leave the reviewer's text in place until they decide."""
    import asyncio

    from fastdesk.routing.router import Router
    from fastdesk.translate.engine import Engine
    from fastdesk.translate.events import RevisionDone
    from fastdesk.translate.job import JobSpec
    from fastdesk.translate.live import LiveTranslator
    from tests.fakes import FakeProvider, last_user

    calls = [0]

    def answer(request) -> str:  # type: ignore[no-untyped-def]
        calls[0] += 1
        return f"{last_user(request).upper()} #{calls[0]}"

    async def scenario() -> None:
        review = Review(None, "fr")
        settled: asyncio.Queue[RevisionDone] = asyncio.Queue()

        def emit(event: object) -> None:
            review.apply_event(event)  # type: ignore[arg-type]
            if isinstance(event, RevisionDone):
                settled.put_nowait(event)

        async def settle() -> None:
            await asyncio.wait_for(settled.get(), 10)

        translator = LiveTranslator(
            Engine(Router({"groq": FakeProvider(answer=answer)})), JobSpec(), emit
        )
        text = TEXT
        review.realign(parse(text))
        translator.update(text, 1)
        await settle()
        assert review.summary().pending == 0 and review.summary().in_flight == 0
        doc = review.doc
        assert doc is not None
        cats = block(doc, "cats")
        # the reviewer corrects the first paragraph in the target pane
        model = TargetModel(review)
        model.set_doc(doc)
        shown = model.view()
        machine = review.shown_text(cats)
        assert machine is not None
        changes = diff_target_edit(shown, shown.text.replace(machine.strip(), "Les chats."))
        assert [bid for bid, _t in changes] == [cats]
        for bid, new in changes:
            review.edit(bid, new)
        translator.retranslate([cats])  # a forced re-translation
        await settle()
        assert review.info(cats).machine not in (None, machine)  # a new answer arrived…
        assert review.shown_text(cats) == "Les chats.\n\n"  # …and was kept aside
        # the source of that paragraph changes
        text = TEXT.replace("about cats", "about cats and mice")
        assert review.realign(parse(text)) == [block(parse(text), "mice")]
        translator.update(text, 2)
        await settle()
        mice = block(parse(text), "mice")
        assert review.state_of(mice) == "stale_edit"
        assert review.shown_text(mice) == "Les chats.\n\n"
        assert review.resolve(mice, "retranslate") is False
        assert "MICE" in (review.shown_text(mice) or "")
        await translator.aclose()

    asyncio.run(scenario())
