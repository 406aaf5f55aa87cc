"""Where a docs project keeps its sources and each language's targets.

A layout is a list of roots, each a source folder and a target template; every i18n scheme the
common site generators use reduces to one:

===================  =========================  ===================================================
layout               source folder              target template
===================  =========================  ===================================================
mkdocs-suffix        docs                       ``docs/{dir}{stem}.{lang}{ext}`` (page.fr.md)
mkdocs-folder        docs/<src>                 ``docs/{lang}/{path}``
docusaurus           docs, blog, src/pages      ``i18n/{lang}/docusaurus-plugin-content-docs/
                                                current/{path}`` (blog: ``…-content-blog/{path}``)
hugo-folder          content/<src>              ``content/{lang}/{path}``
hugo-suffix          content                    ``content/{dir}{stem}.{lang}{ext}``
mirror               <src>                      ``{lang}/{path}``
===================  =========================  ===================================================

The layout comes from ``.fastdesk.toml`` at the project root or is detected from the generator's
configuration file and the folders present. Only Markdown files are sources; the rest is left
alone.
"""

from __future__ import annotations

import logging
import os
import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path, PurePosixPath

from fastdesk.config.fileio import (
    MAX_STATE_BYTES,
    FileError,
    atomic_write_text,
    os_reason,
    read_confined,
)
from fastdesk.document.languages import LANGUAGES, is_bcp47, primary
from fastdesk.project.confine import relative_problem, template_problem, within
from fastdesk.project.mkdocs_config import markdown_settings
from fastdesk.review.export import is_language_suffix

__all__ = [
    "CONFIG_NAME",
    "LAYOUTS",
    "MARKERS",
    "Project",
    "ProjectError",
    "Root",
    "enclosing_project",
    "find_project",
    "publish_hint",
    "set_languages",
]

log = logging.getLogger("fastdesk")

CONFIG_NAME = ".fastdesk.toml"
MARKDOWN = frozenset({".md", ".markdown"})
_MDX = frozenset({".mdx"})
_SKIP_DIRS = frozenset({".git", ".fastdesk", "node_modules", "site", "public", "build", ".venv"})
_DOCUSAURUS = "i18n/{lang}/docusaurus-plugin-content-"

LAYOUTS: dict[str, tuple[tuple[str, str], ...]] = {
    "mkdocs-suffix": (("{docs}", "{docs}/{dir}{stem}.{lang}{ext}"),),
    "mkdocs-folder": (("{docs}/{src}", "{docs}/{lang}/{path}"),),
    "docusaurus": (
        ("docs", _DOCUSAURUS + "docs/current/{path}"),
        ("blog", _DOCUSAURUS + "blog/{path}"),
        ("src/pages", _DOCUSAURUS + "pages/{path}"),  # Markdown pages (not .js ones)
    ),
    "hugo-folder": (("content/{src}", "content/{lang}/{path}"),),
    "hugo-suffix": (("content", "content/{dir}{stem}.{lang}{ext}"),),
    "mirror": (("{src}", "{lang}/{path}"),),
}
_DIALECT = {"mkdocs": "mkdocs", "docusaurus": "docusaurus", "hugo": "hugo", "mirror": "commonmark"}
_CONFIG_KEYS = frozenset({"source", "languages", "layout", "dialect", "docs_dir", "roots"})


_HOME_NAMES = ("index", "readme", "_index", "intro")  # intro: Docusaurus' first docs page
_HOME_NAMES_HUGO = ("_index", "index", "readme")


class ProjectError(Exception):
    """No usable layout, or a bad .fastdesk.toml: one line for the user (exit status 2)."""


@dataclass(frozen=True)
class Root:
    """Sources under ``source`` (relative to the project root); targets by ``target``."""

    source: str
    target: str


