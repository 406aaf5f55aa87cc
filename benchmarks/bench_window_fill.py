"""The window against the command line, measured from outside (prints figures; not a test).

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/bench_window_fill.py
        [--doc bench|handbook|FILE.md]... [--blocks 4000] [--only fill|typing] [--poll-ms 40]
        [--view raw|rendered] [--open] [--no-edit] [--trace] [--json]

Everything runs against tests/emulator.py served from a child process (a real provider is not
in our process), speaking Groq's streaming format through the real SDK, with the rate limits
set off in the settings (as a paid account that configured them), each side in a fresh
FASTDESK_HOME (no memory hits). The measurements touch only the window's public widgets:
``sourceEditor.setPlainText`` (or the file opened, ``--open``; or keys typed into it),
``targetEditor``'s and ``targetPreview``'s text, polled, and the status bar's labels.

The documents (``--doc``, repeatable; by default ``bench`` and ``handbook``): two generated
shapes (benchmarks/fill_documents.py: many small blocks; paragraphs of 2-4 sentences each ending
with a link, lists and code in every ten) and any Markdown file (a real long page). Answers are
"same-language simplify" made visible: the server upper-cases the prose of each request and keeps
its code, links, HTML and block markers (fill_documents.shout), so the fidelity checks pass (no
retries) and every answered block differs from its source. The command line's output is the
reference: the window holds every answer when ``targetEditor`` is that text.

(a) **The fill.** Server 100 ms to first token and 4,000 tokens/s: ``fastdesk translate`` on the
    document (a subprocess: wall time, start-up included), then the window given the same text:
    until it is **filled** (``targetEditor`` holds every answer and the rendered view on show
    has none of the source's own words left: the moment the status bar says "every block
    translated", DocumentView.filled), until 5 % of the answers are in, and an edit typed into
    a paragraph in the middle once 10 % are there (from its last key until the target shows
    that paragraph's answer). Filled over the command line's time is the figure that counts.
    The server notes each request's arrival: both sides' pace per 10 s is printed.
(b) **Typing.** Three sentences typed into an empty paragraph at 9 characters a second, a pause
    of 2 s at each sentence end, server 150 ms to first token and 2,000 tokens/s: from the last
    key of a sentence until ``targetEditor`` shows its answer (p50 over the sentences), the
    provider's own time beside it; and the status bar's "first token" against what the command
    line's ``-v`` log says (``ttfb``) for one paragraph on the same server (median of 5 runs).

The load average is printed with each part: the machine is shared, so compare figures taken by
turns, not across days.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLabel, QPlainTextEdit, QTextEdit

from benchmarks.bench_typing import idle
from benchmarks.fill_documents import ARRIVALS_ENV, GENERATED, shout, shout_text
from tests.emulator import EmulatorProcess

ROOT = Path(__file__).resolve().parents[1]
CHUNK_CHARS = 4
FILL_TTFB, FILL_RATE = 0.1, 4000.0
TYPE_TTFB, TYPE_RATE = 0.15, 2000.0
KEYS_PER_S = 9.0
SENTENCE_PAUSE_S = 2.0
SENTENCES = (
    "We utilize the new parser for every file in the folder.",
    "Then we utilize a cache so the second run starts at once.",
    "Readers utilize the summary to find what changed since last week.",
)
PREVIEW_EVERY_S = 0.5  # how often the rendered view's text is read once targetEditor is full
SCREEN_LINES = 60  # the first screen: the lines a tall window shows first (~34 short blocks)
FILLED_SAYS = "every block translated"  # the status bar's, once filled (DocumentView.filled)
EDIT = " zedit"  # typed after the first word of a paragraph in the middle during the backlog


def pct(values: list[float], q: float) -> float | None:
    return round(values[min(len(values) - 1, int(len(values) * q))]) if values else None


def load() -> float:
    return os.getloadavg()[0]


def fresh_home(prefix: str) -> str:
    """A FASTDESK_HOME with the rate limits off (0: no limit) for the emulator's Groq models."""
    home = tempfile.mkdtemp(prefix=prefix)
    os.makedirs(os.path.join(home, "config"), exist_ok=True)
    with open(os.path.join(home, "config", "settings.toml"), "w", encoding="utf-8") as f:
        f.writelines(
            f'[rate_limits.groq."{model}"]\nrequests_per_minute = 0\ntokens_per_minute = 0\n'
            for model in ("*", "llama-3.1-8b-instant", "openai/gpt-oss-120b", "openai/gpt-oss-20b")
        )
    return home


