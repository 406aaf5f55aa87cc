"""The open document's review, wired for the window (GUI thread; the rules are
fastdesk.review.model's).

One ``Review`` per review key: the target language when translating (``"fr"``), ``"simplify"``
when simplifying (a plain-language rewrite is in the source's own language, whatever language is
selected, so switching the language must not lose it). The key is also the language part of the
export's file name: guide.fr.md, guide.simplify.md.

What it does for the window, and why here:

* realigns the active review on each new source revision — the Document comes parsed from the
  worker thread (parsing 500 blocks takes ~12 ms, a frame), and only from revisions made after
  the document was opened, so a late delivery of the previous document cannot detach its edits;
* holds the session (fastdesk.review.session.DocumentSession) of the active review: the one
  place that takes the engine's events (stale ones dropped there), whose target model composes
  what the target panes, the margin and the export show, and whose stream of changes the
  controller turns into its Qt signals (what the reviewer does goes into the same stream);
* attributes the user's edits of the raw target to blocks;
* records each thing the reviewer does as an undoable step (fastdesk.ui.review.undo), one
  QUndoStack per review;
* writes the review file next to the source, the exports, and the crash-safety copy (every few
  seconds, only when something the user did is unsaved, written off the GUI thread).
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable, Collection, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QUndoGroup, QUndoStack

from fastdesk.clock import Clock, duration
from fastdesk.config.fileio import os_error_line
from fastdesk.document.blocks import Document, parse
from fastdesk.document.target import TargetView
from fastdesk.review.autosave import Autosaver
from fastdesk.review.export import export_bilingual, export_path, export_target, html_export_path
from fastdesk.review.model import (
    STATE_STYLES,
    BlockInfo,
    Review,
    ReviewSummary,
    Snapshot,
    diff_target_edit,
    flag_text,
    load_review,
    review_path,
    save_review,
)
from fastdesk.review.session import Change, DocumentSession
from fastdesk.review.target_model import Segment, TargetModel
from fastdesk.translate.events import BlockDone, EngineEvent
from fastdesk.ui.bridge.threads import background_priority
from fastdesk.ui.plain import escape as _escape
from fastdesk.ui.review.undo import ReviewStep, Typed

log = logging.getLogger("fastdesk.ui")

AUTOSAVE_MS = 3000
SIMPLIFY_KEY = "simplify"
_untitled = itertools.count(1)  # autosave names of untitled documents, per process
T = TypeVar("T")


FIRST_KEY = "fr"  # the review a document's session starts on, until the window says its own


def new_session(clock: Clock | None = None) -> DocumentSession:
    """A document's session, on the review a ReviewController starts with: its state in one
    language (revisions, stale events, what the target shows, the retry schedule, and the
    stream of what changed). ``clock``: the window's one clock."""
    return DocumentSession(Review(None, FIRST_KEY), clock=clock)


def review_key(mode: str, lang: str) -> str:
    return SIMPLIFY_KEY if mode == "simplify" else lang


