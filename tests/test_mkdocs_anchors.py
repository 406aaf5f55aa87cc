"""The anchors a translation moves in an MkDocs page, computed as Python-Markdown computes them.

fastdesk.project.anchors predicts, from a page and its translation, each heading's and content
tab's id the generator will give the translated page; links into them are rewritten with it.
The prediction is held to the ids Python-Markdown's toc and pymdownx.tabbed themselves give
(both in the ``dev`` extra, as MkDocs' dependencies), for the settings docs sites use.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import re
import shutil
from pathlib import Path, PurePosixPath

import pytest

from fastdesk.cli.main import run
from fastdesk.document.blocks import Document, parse
from fastdesk.project.anchors import page_anchors
from fastdesk.project.links import rebase_links
from fastdesk.project.mkdocs_config import markdown_settings
from tests.emulator import Emulator
from tests.project_kit import use_emulator
from tests.translating import translate_everything

_PYMDOWNX = all(importlib.util.find_spec(m) for m in ("markdown", "pymdownx", "material"))

PAGE = """\
# Changing the logo

## Logo

=== ":octicons-image-16: Image"

    An image.

=== "Icon, bundled"

    An icon.

## Logo

!!! note "Tabs in a note"

    === "Image"

        The note's tab.

## Options for `mkdocs.yml`

Installing it
-------------

``` markdown
=== "Not a tab: code"
```
"""

FRENCH = {  # heading and tab → its translation
    "# Changing the logo": "# Changer le logo",
    "## Logo": "## Le logo",
    "Image": "Une image",
    "Icon, bundled": "Icône, fournie",
    "## Options for `mkdocs.yml`": "## Réglages de `mkdocs.yml`",
    "Installing it": "L'installer",
}

TABS = """\
  - toc:
      permalink: true
  - pymdownx.tabbed:
      alternate_style: true
      combine_header_slug: true
      slugify: !!python/object/apply:pymdownx.slugs.slugify
        kwds:
          case: lower
"""


def _translate(text: str) -> str:
    for english, french in FRENCH.items():
        text = text.replace(english, french)
    return text


def _config(extensions: str) -> str:
    return f"site_name: A\n# attr_list is not on below\nmarkdown_extensions:\n{extensions}"


def _ids_by_generator(text: str, extensions: str) -> list[str]:
    """The ids Python-Markdown gives a page's headings and tabs, with the extensions."""
    import markdown  # type: ignore[import-untyped]  # (test-only: the generator's own)
    import material.extensions.emoji  # type: ignore[import-untyped]
    import pymdownx.slugs  # type: ignore[import-untyped]

    configs: dict[str, dict[str, object]] = {
        "toc": {},  # Material's icons, as its docs use them (an icon has no text)
        "pymdownx.emoji": {
            "emoji_index": material.extensions.emoji.twemoji,
            "emoji_generator": material.extensions.emoji.to_svg,
        },
    }
    names = ["toc", "admonition", "pymdownx.superfences", "pymdownx.emoji"]
    if "pymdownx.tabbed" in extensions:
        names.append("pymdownx.tabbed")
        configs["pymdownx.tabbed"] = {
            "alternate_style": True,
            "combine_header_slug": True,
            "slugify": pymdownx.slugs.slugify(case="lower"),
        }
    if "slugify:" in extensions.split("pymdownx.tabbed")[0]:
        configs["toc"]["slugify"] = pymdownx.slugs.slugify(case="lower")
    html = markdown.markdown(text, extensions=names, extension_configs=configs)
    return re.findall(r'<(?:h\d|input)[^>]* id="([^"]+)"', html)


def _moved(doc: Document, extensions: str) -> dict[str, str]:
    french = {b.id: _translate(b.text) for b in doc.blocks}
    return page_anchors(doc, french.get, markdown_settings(_config(extensions)))


