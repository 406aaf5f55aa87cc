"""Prose left unsent in the single files of real MkDocs sites (prints figures; not a test).

    .venv/bin/python benchmarks/bench_prose.py CHECKOUT [CHECKOUT…] [--work DIR] [--only GLOB]

Each CHECKOUT is a copy of an MkDocs site's repository (its ``mkdocs.yml`` and ``docs_dir``;
a ``zensical.yml`` is MkDocs' configuration format under Zensical's name and is read as
``mkdocs.yml``): Python-Markdown/markdown and facelessuser/pymdown-extensions were measured.
The configuration and the docs are copied to a work folder, and every Markdown file under
``docs_dir`` is translated on its own (not as a project: ``fastdesk translate FILE -o OUT``,
so the file's dialect is its project's, MkDocs) against the loopback emulator twice:

- by a model that upper-cases every word it receives outside code spans, fences and URLs
  (tests/translating.py ``upper_everything``): every lowercase letter left in the prose of
  its target is a letter fastdesk never sent;
- (and, for structure, into French by a model that translates every word it receives,
  tests/translating.py: the HTML elements each page renders to, counted by name, compared
  with its source's: a difference is syntax that reached the model)
- by a model that echoes what it receives: the target must be byte-identical to the source
  (the structure kept). Both runs take ``--allow-partial``; the figures say how many blocks
  the echo run wrote as their source because an answer was judged not a translation (such a
  block proves nothing about the structure).

Prose letters, counted the same way in the source and in the target: each file is rendered
to HTML by Python-Markdown with the extensions its site's configuration names and their
options (a Python object an option names is imported when it can be, Material's emoji index
among them; an extension or object not installed here is left out; snippets include only the
link definitions of the site's snippet folders, so references resolve and no other file's text
is counted), and the lowercase letters counted in what a reader reads: the ``title`` and
``description`` of the page's meta-data (YAML front matter, or MultiMarkdown's ``key: value``
lines, which MkDocs reads), text nodes outside ``code``, ``pre``, ``kbd``, ``script``,
``style``, ``svg``, math and a caption's "Figure 1." prefix, plus abbreviations' ``title`` and
images' ``alt``. Not counted: words that are URLs or identifiers (a token holding ``_``,
``/``, ``\\``, ``=``, ``@``, ``<``, ``>``, ``{``, ``}``, ``[``, ``]``, ``#``, ``$``, a dot or
``(`` right after a letter or digit, a lowercase letter followed by a capital, or starting with
``-``), an emoji's ``:shortcode:``, link targets and HTML tags (attributes, not text), a
pymdownx block line an extension not installed here leaves as text, and an admonition's or a
details' title that the extension makes from its type (``!!! note`` shows "Note": nothing to
send).
A file is over when more than 2 % of its source's lowercase prose letters stay lowercase.
"""

from __future__ import annotations

import argparse
import contextlib
import fnmatch
import functools
import html.parser
import importlib
import io
import json
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import markdown
import yaml

from benchmarks.bench_project import paid_tier, use_emulator
from fastdesk.cli.main import run
from fastdesk.config.logs import reset_logging
from tests.emulator import Answer, Emulator
from tests.translating import translate_everything, upper_everything

print = functools.partial(print, flush=True)  # figures as they come
LIMIT = 0.02

# ---- rendering as the site does ---------------------------------------------------------------


class _Lenient(yaml.SafeLoader):
    """mkdocs.yml with its tags: ``!!python/name:`` and ``!!python/object/apply:`` resolved
    when the object can be imported here (Material's emoji index), else None (``!ENV`` too)."""


def _python(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> object:
    kind, _, name = suffix.partition(":")
    module, _, attr = name.rpartition(".")
    try:
        found = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError, ValueError):
        return None
    if kind == "python/name":
        return found
    if kind == "python/object/apply" and isinstance(node, yaml.MappingNode):
        spec = loader.construct_mapping(node, deep=True)
        return found(*spec.get("args", ()), **spec.get("kwds", {}))
    return None


_Lenient.add_multi_constructor(
    "tag:yaml.org,2002:python/", lambda ld, suffix, node: _python(ld, "python/" + suffix, node)
)
_Lenient.add_multi_constructor("", lambda _loader, _suffix, _node: None)


def _options(value: object) -> dict[str, Any]:
    """An extension's options without those naming Python objects not found here (None)."""
    if not isinstance(value, dict):
        return {}
    out: dict[str, Any] = {}
    for key, item in value.items():
        if item is None:
            continue
        if isinstance(item, list) and any(isinstance(x, dict) and None in x.values() for x in item):
            item = [x for x in item if not (isinstance(x, dict) and None in x.values())]
        out[key] = item
    return out


