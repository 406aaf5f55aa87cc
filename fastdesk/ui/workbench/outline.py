"""The outline dock (objectName ``outlineView``): the document's headings, nested by level.

The headings come from the core's block parse (fastdesk.document.outline), so the outline and
the panes agree on what a heading is. The dock shows; the workbench moves the panes.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QDockWidget, QTreeWidget, QTreeWidgetItem, QWidget

from fastdesk.document.blocks import Document
from fastdesk.document.outline import Heading, headings
from fastdesk.ui.panes.accessible import name
from fastdesk.ui.plain import tip

_HEADING = Qt.ItemDataRole.UserRole


class OutlineDock(QDockWidget):
    """``chosen(Heading)`` when the user clicks (or presses Enter on) a heading."""

    chosen = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Outline", parent)
        self.setObjectName("outlineView")
        self.tree = QTreeWidget()
        self.tree.setObjectName("outlineTree")
        name(self.tree, "Outline", "The source's headings; Enter goes to one")
        self.tree.setHeaderHidden(True)
        self.tree.setUniformRowHeights(True)
        self.tree.itemClicked.connect(self._picked)
        self.tree.itemActivated.connect(self._picked)
        self.setWidget(self.tree)
        self._shown: tuple[tuple[int, str], ...] = ()
        self.items: list[QTreeWidgetItem] = []  # one per heading, in document order
        self.headings: list[Heading] = []

    def set_document(self, doc: Document) -> None:
        """Show ``doc``'s headings (rebuilt only when they changed)."""
        found = headings(doc)
        key = tuple((h.level, h.title) for h in found)  # moved by an edit above: same items
        self.headings = found
        if key == self._shown:
            return
        self._shown = key
        self.tree.clear()
        self.items = []
        parents: list[tuple[int, QTreeWidgetItem]] = []  # (level, item) of the open sections
        for heading in found:
            while parents and parents[-1][0] >= heading.level:
                parents.pop()
            item = QTreeWidgetItem([heading.title or "(untitled)"])
            item.setData(0, _HEADING, len(self.items))
            item.setToolTip(0, tip(heading.title))
            if parents:
                parents[-1][1].addChild(item)
            else:
                self.tree.addTopLevelItem(item)
            parents.append((heading.level, item))
            self.items.append(item)
        self.tree.expandAll()

    def follow(self, block_index: int) -> None:
        """Select the heading of the section holding block ``block_index`` (none above: none)."""
        current = None
        for n, heading in enumerate(self.headings):
            if heading.index > block_index:
                break
            current = n
        self.tree.blockSignals(True)
        try:
            if current is None:
                self.tree.clearSelection()
            else:
                self.tree.setCurrentItem(self.items[current])
                self.tree.scrollToItem(self.items[current])
        finally:
            self.tree.blockSignals(False)

    def _picked(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        n = item.data(0, _HEADING)
        if isinstance(n, int) and 0 <= n < len(self.headings):
            self.chosen.emit(self.headings[n])
