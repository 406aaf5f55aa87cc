"""Typing at the speed of the provider: the real window offscreen against the emulator (prints
figures; not a test).

    .venv/bin/python benchmarks/bench_typing.py [--seconds 90] [--ttfb 0.05 0.15 0.6] [--seed 7]

A typist writes paragraphs into the window (QT_QPA_PLATFORM=offscreen, its worker thread, the
real engine, memory and the Groq SDK against tests/emulator.py in a child process, with the
emulator's 30 requests a minute and a 429 past them, as Groq's free tier; fastdesk's limiter is
seeded from the published free tiers, as the app ships). The typist types words at a realistic
pace (≈65 words a minute, each keystroke 60–400 ms after the last), ends sentences and
paragraphs, and pauses: after each sentence end, after each paragraph, and now and then in the
middle of a sentence. For each pause it prints the time from the last keystroke until the pane
on screen shows that paragraph translated, minus the emulator's own time for it (time to first
token + tokens / rate): what the app adds, its wait before sending included. Then the requests
made per minute of typing (warm-ups included), the requests cancelled (the emulator saw the
client leave mid-answer; each still counted at the limiter), and the 429s met. Run at each
--ttfb (seconds to first token).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import QEventLoop, Qt, QTimer
from PySide6.QtGui import QTextCursor
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from tests.emulator import EmulatorProcess

RATE = 2000.0  # the emulator's tokens per second (≈ Groq/Cerebras fast models)
CHUNK_CHARS = 4  # the emulator's characters per token
LIMIT_RPM = 30  # the emulator's requests a minute (Groq's free tier)
TEXT = (
    "the editor writes a short note about the release and its new features while the team "
    "reviews every change carefully before it ships to users who read the documentation "
    "translation follows each paragraph as soon as a sentence ends so nobody waits long for "
    "the target pane to catch up with what was just typed into the source"
)
WORDS = TEXT.split(" ")


@dataclass
class Pause:
    kind: str  # "sentence", "paragraph" or "mid-sentence"
    shown: bool
    total_ms: float
    provider_ms: float

    @property
    def app_ms(self) -> float:
        return self.total_ms - self.provider_ms


@dataclass
class Run:
    ttfb: float
    seconds: float
    pauses: list[Pause] = field(default_factory=list)
    requests: int = 0
    cancelled: int = 0
    refused: int = 0


def idle(seconds: float) -> None:
    """Run the event loop (idle, as the app's) for ``seconds``."""
    loop = QEventLoop()
    timer = QTimer()
    timer.setSingleShot(True)
    timer.setTimerType(Qt.TimerType.PreciseTimer)
    timer.timeout.connect(loop.quit)
    timer.start(max(0, round(seconds * 1000)))
    loop.exec()


def wait_until(done, timeout: float) -> bool:
    """Run the event loop until ``done()`` holds (checked every millisecond) or ``timeout``."""
    end = time.perf_counter() + timeout
    while not done():
        if time.perf_counter() >= end:
            return False
        idle(0.001)
    return True


def translated(view, paragraph: str) -> bool:
    """The pane on screen shows the block of ``paragraph`` (as it is now) translated."""
    model = view.review_ctl.model
    doc = model.doc
    if doc is None:
        return False
    ids = [b.id for b in doc.blocks if b.split()[1] == paragraph.strip()]
    if not ids or ids[0] in model.pending:
        return False
    pane = view.target_pane()
    return any(seg.key == ids[0] for seg in pane.shown)


class Typist:
    """Words at ≈65 a minute with jitter, sentence and paragraph ends, and pauses."""

    def __init__(self, window, rng: random.Random, run: Run) -> None:
        self.window = window
        self.view = window.document_view
        self.rng = rng
        self.run = run
        self.paragraph = ""
        self.last_key = time.perf_counter()
        self.gap = 0.0  # the wait after the last keystroke, before the next one

    def key(self, text: str) -> None:
        """Press ``text`` (one key) ``gap`` seconds after the previous one."""
        if self.gap:
            idle(self.gap - (time.perf_counter() - self.last_key))
        source = self.view.source
        if text == "\n":
            QTest.keyClick(source, Qt.Key.Key_Return)
        else:
            QTest.keyClicks(source, text)
            self.paragraph += text
        self.last_key = time.perf_counter()
        self.gap = min(0.4, max(0.06, self.rng.gauss(0.17, 0.06)))

    def word(self, word: str) -> None:
        for ch in word:
            self.key(ch)

    def pause(self, kind: str, seconds: float) -> None:
        """Stop typing for ``seconds`` after the last keystroke (longer if the translation
        takes longer, up to 10 s: the editor reads it)."""
        typed = self.last_key
        text = self.paragraph
        shown = wait_until(lambda: translated(self.view, text), max(seconds, 10.0))
        elapsed = (time.perf_counter() - typed) * 1000
        tokens = len(text.strip()) / CHUNK_CHARS
        provider_ms = (self.run.ttfb + tokens / RATE) * 1000
        self.run.pauses.append(Pause(kind, shown, elapsed, provider_ms))
        self.gap = seconds  # from the last keystroke (nothing more when the wait was longer)

    def sentence(self) -> None:
        words = [self.rng.choice(WORDS) for _ in range(self.rng.randint(6, 14))]
        words[0] = words[0].capitalize()
        for n, word in enumerate(words):
            self.word(word)
            if n + 1 < len(words):
                self.key(" ")
                if self.rng.random() < 0.06:  # a thought in the middle of a sentence
                    self.pause("mid-sentence", self.rng.uniform(0.6, 2.0))
        self.key(".")
        self.pause("sentence", self.rng.uniform(1.0, 3.0))

    def paragraph_of(self, sentences: int) -> None:
        for n in range(sentences):
            if n:
                self.key(" ")
            self.sentence()
        self.key("\n")
        self.key("\n")
        self.pause("paragraph", self.rng.uniform(1.5, 4.0))
        self.paragraph = ""


def one_run(ttfb: float, seconds: float, seed: int) -> Run:
    _app = QApplication.instance() or QApplication([])  # kept alive for the run
    home = tempfile.mkdtemp(prefix="fastdesk-bench-typing-")
    os.environ["FASTDESK_HOME"] = home  # default settings: the free tiers' limits, warm-ups on
    for name in ("CEREBRAS_API_KEY", "CEREBRAS_BASE_URL", "FASTDESK_OPENAI_BASE_URL"):
        os.environ.pop(name, None)
    run = Run(ttfb, seconds)
    with EmulatorProcess(
        ttfb=ttfb,
        tokens_per_second=RATE,
        chunk_chars=CHUNK_CHARS,
        rate_limits=None,
        limit_rpm=LIMIT_RPM,
    ) as emu:
        os.environ["GROQ_BASE_URL"] = emu.groq_base_url
        os.environ["GROQ_API_KEY"] = "gsk_bench_not_a_real_key_000000000000"
        from fastdesk.ui import MainWindow

        window = MainWindow(offer_recovery=False)
        window.set_language("en")  # echo answers are then correct: no fidelity retries
        window.resize(1280, 800)
        window.show()
        view = window.document_view
        wait_until(lambda: window.selectors.provider.count() > 1, 30)

        view.source.setPlainText("# Release notes\n\n")
        view.source.moveCursor(QTextCursor.MoveOperation.End)
        view.source.setFocus()
        wait_until(lambda: translated(view, "# Release notes"), 30)
        idle(2.0)  # the start's warm-up and first fill are not typing
        before, left = len(emu.chat_bodies()), emu.disconnects
        typist = Typist(window, random.Random(seed), run)
        started = time.perf_counter()
        while time.perf_counter() - started < seconds:
            typist.paragraph_of(typist.rng.randint(2, 4))
        run.seconds = time.perf_counter() - started
        run.requests = len(emu.chat_bodies()) - before
        run.refused = emu.refused
        run.cancelled = emu.disconnects - left  # the client left mid-answer: a stale request
        view.source.document().setModified(False)
        window.close()
    return run


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * q))] if values else float("nan")


