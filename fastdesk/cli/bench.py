"""``fastdesk bench [FILE.md] [--runs N]``: time every configured provider and model.

``fastdesk bench --stats``: no request; what the router's persisted measurements say now, the
figures that rank the choices for ``--provider auto`` (fastdesk.routing.stats.report).

Each (provider, model) translates the file (or the bundled sample) N times with the memory off;
the table shows time to first token p50/p90, total p50, tokens/s, cost per run, fidelity flags and
errors, fastest first. ``--json`` prints the same rows for scripts. Exit status: 0 every row had a
successful run, 1 some row never succeeded (or nothing is configured), 2 bad usage or input.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from typing import TextIO

from fastdesk.config.fileio import DocumentError, read_document
from fastdesk.config.logs import setup_logging
from fastdesk.config.redact import redact
from fastdesk.config.settings import PROVIDER_NAMES, Settings, saved_settings
from fastdesk.routing.pricing import PriceTable
from fastdesk.routing.router import options_from_settings
from fastdesk.routing.stats import StatsStore, format_report, report
from fastdesk.translate.bench import BenchRow, format_table, sample_text
from fastdesk.translate.bench import run_bench as bench_rows
from fastdesk.translate.wiring import NotConfigured, build_providers

__all__ = ["register", "run_bench"]

log = logging.getLogger("fastdesk.translate.bench")

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
MODES = ("translate", "simplify")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``bench`` command (``func=run_bench``) to the main parser's subcommands."""
    p = sub.add_parser(
        "bench",
        help="time every configured provider+model on FILE (or a sample)",
        description="Translate FILE (default: a bundled sample) N times with every configured "
        "provider and model, memory off, and print time to first token, total, tokens/s, cost "
        "and fidelity flags.",
    )
    p.add_argument("file", nargs="?", metavar="FILE.md", help="default: the bundled sample")
    p.add_argument("--runs", type=int, default=3, metavar="N", help="runs per model (default 3)")
    p.add_argument("--to", dest="lang", metavar="LANG", help="BCP-47 code (default: settings)")
    p.add_argument("--mode", choices=MODES, help="translate | simplify (default: settings)")
    p.add_argument(
        "--provider",
        action="append",
        choices=PROVIDER_NAMES,
        help="only this provider (repeatable; default: every configured one)",
    )
    p.add_argument(
        "--model",
        action="append",
        metavar="[PROVIDER/]ID",
        help="also time this model (repeatable); a bare ID needs a single provider",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of the table")
    p.add_argument(
        "--stats",
        action="store_true",
        help="send nothing: print what auto routing measured (per provider, model and process"
        " start) and ranks by",
    )
    p.add_argument("--concurrency", type=int, default=4, metavar="N", help="requests in flight")
    p.add_argument("--no-warmup", action="store_true", help="do not warm each model up first")
    p.add_argument("-v", "--verbose", action="count", default=0, help="log each request")
    p.set_defaults(func=run_bench)


class _Usage(Exception):
    pass


def run_bench(
    args: argparse.Namespace, *, stdout: TextIO | None = None, stderr: TextIO | None = None
) -> int:
    """Run the benchmark; returns the exit status."""

    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    setup_logging(args.verbose, to_file=True)
    if args.stats:
        return _stats(args, stdout)
    try:
        if args.runs < 1 or args.concurrency < 1:
            raise _Usage("--runs and --concurrency must be at least 1")
        text = read_document(args.file) if args.file else sample_text()
        settings = _settings()
        lang = args.lang or settings.target_language or "fr"
        mode = args.mode or settings.mode or "translate"
    except (_Usage, DocumentError) as exc:
        print(f"fastdesk bench: {exc}", file=stderr)
        return EXIT_USAGE
    try:
        rows = asyncio.run(_bench(args, settings, text, lang, mode, stderr))
    except _Usage as exc:
        print(f"fastdesk bench: {redact(str(exc))}", file=stderr)
        return EXIT_USAGE
    except NotConfigured as exc:
        print(f"fastdesk bench: {exc}", file=stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("fastdesk bench: interrupted", file=stderr)
        return 130
    if args.json:
        payload = {
            "file": args.file or "(sample)",
            "runs": args.runs,
            "mode": mode,
            "to": lang,
            "rows": [r.as_dict() for r in rows],
        }
        stdout.write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
    else:
        stdout.write(
            f"fastdesk bench: {args.file or 'bundled sample'}, {mode} → {lang}, "
            f"{args.runs} run{'s' if args.runs != 1 else ''} each, memory off\n\n"
        )
        stdout.write(format_table(rows))
    return EXIT_OK if rows and all(r.ok_runs for r in rows) else EXIT_FAILED


def _stats(args: argparse.Namespace, stdout: TextIO) -> int:
    """``--stats``: the router's measurements as it ranks by them (a file that is not ours is
    set aside with a warning by the store, as at any start)."""
    rows = report(StatsStore.load())
    if args.json:
        stdout.write(json.dumps({"choices": rows}, indent=2) + "\n")
    else:
        stdout.write(format_report(rows))
    return EXIT_OK


def _settings() -> Settings:
    try:
        return saved_settings()
    except Exception as exc:  # the benchmark works on built-in defaults too
        log.warning("settings not read: %s", type(exc).__name__)
        return Settings()


async def _bench(
    args: argparse.Namespace,
    settings: Settings,
    text: str,
    lang: str,
    mode: str,
    stderr: TextIO,
) -> list[BenchRow]:
    providers = build_providers(settings, only=args.provider or ())
    try:
        models = dict(options_from_settings(settings)["models"])
        for name, model in _extra_models(args.model or [], list(providers)):
            models.setdefault(name, []).append(model)
        pricing = PriceTable(settings.price_overrides or None)

        def progress(provider: str, model: str, n: int, runs: int) -> None:
            if stderr.isatty() or args.verbose:
                print(f"bench: {provider}/{model} run {n}/{runs}", file=stderr)

        return await bench_rows(
            providers,
            text,
            models={n: ms for n, ms in models.items() if n in providers},
            runs=args.runs,
            mode=mode,
            target_lang=lang,
            pricing=pricing,
            concurrency=args.concurrency,
            warm=not args.no_warmup,
            progress=progress,
        )
    finally:
        for provider in providers.values():
            await provider.aclose()


def _extra_models(items: list[str], providers: list[str]) -> list[tuple[str, str]]:
    """``--model`` values: ``provider/id`` or, with a single provider, a bare ``id``."""
    out = []
    for item in items:
        head, sep, rest = item.partition("/")
        if sep and head in PROVIDER_NAMES:
            if head in providers:
                out.append((head, rest))
            continue
        if len(providers) != 1:
            raise _Usage(f"--model {item}: say which provider, e.g. --model groq/{item}")
        out.append((providers[0], item))
    return out


def main(argv: list[str] | None = None) -> int:
    """Standalone entry (``python -m fastdesk.cli.bench``)."""
    parser = argparse.ArgumentParser(prog="fastdesk")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["bench", *(sys.argv[1:] if argv is None else argv)])
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
