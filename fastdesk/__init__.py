"""fastdesk: live Markdown translation on the fastest LLM providers.

Modules:

- ``document/``: Markdown blocks and back, the target, outline, find, HTML (no Qt)
- ``providers/``: one adapter per provider behind one small interface
- ``routing/``: who answers a request: router, limits, health, statistics, prices, costs
- ``translate/``: the engine, the live translator, prompts, checks, glossary, memory
- ``review/``: a translation's review, the open document's session, problems, export
- ``project/``: a docs project: its layout, what is stale, the run that translates it
- ``config/``: settings, API keys, file locations, logs, safe file I/O
- ``cli/``: the command line, one module per command
- ``ui/``: the desktop window (all the Qt code)
- ``clock``: the one clock every time-dependent part reads
- ``__main__``: ``python -m fastdesk``: the window, or a command
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("fastdesk")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