def provider_env(emu: EmulatorProcess, home: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CEREBRAS_", "FASTDESK_"))}
    env.update(
        FASTDESK_HOME=home,
        GROQ_BASE_URL=emu.groq_base_url,
        GROQ_API_KEY="gsk_bench_not_a_real_key_000000000000",
        PYTHONPATH=str(ROOT),
    )
    return env


def cli(emu: EmulatorProcess, text: str, *, verbose: bool = False) -> tuple[float, str, str]:
    """``fastdesk translate`` in a subprocess: (seconds, output, its log on stderr)."""
    home = fresh_home("fastdesk-bench-cli-")
    source = Path(home) / "doc.md"
    out = Path(home) / "out.md"
    source.write_text(text, encoding="utf-8")
    command = [sys.executable, "-m", "fastdesk", "translate", str(source)]
    command += ["--mode", "simplify", "--to", "en", "-o", str(out)] + (["-v"] if verbose else [])
    started = time.perf_counter()
    done = subprocess.run(command, env=provider_env(emu, home), capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"fastdesk translate failed ({done.returncode}): {done.stderr[-2000:]}")
    return seconds, out.read_text(encoding="utf-8"), done.stderr


OPEN = False  # --open: the window opens the document's file (File > Open) instead of setPlainText
HEADERS = False  # --headers: the server sends Groq's rate-limit headers (the emulator's)


def server(ttfb: float, rate: float) -> EmulatorProcess:
    """The emulator in a child process, answering with ``shout`` at that speed; without
    ``HEADERS`` no rate-limit headers (the limits are off)."""
    return EmulatorProcess(
        ttfb=ttfb,
        tokens_per_second=rate,
        chunk_chars=CHUNK_CHARS,
        answer=shout,
        **({} if HEADERS else {"rate_limits": None}),
    )


def wait_until(done, timeout: float, poll_s: float = 0.005) -> bool:  # type: ignore[no-untyped-def]
    end = time.perf_counter() + timeout
    while not done():
        if time.perf_counter() >= end:
            return False
        idle(poll_s)
    return True


def open_window(emu: EmulatorProcess, view: str):  # type: ignore[no-untyped-def]
    """The app's main window on a fresh home, simplify into English, the engine up."""
    for key, value in provider_env(emu, fresh_home("fastdesk-bench-window-")).items():
        os.environ[key] = value
    for name in [k for k in os.environ if k.startswith("CEREBRAS_")]:
        os.environ.pop(name)
    from fastdesk.ui import MainWindow

    window = MainWindow(offer_recovery=False)
    window.set_mode("simplify")
    window.set_language("en")
    window.resize(1280, 800)
    if (view == "raw") != window.document_view.showing_raw:
        window.toggle_target_view()
    window.show()
    wait_until(lambda: window.selectors.provider.count() > 1, 60, 0.02)
    idle(1.0)  # the start's own work (the language check's model, a warm-up) is not the fill
    source = window.findChild(QPlainTextEdit, "sourceEditor") or window.findChild(
        QTextEdit, "sourceEditor"
    )
    target = window.findChild(QPlainTextEdit, "targetEditor") or window.findChild(
        QTextEdit, "targetEditor"
    )
    assert source is not None and target is not None, "sourceEditor / targetEditor not found"
    return window, source, target


def close(window) -> None:  # type: ignore[no-untyped-def]
    window.document_view.source.document().setModified(False)
    window.close()


def thread_cpu() -> dict[str, float]:
    """CPU seconds so far of the GUI thread, the engine thread and the whole process (Linux)."""

    def cpu(stat: str) -> float:
        try:
            fields = Path(stat).read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            return float("nan")
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    ids = {t.name: t.native_id for t in threading.enumerate()}
    out = {"gui": cpu(f"/proc/self/task/{threading.main_thread().native_id}/stat")}
    if "fastdesk-engine" in ids:
        out["engine"] = cpu(f"/proc/self/task/{ids['fastdesk-engine']}/stat")
    out["process"] = cpu("/proc/self/stat")
    return out


def task_cpu() -> dict[str, float]:
    """CPU seconds so far of every thread of the process, by name (Linux): Python's names where
    Python knows the thread, else the kernel's (Qt's own threads)."""
    names = {t.native_id: t.name for t in threading.enumerate()}
    out: dict[str, float] = {}
    for task in Path("/proc/self/task").iterdir():
        try:
            head, fields = (task / "stat").read_text().rsplit(")", 1)
        except OSError:
            continue
        name = names.get(int(task.name)) or head.split("(", 1)[1]
        parts = fields.split()
        spent = (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")
        out[name] = out.get(name, 0.0) + spent
    return out


class Trace:
    """``--trace`` (reads the window's insides, unlike the figures): when the engine's answers
    reach the GUI thread (the view's ``engine_news``), when ``targetEditor`` shows them, and the
    CPU of the GUI and engine threads each second: which side sets the pace."""

    def __init__(self, window) -> None:  # type: ignore[no-untyped-def]
        from fastdesk.translate.events import BlockDone, BlockStarted, RequestDone

        self.started = time.perf_counter()
        self.answers: list[float] = []  # when each BlockDone reached the GUI thread
        self.edit_answered: float | None = None  # when the edit's did
        self.edit_typed: float | None = None  # when its last key was pressed
        # (when done, first token ms, whole request ms)
        self.requests: list[tuple[float, float | None, float | None]] = []
        self.shown: list[tuple[float, int]] = []  # (when, answers in targetEditor)
        self.cpu: list[tuple[float, dict[str, float]]] = []
        self._done, self._request, self._started = BlockDone, RequestDone, BlockStarted
        self.first_delivery: float | None = None  # when the engine's first news reached the GUI
        self.first_started: float | None = None  # and the first block's request had begun
        window.document_view.engine_news.connect(self._news)
        # the engine thread's time on a CPU and waiting in the run queue for one (Linux), and
        # its loop's waits of our own: for gui_first() and the pacing's sleep (PACE_S)
        self.sched_before = self._schedstat()
        self.tasks_before = task_cpu()
        self.waits = {"gui_first_s": 0.0, "gui_first_n": 0, "pace_s": 0.0, "pace_n": 0}
        self._patch()

    def _schedstat(self) -> tuple[float, float]:
        engine = {t.name: t.native_id for t in threading.enumerate()}.get("fastdesk-engine")
        try:
            ran, queued, _n = Path(f"/proc/self/task/{engine}/schedstat").read_text().split()
        except (OSError, ValueError):
            return (math.nan, math.nan)
        return int(ran) / 1e9, int(queued) / 1e9

    def _patch(self) -> None:
        from fastdesk.ui.bridge import threads

        waits, event, clock = self.waits, threads._gui_free, threads.time

        class TimedEvent:  # gui_first's event, its waits (the loop thread's) timed
            def __getattr__(self, name: str) -> object:
                return getattr(event, name)

            def wait(self, timeout: float | None = None) -> bool:
                started = time.perf_counter()
                try:
                    return event.wait(timeout)
                finally:
                    waits["gui_first_s"] += time.perf_counter() - started
                    waits["gui_first_n"] += 1

        class TimedSleep:  # the pacing's sleep
            def __getattr__(self, name: str) -> object:
                return getattr(clock, name)

            def sleep(self, seconds: float) -> None:
                waits["pace_s"] += seconds
                waits["pace_n"] += 1
                clock.sleep(seconds)

        threads._gui_free = TimedEvent()  # type: ignore[assignment]
        threads.time = TimedSleep()  # type: ignore[assignment]

    def _news(self, delivery) -> None:  # type: ignore[no-untyped-def]
        now = time.perf_counter() - self.started
        if self.first_delivery is None:
            self.first_delivery = now
        for event in delivery.events:
            if self.first_started is None and isinstance(event, self._started):
                self.first_started = now
            if isinstance(event, self._done) and event.origin == "model":
                self.answers.append(now)
                if EDIT.upper() in event.text:
                    self.edit_answered = round(now, 2)
            elif isinstance(event, self._request):
                self.requests.append((now, event.stats.ttfb_ms, event.stats.total_ms))

    def poll(self, answered: int) -> None:
        now = time.perf_counter() - self.started
        self.shown.append((now, answered))
        if not self.cpu or now - self.cpu[-1][0] >= 1.0:
            self.cpu.append((now, thread_cpu()))

    def report(self, total: int) -> dict[str, object]:
        def at(share: float) -> tuple[float | None, float | None]:
            n = max(1, int(total * share))
            engine = self.answers[n - 1] if len(self.answers) >= n else None
            screen = next((t for t, k in self.shown if k >= n), None)
            return engine, screen

        phases = {}
        for share in (0.05, 0.25, 0.5, 0.75, 1.0):
            engine, screen = at(share)
            phases[f"{share:.0%}"] = {
                "engine_s": None if engine is None else round(engine, 2),
                "target_s": None if screen is None else round(screen, 2),
            }
        cpu = []
        for (t0, a), (t1, b) in itertools.pairwise(self.cpu[:: max(1, len(self.cpu) // 12)]):
            span = t1 - t0
            cpu.append(
                f"{t0:.0f}-{t1:.0f} s: "
                + ", ".join(f"{k} {(b[k] - a.get(k, 0.0)) / span:.0%}" for k in b if k in a)
            )
        ttfbs = sorted(ms for _t, ms, _total in self.requests if ms is not None)
        # requests in flight (from each one's end and length): the most at once in each 5 s
        spans = [(t - total / 1000, t) for t, _ms, total in self.requests if total is not None]
        ends = sorted(end for _start, end in spans)
        totals = sorted(total for _t, _ms, total in self.requests if total is not None)
        flight: dict[int, int] = {}
        for start, _end in spans:
            count = sum(1 for s, e in spans if s <= start < e)
            flight[int(start // 5)] = max(flight.get(int(start // 5), 0), count)
        ran, queued = (a - b for a, b in zip(self._schedstat(), self.sched_before, strict=True))
        return {
            "first_news_and_block_started_reached_gui_s": [
                None if self.first_delivery is None else round(self.first_delivery, 2),
                None if self.first_started is None else round(self.first_started, 2),
            ],
            "first_request_done_and_answer_reached_gui_s": [
                round(self.requests[0][0], 2) if self.requests else None,
                round(self.answers[0], 2) if self.answers else None,
            ],
            "edit_typed_then_answer_reached_gui_s": [self.edit_typed, self.edit_answered],
            "engine_thread_s": {
                "on_cpu": round(ran, 2),
                "runnable_waiting_for_cpu": round(queued, 2),
                **{k: round(v, 2) for k, v in self.waits.items()},
            },
            "answers_reached_gui_then_target": phases,
            "requests": len(self.requests),
            "ttfb_ms_p50_p90": [pct(ttfbs, 0.5), pct(ttfbs, 0.9)],
            "total_ms_p50_p90": [pct(totals, 0.5), pct(totals, 0.9)],
            "most_in_flight_per_5s": [
                flight.get(k, 0) for k in range(int(ends[-1] // 5) + 1 if ends else 0)
            ],
            "cpu_share": cpu,
            "cpu_s_by_thread": {
                name: round(spent - self.tasks_before.get(name, 0.0), 2)
                for name, spent in sorted(task_cpu().items(), key=lambda kv: -kv[1])
                if spent - self.tasks_before.get(name, 0.0) >= 0.05
            },
        }


class Progress:
    """What ``targetEditor`` holds of the command line's output for the same source: its answer
    lines (the output's lines the source does not have), counted; filled when the text is the
    output. The rendered view is filled when none of the source's own words (lower-case words
    of the source found nowhere in the output) is left in it."""

    def __init__(self, source: str, expected: str) -> None:
        # Qt's plain text has a space for each no-break space (QTextDocument.toPlainText)
        source, expected = source.replace("\xa0", " "), expected.replace("\xa0", " ")
        self.expected = expected
        self.want = Counter(expected.split("\n")) - Counter(source.split("\n"))
        self.total = sum(self.want.values())
        self.head = expected.split("\n")[:SCREEN_LINES]
        self.probes = set(re.findall(r"[a-z]{4,}", source)) - set(
            re.findall(r"[a-z]{4,}", expected)
        )

    def edited(self, line: str, answer: str) -> None:
        """A source line was edited: its answer is no longer wanted, ``answer`` is instead."""
        old = shout_text(line)
        if self.want[old] > 1:
            self.want[old] -= 1
        else:
            self.want.pop(old, None)
        self.want[answer] += 1
        self.expected = self.expected.replace(old, answer, 1)

    def answered(self, shown: str) -> int:
        """The answer lines shown (cheap: polled while the window fills)."""
        want = self.want
        return min(self.total, sum(1 for line in shown.split("\n") if line in want))

    def filled(self, shown: str) -> bool:
        return shown.rstrip("\n") == self.expected.rstrip("\n")

    def first_screen(self, shown: str) -> bool:
        return shown.split("\n", SCREEN_LINES)[:SCREEN_LINES] == self.head

    def rendered(self, shown: str) -> bool:
        return not self.probes.intersection(re.findall(r"[a-z]{4,}", shown))


def edit_place(text: str, expected: str) -> tuple[int, str, str] | None:
    """Where the edit goes (after the first word of a paragraph in the middle whose answer
    differs from it), the line, and the line its answer makes."""
    lines, answers = text.split("\n"), expected.split("\n")
    if len(lines) != len(answers):
        return None
    for n in range(len(lines) // 2, len(lines)):
        line = lines[n]
        word = re.match(r"[A-Za-z]{3,}\b", line)
        if word and line != answers[n] and (n == 0 or not lines[n - 1].strip()):
            at = sum(len(x) + 1 for x in lines[:n]) + word.end()
            edited = line[: word.end()] + EDIT + line[word.end() :]
            return at, line, shout_text(edited)
    return None


def arrivals(path: Path, since: float) -> dict[str, object]:
    """The server's request arrivals from ``since`` (wall clock): how many, over how long, and
    the most and fewest in any 10 s."""
    try:
        times = sorted(t - since for t in map(float, path.read_text().split()) if t >= since)
    except OSError:
        times = []
    if not times:
        return {"n": 0}
    per10 = Counter(int(t // 10) for t in times)
    tens = [per10.get(k, 0) for k in range(int(times[-1] // 10) + 1)]
    return {
        "n": len(times),
        "first_s": round(times[0], 2),
        "last_s": round(times[-1], 2),
        "per_10s": tens,
    }


def status_texts(window) -> list[str]:  # type: ignore[no-untyped-def]
    """The texts the status bar shows (its labels on show)."""
    return [w.text() for w in window.statusBar().findChildren(QLabel) if w.text() and w.isVisible()]


def fill(
    name: str, text: str, poll_ms: int, view: str, edit: bool, trace: bool
) -> dict[str, object]:
    arrived = Path(tempfile.mkdtemp(prefix="fastdesk-bench-arrivals-")) / "arrivals"
    os.environ[ARRIVALS_ENV] = str(arrived)
    with server(FILL_TTFB, FILL_RATE) as emu:
        os.environ.pop(ARRIVALS_ENV)
        load_cli = load()
        cli_started = time.time()
        cli_s, out, log = cli(emu, text, verbose=True)
        cli_arrivals = arrivals(arrived, cli_started)
        cli_ttfb = sorted(float(ms) for ms in re.findall(r"ttfb (\d+) ms", log))
        cli_ok = out == shout_text(text)
        cli_requests = len(emu.chat_bodies())
        emu.reset_records()
        progress = Progress(text, out)
        total = progress.total

        window, source, target = open_window(emu, view)
        load_window = load()
        place = edit_place(text, out) if edit else None
        tracer = Trace(window) if trace else None
        cpu_before = thread_cpu()
        window_started = time.time()
        started = time.perf_counter()
        if OPEN:
            path = Path(tempfile.mkdtemp(prefix="fastdesk-bench-doc-")) / "document.md"
            path.write_text(text, encoding="utf-8")
            window.open_file(path)
        else:
            source.setPlainText(text)
        first5 = all_s = edit_s = first_screen = status_s = None
        status_true: bool | None = None
        edited_at = None
        polls = done = 0
        counted_at = -math.inf
        while time.perf_counter() - started < 900:
            shown = target.toPlainText()
            polls += 1
            now = time.perf_counter() - started
            # counting costs the GUI thread ~3 ms on a long document: only while a figure
            # waits for it (5 %, the edit at 10 %) and once a second for the trace
            counting = first5 is None or (place is not None and edited_at is None)
            if counting or (tracer is not None and now - counted_at >= 1.0):
                done, counted_at = progress.answered(shown), now
            if tracer is not None:
                tracer.poll(done)
            if status_s is None and any(FILLED_SAYS in t for t in status_texts(window)):
                status_s = now  # true only if both views hold every answer now
                preview_now = window.findChild(QTextEdit, "targetPreview")
                status_true = progress.filled(shown) and (
                    preview_now is None or progress.rendered(preview_now.toPlainText())
                )
            if first5 is None and done >= total * 0.05:
                first5 = now
            if first_screen is None and progress.first_screen(shown):
                first_screen = now
            if place is not None and edited_at is None and done >= total * 0.1:
                cursor = source.textCursor()
                cursor.setPosition(place[0])
                source.setTextCursor(cursor)
                for ch in EDIT:
                    QTest.keyClick(source, ch)
                    idle(1 / KEYS_PER_S)
                edited_at = time.perf_counter()
                progress.edited(place[1], place[2])
                if tracer is not None:
                    tracer.edit_typed = round(edited_at - tracer.started, 2)
                continue
            if edited_at is not None and edit_s is None and place is not None and place[2] in shown:
                edit_s = time.perf_counter() - edited_at
            if (place is None or edit_s is not None) and progress.filled(shown):
                all_s = now
                break
            idle(poll_ms / 1000)
        # then the rendered view on show (it takes blocks far from its view later, in a
        # stream), and the status bar's word: when it says filled, is it true?
        rendered_s = None
        preview = window.findChild(QTextEdit, "targetPreview")
        give_up = 900.0  # (for the word: 10 s after both views hold every answer)
        looked = -math.inf  # the rendered view's text costs the GUI thread ~30 ms a read on a
        # long document: read twice a second, or the reading starves the rendering it times
        while all_s is not None and preview is not None and time.perf_counter() - started < give_up:
            now = time.perf_counter() - started
            said = status_s is None and any(FILLED_SAYS in t for t in status_texts(window))
            rendered = rendered_s is not None
            if not rendered and (said or now - looked >= PREVIEW_EVERY_S):
                looked, rendered = now, progress.rendered(preview.toPlainText())
                if rendered:
                    rendered_s = now
                    give_up = min(give_up, now + 10)
            if said:
                status_s = now
                status_true = rendered and progress.filled(target.toPlainText())
            if rendered_s is not None and status_s is not None:
                break
            idle(poll_ms / 1000)
        status_end = status_texts(window)
        # filled: both views hold every answer and the status bar says so (one meaning; a
        # window without the word, an older one, is timed by its views alone)
        said = () if status_s is None else (status_s,)
        filled_s = None if all_s is None or rendered_s is None else max(all_s, rendered_s, *said)
        cpu_after = thread_cpu()
        requests = len(emu.chat_bodies())
        window_arrivals = arrivals(arrived, window_started)
        traced = None if tracer is None else tracer.report(total)
        close(window)
    return {
        "document": name,
        "chars": len(text),
        "answers": total,
        "cli_s": round(cli_s, 2),
        "cli_complete": cli_ok,
        "cli_requests": cli_requests,
        "cli_ttfb_ms_p50_p90": [pct(cli_ttfb, 0.5), pct(cli_ttfb, 0.9)],
        "cli_arrivals": cli_arrivals,
        "load_cli": round(load_cli, 2),
        "window_s": None if all_s is None else round(all_s, 2),
        "first_5pct_s": None if first5 is None else round(first5, 2),
        "first_screen_s": None if first_screen is None else round(first_screen, 2),
        "rendered_s": None if rendered_s is None else round(rendered_s, 2),
        "status_filled_s": None if status_s is None else round(status_s, 2),
        "status_true": status_true,  # both views held every answer when it said so
        "status_at_end": status_end,
        "edit_s": None if edit_s is None else round(edit_s, 2),
        # filled: targetEditor and the rendered view on show both hold every answer (the
        # status bar's "every block translated": DocumentView.filled, one meaning)
        "filled_s": None if filled_s is None else round(filled_s, 2),
        "ratio": None if filled_s is None else round(filled_s / cli_s, 2),
        "window_requests": requests,
        "window_arrivals": window_arrivals,
        "polls": polls,
        "load_window": round(load_window, 2),
        "cpu_s": {k: round(cpu_after[k] - cpu_before.get(k, 0.0), 2) for k in cpu_after},
        "view": view,
        "trace": traced,
    }


def documents(names: list[str], blocks: int) -> list[tuple[str, str]]:
    """(name, text) of each ``--doc``: a generated shape by its name, else a file's text."""
    out = []
    for name in names:
        if name in GENERATED:
            out.append((f"{name} ({blocks} blocks)", GENERATED[name](blocks)))
        else:
            path = Path(name)
            try:
                out.append((path.name, path.read_text(encoding="utf-8")))
            except (OSError, UnicodeDecodeError) as exc:
                raise SystemExit(f"{name}: {getattr(exc, 'strerror', None) or exc}") from None
    return out


def typing(view: str) -> dict[str, object]:
    with server(TYPE_TTFB, TYPE_RATE) as emu:
        load_cli = load()
        ttfbs = []
        for _ in range(5):
            _s, _out, log = cli(emu, SENTENCES[0] + "\n", verbose=True)
            ttfbs += [float(ms) for ms in re.findall(r"ttfb (\d+) ms", log)]
        window, source, target = open_window(emu, view)
        load_window = load()
        source.setPlainText("# Notes\n\n")
        wait_until(lambda: target.toPlainText().startswith("# Notes"), 30)
        idle(1.0)
        cursor = source.textCursor()
        cursor.movePosition(cursor.MoveOperation.End)
        source.setTextCursor(cursor)
        source.setFocus()
        rows = []
        paragraph = ""
        for n, sentence in enumerate(SENTENCES):
            typed = (" " if n else "") + sentence
            for ch in typed:
                QTest.keyClick(source, ch)
                idle(1 / KEYS_PER_S)
            last_key = time.perf_counter() - 1 / KEYS_PER_S  # the idle after the last key
            paragraph += typed
            want = shout_text(paragraph)
            shown = wait_until(lambda w=want: w in target.toPlainText(), 10, 0.001)
            elapsed = time.perf_counter() - last_key
            provider = TYPE_TTFB + len(paragraph) / CHUNK_CHARS / TYPE_RATE
            rows.append({"shown": shown, "s": round(elapsed, 3), "provider_s": round(provider, 3)})
            idle(max(0.0, SENTENCE_PAUSE_S - elapsed))
        labels = [w.text() for w in window.statusBar().findChildren(QLabel)]
        status = next((t for t in labels if "first token" in t), "")
        match = re.search(r"first token (\d+) ms", status)
        close(window)
    return {
        "sentences": rows,
        "p50_s": round(statistics.median(r["s"] for r in rows), 3),
        "provider_p50_s": round(statistics.median(r["provider_s"] for r in rows), 3),
        "status_first_token_ms": int(match.group(1)) if match else None,
        "status_text": status,
        "cli_ttfb_ms": ttfbs,
        "cli_ttfb_p50_ms": statistics.median(ttfbs) if ttfbs else None,
        "load_cli": round(load_cli, 2),
        "load_window": round(load_window, 2),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--doc",
        action="append",
        metavar="NAME|FILE",
        help="a generated document (bench, handbook) or a Markdown file; repeat for several"
        " (default: bench and handbook)",
    )
    parser.add_argument("--blocks", type=int, default=4000, help="of a generated document")
    parser.add_argument("--only", choices=("fill", "typing"))
    parser.add_argument("--poll-ms", type=int, default=40, help="how often targetEditor is read")
    parser.add_argument(
        "--view",
        choices=("raw", "rendered"),
        default="rendered",
        help="the target view on show (targetEditor is read either way; rendered: the default)",
    )
    parser.add_argument("--no-edit", action="store_true", help="no edit during the backlog")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--open",
        action="store_true",
        help="the window opens the document's file (as File > Open does) instead of being given"
        " its text with setPlainText",
    )
    parser.add_argument(
        "--headers",
        action="store_true",
        help="the server sends Groq's rate-limit headers (tests/emulator.py's defaults), as a"
        " server speaking Groq's format does; the settings still set the limits off",
    )
    parser.add_argument("--trace", action="store_true", help="the fill's timeline (see Trace)")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an experiment: set fastdesk.ui.bridge.threads.NAME (PACE_S, MAX_YIELD_S,"
        " BACKGROUND_NICE) before the window starts",
    )
    args = parser.parse_args()
    global HEADERS, OPEN
    HEADERS, OPEN = args.headers, args.open
    from fastdesk.ui.bridge import threads

    for setting in args.set:
        name, _, value = setting.partition("=")
        setattr(threads, name, type(getattr(threads, name))(value))
    _app = QApplication.instance() or QApplication([])
    result: dict[str, object] = {}
    if args.only != "typing":
        edit = not args.no_edit
        result["fill"] = fills = []
        for name, text in documents(args.doc or ["bench", "handbook"], args.blocks):
            f = fill(name, text, args.poll_ms, args.view, edit, args.trace)
            fills.append(f)
            if not args.json:
                print(
                    f"Fill, {f['document']}, {f['chars']:,} characters ({f['answers']} answer"
                    f" lines), {FILL_TTFB * 1000:.0f} ms to first token, {FILL_RATE:.0f} tokens/s,"
                    f" {f['view']} view on show:\n"
                    f"  fastdesk translate: {f['cli_s']} s ({f['cli_requests']} requests, every"
                    f" block shouted: {f['cli_complete']}; -v says ttfb p50, p90"
                    f" {f['cli_ttfb_ms_p50_p90']} ms; load {f['load_cli']})\n"
                    f"  window: filled after {f['filled_s']} s, ratio {f['ratio']} (every answer"
                    f" in targetEditor after {f['window_s']} s, in the rendered view on show"
                    f" after {f['rendered_s']} s; the status bar says so after"
                    f" {f['status_filled_s']} s, truly: {f['status_true']};"
                    f" {f['window_requests']} requests; load"
                    f" {f['load_window']})\n"
                    f"  first screen after {f['first_screen_s']} s; first 5 % after"
                    f" {f['first_5pct_s']} s; an edit in the middle at 10 %: shown"
                    f" {f['edit_s']} s after its last key\n"
                    f"  the server's arrivals: command line {f['cli_arrivals']}; window"
                    f" {f['window_arrivals']}\n"
                    f"  CPU meanwhile: {f['cpu_s']}; status bar at the end: {f['status_at_end']}"
                )
                if f["trace"] is not None:
                    print(json.dumps(f["trace"], indent=2))
    if args.only != "fill":
        result["typing"] = t = typing(args.view)
        if not args.json:
            times = ", ".join(f"{r['s']:.3f}" for r in t["sentences"])  # type: ignore[index]
            print(
                f"Typing, {TYPE_TTFB * 1000:.0f} ms to first token, {TYPE_RATE:.0f} tokens/s,"
                f" {KEYS_PER_S:g} keys/s:\n"
                f"  sentence end → its answer in targetEditor: p50 {t['p50_s']} s ({times});"
                f" the provider's own p50 {t['provider_p50_s']} s; load {t['load_window']}\n"
                f"  status bar first token {t['status_first_token_ms']} ms; fastdesk translate -v"
                f" ttfb p50 {t['cli_ttfb_p50_ms']} ms {t['cli_ttfb_ms']}; load {t['load_cli']}"
            )
    if args.json:
        print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
