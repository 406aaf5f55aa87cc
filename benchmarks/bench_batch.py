"""A docs project through Groq's Batch API against live, on the loopback emulator (prints
figures; not a test).

    .venv/bin/python benchmarks/bench_batch.py [--pages 12,40] [--langs fr,de] [--err-every 20]
        [--paragraphs 8]
    .venv/bin/python benchmarks/bench_batch.py --pages 200,1000 --submit-only

For each project size: a MkDocs site (benchmarks/bench_project.py's pages, ~11 blocks each, or
``--paragraphs`` + 3: with 40, a page is more than a live request's 16 blocks and 1,200 tokens) into
the languages, by a model that breaks a link in about one paragraph in 20 (``--err-every``;
flagged, then retried),
on a free-tier Groq key (30 requests/min, 1,000/day, 8,000 tokens/min, enforced
by the emulator with 429s):

1. ``fastdesk translate DIR --to fr,de --batch`` (timed: the job submitted), the same again (timed:
   a run while the job is pending), then ``--batch --wait``: jobs made, 429s, whether every target
   was written (``fastdesk status``: all up to date), requests and blocks that went live (the
   retries of flagged answers, what no job answered), its cost (the report's ``cost_usd``, at
   the batch price for what the job answered);
2. the same project live (``fastdesk translate DIR --to fr,de``, a fresh memory), unpaced (its
   cost does not depend on the pace): its requests and cost, and the minutes its tokens would
   take at the free tier's 8,000 tokens a minute.

The job's states move one per poll here (validating, in_progress, completed): the wait for
Groq's real window (up to 24 h) is not measured.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
import time
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.bench_project import make_site, phrase_book, use_emulator
from fastdesk.cli import batch as batch_cli
from fastdesk.cli.main import run
from tests.emulator import Account, Emulator

FREE = Account(requests_per_minute=30, requests_per_day=1000, tokens_per_minute=8000)
ERR_EVERY = 20  # the model breaks a link in about one paragraph in this many
PARAGRAPHS = 8  # a page's paragraphs


def erring(messages: list[dict[str, object]]) -> str:
    """bench_project's phrase book, but about one paragraph in ERR_EVERY has its link's target
    changed (the links check flags it) unless the request says the previous answer was
    rejected (the engine's retry): the retries a real model's slips cause."""
    text = phrase_book(messages)
    if not ERR_EVERY or "previous answer was rejected" in str(messages[0].get("content", "")):
        return text
    lines = text.split("\n")
    for n, line in enumerate(lines):
        if "](page" in line and zlib.crc32(line.encode()) % ERR_EVERY == 0:
            lines[n] = line.replace("](page", "](wrong-page")
    return "\n".join(lines)


def quiet(*argv: str) -> tuple[int, str]:
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        code = run(list(argv))
    return code, err.getvalue() + out.getvalue()


def blocks_in(body: dict[str, object]) -> int:
    messages = body["messages"]
    assert isinstance(messages, list)
    return max(1, str(messages[-1]["content"]).count("<!--fd-"))


def batch_run(tmp: Path, pages: int, langs: str, submit_only: bool = False) -> dict[str, object]:
    with Emulator(answer=erring, account=FREE) as emu:
        use_emulator(emu, tmp / "home-batch")
        root = tmp / "batch-site"
        make_site(root, pages, PARAGRAPHS)
        report = tmp / "batch.json"
        start = time.perf_counter()
        code, said = quiet("translate", str(root), "--to", langs, "--batch")  # submitted
        submit_s = time.perf_counter() - start
        assert code == 0, said
        start = time.perf_counter()
        code, said = quiet("translate", str(root), "--to", langs, "--batch")  # how far it is
        progress_s = time.perf_counter() - start
        assert code == 0, said
        if submit_only:
            return {"submit_s": submit_s, "progress_s": progress_s, "jobs": emu.batches.created,
                    "job_requests": len(emu.batches.lines)}  # fmt: skip
        code, said = quiet("translate", str(root), "--to", langs, "--batch", "--wait",
                           "--report", str(report))  # fmt: skip
        assert code == 0, said
        data = json.loads(report.read_text())
        code, out = quiet("status", str(root), "--to", langs, "--json")
        states = {f["state"] for f in json.loads(out)["files"]}
        live_blocks = sum(blocks_in(r.body) for r in emu.chat_requests)
        job_blocks = sum(blocks_in(line["body"]) for line in emu.batches.lines)
        return {
            "jobs": emu.batches.created,
            "uploads": emu.batches.uploads,
            "job_requests": len(emu.batches.lines),
            "refused": emu.refused,
            "whole": states == {"up_to_date"},
            "live_requests": len(emu.chat_requests),
            "live_blocks": live_blocks,
            "job_blocks": job_blocks,
            "cost": data["totals"]["cost_usd"],
            "batch_cost": data["totals"].get("batch_cost_usd"),
            "submit_s": submit_s,
            "progress_s": progress_s,
        }


def live_run(tmp: Path, pages: int, langs: str) -> dict[str, object]:
    with Emulator(answer=erring, rate_limits=None) as emu:
        use_emulator(emu, tmp / "home-live")
        config = tmp / "home-live" / "config"
        config.mkdir(parents=True, exist_ok=True)
        (config / "settings.toml").write_text(  # unpaced: the cost does not depend on it
            '[rate_limits.groq."*"]\nrequests_per_minute = 0\ntokens_per_minute = 0\n',
            encoding="utf-8",
        )
        root = tmp / "live-site"
        make_site(root, pages, PARAGRAPHS)
        report = tmp / "live.json"
        code, said = quiet("translate", str(root), "--to", langs, "--report", str(report))
        assert code == 0, said
        totals = json.loads(report.read_text())["totals"]
        tokens = (totals["prompt_tokens"] or 0) + (totals["completion_tokens"] or 0)
        return {
            "requests": totals["requests"],
            "cost": totals["cost_usd"],
            "free_minutes": tokens / FREE.tokens_per_minute if FREE.tokens_per_minute else 0,
        }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", default="12,40")
    parser.add_argument("--langs", default="fr,de")
    parser.add_argument("--err-every", type=int, default=20, help="0: the model never errs")
    parser.add_argument("--paragraphs", type=int, default=8, help="a page's paragraphs")
    parser.add_argument(
        "--submit-only", action="store_true", help="only time submitting and a pending run"
    )
    args = parser.parse_args()
    global ERR_EVERY, PARAGRAPHS
    ERR_EVERY, PARAGRAPHS = args.err_every, args.paragraphs
    batch_cli.POLL_FIRST_S = 0.0  # the emulator's jobs move one state per poll
    for pages in (int(p) for p in args.pages.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            if args.submit_only:
                b = batch_run(Path(tmp), pages, args.langs, submit_only=True)
                print(
                    f"{pages} pages × {args.langs}: {b['jobs']} job(s) of {b['job_requests']} "
                    f"requests submitted in {float(b['submit_s']):.1f} s; a run while it was "  # type: ignore[arg-type]
                    f"pending {float(b['progress_s']):.2f} s"  # type: ignore[arg-type]
                )
                continue
            b = batch_run(Path(tmp), pages, args.langs)
            live = live_run(Path(tmp), pages, args.langs)
        requests = int(b["job_requests"]) + int(b["live_requests"])  # type: ignore[call-overload]
        blocks = int(b["job_blocks"]) + int(b["live_blocks"])  # type: ignore[call-overload]
        ratio = float(b["cost"]) / float(live["cost"])  # type: ignore[arg-type]
        print(f"{pages} pages × {args.langs}:")
        print(
            f"  batch: {b['jobs']} job(s), {b['uploads']} upload(s), {b['job_requests']} "
            f"requests in the job(s); {b['refused']} × 429; whole after --wait: {b['whole']}; "
            f"submitting took {float(b['submit_s']):.1f} s, a run while it was pending "  # type: ignore[arg-type]
            f"{float(b['progress_s']):.2f} s"  # type: ignore[arg-type]
        )
        print(
            f"  live during the batch run: {b['live_requests']} of {requests} requests "
            f"({100 * int(b['live_requests']) / requests:.1f} %), {b['live_blocks']} of "  # type: ignore[call-overload]
            f"{blocks} blocks ({100 * int(b['live_blocks']) / blocks:.1f} %)"  # type: ignore[call-overload]
        )
        print(
            f"  cost: batch run ${float(b['cost']):.6f} against live ${float(live['cost']):.6f} "  # type: ignore[arg-type]
            f"({ratio:.2f}×); live: {live['requests']} requests, ≥ "
            f"{float(live['free_minutes']):.1f} min of tokens at the free tier's 8,000 a minute"  # type: ignore[arg-type]
        )


if __name__ == "__main__":
    main()
