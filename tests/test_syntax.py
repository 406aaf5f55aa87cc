"""What a site generator reads as syntax never reaches the model (fastdesk.document.syntax):
shielded behind tokens, put back in the answer byte for byte; and a translated heading keeps
the anchor the generator gave its source."""

from __future__ import annotations

import pytest

from fastdesk.document.syntax import (
    anchors,
    defined_labels,
    definition_terms,
    keep_anchor,
    shield,
    unshield,
)
from tests.translating import translate_text

LABELS = defined_labels(
    ["  [Navigation tabs enabled]: assets/tabs.png\n", "[Docusaurus]: https://x\n"]
)

CASES = {
    "mkdocs": (
        "[![Navigation tabs enabled]][Navigation tabs enabled] Click { .md-button } to go "
        ":material-plus-circle: on <!-- md:default false --> with ++ctrl+c++ and `code {x}`.[^1]\n"
        '/// html | div.result\n::: markdown.util\n--8<-- "note.md"',
        [
            "][Navigation tabs enabled]",
            "{ .md-button }",
            ":material-plus-circle:",
            "<!-- md:default false -->",
            "++ctrl+c++",
            "`code {x}`",
            "[^1]",
            "/// html | div.result",
            "::: markdown.util",
            '--8<-- "note.md"',
        ],
    ),
    "hugo": (
        "Set it {{< code-toggle file=hugo >}}[build]\nlist = 'always'{{</ code-toggle >}} or "
        '{{< hl >}}fmt.Println(){{< /hl >}} as {{% glossary-term "x" %}} says '
        "{#configuration-disqus}\n> [!NOTE]\n> A note.",
        [
            "> [!NOTE]",
            "[build]\nlist = 'always'",
            "fmt.Println()",
            '{{% glossary-term "x" %}}',
            "{#configuration-disqus}",
        ],
    ),
    "docusaurus": (
        "The docs of {year} and <img src={require('./img/a.png').default} alt=\"Logo\" /> with "
        '<Highlight color="#25c2a0">Docusaurus green</Highlight> and '
        "<button onClick={() => alert('button clicked!')}>Click me!</button> {/* truncate */} "
        "[Docusaurus]",
        [
            "{year}",
            "require('./img/a.png').default",
            '<Highlight color="#25c2a0">',
            "alert('button clicked!')",
            "{/* truncate */}",
            "][Docusaurus]",
        ],
    ),
}


@pytest.mark.parametrize("dialect", sorted(CASES))
def test_syntax_is_never_sent_and_comes_back_byte_for_byte(dialect: str) -> None:
    text, kept = CASES[dialect]
    found = shield(text, dialect, LABELS)
    for piece in kept:
        if not piece.startswith("`"):  # code is not shielded: models keep it, checks hold it
            assert piece not in found.text.replace("][", "[")
    assert unshield(found.text, found) == (text, [])  # an echo gives the source back
    answer, lost = unshield(translate_text(found.text), found)
    assert not lost
    for piece in kept:
        assert piece in answer
    assert answer != text  # the prose around was translated


def test_a_reference_whose_text_is_its_label_keeps_its_text_translatable() -> None:
    found = shield("Read [Navigation tabs enabled][] or [Docusaurus] or [plain].", "mkdocs", LABELS)
    assert found.text.count("{{") == 2 and "[plain]" in found.text  # [plain] defines nothing
    answer, _ = unshield(found.text.replace("Navigation tabs enabled", "Onglets"), found)
    assert answer == "Read [Onglets][Navigation tabs enabled] or [Docusaurus] or [plain]."


def test_a_lost_token_is_put_back_where_it_was_and_said() -> None:
    found = shield("*[HTML]: Hyper Text\n", "mkdocs")
    answer, lost = unshield(" Hyper texte\n", found)
    assert answer == "*[HTML]: Hyper texte\n" and lost == ["*[HTML]:"]
    found = shield("Press it { .md-button }", "mkdocs")
    assert unshield("Appuyez", found) == ("Appuyez { .md-button }", ["{ .md-button }"])


def test_plain_commonmark_is_sent_as_it_is() -> None:
    text = "Click { .md-button } :smile: <!-- c --> [a][b]"
    assert shield(text, "commonmark").text == text
    assert shield("A source with {{1}} in it { .x }", "mkdocs").text.endswith("{ .x }")


def test_anchors_as_each_generator_makes_them() -> None:
    headings = [
        ("a", "## Getting started"),
        ("b", "## Getting started"),
        ("c", '### Default { #default data-toc-label="Default value" }'),
        ("d", "# `mkdocs.yml` and *more*: ok!"),
        ("e", '### 4.53.17 <small>August 22, 2025</small> { id="4.53.17" }'),
        ("f", "## Café crème"),
        ("g", "## Example -- headless page"),
        ("h", "### Index pages: `_index.md`"),
    ]
    assert anchors(headings, "mkdocs") == {
        "a": "getting-started",
        "b": "getting-started_1",
        "d": "mkdocsyml-and-more-ok",
        "f": "cafe-creme",
        "g": "example-headless-page",
        "h": "index-pages-_indexmd",
    }
    assert anchors(headings, "hugo") == {
        "a": "getting-started",
        "b": "getting-started-1",
        "d": "mkdocsyml-and-more-ok",
        "f": "café-crème",
        "g": "example--headless-page",  # Goldmark's typographer: "--" is a dash, then gone
        "h": "index-pages-_indexmd",
    }
    assert anchors(headings, "docusaurus")["g"] == "example----headless-page"


