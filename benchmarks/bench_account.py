"""The real account against the loopback emulator (prints figures; not a test).

    .venv/bin/python benchmarks/bench_account.py [--only NAME]... [--blocks N] [--paid-blocks N]
        [--runs N] [--scale K]

The emulator enforces an account's limits with Groq's and Cerebras' headers (a real minute: no
shortened clock), answers with the pack it was sent (an echo: a translation is about as long)
after 100 tokens of gpt-oss-style reasoning, and counts 429s, completion tokens booked
(``max_completion_tokens``) and used. Scenarios:

- ``paid``: headers stating 500,000 requests/day and 2,000,000 tokens/min; the limiter seeded
  from the bundled free tier (30 requests/min for the model) against the limiter off.
- ``free``: Groq's free tier for openai/gpt-oss-120b (30 requests/min unstated, 1,000/day and
  8,000 tokens/min in the headers): time, 429s, booked/used.
- ``two``: two ``fastdesk translate`` processes on one key, at once, against the same free tier.
- ``two-paid``: the same against a paid tier's headers (500,000 requests/day, 2,000,000
  tokens/min, no requests/minute stated) on a server refusing past 30 requests in the trailing
  minute, counted from each request's arrival: 429s per run and per process, ``--runs`` runs in
  a row (each from an empty limits file: the limit is learnt anew). ``--scale K`` runs the
  server and both processes on a clock K times faster (tests/fast_time.py; 1: a real minute).
- ``pooled``: the same document with Cerebras' free tier configured beside Groq's.
- ``edit``: an edit made 20 s into a free-tier backlog: how long until its request is sent.

Time at a limit scales with the work: minutes = max(requests / requests-per-minute,
tokens / tokens-per-minute), so a document twice as long takes twice as long.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fastdesk.document.blocks import Document, parse  # noqa: E402
from fastdesk.providers.base import Provider  # noqa: E402
from fastdesk.providers.cerebras import CerebrasProvider  # noqa: E402
from fastdesk.providers.groq import GroqProvider  # noqa: E402
from fastdesk.routing.limiter import Limiter  # noqa: E402
from fastdesk.routing.router import Router  # noqa: E402
from fastdesk.routing.stats import StatsStore  # noqa: E402
from fastdesk.translate.engine import Engine  # noqa: E402
from fastdesk.translate.events import BlockDone, BlockFailed, EngineEvent  # noqa: E402
from fastdesk.translate.job import JobSpec  # noqa: E402
from fastdesk.translate.slots import Priorities  # noqa: E402
from tests.emulator import Account, Emulator  # noqa: E402
from tests.fast_time import FastTime  # noqa: E402

KEY = "gsk_bench_not_a_real_key_0000"
GROQ_MODEL = "openai/gpt-oss-120b"
FREE = Account(requests_per_minute=30, requests_per_day=1000, tokens_per_minute=8000)
CEREBRAS_FREE = Account(requests_per_minute=30, requests_per_day=14400, tokens_per_minute=60000)
REASONING = "think " * 100  # ~100 tokens, gpt-oss at reasoning_effort "low"


def document(blocks: int) -> str:
    """Paragraphs of ~50 tokens each, as in an ordinary article."""
    line = (
        "Paragraph {n} explains one point of the argument in a sentence or two, with enough "
        "words to look like prose that a translator would meet in an ordinary article."
    )
    return "".join(f"{line.format(n=n)}\n\n" for n in range(blocks))


def router(providers: Mapping[str, Provider], limiter: Limiter) -> Router:
    return Router(
        providers,
        stats=StatsStore.memory(),
        limiter=limiter,
        patient=True,
        explore_share=0.0,
    )


async def translate(r: Router, text: str) -> tuple[float, int, int]:
    """(seconds, blocks written, blocks failed)."""
    engine = Engine(r, None, concurrency=4)
    done = failed = 0

    def on(event: EngineEvent) -> None:
        nonlocal done, failed
        done += isinstance(event, BlockDone)
        failed += isinstance(event, BlockFailed)

    start = time.perf_counter()
    await engine.run(parse(text), JobSpec(target_lang="en"), emit=on)
    await r.aclose()
    return time.perf_counter() - start, done, failed


def ratio(emu: Emulator) -> str:
    used = emu.used_completion or 1
    return f"{emu.booked_completion / used:.2f}"


def paid(blocks: int) -> None:
    account = Account(requests_per_day=500_000, tokens_per_minute=2_000_000)
    for name, limiter in (("limiter off", Limiter(table={})), ("limiter on", Limiter())):
        with Emulator(account=account, reasoning=REASONING) as emu:
            groq = GroqProvider(KEY, base_url=emu.groq_base_url, default_model=GROQ_MODEL)
            seconds, done, _failed = asyncio.run(
                translate(router({"groq": groq}, limiter), document(blocks))
            )
            print(
                f"paid tier, {blocks} blocks, {name}: {seconds:.1f} s, "
                f"{len(emu.chat_requests)} requests, {emu.refused} × 429, {done} written"
            )


def free(blocks: int) -> None:
    with Emulator(account=FREE, reasoning=REASONING, cut_at_max_tokens=True) as emu:
        groq = GroqProvider(KEY, base_url=emu.groq_base_url, default_model=GROQ_MODEL)
        seconds, done, failed = asyncio.run(
            translate(router({"groq": groq}, Limiter()), document(blocks))
        )
        print(
            f"free tier, {blocks} blocks: {seconds:.0f} s, {len(emu.chat_requests)} requests, "
            f"{emu.refused} × 429, {done} written, {failed} failed, completion booked/used "
            f"{ratio(emu)}"
        )


def pooled(blocks: int) -> None:
    with (
        Emulator(account=FREE, reasoning=REASONING) as g,
        Emulator(account=CEREBRAS_FREE, reasoning=REASONING) as c,
    ):
        providers = {
            "cerebras": CerebrasProvider("csk-bench-key-00000000", base_url=c.cerebras_base_url),
            "groq": GroqProvider(KEY, base_url=g.groq_base_url, default_model=GROQ_MODEL),
        }
        seconds, done, failed = asyncio.run(
            translate(router(providers, Limiter()), document(blocks))
        )
        print(
            f"Groq + Cerebras free tiers, {blocks} blocks: {seconds:.1f} s, "
            f"{len(g.chat_requests)} to Groq + {len(c.chat_requests)} to Cerebras, "
            f"{g.refused + c.refused} × 429, {done} written, {failed} failed, "
            f"Cerebras completion booked/used {ratio(c)}"
        )


PAID_30 = Account(requests_per_minute=30, requests_per_day=500_000, tokens_per_minute=2_000_000)


def two(blocks: int, account: Account = FREE, run: int = 0, scale: float = 1.0) -> None:
    fast = FastTime(scale) if scale != 1.0 else None
    with (
        Emulator(account=account, reasoning=REASONING, clock=fast) as emu,
        tempfile.TemporaryDirectory() as d,
    ):
        home = Path(d)
        env = {
            **os.environ,
            "GROQ_API_KEY": KEY,
            "GROQ_BASE_URL": emu.groq_base_url,
            "FASTDESK_HOME": str(home),
            "PYTHONPATH": str(ROOT),
        }
        env.pop("CEREBRAS_API_KEY", None)
        if fast is not None:
            env = fast.child_env(home / "site", env)
        (home / "config").mkdir()
        settings = home / "config" / "settings.toml"  # paths.config_dir() under FASTDESK_HOME
        text = f'[models]\ngroq = "{GROQ_MODEL}"\n'
        if fast is not None:  # no deadline cut short by the fast clock
            text += "\n[requests]\nfirst_token_s = 3600\ngap_s = 3600\ntotal_s = 7200\n"
            text += "retry_attempts = 100\nretry_seconds = 3600\n"
        settings.write_text(text, "utf-8")
        procs = []
        start = time.perf_counter()
        for n in (1, 2):
            src = home / f"doc{n}.md"
            src.write_text(document(blocks).replace("Paragraph", f"Text {n}, paragraph"), "utf-8")
            procs.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "fastdesk",
                        "translate",
                        str(src),
                        "--to",
                        "en",
                        "--provider",
                        "groq",
                        "--no-memory",
                        "-o",
                        str(home / f"out{n}.md"),
                        "--report",
                        str(home / f"report{n}.json"),
                    ],
                    env=env,
                    stderr=subprocess.PIPE,
                    text=True,
                )
            )
        codes = [p.wait() for p in procs]
        seconds = time.perf_counter() - start
        said = [line for p in procs for line in (p.stderr.read() if p.stderr else "").splitlines()]
        each = []
        for n in (1, 2):
            report = home / f"report{n}.json"
            rows = json.loads(report.read_text("utf-8"))["requests"] if report.exists() else []
            each.append(sum(r["status"] == "error" for r in rows))
        whole = all(
            (home / f"out{n}.md").exists()
            and (home / f"out{n}.md").read_text("utf-8") == (home / f"doc{n}.md").read_text("utf-8")
            for n in (1, 2)
        )
        tier = "free tier" if account == FREE else "paid tier refusing past 30/min"
        clock = f", clock ×{scale:g}" if fast is not None else ""
        print(
            f"{f'run {run}: ' if run else ''}two processes on one key ({tier}{clock}), {blocks} "
            f"blocks each: {seconds:.0f} s, exit {codes}, whole {whole}, "
            f"{len(emu.chat_requests)} requests, {emu.refused} × 429 (failed requests per "
            f"process {each})"
        )
        if run:
            return
        for line in dict.fromkeys(said):  # each distinct line once (the estimate, a warning)
            print(f"    {line}")
        explain(emu, home / "data" / "limits.sqlite")


def explain(emu: Emulator, shared: Path) -> None:
    """Each 429: the limit the server counted past and its minute's entries, beside what each
    process's limiter had in the shared file for the same minute (times in seconds before the
    429; a limiter's request counts from its booking while on its way, S, from when its answer
    began, R, or from its end when none began, U; its answer's tokens, as a row of their own
    from the answer's end, are not shown)."""
    import sqlite3

    sql = "SELECT owner, at, kind FROM sent WHERE kind != 0"
    rows = [
        (owner, at, {1: "S", 2: "R"}.get(kind, "U"))
        for owner, at, kind in sqlite3.connect(str(shared)).execute(sql).fetchall()
    ]
    for r in emu.refusals:
        print(
            f"  429 on {r.why}: the server counted {r.requests} requests and {r.tokens:.0f} "
            f"tokens, this one asked {r.need} (told to wait {r.wait:.2f} s), "
            f"from {r.asked_by[:24]!r}"
        )
        server = [
            f"{e.wall - r.at:+.2f}:{e.tokens:.0f}{'R' if e.request else 'c'}" for e in r.minute
        ]
        print(f"    server's minute (R request, c completion): {' '.join(server)}")
        for owner in sorted({o for o, _at, _t in rows}):
            mine = [
                f"{at - r.at:+.2f}{t}"
                for o, at, t in sorted(rows, key=lambda x: x[1])
                if o == owner and r.at - 62.0 < at <= r.at + 1.0
            ]
            print(f"    limiter {owner[:4]}'s entries: {' '.join(mine)}")


