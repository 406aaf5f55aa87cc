"""Review ▸ Glossary Drift on a large docs project: how long the command holds the window, when
the view fills, and the GUI thread's longest pause meanwhile (prints figures; not a test).

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/bench_drift.py [--pages 100 400]

Each size is a MkDocs site in English and French of that many pages, 20 paragraphs each, every
page translated on disk (a glossary term rendered two ways), opened in the window with a stand-in
provider (tests/ui/uifakes.py). A 5 ms timer on the GUI thread notes when it runs; the pause is
the longest gap between two of its turns from the command to the filled view. The machine's
load is printed beside the figures (a shared machine's pauses are longer).
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from fastdesk.config.settings import Settings
from fastdesk.ui.app import FastdeskApp
from tests.ui.uifakes import WordProvider, make_engine_factory

LANGUAGES = (
    "site_name: t\nplugins:\n  - i18n:\n      languages:\n"
    "        - locale: en\n          default: true\n        - locale: fr\n"
)


def make_site(root: Path, pages: int) -> None:
    (root / "docs").mkdir(parents=True)
    (root / "mkdocs.yml").write_text(LANGUAGES, encoding="utf-8")
    (root / ".fastdesk-glossary.toml").write_text(
        '[translate.fr]\n"world" = "univers"\n"cat" = "chat"\n', encoding="utf-8"
    )
    (root / "docs/index.md").write_text("Hello world.\n\nThe cat.\n", encoding="utf-8")
    en = "\n\n".join(f"Paragraph {i}: hello world, the cat sleeps on line {i}." for i in range(20))
    fr = "\n\n".join(
        f"Paragraphe {i} : bonjour {'monde' if i % 3 else 'univers'}, le chat dort ligne {i}."
        for i in range(20)
    )
    for n in range(pages):
        (root / f"docs/p{n}.md").write_text(f"# Page {n}\n\n{en}\n", encoding="utf-8")
        (root / f"docs/p{n}.fr.md").write_text(f"# Page {n}\n\n{fr}\n", encoding="utf-8")


def wait(app: QApplication, done: Callable[[], bool], timeout: float = 300.0) -> None:
    end = time.monotonic() + timeout
    while not done():
        if time.monotonic() > end:
            raise SystemExit("timed out")
        app.processEvents()
        time.sleep(0.002)


def measure(app: QApplication, pages: int) -> str:
    from fastdesk.ui import MainWindow

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "site"
        make_site(root, pages)
        window = MainWindow(
            engine_factory=make_engine_factory(WordProvider()),  # type: ignore[arg-type]
            settings=Settings(debounce_ms=40),
        )
        window.files._ask_save = lambda: "discard"  # type: ignore[method-assign]
        window.show()
        try:
            if not window.open_project(root):
                raise SystemExit("the site did not open")
            wait(app, lambda: not window.project.reading)
            wait(app, lambda: window.workbench.problem_list.glossary is not None)
            turns: list[float] = []
            timer = QTimer()
            timer.setInterval(5)
            timer.timeout.connect(lambda: turns.append(time.perf_counter()))
            timer.start()
            wait(app, lambda: len(turns) > 3)
            start = time.perf_counter()
            dialog = window.workbench.show_glossary_drift()
            held = time.perf_counter() - start
            # (a dialog without ``busy``, before its worker, was filled when the command returned)
            wait(app, lambda: dialog is not None and not getattr(dialog, "busy", False))
            end = time.perf_counter()
            timer.stop()
            seen = [start] + [t for t in turns if start < t < end] + [end]
            pause = max(b - a for a, b in itertools.pairwise(seen))
            rows = dialog.tree.topLevelItemCount() if dialog is not None else 0
            if dialog is not None:
                dialog.close()
        finally:
            window.close()
    load = os.getloadavg()[0]
    return (
        f"{pages:5} pages ({pages * 21:6} blocks): the command held the window"
        f" {held * 1e3:5.0f} ms; filled after {end - start:5.2f} s;"
        f" longest GUI pause {pause * 1e3:4.0f} ms; {rows} terms (load {load:.1f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--pages", type=int, nargs="+", default=[100, 400])
    args = parser.parse_args()
    found = QApplication.instance()
    app = found if isinstance(found, QApplication) else FastdeskApp(sys.argv[:1])
    for pages in args.pages:
        print(measure(app, pages), flush=True)


if __name__ == "__main__":
    main()
