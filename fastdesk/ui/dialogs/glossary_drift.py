"""Review ▸ Glossary Drift: how each glossary term is rendered, per language and page (the
open document's translation, and the pages of the docs project open beside it): a term rendered
other than the glossary says, or two ways, drifts and comes first. The results are the core's
(fastdesk.translate.consistency.glossary_drift), the same the command line's report gives."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from fastdesk.translate.consistency import NOT_FOUND, TermUse

TERM, LANG, RENDERING, WHERE = range(4)
DRIFTS = "drifts"
FOLLOWED = "as the glossary says"


def _pages(counts: dict[str, int]) -> str:
    return ", ".join(f"{page or 'this document'} ({n})" for page, n in counts.items())


class GlossaryDriftDialog(QDialog):
    """One row per term and language (drifting ones first, open), its renderings under it
    with the pages and how many blocks use each."""

    def __init__(self, uses: Sequence[TermUse], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("glossaryDrift")
        self.setWindowTitle("Glossary Drift")
        self.tree = QTreeWidget()
        self.tree.setObjectName("glossaryDriftTree")
        self.tree.setHeaderLabels(["Term", "Language", "Rendered as", "Where (blocks)"])
        drifting = sum(u.drifts for u in uses)
        summary = QLabel(
            "No glossary term of these pages is used here"
            if not uses
            else f"{drifting} of {len(uses)} terms drift: rendered other than the glossary "
            "says, or several ways"
            if drifting
            else f"All {len(uses)} terms are rendered as the glossary says"
        )
        summary.setObjectName("glossaryDriftSummary")
        for use in sorted(uses, key=lambda u: (not u.drifts, u.term.casefold(), u.lang)):
            want = use.expected if use.expected is not None else f"{use.term} (kept)"
            top = QTreeWidgetItem([use.term, use.lang, want, DRIFTS if use.drifts else FOLLOWED])
            pages = use.pages()
            for text, _places in use.renderings:
                counts = {page: row[text] for page, row in pages.items() if text in row}
                top.addChild(
                    QTreeWidgetItem(
                        ["", "", text if text != NOT_FOUND else "(not found)", _pages(counts)]
                    )
                )
            self.tree.addTopLevelItem(top)
            top.setExpanded(use.drifts)
        for column in (TERM, LANG, RENDERING):
            self.tree.resizeColumnToContents(column)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(summary)
        layout.addWidget(self.tree)
        layout.addWidget(buttons)
        self.resize(760, 420)
