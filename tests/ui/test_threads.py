"""Loop threads beside the GUI's give way while the GUI thread holds `gui_first`."""

from __future__ import annotations

import selectors
import socket
import threading
from collections.abc import Iterator

import pytest

from fastdesk.ui.bridge import threads
from fastdesk.ui.bridge.threads import gui_first, polite_event_loop


@pytest.fixture
def loop() -> Iterator[object]:
    loop = polite_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    yield loop
    loop.call_soon_threadsafe(loop.stop)
    thread.join(2)
    loop.close()


class RecordingGate:
    """threads._gui_free, watched: each wait of a loop thread is recorded as (timeout, whether
    the GUI thread let go), and ``parked`` is set when one starts. No stopwatch needed."""

    def __init__(self, event: threading.Event) -> None:
        self.event = event
        self.waits: list[tuple[float | None, bool]] = []
        self.parked = threading.Event()

    def is_set(self) -> bool:
        return self.event.is_set()

    def set(self) -> None:
        self.event.set()

    def clear(self) -> None:
        self.event.clear()

    def wait(self, timeout: float | None = None) -> bool:
        self.parked.set()
        let_go = self.event.wait(timeout)
        self.waits.append((timeout, let_go))
        return let_go


@pytest.fixture
def gate(monkeypatch) -> RecordingGate:
    recording = RecordingGate(threads._gui_free)
    monkeypatch.setattr(threads, "_gui_free", recording)
    return recording


def test_a_loop_thread_waits_for_the_gui_thread_then_goes_on(loop, gate, monkeypatch) -> None:
    monkeypatch.setattr(threads, "MAX_YIELD_S", 3600.0)  # only the hold's end can let it go
    ran = threading.Event()
    with gui_first():
        loop.call_soon_threadsafe(ran.set)
        assert gate.parked.wait(60)  # (a hang guard) the loop thread woke and waits for us
        assert not ran.is_set()  # held back while the GUI thread works
    assert ran.wait(60)  # (a hang guard) let go as soon as it is done, not after MAX_YIELD_S
    assert gate.waits[0] == (3600.0, True)


def test_a_loop_thread_never_waits_longer_than_max_yield(loop, gate, monkeypatch) -> None:
    monkeypatch.setattr(threads, "MAX_YIELD_S", 0.05)
    ran = threading.Event()
    with gui_first():
        loop.call_soon_threadsafe(ran.set)
        assert ran.wait(60)  # (a hang guard) the GUI thread still holds it: no starving
        waits = list(gate.waits)
    # but it did wait: a full MAX_YIELD_S, which ended with the GUI thread still holding on
    assert waits and waits[0] == (0.05, False)


def test_nested_holds_end_with_the_outer_one(loop, gate, monkeypatch) -> None:
    monkeypatch.setattr(threads, "MAX_YIELD_S", 3600.0)  # only the hold's end can let it go
    ran = threading.Event()
    with gui_first():
        with gui_first():
            pass
        loop.call_soon_threadsafe(ran.set)
        assert gate.parked.wait(60)  # (a hang guard) the loop thread waits for us
        assert not ran.is_set()  # the inner hold's end did not let it go
    assert ran.wait(60)  # (a hang guard)
    assert gate.waits[0] == (3600.0, True)


def test_without_a_hold_the_loop_runs_at_once(loop, gate, monkeypatch) -> None:
    monkeypatch.setattr(threads, "MAX_YIELD_S", 3600.0)
    ran = threading.Event()
    loop.call_soon_threadsafe(ran.set)
    assert ran.wait(60)  # (a hang guard)
    assert gate.waits == []  # it never waited for the GUI thread


def test_the_loop_paces_its_waits_for_io(monkeypatch) -> None:
    """A wait for I/O starts PACE_S after the last turn (what came meanwhile is read at once);
    a turn with callbacks due never waits, a timer due sooner bounds the pause, and a loop that
    was idle does not wait at all (the first token of an answer)."""
    sleeps: list[float] = []
    clock = [100.0]
    monkeypatch.setattr("fastdesk.ui.bridge.threads.time.sleep", sleeps.append)
    monkeypatch.setattr("fastdesk.ui.bridge.threads.time.monotonic", lambda: clock[0])
    selector = threads._PoliteSelector()
    ours, theirs = socket.socketpair()
    try:
        theirs.send(b"x")  # always ready: select() returns at once
        selector.register(ours, selectors.EVENT_READ)
        assert selector.select(None)  # the first turn
        clock[0] += 0.001
        assert selector.select(0)  # callbacks due: no pause
        assert sleeps == []
        clock[0] += 0.001
        selector.select(None)  # 1 ms after the last turn: waits out the rest of PACE_S
        selector.select(0.0015)  # a timer due in 1.5 ms: waits that long at most
        assert sleeps == [pytest.approx(threads.PACE_S - 0.001), pytest.approx(0.0015)]
        clock[0] += 1.0
        selector.select(None)  # after a quiet second: at once
        assert len(sleeps) == 2
    finally:
        selector.close()
        ours.close()
        theirs.close()


class FakeGc:
    """Counts and thresholds as given; records which generation was collected."""

    def __init__(self, counts: tuple[int, int, int]) -> None:
        self.counts = counts
        self.collected: list[int] = []

    def get_count(self) -> tuple[int, int, int]:
        return self.counts

    def get_threshold(self) -> tuple[int, int, int]:
        return (700, 10, 10)

    def collect(self, generation: int) -> int:
        self.collected.append(generation)
        return 0


@pytest.mark.parametrize(
    ("counts", "busy", "expected"),
    [
        ((800, 11, 0), False, [1]),  # quiet: as CPython would
        ((800, 11, 0), True, [0]),  # rendering: the young only
        ((800, 51, 0), True, [1]),  # but not forever
        ((800, 0, 11), True, [0]),
        ((800, 0, 11), False, [2]),
        ((100, 11, 0), True, []),  # nothing due
    ],
)
def test_older_generations_wait_while_the_gui_thread_renders(
    monkeypatch, counts, busy, expected
) -> None:
    fake = FakeGc(counts)
    monkeypatch.setattr(threads, "gc", fake)
    monkeypatch.setattr(threads, "_gui_worked", -1e9)
    if busy:
        with gui_first():
            pass
    threads.collect_due_garbage()
    assert fake.collected == expected


def test_error_text_names_a_file_as_the_command_line_does_and_masks_keys() -> None:
    import errno

    denied = PermissionError(errno.EACCES, "Permission denied", "/home/a/settings.toml")
    assert threads.error_text(denied) == "/home/a/settings.toml: permission denied"
    bare = OSError(errno.EIO, "Input/output error")
    assert threads.error_text(bare) == "OSError: [Errno 5] Input/output error"
    leaked = RuntimeError("bad key gsk_not_a_real_key_0123")
    assert threads.error_text(leaked).startswith("RuntimeError: bad key gsk_…")
    assert "not_a_real_key" not in threads.error_text(leaked)
