"""One open document: the source on the left, its live translation on the right, and what
belongs to it alone (its file, line ends, review, file watcher and the engine thread that
translates it). The window around it keeps the menus, selectors and status bar.

Data flow: an edit → a wait set by what was typed and the limiter's room (the core's
fastdesk.translate.sending; IME composition respected) → the worker thread's LiveTranslator →
throttled deliveries of target segments and events → the panes apply only what changed.

The document's state has one owner, its session (fastdesk.review.session.DocumentSession), made
and held here (the review controller works on it): it numbers the revisions sent to the worker
and alone judges what is stale, reads each worker delivery once, and says what changed in one
stream (``subscribe``) that the panes, the margin, the review bar, the status bar and the window
follow. The panes are told the target model's segments and converge to them; they keep no
target of their own.

Its parts, in this package: when an edit goes (``sending``), where the reader is among the
source's blocks (``block_places``), the worker's deliveries read (``deliveries``), the engine's
commands on blocks (``block_commands``), the reviewer's edits in the target (``target_edits``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QSplitter,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from fastdesk.clock import Clock, SystemClock
from fastdesk.document.languages import language_name
from fastdesk.review.model import Review, ReviewSummary
from fastdesk.review.session import Change, DocumentSession
from fastdesk.ui.bridge.worker import EngineFactory, EngineWorker, TranslatorFactory
from fastdesk.ui.document.block_commands import BlockCommands
from fastdesk.ui.document.block_places import BlockPlaces
from fastdesk.ui.document.deliveries import DeliveryReader
from fastdesk.ui.document.disk_watch import DiskWatcher
from fastdesk.ui.document.heal import Healer
from fastdesk.ui.document.review_view import ReviewPresentation
from fastdesk.ui.document.second_target import SecondPane
from fastdesk.ui.document.sending import EditSending
from fastdesk.ui.document.target_edits import RESTORE_STEP_S, TargetEdits
from fastdesk.ui.panes import render
from fastdesk.ui.panes.accessible import name
from fastdesk.ui.panes.common import flat_scroll_bars, is_dark, plain_text, titled_pane
from fastdesk.ui.panes.elided import ElidedLabel
from fastdesk.ui.panes.highlighter import MarkdownHighlighter
from fastdesk.ui.panes.incremental import RenderScheduler
from fastdesk.ui.panes.preview import TargetPreview
from fastdesk.ui.panes.read_only import ReadOnlyHints
from fastdesk.ui.panes.source_editor import SourceEditor
from fastdesk.ui.panes.sync_scroll import SyncScroller
from fastdesk.ui.panes.target_editor import TargetEditor
from fastdesk.ui.review.controller import ReviewController, new_session, review_key

if TYPE_CHECKING:
    from fastdesk.translate.job import JobSpec

UNTITLED = "Untitled"


class DocumentView(QWidget):
    """The two panes of one document and its state. ``spec()`` and ``live()`` are the window's
    current job spec and Live switch; what the view has to say goes out through its signals."""

    message = Signal(str, int)  # a passing status-bar message (text, milliseconds)
    problem = Signal(str, str)  # an error for the status bar (message, detail)
    busy = Signal(bool)  # work for this document is in flight, or not any more
    engine_news = Signal(object)  # each Delivery: what it says of providers and health
    renamed = Signal()  # the document's name (or path) changed
    modified_changed = Signal(bool)
    raw_changed = Signal(bool)  # the target shows raw Markdown (True) or the rendered view
    toggle_view_requested = Signal()  # the pane's Show Markdown / Show rendered button
    files_dropped = Signal(list)  # Markdown files dropped on the source
    target_updated = Signal()  # the target panes finished applying what the worker sent
    filled_changed = Signal(bool)  # every block's answer is shown, or not any more (filled())
    typing = Signal()  # the editor typed into the source (the window keeps the provider warm)
    file_saved = Signal(object)  # the source (and its review file) written to this Path

    def __init__(
        self,
        *,
        spec: Callable[[], JobSpec],
        live: Callable[[], bool],
        debounce_ms: int,
        engine_factory: EngineFactory,
        translator_factory: TranslatorFactory,
        clock: Clock | None = None,
        parent: QWidget | None = None,
    ) -> None:
        """``clock``: the window's one clock (fastdesk.clock): the sending policy, the retry of
        failed blocks and the engine's worker read it."""
        super().__init__(parent)
        self.clock: Clock = clock or SystemClock()
        self.setObjectName("documentView")
        self._spec = spec
        self._live = live
        self._engine_factory = engine_factory
        self._translator_factory = translator_factory
        self._worker: EngineWorker | None = None
        self.path: Path | None = None
        self.untitled_name = UNTITLED
        self.newline = "\n"
        self._sent_source: str | None = None
        self._opened = False  # the next send is a newly opened document's (worker.open)
        self._told: tuple[render.Segment, ...] = ()  # the model's segments the panes were told
        self._busy = False  # the newest revision's work is in flight (the busy light's state)
        self._filled = False  # what filled_changed said last
        # the document's state has one owner, its session, and it is this view's; the review
        # controller (the reviewer's work and the review files) works on it
        self.session: DocumentSession = new_session(self.clock)
        self.review_ctl = ReviewController(
            lambda: plain_text(self.source.document()),
            lambda: (self.source.document().revision(), self.source.document().isModified()),
            self,
            session=self.session,
        )
        self.session.subscribe(self._session_changed)
        self._build_panes()
        self.sending = EditSending(  # when an edit goes (the core's policy decides the wait)
            self.source,
            debounce_ms=debounce_ms,
            clock=self.clock,
            live=live,
            send=self.send_update,
            headroom=lambda: self.deliveries.headroom,  # as the engine's last delivery said
            say=self.message.emit,
            parent=self,
        )
        doc = self.source.document()
        doc.contentsChanged.connect(self._source_changed)
        doc.modificationChanged.connect(self.modified_changed)
        self.source.cursorPositionChanged.connect(self.sending.cursor_moved)
        self.source.composition_changed.connect(self.sending.composition_changed)
        self.source.files_dropped.connect(self.files_dropped)
        self.scheduler.settled.connect(self.target_updated)
        self.scheduler.settled.connect(self._follow_filled)
        self.busy.connect(self._busy_changed)
        self.places = BlockPlaces(  # the source's blocks: on screen, under the cursor
            self.source, self.sync, lambda: self._worker, self.focused_target_pane, self
        )
        # the session's retry schedule: failed blocks retried once usable, unless edited first
        self.healer = Healer(self.session, self)
        self.flagged_blocks: Callable[[], int] | None = None  # set by the problems list
        self._wire_review()
        self.second = SecondPane(self, spec, self)  # a second target pane, in another language
        self.blocks = BlockCommands(
            self,
            worker=lambda: self.worker,
            session=self.session,
            healer=self.healer,
            under_cursor=self.places.block_under_cursor,
            under_selection=self.places.blocks_under_selection,
            show_rendered=lambda: self.show_raw(False),
            lang=lambda: self.review.lang,
            say=self.message.emit,
            busy=self.busy.emit,
        )
        self.healer.due.connect(self.blocks.retry_failed)
        self.deliveries = DeliveryReader(
            self.session,
            self.preview,
            self.scheduler,
            self.healer,
            self.second,
            news=self.engine_news.emit,
            source=self.places.take,
            refresh=lambda final: self.refresh_target(final=final),
            say=self.message.emit,
            parent=self,
        )

    # ---- construction --------------------------------------------------------------------------

    def _build_panes(self) -> None:
        dark = is_dark(self.palette())
        self.source = SourceEditor()
        self.source_highlighter = MarkdownHighlighter(self.source.document(), dark=dark)
        self.target_editor = TargetEditor()
        self.target_highlighter = MarkdownHighlighter(self.target_editor.document(), dark=dark)
        self.preview = TargetPreview()
        name(self.source, "Source", "The Markdown source. Tab inserts a tab; F6: the next pane")
        name(
            self.target_editor,
            "Translation (Markdown)",
            "The translation's Markdown: your corrections. Tab inserts a tab; F6: the next pane",
        )
        self.target_stack = QStackedWidget()
        self.target_stack.setObjectName("targetStack")
        self.target_stack.addWidget(self.preview)
        self.target_stack.addWidget(self.target_editor)
        self.source_title = ElidedLabel()  # (a narrow pane cuts a long name, whole on hover)
        self.source_title.setObjectName("sourceTitle")
        self.target_title = ElidedLabel()
        self.target_title.setObjectName("targetTitle")
        self.view_toggle = QToolButton()
        self.view_toggle.setObjectName("viewToggle")
        self.view_toggle.setAutoRaise(True)
        self.view_toggle.clicked.connect(self.toggle_view_requested)
        left, _ = titled_pane(self.source_title, self.source)
        right, self.target_layout = titled_pane(
            self.target_title, self.target_stack, self.view_toggle
        )
        head = self.view_toggle.parentWidget()
        header = head.layout() if head is not None else None
        assert isinstance(header, QHBoxLayout)
        self.read_only = ReadOnlyHints(header, self.target_layout, self)
        self.preview.typed.connect(self.read_only.show_hint)
        self.preview.correct_requested.connect(self.correct_block)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("paneSplitter")
        self.splitter.addWidget(left)
        self.splitter.addWidget(right)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setSizes([600, 600])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.splitter)
        self.scheduler = RenderScheduler(self)
        self.scheduler.add(self.target_editor, lambda: self.showing_raw, follows=True)
        self.scheduler.add(self.preview, lambda: self.target_stack.currentWidget() is self.preview)
        self.sync = SyncScroller(
            self.source, self.target_editor, self.preview, self.target_pane, self
        )
        self.scheduler.rendered.connect(self.sync.target_rendered)

    def _wire_review(self) -> None:
        ctl = self.review_ctl
        self.reviewed = ReviewPresentation(
            ctl, self.target_editor, self.preview, self.scheduler, self.review_summary, self
        )
        self.review_bar = self.reviewed.bar
        self.target_layout.addWidget(self.review_bar)
        self.margins = self.reviewed.margins
        self.underlines = self.reviewed.underlines
        self.preview_underlines = self.reviewed.preview_underlines
        self.target_edits = TargetEdits(
            ctl,
            self.target_editor,
            refresh=self.refresh_target,
            told=lambda: self._told,
            target_pane=self.target_pane,
            repaint_margins=self.repaint_margins,
            say=self.message.emit,
            parent=self,
        )
        self.disk = DiskWatcher(self)
        ctl.switch(self.review_key(), 0)  # the language the window starts in
        self._update_review_bar()

    def correct_block(self, index: int) -> None:
        """Open block ``index``'s Markdown for correction: the raw target, its cursor there."""
        cursor = self.preview.textCursor()
        cursor.setPosition(self.preview.block_start(index))
        self.preview.setTextCursor(cursor)
        self.show_raw(True, at=index)

    def insert_notice(self, widget: QWidget) -> None:
        """Show ``widget`` above the target pane (the first-run panel)."""
        self.target_layout.insertWidget(1, widget)

    # ---- what it is ----------------------------------------------------------------------------

    @property
    def name(self) -> str:
        return self.path.name if self.path else self.untitled_name

    @property
    def revision(self) -> int:
        """The newest revision sent to the worker (the session's counter)."""
        return self.session.revision

    @property
    def pending(self) -> frozenset[str]:
        """Blocks not translated yet (the target model's)."""
        return self.review_ctl.model.pending

    @property
    def source_blocks(self) -> tuple[render.Segment, ...]:
        """The source's blocks as the worker last parsed them (BlockPlaces holds them)."""
        return self.places.blocks

    @property
    def review(self) -> Review:
        """The active review (of this document, in the current mode and language)."""
        return self.review_ctl.review

    def review_key(self) -> str:
        """Which review the target belongs to: the language, or "simplify"."""
        spec = self._spec()
        return review_key(spec.mode, spec.target_lang)

    def text(self) -> str:
        return plain_text(self.source.document())

    def translation_text(self) -> str:
        """The whole target as exported: the reviewer's corrections, else the translation,
        else (not translated yet) the source; line ends as in the source file."""
        text = self.review_ctl.target_text()
        return text.replace("\n", self.newline) if self.newline != "\n" else text

    def update_titles(self) -> None:
        self.source_title.setText(f"Source — {self.name}")
        spec = self._spec()
        if spec.mode == "simplify":
            self.target_title.setText("Plain-language version")
        else:
            self.target_title.setText(f"Translation — {language_name(spec.target_lang)}")

    # ---- the engine thread ---------------------------------------------------------------------

    @property
    def worker(self) -> EngineWorker:
        if self._worker is None:
            raise RuntimeError("the engine is not started")
        return self._worker

    @property
    def engine_started(self) -> bool:
        return self._worker is not None

    def start_engine(self) -> None:
        worker = EngineWorker(
            self._spec(),
            engine_factory=self._engine_factory,
            translator_factory=self._translator_factory,
            clock=self.clock,
        )
        # Queued explicitly: emitted from the worker's Python thread, run in the GUI thread.
        worker.delivered.connect(self.deliveries.on_delivery, Qt.ConnectionType.QueuedConnection)
        worker.back_translated.connect(
            self.blocks.back_translated, Qt.ConnectionType.QueuedConnection
        )
        worker.start()
        self._worker = worker
        self.second.attach(worker)

    def stop_engine(self, timeout: float) -> bool:
        """Nothing the engine still sends reaches the view; True when its thread ended."""
        with contextlib.suppress(RuntimeError):
            self.worker.delivered.disconnect(self.deliveries.on_delivery)
        return self.worker.stop(timeout=timeout)

    def resend(self) -> None:
        """A new engine: the source goes to it again (when Live)."""
        self._sent_source = None
        if self._live():
            self.send_update()

    def send_update(self, *, force: bool = False) -> None:
        source = self.text()
        if source == self._sent_source and not force:
            return
        self._sent_source = source
        view = self.places.sent_view = self.places.view_lines()  # (the order of work)
        if self._opened:
            self._opened = False
            self.worker.open(source, self.session.next_revision(), view)
        else:
            self.worker.update(source, self.session.next_revision(), view)
        self.sending.sent()
        self.busy.emit(True)

    def respec(self) -> None:
        """Mode, language or provider changed: everything is translated again for them."""
        self.preview.expansions.clear()  # they were written for the previous mode or language
        self._sent_source = self.text()
        self.session.next_revision()
        self.review_warnings(self.review_ctl.switch(self.review_key(), self.revision))
        self.refresh_target()
        self.worker.set_spec(self._spec(), self._sent_source, self.revision)
        self.second.respec()
        self.busy.emit(True)

    def switch_review(self) -> None:
        """The spec changed with a new engine: its events start at the next revision."""
        self.review_warnings(self.review_ctl.switch(self.review_key(), self.revision + 1))

    def _session_changed(self, change: Change) -> None:
        """The session's stream: the busy light follows, the review's presentation (its
        margins' tooltips, the underlines) and whether the document is filled. (The window's
        parts subscribe to the session themselves: one way a Change reaches its listeners.)"""
        if change.busy is not None:
            self.busy.emit(change.busy)
        self.reviewed.session_changed(change)
        self._follow_filled()

    def filled(self) -> bool:
        """The one meaning of "filled" (the status bar's, and benchmarks/bench_window_fill.py's):
        the newest revision sent is settled, every block of it has its answer (none waiting, in
        flight or failed), and the target panes show them: the raw editor and the rendered view
        on show (a hidden rendered view renders when it is shown)."""
        return (
            not self._busy
            and bool(self.places.blocks)
            and not self.pending
            and self._told is self.review_ctl.segments()
            and self.scheduler.idle
            and not self.review_ctl.model.failed()  # (last: it looks at every block)
        )

    def _busy_changed(self, busy: bool) -> None:
        self._busy = busy
        self._follow_filled()

    def _follow_filled(self) -> None:
        filled = self.filled()
        if filled != self._filled:
            self._filled = filled
            self.filled_changed.emit(filled)

    def refresh_target(self, *, final: bool = True) -> None:
        """The panes converge to the model's segments (the same tuple while nothing changed).
        ``final``: False when only partial answers grew (see RenderScheduler.kick)."""
        wanted = self.review_ctl.segments()
        if wanted is not self._told:
            self._told = wanted
            self.target_editor.want(wanted)
            self.preview.want(wanted)
            self.scheduler.kick(final=final)

    # ---- editing -------------------------------------------------------------------------------

    def _source_changed(self) -> None:
        self.healer.cancel()  # the edit sends the failed blocks again
        if self.sending.edited():
            self.typing.emit()

    def focused_target_pane(self) -> TargetEditor | TargetPreview | None:
        """The target pane that has the window's focus, if one has."""
        widget = self.window().focusWidget()
        for pane in (self.target_editor, self.preview):
            if widget is pane:
                return pane
        return None

    # ---- loading, saving, reloading ------------------------------------------------------------

    def load(
        self,
        text: str,
        path: Path | None,
        *,
        name: str = UNTITLED,
        restored: Review | None = None,
        autosave_key: str | None = None,
        modified: bool = False,
    ) -> None:
        """Show ``text`` as the source. The previous document's review is saved first; this
        one's is read from its review file (or ``restored`` from a crash-recovery copy)."""
        self._review_problems(self.review_ctl.leave())
        self.newline = "\r\n" if "\r\n" in text else "\n"
        self._set_path(path)
        self.untitled_name = name
        self.preview.expansions.clear()
        warnings = self.review_ctl.open(
            path,
            self.review_key(),
            floor=self.revision + 1,
            restored=restored,
            autosave_key=autosave_key,
        )
        self.review_warnings(warnings)
        self.second.reset(self.revision + 1)
        self.disk.watch(path, text if path is not None else None)
        self.source.setPlainText(render.normalize(text))
        self.source.document().setModified(modified)
        self.source.moveCursor(QTextCursor.MoveOperation.Start)
        self.renamed.emit()
        self.sending.stop()
        self._opened = True
        if self._live():
            self.send_update()

    def saved(self, path: Path, text: str) -> None:
        """``text`` was written to ``path``: the document is that file now, unmodified."""
        if path != self.path:
            self.disk.watch(path, text)
        else:
            self.disk.known(text)
        self._set_path(path)
        self.source.document().setModified(False)
        self._review_problems(self.review_ctl.saved(path, text))
        self.renamed.emit()
        self.file_saved.emit(path)

    def _set_path(self, path: Path | None) -> None:
        self.path = path
        self.preview.image_folder = path.parent if path is not None else None

    def reload(self, text: str) -> None:
        """The file changed on disk: take its text (one undoable edit), re-align the review."""
        new = render.normalize(text)
        self.newline = "\r\n" if "\r\n" in text else "\n"
        self.source.replace_text(new)
        self.source.document().setModified(False)
        self.review_ctl.realign_now(new, self.revision + 1)
        self.refresh_target()
        self.sending.stop()
        if self._live():
            self.send_update()

    def close_document(self) -> None:
        """The window closes: no more edits go out, the review file is written."""
        self.sending.stop()
        self.healer.cancel()
        self.disk.watch(None, None)
        self._review_problems(self.review_ctl.close())  # review file written, copy removed

    # ---- the review's presentation -------------------------------------------------------------

    def repaint_margins(self) -> None:
        self.reviewed.repaint_margins()

    def review_summary(self) -> ReviewSummary:
        """The review's counts, its flagged blocks counted by the problems list (one count of
        them in every label)."""
        summary = self.review_ctl.summary()
        if self.flagged_blocks is not None:
            summary = dataclasses.replace(summary, flagged=self.flagged_blocks())
        return summary

    def _update_review_bar(self) -> None:
        self.reviewed.update_bar()

    def review_warnings(self, warnings: list[str]) -> None:
        for warning in warnings:
            self.problem.emit("Review file problem", warning)

    def _review_problems(self, problems: list[str]) -> None:
        for problem in problems:
            self.problem.emit("The review file could not be written", problem)

    # ---- target view, focus and palette --------------------------------------------------------

    @property
    def showing_raw(self) -> bool:
        return self.target_stack.currentWidget() is self.target_editor

    def show_raw(self, raw: bool, at: int | None = None) -> None:
        """Switch the target's view; with the reader's cursor in the target (or ``at``: this
        block), the new view opens on that block, as far down as it was, the cursor in it, and
        the source follows (Ctrl+R)."""
        old = self.target_pane()
        led = self.focused_target_pane() is old and bool(old.shown)
        index = old.index_at(old.textCursor().position()) if led else at
        y = old.cursorRect().top()
        self.target_stack.setCurrentWidget(self.target_editor if raw else self.preview)
        self.read_only.rendered(not raw)
        new = self.target_pane()
        if index is not None and new is not old:
            new.step(time.perf_counter() + RESTORE_STEP_S)  # what it lags behind, at once
            new.setFocus()
            self.sync.place(new, index, y)
        label = "Show rendered" if raw else "Show Markdown"
        self.view_toggle.setText(label)
        self.view_toggle.setToolTip(f"{label} (Ctrl+R)")
        self.raw_changed.emit(raw)
        self.scheduler.kick()
        self.sync.target_rendered()

    def target_pane(self) -> TargetEditor | TargetPreview:
        """The target pane on show."""
        return self.target_editor if self.showing_raw else self.preview

    def focus_source(self) -> None:
        self.source.setFocus()

    def focus_target(self) -> None:
        self.target_pane().setFocus()

    def apply_palette(self) -> None:
        """The palette changed (light or dark): highlighting, scroll bars and HTML follow."""
        dark = is_dark(self.palette())
        self.source_highlighter.set_dark(dark)
        self.target_highlighter.set_dark(dark)
        for pane in (self.source, self.target_editor):
            flat_scroll_bars(pane)
        self.preview.apply_palette()
        if self.second.pane is not None:
            self.second.pane.preview.apply_palette()
        self.scheduler.kick()
