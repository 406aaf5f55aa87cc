"""User settings: one versioned TOML file in the config dir, never a secret in it.

- ``load_settings()`` never raises for a bad file: a file that is not TOML is moved aside to
  ``settings.toml.broken-<timestamp>`` and the defaults are used; a single bad value falls back to
  its default. Either way a plain warning says what happened.
- Files from older versions go through :func:`migrate` (one function per version step).
- Unknown keys (a newer fastdesk's, or the user's own) are kept and written back on save, and a
  file from a newer version keeps its version number, so an older fastdesk cannot make a newer
  one re-run migrations over its data.
- ``save_settings()`` writes atomically and drops anything that looks like an API key (keys live
  in the OS keyring: see :mod:`fastdesk.config.keys`).

Why the default models (``DEFAULT_MODELS``) are these: docs/settings.md, "Default models".
"""

from __future__ import annotations

import logging
import math
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import tomli_w

from fastdesk.config import paths
from fastdesk.config.fileio import BrokenFile, FileError, atomic_write_text, load_toml, set_aside
from fastdesk.config.redact import contains_secret

__all__ = [
    "DEFAULT_MODELS",
    "PROVIDER_NAMES",
    "READING_LEVELS",
    "SETTINGS_FILE_NAME",
    "SETTINGS_VERSION",
    "Settings",
    "default_model",
    "glossary_file",
    "load_settings",
    "migrate",
    "providers_models",
    "save_settings",
    "saved_settings",
    "settings_path",
]

log = logging.getLogger(__name__)

SETTINGS_VERSION = 2
# The providers fastdesk has an adapter for (fastdesk/providers/), by the names the settings, the
# keys and the command line use. Here, at the bottom, because the settings and the keys name them.
PROVIDER_NAMES = ("groq", "cerebras", "openai")
SETTINGS_FILE_NAME = "settings.toml"
DEFAULT_MODELS: dict[str, str] = {
    "groq": "openai/gpt-oss-20b",
    "cerebras": "gpt-oss-120b",
    "openai": "",  # whatever the server serves: FASTDESK_OPENAI_MODEL or the settings say
}
MODEL_ENV_VARS = {"openai": "FASTDESK_OPENAI_MODEL"}
BASE_URL_ENV_VARS = {
    "groq": "GROQ_BASE_URL",
    "cerebras": "CEREBRAS_BASE_URL",
    "openai": "FASTDESK_OPENAI_BASE_URL",
}
MODES = ("translate", "simplify")
THEMES = ("system", "light", "dark")
REVIEW_CHOICES = ("auto", "on", "off")  # the window's reviewer pass: auto = when the budget allows
# simplify's reading levels as fastdesk.translate.readability.ReadingLevel labels them
READING_LEVELS = (
    "",
    "plain",
    *(f"{level}{n}" for level in "ABC" for n in (1, 2)),
    *(f"grade {n}" for n in range(1, 13)),
)
PROVIDER_CHOICES = ("auto", *PROVIDER_NAMES)
RECENT_FILES_MAX = 10
GLOSSARY_FILE_NAME = "glossary.toml"
_HEADER = (
    "# fastdesk settings. Edit freely; unknown keys are kept.\n"
    "# API keys are never stored here: use `fastdesk keys set PROVIDER` or the environment.\n"
)
# Key names that mean "a secret": such entries are dropped on save, whatever their value.
_SECRET_NAME = re.compile(
    r"(?i)(?:^|[_.-])(?:api[_-]?key|secret|password|passwd|token|credentials?)(?:$|[_.-])"
)
_LANGUAGE = re.compile(r"^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$")

Prices = dict[str, dict[str, dict[str, float]]]
# A settings file as TOML reads it: what each value holds is checked by its reader (_READERS).
Raw = dict[str, object]


