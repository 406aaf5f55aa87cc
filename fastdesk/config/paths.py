"""Where fastdesk keeps its files: platformdirs locations, or all under FASTDESK_HOME."""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

import platformdirs

APP = "fastdesk"


def _home() -> Path | None:
    value = os.environ.get("FASTDESK_HOME")
    return Path(value).expanduser() if value else None


def _ensure(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def config_dir() -> Path:
    """Settings (settings.toml)."""
    home = _home()
    return _ensure(home / "config" if home else Path(platformdirs.user_config_dir(APP, False)))


def cache_dir() -> Path:
    """Translation memory and model lists: safe to delete."""
    home = _home()
    return _ensure(home / "cache" if home else Path(platformdirs.user_cache_dir(APP, False)))


def data_dir() -> Path:
    """Router statistics, session costs, autosaves."""
    home = _home()
    return _ensure(home / "data" if home else Path(platformdirs.user_data_dir(APP, False)))


def log_dir() -> Path:
    home = _home()
    return _ensure(home / "logs" if home else Path(platformdirs.user_log_dir(APP, False)))


def resource(name: str) -> Path:
    """A file shipped in resources/ (works from a checkout, a wheel and a frozen bundle)."""
    return Path(str(resources.files("fastdesk.resources").joinpath(name)))
