"""Docs-project figures against the loopback emulator (prints numbers; not a test).

    .venv/bin/python benchmarks/bench_project.py [--files 50] [--langs fr,de,es]

A 50-file MkDocs project (suffix layout, ~12 blocks a page) in three languages:
1. requests for the first `fastdesk translate DIR --to fr,de,es`;
2. requests for a second run with nothing changed;
3. requests after a one-paragraph edit of one page;
4. the time of `fastdesk status DIR` (in-process median, and as a fresh process);
5. the languages run at once: a first run at a simulated 200 ms time to first token, its wall
   time against what the same requests would take one after another;
6. the window's project panel (offscreen Qt): the status read it does off the GUI thread (the
   whole project, and the one file a Save refreshes) and what filling the panel costs the GUI
   thread;
7. the window's language switch on a 300-block document whose answers the memory holds: back to
   a language the window showed, and in a new window (memory only), until the target model and
   the rendered pane hold every block, and the requests it made.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fastdesk.cli.main import run
from tests.emulator import Emulator, last_user_content
from tests.project_kit import write

# The emulator's answers: the site's phrases in the language the system prompt names. They must
# read as that language: the engine refuses an answer still in English (translate/language.py),
# asks again, and a model that keeps answering so is set aside (what a mere Step → Étape did).
PHRASES = {
    "French": {
        "Step": "Étape",
        "of page": "de la page",
        "this paragraph explains one idea, with": "ce paragraphe explique une idée, avec",
        " and a [link]": " et un [lien]",
        "item": "élément",
        "on page": "de la page",
    },
    "German": {
        "Step": "Schritt",
        "of page": "der Seite",
        "this paragraph explains one idea, with": "dieser Absatz erklärt eine Idee, mit",
        " and a [link]": " und einem [Link]",
        "item": "Punkt",
        "on page": "auf Seite",
    },
    "Spanish": {
        "Step": "Paso",
        "of page": "de la página",
        "this paragraph explains one idea, with": "este párrafo explica una idea, con",
        " and a [link]": " y un [enlace]",
        "item": "elemento",
        "on page": "de la página",
    },
}


def phrase_book(messages: list[dict[str, object]]) -> str:
    system = str(messages[0].get("content", "")) if messages else ""
    text = last_user_content(messages)
    for language, phrases in PHRASES.items():
        if language in system:
            for english, translated in phrases.items():
                text = text.replace(english, translated)
    return text


def make_site(root: Path, files: int, paragraphs: int = 8) -> None:
    write(root / "mkdocs.yml", "site_name: bench\ndocs_dir: docs\n")
    for n in range(files):
        paras = "".join(
            f"Step {i} of page {n}: this paragraph explains one idea, with `code` and a "
            f"[link](page{(n + 1) % files}.md).\n\n"
            for i in range(paragraphs)
        )
        items = "".join(f"- Step item {i} on page {n}\n" for i in range(2))
        write(
            root / f"docs/page{n}.md",
            f"# Page {n}\n\n{paras}{items}\n```sh\nfastdesk page{n}.md\n```\n",
        )


PAID_MODELS = ("*", "llama-3.1-8b-instant", "openai/gpt-oss-120b", "openai/gpt-oss-20b")


def use_emulator(emu: Emulator, home: Path) -> None:
    """This process's fastdesk talks to ``emu`` as Groq, with its settings in ``home`` and no
    keyring (the commands below run in-process)."""
    os.environ.update(
        FASTDESK_HOME=str(home),
        GROQ_API_KEY="gsk_bench",
        GROQ_BASE_URL=emu.groq_base_url,
        PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
    )


def paid_tier(home: Path, models: tuple[str, ...] = PAID_MODELS) -> None:
    """No client-side pacing (as benchmarks/bench_ui.py): the free tier's 30 requests a minute
    would stretch a first run of 150 requests over five minutes and measure the limiter (and
    the emulator's default headers, 60,000 tokens a minute, took it from 4 s to 60 s)."""
    config = home / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "settings.toml").write_text(
        "".join(
            f'[rate_limits.groq."{model}"]\nrequests_per_minute = 0\ntokens_per_minute = 0\n'
            for model in models
        ),
        encoding="utf-8",
    )