def report(run: Run) -> None:
    minutes = run.seconds / 60
    print(
        f"time to first token {run.ttfb * 1000:.0f} ms: {run.seconds:.0f} s of typing, "
        f"{run.requests} requests ({run.requests / minutes:.1f} a minute), "
        f"{run.cancelled} cancelled (left mid-answer), 429s met: {run.refused}"
    )
    for kind in ("sentence", "paragraph", "mid-sentence"):
        pauses = [p for p in run.pauses if p.kind == kind]
        if not pauses:
            continue
        # shown sooner than the provider could answer: translated before the pause (a paragraph
        # end after its last sentence's answer, a sentence whose answer the memory had)
        ready = [p for p in pauses if p.shown and p.app_ms < 0]
        waited = [p for p in pauses if p.shown and p.app_ms >= 0]
        app = [p.app_ms for p in waited]
        totals = [p.total_ms for p in waited]
        provider = statistics.mean(p.provider_ms for p in pauses)
        line = (
            f"  {kind} end → block translated: {len(pauses)} pauses, "
            f"{len(pauses) - len(ready) - len(waited)} not shown within max(pause, 10 s), "
            f"{len(ready)} already translated"
        )
        if waited:
            line += (
                f"; the others beyond the provider's own time (≈{provider:.0f} ms): p50 "
                f"{pct(app, 0.5):.0f} ms, p90 {pct(app, 0.9):.0f} ms, worst {pct(app, 1.0):.0f} ms"
                f" (total p50 {pct(totals, 0.5):.0f} ms)"
            )
        print(line)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=90.0, help="typing per run")
    parser.add_argument("--ttfb", type=float, nargs="+", default=[0.05, 0.15, 0.6])
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    for ttfb in args.ttfb:
        report(one_run(ttfb, args.seconds, args.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