def edit(blocks: int) -> None:
    with Emulator(account=FREE, reasoning=REASONING) as emu:
        groq = GroqProvider(KEY, base_url=emu.groq_base_url, default_model=GROQ_MODEL)
        r = router({"groq": groq}, Limiter())
        engine = Engine(r, None, concurrency=4)
        doc = parse(document(blocks))
        edited = parse("An edited paragraph, typed while the backlog runs.\n")

        def start(text: Document, edit: bool) -> asyncio.Task[dict[str, str]]:
            """A run whose packs rank as an edit's, or as the backlog's."""
            spec = JobSpec(target_lang="en")
            priorities = Priorities()
            if edit:
                priorities.edited = frozenset(b.id for b in text.blocks)
            return asyncio.create_task(engine.run(text, spec, priorities=priorities))

        async def go() -> float:
            backlog = start(doc, False)
            await asyncio.sleep(20)
            began = time.perf_counter()
            edit = start(edited, True)
            while not any("edited paragraph" in json.dumps(q.body) for q in emu.chat_requests):
                await asyncio.sleep(0.05)
            sent = time.perf_counter() - began
            backlog.cancel()
            await asyncio.gather(backlog, edit, return_exceptions=True)
            await r.aclose()
            return sent

        sent = asyncio.run(go())
        print(
            f"an edit 20 s into a free-tier backlog of {blocks} blocks: sent after {sent:.1f} s "
            f"({emu.refused} × 429)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only", action="append", choices=["paid", "free", "two", "two-paid", "pooled", "edit"]
    )
    parser.add_argument("--blocks", type=int, default=200)
    parser.add_argument("--paid-blocks", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5, help="two-paid: runs in a row")
    parser.add_argument("--scale", type=float, default=1.0, help="two-paid: clock speed-up")
    args = parser.parse_args()
    wanted = args.only or ["paid", "pooled", "edit", "two", "free"]
    for name in wanted:
        if name == "paid":
            paid(args.paid_blocks)
        elif name == "two":
            two(args.blocks // 2)
        elif name == "two-paid":
            for run in range(1, args.runs + 1):
                two(args.blocks, PAID_30, run, args.scale)
                sys.stdout.flush()
        else:
            {"free": free, "pooled": pooled, "edit": edit}[name](args.blocks)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
