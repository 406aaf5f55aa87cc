"""When an edit goes to the engine: after a wait set by what was typed and the limiter's room
(the core's fastdesk.translate.sending decides it), at once when the cursor leaves the line of an
edit not sent yet, never during an IME composition. The document view sends; this says when."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer

from fastdesk.clock import Clock
from fastdesk.translate.sending import Kind, SendPolicy, what_was_typed
from fastdesk.ui.panes.common import py_index
from fastdesk.ui.panes.source_editor import SourceEditor

if TYPE_CHECKING:
    from fastdesk.routing.limiter import Headroom


class EditSending(QObject):
    """The wait before ``send()`` for edits typed into ``source``, while ``live()``.
    ``headroom()``: the top choice's room at the limiter (None before the engine starts);
    ``say(text, ms)``: a passing status-bar message (the policy's note)."""

    def __init__(
        self,
        source: SourceEditor,
        *,
        debounce_ms: int,
        clock: Clock,
        live: Callable[[], bool],
        send: Callable[[], None],
        headroom: Callable[[], Headroom | None],
        say: Callable[[str, int], None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._source = source
        self._live = live
        self._send = send
        self._headroom = headroom
        self._say = say
        self._debounce = QTimer(self)  # until the edit goes: its interval is the policy's wait
        self._debounce.setSingleShot(True)
        # Precise: a coarse timer may fire up to 5% late (15 ms of 300) on every edit.
        self._debounce.setTimerType(Qt.TimerType.PreciseTimer)
        self._debounce.setInterval(debounce_ms)
        self._debounce.timeout.connect(self._debounced)
        # the debounce setting: its upper bound
        self.policy = SendPolicy(debounce_ms / 1000, clock=clock)
        self._edit_line = -1  # the line of the last edit not sent yet (-1: none)

    def set_debounce(self, ms: int) -> None:
        self._debounce.setInterval(ms)
        self.policy.bound_s = ms / 1000

    def stop(self) -> None:
        """The edit waiting (if any) does not go by itself."""
        self._debounce.stop()

    def sent(self) -> None:
        """The source went to the engine: the policy counts it, no edit waits."""
        self.policy.sent()
        self._edit_line = -1

    def edited(self) -> bool:
        """The source changed: True when the edit was typed (Live, not composing) and waits."""
        if self._live() and not self._source.composing:
            self._send_after(self._typed())
            return True
        return False

    def composition_changed(self, composing: bool) -> None:
        if composing:
            self._debounce.stop()
        elif self._live():
            self._send_after(self._typed())

    def cursor_moved(self) -> None:
        """Leaving the line of an edit not sent yet sends it now."""
        moved = self._source.textCursor().blockNumber() != self._edit_line
        if moved and self._edit_line >= 0 and self._debounce.isActive():
            self._send_after("left")

    def _typed(self) -> Kind:
        """What the text before the cursor says about the edit just made."""
        cursor = self._source.textCursor()
        self._edit_line = cursor.blockNumber()
        line = cursor.block().text()
        return what_was_typed(line, py_index(line, cursor.positionInBlock()))

    def _send_after(self, kind: Kind) -> None:
        self._debounce.start(round(self.policy.delay_s(kind, self._headroom()) * 1000))
        note = self.policy.take_note()
        if note:
            self._say(note, 10000)

    def _debounced(self) -> None:
        if not self._source.composing and self._live():
            self._send()
