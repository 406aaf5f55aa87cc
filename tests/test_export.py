"""Export : target file names, the target Markdown, the bilingual review page."""

from __future__ import annotations

import html
import os
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from fastdesk.document.blocks import parse
from fastdesk.review.export import (
    bilingual_html,
    export_bilingual,
    export_path,
    export_target,
    html_export_path,
    review_summary,
    text_direction,
)
from fastdesk.review.model import Review
from fastdesk.review.target_model import TargetModel
from fastdesk.translate.events import BlockDone, Flag

SOURCE = """# Guide

First paragraph with [a link][home] and `code`.

Second paragraph, a much longer one. It goes on and on so that it would take several lines in a
narrow column, which is exactly why every block gets its own table row.

| a | b |
|---|---|
| 1 | 2 |

```python
print("hi")
```

[home]: https://example.org/
"""


def translate(text: str) -> str:
    return text.replace("paragraph", "paragraphe").replace("Guide", "Le guide")


def reviewed(source: str = SOURCE, lang: str = "fr") -> Review:
    doc = parse(source)
    review = Review(None, lang, doc)
    for block in doc.blocks:
        origin = "model" if block.translatable else "copy"
        review.apply_event(BlockDone(0, block.id, translate(block.text), origin))
    return review


# ---- names --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "lang", "expected"),
    [
        ("docs/guide.md", "fr", "docs/guide.fr.md"),
        ("docs/guide.en.md", "fr", "docs/guide.fr.md"),  # a language suffix is replaced
        ("docs/guide.pt-BR.md", "de", "docs/guide.de.md"),
        ("docs/guide.fr.md", "fr", "docs/guide.fr.fr.md"),  # never the source itself
        ("docs/notes.v2.md", "fr", "docs/notes.v2.fr.md"),  # not a language
        ("docs/notes.old.md", "fr", "docs/notes.old.fr.md"),
        ("docs/guide.markdown", "ja", "docs/guide.ja.markdown"),
        ("README", "es", "README.es.md"),
        (None, "fr", "untitled.fr.md"),
    ],
)
def test_export_path(source: str | None, lang: str, expected: str) -> None:
    assert export_path(source, lang) == Path(expected)


def test_html_export_path() -> None:
    assert html_export_path("docs/guide.md", "fr") == Path("docs/guide.fr.review.html")


# ---- the target Markdown ------------------------------------------------------------------------


def test_export_target_writes_the_reviewed_text_with_the_sources_line_ends(tmp_path: Path) -> None:
    review = reviewed()
    assert review.doc is not None
    first = review.doc.blocks[1].id
    review.edit(first, "Premier paragraphe, corrigé.\n\n")
    out = export_target(review, tmp_path / "guide.fr.md", newline="\r\n")
    data = out.read_bytes()
    assert "Premier paragraphe, corrigé.\r\n\r\n".encode() in data
    assert b"# Le guide\r\n" in data and b"\n" not in data.replace(b"\r\n", b"")
    export_target("plain\ntext\n", tmp_path / "plain.md")
    assert (tmp_path / "plain.md").read_bytes() == b"plain\ntext\n"


def test_export_target_is_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "guide.fr.md"
    path.write_text("old\n", encoding="utf-8")

    def fail(*_args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError):
        export_target(reviewed(), path)
    assert path.read_text(encoding="utf-8") == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["guide.fr.md"]


# ---- the bilingual page -------------------------------------------------------------------------


