"""The window and its engine read one clock: an edit is paced against the limiter on that clock
whatever it reads, and an engine built on another clock is refused, saying why, rather than
mixing times that cannot be compared (the edit's send once waited a quarter of an hour)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtTest import QTest

from fastdesk.config.settings import Settings
from fastdesk.routing.limiter import Limiter, Limits
from fastdesk.routing.router import Router
from fastdesk.translate.engine import Engine
from tests.fakes import FakeClock
from tests.ui.uifakes import WordProvider, round_trip

BOUND_MS = 10_000
FAR = 10.0**7  # months ahead of any uptime: a second clock would push the send this far


def limited_engine(provider: WordProvider, clock: FakeClock | None) -> Callable[[], object]:
    """4 requests a minute, on ``clock`` (None: the router's own)."""

    def factory() -> object:
        limits = Limits(requests_per_minute=4, label="test tier")
        limiter = Limiter(table={provider.name: {"*": limits}}, clock=clock)
        return Engine(Router({provider.name: provider}, limiter=limiter))

    return factory


def typed(window, keys: str) -> None:
    window.document_view.source.setFocus()
    QTest.keyClicks(window.document_view.source, keys)


def test_an_edit_is_paced_on_the_one_clock_whatever_it_reads(make_window, qtbot, provider) -> None:
    clock = FakeClock(FAR)
    w = make_window(
        settings=Settings(debounce_ms=BOUND_MS),
        engine_factory=limited_engine(provider, clock),
        clock=clock,
    )
    view = w.document_view
    qtbot.waitUntil(lambda: view.deliveries.headroom is not None)
    assert view.deliveries.headroom.free_at == FAR  # the limiter's time: the window's clock
    typed(w, "Hello wor")  # inside a word: the whole setting, not FAR seconds
    assert view.sending._debounce.interval() == BOUND_MS
    typed(w, "ld.")  # a sentence end: at once
    qtbot.waitUntil(lambda: len(provider.requests) == 1, timeout=5000)
    qtbot.waitUntil(lambda: len(view.deliveries.headroom.sent) == 1)
    typed(w, " The ca")  # inside a word, a request just went: the limit's pace, 15 s
    assert view.sending._debounce.interval() == 15_000


def test_an_engine_on_another_clock_is_refused_with_a_reason(make_window, qtbot, provider) -> None:
    w = make_window(engine_factory=limited_engine(provider, None), clock=FakeClock())
    qtbot.waitUntil(lambda: "clock is not the window" in w.status.error_detail)
    w.document_view.source.setPlainText("Hello world.")
    round_trip(qtbot, w.document_view)  # the edit reached the engine thread, and was answered
    assert provider.requests == []  # nothing went out on mixed times
