"""Docusaurus' theme strings, translated in the files Docusaurus reads them from.

``docusaurus write-translations --locale fr`` writes ``i18n/fr/code.json`` (the theme's strings
and the site's own ``<Translate>`` ones) and ``i18n/fr/docusaurus-theme-classic/navbar.json``
and ``footer.json`` (the navbar's and footer's labels, the copyright line): key → ``{"message",
"description"}``; and the blog's ``docusaurus-plugin-content-blog/options.json`` (its title,
description and "Recent posts"). Each message is the theme's own translation where Docusaurus
ships one, else the site's English text, so a French site keeps an English navbar, footer and
home page. :func:`translate_theme_strings` sends each message (through the engine, its memory
and checks, as any block: an MDX expression such as ``{count}`` is kept out of the model's
reach and put back) and writes the file again with only those messages changed: keys,
descriptions, plural separators (``|``) and placeholders byte for byte.

A message already in the target language is not sent: the theme's own translation (the one
``node_modules/@docusaurus/theme-translations`` ships for that key and language, when the
project has it), or one the language identifier is sure of. What fastdesk wrote is kept in
``.fastdesk/theme-strings.json`` (file → key → message): a key found there is not sent again,
so a translator's change to a message stays, and a key ``write-translations`` adds later is
translated by the next run.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from fastdesk.config.fileio import (
    MAX_STATE_BYTES,
    FileError,
    atomic_write_text,
    load_json,
    os_error_line,
    read_confined,
)
from fastdesk.document.blocks import parse
from fastdesk.document.languages import primary
from fastdesk.project.categories import translate_line
from fastdesk.project.layout import Project
from fastdesk.translate.engine import Engine
from fastdesk.translate.events import EngineEvent, RequestDone
from fastdesk.translate.job import JobSpec
from fastdesk.translate.language import LIKELY, identify

__all__ = ["STATE_PATH", "THEME_FILES", "theme_strings_pending", "translate_theme_strings"]

log = logging.getLogger("fastdesk.project")

THEME_FILES = (
    "code.json",
    "docusaurus-theme-classic/navbar.json",
    "docusaurus-theme-classic/footer.json",
    "docusaurus-plugin-content-blog/options.json",  # the blog's title and sidebar title
)
STATE_PATH = ".fastdesk/theme-strings.json"
SHIPPED = "node_modules/@docusaurus/theme-translations/locales/{lang}"
_PLACEHOLDER = re.compile(r"\{\w+\}")
_SHORTEST = 12  # letters: a shorter message is not identified (it is sent)


def _read_json(project: Project, rel: str) -> object:
    """A JSON file of the project (confined to it), or None when it cannot be read as one."""
    try:
        raw = read_confined(project.root / rel, project.root, MAX_STATE_BYTES)
        return json.loads(raw.decode("utf-8"))
    except (OSError, FileError, UnicodeDecodeError, json.JSONDecodeError):
        return None


def _load_state(project: Project) -> dict[str, dict[str, str]]:
    if not project.inside(STATE_PATH):
        return {}
    try:
        data = load_json(project.root / STATE_PATH)
    except FileNotFoundError:
        return {}
    except (FileError, OSError) as exc:
        log.warning("%s could not be read (%s); every theme string is sent again", STATE_PATH, exc)
        return {}
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, dict):
        return {}
    return {
        rel: {k: v for k, v in keys.items() if isinstance(v, str)}
        for rel, keys in files.items()
        if isinstance(keys, dict)
    }


def _shipped(project: Project, lang: str) -> dict[str, str]:
    """The theme's own translations into ``lang`` (key → message), as the project's
    ``node_modules/@docusaurus/theme-translations`` ships them (read only inside the project):
    its ``lang`` messages that are not its ``base`` (English) ones, which it ships where a
    translation is missing; {} without them."""
    ours, base = _locale(project, lang), _locale(project, "base")
    return {k: v for k, v in ours.items() if base.get(k) != v}


def _locale(project: Project, name: str) -> dict[str, str]:
    folder = project.root / SHIPPED.format(lang=name)
    out: dict[str, str] = {}
    if not folder.is_dir():
        return out
    for path in sorted(folder.glob("*.json")):
        try:
            raw = read_confined(path, project.root, MAX_STATE_BYTES)
            data = json.loads(raw.decode("utf-8"))
        except (OSError, FileError, UnicodeDecodeError, json.JSONDecodeError):
            continue
        if isinstance(data, dict):
            out.update((k, v) for k, v in data.items() if isinstance(v, str))
    return out


def _in_language(message: str, lang: str) -> bool:
    """Whether the identifier is sure ``message`` is already in ``lang``."""
    found = identify(message, _SHORTEST)
    if not found:
        return False
    top = max(found, key=found.__getitem__)
    return top == primary(lang) and found[top] >= LIKELY


def _same_shape(source: str, answer: str) -> bool:
    """Docusaurus reads these out of a message: its placeholders and plural forms."""
    return sorted(_PLACEHOLDER.findall(source)) == sorted(
        _PLACEHOLDER.findall(answer)
    ) and source.count("|") == answer.count("|")


def theme_strings_pending(project: Project, langs: Iterable[str]) -> bool:
    """Whether a theme string file of these languages has a message fastdesk has not yet
    handled (a run then translates them even when every page is up to date)."""
    if project.dialect != "docusaurus":
        return False
    state = _load_state(project)
    for lang in langs:
        for name in THEME_FILES:
            rel = f"i18n/{lang}/{name}"
            if not (project.root / rel).is_file() or not project.inside(rel):
                continue
            data = _read_json(project, rel)
            if isinstance(data, dict) and any(
                isinstance(entry, dict) and isinstance(entry.get("message"), str)
                and entry["message"].strip() and key not in state.get(rel, {})
                for key, entry in data.items()
            ):  # fmt: skip
                return True
    return False


async def translate_theme_strings(
    engine: Engine,
    project: Project,
    specs: Mapping[str, JobSpec],
    *,
    on_request: Callable[[RequestDone], None] = lambda _e: None,
) -> list[str]:
    """Translate the messages of each language's theme string files that exist (see the
    module's docstring); one line for each file written or that could not be."""
    if project.dialect != "docusaurus":
        return []
    state = _load_state(project)
    before = json.dumps(state, sort_keys=True)
    said: list[str] = []
    for lang, spec in specs.items():
        for name in THEME_FILES:
            rel = f"i18n/{lang}/{name}"
            if not (project.root / rel).is_file() or not project.inside(rel):
                continue
            try:
                count = await _one_file(engine, project, rel, spec, state, on_request)
            except OSError as exc:
                said.append(os_error_line(rel, exc, "not written"))
                continue
            if count:
                said.append(f"{rel}: {count} theme strings translated")
    if json.dumps(state, sort_keys=True) != before and project.inside(STATE_PATH):
        try:
            _save_state(project, state)
        except OSError as exc:
            said.append(os_error_line(STATE_PATH, exc, "not written"))
    return said