class Page(HTMLParser):
    """Rows of the bilingual table (cell texts, attributes) and every tag/attribute seen."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.rows: list[dict[str, str]] = []
        self._cell: str | None = None
        self._depth = 0  # tables: 1 is the page's own, deeper ones are Markdown tables in cells
        self._in_body = False
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag == "table":
            self._depth += 1
        if self._depth != 1:
            return
        if tag == "tbody":
            self._in_body = True
        elif tag == "tr" and self._in_body:
            self.rows.append({"class": a.get("class") or ""})
        elif tag == "td" and self._in_body:
            self._cell = (a.get("class") or "").split()[0]
            self.rows[-1][self._cell] = ""
            for key in ("lang", "dir"):
                if a.get(key):
                    self.rows[-1][f"{self._cell}.{key}"] = a[key] or ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._depth -= 1
        elif self._depth == 1 and tag == "td":
            self._cell = None
        elif self._depth == 1 and tag == "tbody":
            self._in_body = False

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self.rows[-1][self._cell] += data


def test_bilingual_page_has_one_row_per_block_source_beside_target() -> None:
    review = reviewed()
    assert review.doc is not None
    page = Page(bilingual_html(review.doc, review, "fr", "Guide", source_lang="en"))
    rows = page.rows
    # blank and link-definition blocks have no row; heading, 2 paragraphs, table, code do
    assert len(rows) == 5
    assert "Guide" in rows[0]["src"] and "Le guide" in rows[0]["tgt"]
    assert "First paragraph" in rows[1]["src"] and "First paragraphe" in rows[1]["tgt"]
    assert "longer one" in rows[2]["src"] and "Second paragraphe" in rows[2]["tgt"]
    assert "Second paragraphe" not in rows[1]["tgt"]
    assert rows[1]["tgt.lang"] == "fr" and rows[1]["src.lang"] == "en"
    tables = [t for t, _a in page.tags if t == "table"]
    assert len(tables) == 1 + 2  # the page's own, and the Markdown table on both sides
    # a reference-style link still resolves although each block is rendered alone
    hrefs = [a.get("href") for t, a in page.tags if t == "a"]
    assert hrefs.count("https://example.org/") == 2


def test_bilingual_page_shows_states_and_flags() -> None:
    review = reviewed()
    doc = review.doc
    assert doc is not None
    review.approve(doc.blocks[0].id)
    review.edit(doc.blocks[1].id, "Corrigé.\n\n")
    review.apply_event(
        BlockDone(1, doc.blocks[2].id, "Faux.\n\n", "model", (Flag("links", "a <b> lost"),))
    )
    text = bilingual_html(doc, review, "fr", "Guide")
    rows = Page(text).rows
    assert "state-approved" in rows[0]["class"] and "approved" in rows[0]["tgt"]
    assert "state-edited" in rows[1]["class"] and "Corrigé." in rows[1]["tgt"]
    assert "state-flagged" in rows[2]["class"]
    assert "link target changed: a <b> lost" in rows[2]["tgt"]
    assert "a &lt;b&gt; lost" in text
    assert review_summary(review) in text


def test_bilingual_page_marks_human_edits_approved_or_not_and_counts_them() -> None:
    review = reviewed()
    doc = review.doc
    assert doc is not None
    first, second = doc.blocks[0].id, doc.blocks[1].id
    review.edit(first, "# Le guide corrigé\n\n")
    review.approve(first)  # edited, then approved
    review.edit(second, "Corrigé.\n\n")  # edited only
    review.approve(doc.blocks[2].id)  # a machine text approved: no human edit
    page = Page(bilingual_html(doc, review, "fr", "Guide"))
    rows = page.rows
    assert "human" in rows[0]["class"].split() and "state-approved" in rows[0]["class"]
    badges = [a["class"] for t, a in page.tags if t == "span" and "badge" in (a["class"] or "")]
    # after the legend's six: edited + approved, edited, approved, machine
    assert badges[6:] == [
        "badge badge-edited",
        "badge badge-approved",
        "badge badge-edited",
        "badge badge-approved",
        "badge badge-machine",  # the table, untouched
    ]
    assert "human" in rows[1]["class"].split()
    assert "human" not in rows[2]["class"].split()
    header = "4 blocks · 2 approved · 2 edited (1 of them approved) · 0 flagged"
    assert review_summary(review) == header
    assert html.escape(header) in bilingual_html(doc, review, "fr", "Guide")


def test_bilingual_page_notes_a_stale_edit_with_the_old_source() -> None:
    review = reviewed()
    assert review.doc is not None
    review.edit(review.doc.blocks[1].id, "Mon paragraphe.\n\n")
    new = parse(SOURCE.replace("First paragraph", "Opening paragraph"))
    review.realign(new)
    row = Page(bilingual_html(new, review, "fr", "Guide")).rows[1]
    assert "state-stale_edit" in row["class"]
    assert "Mon paragraphe." in row["tgt"] and "First paragraph" in row["tgt"]
    assert "Opening paragraph" in row["src"]


HOSTILE = """# Title <script>alert("t")</script>

