"""One open document: the source on the left, its live translation on the right, and what
belongs to it alone (its file, line ends, review, file watcher and the engine thread that
translates it). The window around it keeps the menus, selectors and status bar.

Data flow: an edit → a wait set by what was typed and the limiter's room (the core's
fastdesk.translate.sending; IME composition respected) → the worker thread's LiveSession →
throttled batches of target segments and events → the panes apply only what changed.

The document's state has one owner, its session (fastdesk.review.session.TargetSession, held by
the review controller): it numbers the revisions sent to the worker and alone judges what is
stale, reads each worker batch once, and says what changed in one stream that the panes, the
margin, the review bar, the status bar and the window follow. The panes are told the target
model's segments and converge to them; they keep no target of their own.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QSplitter,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from fastdesk.clock import Clock, SystemClock
from fastdesk.document.html import contexts
from fastdesk.document.languages import language_name
from fastdesk.document.text_ends import common_prefix, common_suffix
from fastdesk.review.model import Review, ReviewSummary
from fastdesk.review.session import Change, TargetSession, failed_blocks
from fastdesk.translate.events import BlockDone, BlockFailed, EngineEvent, Expansion
from fastdesk.translate.sending import Kind, SendPolicy, what_was_typed
from fastdesk.ui.bridge import segments as render
from fastdesk.ui.bridge.threads import gui_first
from fastdesk.ui.bridge.worker import EngineFactory, EngineWorker, SessionFactory, WorkerBatch
from fastdesk.ui.document.disk_watch import DiskWatcher
from fastdesk.ui.document.heal import Healer
from fastdesk.ui.document.review_view import ReviewPresentation
from fastdesk.ui.document.second_target import SecondPane
from fastdesk.ui.panes.common import flat_scroll_bars, is_dark, plain_text
from fastdesk.ui.panes.elided import ElidedLabel
from fastdesk.ui.panes.highlighter import MarkdownHighlighter
from fastdesk.ui.panes.incremental import RenderScheduler
from fastdesk.ui.panes.preview import TargetPreview
from fastdesk.ui.panes.read_only import ReadOnlyHints
from fastdesk.ui.panes.source_editor import SourceEditor
from fastdesk.ui.panes.sync_scroll import SyncScroller
from fastdesk.ui.panes.target_editor import TargetEditor
from fastdesk.ui.review.back_translation import BackTranslations
from fastdesk.ui.review.controller import ReviewController, review_key

if TYPE_CHECKING:
    from fastdesk.translate.engine import JobSpec

UNTITLED = "Untitled"
RESTORE_STEP_S = 0.015  # an undo updates the pane at once for this long; the scheduler goes on


class DocumentView(QWidget):
    """The two panes of one document and its state. ``spec()`` and ``live()`` are the window's
    current job spec and Live switch; what the view has to say goes out through its signals."""

    message = Signal(str, int)  # a passing status-bar message (text, milliseconds)
    problem = Signal(str, str)  # an error for the status bar (message, detail)
    busy = Signal(bool)  # work for this document is in flight, or not any more
    engine_news = Signal(object)  # each WorkerBatch: what it says of providers and health
    session_changed = Signal(object)  # the session's stream (a Change), for the window
    renamed = Signal()  # the document's name (or path) changed
    modified_changed = Signal(bool)
    raw_changed = Signal(bool)  # the target shows raw Markdown (True) or the rendered view
    toggle_view_requested = Signal()  # the pane's Show Markdown / Show rendered button
    files_dropped = Signal(list)  # Markdown files dropped on the source
    target_updated = Signal()  # the target panes finished applying what the worker sent
    typing = Signal()  # the editor typed into the source (the window keeps the provider warm)
    file_saved = Signal(object)  # the source (and its review file) written to this Path

    def __init__(
        self,
        *,
        spec: Callable[[], JobSpec],
        live: Callable[[], bool],
        debounce_ms: int,
        engine_factory: EngineFactory,
        session_factory: SessionFactory,
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
        self._session_factory = session_factory
        self._worker: EngineWorker | None = None
        self.path: Path | None = None
        self.untitled_name = UNTITLED
        self.newline = "\n"
        self._sent_source: str | None = None
        self._opened = False  # the next send is a newly opened document's (worker.open)
        self._source_blocks: tuple[render.Segment, ...] = ()
        self._told: tuple[render.Segment, ...] = ()  # the model's segments the panes were told
        self.review_ctl = ReviewController(
            lambda: plain_text(self.source.document()),
            lambda: (self.source.document().revision(), self.source.document().isModified()),
            self,
            clock=self.clock,
        )
        self.session: TargetSession = self.review_ctl.session
        self.session.subscribe(self._session_changed)
        self._build_panes()
        self._debounce = QTimer(self)  # until the edit goes: its interval is the policy's wait
        self._debounce.setSingleShot(True)
        # Precise: a coarse timer may fire up to 5% late (15 ms of 300) on every edit.
        self._debounce.setTimerType(Qt.TimerType.PreciseTimer)
        self._debounce.setInterval(debounce_ms)
        self._debounce.timeout.connect(self._debounced)
        # the debounce setting: its upper bound
        self.sending = SendPolicy(debounce_ms / 1000, clock=self.clock)
        self._edit_line = -1  # the line of the last edit not sent yet (-1: none)
        doc = self.source.document()
        doc.contentsChanged.connect(self._source_changed)
        doc.modificationChanged.connect(self.modified_changed)
        self.source.cursorPositionChanged.connect(self._cursor_moved)
        self.source.composition_changed.connect(self._composition_changed)
        self.source.files_dropped.connect(self.files_dropped)
        self.scheduler.settled.connect(self.target_updated)
        self._visible_timer = QTimer(self)  # the reader's place, for the order of work
        self._visible_timer.setSingleShot(True)
        self._visible_timer.setInterval(150)
        self._visible_timer.timeout.connect(self._send_visible)
        self._sent_visible: frozenset[str] = frozenset()
        self.source.verticalScrollBar().valueChanged.connect(self._visible_soon)
        # the session's retry schedule: failed blocks retried once usable, unless edited first
        self.healer = Healer(self.session, self)
        self.healer.due.connect(self.retry_failed)
        self.flagged_blocks: Callable[[], int] | None = None  # set by the problems list
        self._wire_review()
        self.second = SecondPane(self, spec, self)  # a second target pane, in another language

    # ---- construction --------------------------------------------------------------------------

    def _build_panes(self) -> None:
        dark = is_dark(self.palette())
        self.source = SourceEditor()
        self.source_highlighter = MarkdownHighlighter(self.source.document(), dark=dark)
        self.target_editor = TargetEditor()
        self.target_highlighter = MarkdownHighlighter(self.target_editor.document(), dark=dark)
        self.preview = TargetPreview()
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
        left, _ = _pane(self.source_title, self.source)
        right, self.target_layout = _pane(self.target_title, self.target_stack, self.view_toggle)
        head = self.view_toggle.parentWidget()
        header = head.layout() if head is not None else None
        assert isinstance(header, QHBoxLayout)
        self.read_only = ReadOnlyHints(header, self.target_layout, self)
        self.preview.typed.connect(self.read_only.show_hint)
        self.preview.correct_requested.connect(self.correct_block)
        self.back_translations = BackTranslations(
            self, lambda b, t: self.worker.back_translate(b, t)
        )
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
        ctl.stale.connect(self._went_stale)
        ctl.restored.connect(self._restored)
        self.target_editor.user_edited.connect(self._target_edited)
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
        return self._source_blocks

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
            session_factory=self._session_factory,
            clock=self.clock,
        )
        # Queued explicitly: emitted from the worker's Python thread, run in the GUI thread.
        worker.batch.connect(self._on_batch, Qt.ConnectionType.QueuedConnection)
        worker.back_translated.connect(self._back_translated, Qt.ConnectionType.QueuedConnection)
        worker.start()
        self._worker = worker
        self.second.attach(worker)

    def stop_engine(self, timeout: float) -> bool:
        """Nothing the engine still sends reaches the view; True when its thread ended."""
        with contextlib.suppress(RuntimeError):
            self.worker.batch.disconnect(self._on_batch)
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
        if self._opened:
            self._opened = False
            self.worker.open(source, self.session.next_revision())
        else:
            self.worker.update(source, self.session.next_revision())
        self.sending.sent()
        self._edit_line = -1
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

    def retranslate(self, block_ids: list[str]) -> None:
        self.worker.retranslate(block_ids)
        self.busy.emit(True)

    def retranslate_section(self) -> None:
        block_id = self.block_under_cursor()
        if block_id:
            self.retranslate([block_id])

    def retry_failed(self) -> int:
        """Translate again the blocks whose request failed (the target model knows which);
        returns how many were asked for."""
        self.healer.cancel()
        failed = self.review_ctl.model.failed()
        if failed:
            self.retranslate(failed)
            self.message.emit(f"Retrying {failed_blocks(len(failed))}…", 3000)
        else:
            self.message.emit("No failed blocks to retry", 3000)
        return len(failed)

    def expand_section(self) -> None:
        """Ask the model to elaborate the section under the cursor (shown marked as generated)."""
        block_id = self.block_under_cursor()
        if not block_id:
            return
        self.show_raw(False)
        self.worker.expand(block_id)
        self.message.emit("Expanding the section…", 3000)

    def back_translate_block(self) -> None:
        """The translation of the selected blocks (or the block under the cursor), in either
        pane, translated back into the source's language, shown beside their source (for an
        editor who does not read the target's; fastdesk.ui.review.back_translation)."""
        doc = self.session.doc
        keys = self.blocks_under_selection() if doc is not None else []
        if doc is None or not keys:
            self.message.emit("Put the cursor in a translated block first", 3000)
            return
        model = self.session.model
        blocks = [(k, doc.by_id(k).text, model.text_of(k, final=True)) for k in keys]
        if self.back_translations.request(self.review.lang, blocks):
            self.message.emit("Translating back…", 3000)

    @Slot(str, str, str)
    def _back_translated(self, block_id: str, text: str, back: str) -> None:
        if self.back_translations.answered(block_id, text, back) is False:
            self.message.emit("No back-translation: the block changed, or no model answered", 5000)

    @Slot(object)  # a declared slot: PySide's cross-thread delivery is safest with one
    def _on_batch(self, batch: WorkerBatch) -> None:
        with gui_first():
            self._apply_batch(batch)

    def _apply_batch(self, batch: WorkerBatch) -> None:
        """The batch is read once, by the session (see _session_changed for what follows)."""
        self.session.take(
            batch.revision,
            batch.events,
            doc=batch.doc,
            busy=batch.busy,
            usable_in_s=batch.usable_in_s,
            block_s=batch.block_s,
        )
        if batch.doc is not None:
            self.preview.set_contexts(contexts(batch.doc))  # references, list numbers
            self.scheduler.kick()  # a block whose context changed renders again
        self.engine_news.emit(batch)
        self.healer.follow()  # the session's retry schedule, armed or cancelled
        for event in batch.events:
            if isinstance(event, Expansion):
                self.preview.set_expansion(event.block_id, event.text)
                self.scheduler.kick()
                if event.done:
                    self.message.emit("Section expanded (marked as generated)", 4000)
        if batch.source is not None:
            self._source_blocks = batch.source
            self.sync.set_source_blocks(batch.source)
            self._visible_soon()
        self.second.take(batch)  # the second target pane's share, if one is open
        # only partial answers that grew: a hidden raw pane waits for a pause (RenderScheduler)
        self.refresh_target(final=batch.doc is not None or any(map(_final, batch.events)))

    def _session_changed(self, change: Change) -> None:
        """The session's stream: the busy light follows, the review's presentation (its
        margins' tooltips, the underlines) and the window hear of it."""
        if change.busy is not None:
            self.busy.emit(change.busy)
        self.reviewed.session_changed(change)
        self.session_changed.emit(change)

    def refresh_target(self, *, final: bool = True) -> None:
        """The panes converge to the model's segments (the same tuple while nothing changed).
        ``final``: False when only partial answers grew (see RenderScheduler.kick)."""
        wanted = self.review_ctl.segments()
        if wanted is not self._told:
            self._told = wanted
            self.target_editor.want(wanted)
            self.preview.want(wanted)
            self.scheduler.kick(final=final)

    def visible_source_blocks(self) -> frozenset[str]:
        """Ids of the source blocks on screen."""
        view = self.source.viewport()
        top = self.source.cursorForPosition(QPoint(0, 0)).position()
        bottom = self.source.cursorForPosition(QPoint(view.width(), view.height())).position()
        first = self.sync.source_block_index(top)
        last = self.sync.source_block_index(bottom)
        if first is None or last is None:
            return frozenset()
        return frozenset(s.key for s in self._source_blocks[first : last + 1])

    def _visible_soon(self) -> None:
        """Send the blocks on screen within the timer's interval of the first change, not of the
        last: while a stream keeps nudging the source's scroll bar (sync scroll), a restarted
        timer never fired, and the blocks a reader scrolled to waited behind the whole backlog."""
        if not self._visible_timer.isActive():
            self._visible_timer.start()

    def _send_visible(self) -> None:
        """What is on screen is translated before the rest (after an edit)."""
        visible = self.visible_source_blocks()
        if self._worker is not None and visible != self._sent_visible:
            self._sent_visible = visible
            self._worker.set_visible(visible)

    # ---- editing -------------------------------------------------------------------------------

    def set_debounce(self, ms: int) -> None:
        self._debounce.setInterval(ms)
        self.sending.bound_s = ms / 1000

    def stop_debounce(self) -> None:
        self._debounce.stop()

    def _source_changed(self) -> None:
        self.healer.cancel()  # the edit sends the failed blocks again
        if self._live() and not self.source.composing:
            self._send_after(self._typed())
            self.typing.emit()

    def _composition_changed(self, composing: bool) -> None:
        if composing:
            self._debounce.stop()
        elif self._live():
            self._send_after(self._typed())

    def _typed(self) -> Kind:
        """What the text before the cursor says about the edit just made."""
        cursor = self.source.textCursor()
        self._edit_line = cursor.blockNumber()
        line = cursor.block().text()
        return what_was_typed(line, py_index(line, cursor.positionInBlock()))

    def _cursor_moved(self) -> None:
        """Leaving the line of an edit not sent yet sends it now."""
        moved = self.source.textCursor().blockNumber() != self._edit_line
        if moved and self._edit_line >= 0 and self._debounce.isActive():
            self._send_after("left")

    def _send_after(self, kind: Kind) -> None:
        headroom = self._worker.headroom if self._worker is not None else None
        self._debounce.start(round(self.sending.delay_s(kind, headroom) * 1000))
        note = self.sending.take_note()
        if note:
            self.message.emit(note, 10000)

    def _debounced(self) -> None:
        if not self.source.composing and self._live():
            self.send_update()

    def block_under_cursor(self) -> str | None:
        pane = self.focused_target_pane()
        if pane is not None:
            index: int | None = pane.index_at(pane.textCursor().position())
        else:
            index = self.sync.source_block_index(self.source.textCursor().position())
        if index is None or not 0 <= index < len(self._source_blocks):
            return None
        return self._source_blocks[index].key

    def blocks_under_selection(self) -> list[str]:
        """The blocks the selection touches in the focused pane (the source, unless a target
        pane has the focus); the block under the cursor when nothing is selected."""
        pane = self.focused_target_pane()
        cursor = (pane or self.source).textCursor()
        ends = (cursor.selectionStart(), max(cursor.selectionStart(), cursor.selectionEnd() - 1))
        find = pane.index_at if pane is not None else self.sync.source_block_index
        first, last = (find(p) for p in ends)
        blocks = self._source_blocks
        if first is None or last is None:
            return []
        return [b.key for b in blocks[max(0, first) : min(last + 1, len(blocks))]]

    def focused_target_pane(self) -> TargetEditor | TargetPreview | None:
        """The target pane that has the window's focus, if one has."""
        widget = self.window().focusWidget()
        for pane in (self.target_editor, self.preview):
            if widget is pane:
                return pane
        return None

    def _target_edited(self, position: int, removed: int, added: int) -> None:
        """The user typed in the raw target: the touched blocks become "edited"."""
        editor = self.target_editor
        view = editor.shown_view()
        text = plain_text(editor.document())
        typed = (position, removed, added)
        changes = self.review_ctl.user_edit(view, text, py_index(text, position), typed)
        if not changes and text != view.text:
            editor.undo_user_edit()  # typed into an empty pane: no block to keep it
            return
        editor.take_user_edit(view, changes)
        self.review_ctl.model.touch(bid for bid, _text in changes)
        self.refresh_target()
        editor.want(self._told)  # even when equal: what it wanted before is outdated

    def _restored(self, block_ids: list[str]) -> None:
        """Undo or redo put reviewer's records back: the panes follow, the cursor goes there."""
        if not block_ids:
            self.message.emit("Nothing to undo there: that block's source changed since", 5000)
            return
        self.refresh_target()
        pane = self.target_pane()
        pane.step(time.perf_counter() + RESTORE_STEP_S)  # shown at once unless far behind
        keys = [seg.key for seg in pane.shown]
        if block_ids[0] in keys:
            cursor = QTextCursor(pane.document())
            cursor.setPosition(pane.starts()[keys.index(block_ids[0])])
            pane.setTextCursor(cursor)
            pane.ensureCursorVisible()
        self.repaint_margins()

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
        self._debounce.stop()
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
        self._replace_source(new)
        self.source.document().setModified(False)
        self.review_ctl.realign_now(new, self.revision + 1)
        self.refresh_target()
        self._debounce.stop()
        if self._live():
            self.send_update()

    def _replace_source(self, new: str) -> None:
        """Replace only what differs (one undoable edit): the view and cursor stay put."""
        doc = self.source.document()
        old = plain_text(doc)
        head = common_prefix(old, new)
        tail = common_suffix(old, new, min(len(old), len(new)) - head)
        start = render.qt_len(old[:head])
        end = start + render.qt_len(old[head : len(old) - tail])
        cursor = QTextCursor(doc)
        cursor.beginEditBlock()
        cursor.setPosition(start)
        cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        cursor.insertText(new[head : len(new) - tail])
        cursor.endEditBlock()

    def close_document(self) -> None:
        """The window closes: no more edits go out, the review file is written."""
        self._debounce.stop()
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

    def _went_stale(self, block_ids: list[str]) -> None:
        count = len(block_ids)
        self.message.emit(
            f"Source changed under {count} edit{'s' if count != 1 else ''}: "
            "re-translate or keep yours",
            8000,
        )

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


def _pane(
    title: QLabel, body: QWidget, corner: QWidget | None = None
) -> tuple[QWidget, QVBoxLayout]:
    """A pane: a small header line (title, optional button on the right) above the body."""
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(2)
    head = QWidget()
    head.setFixedHeight(max(28, title.sizeHint().height() + 8))
    header = QHBoxLayout(head)
    header.setContentsMargins(6, 0, 2, 0)
    font = title.font()
    font.setBold(True)
    title.setFont(font)
    header.addWidget(title, 1)
    if corner is not None:
        corner.setMaximumHeight(head.height() - 2)
        header.addWidget(corner)
    layout.addWidget(head)
    layout.addWidget(body, 1)
    return box, layout


def _final(event: EngineEvent) -> bool:
    """The event settles a block (not a partial answer that grew)."""
    return isinstance(event, BlockDone | BlockFailed)


def py_index(text: str, position: int) -> int:
    """A Qt (UTF-16) position in ``text`` as a Python index."""
    if text.isascii():
        return position
    return len(text.encode("utf-16-le")[: 2 * position].decode("utf-16-le", "ignore"))
