"""The reviewer model's verdicts as the window shows them (Qt-free): kept with the answer they
judged, dropped for a corrected block, underlined at their spans, listed by MQM category in the
problems list, summed into the document's score, and news for the session's subscribers."""

from __future__ import annotations

from fastdesk.document.blocks import Document, parse
from fastdesk.review.model import Review
from fastdesk.review.problems import KIND_LABELS, REVIEW_KINDS, ProblemList
from fastdesk.review.quality import score_colour, score_label
from fastdesk.review.session import Change, DocumentSession
from fastdesk.review.target_model import TargetModel, qt_len
from fastdesk.translate.events import BlockDone, BlockReviewed, BlockStarted
from fastdesk.translate.mqm import QualityReview, ReviewError, mqm_score

TEXT = "# Title\n\nFirst paragraph.\n\nSecond paragraph 🙂 here.\n"
ANSWERS = ["# Titre\n\n", "Premier paragraphe.\n\n", "Deuxième 🙂 paragraphe ici.\n"]


def verdict(answer: str, *errors: tuple[str, str, str], words: int = 20) -> QualityReview:
    core = answer.strip()
    made = [
        ReviewError(core.index(span), span, cat, sev, f"about {span}") for span, cat, sev in errors
    ]
    return QualityReview(tuple(made), words)


def translated() -> tuple[TargetModel, Document]:
    model = TargetModel(Review(None, "fr"))
    doc = parse(TEXT)
    model.set_doc(doc)
    model.apply(BlockDone(1, b.id, a, "model") for b, a in zip(doc.blocks, ANSWERS, strict=True))
    return model, doc


def test_a_verdict_holds_for_the_answer_it_judged_only() -> None:
    model, doc = translated()
    first = doc.blocks[1].id
    judged = verdict(ANSWERS[1], ("paragraphe", "terminology", "minor"))
    assert model.apply([BlockReviewed(1, first, judged)])  # news for the views
    assert model.quality_of(first) == judged
    model.review.approve(first)
    assert model.quality_of(first) == judged  # approved as it was judged: the score stays
    model.review.edit(first, "Premier alinéa.\n\n")
    assert model.quality_of(first) is None  # corrected: that verdict was on another text
    model.apply([BlockDone(2, first, "Un autre.\n\n", "model")])
    model.review.revert(first)
    assert model.quality_of(first) is None  # a new answer is not the one judged


def test_errors_are_underlined_at_their_spans_in_the_panes_units() -> None:
    model, doc = translated()
    second = doc.blocks[2].id
    judged = verdict(ANSWERS[2], ("paragraphe ici", "fluency", "major"))
    model.apply([BlockReviewed(1, second, judged)])
    (line,) = model.underlines(second)
    shown = next(s.text for s in model.segments() if s.key == second)
    start = ANSWERS[2].index("paragraphe ici")
    assert (line.start, line.end) == (qt_len(shown[:start]), qt_len(shown[:start]) + 14)
    assert line.start == start + 1  # the emoji before it counts two UTF-16 units
    assert line.tooltip == "fluency (major): about paragraphe ici"


def test_the_problems_list_gains_one_row_per_error_of_its_category() -> None:
    session = DocumentSession(Review(None, "fr"))
    problems = ProblemList(session.model)
    session.subscribe(problems.take)  # as the window's problems dock takes the stream
    doc = parse(TEXT)
    first, second = doc.blocks[1].id, doc.blocks[2].id
    done = [BlockDone(1, b.id, a, "model") for b, a in zip(doc.blocks, ANSWERS, strict=True)]
    session.take(1, done, doc=doc)
    problems.refresh()
    assert {p.kind for p in problems.rows} == {"unapproved"}
    session.take(1, [
        BlockReviewed(1, first, verdict(ANSWERS[1], ("Premier", "accuracy/omission", "critical"))),
        BlockReviewed(1, second, verdict(ANSWERS[2], ("ici", "style", "minor"))),
    ])  # fmt: skip
    assert problems.refresh()
    review_rows = [p for p in problems.rows if p.kind in REVIEW_KINDS]
    assert [(p.block_id, p.kind, p.title, p.reason) for p in review_rows] == [
        (first, "accuracy", "omission (critical)", "“Premier”: about Premier"),
        (second, "style", "style (minor)", "“ici”: about ici"),
    ]
    assert KIND_LABELS["accuracy"] == "Accuracy"
    session.review.approve(second)  # approved: needs nothing, its errors included
    problems.refresh()
    assert [p.block_id for p in problems.rows if p.kind in REVIEW_KINDS] == [first]