@dataclass(frozen=True)
class Settings:
    """Every user preference, typed, with its default. Change one with ``dataclasses.replace``."""

    target_language: str = "fr"  # BCP-47
    mode: str = "translate"  # translate | simplify
    provider: str = "auto"  # auto | groq | cerebras | openai
    # provider → model the user chose (DEFAULT_MODELS otherwise)
    models: dict[str, str] = field(default_factory=dict)
    # language → provider → model, e.g. {"ja": {"groq": "qwen/qwen3-32b"}}
    preferred_models: dict[str, dict[str, str]] = field(default_factory=dict)
    # provider → models never to use (the router skips them)
    excluded_models: dict[str, list[str]] = field(default_factory=dict)
    # provider → model → {"input": USD per M tokens, "output": USD per M tokens}
    price_overrides: Prices = field(default_factory=dict)
    base_urls: dict[str, str] = field(default_factory=dict)  # provider → base URL (env wins)
    glossary_path: str = ""  # "" = glossary.toml in the config dir
    debounce_ms: int = 300
    live: bool = True
    hedging: bool = False
    warmup: bool = True  # a tiny request when the window opens or after a long idle
    daily_budget_usd: float | None = None  # None = no limit
    # requests in flight at most (each provider and model's window follows the account under
    # it: fastdesk.routing.concurrency); None: as many as the account allows, up to 32
    concurrency: int | None = None
    # the window's reviewer pass (docs/quality.md): auto (when the rate budget allows: your own
    # [rate_limits], not a free tier's) | on | off; and its model: "provider/model", or "" for
    # the fastest configured one, another than the model that translated when there is one
    review: str = "auto"
    review_model: str = ""
    # how requests retry and how long they may take (REQUEST_LIMITS names them; missing: default)
    requests: dict[str, float] = field(default_factory=dict)
    # provider → model (or "*") → {requests_per_minute, …}: overrides resources/rate_limits.toml
    rate_limits: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)
    recent_files: tuple[str, ...] = ()
    window: dict[str, str] = field(default_factory=dict)  # opaque strings the UI stores
    theme: str = "system"  # system | light | dark
    # what simplify aims at in the window (READING_LEVELS; "": the house style file's)
    reading_level: str = ""
    extra: dict[str, object] = field(default_factory=dict, compare=False)  # unknown keys, kept
    file_version: int = field(default=SETTINGS_VERSION, compare=False)

    def model_for(self, provider: str, language: str | None = None) -> str:
        """The model to ask ``provider`` for, for ``language`` (default: the target language).

        Order: the provider's model environment variable, the per-language preference (``fr-CA``
        then ``fr``), the user's model, then ``DEFAULT_MODELS``. ``""`` means "not known" (an
        OpenAI-compatible server with no model configured: ask its /models).
        """
        env = MODEL_ENV_VARS.get(provider)
        if env and os.environ.get(env, "").strip():
            return os.environ[env].strip()
        for lang in _language_chain(language or self.target_language):
            preferred = self.preferred_models.get(lang, {}).get(provider)
            if preferred:
                return preferred
        return self.models.get(provider) or DEFAULT_MODELS.get(provider, "")

    def base_url_for(self, provider: str) -> str | None:
        """The provider's base URL: its environment variable, the settings, or None (SDK's own)."""
        env = BASE_URL_ENV_VARS.get(provider)
        if env and os.environ.get(env, "").strip():
            return os.environ[env].strip()
        return self.base_urls.get(provider) or None

    def is_excluded(self, provider: str, model: str) -> bool:
        return model in self.excluded_models.get(provider, [])

    def price_override(self, provider: str, model: str) -> tuple[float, float] | None:
        """``(input, output)`` USD per million tokens when the user overrode the price table."""
        price = self.price_overrides.get(provider, {}).get(model)
        return (price["input"], price["output"]) if price else None

    def with_recent_file(self, path: str | os.PathLike[str]) -> Settings:
        """A copy with ``path`` first among the recent files (no duplicates, RECENT_FILES_MAX)."""
        entry = str(Path(path).expanduser().absolute())
        recent = (entry, *(p for p in self.recent_files if p != entry))
        return replace(self, recent_files=recent[:RECENT_FILES_MAX])


def _language_chain(language: str) -> list[str]:
    parts = language.split("-")
    return ["-".join(parts[:n]) for n in range(len(parts), 0, -1)]