@dataclass(frozen=True)
class Project:
    root: Path
    layout: str
    source_lang: str
    languages: tuple[str, ...]
    roots: tuple[Root, ...]
    dialect: str = "commonmark"
    extensions: frozenset[str] = field(default=MARKDOWN)
    # the generator takes explicit heading ids ({#id}, MkDocs' attr_list { #id }): translated
    # headings keep their source's anchors that way (fastdesk.document.syntax.keep_anchor)
    heading_ids: bool = False
    # Hugo's Goldmark: definition terms get ids too (autoDefinitionTermID), numbered with the
    # headings'; and the rules its ids follow (autoHeadingIDType)
    term_ids: bool = False
    id_type: str = "github"

    def sources(self) -> list[PurePosixPath]:
        """Every source file, relative to the root, in a stable order (read once)."""
        return list(self._sources)

    def home_page(self) -> PurePosixPath | None:
        """The page a reader starts on, which the window opens first: the shallowest index
        page (Hugo: _index.md, then index.md; MkDocs, Docusaurus, folders: index.md, then
        README.md, _index.md, intro.md), else the first source; None without sources."""
        sources = self._sources
        names = _HOME_NAMES_HUGO if self.dialect == "hugo" else _HOME_NAMES
        homes = [s for s in sources if s.stem.lower() in names]
        if not homes:
            return sources[0] if sources else None
        return min(homes, key=lambda s: (len(s.parts), names.index(s.stem.lower()), s))

    def pages(self, lang: str) -> dict[PurePosixPath, PurePosixPath]:
        """Source → its target in ``lang``, for every source (links between pages)."""
        if lang not in self._pages:
            self._pages[lang] = {s: self.target(s, lang) for s in self._sources}
        return self._pages[lang]

    @cached_property
    def _pages(self) -> dict[str, dict[PurePosixPath, PurePosixPath]]:
        return {}

    @cached_property
    def _sources(self) -> tuple[PurePosixPath, ...]:
        out: set[PurePosixPath] = set()
        for root in self.roots:
            for path in _walk(self.root / root.source, self.extensions):
                rel = PurePosixPath(path.relative_to(self.root).as_posix())
                if not self._reads_as_source(root, rel):
                    continue
                if self.inside(rel):
                    out.add(rel)
        return tuple(sorted(out))

    def inside(self, rel: PurePosixPath | str) -> bool:
        """Whether ``rel`` (relative to the root) lies inside the project, symlinks followed;
        when it does not, it is remembered (:meth:`escapes`) and must be neither read nor
        written."""
        if within(self.root, self.root / rel, self._folders):
            return True
        self._escapes.add(PurePosixPath(rel).as_posix())
        return False

    def escapes(self) -> list[str]:
        """The paths met so far that lead outside the project through a symlink (said once
        per run)."""
        return sorted(self._escapes)

    @cached_property
    def _escapes(self) -> set[str]:
        return set()

    @cached_property
    def _folders(self) -> dict[Path, Path]:
        """Each folder's resolved path, looked up once (see confine.within)."""
        return {}

    def reads_as_source(self, path: PurePosixPath) -> bool:
        """Whether a Markdown file at ``path`` (relative to the root) would be read as a source
        page: under a source folder, not where targets go (docs/en/guide.fr.md in a folder
        layout is a new source page; docs/guide.fr.md in a suffix layout is a target)."""
        if path.suffix.lower() not in self.extensions or ".." in path.parts:
            return False
        return any(
            _under(path, PurePosixPath(root.source)) and self._reads_as_source(root, path)
            for root in self.roots
        )

    def _reads_as_source(self, root: Root, rel: PurePosixPath) -> bool:
        if any(_under(rel, t) for t in self._target_dirs):
            return False
        return not self._is_suffixed_target(root, rel)

    def target(self, source: PurePosixPath, lang: str) -> PurePosixPath:
        """The target of ``source`` (relative to the root) in ``lang``."""
        root = self._root_of(source)
        path = PurePosixPath(source).relative_to(root.source) if root.source else source
        stem, ext = path.stem, path.suffix
        base, dot, last = stem.rpartition(".")
        if dot and base and last.lower() == self.source_lang.lower():
            stem = base  # page.en.md → page.fr.md
        parent = path.parent.as_posix()
        fields = {
            "lang": lang,
            "path": path.as_posix(),
            "dir": "" if parent == "." else parent + "/",
            "stem": stem,
            "ext": ext,
        }
        return PurePosixPath(root.target.format(**fields))

    def source_of(self, target: PurePosixPath, lang: str) -> PurePosixPath | None:
        """The source whose target in ``lang`` is ``target`` (None: not a target)."""
        for source in self.sources():
            if self.target(source, lang) == target:
                return source
        return None

    def _root_of(self, source: PurePosixPath) -> Root:
        for root in sorted(self.roots, key=lambda r: -len(r.source)):
            if not root.source or _under(source, PurePosixPath(root.source)):
                return root
        raise ProjectError(f"{source}: not under a source folder of this project")

    @cached_property
    def _target_dirs(self) -> list[PurePosixPath]:
        """Folders that hold only targets (folder layouts): never walked for sources."""
        dirs = []
        for root in self.roots:
            head = root.target.split("{lang}")[0]
            if "{path}" in root.target and "/" in root.target.split("{lang}", 1)[1]:
                for lang in self.languages:
                    tail = root.target.split("{lang}", 1)[1].split("{path}")[0]
                    dirs.append(PurePosixPath(f"{head}{lang}{tail}".rstrip("/")))
        return [d for d in dirs if d.as_posix() not in ("", ".")]

    def _is_suffixed_target(self, root: Root, rel: PurePosixPath) -> bool:
        """page.fr.md next to page.md (suffix layouts): a target, unless fr is the source."""
        if "{stem}" not in root.target:
            return False
        base, dot, last = rel.stem.rpartition(".")
        return bool(dot and base) and is_language_suffix(last) and last != self.source_lang