@pytest.mark.skipif(
    not _PYMDOWNX, reason="mkdocs-material (markdown, pymdown-extensions): pip install -e .[dev]"
)
@pytest.mark.parametrize(
    "extensions",
    [
        TABS,
        "  - toc:\n      slugify: !!python/object/apply:pymdownx.slugs.slugify"
        " {kwds: {case: lower}}\n" + TABS.split("      permalink: true\n")[1],
        "  - admonition\n  - toc\n",
    ],
    ids=["tabs", "toc-slugify-and-tabs", "headings-only"],
)
def test_the_anchors_a_translation_moves_are_the_generators(extensions: str) -> None:
    doc = parse(PAGE)
    before = _ids_by_generator(PAGE, extensions)
    after = _ids_by_generator(_translate(PAGE), extensions)
    assert len(before) == len(after) and before != after
    moved = _moved(doc, extensions)
    expected = {a: b for a, b in zip(before, after, strict=True) if a != b}
    assert moved == expected
    if "tabbed" in extensions:  # the tab in the note, after the second "Logo": logo_1-image
        assert moved["logo-image"] == "le-logo-une-image"
        assert any(a.startswith("logo_1-") for a in moved)


def test_links_into_moved_anchors_follow_them_in_the_page_and_from_other_pages() -> None:
    doc = parse(PAGE)
    moved = _moved(doc, TABS)
    table = {"docs/setup/logo.md": moved}
    text = (
        "See [the image tab](#logo-image), [the icon][icon] and [a page](../other.md#logo-image)"
        " or [elsewhere](logo.md#logo-icon-bundled), and `[code](#logo-image)`.\n\n"
        "  [icon]: logo.md#logo-icon-bundled\n"
    )
    source = PurePosixPath("docs/setup/logo.md")
    pages = {source: PurePosixPath("docs/setup/logo.fr.md")}

    def fragment(page: PurePosixPath, frag: str) -> str:
        return table.get(page.as_posix(), {}).get(frag, frag)

    out = rebase_links(text, source, pages[source], pages.get, fragment=fragment)
    assert out == (
        "See [the image tab](#le-logo-une-image), [the icon][icon] and"
        " [a page](../other.md#logo-image) or [elsewhere](logo.md#le-logo-icône-fournie), and"
        " `[code](#logo-image)`.\n\n  [icon]: logo.md#le-logo-icône-fournie\n"
    )
    # a folder layout (docs/en → docs/fr): the path rebased, the fragment followed
    source, target = PurePosixPath("docs/en/guide.md"), PurePosixPath("docs/fr/guide.md")
    pages = {PurePosixPath("docs/en/setup/logo.md"): PurePosixPath("docs/fr/setup/logo.md")}
    table = {"docs/en/setup/logo.md": moved}
    out = rebase_links("[tab](setup/logo.md#logo-image)", source, target, pages.get,
                       fragment=fragment)  # fmt: skip
    assert out == "[tab](setup/logo.md#le-logo-une-image)"


def test_a_hand_edit_beside_rewritten_links_is_taken_in_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Targets whose links were rewritten into moved anchors read back as written: a
    translator's edit of another block is the one hand edit taken in, the links stay."""
    root = tmp_path / "site"
    shutil.copytree(Path(__file__).parent / "data/sites/mkdocs-plain", root)
    with Emulator(answer=translate_everything) as emu:
        use_emulator(monkeypatch, emu)
        emu.configure(rate_limits=None)
        assert run(["translate", str(root), "--to", "fr"]) == 0
        target = root / "docs/guide.fr.md"
        written = target.read_text(encoding="utf-8")
        assert "(index.md#configuration)" not in written  # the heading moved: so did the link
        first, rest = written.split("\n\n", 1)
        target.write_text(first + " (relu)\n\n" + rest, encoding="utf-8")
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            assert run(["translate", str(root), "--to", "fr"]) == 0
    assert "1 hand edits taken in" in err.getvalue()
    assert target.read_text(encoding="utf-8") == first + " (relu)\n\n" + rest
