"""Auto routing run after run, and when two providers swap speeds (prints figures; not a test).

    .venv/bin/python benchmarks/bench_routing_swap.py [--runs 6] [--swap-after 3] [--files 30]
        [--fast-ms 30] [--slow-ms 400] [--json]

Two loopback servers (tests/emulator.py), one speaking Groq's format and one Cerebras's, through
the real SDKs; rate limits off in the settings. Each run is one ``fastdesk translate --provider
auto`` process on FILES one-paragraph files (the memory off), all runs on one FASTDESK_HOME, so
what the router learnt (its persisted stats) carries from run to run as it does for a user. The
first server is the faster until ``--swap-after`` runs, then the two swap. Per run: the requests
each server answered, the faster one's share, and what ``fastdesk bench --stats`` says the
router's statistics were at the end of the run (printed before the swap and at the end).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.emulator import Emulator

ROOT = Path(__file__).resolve().parents[1]
WORDS = [
    "the",
    "editor",
    "reads",
    "each",
    "paragraph",
    "and",
    "the",
    "window",
    "shows",
    "its",
    "translation",
    "at",
    "once",
]


def paragraph(n: int) -> str:
    words = [WORDS[(n * 7 + i * 3) % len(WORDS)] for i in range(14)]
    return " ".join(words).capitalize() + f" (note {n}).\n"


def settings(home: Path) -> None:
    (home / "config").mkdir(parents=True, exist_ok=True)
    lines = []
    for provider in ("groq", "cerebras"):
        lines.append(f'[rate_limits.{provider}."*"]\nrequests_per_minute = 0\n')
        lines.append("tokens_per_minute = 0\n")
    (home / "config" / "settings.toml").write_text("".join(lines), encoding="utf-8")


def run_once(
    home: Path, files: list[Path], env: dict[str, str], verbose: bool = False
) -> tuple[float, str]:
    out = home / "out"
    command = [sys.executable, "-m", "fastdesk", "translate", *map(str, files)]
    command += ["--out-dir", str(out), "--provider", "auto", "--mode", "simplify", "--to", "en"]
    command += ["--no-memory"] + (["-v"] if verbose else [])
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"fastdesk translate failed ({done.returncode}): {done.stderr[-1500:]}")
    return time.perf_counter() - started, done.stderr


def stats(env: dict[str, str], as_json: bool) -> object:
    """What ``fastdesk bench --stats`` says (JSON, or its text)."""
    command = [sys.executable, "-m", "fastdesk", "bench", "--stats"] + (["--json"] * as_json)
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        return done.stderr.strip()[-300:]
    if not as_json:
        return done.stdout
    try:
        return json.loads(done.stdout)
    except ValueError:
        return done.stdout.strip()[-300:]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=6)
    parser.add_argument("--swap-after", type=int, default=3)
    parser.add_argument("--files", type=int, default=30)
    parser.add_argument("--fast-ms", type=float, default=30.0)
    parser.add_argument("--slow-ms", type=float, default=400.0)
    parser.add_argument("--no-stats", action="store_true", help="skip fastdesk bench --stats")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("-v", "--verbose", action="store_true", help="each run's -v log")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="fastdesk-bench-routing-"))
    settings(home)
    files = []
    for n in range(args.files):
        path = home / "in" / f"p{n:02}.md"
        path.parent.mkdir(exist_ok=True)
        path.write_text(paragraph(n), encoding="utf-8")
        files.append(path)
    fast, slow = args.fast_ms / 1000, args.slow_ms / 1000
    rows = []
    with (
        Emulator(ttfb=fast, tokens_per_second=2000, rate_limits=None) as first,
        Emulator(ttfb=slow, tokens_per_second=2000, rate_limits=None) as second,
    ):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CEREBRAS_", "GROQ_"))}
        env.update(
            FASTDESK_HOME=str(home),
            GROQ_BASE_URL=first.groq_base_url,
            GROQ_API_KEY="gsk_bench_not_a_real_key_000000000000",
            CEREBRAS_BASE_URL=second.cerebras_base_url,
            CEREBRAS_API_KEY="csk-bench-not-a-real-key-0000000000000000",
            PYTHONPATH=str(ROOT),
        )
        env.pop("FASTDESK_OPENAI_BASE_URL", None)
        for run in range(args.runs):
            swapped = run >= args.swap_after
            first.configure(ttfb=slow if swapped else fast)
            second.configure(ttfb=fast if swapped else slow)
            first.reset_records()
            second.reset_records()
            seconds, log = run_once(home, files, env, args.verbose)
            if args.verbose:
                print(log)
            to_first, to_second = len(first.chat_requests), len(second.chat_requests)
            faster, slower = (to_second, to_first) if swapped else (to_first, to_second)
            row = {
                "run": run + 1,
                "swapped": swapped,
                "faster": faster,
                "slower": slower,
                "share": round(faster / max(1, faster + slower), 2),
                "s": round(seconds, 2),
            }
            if not args.no_stats:
                row["stats"] = stats(env, args.json)
            rows.append(row)
            if not args.json:
                print(
                    f"run {row['run']}{' (swapped)' if swapped else ''}: faster/slower"
                    f" {faster}/{slower} ({row['share']:.0%}) in {row['s']} s"
                )
                if not args.no_stats and run + 1 in (args.swap_after, args.runs):
                    print(
                        "  fastdesk bench --stats:\n    "
                        + str(row["stats"]).strip().replace("\n", "\n    ")
                    )
    if args.json:
        print(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
