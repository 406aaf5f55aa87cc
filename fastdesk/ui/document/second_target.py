"""A second translation beside the first, in a language of its own (View → Second Translation).

It is a second document session, not a copy of the first's state: its own
fastdesk.review.session.DocumentSession over that language's Review (the document's review
controller holds the review, so it is saved into the sidecar with the others), sharing the
document's revision counter, filled by a live translator of its own on the document's engine
thread (EngineWorker.open_pane): the memory answers at once, the rest is translated while the
source is edited, like the first pane. Closing it closes that translator, cancelling its
requests. It shows the rendered translation, read-only; it scrolls with
the source.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QToolButton, QVBoxLayout, QWidget

from fastdesk.clock import Clock
from fastdesk.document.blocks import Document
from fastdesk.document.html import contexts
from fastdesk.document.languages import language_name
from fastdesk.review.model import STATE_STYLES, Review
from fastdesk.review.session import DocumentSession, Revisions
from fastdesk.review.target_model import Segment, TargetModel
from fastdesk.translate.events import EngineEvent
from fastdesk.ui.language_box import fill_languages, show_language
from fastdesk.ui.panes.accessible import name
from fastdesk.ui.panes.elided import ElidedLabel
from fastdesk.ui.panes.preview import TargetPreview
from fastdesk.ui.panes.source_editor import SourceEditor
from fastdesk.ui.panes.sync_scroll import plain_anchor, preview_scroll
from fastdesk.ui.review.controller import carry_answers
from fastdesk.ui.review.widgets import ReviewMargin

if TYPE_CHECKING:
    from PySide6.QtWidgets import QSplitter

    from fastdesk.translate.job import JobSpec
    from fastdesk.ui.bridge.delivery import Delivery
    from fastdesk.ui.bridge.worker import EngineWorker
    from fastdesk.ui.panes.incremental import RenderScheduler
    from fastdesk.ui.panes.sync_scroll import SyncScroller
    from fastdesk.ui.review.controller import ReviewController

__all__ = ["PaneHost", "SecondPane", "SecondTarget"]


class PaneHost(Protocol):
    """What the second pane needs of the document it sits beside (the document view): its
    review controller and session, where to sit, and the engine thread. A protocol, so that
    this module does not import the view that imports it."""

    review_ctl: ReviewController
    preview: TargetPreview
    splitter: QSplitter
    scheduler: RenderScheduler
    source: SourceEditor
    sync: SyncScroller

    @property
    def revision(self) -> int: ...

    @property
    def engine_started(self) -> bool: ...

    @property
    def worker(self) -> EngineWorker: ...

    @property
    def source_blocks(self) -> tuple[Segment, ...]: ...

    def review_warnings(self, warnings: list[str]) -> None: ...


class SecondTarget(QWidget):
    """The pane: a header (its language, a close button) over a rendered target.

    ``language_chosen(code)`` when the user picks another language; ``close_requested`` from
    its close button. The document view owns it and feeds it (set_doc, apply, idle)."""

    language_chosen = Signal(str)
    close_requested = Signal()

    def __init__(
        self,
        key: str,
        lang: str,
        review: Review,
        revisions: Revisions,
        parent: QWidget | None = None,
        *,
        clock: Clock | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("secondTarget")
        self.key = key  # its translator's key on the engine thread (a new one per language)
        self.lang = lang
        # the document's revision counter and its one clock
        self.session = DocumentSession(review, revisions, clock=clock)
        self.preview = TargetPreview()
        self.preview.setObjectName("secondTargetPreview")
        name(self.preview, "Second translation")
        # each block's state in this language (machine, memory, flagged …), as beside the first
        self.margin = ReviewMargin(
            self.preview,
            lambda key: self.model.state_of(key),
            lambda key: STATE_STYLES[self.model.review.state_of(key)].meaning,
        )
        self.title = ElidedLabel()
        self.title.setObjectName("secondTargetTitle")
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.language = QComboBox()
        self.language.setObjectName("secondLanguageSelector")
        self.language.setToolTip("The second translation's language")
        name(self.language, "Second translation's language")
        fill_languages(self.language)
        # as narrow as a short name: the longest of ~100 would widen the window's minimum
        self.language.setMinimumContentsLength(12)
        self.language.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self._show_language(lang)
        self.language.activated.connect(self._picked)
        close = QToolButton()
        close.setObjectName("secondTargetClose")
        close.setAutoRaise(True)
        close.setText("✕")
        close.setToolTip("Close the second translation")
        name(close, "Close the second translation")
        close.clicked.connect(self.close_requested)
        head = QWidget()
        head.setFixedHeight(28)
        header = QHBoxLayout(head)
        header.setContentsMargins(6, 0, 2, 0)
        header.addWidget(self.title, 1)
        header.addWidget(self.language)
        header.addWidget(close)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(head)
        layout.addWidget(self.preview, 1)
        self._told: tuple[Segment, ...] = ()
        self._starts: list[int] = [0]
        self._blocks: Sequence[Segment] = ()

    @property
    def model(self) -> TargetModel:
        """What the pane shows (its session's)."""
        return self.session.model

    # ---- what the document view tells it ---------------------------------------------------

    def set_review(self, key: str, lang: str, review: Review, floor: int) -> None:
        """Another language, with a session of its own under ``key``."""
        self.key, self.lang = key, lang
        self._show_language(lang)
        self.session.switch(review, floor)

    def reset(self, review: Review, floor: int) -> None:
        """A new document: nothing shown until its first revision (``floor``) is parsed."""
        self.session.reset(review, floor)
        self.preview.expansions.clear()

    def set_doc(self, doc: Document, revision: int) -> None:
        self.session.set_doc(doc, revision)
        self.preview.set_contexts(contexts(doc))

    def take(self, delivery: Delivery) -> bool:
        """What a worker delivery holds for this pane; True when the pane has something new."""
        if delivery.doc is not None:
            self.set_doc(delivery.doc, delivery.revision)
        self.apply(delivery.pane_events(self.key))
        if not delivery.busy:
            self.model.idle()
        self.margin.update()
        return self.refresh()

    def apply(self, events: Sequence[EngineEvent]) -> None:
        self.session.apply(events)

    def refresh(self) -> bool:
        """The pane converges to the model's segments; True when it has something new."""
        wanted = self.model.segments()
        if wanted is self._told:
            return False
        self._told = wanted
        self.preview.want(wanted)
        return True

    def follow(self, source: SourceEditor, blocks: Sequence[Segment]) -> None:
        """Scroll to the source's place, block by block."""
        if blocks is not self._blocks:
            self._blocks = blocks
            self._starts = [0, *itertools.accumulate(b.qlen for b in blocks)]
        anchor = plain_anchor(source, self._starts)
        if anchor is not None and self.preview.block_count:
            preview_scroll(self.preview, *anchor)

    # ---- internals ---------------------------------------------------------------------------

    def _show_language(self, lang: str) -> None:
        show_language(self.language, lang)
        self.title.setText(f"Translation — {language_name(lang)}")

    def _picked(self, index: int) -> None:
        code = self.language.itemData(index)
        if isinstance(code, str) and code != self.lang:
            self.language_chosen.emit(code)


class SecondPane(QObject):
    """The document view's second target pane, open or not: opening, closing, its language,
    and what the view hands on (deliveries, a new engine, a new document, a new spec)."""

    toggled = Signal(bool)  # open or closed

    def __init__(
        self, view: PaneHost, spec: Callable[[], JobSpec], parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.view = view
        self._spec = spec
        self.pane: SecondTarget | None = None
        self._keys = itertools.count(1)

    @property
    def is_open(self) -> bool:
        return self.pane is not None

    def open(self, lang: str) -> SecondTarget:
        """Open it in ``lang`` (or switch the open one to it)."""
        view = self.view
        if self.pane is not None:
            self.set_language(lang)
            return self.pane
        review, warnings = view.review_ctl.review_for(lang)
        view.review_warnings(warnings)
        session = view.review_ctl.session
        pane = SecondTarget(
            self._key(lang), lang, review, session.revisions, clock=session.retry.clock
        )
        pane.preview.image_folder = view.preview.image_folder
        pane.language_chosen.connect(self.set_language)
        pane.close_requested.connect(self.close)
        doc = view.review_ctl.doc
        if doc is not None:
            pane.set_doc(doc, view.revision)
        splitter = view.splitter
        total = sum(splitter.sizes())
        splitter.addWidget(pane)
        splitter.setSizes([total // 3] * 3)  # three panes of a width
        view.scheduler.add(pane.preview)
        view.source.verticalScrollBar().valueChanged.connect(self._follow)
        pane.preview.rewrapped.connect(self._follow)  # (Qt keeps its pixels, not the block)
        view.scheduler.settled.connect(self._settled)  # filled in: at the source's place
        self.pane = pane
        self._start(view.worker if view.engine_started else None)
        pane.refresh()
        view.scheduler.kick()
        self.toggled.emit(True)
        return pane

    def close(self) -> None:
        """Close it: its translator's requests are cancelled; its review stays in the controller's
        (saved with the others)."""
        pane, self.pane = self.pane, None
        if pane is None:
            return
        view = self.view
        if view.engine_started:
            view.worker.close_pane(pane.key)
        view.scheduler.remove(pane.preview)
        view.source.verticalScrollBar().valueChanged.disconnect(self._follow)
        view.scheduler.settled.disconnect(self._settled)
        pane.hide()
        pane.setParent(None)
        pane.deleteLater()
        self.toggled.emit(False)

    def set_language(self, lang: str) -> None:
        pane = self.pane
        if pane is None or lang == pane.lang:
            return
        view = self.view
        if view.engine_started:
            view.worker.close_pane(pane.key)
        review, warnings = view.review_ctl.review_for(lang)
        view.review_warnings(warnings)
        pane.set_review(self._key(lang), lang, review, view.revision)
        self._start(view.worker if view.engine_started else None)
        if pane.refresh():
            view.scheduler.kick()

    # ---- what the document view hands on ---------------------------------------------------

    def take(self, delivery: Delivery) -> None:
        if self.pane is not None and self.pane.take(delivery):
            self.view.scheduler.kick()

    def attach(self, worker: EngineWorker) -> None:
        """A new engine: the pane's translator starts on it."""
        if self.pane is not None:
            self._start(worker)

    def respec(self) -> None:
        """The provider (or model) changed: the pane's translator follows."""
        if self.pane is not None and self.view.engine_started:
            self.view.worker.open_pane(self.pane.key, self._pane_spec(self.pane.lang))

    def reset(self, floor: int) -> None:
        """A new document: that language's review of it."""
        pane = self.pane
        if pane is not None:
            review, warnings = self.view.review_ctl.review_for(pane.lang)
            self.view.review_warnings(warnings)
            carry_answers(pane.model.review, review)  # its translator will not announce them again
            pane.reset(review, floor)
            pane.preview.image_folder = self.view.preview.image_folder

    # ---- internals ---------------------------------------------------------------------------

    def _key(self, lang: str) -> str:
        return f"{lang}#{next(self._keys)}"

    def _pane_spec(self, lang: str) -> JobSpec:
        return dataclasses.replace(self._spec(), mode="translate", target_lang=lang)

    def _start(self, worker: EngineWorker | None) -> None:
        if worker is not None and self.pane is not None:
            worker.open_pane(self.pane.key, self._pane_spec(self.pane.lang))

    def _follow(self) -> None:
        if self.pane is not None and self.view.sync.enabled:
            self.pane.follow(self.view.source, self.view.source_blocks)

    def _settled(self) -> None:
        if self.pane is not None:
            self.pane.margin.update()
        self._follow()
