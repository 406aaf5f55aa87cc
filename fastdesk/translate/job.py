"""What a translation job produces: its mode, language, provider and what it reads.

Its own module so that the window, the command line and the project run can name a job without
importing the engine (which brings the router, the checks and the prompts).
"""

from __future__ import annotations

from dataclasses import dataclass

from fastdesk.translate.examples import ExampleBank
from fastdesk.translate.glossary import Glossary
from fastdesk.translate.style import Style


@dataclass(frozen=True)
class JobSpec:
    """What to produce: mode, language, where to send it, and whether memory may answer."""

    mode: str = "translate"
    target_lang: str = "fr"
    provider: str = "auto"
    model: str | None = None
    use_memory: bool = True
    glossary: Glossary | None = None
    # the source's language, when known (a docs project's): recorded with each answer in the
    # memory so it can be exported as TMX; else identified from the block when it can be
    source_lang: str | None = None
    # a reviewer model judges each translated block after the run's translations (quality.py);
    # None: when the budget allows (the user's own rate limits: Reviewer.budget_allows)
    review: bool | None = False
    # the project's house style (its text for this mode and language goes to every request and
    # its digest into the memory key) and the editor's corrections, offered as examples
    style: Style | None = None
    examples: ExampleBank | None = None
    # the site generator's Markdown dialect of the document's project: a document translated
    # live keeps its syntax lines as they are (fastdesk.document.dialects.keep_syntax)
    dialect: str = "commonmark"
    # whether the generator takes an explicit heading id in the dialect's syntax (MkDocs with
    # attr_list, Hugo, Docusaurus): a translated heading then keeps its source's anchor
    heading_ids: bool = False
    # Hugo: definition terms get ids numbered with the headings' (autoDefinitionTermID), and
    # the rules ids are made by (autoHeadingIDType: github, github-ascii, blackfriday)
    term_ids: bool = False
    id_type: str = "github"

    @property
    def style_text(self) -> str:
        return self.style.text_for(self.mode, self.target_lang) if self.style else ""

    @property
    def style_version(self) -> str:
        return self.style.version(self.mode, self.target_lang) if self.style else ""

    @property
    def glossary_lang(self) -> str | None:
        """Forced translations apply when translating; simplifying keeps only the kept terms."""
        return self.target_lang if self.mode == "translate" else None

    def glossary_for(self, text: str) -> Glossary | None:
        """The glossary entries that occur in `text` (so an unrelated edit keeps memory valid)."""
        if self.glossary is None:
            return None
        return self.glossary.for_text(text, self.glossary_lang)