Text <script>alert(1)</script> and <img src=x onerror="alert(2)"> and [click](javascript:alert(3)).

<div onclick="alert(4)">raw html block</div>

![logo](https://tracker.example/pixel.png) [ok](https://example.org/a?b=1&c=2)
"""


def test_bilingual_page_never_runs_or_loads_anything_from_the_documents() -> None:
    doc = parse(HOSTILE)
    target = {b.id: b.text.replace("Text", "Texte") for b in doc.blocks}
    text = bilingual_html(doc, target, "fr", 'A "title" <script>x</script>')
    page = Page(text)
    names = [t for t, _a in page.tags]
    assert "script" not in names and "img" not in names and "link" not in names
    assert "iframe" not in names and "object" not in names
    for _tag, attrs in page.tags:
        assert not any(k.startswith("on") for k in attrs), attrs
        assert "src" not in attrs
        assert "javascript" not in (attrs.get("href") or "")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text  # shown, escaped
    assert "raw html block" in text
    assert 'href="https://example.org/a?b=1&amp;c=2"' in text  # safe links kept
    assert 'href="https://tracker.example/pixel.png"' in text  # an image is only a link
    assert "Content-Security-Policy" in text and "default-src 'none'" in text
    assert "<title>A &quot;title&quot; &lt;script&gt;x&lt;/script&gt;</title>" in text
    assert not re.search(r"(?:https?:)?//[^\"'<>\s]+\.(?:css|js)\b", text)  # no external assets


@pytest.mark.parametrize(
    ("lang", "direction"),
    [
        ("ar", "rtl"),
        ("he", "rtl"),
        ("fa-IR", "rtl"),
        ("ur", "rtl"),
        ("az-Arab", "rtl"),
        ("ku-Latn", "ltr"),
        ("fr", "ltr"),
        ("ja", "ltr"),
        ("zh-Hant", "ltr"),
    ],
)
def test_text_direction(lang: str, direction: str) -> None:
    assert text_direction(lang) == direction


def test_right_to_left_targets_are_marked_rtl_and_code_stays_ltr() -> None:
    review = reviewed(lang="ar")
    assert review.doc is not None
    text = bilingual_html(review.doc, review, "ar", "Guide", source_lang="en")
    rows = Page(text).rows
    assert all(r["tgt.dir"] == "rtl" and r["tgt.lang"] == "ar" for r in rows)
    assert all(r["src.dir"] == "ltr" for r in rows)
    assert "direction: ltr" in text  # code blocks inside an rtl cell read left to right
    fr_rows = Page(bilingual_html(review.doc, review, "fr", "Guide")).rows
    assert all(r["tgt.dir"] == "ltr" for r in fr_rows)


def test_bilingual_page_from_a_target_view_and_export_file(tmp_path: Path) -> None:
    doc = parse(SOURCE)
    model = TargetModel(Review(None, "fr"))
    model.set_doc(doc)
    model.apply(BlockDone(0, b.id, translate(b.text), "model") for b in doc.blocks[:2])
    view = model.view()
    rows = Page(bilingual_html(doc, view, "fr", "Guide")).rows
    assert "Le guide" in rows[0]["tgt"]
    assert "state-pending" in rows[2]["class"] and "longer one" in rows[2]["tgt"]
    out = export_bilingual(doc, view, "fr", tmp_path / "guide.fr.review.html")
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert "<title>guide.fr.review.html</title>" in out.read_text(encoding="utf-8")


def test_the_translation_alone_as_a_page(tmp_path) -> None:
    from fastdesk.review.export import export_translation_html, translation_html

    page = translation_html("# مرحبا\n\n[x](javascript:alert(1)) <b>raw</b>\n", "ar", "Guide")
    assert '<html lang="ar" dir="rtl">' in page and "<title>Guide</title>" in page
    assert "<h1>مرحبا</h1>" in page
    assert 'href="javascript' not in page and "<b>raw</b>" not in page  # safe: no link, no tag
    out = export_translation_html("Bonjour.\n", "fr", tmp_path / "g.fr.html")
    assert "<p>Bonjour.</p>" in out.read_text(encoding="utf-8")
    assert "<title>g.fr</title>" in out.read_text(encoding="utf-8")
