"""Find and Replace All pass over code and link targets unless asked (fastdesk.document.find
with fastdesk.document.verbatim): the issue's 115 changes in anchors and module paths."""

from __future__ import annotations

from fastdesk.document.find import Query, find_all, plan, verbatim_count

TEXT = (
    "Preprocessors run first: see [preprocessors](#preprocessors) and "
    "`markdown.preprocessors.Preprocessor`.\n\n"
    "```python\nfrom markdown import preprocessors\n```\n\n"
    "Write your own preprocessors.\n"
)


def test_prose_only_unless_asked() -> None:
    query = Query("preprocessors")
    prose = [m.start() for m in find_all(TEXT, query)]
    assert [TEXT[p - 5 : p] for p in prose] == ["", "see [", " own "]  # the link text is prose
    every = find_all(TEXT, Query("preprocessors", code=True))
    assert len(every) == 6
    assert verbatim_count(TEXT, query) == 3
    assert verbatim_count(TEXT, Query("preprocessors", code=True)) == 0


def test_the_plan_marks_changes_in_code_when_asked() -> None:
    changes = plan(TEXT, Query("preprocessors", code=True), "préprocesseurs")
    assert [c.verbatim for c in changes] == [False, False, True, True, True, False]
    assert not any(c.verbatim for c in plan(TEXT, Query("preprocessors"), "x"))
