"""The problems list (Qt-free): what needs the editor, in plain words, from the target model;
and restoring from the source what a translation must not change."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastdesk.document.blocks import parse
from fastdesk.review.model import Review
from fastdesk.review.problems import KINDS, ProblemList, block_counts, fix, step
from fastdesk.review.session import DocumentSession
from fastdesk.review.target_model import TargetModel
from fastdesk.translate.checks import CHECKS, check_block
from fastdesk.translate.events import BlockDone, BlockFailed, BlockStarted, EngineEvent, Flag
from fastdesk.translate.flag_words import PLAIN_WORDS, plain_words
from fastdesk.translate.restore import RESTORABLE, restore

TEXT = (
    "# Install\n\n"
    "Run `npm install` and read [the guide](https://example.com/guide).\n\n"
    "Hello {name}, you have %d messages.\n\n"
    "A plain paragraph.\n\n"
    "```sh\nnpm test\n```\n"
)


def model_of(text: str = TEXT) -> TargetModel:
    model = TargetModel(Review(None, "fr"))
    model.set_doc(parse(text))
    return model


def ids(model: TargetModel) -> list[str]:
    assert model.doc is not None
    return [b.id for b in model.doc.blocks]


def answer(model: TargetModel, bid: str, text: str) -> None:
    """The engine's answer for ``bid``, with the flags the real checks give it."""
    assert model.doc is not None
    source = model.doc.by_id(bid).text
    flags = check_block(source, text, target_lang="fr", mode="translate")
    model.apply([BlockDone(1, bid, text, "model", tuple(flags))])


def one_block(source: str, text: str) -> tuple[TargetModel, str, ProblemList]:
    """A one-block document answered with ``text`` (checked), and its problems worked out."""
    model = model_of(source)
    (bid,) = ids(model)
    answer(model, bid, text)
    problems = ProblemList(model)
    problems.refresh()
    return model, bid, problems


# ---- the plain-language table ---------------------------------------------------------------


def test_every_check_has_plain_words_that_are_not_its_name() -> None:
    for name in [*CHECKS, "failed", "not_translated"]:
        words = PLAIN_WORDS[name]
        assert words.name and words.why
        assert words.name != name and "_" not in words.name
    assert plain_words("links").name == "link target changed"
    assert plain_words("accents").name == "accents missing"
    assert plain_words("inline_code").name == "code span changed"
    assert plain_words("some_future_check").name == "needs a look"


# ---- the list -------------------------------------------------------------------------------


def test_each_block_shows_in_the_first_kind_that_applies() -> None:
    model = model_of()
    problems = ProblemList(model)
    head, code_para, greet, plain, fence = ids(model)
    assert problems.refresh()
    # nothing translated yet: every translatable block, not the code block
    assert [(p.block_id, p.kind, p.title) for p in problems.rows] == [
        (b, "untranslated", "not translated yet") for b in (head, code_para, greet, plain)
    ]
    assert not problems.refresh()  # nothing changed: nothing worked out again
    answer(model, head, "# Installer\n\n")
    answer(
        model,
        code_para,
        "Lancez `npm installer` et lisez [le guide](https://exemple.com/guide).\n\n",
    )
    answer(model, greet, "Bonjour {nom}, vous avez %d messages.\n\n")
    model.apply([BlockStarted(1, plain)])
    model.apply([BlockDone(1, fence, "```sh\nnpm test\n```\n", "copy")])
    assert problems.refresh()
    rows = [(p.block_id, p.kind, p.title, p.check) for p in problems.rows]
    assert rows == [
        (head, "unapproved", "not approved yet", ""),
        (code_para, "flagged", "code span changed", "inline_code"),
        (code_para, "flagged", "link target changed", "links"),
        (greet, "flagged", "placeholder changed", "placeholders"),
        (plain, "untranslated", "being translated", ""),
    ]
    link = problems.rows[2]
    assert link.reason == "https://example.com/guide → https://exemple.com/guide"  # no repeat
    assert link.restorable
    assert all("_" not in p.title for p in problems.rows)
    first = problems.rows[0]
    model.apply([BlockFailed(1, plain, "the provider timed out")])
    model.review.approve(head)
    assert problems.refresh()
    assert problems.rows[0].block_id == code_para  # approved: nothing to do
    assert problems.rows[1] is not first and problems.rows[-1].kind == "failed"
    assert problems.rows[-1].title == "translation failed"
    assert problems.rows[-1].reason == "the provider timed out"
    model.apply([BlockStarted(2, plain)])
    problems.refresh()
    assert problems.rows[-1].title == "retrying"