_DEFINITION = re.compile(r"^\[[^\]\n]+\]:[ \t]+\S.*$", re.MULTILINE)


def site_extensions(
    root: Path, config: Path, scratch: Path
) -> tuple[list[str], dict[str, dict[str, Any]]]:
    """The Markdown extensions ``config`` names that can be loaded here, with their options;
    snippets include only the link definitions of the site's snippet folders (a page's
    references resolve, no other file's text is counted)."""
    data = yaml.load(config.read_text(encoding="utf-8"), Loader=_Lenient) or {}
    names: list[str] = []
    configs: dict[str, dict[str, Any]] = {}
    for entry in data.get("markdown_extensions") or []:
        name, value = next(iter(entry.items())) if isinstance(entry, dict) else (entry, None)
        options = _options(value)
        if name == "pymdownx.snippets":
            links = [
                m.group(0)
                for base in options.get("base_path", [])
                if (root / base).is_dir()
                for path in sorted((root / base).rglob("*.md"))
                for m in _DEFINITION.finditer(path.read_text(encoding="utf-8"))
            ]
            (scratch / "refs.md").write_text("\n".join(links) + "\n", encoding="utf-8")
            options = {"base_path": [str(scratch)], "check_paths": False}
            options["auto_append"] = ["refs.md"]
        try:
            markdown.Markdown(extensions=[name], extension_configs={name: options})
        except Exception:  # not installed here (mdx_gh_links, the site's own tools)
            continue
        names.append(name)
        configs[name] = options
    return names, configs


# the meta-data MkDocs reads at a page's top: YAML between --- lines, or MultiMarkdown's
# "key: value" lines up to the first blank line; the title and description are shown
_META = re.compile(
    r"\A(?:---[ \t]*\n(?P<yaml>[\s\S]*?\n)(?:---|\.\.\.)[ \t]*\n"
    r"|(?P<mmd>(?:[A-Za-z][\w-]*:[^\n]*\n(?:[ \t]+\S[^\n]*\n)*)+))"
)
_SHOWN = re.compile(
    r"^(?:title|description)[ \t]*:[ \t]*(?P<value>.*)$", re.MULTILINE | re.IGNORECASE
)


def split_meta(text: str) -> tuple[str, str]:
    """(the shown values of the page's meta-data, one a line; the page without it)."""
    m = _META.match(text)
    if m is None:
        return "", text
    shown = "\n".join(v.group("value").strip().strip("\"'") for v in _SHOWN.finditer(m.group(0)))
    return shown, text[m.end() :]


_SKIP = {"code", "pre", "kbd", "script", "style", "math", "svg"}
# text an extension makes, not the page: math, a caption's "Figure 1." prefix
_MADE = frozenset({"arithmatex", "caption-prefix"})
_VOID = {"br", "hr", "img", "input", "meta", "link", "wbr", "source", "col", "area", "embed"}
_OWN_TITLES = ("admonition-title", "details")


