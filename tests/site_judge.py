"""What a site generator built, counted from its HTML: the judge of a translated docs site.

A docs team publishes the site its generator builds, not Markdown. So the tests and the
benchmark that translate a site build it with the generator itself (MkDocs + Material +
mkdocs-static-i18n, Hugo, Docusaurus) before and after, and compare what a reader gets per
language: images, links, broken links, broken anchors, headings' anchors, code blocks (and
their text), admonitions, content tabs, code annotations. Only the standard library reads the
HTML, so the judge depends on nothing the generators share.
"""

from __future__ import annotations

import posixpath
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

__all__ = ["Page", "SiteCounts", "count_site", "read_page"]

# classes that mark a generator's admonitions, content tabs and code annotations
_ADMONITION = {"admonition", "theme-admonition"}  # MkDocs/Material, Docusaurus
_TABS = {"tabbed-set", "tabs-container"}  # Material (pymdownx.tabbed), Docusaurus
_ANNOTATION = {"annotate", "md-annotation"}  # Material's code annotations


@dataclass
class Page:
    """One built HTML page: what a reader of it gets."""

    path: str  # relative to the site's folder, POSIX
    ids: set[str] = field(default_factory=set)
    heading_ids: list[str] = field(default_factory=list)
    images: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    code: list[str] = field(default_factory=list)  # the text of each <pre>
    admonitions: int = 0
    tabs: int = 0
    annotations: int = 0
    title: str = ""  # the document's <title>
    description: str = ""  # its meta description


class _Reader(HTMLParser):
    def __init__(self, page: Page) -> None:
        super().__init__(convert_charrefs=True)
        self.page = page
        self._pre = 0
        self._code: list[str] = []
        self._title: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        page = self.page
        if a.get("id"):
            page.ids.add(a["id"])
            if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
                page.heading_ids.append(a["id"])
        if a.get("name") and tag == "a":
            page.ids.add(a["name"])
        classes = set(a.get("class", "").split())
        page.admonitions += bool(classes & _ADMONITION) or (tag == "details")
        page.tabs += bool(classes & _TABS)
        page.annotations += bool(classes & _ANNOTATION)
        if tag == "title" and not page.title:
            self._title = []
        elif tag == "meta" and a.get("name") == "description":
            page.description = a.get("content", "")
        if tag == "img" and a.get("src"):
            page.images.append(a["src"])
        elif tag == "a" and "href" in a:
            page.links.append(a["href"])
        elif tag == "pre":
            self._pre += 1
            if self._pre == 1:
                self._code = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "title" and self._title is not None:
            self.page.title, self._title = "".join(self._title).strip(), None
        if tag == "pre" and self._pre:
            self._pre -= 1
            if not self._pre:
                self.page.code.append("".join(self._code))

    def handle_data(self, data: str) -> None:
        if self._title is not None:
            self._title.append(data)
        if self._pre:
            self._code.append(data)


def read_page(site: Path, path: Path) -> Page:
    page = Page(path.relative_to(site).as_posix())
    reader = _Reader(page)
    reader.feed(path.read_text(encoding="utf-8", errors="replace"))
    reader.close()
    return page


@dataclass
class SiteCounts:
    """Totals over a set of built pages (one language's)."""

    pages: int = 0
    images: int = 0
    links: int = 0
    broken_links: int = 0
    broken_anchors: int = 0
    headings: int = 0
    code_blocks: int = 0
    admonitions: int = 0
    tabs: int = 0
    annotations: int = 0
    code_text: Counter[str] = field(default_factory=Counter)
    broken: list[str] = field(default_factory=list)  # each broken link: "page: kind href"

    def figures(self) -> dict[str, int]:
        return {
            k: v for k, v in vars(self).items() if isinstance(v, int) and not isinstance(v, bool)
        }


def count_site(site: Path, pages: Iterable[Path], base: str = "/") -> SiteCounts:
    """Counts over ``pages`` (HTML files under the built ``site``); links are resolved in
    ``site`` as a web server would serve it at ``base`` (folders by their index.html)."""
    read = {p: read_page(site, p) for p in pages}
    cache: dict[Path, Page] = dict(read)
    out = SiteCounts(pages=len(read))
    for path, page in read.items():
        out.images += len(page.images)
        out.links += len(page.links)
        out.headings += len(page.heading_ids)
        out.code_blocks += len(page.code)
        out.code_text.update(page.code)
        out.admonitions += page.admonitions
        out.tabs += page.tabs
        out.annotations += page.annotations
        for href in page.links:
            problem = _check_link(site, path, href, base, cache)
            if problem == "link":
                out.broken_links += 1
            elif problem == "anchor":
                out.broken_anchors += 1
            if problem:
                out.broken.append(f"{page.path}: {problem} {href}")
    return out


def _check_link(site: Path, page: Path, href: str, base: str, cache: dict[Path, Page]) -> str:
    """ "" (fine or not ours to judge), "link" (no such file) or "anchor" (no such id)."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or href.startswith(("mailto:", "javascript:")):
        return ""
    path, fragment = unquote(parts.path), unquote(parts.fragment)
    if not path:
        target = page
    else:
        if path.startswith("/"):
            if not path.startswith(base):
                return ""
            rel = path[len(base) :]
        else:
            rel = posixpath.normpath(posixpath.join(page.parent.relative_to(site).as_posix(), path))
            if rel.startswith(".."):
                return "link"
        found = _served(site, rel, path.endswith("/"))
        if found is None:
            return "link"
        target = found
    if not fragment or target.suffix != ".html":
        return ""
    if target not in cache:
        cache[target] = read_page(site, target)
    return "" if fragment in cache[target].ids else "anchor"


def _served(site: Path, rel: str, folder: bool) -> Path | None:
    here = site / rel if rel not in ("", ".") else site
    for candidate in (
        [here / "index.html"] if folder else [here, here / "index.html", Path(f"{here}.html")]
    ):
        if candidate.is_file():
            return candidate
    return None