def _under(path: PurePosixPath, folder: PurePosixPath) -> bool:
    return folder.as_posix() in ("", ".") or path.is_relative_to(folder)


def _walk(base: Path, extensions: frozenset[str]) -> Iterator[Path]:
    if not base.is_dir():
        return
    for folder, dirs, files in os.walk(base):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
        for name in sorted(files):
            if Path(name).suffix.lower() in extensions:
                yield Path(folder) / name


# ---- finding the layout -----------------------------------------------------------------------


def find_project(folder: str | os.PathLike[str], languages: tuple[str, ...] = ()) -> Project:
    """The project at ``folder``: from its .fastdesk.toml, else detected. ``languages`` (from
    ``--to``) replaces the languages it names."""
    root = Path(folder).resolve()
    if not root.is_dir():
        raise ProjectError(f"{folder}: not a folder")
    config = root / CONFIG_NAME
    if config.is_symlink() and not within(root, config):
        raise ProjectError(f"{config}: leads outside the project (a symlink to {_link(config)})")
    project = _from_config(root, config) if config.is_file() else _detect(root)
    if languages:
        for code in languages:
            _check_code(code, "--to", "language")
        project = replace(
            project, languages=tuple(x for x in languages if x != project.source_lang)
        )
        _check_roots(project.roots, project.languages, "--to")
    return project


_LANGUAGES_LINE = re.compile(r"^languages[ \t]*=.*$", re.MULTILINE)


def set_languages(root: Path, languages: tuple[str, ...]) -> Path:
    """Name the project's target languages in its .fastdesk.toml (made when there is none;
    an existing one keeps every other line): what the window offers for a project that names
    none. Raises ProjectError for a code that is not BCP-47 or a file that cannot be used."""
    for code in languages:
        _check_code(code, "languages", "language")
    path = root / CONFIG_NAME
    if path.is_symlink() and not within(root, path):
        raise ProjectError(f"{path}: leads outside the project (a symlink to {_link(path)})")
    line = "languages = [" + ", ".join(f'"{code}"' for code in languages) + "]"
    text = _config_text(root, CONFIG_NAME, errors="strict") if path.is_file() else ""
    if _LANGUAGES_LINE.search(text):
        text = _LANGUAGES_LINE.sub(line, text, count=1)
    else:  # first, above any [[roots]] table it would otherwise belong to
        text = f"{line}\n{text}"
    try:
        tomllib.loads(text)
        atomic_write_text(path, text)
    except tomllib.TOMLDecodeError as exc:
        raise ProjectError(f"{path}: cannot be read ({exc})") from None
    except OSError as exc:
        raise ProjectError(f"{path}: not written ({os_reason(exc)})") from None
    return path


def _link(path: Path) -> str:
    try:
        return os.readlink(path)
    except OSError:
        return "?"


def _check_code(code: str, origin: object, key: str) -> None:
    """A language code becomes part of file and folder names: BCP-47 only."""
    if not is_bcp47(code):
        raise ProjectError(
            f"{origin}: {key} {code!r} is not a BCP-47 language code (such as fr or pt-BR)"
        )


