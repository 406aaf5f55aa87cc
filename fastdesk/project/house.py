"""A document's house: the docs project it belongs to and what the team agreed for it (the
glossary, the house style, the editor's approved corrections), found once for a document and
applied to each job (the command line's, the window's).

A file translated on its own inside a docs project (the nearest mkdocs.yml, Docusaurus or Hugo
configuration or .fastdesk.toml above it, within its git work tree and the home folder) takes
that project's Markdown dialect, glossary, style and corrections: ``fastdesk translate
docs/page.md`` gives what ``fastdesk translate .`` gives for that page.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path

from fastdesk.config.settings import Settings
from fastdesk.project.layout import Project, ProjectError, enclosing_project, find_project
from fastdesk.review.corrections import corrections, review_files
from fastdesk.translate.examples import Example, ExampleBank
from fastdesk.translate.glossary import Glossary
from fastdesk.translate.job import JobSpec
from fastdesk.translate.style import Style
from fastdesk.translate.wiring import glossary_for, style_for

__all__ = ["House", "house_for"]


@dataclass
class House:
    """What applies to one document (or a project's folder)."""

    place: Path | None  # None: an untitled document (no house)
    project: Project | None = None
    glossary: Glossary | None = None
    style: Style | None = None
    ignored: tuple[str, ...] = ()  # a house file left out, each with its one-line reason
    _examples: dict[str, ExampleBank | None] = field(default_factory=dict, repr=False)

    @property
    def top(self) -> Path | None:
        """The project's root: no house file is looked for above it."""
        return self.project.root if self.project is not None else None

    @property
    def dialect(self) -> str:
        return self.project.dialect if self.project is not None else "commonmark"

    def examples(self, lang: str) -> ExampleBank | None:
        """The approved corrections in ``lang``: the project's (every review file under its
        root), else those beside the document; read when first used (by the engine's
        thread, in the window), once per language."""
        place = self.place
        if place is None:
            return None
        if lang not in self._examples:
            project = self.project

            def load() -> list[Example]:
                if project is not None:
                    return corrections(review_files(project.root), lang, project.root)
                folder = place if place.is_dir() else place.absolute().parent
                return corrections(review_files(folder, recursive=False), lang, folder)

            # the window's thread and the engine's may both ask: one bank, whichever is first
            self._examples.setdefault(lang, ExampleBank(load))
        return self._examples[lang]

    def apply(self, spec: JobSpec) -> JobSpec:
        """``spec`` with this house's glossary, style, corrections (translating) and, in a
        project, its source language and Markdown dialect."""
        return dataclasses.replace(
            spec,
            glossary=self.glossary,
            style=self.style,
            examples=self.examples(spec.target_lang) if spec.mode == "translate" else None,
            source_lang=self.project.source_lang if self.project is not None else spec.source_lang,
            dialect=self.dialect,
            heading_ids=self.project.heading_ids if self.project is not None else False,
            term_ids=self.project.term_ids if self.project is not None else False,
            id_type=self.project.id_type if self.project is not None else "github",
        )

    def same_as(self, other: House) -> bool:
        """Whether ``other`` sends the same instructions (its corrections aside: they are
        read again by the next house)."""
        return (
            self.top == other.top
            and self.dialect == other.dialect
            and (self.glossary.version if self.glossary else "")
            == (other.glossary.version if other.glossary else "")
            and (self.style.sections if self.style else {})
            == (other.style.sections if other.style else {})
        )


def house_for(place: str | os.PathLike[str] | None, settings: Settings) -> House:
    """The house of a document (its enclosing project) or of a project's folder; an empty one
    for an untitled document (None)."""
    if place is None:
        return House(None)
    path = Path(place)
    project: Project | None = None
    if path.is_dir():
        try:
            project = find_project(path)
        except ProjectError:
            project = None
    else:
        found = enclosing_project(path)
        project = found[0] if found is not None else None
    top = project.root if project is not None else None
    ignored: list[str] = []
    glossary = glossary_for(settings, path, top, ignored)
    style = style_for(path, top, ignored)
    return House(path, project, glossary, style, tuple(ignored))
