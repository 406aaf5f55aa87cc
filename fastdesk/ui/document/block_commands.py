"""The engine's commands on a document's blocks: translate again (the block under the cursor,
or the failed ones), expand a section, and the back-translation of the selected blocks beside
their source (fastdesk.ui.review.back_translation)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Slot
from PySide6.QtWidgets import QWidget

from fastdesk.review.session import DocumentSession, failed_blocks
from fastdesk.ui.bridge.worker import EngineWorker
from fastdesk.ui.document.heal import Healer
from fastdesk.ui.review.back_translation import BackTranslations


class BlockCommands(QObject):
    """Commands on the blocks of ``session``'s document, sent to ``worker()`` (the running
    engine's). ``under_cursor()`` and ``under_selection()``: the blocks they act on;
    ``show_rendered()``: the target's rendered view (where an expansion shows); ``lang()``: the
    review's language; ``say(text, ms)`` and ``busy(True)``: the document view's signals.
    Dialogs open over ``parent``, the document view."""

    def __init__(
        self,
        parent: QWidget,
        *,
        worker: Callable[[], EngineWorker],
        session: DocumentSession,
        healer: Healer,
        under_cursor: Callable[[], str | None],
        under_selection: Callable[[], list[str]],
        show_rendered: Callable[[], None],
        lang: Callable[[], str],
        say: Callable[[str, int], None],
        busy: Callable[[bool], None],
    ) -> None:
        super().__init__(parent)
        self._worker = worker
        self._session = session
        self._healer = healer
        self._under_cursor = under_cursor
        self._under_selection = under_selection
        self._show_rendered = show_rendered
        self._lang = lang
        self._say = say
        self._busy = busy
        self.back_translations = BackTranslations(
            parent, lambda b, t: self._worker().back_translate(b, t)
        )

    def retranslate(self, block_ids: list[str]) -> None:
        self._worker().retranslate(block_ids)
        self._busy(True)

    def retranslate_section(self) -> None:
        block_id = self._under_cursor()
        if block_id:
            self.retranslate([block_id])

    def retry_failed(self) -> int:
        """Translate again the blocks whose request failed (the target model knows which);
        returns how many were asked for."""
        self._healer.cancel()
        failed = self._session.model.failed()
        if failed:
            self.retranslate(failed)
            self._say(f"Retrying {failed_blocks(len(failed))}…", 3000)
        else:
            self._say("No failed blocks to retry", 3000)
        return len(failed)

    def expand_section(self) -> None:
        """Ask the model to elaborate the section under the cursor (shown marked as generated)."""
        block_id = self._under_cursor()
        if not block_id:
            return
        self._show_rendered()
        self._worker().expand(block_id)
        self._say("Expanding the section…", 3000)

    def back_translate_block(self) -> None:
        """The translation of the selected blocks (or the block under the cursor), in either
        pane, translated back into the source's language, shown beside their source (for an
        editor who does not read the target's; fastdesk.ui.review.back_translation)."""
        doc = self._session.doc
        keys = self._under_selection() if doc is not None else []
        if doc is None or not keys:
            self._say("Put the cursor in a translated block first", 3000)
            return
        model = self._session.model
        blocks = [(k, doc.by_id(k).text, model.text_of(k, final=True)) for k in keys]
        if self.back_translations.request(self._lang(), blocks):
            self._say("Translating back…", 3000)

    @Slot(str, str, str)
    def back_translated(self, block_id: str, text: str, back: str) -> None:
        """The worker's answer (queued into the GUI thread)."""
        if self.back_translations.answered(block_id, text, back) is False:
            self._say("No back-translation: the block changed, or no model answered", 5000)