def _check_roots(roots: tuple[Root, ...], langs: tuple[str, ...], origin: object) -> None:
    """Source folders and target templates that stay inside the project, for every language."""
    for root in roots:
        problem = relative_problem(root.source)
        if problem is not None:
            raise ProjectError(f"{origin}: source folder {root.source!r} {problem}")
        problem = template_problem(root.target, langs)
        if problem is not None:
            raise ProjectError(f"{origin}: target {root.target!r} {problem}")


def _from_config(root: Path, path: Path) -> Project:
    try:
        data = tomllib.loads(_config_text(root, path.name, errors="strict"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ProjectError(f"{path}: cannot be read ({exc})") from None
    unknown = set(data) - _CONFIG_KEYS
    if unknown:
        keys = ", ".join(sorted(unknown))
        raise ProjectError(
            f"{path}: unknown key(s) {keys} (known: {', '.join(sorted(_CONFIG_KEYS))})"
        )
    detected = _sniff(root)
    source = _text(data.get("source", detected.source_lang if detected else "en"), path, "source")
    layout = _text(data.get("layout", detected.layout if detected else "custom"), path, "layout")
    docs = _text(data.get("docs_dir", "docs"), path, "docs_dir")
    _check_folder(docs, path, "docs_dir")
    if "roots" in data:
        roots = _roots(data["roots"], path)
    elif layout in LAYOUTS:
        roots = _layout_roots(layout, docs, source)
    else:
        known = ", ".join(LAYOUTS)
        raise ProjectError(f"{path}: layout {layout!r} is not one of {known} (or give [[roots]])")
    langs = data.get("languages", list(detected.languages) if detected else [])
    if not isinstance(langs, list) or not all(isinstance(x, str) for x in langs):
        raise ProjectError(f'{path}: languages should be a list of codes, e.g. ["fr", "de"]')
    family = layout.split("-")[0]
    dialect = _text(data.get("dialect", _DIALECT.get(family, "commonmark")), path, "dialect")
    return _project(root, layout, source, tuple(langs), roots, dialect, path)


def _check_folder(value: str, origin: object, key: str) -> None:
    problem = relative_problem(value)
    if problem is not None:
        raise ProjectError(f"{origin}: {key} {value!r} {problem}")


def _text(value: object, path: Path, key: str) -> str:
    if not isinstance(value, str) or not value:
        raise ProjectError(f"{path}: {key} should be text")
    return value


def _roots(value: object, path: Path) -> tuple[Root, ...]:
    if not isinstance(value, list) or not value:
        raise ProjectError(f"{path}: roots should be a list of {{source, target}} tables")
    roots = []
    for item in value:
        if not (isinstance(item, dict) and isinstance(item.get("source"), str)):
            raise ProjectError(f'{path}: each of roots needs source = "folder"')
        target = item.get("target")
        if not isinstance(target, str) or "{lang}" not in target:
            raise ProjectError(f"{path}: each of roots needs a target with {{lang}} in it")
        roots.append(Root(item["source"].strip("/"), target))
    return tuple(roots)


def _layout_roots(layout: str, docs: str, source: str) -> tuple[Root, ...]:
    return tuple(
        Root(s.format(docs=docs, src=source).strip("/"), t.replace("{docs}", docs))
        for s, t in LAYOUTS[layout]
    )


def _project(
    root: Path,
    layout: str,
    source: str,
    langs: tuple[str, ...],
    roots: tuple[Root, ...],
    dialect: str,
    origin: object,
) -> Project:
    """The project, its languages and folders checked: ``origin`` (the file they come from)
    is named when one is refused."""
    _check_code(source, origin, "source language")
    for code in langs:
        _check_code(code, origin, "language")
    exts = MARKDOWN | _MDX if dialect == "docusaurus" else MARKDOWN
    langs = tuple(lang for lang in dict.fromkeys(langs) if lang != source)
    _check_roots(roots, langs, origin)
    term_ids, id_type = _hugo_ids(root) if dialect == "hugo" else (False, "github")
    return Project(
        root,
        layout,
        source,
        langs,
        roots,
        dialect,
        exts,
        _heading_ids(root, dialect),
        term_ids,
        id_type,
    )


_TERM_IDS = re.compile(
    r"^[ \t]*['\"]?autoDefinitionTermID['\"]?[ \t]*[:=][ \t]*true\b", re.M | re.I
)
_ID_TYPE = re.compile(
    r"^[ \t]*['\"]?autoHeadingIDType['\"]?[ \t]*[:=][ \t]*['\"]?([\w-]+)", re.M | re.I
)


def _hugo_ids(root: Path) -> tuple[bool, str]:
    """Hugo's ``markup.goldmark.parser`` settings that decide its ids (in TOML, YAML or
    JSON, at the root or in ``config/_default``): whether definition terms get ids, and
    the id type (``github`` unless set)."""
    names = ("hugo.toml", "hugo.yaml", "hugo.yml", "hugo.json", "config.toml", "config.yaml")
    for folder in ("", "config/_default/"):
        for name in (*names, "markup.toml", "markup.yaml", "markup.json"):
            if not (root / folder / name).is_file():
                continue
            try:
                text = _config_text(root, folder + name)
            except ProjectError:
                continue
            found = _ID_TYPE.search(text)
            if _TERM_IDS.search(text) or found:
                return bool(_TERM_IDS.search(text)), found[1].lower() if found else "github"
    return False, "github"


def _heading_ids(root: Path, dialect: str) -> bool:
    """Whether the generator reads an explicit heading id: Hugo's Goldmark and Docusaurus do;
    MkDocs when its configuration turns attr_list on."""
    if dialect in ("hugo", "docusaurus"):
        return True
    if dialect != "mkdocs":
        return False
    for name in ("mkdocs.yml", "mkdocs.yaml"):
        if (root / name).is_file():
            try:  # the extension turned on (not a comment that names it)
                return markdown_settings(_config_text(root, name)).attr_list
            except ProjectError:
                return False
    return False


def _known(code: str) -> bool:
    return code in LANGUAGES or primary(code) in {primary(c) for c in LANGUAGES}


def _lang_dirs(folder: Path) -> list[str]:
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if p.is_dir() and _known(p.name))


def _suffix_langs(folder: Path) -> list[str]:
    found: set[str] = set()
    for path in _walk(folder, MARKDOWN):
        base, dot, last = path.stem.rpartition(".")
        if dot and base and is_language_suffix(last):
            found.add(last)
    return sorted(found)


def _detect(root: Path) -> Project:
    project = _sniff(root)
    if project is None:
        raise ProjectError(
            f"{root}: no docs layout found (MkDocs, Docusaurus, Hugo, or <lang>/ folders); "
            f"describe it in {CONFIG_NAME}"
        )
    return project


def _sniff(root: Path) -> Project | None:
    """The generator's configuration file first, then the folders present."""
    for name in ("docusaurus.config.js", "docusaurus.config.ts", "docusaurus.config.mjs"):
        if (root / name).is_file():
            return _docusaurus(root, name, _config_text(root, name))
    for name in ("hugo.toml", "config.toml", "hugo.yaml", "config.yaml"):
        if (root / name).is_file() and (root / "content").is_dir():
            return _hugo(root, root / name)
    for name in ("mkdocs.yml", "mkdocs.yaml"):
        if (root / name).is_file():
            return _mkdocs(root, name, _config_text(root, name))
    dirs = _lang_dirs(root)
    if dirs:
        source = (
            "en" if "en" in dirs else max(dirs, key=lambda d: len(list(_walk(root / d, MARKDOWN))))
        )
        return _project(
            root,
            "mirror",
            source,
            tuple(dirs),
            _layout_roots("mirror", "", source),
            "commonmark",
            root,
        )
    return None


_DEFAULT_LOCALE = re.compile(r"defaultLocale\s*:\s*['\"]([^'\"]+)")
_LOCALES = re.compile(r"locales\s*:\s*\[([^\]]*)\]")
_QUOTED = re.compile(r"['\"]([^'\"]+)['\"]")


def _config_text(root: Path, name: str, errors: str = "replace") -> str:
    """A site generator's configuration file, read only when it lies inside the project."""
    path = root / name
    if not within(root, path):
        raise ProjectError(f"{path}: leads outside the project (a symlink to {_link(path)})")
    try:  # confined again as it is opened: a link swapped in meanwhile is not read either
        return read_confined(path, root, MAX_STATE_BYTES).decode("utf-8", errors=errors)
    except FileNotFoundError:
        raise ProjectError(f"{path}: no such file") from None
    except FileError as exc:
        raise ProjectError(str(exc)) from None


def _docusaurus(root: Path, name: str, config: str) -> Project:
    m = _DEFAULT_LOCALE.search(config)
    source = m.group(1) if m else "en"
    listed = _LOCALES.search(config)
    langs = _QUOTED.findall(listed.group(1)) if listed else _lang_dirs(root / "i18n")
    return _project(
        root,
        "docusaurus",
        source,
        tuple(langs),
        _layout_roots("docusaurus", "", source),
        "docusaurus",
        root / name,
    )


def _hugo(root: Path, config: Path) -> Project:
    source, langs = "en", list(_lang_dirs(root / "content"))
    if config.suffix == ".toml":
        try:
            data = tomllib.loads(_config_text(root, config.name, errors="strict"))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError):
            data = {}
        source = str(data.get("defaultContentLanguage", source))
        languages = data.get("languages")
        if isinstance(languages, dict):
            langs = list(languages)
    folder = (root / "content" / source).is_dir()
    layout = "hugo-folder" if folder else "hugo-suffix"
    if not folder and not langs:
        langs = _suffix_langs(root / "content")
    return _project(
        root, layout, source, tuple(langs), _layout_roots(layout, "", source), "hugo", config
    )


