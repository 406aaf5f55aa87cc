"""Settings file: defaults, round trip, migrations, broken files, unknown keys, no secrets."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from fastdesk.config import redact, settings
from fastdesk.config.settings import (
    DEFAULT_MODELS,
    RECENT_FILES_MAX,
    SETTINGS_VERSION,
    Settings,
    load_settings,
    migrate,
    providers_models,
    save_settings,
)


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("FASTDESK_HOME", str(tmp_path / "fdhome"))
    for var in ("FASTDESK_OPENAI_MODEL", "FASTDESK_OPENAI_BASE_URL", "GROQ_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    yield tmp_path / "fdhome"
    redact.clear_secrets()


def settings_file(home: Path) -> Path:
    return home / "config" / "settings.toml"


def test_defaults_match_the_issue() -> None:
    s = Settings()
    assert (s.target_language, s.mode, s.provider) == ("fr", "translate", "auto")
    assert (s.debounce_ms, s.live, s.hedging, s.daily_budget_usd) == (300, True, False, None)
    assert s.concurrency is None and s.theme == "system" and s.recent_files == ()  # no cap
    assert s.model_for("groq") == DEFAULT_MODELS["groq"] == "openai/gpt-oss-20b"
    assert s.model_for("cerebras") == "gpt-oss-120b"
    # Seed 003: the small Llamas have poor accents; they are never the default.
    assert not any("llama" in m.lower() for m in DEFAULT_MODELS.values())


def test_every_setting_has_a_reader() -> None:
    names = {f.name for f in dataclasses.fields(Settings)} - settings._INTERNAL
    assert names == set(settings._READERS)


def test_missing_file_gives_defaults_and_creates_nothing(home: Path) -> None:
    s, warnings = load_settings()
    assert s == Settings() and warnings == []
    assert not settings_file(home).exists()


def test_round_trip_through_the_config_dir(home: Path) -> None:
    original = dataclasses.replace(
        Settings(),
        target_language="pt-BR",
        mode="simplify",
        provider="cerebras",
        models={"groq": "llama-3.3-70b-versatile"},
        preferred_models={"ja": {"groq": "qwen/qwen3-32b"}},
        excluded_models={"groq": ["llama-3.1-8b-instant"]},
        price_overrides={"groq": {"openai/gpt-oss-20b": {"input": 0.1, "output": 0.25}}},
        base_urls={"openai": "http://127.0.0.1:11434/v1"},
        glossary_path="~/glossary.toml",
        debounce_ms=150,
        live=False,
        hedging=True,
        daily_budget_usd=1.5,
        concurrency=8,
        recent_files=("/tmp/a.md", "/tmp/b.md"),
        window={"geometry": "AdnQywADAAAAAAAA", "state": "AAAA/wAAAAD9"},
        theme="dark",
    )
    written = save_settings(original)
    assert written == settings_file(home)
    raw = tomllib.loads(written.read_text(encoding="utf-8"))
    assert raw["version"] == SETTINGS_VERSION
    loaded, warnings = load_settings()
    assert warnings == []
    assert loaded == original
    assert loaded.is_excluded("groq", "llama-3.1-8b-instant")
    assert loaded.price_override("groq", "openai/gpt-oss-20b") == (0.1, 0.25)
    assert loaded.price_override("groq", "other") is None
    assert settings.glossary_file(loaded) == Path("~/glossary.toml").expanduser()


def test_no_budget_means_no_key_and_loads_back_as_none(home: Path) -> None:
    save_settings(Settings())
    raw = tomllib.loads(settings_file(home).read_text(encoding="utf-8"))
    assert "daily_budget_usd" not in raw
    assert load_settings()[0].daily_budget_usd is None


def test_the_reading_level_is_kept_and_a_bad_one_falls_back(home: Path) -> None:
    assert Settings().reading_level == ""  # the house style file's
    save_settings(dataclasses.replace(Settings(), reading_level="grade 5"))
    assert load_settings()[0].reading_level == "grade 5"
    settings_file(home).write_text('version = 1\nreading_level = "Z9"\n', encoding="utf-8")
    loaded, warnings = load_settings()
    assert loaded.reading_level == "" and any("reading_level" in w for w in warnings)


def test_save_is_atomic_and_leaves_no_temporary_file(home: Path) -> None:
    save_settings(Settings())
    save_settings(dataclasses.replace(Settings(), theme="light"))
    assert sorted(p.name for p in settings_file(home).parent.iterdir()) == ["settings.toml"]
    assert load_settings()[0].theme == "light"


def test_unknown_keys_are_kept_on_save(home: Path) -> None:
    path = settings_file(home)
    path.parent.mkdir(parents=True)
    path.write_text(
        'version = 1\ntarget_language = "de"\nfuture_flag = true\n'
        '[models]\ngroq = "x"\nmistral = "m-large"\n'
        "[future_table]\nnested = { a = [1, 2] }\n",
        encoding="utf-8",
    )
    s, warnings = load_settings()
    assert warnings == []
    assert s.extra == {"future_flag": True, "future_table": {"nested": {"a": [1, 2]}}}
    save_settings(dataclasses.replace(s, theme="dark"))
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    assert raw["future_flag"] is True
    assert raw["future_table"] == {"nested": {"a": [1, 2]}}
    assert raw["models"] == {"groq": "x", "mistral": "m-large"}  # a provider we do not know yet
    assert (raw["target_language"], raw["theme"]) == ("de", "dark")


def test_a_newer_file_keeps_its_version_and_warns(home: Path) -> None:
    path = settings_file(home)
    path.parent.mkdir(parents=True)
    path.write_text('version = 7\ntheme = "dark"\nnew_thing = 3\n', encoding="utf-8")
    s, warnings = load_settings()
    assert s.theme == "dark"
    assert len(warnings) == 1 and "newer fastdesk" in warnings[0]
    save_settings(s)
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    assert raw["version"] == 7 and raw["new_thing"] == 3  # no downgrade: migrations won't re-run


@pytest.mark.parametrize(
    "content",
    [
        b'version = 1\ntheme = "dark\n',  # unterminated string
        b"[models\n",
        b'theme = "caf\xe9"\n',  # Latin-1, not UTF-8
        b'version = "one"\n',  # a version that is not a number
    ],
)
def test_a_broken_file_gives_defaults_a_warning_and_is_kept_aside(
    home: Path, content: bytes
) -> None:
    path = settings_file(home)
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    s, warnings = load_settings()
    assert s == Settings()
    assert len(warnings) == 1
    assert str(path) in warnings[0] and "using the default settings" in warnings[0]
    kept = [p for p in path.parent.iterdir() if p.name.startswith("settings.toml.broken-")]
    assert len(kept) == 1 and kept[0].name in warnings[0]
    assert kept[0].read_bytes() == content
    assert not path.exists()
    # The next start is clean, and saving does not touch the broken copy.
    assert load_settings() == (Settings(), [])
    save_settings(Settings())
    assert kept[0].read_bytes() == content


def test_two_broken_files_in_the_same_second_are_both_kept(home: Path) -> None:
    path = settings_file(home)
    path.parent.mkdir(parents=True)
    for _ in range(2):
        path.write_text("= nope", encoding="utf-8")
        load_settings()
    assert len([p for p in path.parent.iterdir() if ".broken-" in p.name]) == 2


def test_an_unreadable_path_warns_and_is_left_alone(home: Path) -> None:
    path = settings_file(home)
    path.mkdir(parents=True)  # a folder where the file should be
    s, warnings = load_settings()
    assert s == Settings() and len(warnings) == 1 and "could not be read" in warnings[0]
    assert path.is_dir()


def test_a_bad_value_falls_back_to_its_default_only(home: Path) -> None:
    path = settings_file(home)
    path.parent.mkdir(parents=True)
    path.write_text(
        'version = 1\ndebounce_ms = "fast"\nconcurrency = 0\nmode = "poetry"\n'
        'theme = "dark"\nlive = "yes"\ntarget_language = "French!"\n'
        "daily_budget_usd = -3\n[price_overrides.groq.m]\ninput = 1\n",
        encoding="utf-8",
    )
    s, warnings = load_settings()
    assert s.theme == "dark"  # the good value survives
    assert (s.debounce_ms, s.concurrency, s.mode, s.live) == (300, None, "translate", True)
    assert (s.target_language, s.daily_budget_usd, s.price_overrides) == ("fr", None, {})
    joined = "\n".join(warnings)
    for name in (
        "debounce_ms",
        "concurrency",
        "mode",
        "live",
        "target_language",
        "daily_budget_usd",
    ):
        assert f"'{name}'" in joined
    assert "price_overrides" in joined
    assert any("whole number from 0 to 10000" in w and "'fast'" in w for w in warnings)
    assert path.exists()  # a bad value is not a broken file


def test_v0_to_v1_migration() -> None:
    v0 = {
        "language": "de",
        "groq_model": "llama-3.3-70b-versatile",
        "cerebras_model": "qwen-3-32b",
        "debounce": 0.25,
        "budget": 2,
        "geometry": "AdnQ",
        "state": "AAAA",
        "theme": "dark",
        "something_else": 1,
    }
    v1 = migrate(v0)
    assert v1 == {
        "version": SETTINGS_VERSION,
        "target_language": "de",
        "models": {"groq": "llama-3.3-70b-versatile", "cerebras": "qwen-3-32b"},
        "debounce_ms": 250,
        "daily_budget_usd": 2,
        "window": {"geometry": "AdnQ", "state": "AAAA"},
        "theme": "dark",
        "something_else": 1,
    }
    assert "language" in v0  # the input is not modified
    assert migrate(v1) == v1  # a current dict passes through unchanged
    assert migrate({"version": 99, "x": 1}) == {"version": 99, "x": 1}


def test_v0_migration_prefers_keys_already_in_v1_shape() -> None:
    v1 = migrate(
        {"language": "de", "target_language": "es", "groq_model": "a", "models": {"groq": "b"}}
    )
    assert v1["target_language"] == "es" and v1["models"] == {"groq": "b"}


def test_a_v0_file_on_disk_loads_migrated_and_saves_as_v1(home: Path) -> None:
    path = settings_file(home)
    path.parent.mkdir(parents=True)
    path.write_text('language = "ja"\ngroq_model = "qwen/qwen3-32b"\ndebounce = 0.5\n', "utf-8")
    s, warnings = load_settings()
    assert warnings == []
    assert (s.target_language, s.debounce_ms, s.model_for("groq")) == ("ja", 500, "qwen/qwen3-32b")
    save_settings(s)
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    assert raw["version"] == SETTINGS_VERSION and "language" not in raw and "groq_model" not in raw


def test_a_v1_file_s_fixed_four_requests_in_flight_is_no_cap_any_more(home: Path) -> None:
    """Version 1 wrote ``concurrency = 4`` (its fixed number then) into every file it saved:
    from version 2 the number follows the account, and that 4 would hold it down."""
    path = settings_file(home)
    path.parent.mkdir(parents=True)
    path.write_text('version = 1\nconcurrency = 4\ntheme = "dark"\n', "utf-8")
    s, warnings = load_settings()
    assert warnings == [] and s.concurrency is None and s.theme == "dark"
    save_settings(s)
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    assert raw["version"] == SETTINGS_VERSION and "concurrency" not in raw
    path.write_text("version = 1\nconcurrency = 8\n", "utf-8")  # a cap the user chose stays
    assert load_settings()[0].concurrency == 8
    path.write_text(f"version = {SETTINGS_VERSION}\nconcurrency = 4\n", "utf-8")
    assert load_settings()[0].concurrency == 4  # written since: the user's cap


def test_model_choice_order(monkeypatch: pytest.MonkeyPatch) -> None:
    s = dataclasses.replace(
        Settings(),
        target_language="fr-CA",
        models={"groq": "user-model"},
        preferred_models={"fr": {"groq": "french-model"}, "ja": {"cerebras": "ja-model"}},
    )
    assert s.model_for("groq") == "french-model"  # fr-CA falls back to fr
    assert s.model_for("groq", "de") == "user-model"
    assert s.model_for("cerebras", "ja") == "ja-model"
    assert s.model_for("cerebras", "de") == DEFAULT_MODELS["cerebras"]
    assert s.model_for("openai") == ""
    monkeypatch.setenv("FASTDESK_OPENAI_MODEL", "llama3.2:3b")
    assert s.model_for("openai") == "llama3.2:3b"
    assert providers_models(s, "de") == {
        "groq": "user-model",
        "cerebras": DEFAULT_MODELS["cerebras"],
        "openai": "llama3.2:3b",
    }
    assert providers_models() == DEFAULT_MODELS
    assert settings.default_model("groq") == DEFAULT_MODELS["groq"]
    with pytest.raises(ValueError, match="unknown provider"):
        settings.default_model("mistral")


def test_base_url_environment_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    s = dataclasses.replace(Settings(), base_urls={"openai": "http://127.0.0.1:8080/v1"})
    assert s.base_url_for("openai") == "http://127.0.0.1:8080/v1"
    assert s.base_url_for("groq") is None
    monkeypatch.setenv("FASTDESK_OPENAI_BASE_URL", "http://127.0.0.1:11434/v1")
    assert s.base_url_for("openai") == "http://127.0.0.1:11434/v1"


def test_recent_files_are_deduplicated_and_capped(tmp_path: Path) -> None:
    s = Settings()
    for i in range(RECENT_FILES_MAX + 3):
        s = s.with_recent_file(tmp_path / f"{i}.md")
    s = s.with_recent_file(tmp_path / "5.md")
    assert len(s.recent_files) == RECENT_FILES_MAX
    assert s.recent_files[0] == str(tmp_path / "5.md")
    assert len(set(s.recent_files)) == RECENT_FILES_MAX


def test_no_secret_is_ever_written_to_the_settings_file(home: Path) -> None:
    secret = "gsk_SETTINGSCANARY_0123456789_abcdefXYZ"
    opaque = "opaque-local-server-key-51f0e7"  # no known shape: only the registry knows it
    redact.register_secret(secret)
    redact.register_secret(opaque)
    s = dataclasses.replace(
        Settings(),
        models={"groq": secret, "cerebras": "gpt-oss-120b"},
        window={"geometry": opaque, "state": "AAAA"},
        recent_files=("/tmp/a.md", f"/tmp/{secret}.md"),
        extra={
            "groq_api_key": "short",  # named like a secret: dropped whatever the value
            "token": "x",
            "nested": {"openai": {"api_key": "y", "url": "http://127.0.0.1/v1"}},
            "max_tokens": 512,  # not a secret name
            "note": f"Bearer {opaque}",
        },
    )
    save_settings(s)
    text = settings_file(home).read_text(encoding="utf-8")
    for leaked in (secret, opaque, "SETTINGSCANARY", "groq_api_key", "api_key"):
        assert leaked not in text
    raw = tomllib.loads(text)
    assert raw["models"] == {"cerebras": "gpt-oss-120b"}
    assert raw["window"] == {"state": "AAAA"}
    assert raw["recent_files"] == ["/tmp/a.md"]
    assert raw["nested"] == {"openai": {"url": "http://127.0.0.1/v1"}}
    assert raw["max_tokens"] == 512 and "token" not in raw and "note" not in raw


def test_a_secret_read_from_the_file_is_not_echoed_in_warnings(home: Path) -> None:
    path = settings_file(home)
    path.parent.mkdir(parents=True)
    path.write_text('version = 1\ntheme = "gsk_WARNCANARY_0123456789_abcdef"\n', encoding="utf-8")
    _, warnings = load_settings()
    assert warnings and "WARNCANARY" not in "\n".join(warnings)


def test_core_modules_import_neither_qt_nor_keyring_eagerly() -> None:
    code = (
        "import sys, fastdesk.config.settings, fastdesk.config.keys, fastdesk.cli.keys, "
        "fastdesk.config.logs, fastdesk.config.redact\n"
        "bad = sorted(m for m in sys.modules if m.startswith(('PySide6', 'keyring')))\n"
        "print(bad)\n"
        "sys.exit(1 if bad else 0)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=os.environ
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_warmup_setting_round_trips_and_defaults_on(tmp_path) -> None:
    import dataclasses

    from fastdesk.config.settings import Settings, load_settings, save_settings

    assert Settings().warmup is True
    path = tmp_path / "settings.toml"
    save_settings(dataclasses.replace(Settings(), warmup=False), path)
    assert "warmup = false" in path.read_text()
    assert load_settings(path)[0].warmup is False
