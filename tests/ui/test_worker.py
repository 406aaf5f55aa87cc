"""EngineWorker: what the worker thread does with an edit, in which order."""

from __future__ import annotations

import asyncio
import gc
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from fastdesk.document.blocks import parse
from fastdesk.routing.router import Router
from fastdesk.translate.engine import Engine
from fastdesk.translate.job import JobSpec
from fastdesk.ui.bridge import threads
from fastdesk.ui.bridge.throttle import REQUEST_FIRST_S
from fastdesk.ui.bridge.worker import EngineWorker


class RecordingTranslator:
    """A live translator whose edit starts a "request" a few loop turns later, as the engine's
    planning and the SDK's awaits do before the first bytes leave."""

    def __init__(self, marks: list[tuple[str, float]]) -> None:
        """``marks``: what happened on the worker's thread, in order, with a wait where one was
        asked for (0.0 where none)."""
        self.marks = marks
        self._doc: Any = None
        self.busy = False

    @property
    def doc(self) -> Any:
        self.marks.append(("collect", 0.0))  # the worker gathers a delivery for the GUI
        return self._doc

    def update(self, source: str, revision: int) -> None:
        self._doc = parse(source)
        self.marks.append(("update", 0.0))
        asyncio.get_running_loop().create_task(self._request())

    async def _request(self) -> None:
        for _ in range(3):
            await asyncio.sleep(0)
        self.marks.append(("request", 0.0))

    def set_spec(self, spec: JobSpec) -> None:
        pass

    def retranslate(self, block_ids: object) -> None:
        pass

    def expand(self, block_id: str) -> None:
        pass

    def set_view(self, first_line: int, last_line: int) -> None:
        pass

    async def aclose(self) -> None:
        pass


def test_an_edit_s_request_leaves_before_the_window_hears_of_the_new_document(qtbot) -> None:
    marks: list[tuple[str, float]] = []
    worker = EngineWorker(
        JobSpec(target_lang="fr"),
        engine_factory=lambda: Engine(Router({})),  # no provider: the translator stands in
        translator_factory=lambda _engine, _spec, _emit: RecordingTranslator(marks),
    )
    # the waits the worker asks its loop for before a flush, recorded in line with the marks
    loop, call_later = worker._loop, worker._loop.call_later

    def recorded_call_later(delay: float, callback: Any, *args: Any) -> Any:
        if getattr(callback, "__name__", "") == "_flush":
            marks.append(("flush in", delay))
        return call_later(delay, callback, *args)

    loop.call_later = recorded_call_later  # type: ignore[method-assign,assignment]
    deliveries: list[Any] = []
    worker.delivered.connect(deliveries.append)
    worker.start()
    try:
        qtbot.waitUntil(lambda: bool(deliveries), timeout=5000)  # the engine is up
        throttle = worker.throttle  # a quiet pause: the next flush is not put off by the throttle
        qtbot.waitUntil(
            lambda: (
                throttle._handle is None
                and throttle._poll_handle is None
                and loop.time() >= throttle._last + throttle.interval
            )
        )
        worker.update("# Title\n\nA paragraph.\n", 1)
        qtbot.waitUntil(lambda: any(b.revision == 1 and b.doc is not None for b in deliveries))
    finally:
        assert worker.stop()
    names = [name for name, _t in marks]
    after = names[names.index("update") :]
    assert after.index("request") < after.index("collect")  # the request went first
    # the flush that collects it was put off by REQUEST_FIRST_S at least (the loop's timer)
    flush_in = next(delay for name, delay in marks[names.index("update") :] if name == "flush in")
    assert flush_in >= REQUEST_FIRST_S


def test_a_memory_not_in_use_is_told_to_the_window_once(qtbot, tmp_path) -> None:
    """The memory's one line (here: a folder where its file should be) reaches the window in a
    delivery's notices, once, however many deliveries follow."""
    from fastdesk.translate.memory import Memory

    (tmp_path / "memory.sqlite3").mkdir()
    memory = Memory(tmp_path / "memory.sqlite3")
    assert memory.notice  # the core's own words
    worker = EngineWorker(
        JobSpec(target_lang="fr"),
        engine_factory=lambda: Engine(Router({}), memory),
        translator_factory=lambda _engine, _spec, _emit: RecordingTranslator([]),
    )
    notices: list[str] = []
    revisions: list[int] = []

    def heard(delivery: Any) -> None:
        notices.extend(delivery.notices)
        revisions.append(delivery.revision)

    worker.delivered.connect(heard)
    worker.start()
    try:
        qtbot.waitUntil(lambda: bool(notices), timeout=5000)
        for revision in (1, 2, 3):
            worker.update(f"Paragraph {revision}.\n", revision)
        qtbot.waitUntil(lambda: 3 in revisions, timeout=5000)
    finally:
        assert worker.stop()
    assert notices == [memory.notice]


def test_the_language_check_is_loaded_when_the_engine_starts_not_at_the_first_answer(
    qtbot,
) -> None:
    """Loading the identifier holds the GIL for ~25 ms in one piece: the worker loads it while
    nothing streams in, before any source was sent, and freezes it (its lists cost collections
    ~26 ms)."""
    from fastdesk.translate import language
    from fastdesk.ui.bridge import warming

    language._identifier.cache_clear()
    warming._language_frozen = False  # as in a process that has not loaded it yet
    worker = EngineWorker(
        JobSpec(target_lang="fr"),
        engine_factory=lambda: Engine(Router({})),
        translator_factory=lambda _engine, _spec, _emit: RecordingTranslator([]),
    )
    worker.start()
    try:
        qtbot.waitUntil(lambda: language._identifier.cache_info().currsize == 1, timeout=10_000)
        # its big lists out of the collector's reach: no collection walks them again
        table = language._identifier().tk_output
        qtbot.waitUntil(lambda: not any(o is table for o in gc.get_objects()), timeout=5_000)
    finally:
        assert worker.stop()
    assert language.identify("Ceci est une phrase en français, assez longue pour être jugée.")


def _nice(tid: int) -> int:
    """A thread's nice value as the kernel keeps it (field 19 of /proc/self/task/TID/stat)."""
    stat = Path(f"/proc/self/task/{tid}/stat").read_text()
    return int(stat.rsplit(")", 1)[1].split()[16])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice: Linux")
def test_the_worker_thread_and_what_it_starts_run_below_the_gui_thread(qtbot) -> None:
    """The scheduler lets the GUI thread go first when both want a core: the worker thread's
    nice value is above the GUI thread's, so is a thread the worker starts (the language
    check's loader), and the GUI thread's own is left as it was."""
    gui = threading.get_native_id()
    before = _nice(gui)
    if before + 1 > 19:
        pytest.skip("the test process runs at the lowest priority already")
    worker = EngineWorker(
        JobSpec(target_lang="fr"),
        engine_factory=lambda: Engine(Router({})),
        translator_factory=lambda _engine, _spec, _emit: RecordingTranslator([]),
    )
    deliveries: list[Any] = []
    worker.delivered.connect(deliveries.append)
    worker.start()
    try:
        qtbot.waitUntil(lambda: bool(deliveries), timeout=5000)
        assert worker.native_id is not None
        engine_nice = _nice(worker.native_id)
        loop = worker._loop
        helper = asyncio.run_coroutine_threadsafe(
            asyncio.to_thread(lambda: _nice(threading.get_native_id())), loop
        ).result(5)
    finally:
        assert worker.stop()
    assert engine_nice == min(19, before + threads.BACKGROUND_NICE) > before
    assert helper == engine_nice
    assert _nice(gui) == before
