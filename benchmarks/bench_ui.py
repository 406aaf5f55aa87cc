"""Window figures against the loopback provider emulator (prints numbers; not a test).

    .venv/bin/python benchmarks/bench_ui.py [--blocks 500] [--edits 10] [--view rendered|raw]
                                            [--scroll 0.5] [--problems] [--json]
                                            [--nice 5] [--emulator-nice 0]

Drives the real window offscreen (QT_QPA_PLATFORM=offscreen), its worker thread, the real
engine and the Groq SDK against tests/emulator.py (echo answers, a fixed time to first token and
token rate) served from a child process, as a real provider is not in our process: its threads
would otherwise take the GIL from the GUI thread. It measures:

0. The machine's own jitter: the same heartbeat for a few seconds with the window idle.
1. Event-loop stalls while a BLOCKS-block document streams in: a 1 ms QTimer heartbeat; a stall
   is the gap between two beats minus 1 ms. Worst and 99th percentile, from the moment the file
   is open (opening itself is timed apart) until the whole translation is shown.
2. Keystroke to translated block: type a word into one paragraph (a key every 30 ms), then
   time from the last key press until the target pane shows that block's translation.
   Reported raw, and minus the debounce (the app waits for a pause in typing on purpose) and
   the emulator's own delay (time to first token + tokens / rate), which leaves what the app
   itself adds.
3. An edit made during the backlog (once a tenth of the blocks are translated, a paragraph on
   screen is typed into): from the last key press to its translated block in the pane on screen,
   and that minus the debounce and the emulator's own time for it (the app's share: how long the
   request waited for a slot, plus the app's work).
4. CPU seconds of the whole process in the 5 s after the last answer was shown (idle: ~0).
5. Consistency: block by block, the rendered view's Markdown, the Markdown view's own text and
   the export compared (disagreements: should be 0); and whether the last block is in view after
   Ctrl+End in each pane.

With ``--problems`` the problems dock is on show throughout (it follows the translation only
while shown), and the GUI thread's time in it is reported: each pass of the list over the
target model and each update of the dock's rows, with the rows on show at the end.

With ``--review`` the reviewer pass is on (setting ``review = "on"``) and the emulator plays the
reviewer too (one minor error in each block); after the edits, the run waits for the verdicts
to stop coming and reports the review phase: from the first verdict to the last, the GUI
thread's CPU seconds, and (with ``--problems``) the problems list's passes in it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import QElapsedTimer, QEventLoop, Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from benchmarks.stall_trace import Gap, StallTrace, report, wrap_window_slots
from fastdesk.translate.events import BlockDone, BlockReviewed
from fastdesk.ui.bridge import threads
from tests.emulator import EmulatorProcess, last_user_content, review_pair

TTFB = 0.05  # the emulator's time to first token, seconds
RATE = 2000.0  # the emulator's tokens per second (≈ Groq/Cerebras fast models)
CHUNK_CHARS = 4  # the emulator's characters per token
IDLE_S = 3.0  # how long the heartbeat runs with the window idle, for the machine's own jitter


def document(blocks: int) -> str:
    """A realistic mix: headings, paragraphs, list items, a table, a code block now and then."""
    parts: list[str] = []
    i = 0
    while len(parts) < blocks:
        parts.append(f"## Section {i}\n\n")
        parts.append(
            f"Paragraph {i} explains one idea in plain words. It links to "
            f"[the guide](https://example.com/{i}) and mentions `option_{i}` once.\n\n"
        )
        parts.append(f"- First point of section {i}, short.\n")
        parts.append(f"- Second point of section {i}, a little longer than the first.\n\n")
        if i % 5 == 0:
            parts.append("| Name | Value |\n|------|------:|\n| alpha | 1 |\n| beta | 2 |\n\n")
        if i % 7 == 0:
            parts.append("```python\nprint('unchanged code')\n```\n\n")
        i += 1
    return "".join(parts[:blocks])


def review_answer(messages):  # type: ignore[no-untyped-def]
    """The emulator's answer with --review (module level: it crosses to the child process):
    a reviewer's verdict, one minor error on the translation's first word; the echo else."""
    pair = review_pair(messages)
    if pair is None:
        return last_user_content(messages)
    words = pair[1].split()
    found = [{"span": w, "category": "fluency", "severity": "minor", "explanation": "remark"}
             for w in words[:1]]  # fmt: skip
    return json.dumps({"errors": found})


class Timed:
    """Wraps a callable and keeps how long each call took (ms)."""

    def __init__(self, call):  # type: ignore[no-untyped-def]
        self.call, self.ms = call, []

    def __call__(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        start = time.perf_counter()
        try:
            return self.call(*args, **kwargs)
        finally:
            self.ms.append((time.perf_counter() - start) * 1000)

    def summary(self) -> dict[str, float]:
        ms = sorted(self.ms) or [0.0]
        return {
            "calls": len(self.ms),
            "p50_ms": round(pct(ms, 0.5), 2),
            "worst_ms": round(ms[-1], 2),
        }


class Heartbeat:
    """A 1 ms timer; the gaps between its beats show how long the event loop was busy."""

    def __init__(self) -> None:
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(1)
        self.timer.timeout.connect(self._beat)
        self.clock = QElapsedTimer()
        self.last = 0
        self.gaps: list[float] = []
        self.running = False
        self.stamp = time.perf_counter()  # the last beat
        # --trace only: each gap's perf_counter start and end, the GUI thread's ms on a CPU and
        # waiting for one within it (what is left it slept: waiting for the GIL, or idle), and
        # the same two of the engine thread. Untraced, a beat reads nothing: every system call
        # from Python lets the GIL go, and a beat that read /proc (open, read, close) then
        # waited to get it back from the engine thread up to three times a millisecond, a
        # stall of the probe's own that the window does not have.
        self.gui_stat: SchedStat | None = None
        self.engine_stat: SchedStat | None = None
        self.sched = self.engine_sched = (0.0, 0.0)
        self.spans: list[tuple[float, float, float, float, float, float]] = []
        self.on_beat: Callable[[], None] | None = None  # --trace: its watchdog

    def start(self) -> None:
        self.gaps.clear()
        self.spans.clear()
        self.clock.start()
        self.last = self.clock.nsecsElapsed()
        self.stamp = time.perf_counter()
        self.sched = self.gui_stat.read() if self.gui_stat else (0.0, 0.0)
        self.engine_sched = self.engine_stat.read() if self.engine_stat else (0.0, 0.0)
        self.running = True
        self.timer.start()

    def stop(self) -> None:
        self.running = False
        self.timer.stop()

    def _beat(self) -> None:
        now = self.clock.nsecsElapsed()
        self.gaps.append(max(0.0, (now - self.last) / 1e6 - 1.0))
        self.last = now
        stamp = time.perf_counter()
        if self.gui_stat is not None:
            sched = self.gui_stat.read()
            ran, queued = (a - b for a, b in zip(sched, self.sched, strict=True))
            engine = self.engine_stat.read() if self.engine_stat else (0.0, 0.0)
            engine_ran, engine_queued = (
                a - b for a, b in zip(engine, self.engine_sched, strict=True)
            )
            self.spans.append((self.stamp, stamp, ran, queued, engine_ran, engine_queued))
            self.sched, self.engine_sched = sched, engine
        self.stamp = stamp
        if self.on_beat is not None:
            self.on_beat()

    def summary(self) -> dict[str, float]:
        gaps = sorted(self.gaps) or [0.0]
        return {
            "beats": len(gaps),
            "worst_ms": round(gaps[-1], 2),
            "p99_ms": round(gaps[min(len(gaps) - 1, int(len(gaps) * 0.99))], 2),
            "over_16ms": sum(g > 16 for g in gaps),
        }


class SchedStat:
    """A thread's milliseconds on a CPU and waiting in the run queue for one, so far (Linux's
    /proc/self/task/TID/schedstat, kept open: one ``pread`` a reading, one system call)."""

    def __init__(self, native_id: int) -> None:
        self._fd = os.open(f"/proc/self/task/{native_id}/schedstat", os.O_RDONLY)

    @classmethod
    def of(cls, native_id: int | None) -> SchedStat | None:
        """None where there is no schedstat (not Linux, or the thread is gone)."""
        try:
            return cls(native_id) if native_id is not None else None
        except OSError:
            return None

    def read(self) -> tuple[float, float]:
        try:
            ran, queued, _slices = os.pread(self._fd, 96, 0).split()
        except (OSError, ValueError):
            return 0.0, 0.0
        return int(ran) / 1e6, int(queued) / 1e6


def cpu_seconds(stat: str) -> float | None:
    """User + system CPU time from a /proc stat file (Linux only; None elsewhere)."""
    try:
        fields = Path(stat).read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_now(emulator_pid: int | None) -> dict[str, float | None]:
    """CPU used so far by the GUI thread, the engine thread and the emulator's process.

    Why: on a 2-core machine they compete for the cores (and the two threads for the GIL);
    the figures say how busy the machine was while the stalls were measured.
    """
    threads = {t.name: t.native_id for t in threading.enumerate()}
    gui = threading.main_thread().native_id
    engine = threads.get("fastdesk-engine")
    return {
        "gui": cpu_seconds(f"/proc/self/task/{gui}/stat"),
        "engine": cpu_seconds(f"/proc/self/task/{engine}/stat") if engine else None,
        "emulator": cpu_seconds(f"/proc/{emulator_pid}/stat") if emulator_pid else None,
        "process": cpu_seconds("/proc/self/stat"),
    }


def machine_now() -> tuple[float, float] | None:
    """Seconds of CPU the whole machine has used so far (every process, every core), and of
    steal: time the hypervisor gave this virtual machine's CPUs to another guest (Linux's
    /proc/stat; None elsewhere).

    Why: a run whose GUI, engine and emulator all needed a third more CPU than usual for the
    same work, and had the stalls to match, is a run on a slower or shared machine; these say
    how much of the cores other processes had, and how much the host took away.
    """
    try:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
        user, nice, system, _idle, _iowait, irq, softirq, steal = (int(f) for f in fields[:8])
    except (OSError, ValueError):
        return None
    tick = os.sysconf("SC_CLK_TCK")
    return (user + nice + system + irq + softirq) / tick, steal / tick


def machine_used(
    before: tuple[float, float] | None, cpu: dict[str, float | None]
) -> dict[str, float] | None:
    """Since ``before``: the CPU of other processes (the machine's, less ours and the
    emulator's) and the steal."""
    after = machine_now()
    if before is None or after is None:
        return None
    ours = sum(v for v in (cpu.get("process"), cpu.get("emulator")) if v is not None)
    return {
        "others_s": round(max(0.0, after[0] - before[0] - ours), 2),
        "steal_s": round(after[1] - before[1], 2),
    }


def nice_values(emulator_pid: int | None) -> dict[str, int | None]:
    """The nice value of the GUI thread, the engine thread and the emulator (Linux)."""

    def nice(stat: str) -> int | None:
        try:
            return int(Path(stat).read_text().rsplit(")", 1)[1].split()[16])
        except (OSError, IndexError, ValueError):
            return None

    threads_now = {t.name: t.native_id for t in threading.enumerate()}
    engine = threads_now.get("fastdesk-engine")
    return {
        "gui": nice(f"/proc/self/task/{threading.main_thread().native_id}/stat"),
        "engine": nice(f"/proc/self/task/{engine}/stat") if engine else None,
        "emulator": nice(f"/proc/{emulator_pid}/stat") if emulator_pid else None,
    }


def cpu_used(before: dict[str, float | None], after: dict[str, float | None]) -> dict:
    out: dict[str, float | None] = {}
    for name, start in before.items():
        end = after.get(name)
        out[name] = None if start is None or end is None else round(end - start, 2)
    return out


def wait_until(done, timeout: float, *signals) -> bool:
    """Run the event loop (idle like the app's, not a busy loop) until done() holds.

    done() is checked when one of `signals` fires, and every 20 ms as a fallback.
    """
    if done():
        return True
    loop = QEventLoop()
    poll = QTimer()
    poll.setInterval(20)

    def check(*_args: object) -> None:
        if done():
            loop.quit()

    poll.timeout.connect(check)
    for signal in signals:
        signal.connect(check)
    QTimer.singleShot(int(timeout * 1000), loop.quit)
    poll.start()
    loop.exec()
    poll.stop()
    for signal in signals:
        signal.disconnect(check)
    return done()


KEY_GAP_S = 0.03  # between two key presses: a fast typist's 33 keys a second


def type_text(widget, text: str) -> None:
    """Type ``text`` a key at a time, the event loop running between the keys as it does for a
    person typing (QTest.keyClicks sends them all in one turn: the heartbeat then counted the
    work of nine keystrokes as one stall)."""
    for n, char in enumerate(text):
        if n:
            wait_until(lambda: False, KEY_GAP_S)
        QTest.keyClick(widget, char)


def edit_during_backlog(window, pane, emu, debounce_ms: int) -> dict[str, object]:
    """Type into a paragraph on screen while the backlog runs; time it to its translated block."""
    view = window.document_view
    source = view.source
    text = source.toPlainText()
    top = source.cursorForPosition(source.viewport().rect().center()).position()
    anchor = text.find("Paragraph", top)
    cursor = source.textCursor()
    cursor.setPosition(anchor + len("Paragraph"))
    source.setTextCursor(cursor)
    word = " backlogx"
    pending_before = len(view.pending)
    type_text(source, word)
    typed = time.perf_counter()
    end = text.find("\n", anchor)
    marker = "Paragraph" + word + text[anchor + len("Paragraph") : end]
    shown = wait_until(
        lambda: any(
            marker in seg.text and not pane.placeholder(i) for i, seg in enumerate(pane.shown)
        ),
        120,
        view.scheduler.rendered,
    )
    elapsed = (time.perf_counter() - typed) * 1000
    tokens = len(text[anchor:end]) / CHUNK_CHARS
    emulator_ms = (TTFB + tokens / RATE) * 1000
    return {
        "shown": shown,
        "pending_when_typed": pending_before,
        "pending_when_shown": len(view.pending),
        "total_ms": round(elapsed, 1),
        "beyond_debounce_and_provider_ms": round(elapsed - debounce_ms - emulator_ms, 1),
    }


def consistency(window, screenshot: str | None = None) -> dict[str, object]:
    """Block by block: rendered view, Markdown view, export; and Ctrl+End in each pane.

    A rendered view hidden during the stream (``--view raw``) renders once shown: it is shown
    first, and how long it takes to render every block is part of the figures."""
    view = window.document_view
    hidden = view.showing_raw
    shown_at = time.perf_counter()
    view.show_raw(False)
    wait_until(lambda: view.scheduler.idle, 60, view.scheduler.settled)
    ready_s = round(time.perf_counter() - shown_at, 2) if hidden else None
    segs = view.review_ctl.segments()
    export = view.translation_text().replace("\r\n", "\n")
    editor_text = view.target_editor.toPlainText()
    editor_starts = view.target_editor.starts()
    pos = 0
    disagreements = 0
    for i, seg in enumerate(segs):
        exported = export[pos : pos + len(seg.text)]
        pos += len(seg.text)
        preview = view.preview
        drawn = i < len(preview.shown) and not preview.placeholder(i)  # (not a stand-in)
        rendered = preview.shown[i].text if drawn else None
        raw = (
            editor_text[editor_starts[i] : editor_starts[i + 1]]
            if i + 1 < len(editor_starts)
            else None
        )
        if not (rendered == seg.text == exported == raw):
            disagreements += 1
    disagreements += pos != len(export)
    end_in_view = {}
    for name, pane in (("markdown", view.target_editor), ("rendered", view.preview)):
        view.show_raw(pane is view.target_editor)
        pane.setFocus()
        QTest.keyClick(pane, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
        wait_until(lambda: False, 0.3)
        last = segs[-1].key if segs else None
        end_in_view[name] = pane.textCursor().atEnd() and any(
            key == last for key, _top, _bottom in pane.visible_blocks()
        )
    view.show_raw(False)
    if screenshot:
        wait_until(lambda: False, 0.5)
        window.grab().save(screenshot)
    return {
        "blocks": len(segs),
        "disagreements": disagreements,
        "end_in_view": end_in_view,
        "rendered_view_ready_s": ready_s,
    }


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return round(values[min(len(values) - 1, int(len(values) * q))], 1)


def keystroke_summary(results: list[dict[str, float]], edits: int, debounce_ms: int) -> dict:
    """The keystroke figures; only the count when no edit was asked for (--edits 0)."""
    if not results:
        return {"edits": edits}
    totals = [r["total_ms"] for r in results]
    app_ms = [r["app_ms"] for r in results]
    return {
        "edits": edits,
        "all_shown": all(r["shown"] for r in results),
        "debounce_ms": debounce_ms,
        "emulator_ms_mean": round(statistics.mean(r["emulator_ms"] for r in results), 1),
        "total_ms_p50": pct(totals, 0.5),
        "total_ms_worst": pct(totals, 1.0),
        "app_ms_p50": pct(app_ms, 0.5),
        "app_ms_p95": pct(app_ms, 0.95),
        "app_ms_worst": pct(app_ms, 1.0),
    }


def run(
    blocks: int,
    edits: int,
    view: str = "rendered",
    scroll: float = 0.0,
    screenshot: str | None = None,
    backlog_edit: bool = True,
    problems: bool = False,
    trace: bool = False,
    nice: int | None = None,
    emulator_nice: int = 0,
    review: bool = False,
) -> dict[str, object]:
    _app = QApplication.instance() or QApplication([])  # kept alive for the run
    if nice is not None:  # the background threads' priority below the GUI thread's
        threads.BACKGROUND_NICE = nice
    load_before = os.getloadavg() if hasattr(os, "getloadavg") else None
    tracer = StallTrace(stacks=os.environ.get("FASTDESK_TRACE_STACKS") == "1") if trace else None
    if tracer is not None:
        wrap_window_slots(tracer)
    home = tempfile.mkdtemp(prefix="fastdesk-bench-ui-")
    os.environ["FASTDESK_HOME"] = home
    # A paid tier: the window's own speed is measured, not the free tier's 30 requests a minute
    # (the client-side limiter would pace a first fill of hundreds of blocks over minutes).
    os.makedirs(os.path.join(home, "config"), exist_ok=True)
    with open(os.path.join(home, "config", "settings.toml"), "w", encoding="utf-8") as f:
        f.write(f'review = "{"on" if review else "off"}"\n')
        f.writelines(
            f'[rate_limits.groq."{model}"]\nrequests_per_minute = 0\ntokens_per_minute = 0\n'
            for model in ("*", "llama-3.1-8b-instant", "openai/gpt-oss-120b", "openai/gpt-oss-20b")
        )
    for name in ("CEREBRAS_API_KEY", "CEREBRAS_BASE_URL", "FASTDESK_OPENAI_BASE_URL"):
        os.environ.pop(name, None)
    with EmulatorProcess(
        ttfb=TTFB,
        tokens_per_second=RATE,
        chunk_chars=CHUNK_CHARS,
        rate_limits=None,
        nice=emulator_nice,
        answer=review_answer if review else None,
    ) as emu:
        os.environ["GROQ_BASE_URL"] = emu.groq_base_url
        os.environ["GROQ_API_KEY"] = "gsk_bench_not_a_real_key_000000000000"
        from fastdesk.ui import MainWindow

        window = MainWindow()
        window.set_language("en")  # echo answers are then correct: no fidelity retries
        window.resize(1280, 800)
        if (view == "raw") != window.document_view.showing_raw:
            window.toggle_target_view()
        shown_pane = (
            window.document_view.target_editor if view == "raw" else window.document_view.preview
        )
        window.show()
        timed: dict[str, Timed] = {}
        if problems:  # the list's pass over the model and the dock's row update, timed
            bench = window.workbench
            bench.show_problems()
            bench.problem_list.refresh = timed["pass"] = Timed(bench.problem_list.refresh)
            bench.problems.set_problems = timed["rows"] = Timed(bench.problems.set_problems)
        path = Path(home) / "long.md"
        path.write_text(document(blocks), encoding="utf-8")
        debounce_ms = window.settings.debounce_ms

        # 0. the machine's own jitter: the same heartbeat with the window idle (a gap here is
        # the process not running, not work of ours), once the engine is up and warmed
        wait_until(lambda: window.selectors.provider.count() > 1, 30)
        wait_until(lambda: False, 1.0)
        idle = Heartbeat()
        idle.start()
        wait_until(lambda: False, IDLE_S)
        idle.stop()

        # 1. a long document streams in
        opened = time.perf_counter()
        window.open_file(path)
        # Opening is one piece of work (read, highlight, lay out 500 blocks in the source pane):
        # timed on its own; the heartbeat then watches the translation stream in.
        QApplication.processEvents()
        open_ms = (time.perf_counter() - opened) * 1000
        bar = window.document_view.source.verticalScrollBar()
        bar.setValue(round(bar.maximum() * scroll))  # where the reader is (the target follows)
        beat = Heartbeat()
        traced: list[Gap] = []
        if tracer is not None:
            tracer.start()
            beat.on_beat = tracer.beat
            beat.gui_stat = SchedStat.of(threading.main_thread().native_id)
            beat.engine_stat = SchedStat.of(window.document_view.worker.native_id)
            tracer.last_beat = lambda: beat.stamp if beat.running else time.perf_counter()
        cpu_before = cpu_now(emu.pid)
        machine_before = machine_now()
        niced = nice_values(emu.pid)
        beat.start()
        last_answer = [time.perf_counter(), time.process_time()]  # when, and the CPU used by then

        def answered(delivery) -> None:  # a delivery that brings answers: the last one so far
            if any(isinstance(e, BlockDone) for e in delivery.events):
                last_answer[:] = [time.perf_counter(), time.process_time()]

        window.document_view.engine_news.connect(answered)
        # the reviewer model's verdicts: when the first came, the GUI's CPU and passes by then
        verdicts: dict[str, float] = {}

        def reviewed(delivery) -> None:  # type: ignore[no-untyped-def]
            n = sum(isinstance(e, BlockReviewed) for e in delivery.events)
            if n and not verdicts:
                verdicts.update(at=time.perf_counter(), gui=cpu_now(None)["gui"] or 0.0)
                verdicts["passes"] = len(timed["pass"].ms) if "pass" in timed else 0
            if n:
                verdicts["n"] = verdicts.get("n", 0) + n
                verdicts["last"] = time.perf_counter()

        window.document_view.engine_news.connect(reviewed)

        def all_shown() -> bool:
            return (
                window.document_view.revision > 0
                and not window.document_view.pending
                and not window.status.activity.isVisible()
                and window.document_view.scheduler.idle
            )

        doc_view = window.document_view
        backlog: dict[str, object] = {}

        def a_tenth_done() -> bool:
            total = len(doc_view.source_blocks)
            return total > 0 and len(doc_view.pending) < total * 0.9

        if backlog_edit and wait_until(a_tenth_done, 120, doc_view.target_updated):
            backlog = edit_during_backlog(window, shown_pane, emu, debounce_ms)
        ok = wait_until(all_shown, 600, window.document_view.target_updated)
        beat.stop()
        if tracer is not None:
            tracer.pause()
            traced += tracer.gaps(beat.spans)
        cpu = cpu_used(cpu_before, cpu_now(emu.pid))
        machine = machine_used(machine_before, cpu)
        window.document_view.engine_news.disconnect(answered)
        when, cpu_then = last_answer
        settled_s = time.perf_counter() - when
        at_2s = None
        if settled_s < 2.0:
            wait_until(lambda: time.perf_counter() >= when + 2.0, 3.0)
            at_2s = time.process_time()
        wait_until(lambda: time.perf_counter() >= when + 5.0, 6.0)
        first = {
            "shown_s_after_last_answer": round(settled_s, 2),
            "cpu_s_5s_after_last_answer": round(time.process_time() - cpu_then, 2),
            "cpu_s_2_to_5s_after": None if at_2s is None else round(time.process_time() - at_2s, 2),
            "backlog_edit": backlog,
            "consistency": consistency(window, screenshot),
            "blocks": blocks,
            "view": view,
            "scroll": scroll,
            "complete": ok,
            "seconds": round(time.perf_counter() - opened, 2),
            "open_ms": round(open_ms, 1),
            "requests": len(emu.chat_bodies()),
            "cpu_s": cpu,
            "machine_s": machine,
            "nice": niced,
            **beat.summary(),
        }

        # 2. keystroke → translated block
        source = window.document_view.source
        results: list[dict[str, float]] = []
        beat.start()
        for n in range(edits):
            text = source.toPlainText()
            anchor = text.find(f"Paragraph {n * 3 + 1} explains")
            if anchor < 0:  # the edit during the backlog typed into that one (a shorter pane)
                anchor = text.find(f"Paragraph {n * 3 + 2} explains")
            cursor = source.textCursor()
            cursor.setPosition(anchor + len("Paragraph"))
            source.setTextCursor(cursor)
            word = f" edit{n}x"
            emu.reset_records()
            type_text(source, word)
            typed = time.perf_counter()
            # the whole edited paragraph (echo answers: its translation is itself)
            start = text.rfind("\n", 0, anchor) + 1
            end = text.find("\n", anchor)
            cut = anchor + len("Paragraph")
            marker = text[start:cut] + word + text[cut:end]
            shown = wait_until(  # in the pane on screen (the hidden one catches up later)
                lambda m=marker: any(m in seg.text for seg in shown_pane.shown),
                10,
                window.document_view.scheduler.rendered,
            )
            elapsed = (time.perf_counter() - typed) * 1000
            answer = next(
                (b for b in emu.chat_bodies() if marker in json.dumps(b, ensure_ascii=False)),
                None,
            )
            tokens = 0
            if answer is not None:
                user = [m for m in answer["messages"] if m["role"] == "user"][-1]["content"]
                tokens = len(user) / CHUNK_CHARS
            emulator_ms = (TTFB + tokens / RATE) * 1000
            results.append(
                {
                    "shown": shown,
                    "total_ms": elapsed,
                    "emulator_ms": emulator_ms,
                    "app_ms": elapsed - debounce_ms - emulator_ms,
                }
            )
            wait_until(lambda: not window.status.activity.isVisible(), 5)
        beat.stop()
        if tracer is not None:
            traced += tracer.gaps(beat.spans)
            tracer.stop()
            late = tracer.late_stacks()
            collections = tracer.collections()
            syscalls = tracer.syscalls.most_common()
        reviews: dict[str, object] = {}
        if review:  # until no verdict came for 3 s
            wait_until(lambda: bool(verdicts), 120)
            wait_until(lambda: time.perf_counter() - verdicts.get("last", 0.0) > 3.0, 600)
            window.document_view.engine_news.disconnect(reviewed)
            if verdicts:
                passes = timed["pass"].ms[int(verdicts["passes"]) :] if "pass" in timed else []
                reviews = {
                    "verdicts": int(verdicts["n"]),
                    "seconds": round(verdicts["last"] - verdicts["at"], 2),
                    "gui_cpu_s": round((cpu_now(None)["gui"] or 0.0) - verdicts["gui"], 2),
                    "passes": len(passes),
                    "pass_ms_total": round(sum(passes), 1),
                    "pass_ms_worst": round(max(passes, default=0.0), 2),
                }
        window.document_view.source.document().setModified(False)
        window.close()

    return {
        "load_average": [load_before, os.getloadavg() if load_before else None],
        "streaming": first,
        "keystroke": keystroke_summary(results, edits, debounce_ms),
        "stalls_while_editing": beat.summary(),
        "stalls_while_idle": idle.summary(),
        "problems": {
            **{name: t.summary() for name, t in timed.items()},
            "rows_at_end": len(window.workbench.problems.rows) if problems else None,
        },
        "reviews": reviews,
        "trace": report(traced) if trace else None,
        "late_stacks": late.most_common(12) if trace else None,
        "collections": collections if trace else None,
        "syscalls": syscalls if trace else None,
    }


def main() -> int:
    global TTFB  # the emulator's and the figures' time to first token, from --ttfb
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=500)
    parser.add_argument("--edits", type=int, default=10)
    parser.add_argument("--view", choices=("rendered", "raw"), default="rendered")
    parser.add_argument(
        "--scroll", type=float, default=0.0, help="the reader's place in the source, 0 to 1"
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--screenshot", help="save the window here after the stream (PNG)")
    parser.add_argument(
        "--ttfb", type=float, default=TTFB, help="the emulator's time to first token, seconds"
    )
    parser.add_argument(
        "--no-backlog-edit", action="store_true", help="no edit while the document streams in"
    )
    parser.add_argument(
        "--problems", action="store_true", help="the problems dock on show, its work timed"
    )
    parser.add_argument(
        "--review",
        action="store_true",
        help="the reviewer pass on (the emulator reviews too), the review phase timed",
    )
    parser.add_argument(
        "--trace", action="store_true", help="say what the GUI thread ran in each beat over 16 ms"
    )
    parser.add_argument(
        "--nice",
        type=int,
        help="the background threads' nice value above the GUI thread's"
        f" (default {threads.BACKGROUND_NICE}; 0: the same as the GUI's)",
    )
    parser.add_argument(
        "--emulator-nice",
        type=int,
        default=0,
        help="the emulator's nice value (a real provider takes no CPU of this machine)",
    )
    args = parser.parse_args()
    TTFB = args.ttfb
    result = run(
        args.blocks,
        args.edits,
        args.view,
        args.scroll,
        args.screenshot,
        not args.no_backlog_edit,
        args.problems,
        args.trace,
        args.nice,
        args.emulator_nice,
        args.review,
    )
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    s, k, e = result["streaming"], result["keystroke"], result["stalls_while_editing"]
    print(
        f"Opening a {s['blocks']}-block document: {s['open_ms']} ms (source pane, one piece);"
        f" {s['view']} view, reader at {s['scroll']:.0%} of the source"
    )
    print(
        f"Streaming its translation in ({s['requests']} requests,"
        f" {s['seconds']} s, complete: {s['complete']}):"
    )
    print(
        f"  event-loop stall: worst {s['worst_ms']} ms, p99 {s['p99_ms']} ms,"
        f" beats over 16 ms: {s['over_16ms']} of {s['beats']}"
    )
    b = s["backlog_edit"]
    if b:
        print(
            f"  an edit during the backlog ({b['pending_when_typed']} blocks to come): shown"
            f" {b['shown']} after {b['total_ms']} ms, {b['beyond_debounce_and_provider_ms']} ms"
            f" beyond the debounce and the provider's own time"
        )
    c = s["consistency"]
    print(
        f"  after the last answer: all shown {s['shown_s_after_last_answer']} s later; process"
        f" CPU {s['cpu_s_5s_after_last_answer']} s in the 5 s after it"
        f" ({s['cpu_s_2_to_5s_after']} s from 2 s to 5 s); views and export"
        f" disagree on {c['disagreements']} of {c['blocks']} blocks; end in view after Ctrl+End:"
        f" {c['end_in_view']}"
        + (
            ""
            if c["rendered_view_ready_s"] is None
            else f"; the rendered view, shown then, rendered in {c['rendered_view_ready_s']} s"
        )
    )
    cpu = s["cpu_s"]
    if any(v is not None for v in cpu.values()):
        shown = ", ".join(f"{name} {v} s" for name, v in cpu.items() if v is not None)
        print(f"  CPU meanwhile ({os.cpu_count()} cores): {shown}")
    if s["machine_s"]:
        m = s["machine_s"]
        print(
            f"  the machine meanwhile: other processes {m['others_s']} s of CPU, stolen by the"
            f" host {m['steal_s']} s"
        )
    if any(v is not None for v in s["nice"].values()):
        shown = ", ".join(f"{name} {v}" for name, v in s["nice"].items() if v is not None)
        print(f"  nice values: {shown}")
    if k["edits"]:
        print(f"Keystroke to translated block ({k['edits']} edits, all shown: {k['all_shown']}):")
        print(
            f"  total p50 {k['total_ms_p50']} ms, worst {k['total_ms_worst']} ms"
            f" (debounce {k['debounce_ms']} ms, emulator ≈{k['emulator_ms_mean']} ms)"
        )
        print(
            f"  app's own share: p50 {k['app_ms_p50']} ms, p95 {k['app_ms_p95']} ms,"
            f" worst {k['app_ms_worst']} ms"
        )
        print(f"  event-loop stall while editing: worst {e['worst_ms']} ms, p99 {e['p99_ms']} ms")
    p = result["problems"]
    if p["rows_at_end"] is not None:
        pas, rows = p["pass"], p["rows"]
        print(
            f"Problems dock on show ({p['rows_at_end']} rows at the end): {pas['calls']} passes"
            f" over the model, p50 {pas['p50_ms']} ms, worst {pas['worst_ms']} ms;"
            f" {rows['calls']} row updates, p50 {rows['p50_ms']} ms, worst {rows['worst_ms']} ms"
        )
    r = result["reviews"]
    if r:
        print(
            f"Reviews: {r['verdicts']} verdicts over {r['seconds']} s; the GUI thread's CPU from"
            f" the first to 3 s after the last: {r['gui_cpu_s']} s; problems passes meanwhile:"
            f" {r['passes']}, {r['pass_ms_total']} ms in all, worst {r['pass_ms_worst']} ms"
        )
    load = result["load_average"]
    if load[0]:
        print(f"Load average before: {load[0][0]:.2f}, after: {load[1][0]:.2f} (1 min)")
    i = result["stalls_while_idle"]
    print(
        f"The machine's own jitter ({IDLE_S:.0f} s, window idle): worst {i['worst_ms']} ms,"
        f" p99 {i['p99_ms']} ms, beats over 16 ms: {i['over_16ms']} of {i['beats']}"
    )
    if result["trace"] is not None:
        print("What the GUI thread ran in each beat over 16 ms (innermost frame first):")
        print(result["trace"] or "  no beat over 16 ms")
        print(f"Collections on the GUI thread of 0.5 ms or more: {result['collections']}")
        calls = ", ".join(f"{name} {n}" for name, n in result["syscalls"])
        print(f"The GUI thread's system call, sampled while a beat was 8 ms late: {calls}")
        print("Where the threads were in beats late by 12 ms or more (faulthandler's watchdog):")
        for where, n in result["late_stacks"]:
            print(f"  {n:4d} × {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