class ReviewController(QObject):
    """See the module docstring. ``source_text()`` is the editor's text; ``source_state()`` its
    (revision counter, modified flag), cheap to ask on every autosave tick."""

    changed = Signal()  # states, texts or counts may have changed
    stale = Signal(list)  # block ids whose source just changed under a reviewer's text
    autosaved = Signal(str)  # the autosave file written (from the writer thread, queued)
    restored = Signal(list)  # undo or redo put these blocks' reviewer's records back

    def __init__(
        self,
        source_text: Callable[[], str],
        source_state: Callable[[], tuple[int, bool]],
        parent: QObject | None = None,
        *,
        session: DocumentSession,
    ) -> None:
        """``session``: the document's (its view owns it: fastdesk.ui.document.view), on a
        review of its own (``new_session``)."""
        super().__init__(parent)
        self._source_text = source_text
        self._source_state = source_state
        self.path: Path | None = None
        self.key = FIRST_KEY
        self.session = session
        self.review = session.review
        self.reviews: dict[str, Review] = {self.key: self.review}
        self.session.subscribe(self._session_changed)
        self.undo_group = QUndoGroup(self)  # the reviewer's steps, one stack per review key
        self._stacks: dict[str, QUndoStack] = {}
        self._group: tuple[str, Snapshot] | None = None  # a group's name and where it started
        self._activate_stack()
        self.user_generation = 0  # bumped by everything the reviewer does
        self._saved_generation = 0
        self._autosaved: tuple[Any, ...] | None = None
        self._untitled = next(_untitled)
        self.autosaver = Autosaver.for_document(None, self._untitled)
        self._pool = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="fastdesk-autosave", initializer=background_priority
        )
        self._closed = False
        self.timer = QTimer(self)
        self.timer.setInterval(AUTOSAVE_MS)
        self.timer.timeout.connect(self.autosave)
        self.timer.start()

    # ---- documents ---------------------------------------------------------------------------

    def open(
        self,
        path: Path | None,
        key: str,
        *,
        floor: int,
        restored: Review | None = None,
        autosave_key: str | None = None,
    ) -> list[str]:
        """A document was loaded (its first revision will be ``floor``); returns warnings
        about its review file. ``restored``: the review from a crash-recovery copy."""
        previous = self.review
        self.path = path
        self.key = key
        warnings: list[str] = []
        if restored is not None:
            review = restored
            review.source_path, review.lang = path, key
        elif path is not None:
            review, warnings = load_review(path, key)
        else:
            review = Review(None, key)
        if previous.lang == key:
            carry_answers(previous, review)
        self.review = review
        self.reviews = {key: review}
        self.session.reset(review, floor)
        for stack in self._stacks.values():  # a new document: nothing of the last to undo
            self.undo_group.removeStack(stack)
            stack.deleteLater()
        self._stacks = {}
        self._activate_stack()
        self.user_generation = 1 if restored is not None else 0
        self._saved_generation = 0
        self._autosaved = None
        if autosave_key is not None:
            self.autosaver = Autosaver(autosave_key, path=path)
        else:
            self.autosaver = Autosaver.for_document(path, self._untitled)
        self._publish()
        return warnings

    def leave(self) -> list[str]:
        """The document is being closed or replaced: its reviews go to the review file, its
        crash-safety copy is removed. Returns problems to show (never raises)."""
        problems = self.save_reviews()
        self._discard_autosave()
        return problems

    def save_reviews(self, text: str | None = None) -> list[str]:
        """Write every language's review with work into the source's review file (after the
        source was saved: ``text`` is what was written). Untitled documents have none."""
        if self.path is None:
            return []
        problems = []
        current = text if text is not None else self._source_text()
        doc: Document | None = None
        for review in self.reviews.values():
            review.source_path = self.path
            if not (review.has_work() or review_path(self.path).exists()):
                continue
            if review.doc is None or review.doc.source != current:
                doc = doc or parse(current)
                self._realign(review, doc)
            try:
                save_review(review)
            except OSError as exc:
                problems.append(os_error_line(review_path(self.path), exc))
        if not problems:
            self._saved_generation = self.user_generation
        return problems

    def saved(self, path: Path, text: str) -> list[str]:
        """The source was saved (maybe under a new name): reviews follow, the copy goes."""
        if path != self.path:
            self._discard_autosave()
            self.path = path
            self.autosaver = Autosaver.for_document(path, self._untitled)
        problems = self.save_reviews(text)
        self._discard_autosave()
        return problems

    def switch(self, key: str, revision: int) -> list[str]:
        """Mode or language changed (from ``revision`` on): that key's review becomes active."""
        if key == self.key:
            self.session.switch(self.review, revision)
            return []
        warnings: list[str] = []
        leaving = self.review
        if self.path is not None and leaving.has_work():
            # the crash-safety copy holds the active review only: the one left goes to the
            # review file now, so that a crash cannot lose it
            try:
                save_review(leaving)
            except OSError as exc:
                warnings.append(os_error_line(review_path(self.path), exc))
        review, found = self.review_for(key)
        warnings += found
        self.key, self.review = key, review
        self.session.switch(review, revision)
        self._activate_stack()
        self._publish()
        return warnings

    def review_for(self, key: str) -> tuple[Review, list[str]]:
        """That key's review of this document (read from the review file the first time) and
        warnings: kept with the others, so it is saved with them (a second target pane's)."""
        review = self.reviews.get(key)
        if review is not None:
            return review, []
        warnings: list[str] = []
        if self.path is not None:
            review, warnings = load_review(self.path, key)
        else:
            review = Review(None, key)
        self.reviews[key] = review
        return review, warnings

    def set_doc(self, doc: Document, revision: int) -> None:
        """The worker parsed a new revision of the source."""
        self._model_doc(doc, revision)

    def realign_now(self, text: str, floor: int) -> None:
        """The source was replaced from disk: realign at once (the stale blocks show now), and
        ignore the worker's documents from before ``floor``."""
        self._model_doc(parse(text), self.session.raise_doc_floor(floor))

    @property
    def doc(self) -> Document | None:
        return self.model.doc

    def _model_doc(self, doc: Document, revision: int) -> None:
        before = self.review.generation
        stale = self.session.set_doc(doc, revision)
        if stale or self.review.generation != before:
            self._publish(stale, review=self.review.generation != before)

    def _realign(self, review: Review, doc: Document) -> None:
        before = review.generation
        stale = review.realign(doc)
        if review is self.review and (stale or review.generation != before):
            self._publish(stale, review=review.generation != before)

    def _ensure_doc(self) -> None:
        if self.model.doc is None:
            self.realign_now(self._source_text(), self.session.doc_floor)

    # ---- the engine ----------------------------------------------------------------------------

    def apply_events(self, events: Sequence[EngineEvent]) -> bool:
        """The engine's events; True (and ``changed`` emitted) when a block's state or text
        changed."""
        changed = self.session.apply(events)
        if changed:
            self._publish()
        return changed

    def idle(self) -> None:
        self.model.idle()

    @property
    def model(self) -> TargetModel:
        """What the target shows (the session's)."""
        return self.session.model

    def _publish(self, stale: Sequence[str] = (), *, review: bool = True) -> None:
        """Something changed outside the engine's deliveries: into the session's one stream."""
        self.session.publish(Change(blocks=None, review=review, stale_edits=tuple(stale)))

    def _session_changed(self, change: Change) -> None:
        """The session's stream, as the controller's Qt signals."""
        if change.stale_edits:
            self.stale.emit(list(change.stale_edits))
        if change.review:
            self.changed.emit()

    def segments(self) -> tuple[Segment, ...]:
        """What the target panes show (see TargetModel.segments)."""
        return self.model.segments()

    # ---- the reviewer ----------------------------------------------------------------------------

    def user_edit(
        self,
        view: TargetView,
        new_text: str,
        at: int | None,
        typed: tuple[int, int, int] | None = None,
    ) -> list[tuple[str, str]]:
        """The user changed the target pane from ``view`` to ``new_text``: the touched blocks
        get the user's text (one undoable step; ``typed``: the pane's (position, removed,
        added), so that keystrokes merge into one). Returns the attribution (block id, new
        text) for the pane."""
        self._ensure_doc()
        changes = diff_target_edit(view, new_text, at=at)
        key = Typed(changes[0][0], *typed) if typed and len(changes) == 1 else None
        label = "Typing" if key and key.removed + key.added == 1 else "Edit"
        self._step(label, [bid for bid, _text in changes], partial(self._edit, changes), key)
        if changes:
            self._touched()
        return changes

    def _edit(self, edits: list[tuple[str, str]]) -> None:
        for block_id, text in edits:
            try:
                self.review.edit(block_id, text)
            except KeyError:  # a block the source lost while the pane caught up
                log.warning("an edit of block %s could not be kept: not in the source", block_id)

    def approve(self, block_id: str) -> bool:
        return self._did(self._step("Approve", [block_id], partial(self.review.approve, block_id)))

    def unapprove(self, block_id: str) -> bool:
        """Withdraw an approval (an edit stays as an edit)."""
        step = partial(self.review.unapprove, block_id)
        return self._did(self._step("Withdraw Approval", [block_id], step))

    def approve_all(self) -> int:
        """Approve every block Review.approvable names: one undoable step."""
        ids = self.review.approvable()
        count = self._step(f"Approve All ({len(ids)})", ids, self.review.approve_all)
        self._did(count > 0)
        return count

    def revert(self, block_id: str) -> bool:
        step = partial(self.review.revert, block_id)
        return self._did(self._step("Revert My Edit", [block_id], step))

    def resolve(self, block_id: str, choice: str, text: str | None = None) -> bool:
        """Answer "source changed since your edit" (``text``: the correction as merged in the
        dialog); True when a translation must be asked."""
        was = self.review.state_of(block_id)
        label = "Keep Mine" if choice == "keep" else "Re-translate"
        ask = self._step(label, [block_id], partial(self.review.resolve, block_id, choice, text))
        self._did(was == "stale_edit")
        return ask

    def take_edits(self, key: str, changes: Sequence[tuple[str, str]]) -> int:
        """Corrections made elsewhere (a translator's, in the target file on disk) into that
        key's review, as the editor's own (one undoable step when it is the active review);
        returns how many blocks took one (a block this document no longer holds is skipped)."""
        review, _warnings = self.review_for(key)

        def take() -> list[str]:
            taken = []
            for block_id, text in changes:
                try:
                    review.edit(block_id, text)
                except KeyError:
                    continue
                taken.append(block_id)
            return taken

        ids = [block_id for block_id, _text in changes]
        label = "Take In Edits of the Target File"
        taken = self._step(label, ids, take) if review is self.review else take()
        self._did(bool(taken))
        return len(taken)

    # ---- undo ------------------------------------------------------------------------------------

    @property
    def undo_stack(self) -> QUndoStack:
        """The active review's steps."""
        return self._activate_stack()

    def _activate_stack(self) -> QUndoStack:
        stack = self._stacks.get(self.key)
        if stack is None:
            stack = self._stacks[self.key] = QUndoStack(self.undo_group)
            self.undo_group.addStack(stack)
        if self.undo_group.activeStack() is not stack:
            self.undo_group.setActiveStack(stack)
        return stack

    def _step(
        self,
        label: str,
        block_ids: Collection[str],
        action: Callable[[], T],
        typed: Typed | None = None,
    ) -> T:
        """Do ``action`` on the active review as one undoable step over ``block_ids`` (or as
        part of the group begun, see begin_group)."""
        review = self.review
        before, generation = review.snapshot(block_ids), review.generation
        result = action()
        self.model.reviewed(generation, block_ids)
        if self._group is not None:
            label, start = self._group
            self._group = (label, start.joined(before))
            return result
        after = review.snapshot(block_ids)
        if after != before:
            put_back = partial(self._put_back, review)
            self.undo_stack.push(ReviewStep(label, before, after, put_back, typed))
        return result

    def begin_group(self, label: str) -> None:
        """The reviewer's steps until end_group are one (Replace All: one undo, however many
        blocks; undone as one restore, not one per replacement)."""
        if self._group is None:
            self._group = (label, self.review.snapshot(()))

    def end_group(self) -> None:
        if self._group is None:
            return
        label, before = self._group
        self._group = None
        after = self.review.snapshot(before.block_ids)
        if after != before:
            put_back = partial(self._put_back, self.review)
            self.undo_stack.push(ReviewStep(label, before, after, put_back))

    def _put_back(self, review: Review, snapshot: Snapshot) -> list[str]:
        if review is not self.review:  # its stack is not the active one: nothing to do here
            return []
        changed = self.model.restore(snapshot)
        if changed:
            self._touched()
        self.restored.emit(changed)
        return changed

    def drop_detached(self) -> int:
        count = self.review.drop_detached()
        self._did(count > 0)
        return count

    def _did(self, done: bool) -> bool:
        if done:
            self._touched()
        return done

    def _touched(self) -> None:
        self.user_generation += 1
        self._publish()

    # ---- reading ---------------------------------------------------------------------------------

    def state_of(self, block_id: str) -> str:
        """The block's state in the session's one vocabulary (TargetModel.state_of)."""
        return self.model.state_of(block_id)

    def info(self, block_id: str) -> BlockInfo:
        return self.review.info(block_id)

    def score_of(self, block_id: str) -> float | None:
        """The reviewer model's score of what the block shows (None: not judged)."""
        verdict = self.session.model.quality_of(block_id)
        return verdict.score if verdict is not None else None

    def tooltip_of(self, block_id: str) -> str:
        """The margin's hover text: the state, the reasons (failed checks, the source an edit
        was made for) and what a click offers."""
        info = self.review.info(block_id)
        queued = self.session.backlog.queued(block_id)  # "queued, about 12 s": waits for a slot
        meaning = STATE_STYLES[info.state].meaning
        if queued and info.state in ("in_flight", "pending"):  # not sent yet: it waits
            meaning = "Queued: its request waits for the provider's rate limit"
        lines = [f"<b>{_escape(meaning)}</b>"]
        if queued:
            lines.append(_escape(queued))
        if info.state == "flagged":
            left = self.session.retry.seconds_left()
            lines += [f"• {_escape(flag_text(f))}" for f in info.flags]
            if left is not None and any(f.check == "failed" for f in info.flags):
                lines[-1] += f"; retrying in {duration(left)}"
        if info.state == "stale_edit" and info.base is not None:
            lines.append(f"Your edit was made for: <i>{_escape(_excerpt(info.base))}</i>")
            lines.append("<small>Click: see what changed, then re-translate or keep yours.</small>")
        elif info.edited and info.machine:
            lines.append(f"Machine translation: <i>{_escape(_excerpt(info.machine))}</i>")
        verdict = self.session.model.quality_of(block_id)
        if verdict is not None:
            lines.append(f"Review score {verdict.score:g}")
            lines += [
                f"• {_escape(e.category)} ({e.severity}): “{_escape(e.span)}”: "
                f"{_escape(e.explanation)}"
                for e in verdict.errors
            ]
        if info.state in ("machine", "memory", "flagged", "edited", "approved"):
            lines.append("<small>Click: approve, revert, re-translate.</small>")
        return "<br>".join(lines)

    def summary(self) -> ReviewSummary:
        return self.review.summary()

    def stale_blocks(self) -> list[str]:
        return self.review.stale_blocks()

    @property
    def dirty(self) -> bool:
        """Reviewer's work not yet in the review file."""
        return self.user_generation != self._saved_generation

    # ---- exports -------------------------------------------------------------------------------

    def synced(self) -> Review:
        """The active review aligned with the editor's text (the worker may lag behind)."""
        text = self._source_text()
        if self.model.doc is None or self.model.doc.source != text:
            self._model_doc(parse(text), self.session.doc_floor)
        return self.review

    def target_text(self) -> str:
        """The target as it would be exported (line ends "\\n"): what the panes show."""
        self.synced()
        return self.model.export_text()

    def export_target(self, path: str | Path, newline: str = "\n") -> Path:
        return export_target(self.target_text(), path, newline=newline)

    def export_bilingual(self, path: str | Path) -> Path:
        review = self.synced()
        assert review.doc is not None
        title = f"{self.path.name if self.path else 'Untitled'} — review ({self.key})"
        return export_bilingual(review.doc, review, self.key, path, title=title)

    def export_path(self) -> Path:
        return export_path(self.path, self.key)

    def html_export_path(self) -> Path:
        return html_export_path(self.path, self.key)

    # ---- crash safety ----------------------------------------------------------------------------

    def autosave(self) -> bool:
        """The timer's tick: copy the unsaved source and review aside when the user changed
        something since the last copy (cheap otherwise: two integers compared). The JSON is
        made here; hashing and writing happen on a writer thread."""
        revision, modified = self._source_state()
        if not (modified or self.dirty):
            if self._autosaved is not None:  # saved meanwhile: nothing left to recover
                self._discard_autosave()
            return False
        token = (revision, self.user_generation, self.key, self.autosaver.key)
        if token == self._autosaved:
            return False
        if self._closed:
            return False
        self._autosaved = token
        saver, text, data = self.autosaver, self._source_text(), self.review.to_dict()
        self._pool.submit(self._write_autosave, saver, text, data)
        return True

    def _write_autosave(self, saver: Autosaver, text: str, data: Mapping[str, Any]) -> None:
        try:
            if saver.save(text, data):
                self.autosaved.emit(str(saver.file))
        except OSError as exc:
            log.warning("autosave failed: %s", exc)

    def _discard_autosave(self) -> None:
        self._autosaved = None
        if not self._closed:
            self._pool.submit(self.autosaver.discard)

    def flush(self) -> None:
        """Wait for the writer thread (tests)."""
        if not self._closed:
            self._pool.submit(lambda: None).result()

    def close(self) -> list[str]:
        """The window closes: reviews written, the copy removed, the writer thread ended."""
        if self._closed:
            return []
        self.timer.stop()
        problems = self.leave()
        self._closed = True
        self._pool.shutdown(wait=True)
        return problems


def carry_answers(old: Review, new: Review) -> None:
    """Machine answers the live translator already showed for blocks of the previous document:
    it keeps them for a new document with the same blocks (ids are content hashes) and will
    not announce them again, so the new review takes them from the old one."""
    for block in old.doc.blocks if old.doc is not None else ():
        info = old.info(block.id)
        if info.origin is None or info.machine is None or new.info(block.id).origin is not None:
            continue
        new.apply_event(BlockDone(0, block.id, info.machine, info.origin, info.flags))


def _excerpt(text: str, limit: int = 140) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
