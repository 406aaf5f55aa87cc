"""The command line: `fastdesk [FILE.md]` opens the window; subcommands work without one."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from fastdesk import __version__

SUBCOMMANDS = ("translate", "keys", "bench")


def _subcommand_parser() -> argparse.ArgumentParser:
    from fastdesk import cli_bench, cli_keys, cli_translate

    parser = argparse.ArgumentParser(prog="fastdesk", description="Live Markdown translation.")
    parser.add_argument("--version", action="version", version=f"fastdesk {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    cli_translate.register(sub)
    cli_keys.register(sub)
    cli_bench.register(sub)
    return parser


def _window_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fastdesk",
        description="Live Markdown translation. Without a command, opens the window.",
        epilog="commands: translate, keys, bench (fastdesk COMMAND --help)",
    )
    parser.add_argument("--version", action="version", version=f"fastdesk {__version__}")
    parser.add_argument("file", nargs="?", help="a Markdown file to open")
    return parser


def run(argv: list[str]) -> int:
    """Dispatch; returns the exit status (CONTRACT.md: 0 ok, 1 some document failed, 2 usage)."""
    if argv and argv[0] in SUBCOMMANDS:
        args = _subcommand_parser().parse_args(argv)
        func: Callable[[argparse.Namespace], int] = args.func
        return func(args)
    args = _window_parser().parse_args(argv)
    from fastdesk.ui.app import run_app

    return run_app(args.file)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(run(sys.argv[1:]))