def translate(root: Path, langs: str, *extra: str) -> int:
    quiet = io.StringIO()
    with contextlib.redirect_stderr(quiet):
        return run(["translate", str(root), "--to", langs, *extra])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=50)
    parser.add_argument("--langs", default="fr,de,es")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, Emulator(answer=phrase_book) as emu:
        root = Path(tmp) / "site"
        use_emulator(emu, Path(tmp) / "home")
        paid_tier(Path(tmp) / "home")
        emu.configure(rate_limits=None)  # nor the emulator's 60,000 tokens/minute headers
        make_site(root, args.files)
        langs = args.langs.split(",")
        pairs = args.files * len(langs)
        start = time.perf_counter()
        assert translate(root, args.langs) == 0
        first, first_s = emu.request_count, time.perf_counter() - start
        assert translate(root, args.langs) == 0
        second = emu.request_count - first
        page = root / "docs/page7.md"
        page.write_text(page.read_text().replace("Step 3 of page 7:", "Step 3 (edited) of page 7:"))
        assert translate(root, args.langs) == 0
        edit = emu.request_count - first - second
        blocks = sum(
            b["messages"][-1]["content"].count("<!--fd:") or 1
            for b in (r.body for r in emu.chat_requests[first + second :])
        )

        times = []
        for _ in range(5):
            out = io.StringIO()
            start = time.perf_counter()
            with contextlib.redirect_stdout(out):
                assert run(["status", str(root), "--json"]) == 0
            times.append(time.perf_counter() - start)
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "fastdesk", "status", str(root), "--json"],
            check=True,
            capture_output=True,
            cwd=Path(__file__).resolve().parents[1],
        )
        fresh = time.perf_counter() - start

        panel = panel_figures(root)

        slow = Path(tmp) / "slow"
        make_site(slow, args.files)
        emu.configure(ttfb=0.2)
        before = emu.request_count
        start = time.perf_counter()
        assert translate(slow, args.langs, "--no-memory") == 0
        slow_s, slow_n = time.perf_counter() - start, emu.request_count - before

    print(f"project: {args.files} files × {len(langs)} languages ({args.langs}) = {pairs} targets")
    print(f"1. first run:            {first} requests ({first_s:.1f} s against the emulator)")
    print(f"2. second run unchanged: {second} requests")
    print(f"3. one-paragraph edit:   {edit} requests ({blocks} blocks sent)")
    print(
        f"4. fastdesk status:      {statistics.median(times) * 1000:.0f} ms in-process "
        f"(median of 5), {fresh * 1000:.0f} ms as a fresh process"
    )
    print(
        f"5. at 200 ms to first token: {slow_n} requests in {slow_s:.1f} s "
        f"(one after another: ≥ {slow_n * 0.2:.0f} s; 4 in flight, the default)"
    )
    whole, one, gui = panel
    back, model, pane, asked = switch_figures()
    print(
        f"6. project panel: status read off the GUI thread {whole * 1000:.0f} ms (all "
        f"{pairs} targets), {one * 1000:.0f} ms after a Save (one file); filling the panel "
        f"{gui * 1000:.1f} ms on the GUI thread (medians of 5)"
    )
    print(
        f"7. language switch, 300 blocks in memory: back to one shown {back * 1000:.1f} ms; "
        f"new window: model {model * 1000:.0f} ms, rendered pane {pane * 1000:.0f} ms; "
        f"{asked} requests"
    )


def switch_figures() -> tuple[float, float, float, int]:
    """(back to a language shown, memory only: model filled, pane filled) in seconds, and the
    requests the switches made (a word-list provider in process, the real memory)."""
    from PySide6.QtCore import QEventLoop
    from PySide6.QtWidgets import QApplication

    from fastdesk.config.settings import Settings
    from fastdesk.ui import MainWindow
    from tests.ui.uifakes import WordProvider, make_engine_factory

    app = QApplication.instance() or QApplication([])
    text = "".join(f"Paragraph {i}: Hello world, the cat says Goodbye.\n\n" for i in range(300))
    provider = WordProvider()

    def spin(ready: Callable[[], bool]) -> float:
        start = time.perf_counter()
        while not ready() and time.perf_counter() - start < 30:
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)
        return time.perf_counter() - start

    def window(lang: str) -> MainWindow:
        w = MainWindow(
            engine_factory=make_engine_factory(provider, memory=True),
            settings=Settings(debounce_ms=40, warmup=False),
            offer_recovery=False,
        )
        w.files._ask_save = lambda: "discard"
        w.show()
        w.set_language(lang)
        w.document_view.load(text, None)
        return w

    def filled(w: MainWindow, word: str) -> bool:
        view = w.document_view
        return view.review_ctl.target_text().count(word) == 300 and not view.pending

    first = window("fr")
    spin(lambda: filled(first, "Bonjour"))
    first.set_language("de")
    spin(lambda: filled(first, "Hallo"))
    asked = len(provider.requests)
    start = time.perf_counter()
    first.set_language("fr")
    spin(lambda: filled(first, "Bonjour"))
    back = time.perf_counter() - start
    first.close()
    second = window("fr")
    spin(lambda: filled(second, "Bonjour"))
    start = time.perf_counter()
    second.set_language("de")
    model = spin(lambda: filled(second, "Hallo"))
    spin(lambda: second.document_view.preview.toPlainText().count("Hallo") == 300)
    pane = time.perf_counter() - start
    second.close()
    return back, model, pane, len(provider.requests) - asked


def panel_figures(root: Path) -> tuple[float, float, float]:
    """(whole read, one-file read, GUI fill) in seconds, medians of 5."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from fastdesk.project.layout import find_project
    from fastdesk.project.status import read_status
    from fastdesk.ui.workbench.project import ProjectDock

    app = QApplication.instance() or QApplication([])
    project = find_project(root)
    first = project.sources()[0]
    whole, one, gui = [], [], []
    for _ in range(5):
        start = time.perf_counter()
        status = read_status(project)
        whole.append(time.perf_counter() - start)
        start = time.perf_counter()
        read_status(project, [first])
        one.append(time.perf_counter() - start)
        dock = ProjectDock()
        start = time.perf_counter()
        dock.set_project(project)
        dock.set_status(status)
        app.processEvents()
        gui.append(time.perf_counter() - start)
        dock.deleteLater()
    return statistics.median(whole), statistics.median(one), statistics.median(gui)


if __name__ == "__main__":
    main()