def test_unchanged_blocks_keep_their_rows_and_a_stale_edit_says_so() -> None:
    model = model_of("First.\n\nSecond.\n")
    problems = ProblemList(model)
    first, second = ids(model)
    answer(model, first, "Premier.\n\n")
    answer(model, second, "Deuxième.\n")
    model.review.edit(first, "Le premier.\n\n")
    problems.refresh()
    before = problems.rows
    assert [p.reason for p in before] == [
        "your edit, not approved",
        "machine translation, not checked",
    ]
    model.review.approve(second)
    problems.refresh()
    assert problems.rows == before[:1] and problems.rows[0] is before[0]
    model.set_doc(parse("First, changed.\n\nSecond.\n"))  # the source changed under the edit
    problems.refresh()
    assert [(p.kind, p.title) for p in problems.rows] == [
        ("stale", "source changed since your edit")
    ]


def test_next_and_previous_problem_wrap_around() -> None:
    model = model_of()
    problems = ProblemList(model)
    problems.refresh()
    rows = problems.rows
    assert [p.block_index for p in rows] == [0, 1, 2, 3]
    assert step(rows, -1) == 0
    assert step(rows, 1) == 2
    assert step(rows, 3) == 0  # wraps
    assert step(rows, 2, back=True) == 1
    assert step(rows, 0, back=True) == 3
    assert step(rows, 1, current=1) == 2 and step(rows, 1, current=1, back=True) == 0
    assert step((), 0) is None


# ---- restoring from the source --------------------------------------------------------------


SOURCE = (
    "Run `npm install`, then see [the guide](https://example.com/guide) or https://x.org/a. "
    'Hi {name}, %s left. ![logo](img/logo.png "Logo") <https://a.example/b>\n\n'
)
ANSWER = (
    "Lancez `npm installer`, puis voyez [le guide](https://exemple.com/guide) ou https://x.org/b. "
    'Salut {nom}, %s restant. ![logo](img/logo-fr.png "Logo") <https://a.example/c>\n\n'
)


@pytest.mark.parametrize(
    ("check", "fixed"),
    [
        ("inline_code", ANSWER.replace("npm installer", "npm install")),
        (
            "links",
            ANSWER.replace("exemple.com", "example.com")
            .replace("x.org/b", "x.org/a")
            .replace("logo-fr", "logo")
            .replace("a.example/c", "a.example/b"),
        ),
        ("placeholders", ANSWER.replace("{nom}", "{name}")),
    ],
)
def test_restore_puts_back_only_that_checks_items(check: str, fixed: str) -> None:
    assert check in RESTORABLE
    flags = {f.check for f in check_block(SOURCE, ANSWER, target_lang="fr", mode="translate")}
    assert check in flags
    restored = restore(SOURCE, ANSWER, check)
    assert restored == fixed
    after = {f.check for f in check_block(SOURCE, fixed, target_lang="fr", mode="translate")}
    assert check not in after and after == flags - {check}  # the rest is left as it was


def test_restore_wraps_a_code_span_that_lost_its_backticks() -> None:
    assert restore("Run `make` now.", "Lancez make maintenant.", "inline_code") == (
        "Lancez `make` maintenant."
    )


@pytest.mark.parametrize(
    ("source", "target", "check"),
    [
        ("Run `a` and `b`.", "Lancez `c`.", "inline_code"),  # one of two gone: where?
        ("Run `make`.", "Lancez la compilation.", "inline_code"),  # its text is gone too
        ("See [a](x) and [b](y).", "Voir [a](z).", "links"),
        ("Same `code`.", "Pareil `code`.", "inline_code"),  # nothing to restore
        ("Hi {name}.", "Salut.", "placeholders"),
        ("A ```x``` b", "A b", "structure"),  # not a check restore answers
    ],
)
def test_restore_declines_what_it_cannot_do_with_certainty(
    source: str, target: str, check: str
) -> None:
    assert restore(source, target, check) is None


