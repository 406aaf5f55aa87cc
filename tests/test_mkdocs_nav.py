"""MkDocs ``nav`` titles translated into mkdocs-static-i18n's ``nav_translations``.

The titles go through the engine and the memory like any text; mkdocs.yml keeps every byte it
had (comments, order, quoting, line endings) and gains only the entries a language lacked; an
entry already there (a translator's) is kept; a file outside the project is never written.
"""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path

import pytest

from fastdesk.cli.main import run
from fastdesk.project.mkdocs_config import (
    NavError,
    markdown_settings,
    nav_titles,
    with_nav_translations,
)
from tests.emulator import Emulator
from tests.project_kit import write

CONFIG = """\
site_name: Docs  # the site
nav:
  - Home: index.md
  # the guide's pages
  - 'Getting started':
      - "Set up: quickly": setup.md
      - upgrade.md
  - Blog: https://example.com/blog/
plugins:
  - search
  - i18n:
      docs_structure: suffix
      languages:
        - locale: en
          default: true
          name: English
        - name: Français   # French
          locale: fr
          build: true
  - minify
markdown_extensions:
  - toc:
      permalink: true   # attr_list stays off
"""


def test_nav_titles_are_read_from_the_nav_only() -> None:
    assert nav_titles(CONFIG) == ["Home", "Getting started", "Set up: quickly", "Blog"]
    assert nav_titles("site_name: x\n") == []


def test_entries_are_added_and_every_other_byte_kept() -> None:
    text, have = with_nav_translations(CONFIG, "fr", {"Home": "Accueil", "Blog": "Le blog"})
    assert have == {"Home": "Accueil", "Blog": "Le blog"}
    assert text == CONFIG.replace(
        "          build: true\n",
        '          build: true\n          nav_translations:\n            "Home": "Accueil"\n'
        '            "Blog": "Le blog"\n',
    )
    again, have = with_nav_translations(text, "fr", {"Home": "Maison", 'Set up: "x"': "Régler"})
    assert have == {"Home": "Accueil", "Blog": "Le blog", 'Set up: "x"': "Régler"}
    assert again == text.replace(
        '"Blog": "Le blog"\n', '"Blog": "Le blog"\n            "Set up: \\"x\\"": "Régler"\n'
    )  # the translator's (or an earlier run's) Accueil kept
    crlf = CONFIG.replace("\n", "\r\n")
    assert with_nav_translations(crlf, "fr", {"Home": "Accueil"})[0] == text.replace(
        '            "Blog": "Le blog"\n', ""
    ).replace("\n", "\r\n")
    assert with_nav_translations(CONFIG, "de", {"Home": "Start"}) == (CONFIG, None)


def test_an_empty_or_flow_style_nav_translations() -> None:
    empty = CONFIG.replace("          build: true\n", "          nav_translations: {}\n")
    text, _have = with_nav_translations(empty, "fr", {"Home": "Accueil"})
    assert '          nav_translations:\n            "Home": "Accueil"\n  - minify' in text
    flow = CONFIG.replace("          build: true\n", "          nav_translations: {Home: A}\n")
    with pytest.raises(NavError, match="flow-style"):
        with_nav_translations(flow, "fr", {"Blog": "B"})


def test_settings_read_the_extensions_not_comments() -> None:
    settings = markdown_settings(CONFIG)
    assert not settings.attr_list and settings.tab_slugify is None
    assert settings.toc_slugify is not None and settings.toc_slugify("Héllo, wörld!", "-") == (
        "hello-world"
    )
    custom = "markdown_extensions:\n  - attr_list\n  - toc:\n      slugify: !!python/name:my.slug\n"
    assert markdown_settings(custom).attr_list and markdown_settings(custom).toc_slugify is None


def _project(root: Path) -> None:
    write(root / "mkdocs.yml", CONFIG)
    write(root / "docs/index.md", "# Home\n\nThe first page of the site.\n")


def test_translate_writes_the_nav_titles_through_the_memory(
    tmp_path: Path, translating: Emulator
) -> None:
    root = tmp_path / "site"
    _project(root)
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert run(["translate", str(root), "--to", "fr"]) == 0
    line = "fastdesk translate: mkdocs.yml: 4 nav titles translated into fr's nav_translations"
    assert line in err.getvalue().splitlines()
    config = (root / "mkdocs.yml").read_text(encoding="utf-8")
    have = with_nav_translations(config, "fr", {})[1] or {}
    assert set(have) == {"Home", "Getting started", "Set up: quickly", "Blog"}
    assert all(value != key for key, value in have.items())
    assert with_nav_translations(CONFIG, "fr", have)[0] == config  # only those lines added
    sent = translating.request_count

    # the entries gone, no page stale (a project translated before its titles were): the
    # titles again, from the memory, none sent
    write(root / "mkdocs.yml", CONFIG)
    assert run(["translate", str(root), "--to", "fr"]) == 0
    assert (root / "mkdocs.yml").read_text(encoding="utf-8") == config
    assert translating.request_count == sent
    assert run(["translate", str(root), "--to", "fr"]) == 0  # nothing lacking: nothing done
    assert (root / "mkdocs.yml").read_text(encoding="utf-8") == config


def test_a_config_outside_the_project_is_not_written(tmp_path: Path, translating: Emulator) -> None:
    outside = write(tmp_path / "elsewhere.yml", CONFIG)
    root = tmp_path / "site"
    _project(root)
    (root / "mkdocs.yml").unlink()
    os.symlink(outside, root / "mkdocs.yml")
    run(["translate", str(root), "--to", "fr"])
    assert outside.read_text(encoding="utf-8") == CONFIG
    assert (root / "mkdocs.yml").is_symlink()