class _Prose(html.parser.HTMLParser):
    """The text a reader reads in rendered HTML (see the module)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, bool, frozenset[str]]] = []  # tag, skipped, classes
        self.parts: list[str] = []
        self.title: list[str] | None = None  # an admonition's title being read
        self.kinds: frozenset[str] = frozenset()

    def _skipped(self) -> bool:
        return any(skip for _tag, skip, _classes in self.stack)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        classes = frozenset((found.get("class") or "").split())
        skip = tag in _SKIP or bool(classes & _MADE)
        if not self._skipped() and not skip:
            if tag == "abbr" and found.get("title"):
                self.parts.append(found["title"] or "")
            if tag == "img" and found.get("alt"):
                self.parts.append(found["alt"] or "")
        if tag in _VOID:
            return
        if "admonition-title" in classes or (tag == "summary" and self.stack):
            parent = next((c for _t, _s, c in reversed(self.stack) if c), frozenset())
            self.title, self.kinds = [], parent
        self.stack.append((tag, skip, classes))

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID:
            return
        while self.stack:
            top, _skip, _classes = self.stack.pop()
            if top == tag:
                break
        if self.title is not None and (tag in ("p", "summary", "div")):
            text = "".join(self.title)
            if text.strip().lower() not in {k.lower() for k in self.kinds}:
                self.parts.append(text)  # a title of its own, not the one made from the type
            self.title = None

    def handle_data(self, data: str) -> None:
        if self._skipped():
            return
        if self.title is not None:
            self.title.append(data)
        else:
            self.parts.append(data)


_IDENTIFIER = re.compile(r"[_/\\=@<>{}\[\]#$]|[\w][.(]|[a-z][A-Z]|^-")
_SHORTCODE = re.compile(r":[\w+-]+:")
_EDGES = "\"'“”‘’«»()[],;:!?.…*"


def prose_words(text: str) -> Iterator[str]:
    """The words of rendered text that are prose (URLs and identifiers left out)."""
    for token in text.split():
        if _SHORTCODE.search(token):
            continue  # an emoji's shortcode (an image's alt text)
        word = token.strip(_EDGES)
        if word and not _IDENTIFIER.search(word):
            yield word


_BLOCK_LINE = re.compile(r"^[ \t]*/{3,}.*$", re.MULTILINE)


def prose_parts(source: str, render: Callable[[str], str]) -> list[str]:
    """The texts a reader reads of ``source`` rendered by ``render`` (its shown meta-data
    first)."""
    shown, body = split_meta(source)
    reader = _Prose()
    reader.feed(render(body))
    reader.close()
    # a pymdownx block line of an extension not installed here (the site's own) is syntax
    return [shown, *(_BLOCK_LINE.sub("", part) for part in reader.parts)]


def lowercase_prose(source: str, render: Callable[[str], str]) -> int:
    """How many lowercase letters the prose of ``source`` holds, rendered by ``render``."""
    parts = prose_parts(source, render)
    return sum(ch.islower() for part in parts for w in prose_words(part) for ch in w)


# ---- translating each file on its own ---------------------------------------------------------


@dataclass
class Row:
    name: str
    total: int = 0  # lowercase prose letters in the source
    left: int = 0  # still lowercase in the upper-cased target
    upper_exit: int = -1
    echo_exit: int = -1
    identical: bool = False
    echo_kept: int = 0  # blocks the echo run wrote as their source (judged not translated)
    tags: str = ""  # the rendered tags a translation into French lost or gained, if any

    @property
    def share(self) -> float:
        return self.left / self.total if self.total else 0.0


def _translate_each(
    files: list[Path], out: Path, answer: Answer | None, home: Path, lang: str = "en"
) -> list[tuple[int, int]]:
    """``fastdesk translate FILE -o OUT --to en --allow-partial`` for each file, in-process,
    against the emulator answering with ``answer`` (None: an echo): (exit status, blocks
    written as their source because the answer was judged not translated)."""
    done = []
    with Emulator(answer=answer) as emu:
        emu.configure(rate_limits=None)
        use_emulator(emu, home)
        paid_tier(home, ("*", "openai/gpt-oss-120b", "openai/gpt-oss-20b", "qwen/qwen3.6-27b"))
        report = home / "report.json"
        for path in files:
            target = out / path.name
            args = ["translate", str(path), "-o", str(target), "--to", lang, "--no-memory"]
            args += ["--allow-partial", "--report", str(report), "--concurrency", "8"]
            with contextlib.redirect_stderr(io.StringIO()):
                code = run(args)
            reset_logging()
            kept = 0
            with contextlib.suppress(OSError, ValueError, KeyError, IndexError):
                kept = len(
                    json.loads(report.read_text(encoding="utf-8"))["documents"][0]["not_translated"]
                )
            done.append((code, kept))
    return done


def _sites(checkouts: list[Path], work: Path) -> list[tuple[str, Path, Path]]:
    """Each checkout's configuration and docs copied under ``work``: (name, root, docs)."""
    sites = []
    for checkout in checkouts:
        names = ("mkdocs.yml", "mkdocs.yaml", "zensical.yml")
        config = next(
            (checkout / n for n in names if (checkout / n).is_file()), checkout / names[0]
        )
        data = yaml.load(config.read_text(encoding="utf-8"), Loader=_Lenient) or {}
        docs = str(data.get("docs_dir") or "docs")
        root = work / checkout.name
        shutil.copytree(checkout / docs, root / docs)
        shutil.copy(config, root / "mkdocs.yml")
        (root / ".git").mkdir()  # the top of the project's work tree, as in a clone
        sites.append((checkout.name, root, root / docs))
    return sites


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("checkouts", type=Path, nargs="+")
    parser.add_argument("--work", type=Path, default=None, help="keep the work folder here")
    parser.add_argument("--only", default="*", help="files whose path matches this glob")
    parser.add_argument("--worst", type=int, default=12, help="list this many worst files")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp) / "work"
        shutil.rmtree(work, ignore_errors=True)
        rows: list[Row] = []
        started = time.perf_counter()
        for name, root, docs in _sites(args.checkouts, work):
            scratch = Path(tmp) / f"snippets-{name}"
            scratch.mkdir()
            names, configs = site_extensions(root, root / "mkdocs.yml", scratch)

            render = functools.partial(
                markdown.markdown, extensions=names, extension_configs=configs
            )

            files = sorted(
                p
                for p in docs.rglob("*.md")
                if fnmatch.fnmatch(f"{name}/{p.relative_to(docs)}", args.only)
            )
            for i, group in enumerate(_by_name(files)):
                up, echo = work / f"upper-{name}-{i}", work / f"echo-{name}-{i}"
                for folder in (up, echo):
                    folder.mkdir(parents=True)
                french = work / f"fr-{name}-{i}"
                french.mkdir(parents=True)
                upper_codes = _translate_each(group, up, upper_everything, Path(tmp) / "home")
                echo_codes = _translate_each(group, echo, None, Path(tmp) / "home")
                home = Path(tmp) / "home"
                _translate_each(group, french, translate_everything, home, "fr")
                for path, (u_code, _), (e_code, kept) in zip(
                    group, upper_codes, echo_codes, strict=True
                ):
                    source = path.read_text(encoding="utf-8")
                    row = Row(f"{name}/{path.relative_to(docs)}", upper_exit=u_code)
                    row.echo_exit, row.echo_kept = e_code, kept
                    row.total = lowercase_prose(source, render)
                    upper = up / path.name
                    if upper.exists():
                        row.left = lowercase_prose(upper.read_text(encoding="utf-8"), render)
                    else:
                        row.left = row.total
                    row.identical = (echo / path.name).exists() and (
                        echo / path.name
                    ).read_bytes() == path.read_bytes()
                    row.tags = _tags_changed(source, french / path.name, render)
                    rows.append(row)
            print(f"{name}: {len(files)} files ({', '.join(names)})")
        _report(rows, args.worst, time.perf_counter() - started)


