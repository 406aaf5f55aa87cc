"""fastdesk.document.blocks: every input cuts into contiguous blocks that join back byte for
byte."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from fastdesk.document import blocks
from fastdesk.document.blocks import KINDS, Block, Document, join, parse, reparse

SPEC = json.loads((Path(__file__).parent / "data" / "commonmark" / "spec.json").read_text("utf-8"))
LINE_BREAK = re.compile(r"\r\n?|\n")


def check(source: str) -> Document:
    """Parse and assert every structural promise of the module; return the document."""
    doc = parse(source)
    assert join(b.text for b in doc.blocks) == source
    assert doc.source == source
    position = 0
    for i, block in enumerate(doc.blocks):
        assert block.start == position, f"gap or overlap before block {i}"
        assert block.end > block.start, f"empty block {i}"
        assert block.text == source[block.start : block.end]
        assert block.kind in KINDS
        assert block.line == len(LINE_BREAK.findall(source[: block.start])) + 1
        # Blocks begin at a line start, and only a leading block may begin with a blank line.
        assert block.start == 0 or source[block.start - 1] in "\r\n"
        assert not (block.start > 0 and source[block.start - 1] == "\r" and block.text[0] == "\n")
        if i > 0:
            first_line = LINE_BREAK.split(block.text, maxsplit=1)[0]
            assert first_line.strip(" \t"), f"block {i} starts with a blank line"
        assert (block.kind == "heading") == (block.heading_level > 0)
        assert (block.kind == "list_item") == bool(block.list_marker)
        lead, core, trail = block.split()
        assert lead + core + trail == block.text
        position = block.end
    assert position == len(source)
    assert all(b.kind != "blank" for b in doc.blocks[1:])
    assert all(b.kind != "front_matter" for b in doc.blocks[1:])
    assert len({b.id for b in doc.blocks}) == len(doc.blocks)
    return doc


def shape(doc: Document) -> list[tuple[str, int, int, str]]:
    return [(b.kind, b.line, b.heading_level, b.list_marker) for b in doc.blocks]


# --- the CommonMark spec, every example -------------------------------------------------------

VARIANTS = {
    "lf": lambda s: s,
    "crlf": lambda s: s.replace("\n", "\r\n"),
    "cr": lambda s: s.replace("\n", "\r"),
    "no-final-newline": lambda s: s.removesuffix("\n"),
}


def test_spec_examples_are_vendored() -> None:
    assert len(SPEC) == 652
    assert {"markdown", "example", "section"} <= set(SPEC[0])


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("example", SPEC, ids=lambda e: f"ex{e['example']}")
def test_spec_example_round_trips(example: dict, variant: str) -> None:
    source = VARIANTS[variant](example["markdown"])
    doc = check(source)
    if variant in ("crlf", "cr"):
        # Same lines, other line endings: the same cut, the same kinds, at the same lines.
        plain = parse(example["markdown"])
        assert shape(doc) == shape(plain)
        ending = "\r\n" if variant == "crlf" else "\r"
        assert [b.text.replace(ending, "\n") for b in doc.blocks] == [b.text for b in plain.blocks]


# --- constructs ---------------------------------------------------------------------------------


def kinds(source: str) -> list[str]:
    return [b.kind for b in check(source).blocks]


def test_empty_and_blank_documents() -> None:
    assert check("").blocks == ()
    for blank in ("\n", "\n\n\n", "   \n\t\n", "\r\n\r\n", "\r\r", "  "):
        doc = check(blank)
        assert [(b.kind, b.translatable) for b in doc.blocks] == [("blank", False)]


def test_leading_blank_lines_form_a_blank_block_and_later_ones_trail() -> None:
    doc = check("\n\n# Title\n\n\nText\n\n")
    assert [b.text for b in doc.blocks] == ["\n\n", "# Title\n\n\n", "Text\n\n"]
    assert [b.line for b in doc.blocks] == [1, 3, 6]
    assert doc.blocks[1].split() == ("", "# Title", "\n\n\n")


def test_yaml_front_matter() -> None:
    source = "---\ntitle: Hello\ntags: [a, b]\n---\n\n# Hello\n"
    doc = check(source)
    assert [(b.kind, b.translatable) for b in doc.blocks] == [
        ("front_matter", False),
        ("heading", True),
    ]
    assert doc.blocks[0].text == "---\ntitle: Hello\ntags: [a, b]\n---\n\n"


def test_toml_front_matter_crlf() -> None:
    source = '+++\r\ntitle = "Hello"\r\n+++\r\n\r\nBody text.\r\n'
    doc = check(source)
    assert [(b.kind, b.line) for b in doc.blocks] == [("front_matter", 1), ("paragraph", 5)]
    assert doc.blocks[0].text == '+++\r\ntitle = "Hello"\r\n+++\r\n\r\n'
    assert doc.blocks[1].text == "Body text.\r\n"


def test_front_matter_only_at_the_top_and_unclosed_is_not_front_matter() -> None:
    assert kinds("Intro\n\n+++\na = 1\n+++\n") == ["paragraph", "paragraph"]
    assert "front_matter" not in kinds("+++\na = 1\n\nno closing line\n")
    assert "front_matter" not in kinds("---\na: 1\n\nno closing line\n")


def test_bom_stays_in_the_first_block_and_does_not_hide_structure() -> None:
    doc = check("\ufeff---\na: 1\n---\n# T\n")
    assert [b.kind for b in doc.blocks] == ["front_matter", "heading"]
    assert doc.blocks[0].text.startswith("\ufeff")
    assert check("\ufeff# Title\n").blocks[0].split() == ("\ufeff", "# Title", "\n")


def test_crlf_offsets_index_the_original_string() -> None:
    source = "# Título\r\n\r\nPárrafo uno\r\ncontinúa.\r\n\r\n- a\r\n- b\r\n"
    doc = check(source)
    assert [(b.kind, b.line) for b in doc.blocks] == [
        ("heading", 1),
        ("paragraph", 3),
        ("list_item", 6),
        ("list_item", 7),
    ]
    para = doc.blocks[1]
    assert source[para.start : para.end] == "Párrafo uno\r\ncontinúa.\r\n\r\n"
    assert para.start == source.index("Párrafo")


def test_lone_cr_and_mixed_line_endings() -> None:
    source = "# A\r\rpara\rline\n\r\n- x\r- y"
    doc = check(source)
    assert shape(doc) == [
        ("heading", 1, 1, ""),
        ("paragraph", 3, 0, ""),
        ("list_item", 6, 0, "-"),
        ("list_item", 7, 0, "-"),
    ]


def test_tabs() -> None:
    doc = check("# T\n\n\tcode line\n\n-\tone\n\n\tstill one\n\n>\tquote\n")
    assert [b.kind for b in doc.blocks] == ["heading", "code", "list_item", "blockquote"]
    assert doc.blocks[2].text == "-\tone\n\n\tstill one\n\n"
    # A tab-indented line after a paragraph is a lazy continuation, not code.
    assert kinds("text\n\tmore\n") == ["paragraph"]


def test_no_final_newline() -> None:
    doc = check("# T\n\nlast paragraph")
    assert doc.blocks[-1].text == "last paragraph"
    assert doc.blocks[-1].end == len(doc.source)


def test_emoji_and_right_to_left_text() -> None:
    source = "# مرحبا بالعالم 👋🏽\n\nשלום עולם — ‏text‏ 👨‍👩‍👧‍👦\n\n- 🇫🇷 drapeau\n- عربي\n"
    doc = check(source)
    assert [b.kind for b in doc.blocks] == ["heading", "paragraph", "list_item", "list_item"]
    assert doc.blocks[2].text == "- 🇫🇷 drapeau\n"
    assert all(source[b.start : b.end] == b.text for b in doc.blocks)


@pytest.mark.parametrize(
    "source",
    [
        "\0",
        "a\0b\n\n\0# x\n",
        "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029\n\npara\x0cwith form feed\n",
        "\ud800 lone surrogate\n\n# \udfff\n",
        "\x1b[31mred\x1b[0m\n",
        "\u200f\u202e reversed \u202c\n",
        "\r",
        "\n\r",
        "\r\n",
        " ",
        "\t\t",
        "#",
        "-",
        "1.",
        "```",
        "```\n",
        "    ",
        ">",
        "|",
        "[a]:",
        "[a]: b",
        "<!--",
        "---",
        "+++",
    ],
)
def test_odd_inputs_round_trip(source: str) -> None:
    check(source)


def test_form_feed_and_unicode_separators_are_not_line_breaks() -> None:
    doc = check("one\x0ctwo\u2028three\x85four\n")
    assert len(doc.blocks) == 1
    assert doc.blocks[0].line == 1


def test_nested_lists_split_only_at_top_level_items() -> None:
    source = (
        "- one\n"
        "  - one.a\n"
        "  - one.b\n"
        "    1. deep\n"
        "- two\n"
        "\n"
        "  second paragraph of two\n"
        "\n"
        "3) three\n"
        "4) four\n"
    )
    doc = check(source)
    assert [(b.kind, b.list_marker, b.line) for b in doc.blocks] == [
        ("list_item", "-", 1),
        ("list_item", "-", 5),
        ("list_item", "3)", 9),
        ("list_item", "4)", 10),
    ]
    assert doc.blocks[0].text == "- one\n  - one.a\n  - one.b\n    1. deep\n"
    assert doc.blocks[1].text == "- two\n\n  second paragraph of two\n\n"


def test_list_markers() -> None:
    doc = check("* a\n* b\n\n+ c\n\n10. d\n11. e\n")
    assert [b.list_marker for b in doc.blocks] == ["*", "*", "+", "10.", "11."]


def test_list_inside_blockquote_stays_whole() -> None:
    assert kinds("> - a\n> - b\n\nafter\n") == ["blockquote", "paragraph"]


def test_tables() -> None:
    source = "| a | b |\n|:--|--:|\n| 1 | 2 |\n| 3 | 4 |\n\nAfter.\n"
    doc = check(source)
    assert [(b.kind, b.translatable) for b in doc.blocks] == [
        ("table", True),
        ("paragraph", True),
    ]
    assert doc.blocks[0].text == "| a | b |\n|:--|--:|\n| 1 | 2 |\n| 3 | 4 |\n\n"


def test_html_blocks() -> None:
    source = (
        "<!-- a comment -->\n\n"
        "<!-- one -->\n<!-- two\nlines -->\n\n"
        "<div>\nHello <b>world</b>\n</div>\n\n"
        "<!-- note --> visible text\n\n"
        '<script>\nconst greeting = "hello";\n</script>\n\n'
        "<style>p { color: red }</style>\n"
    )
    doc = check(source)
    assert [(b.kind, b.translatable) for b in doc.blocks] == [
        ("html", False),
        ("html", False),  # a comment block ends on the line holding "-->"
        ("html", False),
        ("html", True),
        ("html", True),
        ("html", False),
        ("html", False),
    ]


def test_reference_definitions_are_their_own_blocks() -> None:
    source = (
        "See [the docs][docs] and [home].\n\n"
        "[docs]: https://example.com/docs 'The docs'\n"
        '[home]:\n  https://example.com\n  "Home"\n'
        "Paragraph right after the definitions.\n\n"
        "[later]: /x\n"
    )
    doc = check(source)
    assert [(b.kind, b.translatable) for b in doc.blocks] == [
        ("paragraph", True),
        ("reference", False),
        ("reference", False),
        ("paragraph", True),
        ("reference", False),
    ]
    assert doc.blocks[1].text == "[docs]: https://example.com/docs 'The docs'\n"
    assert doc.blocks[2].text == '[home]:\n  https://example.com\n  "Home"\n'
    assert doc.blocks[4].text == "[later]: /x\n"


def test_not_a_reference_definition_stays_a_paragraph() -> None:
    assert kinds("[foo]: /url 'title' trailing garbage\n") == ["paragraph"]
    assert kinds("[]: /url\n") == ["paragraph"]
    assert kinds("[foo]\n: /url\n") == ["paragraph"]


def test_code_fence_with_heading_like_lines() -> None:
    source = (
        "# Real heading\n\n"
        "```markdown\n# not a heading\n\n---\n- not a list\n[x]: /not-a-ref\n```\n\n"
        "~~~~\n```\n## still code\n~~~~\n\n"
        "    # indented code\n\n"
        "## Next\n"
    )
    doc = check(source)
    assert [(b.kind, b.translatable, b.heading_level) for b in doc.blocks] == [
        ("heading", True, 1),
        ("code", False, 0),
        ("code", False, 0),
        ("code", False, 0),
        ("heading", True, 2),
    ]


def test_unclosed_fence_runs_to_the_end() -> None:
    doc = check("Intro\n\n```\n# not a heading\n\nstill code")
    assert [b.kind for b in doc.blocks] == ["paragraph", "code"]


def test_headings_and_rules() -> None:
    doc = check("Title\n=====\n\nSub\n---\n\n### Three ###\n\n***\n\n###### Six\n")
    assert [(b.kind, b.heading_level) for b in doc.blocks] == [
        ("heading", 1),
        ("heading", 2),
        ("heading", 3),
        ("hr", 0),
        ("heading", 6),
    ]
    assert not doc.blocks[3].translatable


def test_deep_nesting_round_trips() -> None:
    check("> " * 200 + "deep\n" + "- " * 200 + "deeper\n")
    check("".join("  " * i + "- item\n" for i in range(120)))


# --- classification of a realistic document -----------------------------------------------------

REALISTIC = """\
---
title: Getting started
lang: en
---

