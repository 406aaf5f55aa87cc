"""The command line: one module per command, each imported only when it is used.

Modules:

- ``main``: ``fastdesk [FILE.md|DIR]`` opens the window; dispatches the subcommands
- ``common``: what the file and folder commands share (usage error, report, engine)
- ``translate``: ``fastdesk translate``: files without a window
- ``project``: ``fastdesk translate DIR``: a docs project's stale or missing blocks
- ``batch``: ``fastdesk translate DIR --batch [--wait]``: the project through a Batch API
- ``status``: ``fastdesk status``: per source file and language, what is stale
- ``export``: ``fastdesk export``: target, bilingual page, XLIFF or PO, with no request
- ``importing``: ``fastdesk import``: a translator's XLIFF or PO back into the review
- ``glossary``: ``fastdesk glossary``: grow the project's glossary
- ``memory``: ``fastdesk memory``: see, clear, import and export (TMX) the memory
- ``keys``: ``fastdesk keys``: API keys in the OS keyring
- ``bench``: ``fastdesk bench``: time every configured provider and model
"""

from __future__ import annotations

from fastdesk.cli.main import run

__all__ = ["run"]
