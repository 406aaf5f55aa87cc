"""The figures of docs/security.md (prints numbers; not a test).

    .venv/bin/python benchmarks/bench_safety.py

1. What a hostile file costs before it is refused: a TMX past the size limit (sparse: nothing
   is really written), a named pipe in a TMX's place, each as a fresh `fastdesk memory import`.
2. A TMX import of 20,000 units, each checked as a model's answer: time, and what was kept in a
   memory that already holds the user's own translations up to its limit.
3. `fastdesk status` on a 5,000-file project (every path resolved and confined to the root),
   in-process, median of 3.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fastdesk.config.fileio import MAX_INTERCHANGE_BYTES
from fastdesk.project.layout import find_project
from fastdesk.project.status import read_status
from fastdesk.translate.memory import Memory, MemoryKey
from fastdesk.translate.prompts import PROMPT_VERSION
from fastdesk.translate.tmx import TmxUnit, import_tmx

REPO = Path(__file__).resolve().parents[1]


def cli(tmp: Path, *args: str) -> tuple[float, str]:
    env = {**os.environ, "FASTDESK_HOME": str(tmp / "home"), "PYTHONPATH": str(REPO)}
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "fastdesk", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return time.perf_counter() - start, (done.stderr or done.stdout).strip()


def hostile_files(tmp: Path) -> None:
    big = tmp / "big.tmx"
    with big.open("wb") as fh:
        fh.truncate(200 * 1000 * 1000)  # the 200 MB TMX
    wall, said = cli(tmp, "memory", "import", str(big))
    print(f"1. a 200 MB TMX (limit {MAX_INTERCHANGE_BYTES / 1e6:.0f} MB): {wall:.2f} s: {said}")
    fifo = tmp / "pipe.tmx"
    os.mkfifo(fifo)
    wall, said = cli(tmp, "memory", "import", str(fifo))
    print(f"   a named pipe: {wall:.2f} s: {said}")


def tmx_import(tmp: Path) -> None:
    memory = Memory(tmp / "m.sqlite3", max_entries=25_000)
    try:
        for i in range(10_000):  # the user's own, paid-for translations
            key = MemoryKey(f"Own paragraph {i}.", "translate", "fr", PROMPT_VERSION)
            memory.put(key, f"Paragraphe à moi {i}.", provider="groq", model="m")
        units = [
            TmxUnit(
                "en",
                f"Step {i}: see [the guide](guide.md) and run `make {i}`.",
                (("fr", f"Étape {i} : voir [le guide](guide.md) et lancer `make {i}`."),),
            )
            for i in range(20_000)
        ]
        start = time.perf_counter()
        done = import_tmx(memory, units, None)
        wall = time.perf_counter() - start
        own = [
            MemoryKey(f"Own paragraph {i}.", "translate", "fr", PROMPT_VERSION)
            for i in range(10_000)
        ]
        print(
            f"2. 20,000 TMX units into a memory of 25,000 holding 10,000 of the user's own: "
            f"{wall:.1f} s ({wall / 20_000 * 1e3:.2f} ms a unit); {done.summary()}; "
            f"the user's own still there: {memory.present(own)}"
        )
    finally:
        memory.close()


def status_5000(tmp: Path) -> None:
    root = tmp / "site"
    (root / "docs").mkdir(parents=True)
    (root / "mkdocs.yml").write_text("site_name: t\n", encoding="utf-8")
    for i in range(5_000):
        folder = root / "docs" / f"s{i // 100}"
        folder.mkdir(exist_ok=True)
        (folder / f"p{i}.md").write_text(f"# Page {i}\n\nStep {i}.\n", encoding="utf-8")
    times = []
    for _ in range(3):
        start = time.perf_counter()
        status = read_status(find_project(root, ("fr",)))
        times.append(time.perf_counter() - start)
    print(
        f"3. status of a 5,000-file project: {statistics.median(times):.2f} s "
        f"({len(status.files)} pairs)"
    )


def main() -> None:
    tmp = Path(tempfile.mkdtemp())
    hostile_files(tmp)
    tmx_import(tmp)
    status_5000(tmp)


if __name__ == "__main__":
    main()
