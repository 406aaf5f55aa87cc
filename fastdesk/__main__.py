"""Entry point: no arguments opens the window; subcommands go to the command line."""

from __future__ import annotations

import sys

from fastdesk.cli.main import run


def main(argv: list[str] | None = None) -> int:
    return run(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main())
