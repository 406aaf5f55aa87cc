"""PyInstaller entry script: the frozen `fastdesk` runs what the `fastdesk` console script runs."""

from __future__ import annotations

import sys

from fastdesk.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