# Getting started

Welcome to **fastdesk**. It translates [Markdown][md] as you type.

<!-- TODO: screenshots -->

## Install

1. Download the package.
2. Run `fastdesk`:

   ```sh
   fastdesk notes.md
   ```

- Linux
- macOS
  - Apple silicon

> **Note**
> Keys live in the keyring.

| Provider | Speed |
|----------|------:|
| Groq     |  fast |

```python
# Configure
print("hi")
```

    indented code

<div align="center">Made with care</div>

***

[md]: https://commonmark.org "CommonMark"
"""


def test_realistic_document_kinds_and_translatability() -> None:
    doc = check(REALISTIC)
    assert [(b.kind, b.translatable, b.heading_level, b.list_marker) for b in doc.blocks] == [
        ("front_matter", False, 0, ""),
        ("heading", True, 1, ""),
        ("paragraph", True, 0, ""),
        ("html", False, 0, ""),
        ("heading", True, 2, ""),
        ("list_item", True, 0, "1."),
        ("list_item", True, 0, "2."),
        ("list_item", True, 0, "-"),
        ("list_item", True, 0, "-"),
        ("blockquote", True, 0, ""),
        ("table", True, 0, ""),
        ("code", False, 0, ""),
        ("code", False, 0, ""),
        ("html", True, 0, ""),
        ("hr", False, 0, ""),
        ("reference", False, 0, ""),
    ]
    assert doc.blocks[6].text == "2. Run `fastdesk`:\n\n   ```sh\n   fastdesk notes.md\n   ```\n\n"
    assert doc.blocks[8].text == "- macOS\n  - Apple silicon\n\n"


# --- stable ids ---------------------------------------------------------------------------------


def long_document(n: int = 100) -> str:
    parts = []
    for i in range(n):
        if i % 10 == 0:
            parts.append(f"## Section {i}\n\n")
        elif i % 7 == 0:
            parts.append(f"- item {i}\n\n")
        else:
            parts.append(f"Paragraph number {i}, with some words.\n\n")
    return "".join(parts)


def ids(doc: Document) -> list[str]:
    return [b.id for b in doc.blocks]


def test_ids_are_deterministic_and_depend_on_kind_and_text() -> None:
    assert ids(parse("# A\n\nB\n")) == ids(parse("# A\n\nB\n"))
    assert parse("x\n").blocks[0].id != parse("y\n").blocks[0].id
    assert parse("    x\n").blocks[0].id != parse("x\n").blocks[0].id


def test_editing_one_paragraph_changes_exactly_one_id() -> None:
    before = parse(long_document())
    assert len(before.blocks) == 100
    target = before.blocks[55]
    assert target.kind == "paragraph"
    edited = join(
        b.text.replace("some words", "other words") if b is target else b.text
        for b in before.blocks
    )
    after = check(edited)
    changed = [i for i, (a, b) in enumerate(zip(ids(before), ids(after), strict=True)) if a != b]
    assert changed == [55]


def test_inserting_a_paragraph_changes_no_other_id() -> None:
    before = parse(long_document())
    texts = [b.text for b in before.blocks]
    texts.insert(40, "A brand new paragraph.\n\n")
    after = check(join(texts))
    assert len(after.blocks) == 101
    assert ids(after)[:40] + ids(after)[41:] == ids(before)
    assert after.blocks[40].text == "A brand new paragraph.\n\n"


def test_deleting_a_block_changes_no_other_id() -> None:
    before = parse(long_document())
    texts = [b.text for b in before.blocks]
    del texts[30]
    after = check(join(texts))
    assert ids(after) == ids(before)[:30] + ids(before)[31:]


def test_duplicate_texts_are_numbered_by_occurrence() -> None:
    doc = check("Same.\n\nOther.\n\nSame.\n\nSame.\n\n")
    first, other, second, third = doc.blocks
    assert second.id == f"{first.id}-2" and third.id == f"{first.id}-3"
    assert other.id != first.id
    # Documented exception: inserting another copy before them renumbers the later copies.
    again = check("Same.\n\n" + doc.source)
    assert ids(again) == [first.id, f"{first.id}-2", other.id, f"{first.id}-3", f"{first.id}-4"]


# --- Document helpers, join, split --------------------------------------------------------------


def test_block_at_offset() -> None:
    doc = check("# A\r\n\r\nB b\r\n\r\n- c\r\n")
    for i, block in enumerate(doc.blocks):
        for offset in range(block.start, block.end):
            assert doc.block_at_offset(offset) == i
    assert doc.block_at_offset(len(doc.source)) == len(doc.blocks) - 1
    for bad in (-1, len(doc.source) + 1):
        with pytest.raises(IndexError):
            doc.block_at_offset(bad)
    with pytest.raises(IndexError):
        parse("").block_at_offset(0)


def test_block_at_line() -> None:
    doc = check("\n# A\n\nB\nb\n\n- c\n")
    assert [doc.block_at_line(n) for n in range(1, 9)] == [0, 1, 1, 2, 2, 2, 3, 3]
    for bad in (0, 9):
        with pytest.raises(IndexError):
            doc.block_at_line(bad)
    assert check("x").block_at_line(1) == 0
    with pytest.raises(IndexError):
        check("x").block_at_line(2)


def test_by_id_and_index_of() -> None:
    doc = check(REALISTIC)
    for i, block in enumerate(doc.blocks):
        assert doc.by_id(block.id) is block
        assert doc.index_of(block.id) == i
    with pytest.raises(KeyError):
        doc.by_id("nope")


def test_join_reassembles_from_any_iterable() -> None:
    doc = parse(REALISTIC)
    assert join(b.text for b in doc.blocks) == REALISTIC
    assert join([]) == ""


def test_split_keeps_whitespace_out_of_the_core() -> None:
    block = Block("id", "paragraph", 0, 0, 1, "  Hello\r\nworld  \r\n \t\r\n", True)
    assert block.split() == ("  ", "Hello\r\nworld", "  \r\n \t\r\n")
    blank = Block("id", "blank", 0, 0, 1, "\n \n", False)
    assert blank.split() == ("\n \n", "", "")


def test_replacing_cores_rebuilds_the_document() -> None:
    doc = parse(REALISTIC.replace("\n", "\r\n"))
    parts = []
    for block in doc.blocks:
        lead, core, trail = block.split()
        parts.append(lead + (core.upper() if block.translatable else core) + trail)
    out = join(parts)
    assert out.replace("\r\n", "\n").count("\n") == REALISTIC.count("\n")
    assert "# GETTING STARTED\r\n" in out and "# Configure\r\n" in out


# --- fuzz ---------------------------------------------------------------------------------------

FRAGMENTS = [
    "",
    " ",
    "\t",
    "# Heading",
    "## Heading ##",
    "Title",
    "=====",
    "---",
    "***",
    "+++",
    "...",
    "- item",
    "* item",
    "+ item",
    "1. item",
    "2) item",
    "  - nested",
    "    code",
    "\tcode",
    "> quote",
    ">",
    "```",
    "```python",
    "~~~",
    "| a | b |",
    "|---|---|",
    "<div>",
    "</div>",
    "<!-- c -->",
    "<!--",
    "-->",
    "<script>",
    "</script>",
    "[ref]: /url",
    "[ref]:",
    '  "title"',
    "[x]",
    "Plain text with *emphasis* and `code`.",
    "مرحبا 👋🏽",
    "a\0b",
    "\x0c",
    "\u2028",
    "\ufeff",
]
ENDINGS = ["\n", "\n", "\n", "\r\n", "\r"]


def random_markdown(rng: random.Random) -> str:
    lines = [rng.choice(FRAGMENTS) for _ in range(rng.randint(0, 25))]
    out = "".join(line + rng.choice(ENDINGS) for line in lines)
    return out[: rng.randint(0, len(out))] if rng.random() < 0.3 else out


def test_seeded_random_markdown_round_trips() -> None:
    rng = random.Random(20261129)
    for _ in range(1500):
        check(random_markdown(rng))


def test_seeded_random_characters_round_trip() -> None:
    rng = random.Random(7)
    alphabet = "#->*+=|`~[]():!<>/ \t\r\n\r\n\n\n1.)abcé👋\u05d0\0\x0b\x0c\u2028\ufeff\\\"'"
    for _ in range(1500):
        check("".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60))))


# ---- reparse: an edit parses only the blocks around it, with the same result ----------------


def edited(rng: random.Random, source: str) -> str:
    """``source`` with a random stretch replaced by random Markdown lines (or by nothing)."""
    at = rng.randint(0, len(source))
    cut = min(len(source), at + rng.choice((0, 0, 1, 2, 5, 20)))
    pieces = [rng.choice(FRAGMENTS) + rng.choice(ENDINGS) for _ in range(rng.choice((0, 1, 1, 2)))]
    insert = "".join(pieces)
    if rng.random() < 0.3:
        insert = insert[: rng.randint(0, len(insert))] or rng.choice("x\n `#-")
    return source[:at] + insert + source[cut:]


def test_seeded_random_edits_reparse_as_a_whole_parse() -> None:
    rng = random.Random(20261201)
    for _ in range(3000):
        old = random_markdown(rng)
        if rng.random() < 0.3:  # front matter opened at the top, closed below or not at all
            old = rng.choice(("---\n", "+++\n", "\ufeff---\n")) + old
        new = edited(rng, old)
        assert reparse(parse(old), new) == parse(new), (old, new)


def test_an_edit_in_front_matter_that_moves_its_end_past_the_edited_blocks() -> None:
    """Found by hypothesis: joining the first lines left an unclosed "---" in the window, which
    a whole parse closes further down."""
    old = "---\n# Heading\n---\n# Heading\n---\n"
    new = old[:5] + old[14:]
    assert parse(new).blocks[0].kind == "front_matter"
    assert reparse(parse(old), new) == parse(new)


def test_edits_of_the_commonmark_examples_reparse_as_a_whole_parse() -> None:
    rng = random.Random(5)
    for example in SPEC:
        old = example["markdown"] * 3
        for _ in range(3):
            new = edited(rng, old)
            assert reparse(parse(old), new) == parse(new), (old, new)


def test_an_edit_mid_document_parses_only_the_blocks_around_it(monkeypatch) -> None:
    old = "".join(f"## Part {i}\n\nParagraph {i}, with [a link](/p{i}).\n\n" for i in range(200))
    new = old.replace("Paragraph 100,", "Paragraph 100 edited,")
    parsed: list[int] = []
    segments = blocks._segments

    def spy(text: str, line_count: int) -> list:
        parsed.append(len(text))
        return segments(text, line_count)

    previous = parse(old)
    monkeypatch.setattr(blocks, "_segments", spy)
    doc = reparse(previous, new)
    assert doc == parse(new)
    assert parsed[0] < 200  # the window: three blocks, not the 400-block document
    changed = [b.id for b in doc.blocks if b.id not in {p.id for p in previous.blocks}]
    assert len(changed) == 1  # only the edited paragraph has a new id


@pytest.mark.parametrize(
    "edit",
    [
        lambda s: s.replace("Paragraph 3.", "```\nParagraph 3."),  # a fence left open
        lambda s: s.replace("Paragraph 3.", "<div>\nParagraph 3."),  # an html block
        lambda s: s.replace("\n\nParagraph 4.", "\nParagraph 4."),  # paragraphs merge
        lambda s: s.replace("Paragraph 4.", "==="),  # a setext heading above it
        lambda s: s.replace("Paragraph 6.", "Paragraph 1."),  # a duplicate: later ids renumber
        lambda s: "---\ntitle: x\n---\n" + s,  # front matter at the top
        lambda s: "---\n" + s.replace("Paragraph 7.", "---"),  # closed far below the edit
    ],
)
def test_edits_that_reach_beyond_their_blocks_reparse_as_a_whole_parse(edit) -> None:
    old = "".join(f"Paragraph {i}.\n\n" for i in range(10)) + "Paragraph 1.\n\n"
    new = edit(old)
    assert reparse(parse(old), new) == parse(new)


@pytest.mark.parametrize(
    "old",
    [
        "---\ntitle: x\n\n" + "".join(f"Paragraph {i}.\n\n" for i in range(10)),  # still open
        "---\ntitle: x\n---\n" + "".join(f"Paragraph {i}.\n\n" for i in range(10)),  # closed
    ],
)
def test_a_closing_line_far_below_an_open_front_matter(old: str) -> None:
    for closing in ("---", "...", "+++"):
        new = old.replace("Paragraph 7.", closing)
        assert reparse(parse(old), new) == parse(new)


try:
    from hypothesis import given, settings
    from hypothesis import strategies as st
except ImportError:  # hypothesis is optional; the seeded fuzz above always runs
    pass
else:

    @settings(max_examples=300, deadline=None)
    @given(st.lists(st.tuples(st.sampled_from(FRAGMENTS), st.sampled_from(ENDINGS)), max_size=30))
    def test_hypothesis_markdown_lines_round_trip(lines: list[tuple[str, str]]) -> None:
        check("".join(text + ending for text, ending in lines))

    @settings(max_examples=300, deadline=None)
    @given(st.text(alphabet=st.characters(exclude_categories=()), max_size=80))
    def test_hypothesis_any_text_round_trips(source: str) -> None:
        check(source)

    @settings(max_examples=300, deadline=None)
    @given(
        st.lists(st.tuples(st.sampled_from(FRAGMENTS), st.sampled_from(ENDINGS)), max_size=20),
        st.integers(min_value=0, max_value=10_000),
        st.integers(min_value=0, max_value=30),
        st.lists(st.sampled_from([*FRAGMENTS, *ENDINGS]), max_size=4).map("".join),
    )
    def test_hypothesis_edits_reparse_as_a_whole_parse(
        lines: list[tuple[str, str]], at: int, cut: int, insert: str
    ) -> None:
        old = "".join(text + ending for text, ending in lines)
        at = at % (len(old) + 1)
        new = old[:at] + insert + old[min(len(old), at + cut) :]
        assert reparse(parse(old), new) == parse(new)
