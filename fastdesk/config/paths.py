"""Where fastdesk keeps its files: platformdirs locations, or all under FASTDESK_HOME.

The folders are created on first use, but a folder that cannot be made (read-only, full, a
file in the way) is not an error here: each reader and writer meets it and says what it goes
without (memory, log file, statistics), so a translation still runs. Only FASTDESK_HOME naming
something that is not a folder stops the command line (:func:`home_problem`).
"""

from __future__ import annotations

import contextlib
import os
import stat
from importlib import resources
from pathlib import Path

import platformdirs

from fastdesk.config.fileio import os_reason

APP = "fastdesk"


def _home() -> Path | None:
    value = os.environ.get("FASTDESK_HOME")
    return Path(value).expanduser() if value else None


def _ensure(path: Path) -> Path:
    with contextlib.suppress(OSError):
        path.mkdir(parents=True, exist_ok=True)
    return path


def home_problem() -> str | None:
    """One line when FASTDESK_HOME is set to something that is not a folder, else None."""
    home = _home()
    if home is None:
        return None
    try:
        st = home.stat()
    except FileNotFoundError:
        return None  # made on first use
    except OSError as exc:
        return f"FASTDESK_HOME ({home}) cannot be used: {os_reason(exc)}"
    if stat.S_ISREG(st.st_mode):
        return f"FASTDESK_HOME ({home}) is a file, not a folder"
    if not stat.S_ISDIR(st.st_mode):
        return f"FASTDESK_HOME ({home}) is not a folder"
    return None


def config_dir() -> Path:
    """Settings (settings.toml)."""
    home = _home()
    return _ensure(home / "config" if home else Path(platformdirs.user_config_dir(APP, False)))


def cache_dir() -> Path:
    """Translation memory and model lists: safe to delete."""
    home = _home()
    return _ensure(home / "cache" if home else Path(platformdirs.user_cache_dir(APP, False)))


def data_dir() -> Path:
    """Router statistics, cost totals, autosaves."""
    home = _home()
    return _ensure(home / "data" if home else Path(platformdirs.user_data_dir(APP, False)))


def log_dir() -> Path:
    home = _home()
    return _ensure(home / "logs" if home else Path(platformdirs.user_log_dir(APP, False)))


def resource(name: str) -> Path:
    """A file shipped in resources/ (works from a checkout, a wheel and a frozen bundle)."""
    return Path(str(resources.files("fastdesk.resources").joinpath(name)))