_TAG = re.compile(r"<([a-z][a-z0-9]*)[\s>/]")


def _tags_changed(source: str, target: Path, render: Callable[[str], str]) -> str:
    """The HTML elements a page lost or gained in French (its structure: "" when the same)."""
    before = Counter(_TAG.findall(render(source)))
    text = target.read_text(encoding="utf-8") if target.exists() else ""
    after = Counter(_TAG.findall(render(text)))
    lost, gained = before - after, after - before
    parts = [f"-{n} {tag}" for tag, n in sorted(lost.items())]
    return " ".join(parts + [f"+{n} {tag}" for tag, n in sorted(gained.items())])


def _by_name(files: list[Path]) -> Iterator[list[Path]]:
    """Groups of files with distinct names (each group's targets share a folder)."""
    left = list(files)
    while left:
        first = {p.name: p for p in reversed(left)}  # the first file of each name
        group = [p for p in left if first[p.name] == p]
        yield group
        left = [p for p in left if p not in group]


def _report(rows: list[Row], worst: int, seconds: float) -> None:
    over = [r for r in rows if r.share > LIMIT]
    identical = sum(r.identical for r in rows)
    total, left = sum(r.total for r in rows), sum(r.left for r in rows)
    kept = [r for r in rows if r.echo_kept]
    print(
        f"{len(rows)} files in {seconds:.0f} s: {len(over)} over {LIMIT:.0%} of their lowercase "
        f"prose letters left; {left} of {total} left in all ({left / max(total, 1):.2%}); "
        f"echo byte-identical {identical}/{len(rows)} ({len(kept)} with blocks whose echo was "
        f"judged not translated, written as their source: {sum(r.echo_kept for r in kept)})"
    )
    for r in sorted(rows, key=lambda r: -r.share)[:worst]:
        print(
            f"  {r.name:<55} {r.left:>5} of {r.total:>6} ({r.share:6.2%})"
            f"  exit {r.upper_exit}/{r.echo_exit}{'' if r.identical else '  NOT IDENTICAL'}"
        )
    for r in rows:
        if not r.identical and r not in sorted(rows, key=lambda r: -r.share)[:worst]:
            print(f"  {r.name}: echo NOT IDENTICAL (exit {r.echo_exit})")
    changed = [r for r in rows if r.tags]
    print(
        f"translated into French by a model that translates every word: {len(changed)} of "
        f"{len(rows)} files render with other HTML elements than their source"
    )
    for r in changed:
        print(f"  {r.name}: {r.tags}")


if __name__ == "__main__":
    main()
