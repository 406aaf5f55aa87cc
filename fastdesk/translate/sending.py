"""When an edit goes to the provider: at once at a natural boundary, later inside a word, and
never faster than the rate limiter allows.

Why: a fixed 300 ms wait after each keystroke was most of the time from the last keystroke of a
sentence to its translation (a fast provider answers in ~150 ms), yet sending on every short
pause would spend a free tier's 30 requests a minute within a minute of typing. So the wait
follows what was typed (``what_was_typed``): a sentence end, a finished line or leaving the line
sends at once (the editor is likely to pause there, and the answer is then on its way); a
finished word waits half the debounce setting; a word being typed waits all of it (the setting
is the upper bound of the wait that typing causes). The limiter's room then has the last word
(``SendPolicy.delay_s``): nothing goes before the limiter lets it, and sends that are not at a
boundary go no faster than the limit's own pace (one each 2 s at 30 a minute) and leave a
reserve of the minute's requests for those that are. Every
request counts, a cancelled one too (the limiter books it when it goes out).

A day's limit is paced too (``day_pace_s``): at ~20 sends a minute, Groq's 1,000 requests a day
for openai/gpt-oss-120b would last under an hour of typing. So sends that are not at a boundary
go no faster than the day's remaining requests spread over a working day (``WORKDAY_S``, 8 h:
28.8 s apart with 1,000 left), boundaries still at once while any remain; once that stretches
the minute's pace noticeably the policy has one sentence for the status bar (``take_note``),
and warm-ups wait (a request nobody waits for is the first a short day cannot spare).

Qt-free and on the one clock (fastdesk.clock): the limiter's ``Headroom`` holds times of its clock,
so the policy must read the same one (the window hands it the clock its engine was built with).
The document view asks ``delay_s`` on every edit and (re)starts its one timer with the answer;
the warm-up asks ``room_for_extra`` before spending a request.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Literal

from fastdesk.clock import Clock, SystemClock
from fastdesk.routing.limiter import Headroom

Kind = Literal["left", "line", "sentence", "word", "typing"]
BOUNDARIES: frozenset[Kind] = frozenset({"left", "line", "sentence"})
WORD_SHARE = 0.5  # a finished word waits this share of the debounce setting
RESERVE_SHARE = 0.25  # of a minute's requests, kept for sends at a boundary
TYPICAL_TOKENS = 800  # what an edit's request books, for the limiter's token windows
WORKDAY_S = 8 * 3600.0  # a day's remaining requests are spread over this much typing
NOTE_STRETCH = 1.5  # the day's pace says so (and stops warm-ups) past this × the minute's

# A sentence ends with . ! ? … (or their CJK and Arabic forms), maybe closed by quotes, brackets
# or emphasis, maybe followed by the space typed after it.
_SENTENCE_END = re.compile(r"[.!?…。！？؟।]+[\"'»”’)\]*_`]*\s*\Z")
_LIST_MARKER = re.compile(r"\s*\d{1,9}[.)]\s*\Z")  # "1." at the start of a line is no sentence


def what_was_typed(line: str, column: int) -> Kind:
    """What the text before the cursor says about the edit: ``line`` at the start of a line (the
    one above was just finished), ``sentence`` after a sentence end, ``word`` after a space or a
    comma, else ``typing`` (inside a word). ``left`` is the caller's: the cursor left the line."""
    before = line[:column]
    if not before.strip():
        return "line"
    if _LIST_MARKER.fullmatch(before):
        return "typing"  # a numbered item being started
    if _SENTENCE_END.search(before):
        return "sentence"
    if before[-1].isspace() or before[-1] in ",;:":
        return "word"
    return "typing"


def spare_requests(headroom: Headroom, share: float = RESERVE_SHARE) -> int | None:
    """How many of a minute's requests may go to sends that are not at a boundary (None: no
    requests/minute limit)."""
    if not headroom.per_minute:
        return None
    reserve = max(1, math.ceil(headroom.per_minute * share))
    return max(1, headroom.per_minute - reserve)