def test_the_documents_score_and_its_colour() -> None:
    model, doc = translated()
    assert model.document_score() is None
    major = verdict(ANSWERS[2], ("ici", "style", "major"), words=20)
    model.apply([
        BlockReviewed(1, doc.blocks[1].id, verdict(ANSWERS[1], words=30)),
        BlockReviewed(1, doc.blocks[2].id, major),
    ])  # fmt: skip
    assert model.document_score() == mqm_score(5, 50) == 90.0
    assert [score_label(s) for s in (100.0, 95.0, 90.0, 80.0, 79.9)] == [
        "good", "good", "fair", "fair", "poor",
    ]  # fmt: skip
    assert len({score_colour(s) for s in (100.0, 90.0, 10.0)}) == 3


def test_a_verdict_is_news_for_its_block_not_for_the_status_line() -> None:
    review = Review(None, "fr")
    session = DocumentSession(review)
    seen: list[Change] = []
    session.subscribe(seen.append)
    doc = parse(TEXT)
    first = doc.blocks[1].id
    done = [BlockDone(1, b.id, a, "model") for b, a in zip(doc.blocks, ANSWERS, strict=True)]
    session.take(1, done, doc=doc)
    # while the engine works, the change names the block (the problems list looks at it
    # alone); as it settles, any block may have changed (Change.blocks None)
    change = session.take(1, [BlockReviewed(1, first, verdict(ANSWERS[1]))], busy=True)
    assert change.blocks == {first} and change.review and change.news == ()
    assert session.model.quality_of(first) is not None and seen[-1] is change


def test_verdicts_after_the_engine_settled_name_their_blocks() -> None:
    """The reviews come after the translations, the engine idle: each delivery of verdicts names
    its blocks, so that the problems list looks at them alone, not at the whole document."""
    session = DocumentSession(Review(None, "fr"))
    doc = parse(TEXT)
    first, second = doc.blocks[1].id, doc.blocks[2].id
    session.take(1, [BlockDone(1, doc.blocks[0].id, ANSWERS[0], "model")], doc=doc, busy=True)
    problems = ProblemList(session.model)
    session.subscribe(problems.take)
    problems.refresh()
    rest = [
        BlockDone(1, b.id, a, "model") for b, a in zip(doc.blocks[1:], ANSWERS[1:], strict=True)
    ]
    assert session.take(1, rest, busy=False).blocks is None  # settling: in flight forgotten
    problems.refresh()
    before = {p.block_id: p for p in problems.rows}
    minor = verdict(ANSWERS[1], ("paragraphe", "fluency", "minor"))
    change = session.take(1, [BlockReviewed(1, first, minor)], busy=False)
    assert change.blocks == {first} and change.review
    looked: list[str] = []
    entry = problems._entry

    def watched(block, *rest):  # type: ignore[no-untyped-def]
        looked.append(block.id)
        return entry(block, *rest)

    problems._entry = watched  # type: ignore[method-assign]
    assert problems.refresh()
    assert looked == [first]  # the verdict's block alone
    assert [p.kind for p in problems.rows if p.block_id == first] == ["unapproved", "fluency"]
    assert [p for p in problems.rows if p.block_id == second] == [before[second]]
    # a delivery that finds blocks still in flight (cancelled work) forgets them: any block again
    session.take(1, [BlockReviewed(1, second, verdict(ANSWERS[2]))], busy=True)
    session.take(1, [BlockStarted(1, second)], busy=True)
    assert session.take(1, [], busy=False).blocks is None
    assert session.take(1, [BlockReviewed(1, second, verdict(ANSWERS[2]))]).blocks == {second}