def default_model(provider: str) -> str:
    """The built-in default model for ``provider`` ("" when the server decides)."""
    if provider not in DEFAULT_MODELS:
        raise ValueError(
            f"unknown provider {provider!r} (choose one of: {', '.join(PROVIDER_NAMES)})"
        )
    return DEFAULT_MODELS[provider]


def providers_models(
    settings: Settings | None = None, language: str | None = None
) -> dict[str, str]:
    """``{provider: model}`` for every provider: the effective choice under ``settings``
    (environment and per-language preferences included), or the built-in defaults."""
    if settings is None:
        return dict(DEFAULT_MODELS)
    return {p: settings.model_for(p, language) for p in PROVIDER_NAMES}


def settings_path() -> Path:
    """``settings.toml`` in the config dir (under FASTDESK_HOME when set)."""
    return paths.config_dir() / SETTINGS_FILE_NAME


def glossary_file(settings: Settings) -> Path:
    """The glossary the user chose, or ``glossary.toml`` next to the settings."""
    if settings.glossary_path:
        return Path(settings.glossary_path).expanduser()
    return paths.config_dir() / GLOSSARY_FILE_NAME


# ---- migrations ------------------------------------------------------------------------------


def _v0_to_v1(raw: Raw) -> Raw:
    """Version 0 is the prototype's unversioned file: flat keys, debounce in seconds.

    ``language`` → ``target_language``; ``groq_model``/``cerebras_model``/``openai_model`` →
    ``[models]``; ``debounce`` (seconds) → ``debounce_ms``; ``budget`` → ``daily_budget_usd``;
    ``geometry``/``state`` → ``[window]``. Keys already in v1 shape win over their v0 spelling.
    """
    out = dict(raw)
    if "language" in out:
        out.setdefault("target_language", out.pop("language"))
    old_models = out.get("models")
    models = dict(old_models) if isinstance(old_models, dict) else {}
    for provider in PROVIDER_NAMES:
        old = out.pop(f"{provider}_model", None)
        if old is not None:
            models.setdefault(provider, old)
    if models:
        out["models"] = models
    if "debounce" in out:
        seconds = out.pop("debounce")
        if isinstance(seconds, int | float) and not isinstance(seconds, bool):
            out.setdefault("debounce_ms", round(seconds * 1000))
    if "budget" in out:
        out.setdefault("daily_budget_usd", out.pop("budget"))
    old_window = out.get("window")
    window = dict(old_window) if isinstance(old_window, dict) else {}
    for name in ("geometry", "state"):
        if name in out:
            window.setdefault(name, out.pop(name))
    if window:
        out["window"] = window
    return out


def _v1_to_v2(raw: Raw) -> Raw:
    """Version 1 wrote ``concurrency = 4``, the fixed number of requests in flight then, into
    every file it saved. From version 2 ``concurrency`` is a cap over a number that follows the
    account, and no entry means none but its ceiling: the old default is dropped (a 4 chosen by
    hand cannot be told from it), any other number stays the cap it meant."""
    out = dict(raw)
    if out.get("concurrency") == 4 and not isinstance(out["concurrency"], bool):
        del out["concurrency"]
    return out


# version N → function returning the version N+1 dict
MIGRATIONS: dict[int, Callable[[Raw], Raw]] = {0: _v0_to_v1, 1: _v1_to_v2}


def file_version(raw: Raw) -> int:
    """The ``version`` of a raw settings dict (0 when absent: the unversioned prototype file)."""
    version = raw.get("version", 0)
    if isinstance(version, bool) or not isinstance(version, int) or version < 0:
        raise ValueError(f"'version' must be a whole number, found {version!r}")
    return version


def migrate(raw: Raw) -> Raw:
    """Bring a raw settings dict up to SETTINGS_VERSION (a newer one is returned unchanged)."""
    version = file_version(raw)
    data = dict(raw)
    while version < SETTINGS_VERSION:
        data = MIGRATIONS[version](data)
        version += 1
        data["version"] = version
    return data


