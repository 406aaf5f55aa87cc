"""Smoke-test a frozen fastdesk on any OS: --version, a translation against the loopback provider
emulator (tests/emulator.py), and the window opened offscreen. Optionally times the cold start.

    python packaging/smoke_test.py dist/fastdesk/fastdesk                           # Linux
    python packaging/smoke_test.py dist/fastdesk/fastdesk.exe --cli dist/fastdesk/fastdesk-cli.exe
    python packaging/smoke_test.py dist/fastdesk.app/Contents/MacOS/fastdesk --timing-runs 5

Needs the project's venv (the emulator imports pytest). The frozen app runs in a child process
with its own FASTDESK_HOME, no provider keys but the emulator's, and a keyring that holds
nothing, so neither the developer's settings nor real keys take part. The window check relies on
the app's FASTDESK_SMOKE_EXIT_MS hook: N ms after its main window is shown the app prints
"fastdesk: window shown" (when it has a standard output) and quits with status 0.
Exit status: 0 all checks passed, 1 one failed (the reason is printed).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHOWN_LINE = "fastdesk: window shown"
SAMPLE = """---
title: Smoke test
---

# Héllo, wörld

A paragraph with `inline code`, a [link](https://example.com/a_b) and accents: é à ç ß ñ.

```python
print("never translated")
```

- one
- two
"""
# Variables that would let the developer's own configuration into the child process.
_SCRUB = (
    "GROQ_API_KEY",
    "GROQ_BASE_URL",
    "CEREBRAS_API_KEY",
    "CEREBRAS_BASE_URL",
    "FASTDESK_OPENAI_BASE_URL",
    "FASTDESK_OPENAI_API_KEY",
    "FASTDESK_OPENAI_MODEL",
    "FASTDESK_HOME",
    "FASTDESK_SMOKE_EXIT_MS",
)


class SmokeFailure(AssertionError):
    """One check failed; the message says which and why."""


@dataclass(frozen=True)
class Run:
    returncode: int
    stdout: str
    stderr: str
    seconds: float


def project_version() -> str:
    with open(ROOT / "pyproject.toml", "rb") as fh:
        return tomllib.load(fh)["project"]["version"]


def base_env(home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """A clean environment for the frozen app: isolated home, empty keyring, no real keys."""
    env = {k: v for k, v in os.environ.items() if k not in _SCRUB}
    env["FASTDESK_HOME"] = str(home)
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.null.Keyring"
    env.update(extra or {})
    return env


def run(cmd: Sequence[str | Path], env: Mapping[str, str], timeout: float, cwd: Path) -> Run:
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            [str(c) for c in cmd],
            env=dict(env),
            cwd=cwd,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as exc:
        raise SmokeFailure(
            f"{Path(str(cmd[0])).name} {cmd[1:]!s}: no exit after {timeout} s"
        ) from exc
    return Run(proc.returncode, proc.stdout, proc.stderr, time.perf_counter() - start)


def _expect(ok: bool, what: str, result: Run) -> None:
    if not ok:
        raise SmokeFailure(
            f"{what}\n  status {result.returncode}\n  stdout: {result.stdout[-2000:]!r}\n"
            f"  stderr: {result.stderr[-2000:]!r}"
        )


def check_version(cli: Path, work: Path) -> str:
    """`fastdesk --version` prints `fastdesk <pyproject version>` on standard output."""
    result = run([cli, "--version"], base_env(work / "home"), 60, work)
    expected = f"fastdesk {project_version()}"
    _expect(
        result.returncode == 0 and result.stdout.strip() == expected,
        f"--version: want {expected!r}",
        result,
    )
    return result.stdout.strip()


def check_translate(cli: Path, work: Path) -> dict:
    """Translate a document through the Groq SDK against the echo emulator: the output must be
    byte-identical (same-language echo is the identity) and the report must say ok."""
    sys.path.insert(0, str(ROOT / "tests"))
    from emulator import Emulator  # tests/emulator.py: loopback only

    source = work / "in.md"
    source.write_bytes(SAMPLE.encode("utf-8"))
    output, report = work / "out.md", work / "report.json"
    with Emulator() as emu:
        env = base_env(work / "home", {"GROQ_BASE_URL": emu.groq_base_url, "GROQ_API_KEY": "test"})
        cmd = [cli, "translate", source, "-o", output, "--provider", "groq", "--to", "fr"]
        result = run([*cmd, "--report", report], env, 120, work)
        requests = len(emu.chat_requests)
    _expect(result.returncode == 0, "translate: exit status", result)
    _expect(output.is_file(), "translate: no output file", result)
    _expect(
        output.read_bytes() == source.read_bytes(),
        "translate: echo output differs from input",
        result,
    )
    _expect(requests >= 1, "translate: the emulator saw no chat request", result)
    data = json.loads(report.read_text(encoding="utf-8"))
    _expect(
        data["documents"][0]["status"] == "ok", f"translate: report {data['documents']}", result
    )
    return {"requests": requests, "seconds": result.seconds, "report": data}


def check_window(exe: Path, work: Path, exit_ms: int = 500, timeout: float = 30) -> Run:
    """Open the window offscreen with a document; the app must quit by itself with status 0."""
    doc = work / "window.md"
    doc.write_text(SAMPLE, encoding="utf-8")
    env = base_env(
        work / "home",
        {"QT_QPA_PLATFORM": "offscreen", "FASTDESK_SMOKE_EXIT_MS": str(exit_ms)},
    )
    try:
        result = run([exe, doc], env, timeout, work)
    except SmokeFailure as exc:
        raise SmokeFailure(f"window: {exc} (does the app honour FASTDESK_SMOKE_EXIT_MS?)") from exc
    _expect(result.returncode == 0, "window: exit status", result)
    return result


def time_to_window(exe: Path, work: Path, timeout: float = 30) -> float:
    """Seconds from spawning the app to its "window shown" line (FASTDESK_SMOKE_EXIT_MS=0)."""
    env = base_env(work / "home", {"QT_QPA_PLATFORM": "offscreen", "FASTDESK_SMOKE_EXIT_MS": "0"})
    start = time.perf_counter()
    proc = subprocess.Popen(
        [str(exe)], env=env, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    killer = threading.Timer(timeout, proc.kill)  # a hung app ends the read loop below
    killer.start()
    shown = None
    try:
        assert proc.stdout is not None
        for line in proc.stdout:  # blocks until a line or EOF: no polling
            if line.strip() == SHOWN_LINE and shown is None:
                shown = time.perf_counter() - start
        code = proc.wait()
        ended = time.perf_counter() - start
    finally:
        killer.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    if code != 0:
        raise SmokeFailure(f"timing run: exit status {code} (killed after {timeout} s if negative)")
    # A windowed Windows executable may have no standard output: fall back to the process time.
    return shown if shown is not None else ended


def cold_start(exe: Path, work: Path, runs: int) -> list[float]:
    """Start-to-window times of `runs` launches (the first one warms the OS file cache)."""
    time_to_window(exe, work)
    return [time_to_window(exe, work) for _ in range(runs)]


def say(message: str, *, error: bool = False) -> None:
    print(message, file=sys.stderr if error else sys.stdout, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("exe", type=Path, help="the frozen app's main executable")
    parser.add_argument("--cli", type=Path, help="console executable for the CLI checks (Windows)")
    parser.add_argument("--timing-runs", type=int, default=0, help="also time N cold starts")
    parser.add_argument("--skip-window", action="store_true", help="only --version and translate")
    args = parser.parse_args(argv)
    exe = args.exe.resolve()
    cli = (args.cli or args.exe).resolve()
    try:
        with tempfile.TemporaryDirectory(prefix="fastdesk-smoke-") as tmp:
            work = Path(tmp)
            say(f"smoke: version ok: {check_version(cli, work)}")
            done = check_translate(cli, work)
            say(f"smoke: translate ok: {done['requests']} request(s), {done['seconds']:.2f} s")
            if not args.skip_window:
                shown = check_window(exe, work)
                say(f"smoke: window ok: closed by itself after {shown.seconds:.2f} s")
            if args.timing_runs:
                times = cold_start(exe, work, args.timing_runs)
                listed = ", ".join(f"{t * 1000:.0f}" for t in times)
                median = statistics.median(times) * 1000
                say(f"smoke: start to window, median of {len(times)}: {median:.0f} ms ({listed})")
    except SmokeFailure as exc:
        say(f"smoke: FAILED: {exc}", error=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
