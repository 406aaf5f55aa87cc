"""The status bar: who answered and how fast, what it cost, whether work is in flight, errors.

Only formatting lives here: the numbers come from RequestStats (the router measured them, the
price table priced them). A cost of None means "unknown price" and is never shown as $0.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QHideEvent, QShowEvent
from PySide6.QtWidgets import QLabel, QMessageBox, QStatusBar, QToolButton, QWidget

from fastdesk.clock import Clock, SystemClock, milliseconds
from fastdesk.config.redact import redact
from fastdesk.providers.base import RequestStats
from fastdesk.review.quality import score_colour
from fastdesk.routing.costs import CostLedger, Totals
from fastdesk.routing.pricing import format_cost
from fastdesk.translate.events import Waiting
from fastdesk.ui.panes.accessible import name
from fastdesk.ui.panes.elided import ElidedLabel, ElidingStatusBar, elide
from fastdesk.ui.panes.theme import text_colour
from fastdesk.ui.plain import plain_box, tip

__all__ = ["ElidedLabel", "StatusPanel", "latency_text"]


NO_TRANSLATION = "No translation yet"
ERROR_COLOUR = "#d1242f"  # made readable on the theme's background (apply_palette)


def latency_text(stats: RequestStats) -> str:
    """groq · openai/gpt-oss-20b · first token 212 ms · total 801 ms · 840 tok/s (a Batch API
    job's answer: groq · openai/gpt-oss-20b · batch job, half price)"""
    parts = [stats.provider, stats.model]
    if stats.purpose == "batch":  # answered by a Batch API job: no stream was timed
        return " · ".join([*parts, "batch job, half price"])
    if stats.status != "ok":
        parts.append(stats.status)
    parts.append(f"first token {milliseconds(stats.ttfb_ms)}")
    parts.append(f"total {milliseconds(stats.total_ms)}")
    if stats.tokens_per_s:
        parts.append(f"{stats.tokens_per_s:.0f} tok/s")
    return " · ".join(parts)


MEMORY_LATENCY = "memory · 0 ms"


# below this width the latency keeps a fifth of the bar: passing messages need the room
LATENCY_SPARE_FROM = 820  # pixels

FILLED = "✓ every block translated"  # the document is filled (DocumentView.filled)
SPINNER = "◐◓◑◒"
SPINNER_MS = 200


class ActivityIndicator(QLabel):
    """A small spinner while requests are in flight, turning five times a second.

    Why not a busy QProgressBar: its animation repaints ~50 times a second, each repaint takes
    the status bar beneath it along, and all of it is GUI-thread time taken while a document
    streams in (figures: docs/performance.md, "What costs what").
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("activityIndicator")
        self.setToolTip("Requests in flight")
        self.setAccessibleName("Requests in flight")
        self.setContentsMargins(0, 0, 6, 0)
        self._step = 0
        self._timer = QTimer(self)
        self._timer.setInterval(SPINNER_MS)
        self._timer.timeout.connect(self._turn)
        self.setText(f"{SPINNER[0]} working")

    @property
    def turning(self) -> bool:
        return self._timer.isActive()

    def showEvent(self, event: QShowEvent) -> None:
        self._timer.start()
        super().showEvent(event)

    def hideEvent(self, event: QHideEvent) -> None:
        self._timer.stop()
        super().hideEvent(event)

    def _turn(self) -> None:
        self._step = (self._step + 1) % len(SPINNER)
        self.setText(f"{SPINNER[self._step]} working")


class StatusPanel(QObject):
    """Owns the status bar's permanent widgets; the window feeds it stats, errors and activity."""

    def __init__(
        self,
        bar: QStatusBar,
        parent: QObject | None = None,
        *,
        ledger: CostLedger | None = None,
        clock: Clock | None = None,
    ) -> None:
        """``clock``: the window's one clock (fastdesk.clock), on which a wait counts down."""
        super().__init__(parent)
        self.bar = bar
        # Records on the GUI thread without waiting for the disk (a writer thread persists).
        self.ledger = ledger or CostLedger(background=True)
        self.activity = ActivityIndicator()
        self.activity.hide()
        # the document filled: every block's answer on show (DocumentView.filled, one meaning)
        self.filled = QLabel(FILLED)
        self.filled.setObjectName("filledLabel")
        self.filled.setToolTip(
            "Every block of the document has its answer, in the Markdown and the rendered view"
        )
        self.filled.setContentsMargins(0, 0, 6, 0)
        self.filled.hide()
        self.error_button = QToolButton()
        self.error_button.setObjectName("errorButton")
        self.error_button.setAutoRaise(True)
        self.error_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.error_button.setToolTip("Click for details")
        name(self.error_button, "Last error", "Press for its details")
        self.error_button.clicked.connect(self.show_error_details)
        self.error_button.hide()
        # A pending retry of failed blocks, counting down (a click retries them now): permanent,
        # so that it stays on show while passing messages come and go.
        self.retry_button = QToolButton()
        self.retry_button.setObjectName("retryButton")
        self.retry_button.setAutoRaise(True)
        self.retry_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.retry_button.setToolTip("Retry the failed blocks now (Ctrl+Shift+R)")
        name(self.retry_button, "Retry the failed blocks now")
        self.retry_button.hide()
        self.latency = ElidedLabel(NO_TRANSLATION)
        # prompt tokens of this window's translations, and those the providers served cached
        self.prompt_tokens = 0
        self.cached_tokens = 0
        self.latency.setObjectName("latencyLabel")
        self.latency.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.cost = ElidedLabel("")
        self.cost.setObjectName("costLabel")
        # simplify: the document's reading ease before and after (translate/readability.py)
        self.readability = ElidedLabel("")
        self.readability.setObjectName("readabilityLabel")
        self.readability.hide()
        # The reviewer model's score of the document (fastdesk.review.quality), and what its
        # reviews cost, apart from the translations'
        self.score = QLabel("")
        self.score.setObjectName("scoreLabel")
        self._score_colour = ""
        self.score.hide()
        self.reviews = Totals()  # the reviewer model's requests since start (in the ledger too)
        for widget in (
            self.activity,
            self.filled,
            self.error_button,
            self.retry_button,
            self.latency,
            self.cost,
            self.readability,
            self.score,
        ):
            widget.setParent(bar)
        # All permanent: QStatusBar hides its normal widgets while a temporary message shows.
        bar.addPermanentWidget(self.error_button)
        bar.addPermanentWidget(self.retry_button)
        bar.addPermanentWidget(self.readability)
        bar.addPermanentWidget(self.activity)
        bar.addPermanentWidget(self.filled)
        bar.addPermanentWidget(self.latency)
        bar.addPermanentWidget(_separator(bar))
        bar.addPermanentWidget(self.cost)
        bar.addPermanentWidget(self.score)
        self.last_cost: float | None = None
        self.has_last = False
        self.last_from_memory = False
        self.error_message = ""
        self.error_detail = ""
        # the last error since start, kept after a success hides the button (Help → Last
        # Error Details shows it)
        self.last_error = ("", "")
        # a wait counting down, redrawn each second: (the event, when it ends, monotonic)
        self._wait: tuple[Waiting, float] | None = None
        self.clock: Clock = clock or SystemClock()
        self._tick = QTimer(self)
        self._tick.setInterval(1000)
        self._tick.timeout.connect(self._count_down)
        self._refresh_cost()
        self.apply_palette()  # (the error's style sheet before its text is measured)
        if isinstance(bar, ElidingStatusBar):
            bar.resized.connect(self._fit)

    def _fit(self, width: int) -> None:
        """A quarter of the bar at most for the error, a fifth for the cost, and for the
        latency (who answered and how fast) what a wide bar can spare, from a fifth at 1,024 px
        to two fifths from 1,370 px (a fifth cut it at "first token 2…" at 1,280 px); they
        elide, whole on hover: the rest is left to passing messages ("waiting 57 s: …")."""
        spare = min(width * 2 // 5, max(width // 5, width - LATENCY_SPARE_FROM))
        self.latency.setMaximumWidth(max(ElidedLabel.MIN_WIDTH, spare))
        self.cost.setMaximumWidth(max(ElidedLabel.MIN_WIDTH, width // 5))
        self._fit_error()

    # ---- inputs ------------------------------------------------------------------------------

    def set_busy(self, busy: bool) -> None:
        self.activity.setVisible(busy)

    def set_filled(self, filled: bool) -> None:
        """Every block's answer is on show (DocumentView.filled), or not any more."""
        self.filled.setVisible(filled)

    def set_retry(self, text: str) -> None:
        """The pending retry of failed blocks ("4 failed blocks: retrying in 25 s"); "": none."""
        self.retry_button.setText(f"⟳ {text}" if text else "")
        self.retry_button.setVisible(bool(text))

    def request_done(self, stats: RequestStats) -> None:
        """A request ended (ok, error or cancelled): the ledger counts it if it may be billed.

        A warm-up (one token, to open the connection) is spend but not a translation: it is
        neither shown as the last request nor its cost as the last cost.
        """
        self.ledger.record(stats)
        if stats.purpose == "warmup":
            # billed, so the session's cost counts it: said beside that cost, not "no request"
            if not self.has_last:
                self.latency.setText(f"{NO_TRANSLATION} · {stats.provider} warmed up")
                self.latency.set_detail(
                    "A one-token request opened the connection to the provider, so the first "
                    "translation starts sooner; its cost is in the session's and today's."
                )
            self._refresh_cost()
            return
        if stats.purpose == "review":  # counted apart: the latency shown stays a translation's
            known = stats.cost_usd is not None
            self.reviews += Totals(stats.cost_usd or 0.0, int(known), int(not known))
            self._refresh_cost()
            self.score.setToolTip(self._score_tooltip())
            return
        if stats.status == "cancelled" and stats.completion_tokens is None:
            self._refresh_cost()
            return
        self.last_cost = stats.cost_usd
        self.has_last = True
        self.last_from_memory = False
        if stats.prompt_tokens:
            self.prompt_tokens += stats.prompt_tokens
            self.cached_tokens += min(stats.cached_tokens or 0, stats.prompt_tokens)
        self.latency.setText(latency_text(stats))
        self.latency.set_detail(self._tooltip(stats) + self._cache_share())
        if stats.status == "ok":
            self.clear_error()
        self._refresh_cost()

    def set_readability(self, text: str, detail: str = "") -> None:
        """ "Reading ease 31 → 69" in simplify mode; "" hides it."""
        self.readability.setText(text)
        self.readability.set_detail(detail)
        self.readability.setVisible(bool(text))

    def set_score(self, score: float | None) -> None:
        """The document's score by the reviewer model (None: no block judged: hidden)."""
        if score is None:
            self.score.hide()
            return
        self.score.setText(f"score {score:g}")
        self._score_colour = score_colour(score)
        self.apply_palette()
        self.score.setToolTip(self._score_tooltip())
        self.score.show()

    def apply_palette(self) -> None:
        """The error's and the score's colours, readable on this theme's bar (the window calls
        it when the theme changes)."""
        palette = self.bar.palette()
        error = text_colour(ERROR_COLOUR, palette)
        self.error_button.setStyleSheet(f"QToolButton {{ color: {error}; font-weight: 600; }}")
        if self._score_colour:
            score = text_colour(self._score_colour, palette)
            self.score.setStyleSheet(f"QLabel {{ color: {score}; font-weight: 600; }}")

    def _score_tooltip(self) -> str:
        reviews = self.reviews
        return (
            "The reviewer model's score of this document (MQM: 100 less weighted errors per "
            f"word; the problems list names them). Reviews this session: "
            f"{reviews.requests + reviews.unknown} request(s), {reviews.text()}"
        )

    def waiting(self, event: Waiting) -> None:
        """Requests wait (a retry, or the rate limiter): "waiting 4 s: Groq free tier, 30
        requests/min", counting down each second for as long as the wait lasts; an outage says
        so ("groq unreachable, retrying in 12 s")."""
        self._wait = (event, self.clock.monotonic() + event.seconds)
        self.bar.showMessage(event.message, max(1000, int(event.seconds * 1000)))
        self._tick.start()

    def end_wait_unless(self, waits: Callable[[Waiting], bool]) -> None:
        """The rate wait shown is over once none of its requests waits any more (``waits``:
        the session's backlog says): its countdown stops and its line goes. It kept counting
        down from 58 s after a paid account's headers had lifted the limit and sent them."""
        if self._wait is None:
            return
        event, _until = self._wait
        if event.kind != "rate" or not event.block_ids or waits(event):
            return
        self._wait = None
        self._tick.stop()
        if self.bar.currentMessage().startswith("waiting "):
            self.bar.clearMessage()

    def _count_down(self) -> None:
        if self._wait is None:
            self._tick.stop()
            return
        event, until = self._wait
        left = until - self.clock.monotonic()
        if left <= 0 or self.bar.currentMessage() == "":
            self._wait = None
            self._tick.stop()
            return
        self.bar.showMessage(event.text(left), max(1000, int(left * 1000)))

    def from_memory(self, blocks: int) -> None:
        """A revision answered entirely by the translation memory: 0 ms, $0."""
        self.last_cost = 0.0
        self.has_last = True
        self.last_from_memory = True
        self.latency.setText(MEMORY_LATENCY)
        self.latency.set_detail(f"{blocks} block(s) answered by the translation memory")
        self._refresh_cost()

    def show_error(self, message: str, detail: str = "") -> None:
        self.error_message = redact(message)
        self.error_detail = redact(detail)
        self.last_error = (self.error_message, self.error_detail)
        self.error_button.show()
        self._fit_error()

    def _fit_error(self) -> None:
        """The error's text within a quarter of the bar (at most 90 characters), the whole
        of it in the tooltip when cut."""
        if not self.error_message:
            return
        short = (
            self.error_message if len(self.error_message) <= 90 else self.error_message[:87] + "…"
        )
        room = max(120, self.bar.width() // 4) if self.bar.isVisible() else 1 << 20
        short = elide(self.error_button.fontMetrics(), f"⚠ {short}", room)
        self.error_button.setText(short)
        whole = f"{self.error_message}\n" if short != f"⚠ {self.error_message}" else ""
        self.error_button.setToolTip(tip(f"{whole}Click for details"))

    def clear_error(self) -> None:
        self.error_message = self.error_detail = ""
        self.error_button.hide()

    def show_error_details(self) -> None:
        box = QMessageBox(self.bar.window())
        box.setObjectName("errorDetails")
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle("Translation problem")
        message, detail = (self.error_message, self.error_detail)
        if not message:  # since solved: the last one is still worth reading
            message, detail = self.last_error
        if message and not self.error_message:
            message = f"Last error (since solved): {message}"
        box.setText(message or "No error so far in this session.")
        if detail:
            box.setDetailedText(detail)
        plain_box(box).open()  # a server's words: no markup, no link opened from here

    # ---- formatting --------------------------------------------------------------------------

    def _refresh_cost(self) -> None:
        if not self.has_last:
            last = "–"
        elif self.last_from_memory:
            last = f"{format_cost(0.0)} (memory)"
        else:
            last = format_cost(self.last_cost)
        parts = [
            f"last {last}",
            f"session {self.ledger.since_start.text()}",
            f"today {self.ledger.today().text()}",
        ]
        if not self.reviews.empty:  # the reviewer model's share since start, apart
            parts.append(f"reviews {self.reviews.text()}")
        self.cost.setText(" · ".join(parts))
        self.cost.set_detail(
            "Cost of the last translation request, of this window's session, and of today (every"
            " fastdesk process; warm-ups and reviews included); then what the reviewer model's"
            " requests cost this session. Requests to models without a known price are counted"
            " apart, never as $0."
        )

    def close(self) -> None:
        """Write what the ledger has not written yet (at most half a second)."""
        self.ledger.close(timeout=0.5)

    def _cache_share(self) -> str:
        """Since the window opened: the prompt tokens the providers' caches served (the stable
        first message of every request, docs/routing.md), as a line after the request's."""
        if not self.cached_tokens:
            return ""
        share = cached_share(self.cached_tokens, self.prompt_tokens)
        return (
            f"\nThis session: {self.cached_tokens:,} of {self.prompt_tokens:,} prompt tokens "
            f"from the providers' caches ({share})"
        )

    @staticmethod
    def _tooltip(stats: RequestStats) -> str:
        lines = [f"{stats.provider} · {stats.model} ({stats.purpose}, {stats.blocks} block(s))"]
        if stats.prompt_tokens is not None:
            lines.append(f"tokens: {stats.prompt_tokens} in, {stats.completion_tokens} out")
        if stats.cached_tokens:
            how = (
                "no cached price known: counted at the full input price"
                if stats.cached_at_full_price
                else "at the cached price"
            )
            share = (
                f", {cached_share(stats.cached_tokens, stats.prompt_tokens)} of the prompt"
                if stats.prompt_tokens
                else ""
            )
            lines.append(
                f"{stats.cached_tokens} prompt tokens from the provider's cache{share} ({how})"
            )
        if stats.error:
            lines.append(redact(stats.error))
        return "\n".join(lines)


def cached_share(cached: int, prompt: int) -> str:
    """ "84%": the share of prompt tokens a provider served from its cache."""
    return f"{round(100 * min(cached, prompt) / prompt)}%" if prompt else "0%"


def _separator(parent: QWidget) -> QLabel:
    label = QLabel("|", parent)
    label.setEnabled(False)
    return label