# ---- reading values --------------------------------------------------------------------------


class _Invalid(ValueError):
    """A value that cannot be used; the message says what was expected."""


def _str_choice(choices: tuple[str, ...]) -> Callable[[object], str]:
    def check(value: object) -> str:
        if not isinstance(value, str) or value not in choices:
            raise _Invalid(f"one of {', '.join(choices)}")
        return value

    return check


def _language(value: object) -> str:
    if not isinstance(value, str) or not _LANGUAGE.match(value):
        raise _Invalid("a language code such as fr, fr-CA or pt-BR")
    return value


def _int_range(low: int, high: int) -> Callable[[object], int]:
    def check(value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise _Invalid(f"a whole number from {low} to {high}")
        return value

    return check


def _bool(value: object) -> bool:
    if not isinstance(value, bool):
        raise _Invalid("true or false")
    return value


def _money(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise _Invalid("an amount in USD (a number)")
    if value < 0:
        raise _Invalid("an amount in USD that is not negative")
    return float(value)


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise _Invalid("text")
    return value


def _str_table(value: object) -> dict[str, str]:
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise _Invalid('a table of text values (name = "value")')
    return dict(value)


def _preferred(value: object) -> dict[str, dict[str, str]]:
    if not isinstance(value, dict):
        raise _Invalid("a table: [preferred_models.LANG] provider = model")
    return {lang: _str_table(models) for lang, models in value.items()}


def _excluded(value: object) -> dict[str, list[str]]:
    if not isinstance(value, dict) or not all(
        isinstance(v, list) and all(isinstance(m, str) for m in v) for v in value.values()
    ):
        raise _Invalid("a table: provider = [model ids]")
    return {provider: list(models) for provider, models in value.items()}


def _prices(value: object) -> Prices:
    if not isinstance(value, dict):
        raise _Invalid('a table: [price_overrides.PROVIDER."MODEL"] input = …, output = …')
    out: Prices = {}
    for provider, models in value.items():
        if not isinstance(models, dict):
            raise _Invalid(f"a table of models under {provider!r}")
        for model, price in models.items():
            if not isinstance(price, dict) or set(price) != {"input", "output"}:
                raise _Invalid(f"input and output prices for {provider} {model}")
            out.setdefault(provider, {})[model] = {k: _money(price[k]) for k in ("input", "output")}
    return out


# [requests] entries and their allowed ranges (a whole number where the low end is an int)
REQUEST_LIMITS: dict[str, tuple[float, float]] = {
    "retry_attempts": (1, 100),  # rounds of one request in all, the first included
    "retry_seconds": (0.0, 3600.0),  # trying and waiting for one request, in all
    "retry_after_cap_s": (0.0, 3600.0),  # a server's retry-after is waited up to this
    "first_token_s": (1.0, 3600.0),  # from sending to the first token (cold or CPU servers)
    "gap_s": (1.0, 3600.0),  # between two pieces of the answer
    "total_s": (1.0, 7200.0),  # one request from start to end
    # 1 (the default): a rate limit is waited out however long (a document is paced, never
    # failed, by it); 0: a rate limit spends the retry budget like any fault
    "wait_for_rate": (0, 1),
}


def _requests(value: object) -> dict[str, float]:
    if not isinstance(value, dict):
        raise _Invalid(f"a table with any of {', '.join(REQUEST_LIMITS)}")
    out: dict[str, float] = {}
    for key, item in value.items():
        if key not in REQUEST_LIMITS:
            raise _Invalid(f"a table with only {', '.join(REQUEST_LIMITS)} (found {key!r})")
        low, high = REQUEST_LIMITS[key]
        whole = isinstance(low, int)
        if (
            isinstance(item, bool)
            or not isinstance(item, int if whole else int | float)
            or not low <= item <= high
        ):
            kind = "a whole number" if whole else "a number of seconds"
            raise _Invalid(f"{kind} from {low:g} to {high:g} for {key}")
        out[key] = item
    return out


RATE_LIMIT_FIELDS = (
    "requests_per_minute",
    "requests_per_day",
    "tokens_per_minute",
    "tokens_per_day",
)


def _rate_limits(value: object) -> dict[str, dict[str, dict[str, int]]]:
    shape = '[rate_limits.PROVIDER."MODEL"] requests_per_minute = … (0 = no limit)'
    if not isinstance(value, dict):
        raise _Invalid(f"a table: {shape}")
    out: dict[str, dict[str, dict[str, int]]] = {}
    for provider, models in value.items():
        if not isinstance(models, dict):
            raise _Invalid(f"a table: {shape}")
        for model, entry in models.items():
            if not isinstance(entry, dict) or not all(
                k in RATE_LIMIT_FIELDS and isinstance(v, int) and not isinstance(v, bool) and v >= 0
                for k, v in entry.items()
            ):
                raise _Invalid(f"whole numbers for {', '.join(RATE_LIMIT_FIELDS)} ({shape})")
            out.setdefault(provider, {})[model] = dict(entry)
    return out


def _recent(value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(p, str) for p in value):
        raise _Invalid("a list of file paths")
    return tuple(dict.fromkeys(value))[:RECENT_FILES_MAX]


def _reading_level(value: object) -> str:
    if not isinstance(value, str) or value not in READING_LEVELS:
        raise _Invalid('"" (the style file\'s), plain, A1 … C2 or grade 1 … grade 12')
    return value


_READERS: dict[str, Callable[[object], object]] = {
    "target_language": _language,
    "mode": _str_choice(MODES),
    "provider": _str_choice(PROVIDER_CHOICES),
    "models": _str_table,
    "preferred_models": _preferred,
    "excluded_models": _excluded,
    "price_overrides": _prices,
    "base_urls": _str_table,
    "glossary_path": _text,
    "debounce_ms": _int_range(0, 10_000),
    "live": _bool,
    "hedging": _bool,
    "warmup": _bool,
    "daily_budget_usd": _money,
    "concurrency": _int_range(1, 64),
    "review": _str_choice(REVIEW_CHOICES),
    "review_model": _text,
    "requests": _requests,
    "rate_limits": _rate_limits,
    "recent_files": _recent,
    "window": _str_table,
    "theme": _str_choice(THEMES),
    "reading_level": _reading_level,
}
_INTERNAL = {"extra", "file_version"}  # Settings fields that are not settings


def _shown(value: object) -> str:
    text = repr(value)
    if contains_secret(text):
        return "(a value that looks like a key; not shown)"
    return text if len(text) <= 60 else text[:57] + "..."


def from_dict(raw: Raw, where: str = SETTINGS_FILE_NAME) -> tuple[Settings, list[str]]:
    """Settings from a migrated dict: bad values fall back to their default with a warning."""
    warnings: list[str] = []
    values: dict[str, Any] = {}  # field → its reader's value, of that field's type
    extra: Raw = {}
    for key, value in raw.items():
        if key == "version":
            continue
        reader = _READERS.get(key)
        if reader is None:
            extra[key] = value
            continue
        try:
            values[key] = reader(value)
        except _Invalid as exc:
            default = getattr(Settings(), key)
            warnings.append(
                f"{where}: '{key}' must be {exc} (found {_shown(value)}); "
                f"using the default {default!r}"
            )
    version = max(file_version(raw), SETTINGS_VERSION)
    return Settings(**values, extra=extra, file_version=version), warnings


def to_dict(settings: Settings) -> Raw:
    """The TOML-ready dict: unknown keys kept, None omitted, models only where the user chose."""
    out: Raw = {"version": max(settings.file_version, SETTINGS_VERSION)}
    for f in fields(Settings):
        if f.name in _INTERNAL:
            continue
        value = getattr(settings, f.name)
        if value is None:
            continue
        out[f.name] = list(value) if isinstance(value, tuple) else value
    for key, value in settings.extra.items():
        out.setdefault(key, value)
    return out


# ---- secrets never reach the file ------------------------------------------------------------


def _table_without_secrets(
    table: Mapping[str, object], path: str, dropped: list[str]
) -> dict[str, object]:
    """``table`` minus every entry named like a secret or holding a key-shaped string."""
    out: dict[str, object] = {}
    for key, item in table.items():
        where = f"{path}.{key}" if path else str(key)
        if contains_secret(str(key)):
            dropped.append(f"{path}.<a key-shaped name>" if path else "<a key-shaped name>")
            continue
        if _SECRET_NAME.search(str(key)):
            dropped.append(where)
            continue
        cleaned = _without_secrets(item, where, dropped)
        if cleaned is not _DROP:
            out[key] = cleaned
    return out


def _without_secrets(value: object, path: str, dropped: list[str]) -> object:
    """``value`` minus every entry named like a secret or holding a key-shaped string."""
    if isinstance(value, dict):
        return _table_without_secrets(value, path, dropped)
    if isinstance(value, list):
        kept = [_without_secrets(item, f"{path}[]", dropped) for item in value]
        return [item for item in kept if item is not _DROP]
    if isinstance(value, str) and contains_secret(value):
        dropped.append(path)
        return _DROP
    return value


_DROP = object()


# ---- load and save ---------------------------------------------------------------------------


def _broken(path: Path, reason: str) -> tuple[Settings, list[str]]:
    kept = set_aside(path)
    where = f"it was kept as {kept.name}" if kept else "it could not be moved aside"
    message = f"{path} could not be read ({reason}); using the default settings ({where})"
    log.warning("%s", message)
    return Settings(), [message]


def load_settings(path: str | os.PathLike[str] | None = None) -> tuple[Settings, list[str]]:
    """The settings in ``path`` (default :func:`settings_path`) and warnings to show the user.

    Never raises: a missing file gives the defaults; a broken one gives the defaults and a warning.
    """
    target = Path(path) if path is not None else settings_path()
    try:
        raw = load_toml(target)
    except FileNotFoundError:
        return Settings(), []
    except BrokenFile as exc:
        return _broken(target, exc.detail)
    except FileError as exc:  # unreadable (permissions, a folder): leave it where it is
        message = f"{target} could not be read ({exc.reason}); using the default settings"
        log.warning("%s", message)
        return Settings(), [message]
    try:
        migrated = migrate(raw)
    except Exception as exc:  # a malformed version or a migration that met odd data
        return _broken(target, f"cannot migrate it: {exc}")
    settings, warnings = from_dict(migrated, target.name)
    if file_version(migrated) > SETTINGS_VERSION:
        warnings.insert(
            0,
            f"{target.name} was written by a newer fastdesk (settings version "
            f"{file_version(migrated)}, this one knows {SETTINGS_VERSION}); "
            "settings it does not know are kept as they are",
        )
    for message in warnings:
        log.warning("%s", message)
    return settings, warnings


def saved_settings(path: str | os.PathLike[str] | None = None) -> Settings:
    """The settings as saved in the file (default :func:`settings_path`; the defaults where it is
    missing or cannot be used), for a reader that shows no list of warnings: load_settings has
    logged them. The window reads its own copy (``MainWindow.settings``) instead, once loaded;
    the file is read again only to write it (read-modify-write)."""
    return load_settings(path)[0]


def dumps(settings: Settings) -> str:
    """The file's text: a header comment, then TOML with every secret-looking entry removed."""
    dropped: list[str] = []
    clean = _table_without_secrets(to_dict(settings), "", dropped)
    for where in dropped:
        log.warning(
            "not saving settings entry %s: it looks like an API key (use `fastdesk keys`)", where
        )
    return _HEADER + tomli_w.dumps(clean)


def save_settings(settings: Settings, path: str | os.PathLike[str] | None = None) -> Path:
    """Write ``settings`` atomically to ``path`` (default :func:`settings_path`); returns it."""
    target = Path(path) if path is not None else settings_path()
    text = dumps(settings)
    if contains_secret(text):  # defence in depth: dumps() must already have removed it
        raise RuntimeError("refusing to write settings that contain an API key")
    atomic_write_text(target, text)
    return target
