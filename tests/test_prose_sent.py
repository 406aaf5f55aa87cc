"""What is prose in a page of an MkDocs site is sent, what the generator reads as syntax is not
(issue 44): a single file of the site (``fastdesk translate FILE -o OUT``, its dialect its
project's), answered by a model that upper-cases every word it receives, comes back with every
prose word upper-cased and the syntax byte for byte; an echo gives the file back unchanged.
benchmarks/bench_prose.py measures the same on Python-Markdown's and pymdown-extensions' docs.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from fastdesk.cli.main import run
from fastdesk.config.settings import Settings, save_settings
from tests.emulator import Emulator
from tests.project_kit import use_emulator, write
from tests.translating import upper_everything

# kind → (page, the syntax that must never be sent)
PAGES: dict[str, tuple[str, list[str]]] = {
    "pymdownx block titles and options": (
        "/// tab | Default view\n\nShown first.\n///\n\n"
        "/// admonition | Some title\n    type: warning\n    attrs: {class: note}\n\n"
        "Careful here.\n///\n\n"
        "/// html | div.result\nThe rendered result.\n///\n\n"
        "/// figure-caption | 3 #static-id\n///\n\n"
        "/// danger | Using `tab` with `tabbed`\nMixing them breaks.\n///\n",
        [
            "/// tab |",
            "/// danger |",
            "/// admonition |",
            "type: warning",
            "attrs: {class: note}",
            "div.result",
        ],
    ),
    "code block titles": (
        '```text title="Lazy blockquote handling"\n> quoted\nlazy\n```\n\n'
        '``` {.python title="My cool header"}\nimport foo\n```\n\n'
        '```py linenums="1"\nprint("kept")\n```\n',
        ["```text", "> quoted", "import foo", ".python", 'print("kept")', "linenums"],
    ),
    "meta-data": (
        "title: Library reference\nauthor: someone else\n\n# Using the library\n\nSome text.\n",
        ["title:", "author: someone else"],
    ),
    "definition lists": (
        "__text__{: #text }\n\n:   The source string, required.\n\n"
        '    !!! note "Important"\n        Python expects a string as input.\n\n'
        "            :::python\n            text = read()\n\n"
        "    A second paragraph of the definition.\n\nAfter the list.\n",
        ["{: #text }", "!!! note", ":::python", "text = read()"],
    ),
    "admonitions in tabs": (
        '=== "First tab"\n\n    Text of the tab.\n\n    !!! tip "Nested tip"\n'
        "        Body of the nested tip.\n\n        ```sh\n        run --it\n        ```\n",
        ["=== ", "!!! tip", "run --it"],
    ),
    "footnotes": (
        "Text with a note.[^1]\n\n"
        "[^1]: The [`bleach`][bleach] project has been deprecated.\nHowever, it may help.\n\n"
        "[bleach]: https://example.com/bleach\n",
        ["[^1]", "][bleach]", "[bleach]: https://example.com/bleach"],
    ),
    "task and fancy lists": (
        "- [x] Done item\n- [ ] Open item\n\na. First step\nb. Second step\n\n"
        "i.  Roman one\n#.  Counted on\n",
        ["[x]", "[ ]", "b. Second", "i.  Roman", "#.  Counted"],
    ),
    "keys and mentions": (
        'Press ++ctrl+alt+"My Key"++ to start, thanks to @facelessuser and @PyCQA/flake8.\n',
        ['++ctrl+alt+"My Key"++', "@facelessuser", "@PyCQA/flake8"],
    ),
    "abbreviations and attribute lists": (
        "The HTML specification is kept by the W3C.\n{: .lead }\n\n"
        "*[HTML]: Hyper text markup language\n*[W3C]:  World wide web consortium\n",
        ["*[HTML]:", "*[W3C]:", "{: .lead }"],
    ),
}


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """An MkDocs project (a file translated on its own takes its dialect)."""
    write(tmp_path / "site/mkdocs.yml", "site_name: s\nmarkdown_extensions:\n  - extra\n")
    (tmp_path / "site/.git").mkdir()
    save_settings(Settings(target_language="en"))
    return tmp_path / "site"


@pytest.fixture
def upper(monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    with Emulator(answer=upper_everything) as emu:
        use_emulator(monkeypatch, emu)
        yield emu


EXPECTED: dict[str, str] = {
    "pymdownx block titles and options": (
        "/// tab | DEFAULT VIEW\n\nSHOWN FIRST.\n///\n\n"
        "/// admonition | SOME TITLE\n    type: warning\n    attrs: {class: note}\n\n"
        "CAREFUL HERE.\n///\n\n"
        "/// html | div.result\nTHE RENDERED RESULT.\n///\n\n"
        "/// figure-caption | 3 #static-id\n///\n\n"
        "/// danger | USING `tab` WITH `tabbed`\nMIXING THEM BREAKS.\n///\n"
    ),
    "code block titles": (
        '```text title="LAZY BLOCKQUOTE HANDLING"\n> quoted\nlazy\n```\n\n'
        '``` {.python title="MY COOL HEADER"}\nimport foo\n```\n\n'
        '```py linenums="1"\nprint("kept")\n```\n'
    ),
    "meta-data": (
        "title: LIBRARY REFERENCE\nauthor: someone else\n\n# USING THE LIBRARY\n\nSOME TEXT.\n"
    ),
    "definition lists": (
        "__TEXT__{: #text }\n\n:   THE SOURCE STRING, REQUIRED.\n\n"
        '    !!! note "IMPORTANT"\n        PYTHON EXPECTS A STRING AS INPUT.\n\n'
        "            :::python\n            text = read()\n\n"
        "    A SECOND PARAGRAPH OF THE DEFINITION.\n\nAFTER THE LIST.\n"
    ),
    "admonitions in tabs": (
        '=== "FIRST TAB"\n\n    TEXT OF THE TAB.\n\n    !!! tip "NESTED TIP"\n'
        "        BODY OF THE NESTED TIP.\n\n        ```sh\n        run --it\n        ```\n"
    ),
    "footnotes": (
        "TEXT WITH A NOTE.[^1]\n\n"
        "[^1]: THE [`bleach`][bleach] PROJECT HAS BEEN DEPRECATED.\nHOWEVER, IT MAY HELP.\n\n"
        "[bleach]: https://example.com/bleach\n"
    ),
    "task and fancy lists": (
        "- [x] DONE ITEM\n- [ ] OPEN ITEM\n\na. FIRST STEP\nb. SECOND STEP\n\n"
        "i.  ROMAN ONE\n#.  COUNTED ON\n"
    ),
    "keys and mentions": (
        'PRESS ++ctrl+alt+"My Key"++ TO START, THANKS TO @facelessuser AND @PyCQA/flake8.\n'
    ),
    "abbreviations and attribute lists": (
        "THE HTML SPECIFICATION IS KEPT BY THE W3C.\n{: .lead }\n\n"
        "*[HTML]: HYPER TEXT MARKUP LANGUAGE\n*[W3C]:  WORLD WIDE WEB CONSORTIUM\n"
    ),
}


@pytest.mark.parametrize("kind", sorted(PAGES))
def test_prose_of_each_kind_of_block_is_sent_and_its_syntax_is_not(
    kind: str, site: Path, upper: Emulator
) -> None:
    text, syntax = PAGES[kind]
    page = write(site / "docs/page.md", text)
    out = site.parent / "out.md"
    assert run(["translate", str(page), "-o", str(out), "--to", "en"]) == 0
    assert out.read_text(encoding="utf-8") == EXPECTED[kind]
    sent = "\n".join(r.body["messages"][-1]["content"] for r in upper.chat_requests)
    for piece in syntax:
        assert piece not in sent, piece


@pytest.mark.parametrize("kind", sorted(PAGES))
def test_an_echo_gives_each_kind_of_block_back_byte_for_byte(
    kind: str, site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text, _syntax = PAGES[kind]
    page = write(site / "docs/page.md", text)
    out = site.parent / "out.md"
    with Emulator() as emu:
        use_emulator(monkeypatch, emu)
        assert run(["translate", str(page), "-o", str(out), "--to", "en"]) == 0
        assert emu.request_count > 0
    assert out.read_bytes() == page.read_bytes()


def test_headings_of_the_same_text_keep_their_numbered_anchors_under_an_echo(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Python-Markdown numbers a second "### Fixed" fixed_1: an answer that gives the same text
    is numbered the same, so no explicit id is added (the changelog stays byte-identical)."""
    text = "# Log\n\n## 1.1\n\n### Fixed\n\nA bug.\n\n## 1.0\n\n### Fixed\n\nAnother bug.\n"
    page = write(site / "docs/changelog.md", text)
    out = site.parent / "out.md"
    with Emulator() as emu:
        use_emulator(monkeypatch, emu)
        assert run(["translate", str(page), "-o", str(out), "--to", "en"]) == 0
    assert out.read_text(encoding="utf-8") == text
