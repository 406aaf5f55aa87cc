"""MkDocs ``nav`` titles, translated where mkdocs-static-i18n reads them.

A title given in ``mkdocs.yml``'s ``nav`` (``- Getting started: getting-started.md``) is what
the navigation, the page's ``<title>`` and its tabs show, in every language: no page holds it.
mkdocs-static-i18n takes its translation from the language's ``nav_translations`` in the
plugin's configuration (``languages: - locale: fr … nav_translations: {title: translation}``);
the plugin reads no other file for it. :func:`translate_nav` translates the titles a language's
``nav_translations`` lacks (through the engine and its memory, like a sidebar label) and adds
them there, keeping every entry already there (a translator's, an earlier run's) and every other
byte of the file (fastdesk.project.mkdocs_config.with_nav_translations). The file is written only
inside the project, atomically.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping

from fastdesk.config.fileio import atomic_write_text, os_error_line
from fastdesk.project.categories import translate_line
from fastdesk.project.layout import Project
from fastdesk.project.mkdocs_config import (
    NavError,
    config_name,
    nav_titles,
    read_config,
    with_nav_translations,
)
from fastdesk.translate.engine import Engine
from fastdesk.translate.events import RequestDone
from fastdesk.translate.job import JobSpec

__all__ = ["nav_lacking", "translate_nav"]

log = logging.getLogger("fastdesk")


async def translate_nav(
    engine: Engine,
    project: Project,
    specs: Mapping[str, JobSpec],
    *,
    on_request: Callable[[RequestDone], None] = lambda _e: None,
) -> list[str]:
    """Add the translations of the ``nav`` titles each language of ``specs`` lacks to its
    ``nav_translations`` (a language the i18n plugin's configuration does not list is left
    alone); one line per language saying how many were added (``mkdocs.yml: 81 nav titles
    translated into fr's nav_translations``)."""
    name = config_name(project.root)
    if project.dialect != "mkdocs" or name is None or not project.inside(name):
        return []
    config = read_config(project.root)
    titles = nav_titles(config or "")
    if config is None or not titles:
        return []
    added: dict[str, int] = {}
    text = config
    for lang, spec in specs.items():
        try:
            _same, have = with_nav_translations(text, lang, {})
        except NavError as exc:
            log.warning("%s: %s", name, exc)
            continue
        if have is None:
            log.warning(
                "%s: the i18n plugin's languages list no %s; its nav titles are not translated",
                name,
                lang,
            )
            continue
        todo = [t for t in titles if t not in have]
        answers = await asyncio.gather(
            *(translate_line(engine, title, spec, on_request) for title in todo)
        )
        found = {t: a for t, a in zip(todo, answers, strict=True) if a is not None}
        text = with_nav_translations(text, lang, found)[0]
        if found:
            added[lang] = len(found)
    if text == config:
        return []
    if read_config(project.root) != config:  # changed meanwhile: theirs stays
        log.warning("%s: changed while its nav titles were translated; not written", name)
        return []
    try:
        atomic_write_text(project.root / name, text)
    except OSError as exc:
        log.warning("%s", os_error_line(project.root / name, exc, "not written"))
        return []
    return [f"{name}: {n} nav titles translated into {lang}'s nav_translations"
            for lang, n in added.items()]  # fmt: skip


def nav_lacking(project: Project) -> bool:
    """Whether a language of the project that the i18n plugin lists lacks the translation of
    a ``nav`` title (a project translated before its titles were: a run translates them
    though no page is stale)."""
    if project.dialect != "mkdocs":
        return False
    config = read_config(project.root)
    titles = nav_titles(config or "")
    if config is None or not titles:
        return False
    for lang in project.languages:
        try:
            have = with_nav_translations(config, lang, {})[1]
        except NavError:
            continue
        if have is not None and any(t not in have for t in titles):
            return True
    return False
