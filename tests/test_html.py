"""The one Markdown renderer (fastdesk.document.html): CommonMark spec, GitHub cases, context."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from mdit_py_plugins.gfm import gfm_plugin

from fastdesk.document.blocks import parse
from fastdesk.document.html import NO_CONTEXT, contexts, render

SPEC = json.loads((Path(__file__).parent / "data/commonmark/spec.json").read_text("utf-8"))

# Where GitHub's extensions differ from plain CommonMark by design (cmark-gfm renders the same):
# front matter at the very top (the blocks parse says so too) and extended autolinks.
GFM_DIFFERENCES = {
    96: '<table class="front-matter">',  # ---\nFoo\n---: YAML front matter
    98: '<table class="front-matter">',
    608: '<a href="https://foo.bar">',  # < https://foo.bar >: a bare URL
    611: '<a href="https://example.com">',
    612: '<a href="mailto:foo@bar.example.com">',
}


def normalise(html: str) -> str:
    """Whitespace runs as one space, none between tags."""
    return re.sub(r">\s+<", "><", re.sub(r"\s+", " ", html)).strip()


def equal(renderer, example: dict[str, str]) -> bool:
    return normalise(renderer(example["markdown"])) == normalise(example["html"])


def test_every_spec_example_renders_as_the_spec_says_or_as_github_does() -> None:
    different = {e["example"]: e for e in SPEC if not equal(render, e)}
    assert set(different) == set(GFM_DIFFERENCES)
    for number, expected in GFM_DIFFERENCES.items():
        assert expected in render(different[number]["markdown"])
    plain = MarkdownIt("commonmark").render
    baseline = sum(equal(plain, e) for e in SPEC)
    ours = len(SPEC) - len(different)
    # what docs/window.md reports: ours of 652 and plain markdown-it-py's baseline of 652
    assert (len(SPEC), ours) == (652, 647)
    assert baseline - ours == len(GFM_DIFFERENCES)
    same_plugins = MarkdownIt("commonmark")
    gfm_plugin(same_plugins, front_matter=True)
    assert ours >= sum(equal(same_plugins.render, e) for e in SPEC)  # markdown-it-py + GFM: 647


@pytest.mark.parametrize(
    ("markdown", "expected"),
    [
        ("| a | b |\n|---|:-:|\n| 1 | 2 |\n", '<td style="text-align:center">2</td>'),
        ("~~gone~~ and ~one~\n", "<s>gone</s> and <s>one</s>"),
        ("- [ ] todo\n- [x] done\n", 'type="checkbox" checked'),
        ("- [ ] todo\n", 'class="task-list-item'),
        ("see www.commonmark.org/help.\n", '<a href="http://www.commonmark.org/help">'),
        ("at https://example.com/a?b=1, then\n", '<a href="https://example.com/a?b=1">'),
        ("Note[^1].\n\n[^1]: The note.\n", '<li id="fn1" class="footnote-item">'),
        ("Note[^1].\n\n[^1]: The note.\n", '<sup class="footnote-ref"><a href="#fn1"'),
        ("3. three\n4. four\n", '<ol start="3">'),
        ("- a\n\n  ```\n  code\n  ```\n", "<pre><code>code\n</code></pre>"),
        ("[path.win32][]\n\n[path.win32]: https://nodejs.org/api/path.html\n", "nodejs.org"),
        ("---\ntitle: Guide\nlang: en\n---\n# Hi\n", "<th>title</th><td>Guide</td>"),
        ('+++\ntitle = "Guide"\n+++\n# Hi\n', "<th>title</th><td>Guide</td>"),
    ],
)
def test_github_cases(markdown: str, expected: str) -> None:
    assert expected in render(markdown)


def test_front_matter_is_a_box_not_a_rule_and_text() -> None:
    out = render("---\ntitle: Guide\n---\n\nBody\n")
    assert "<hr" not in out and "<h2>" not in out
    assert out.index("front-matter") < out.index("<p>Body</p>")


def test_a_block_alone_sees_the_documents_references_footnotes_and_list_number() -> None:
    source = (
        "1. one\n1. two\n1. three\n\nSee [path.win32][] and[^n].\n\n"
        "[path.win32]: https://nodejs.org/api/path.html\n[^n]: A note.\n"
    )
    doc = parse(source)
    ctx = contexts(doc)
    items = [b for b in doc.blocks if b.kind == "list_item"]
    assert [ctx[b.id].number for b in items] == [1, 2, 3]
    third = render(items[2].text, ctx[items[2].id])
    assert '<ol start="3">' in third
    assert "<ol>" in render(items[0].text, ctx[items[0].id])
    para = next(b for b in doc.blocks if b.kind == "paragraph")
    alone = render(para.text, ctx[para.id])
    assert '<a href="https://nodejs.org/api/path.html">path.win32</a>' in alone
    assert 'href="#fn1"' in alone and "footnotes-list" not in alone  # listed where defined
    assert "[path.win32][]" in render(para.text, NO_CONTEXT)  # without it: literal, as before


def test_list_numbers_restart_with_a_new_list() -> None:
    doc = parse("2. a\n3. b\n\npara\n\n1) x\n1) y\n")
    ctx = contexts(doc)
    numbers = [ctx[b.id].number for b in doc.blocks if b.kind == "list_item"]
    assert numbers == [2, 3, 1, 2]


def test_safe_rendering_shows_raw_html_as_text_and_keeps_only_safe_links() -> None:
    out = render(
        "<script>alert(1)</script>\n\n[x](javascript:alert(1)) [y](https://ok.example) "
        "![pic](https://img.example/a.png)\n",
        safe=True,
    )
    assert "<script>" not in out and "&lt;script&gt;" in out
    assert 'href="javascript' not in out and 'href="https://ok.example"' in out
    assert "<img" not in out and '<a href="https://img.example/a.png" class="image">' in out
    assert "<script>" in render("<script>x</script>\n")  # the pane (Qt runs no script) keeps it


def test_the_bilingual_page_uses_the_same_renderer_in_context() -> None:
    from fastdesk.review.export import bilingual_html

    source = (
        "---\ntitle: Guide\n---\n\n1. one\n1. two\n\nSee [path.win32][] and ~~old~~[^n].\n\n"
        "- [x] done\n\n[path.win32]: https://nodejs.org/api/path.html\n\n[^n]: A note.\n"
    )
    doc = parse(source)
    target = {b.id: b.text.replace("one", "un").replace("two", "deux") for b in doc.blocks}
    page = bilingual_html(doc, target, "fr", "Guide")
    assert page.count('<ol start="2">') == 2  # source and target of the second item
    assert page.count('<a href="https://nodejs.org/api/path.html">path.win32</a>') == 2
    assert "<s>old</s>" in page and 'type="checkbox" checked' in page
    assert "<th>title</th><td>Guide</td>" in page and 'href="#fn1"' in page
    assert "footnote-item" in page