def test_fix_edits_the_blocks_shown_text() -> None:
    model, bid, problems = one_block(
        "Read [the guide](https://example.com/guide).\n",
        "Lisez [le guide](https://exemple.com/guide).\n",
    )
    (row,) = problems.rows
    assert row.restorable and row.title == "link target changed"
    assert fix(model, row) == "Lisez [le guide](https://example.com/guide).\n"
    model.review.edit(bid, "Lisez [le guide](https://exemple.com/guide) !\n")
    assert fix(model, row) == "Lisez [le guide](https://example.com/guide) !\n"


def test_a_flag_of_a_failed_request_has_its_words() -> None:
    model = model_of("One.\n")
    (bid,) = ids(model)
    model.apply([BlockDone(1, bid, "Un.\n", "model", (Flag("accents", "no French letters"),))])
    problems = ProblemList(model)
    problems.refresh()
    (row,) = problems.rows
    assert (row.title, row.reason, row.restorable) == (
        "accents missing",
        "no French letters",
        False,
    )


def test_the_stream_says_which_blocks_the_engine_changed() -> None:
    session = DocumentSession(Review(None, "fr"))
    assert session.take(1, [], doc=parse(TEXT), busy=True).blocks is None  # a new document
    model = session.model
    first, second = ids(model)[:2]
    assert session.take(1, [], busy=True).blocks == set()
    events: list[EngineEvent] = [BlockStarted(1, first), BlockDone(1, second, "Deux.\n\n", "model")]
    assert session.take(1, events, busy=True).blocks == {first, second}
    session.review.approve(second)  # the reviewer's action, told of by no change: look at all
    assert session.take(1, [BlockDone(1, first, "Un.\n\n", "model")], busy=True).blocks is None
    assert session.take(1, [], busy=False).blocks is None  # settled: in flight forgotten
    assert session.take(2, [], doc=parse(TEXT + "\nMore.\n"), busy=True).blocks is None


def test_the_list_looks_at_the_blocks_the_changes_name() -> None:
    session = DocumentSession(Review(None, "fr"))
    session.take(1, [], doc=parse(TEXT), busy=True)
    model = session.model
    problems = ProblemList(model)
    session.subscribe(problems.take)
    first, second = ids(model)[:2]
    assert problems.refresh()  # the first time: every block
    assert not problems.refresh()  # nothing taken since: nothing to do
    before = problems.rows
    session.take(1, [BlockStarted(1, first), BlockDone(1, second, "Deux.\n\n", "model")], busy=True)
    assert problems.refresh()
    assert [p.title for p in problems.rows[:2]] == ["being translated", "not approved yet"]
    assert problems.rows[2:] == before[2:] and all(
        a is b for a, b in zip(problems.rows[2:], before[2:], strict=True)
    )
    model.review.approve(second)  # the reviewer's action, told of by no change: look at all
    assert problems.refresh()
    assert second not in {p.block_id for p in problems.rows}
    model.review.revert(second)
    session.take(1, [BlockDone(1, first, "Un.\n\n", "model")], busy=True)  # names first only
    assert problems.refresh()
    assert {p.block_id for p in problems.rows[:2]} == {first, second}  # second looked at too


def test_rows_follow_engine_events_block_by_block() -> None:
    model = model_of()
    problems = ProblemList(model)
    problems.refresh()
    before = problems.rows
    head = ids(model)[0]
    model.apply([BlockStarted(1, head)])
    assert problems.refresh()
    assert problems.rows[0].title == "being translated"
    assert problems.rows[1:] == before[1:] and all(
        a is b for a, b in zip(problems.rows[1:], before[1:], strict=True)
    )


def test_an_edited_block_is_checked_again_on_the_editors_text() -> None:
    model, bid, problems = one_block(
        "Run `make` and read [the guide](https://example.com/guide).\n",
        "Lancez `faire` et lisez [le guide](https://exemple.com/guide).\n",
    )
    assert [p.check for p in problems.rows] == ["inline_code", "links"]
    link = problems.rows[1]
    fixed = fix(model, link)
    assert fixed is not None
    model.review.edit(bid, fixed)  # what Restore from source types in, as the editor
    problems.refresh()
    assert model.review.state_of(bid) == "edited"
    (code,) = problems.rows  # the code span is still wrong: still listed, still restorable
    assert (code.kind, code.title, code.restorable) == ("flagged", "code span changed", True)
    model.review.edit(bid, fix(model, code) or "")
    problems.refresh()
    assert [(p.kind, p.reason) for p in problems.rows] == [
        ("unapproved", "your edit, not approved")
    ]
    assert model.review.shown_text(bid) == (
        "Lancez `make` et lisez [le guide](https://example.com/guide).\n"
    )