async def _one_file(
    engine: Engine,
    project: Project,
    rel: str,
    spec: JobSpec,
    state: dict[str, dict[str, str]],
    on_request: Callable[[RequestDone], None],
) -> int:
    """The messages of one file translated and written: how many."""
    data = _read_json(project, rel)
    if not isinstance(data, dict):
        return 0  # not a translation file Docusaurus would read: not ours to write over
    done = state.setdefault(rel, {})
    theirs = _shipped(project, spec.target_lang)
    todo: dict[str, str] = {}
    for key, entry in data.items():
        message = entry.get("message") if isinstance(entry, dict) else None
        if not isinstance(message, str) or not message.strip() or key in done:
            continue
        if theirs.get(key) == message or _in_language(message, spec.target_lang):
            done[key] = message
        else:
            todo[key] = message
    if not todo:
        return 0
    answers = await _translate_lines(engine, list(todo.values()), spec, on_request)
    changed: dict[str, str] = {}
    for (key, text), answer in zip(todo.items(), answers, strict=True):
        if answer is None or not _same_shape(text, answer):
            continue  # asked again by the next run
        if answer == text.strip():  # a name (GitHub, Blog): the same in the target language
            done[key] = text
            continue
        lead = text[: len(text) - len(text.lstrip())]  # " le {date}": its space is the theme's
        changed[key] = lead + answer + text[len(text.rstrip()) :]
    if changed:
        for key, message in changed.items():
            data[key]["message"] = message
        atomic_write_text(project.root / rel, json.dumps(data, ensure_ascii=False, indent=2) + "\n")
        done.update(changed)
    return len(changed)


async def _translate_lines(
    engine: Engine, texts: list[str], spec: JobSpec, on_request: Callable[[RequestDone], None]
) -> list[str | None]:
    """Messages as the paragraphs of one document, so the engine packs them into a few
    requests (one each would spend a free tier's 30 requests a minute on one file); one at a
    time when they do not read back as one paragraph each. None: no usable answer."""
    doc = parse("\n\n".join(t.strip() for t in texts) + "\n")
    blocks = [b for b in doc.blocks if b.split()[1]]
    if [b.split()[1] for b in blocks] != [t.strip() for t in texts]:
        return list(
            await asyncio.gather(*(translate_line(engine, t, spec, on_request) for t in texts))
        )

    def emit(event: EngineEvent) -> None:
        if isinstance(event, RequestDone):
            on_request(event)

    results = await engine.run(doc, spec, emit=emit)
    out: list[str | None] = []
    for block in blocks:
        answer = results.get(block.id, "").strip()
        out.append(answer if answer and "\n" not in answer else None)
    return out


def _save_state(project: Project, state: dict[str, dict[str, str]]) -> None:
    path: Path = project.root / STATE_PATH
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {"version": 1, "app": "fastdesk", "files": {k: v for k, v in state.items() if v}}
    atomic_write_text(path, json.dumps(payload, ensure_ascii=False, indent=1) + "\n")
