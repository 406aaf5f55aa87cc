"""The command line: one module per command, each imported only when it is used."""

from __future__ import annotations

from fastdesk.cli.main import run

__all__ = ["run"]