def test_restore_puts_back_reference_labels_and_footnote_marks() -> None:
    source = "See [the guide][guide], [path.win32][] and a note[^1].\n"
    target = "Voir [le guide][guide-fr], [chemin.win32][] et une note[^2].\n"
    assert "links" in {
        f.check for f in check_block(source, target, target_lang="fr", mode="translate")
    }
    assert restore(source, target, "links") == (
        "Voir [le guide][guide], [path.win32][] et une note[^1].\n"  # the link texts stay
    )
    # a label inside a code span is code: not a link the check compares
    assert restore("Type `[a][b]` or [c][d].", "Tapez `[a][b]` ou [c][e].", "links") == (
        "Tapez `[a][b]` ou [c][d]."
    )


_WORD = st.sampled_from(["the", "quick", "fox", "jumps", "über", "naïve", "42", "-", "(x)"])
_NAME = st.from_regex(r"[a-z][a-z0-9_]{0,7}[a-z0-9]", fullmatch=True)  # (a URL ends before _)
_ITEMS = {  # how an item is written, by the check it belongs to
    ("inline_code", "span"): lambda n: f"`{n}`",
    ("inline_code", "double"): lambda n: f"`` {n}` ``",
    ("links", "inline"): lambda n: f"[see it](https://example.com/{n})",
    ("links", "image"): lambda n: f'![logo](img/{n}.png "Logo")',
    ("links", "bare"): lambda n: f"https://x.org/{n}",
    ("links", "autolink"): lambda n: f"<https://x.org/{n}>",
    ("links", "reference"): lambda n: f"[the text][{n}]",
    ("placeholders", "braces"): lambda n: f"{{{n}}}",
    ("placeholders", "jinja"): lambda n: f"{{{{ {n} }}}}",
}


@settings(max_examples=60, deadline=None)
@given(
    kind=st.sampled_from(sorted(_ITEMS)),
    words=st.lists(_WORD, min_size=1, max_size=12),
    names=st.lists(_NAME, min_size=1, max_size=4, unique=True),
    which=st.integers(min_value=0, max_value=3),
    new=_NAME,
)
def test_one_changed_item_comes_back_exactly(
    kind: tuple[str, str], words: list[str], names: list[str], which: int, new: str
) -> None:
    """A prose of words with items between them; the answer changes one item: restore gives the
    source back exactly (the prose here is the source's, so nothing else differs)."""
    check, make = kind[0], _ITEMS[kind]
    parts = []
    for n, name in enumerate(names):
        parts += [*words[n % len(words) :][:3], make(name)]
    source = " ".join(parts) + ".\n"
    old = names[which % len(names)]
    if new in names:
        return
    target = source.replace(make(old), make(new), 1)
    assert restore(source, target, check) == source


def test_counts_are_of_blocks_and_a_rejected_answer_is_not_translated() -> None:
    model = model_of()
    install, run, hello, plain, _code = ids(model)
    # two failed checks in one block: two rows, one flagged block
    answer(model, run, "Lancez `npm ci` et lisez [le guide](https://example.com/autre).")
    answer(model, install, "# Installer")
    model.apply(
        [BlockDone(1, plain, "A plain paragraph.\n\n", "model", (Flag("not_translated", ""),))]
    )
    problems = ProblemList(model)
    problems.refresh()
    kinds = [(p.block_id, p.kind) for p in problems.rows]
    assert kinds.count((run, "flagged")) == 2
    assert (plain, "untranslated") in kinds  # it shows the source: it is not translated
    assert (plain, "flagged") not in kinds
    counts = block_counts(problems.rows)
    assert counts["flagged"] == 1
    assert counts["untranslated"] == 2  # hello (not answered yet) and the rejected answer
    assert counts["unapproved"] == 1  # install
    assert counts[""] == 4 == len({p.block_id for p in problems.rows})
    assert hello in {p.block_id for p in problems.rows}
    assert block_counts(()) == {**dict.fromkeys(KINDS, 0), "": 0}
