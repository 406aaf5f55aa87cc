"""Where a Markdown text is not prose (fastdesk.document.verbatim): what Replace All passes over
and the glossary check leaves aside."""

from __future__ import annotations

from fastdesk.document.verbatim import mask, verbatim_spans

TEXT = (
    "The `markdown.preprocessors.Preprocessor` class runs first. See "
    "[preprocessors](#preprocessors) and the [extension API][extension-api].\n\n"
    "```python\nclass MyPreprocessor(Preprocessor):\n    pass\n```\n\n"
    "Call markdown.extensions.toc or read https://example.com/preprocessors.\n\n"
    "[extension-api]: https://example.com/extension/\n"
)


def covered(text: str, word: str) -> list[bool]:
    """For each occurrence of ``word``: whether a verbatim span covers it."""
    spans = verbatim_spans(text)
    out, at = [], text.find(word)
    while at >= 0:
        out.append(any(a <= at and at + len(word) <= b for a, b in spans))
        at = text.find(word, at + 1)
    return out


def test_code_link_targets_labels_definitions_urls_and_identifiers_are_verbatim() -> None:
    # prose: "See [preprocessors]" (the link text); verbatim: the code span, the anchor, the URL
    assert covered(TEXT, "preprocessors") == [True, False, True, True]
    assert covered(TEXT, "Preprocessor") == [True, True, True]  # the code span, the fenced block
    # the link text is prose, its reference label and its definition are not
    assert covered(TEXT, "extension") == [False, True, True, True, True]
    assert covered(TEXT, "Call") == [False]


def test_mask_keeps_positions_and_line_ends() -> None:
    masked = mask(TEXT)
    assert len(masked) == len(TEXT)
    assert [i for i, c in enumerate(TEXT) if c == "\n"] == [
        i for i, c in enumerate(masked) if c == "\n"
    ]
    assert "Preprocessor" not in masked and "runs first" in masked


def test_prose_that_looks_close_is_left_alone() -> None:
    text = "Use it, e.g. twice. A list:\n\n- item\n\n    continued item text\n\nEnd."
    assert covered(text, "e.g") == [False]
    assert covered(text, "continued") == [False]  # a list item's continuation, not code
    assert verbatim_spans("plain words only") == []


def test_an_unclosed_fence_runs_to_the_end() -> None:
    text = "Intro\n\n~~~\ncode here\n"
    assert covered(text, "code") == [True] and covered(text, "Intro") == [False]
