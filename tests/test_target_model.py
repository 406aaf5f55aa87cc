"""TargetModel: the one model of what the target shows (Qt-free)."""

from __future__ import annotations

from fastdesk.document.blocks import Document, parse
from fastdesk.review.model import Review
from fastdesk.review.session import DocumentSession
from fastdesk.review.target_model import TargetModel, joined
from fastdesk.translate.events import BlockDelta, BlockDone, BlockFailed, BlockStarted

TEXT = "# Title\n\nFirst paragraph.\n\nSecond paragraph.\n"


def model_of(text: str = TEXT, revision: int = 1) -> tuple[TargetModel, Document]:
    model = TargetModel(Review(None, "fr"))
    doc = parse(text)
    model.set_doc(doc)
    return model, doc


def answer_all(model: TargetModel, doc: Document, revision: int = 1) -> None:
    model.apply(BlockDone(revision, b.id, b.text.upper(), "model") for b in doc.blocks)


def test_a_new_document_shows_its_source_marked_as_waiting() -> None:
    model, doc = model_of()
    assert joined(model.segments()) == TEXT
    assert model.pending == {b.id for b in doc.blocks}
    assert {model.status_of(b.id) for b in doc.blocks} == {"waiting"}


def test_an_edited_block_keeps_its_last_good_translation_and_a_new_one_its_source() -> None:
    model, doc = model_of()
    answer_all(model, doc)
    assert joined(model.segments()) == TEXT.upper() and not model.pending
    edited = parse(TEXT.replace("First", "Edited first"))
    model.set_doc(edited)
    assert joined(model.segments()) == TEXT.upper()  # the old translation stays at that place
    assert model.pending == {edited.blocks[1].id}
    grown = parse(TEXT.replace("First", "Edited first") + "\nThird.\n")
    model.set_doc(grown)
    assert joined(model.segments()).endswith("Third.\n")


def test_streaming_shows_until_final_and_never_over_a_reviewers_text() -> None:
    model, doc = model_of()
    head, first, second = (b.id for b in doc.blocks)
    answer_all(model, doc)
    model.review.edit(head, "# Titre\n\n")
    model.apply([BlockStarted(2, first), BlockDelta(2, first, "PREM"), BlockDelta(2, head, "# T")])
    texts = [s.text for s in model.segments()]
    assert texts == ["# Titre\n\n", "PREM", "SECOND PARAGRAPH.\n"]
    assert model.status_of(first) == "in_flight"
    assert model.export_text() == "# Titre\n\nFIRST PARAGRAPH.\n\nSECOND PARAGRAPH.\n"
    model.apply([BlockDone(2, first, "Premier.\n\n", "model")])
    assert [s.text for s in model.segments()][1] == "Premier.\n\n"
    assert model.export_text() == joined(model.segments())
    model.apply([BlockFailed(2, second, "boom")])
    assert model.status_of(second) == "failed"
    model.apply([BlockStarted(3, second)])
    assert model.status_of(second) == "retrying"
    assert model.status_of(first) == "done"


def test_stale_events_are_dropped_in_one_place() -> None:
    """The session owns the rule (fastdesk.review.session); the model drops only events for
    blocks its document no longer holds."""
    session = DocumentSession(Review(None, "fr"))
    doc = parse(TEXT)
    session.set_doc(doc, 1)
    model = session.model
    first = doc.blocks[1].id
    session.switch(model.review, floor=5)  # a language switch at revision 5
    assert not session.apply([BlockDone(4, first, "old language\n\n", "model")])
    assert not session.apply([BlockDone(5, "not-in-the-document", "x", "model")])
    assert joined(model.segments()) == TEXT
    assert session.apply([BlockDone(5, first, "nouvelle\n\n", "model")])
    assert "nouvelle" in joined(model.segments())


def test_unchanged_blocks_are_handed_on_as_the_same_objects() -> None:
    model, doc = model_of("A\r\n\r\nB\r\n\r\nC\r\n")
    first = model.segments()
    assert joined(first) == "A\n\nB\n\nC\n" and first[0].qlen == 3  # Qt's line ends
    assert model.segments() is first  # nothing changed: the very tuple
    model.apply([BlockDelta(1, doc.blocks[1].id, "Bé😀")])
    again = model.segments()
    assert again[0] is first[0] and again[2] is first[2]
    assert again[1].text == "Bé😀" and again[1].qlen == 4  # UTF-16: the emoji counts two


def test_idle_drops_partial_answers_of_cancelled_work() -> None:
    model, doc = model_of()
    answer_all(model, doc)
    first = doc.blocks[1].id
    model.apply([BlockDelta(2, first, "half")])
    model.idle()
    assert joined(model.segments()) == TEXT.upper()


def test_a_few_thousand_blocks_agree_with_the_export_after_a_fill() -> None:
    text = "".join(f"Paragraph {i} of the long text.\n\n" for i in range(3000))
    model, doc = model_of(text)
    for chunk in range(0, 3000, 16):  # deliveries of answers, some streamed first
        part = doc.blocks[chunk : chunk + 16]
        model.apply(BlockDelta(1, b.id, b.text[:5]) for b in part)
        model.segments()
        model.apply(BlockDone(1, b.id, b.text.upper(), "model") for b in part)
    segs = model.segments()
    assert [s.key for s in segs] == [b.id for b in doc.blocks]
    assert [s.text for s in segs] == [b.text.upper() for b in doc.blocks]
    assert model.export_text() == joined(segs) == text.upper()
    assert not model.pending and not model.streaming


def test_an_edit_keeps_the_other_blocks_segments_and_the_edited_ones_last_good_text() -> None:
    text = "".join(f"Paragraph {i}.\n\n" for i in range(50))
    model, doc = model_of(text)
    answer_all(model, doc)
    first = model.segments()
    edited = parse(text.replace("Paragraph 20.", "Paragraph 20, edited."))
    model.set_doc(edited)
    again = model.segments()
    assert all(again[i] is first[i] for i in range(50) if i != 20)
    assert again[20].key == edited.blocks[20].id and again[20].text == first[20].text
    shorter = parse(edited.source.replace("Paragraph 30.\n\n", ""))
    model.set_doc(shorter)  # a block deleted: the others, the edited one too, stay as shown
    assert joined(model.segments()) == text.upper().replace("PARAGRAPH 30.\n\n", "")
