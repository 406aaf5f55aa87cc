"""The command line: `fastdesk [FILE.md|DIR]` opens the window; subcommands work without one."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable

from fastdesk import __version__

# Each subcommand lives in its own module, imported only when used (fast start-up).
SUBCOMMANDS = {
    "translate": "fastdesk.cli.translate",
    "keys": "fastdesk.cli.keys",
    "bench": "fastdesk.cli.bench",
    "memory": "fastdesk.cli.memory",
    "status": "fastdesk.cli.status",
    "export": "fastdesk.cli.export",
    "import": "fastdesk.cli.importing",
    "glossary": "fastdesk.cli.glossary",
}


def _subcommand_parser(name: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fastdesk", description="Live Markdown translation.")
    parser.add_argument("--version", action="version", version=f"fastdesk {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    importlib.import_module(SUBCOMMANDS[name]).register(sub)
    return parser


def _window_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fastdesk",
        description="Live Markdown translation. Without a command, opens the window.",
        epilog=(
            "commands: translate, status, export, import, glossary, keys, bench, memory"
            " (fastdesk COMMAND --help)"
        ),
    )
    parser.add_argument("--version", action="version", version=f"fastdesk {__version__}")
    parser.add_argument(
        "file", nargs="?", help="a Markdown file, or a docs project's folder, to open"
    )
    return parser


def run(argv: list[str]) -> int:
    """Dispatch; returns the exit status (0 ok, 1 some document failed, 2 bad usage or input)."""
    if argv and argv[0] in SUBCOMMANDS:
        args = _subcommand_parser(argv[0]).parse_args(argv)
        func: Callable[[argparse.Namespace], int] = args.func
        return func(args)
    args = _window_parser().parse_args(argv)
    # Imported here, not above: only the window loads Qt, so commands start without PySide6.
    from fastdesk.ui.app import run_app

    return run_app(args.file)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(run(sys.argv[1:]))