def minute_pace_s(headroom: Headroom) -> float:
    """Seconds between sends at the minute's limit (0: no requests/minute limit)."""
    return 60.0 / headroom.per_minute if headroom.per_minute else 0.0


def day_pace_s(headroom: Headroom, workday_s: float = WORKDAY_S) -> float:
    """Seconds between sends for the day's remaining requests to last ``workday_s`` (0: no
    requests/day limit)."""
    if headroom.left_today is None:
        return 0.0
    return workday_s / max(1, headroom.left_today)


def day_stretched(headroom: Headroom, workday_s: float = WORKDAY_S) -> bool:
    """Whether the day's limit, not the minute's, sets the pace (by ``NOTE_STRETCH`` or more:
    14,400 a day at 30 a minute is the same pace, until a third of it is spent)."""
    day = day_pace_s(headroom, workday_s)
    return day > 0 and day >= NOTE_STRETCH * max(minute_pace_s(headroom), 1e-9)


def room_for_extra(headroom: Headroom | None, now: float) -> bool:
    """Whether a request nobody is waiting for (a warm-up) fits now without eating the reserve
    (nor a day whose requests are being stretched). ``now``: the monotonic time of the clock the
    headroom was taken on."""
    if headroom is None:
        return True
    if headroom.free_at > now or day_stretched(headroom):
        return False
    spare = spare_requests(headroom)
    return spare is None or headroom.fewer_than_at(spare) <= now


@dataclass
class SendPolicy:
    """The wait before sending an edit; see the module docstring. ``bound_s``: the debounce
    setting. One per document view; ``sent()`` is told of every send. ``clock``: the one clock,
    the limiter's too: the headroom's times are compared with its."""

    bound_s: float
    clock: Clock = field(default_factory=SystemClock)
    word_share: float = WORD_SHARE
    reserve_share: float = RESERVE_SHARE
    workday_s: float = WORKDAY_S
    last_sent: float = field(default=-math.inf)
    _note: str | None = None  # the day's pacing, for the status bar (said once)
    _noted: bool = False

    def typed_wait_s(self, kind: Kind) -> float:
        """The wait what was typed asks for, before the limiter is asked."""
        if kind in BOUNDARIES:
            return 0.0
        return self.bound_s * (self.word_share if kind == "word" else 1.0)

    def delay_s(self, kind: Kind, headroom: Headroom | None = None) -> float:
        """Seconds from now until the edit should go."""
        now = self.clock.monotonic()
        at = now + self.typed_wait_s(kind)
        if headroom is not None:
            at = max(at, headroom.free_at)
            if kind not in BOUNDARIES:
                # no faster than the minute's pace or the day's, and never into the reserve
                pace = max(minute_pace_s(headroom), day_pace_s(headroom, self.workday_s))
                at = max(at, self.last_sent + pace)
                spare = spare_requests(headroom, self.reserve_share)
                if spare is not None:
                    at = max(at, headroom.fewer_than_at(spare))
                if not self._noted and day_stretched(headroom, self.workday_s):
                    self._noted = True
                    self._note = _day_note(headroom, pace)
        return max(0.0, at - now)

    def take_note(self) -> str | None:
        """Once: that the day's limit stretches the pacing, in words (None: nothing to say)."""
        note, self._note = self._note, None
        return note

    def sent(self) -> None:
        self.last_sent = self.clock.monotonic()


def _day_note(headroom: Headroom, pace_s: float) -> str:
    left, per_day = headroom.left_today or 0, headroom.per_day
    of = f" of {per_day:,}" if per_day else ""
    return (
        f"{left:,}{of} requests left today: edits inside a sentence are sent at most every "
        f"{pace_s:.0f} s so that they last a working day (sentence ends still go at once)"
    )