def test_hugo_numbers_definition_terms_with_headings_as_goldmark_does() -> None:
    """What Hugo 0.168 built for these (autoDefinitionTermID on): a term and a heading share one
    numbering; an explicit id is not counted (the term after it takes the same id)."""
    assert definition_terms("`cascade`\n: the key") == ["`cascade`"]
    assert definition_terms("Step 2\nOther term\n: def") == ["Step 2", "Other term"]
    assert definition_terms("Just a paragraph\nwith two lines") == []
    items = [
        ("t1", "`cascade`"),
        ("t2", "Step 2"),
        ("h1", "## Cascade"),
        ("h2", "## Thème {#cascade}"),
        ("t3", "`cascade`"),
        ("h3", "## Step 2"),
        ("t4", "Éa Ü ½ x²--y"),
    ]
    assert anchors(items, "hugo", terms={"t1", "t2", "t3", "t4"}) == {
        "t1": "cascade",
        "t2": "step-2",
        "h1": "cascade-1",
        "t3": "cascade-2",
        "h3": "step-2-1",
        "t4": "éa-ü--xy",  # only letters and decimal digits; the typographer's dash goes
    }
    heading = [("a", "## Café -- Crème_x!")]
    assert anchors(heading, "hugo", id_type="github-ascii") == {"a": "cafe--creme_x"}
    assert anchors(heading, "hugo", id_type="blackfriday") == {"a": "café-crème-x"}


def test_a_translated_heading_keeps_its_anchor_in_the_dialects_syntax() -> None:
    assert keep_anchor("## Premiers pas\n", "getting-started", "mkdocs") == (
        "## Premiers pas { #getting-started }\n"
    )
    assert keep_anchor("## Premiers pas ##", "getting-started", "hugo") == (
        "## Premiers pas {#getting-started} ##"
    )
    assert keep_anchor("## Premiers pas", "getting-started", "docusaurus") == (
        "## Premiers pas {/* #getting-started */}"
    )
    assert keep_anchor('### Valeur { data-toc-label="Value" }', "value", "mkdocs") == (
        '### Valeur { #value data-toc-label="Value" }'
    )
    assert keep_anchor("## Getting started", "getting-started", "mkdocs") == "## Getting started"
    assert keep_anchor("## Valeur {#x}", "value", "hugo") == "## Valeur {#x}"


def test_an_answer_still_streaming_shows_the_syntax_it_holds_so_far() -> None:
    found = shield("Click { .md-button } to go :material-plus-circle: on", "mkdocs")
    assert found.text == "Click {{1}} to go {{2}} on"
    assert unshield("Cliquez {{1}} pour {", found, partial=True) == (
        "Cliquez { .md-button } pour {",
        [],
    )
    assert unshield("Cliquez {{1}} pour {{2", found, partial=True)[0] == (
        "Cliquez { .md-button } pour "
    )


def test_references_as_python_markdown_reads_them() -> None:
    labels = defined_labels(
        ["  [layout options]: #x\n  [Puppeteer]: https://p\n  [on mobile viewports]: #m\n"]
    )
    cases = {  # a label over two lines, "[text]\n[label]", a shortcut before a footnote
        "or [change the\nlayout options]\n[layout options] like it": "[layout options]",
        "[Puppeteer][^1], it would": "[Puppeteer]",
        "has [better behavior on mobile\nviewports] ok": None,
        "see [on mobile\nviewports] ok": "[on mobile\nviewports]",
    }
    for text, label in cases.items():
        found = shield(text, "mkdocs", labels)
        answer, lost = unshield(translate_text(found.text), found)
        assert not lost and (label is None or label in answer), (text, answer)
        assert unshield(found.text, found)[0] == text


def test_a_shortcut_reference_naming_a_thing_is_not_sent() -> None:
    """``[$ref]``, ``[schema.json]`` are names (translated, ``[$des][$ref]`` is math to
    pymdownx.arithmatex); a definition without a space after its colon defines a label."""
    labels = defined_labels(
        ["  [$ref]: https://json-schema.org/x#ref\n  [schema.json]:schema.json\n"
         "  [built-in plugin]:../plugins/privacy.md\n"]
    )  # fmt: skip
    assert labels == {"$ref", "schema.json", "built-in plugin"}
    text = "Add it via [$ref] or [schema.json]; see the [built-in plugin]."
    found = shield(text, "mkdocs", labels)
    assert "$ref" not in found.text and "schema.json" not in found.text
    assert "[built-in plugin]" in found.text
    answer, lost = unshield(translate_text(found.text), found)
    assert not lost and "[$ref]" in answer and "[schema.json]" in answer
    assert "][built-in plugin]" in answer  # the prose translated, its label kept


def test_a_hugo_shortcode_written_over_lines_commonmark_cuts_is_kept_whole() -> None:
    from fastdesk.document.blocks import parse
    from fastdesk.document.dialects import apply_dialect

    source = (
        'Intro with `{{<` in code.\n\n{{< datatable\n  "config"\n  "outputFormats"\n>}}\n\n'
        "## Next\n\nText.\n"
    )
    kept = [b.text for b in apply_dialect(parse(source), "hugo").blocks if not b.translatable]
    assert kept == ['{{< datatable\n  "config"\n  "outputFormats"\n', ">}}\n\n"]