_DOCS_DIR = re.compile(r"^docs_dir\s*:\s*['\"]?([^'\"#\s]+)", re.MULTILINE)
_LOCALE = re.compile(r"^\s*-?\s*locale\s*:\s*['\"]?([A-Za-z_-]+)", re.MULTILINE)
_DEFAULT = re.compile(r"locale\s*:\s*['\"]?([A-Za-z_-]+)['\"]?\s*\n\s*default\s*:\s*true")


def _mkdocs(root: Path, name: str, config: str) -> Project:
    m = _DOCS_DIR.search(config)
    docs = m.group(1) if m else "docs"
    _check_folder(docs, root / name, "docs_dir")
    docs = docs.strip("/")
    default = _DEFAULT.search(config)
    listed = _LOCALE.findall(config)
    source = default.group(1) if default else (listed[0] if listed else "en")
    folder = (root / docs / source).is_dir()
    layout = "mkdocs-folder" if folder else "mkdocs-suffix"
    langs = listed or (_lang_dirs(root / docs) if folder else _suffix_langs(root / docs))
    return _project(
        root,
        layout,
        source,
        tuple(langs),
        _layout_roots(layout, docs, source),
        "mkdocs",
        root / name,
    )


MARKERS = (
    CONFIG_NAME,
    "mkdocs.yml",
    "mkdocs.yaml",
    "docusaurus.config.js",
    "docusaurus.config.ts",
    "docusaurus.config.mjs",
    "hugo.toml",
)


def enclosing_project(path: str | os.PathLike[str]) -> tuple[Project, PurePosixPath] | None:
    """The project a source file belongs to, and its path in it (None: a lone file). Looks up
    from the file's folder for a .fastdesk.toml or a site generator's configuration, stopping
    at the top of a git work tree."""
    file = Path(path).resolve()
    for folder in file.parents:
        if any((folder / m).is_file() for m in MARKERS):
            try:
                project = find_project(folder)
            except ProjectError as exc:  # a lone file then; its one line says why
                log.warning("%s", exc)
                return None
            rel = PurePosixPath(file.relative_to(folder).as_posix())
            return (project, rel) if rel in project.sources() else None
        if (folder / ".git").exists():
            return None
    return None


def publish_hint(project: Project) -> str | None:
    """MkDocs publishes every file under docs_dir, the review sidecars (``*.fastdesk.json``)
    too, unless its configuration excludes them: one line saying how, or None."""
    if not project.layout.startswith("mkdocs"):
        return None
    for name in ("mkdocs.yml", "mkdocs.yaml"):
        path = project.root / name
        if path.is_file():
            if "fastdesk.json" in path.read_text(encoding="utf-8", errors="replace"):
                return None
            return (
                f'{name}: add exclude_docs: "*.fastdesk.json" so that MkDocs does not publish '
                "the review files"
            )
    return None
