"""No API key in any log file, settings file, exception text or command output.

Recognisable canaries are put where the app takes keys from (environment, keyring), the app is
driven, and everything it produced is searched. To cover a new output (the translate report,
crash output …), produce it with the canaries set and pass it to :func:`assert_no_secret_in`.
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import logging
import os
import subprocess
import sys
import traceback
from collections.abc import Iterable, Iterator
from pathlib import Path

import keyring
import keyring.core
import pytest
from keyring.backends import fail

from fastdesk.cli import keys as cli_keys
from fastdesk.config import keys, logs, redact, settings
from tests.keyrings import MemoryKeyring

CANARY = "gsk_TESTLEAKCANARY_0123456789_abcdef"
CEREBRAS_CANARY = "csk-TESTLEAKCANARY_2bcdef_0123456789"
# A key of no known shape (a local server's): only the registry of keys in use can catch it.
OPAQUE_CANARY = "opaque-TESTLEAKCANARY-7f3a91"
CANARIES = (CANARY, CEREBRAS_CANARY, OPAQUE_CANARY)
# Any long piece of a canary counts as a leak, not only the whole key.
FRAGMENTS = ("TESTLEAKCANARY", "0123456789_abcdef", "2bcdef_0123456789")


def _texts(target: object) -> Iterator[tuple[str, str]]:
    """(where, text) for a str, bytes, a file or every file under a folder."""
    if isinstance(target, Path):
        files = (
            [target] if target.is_file() else sorted(p for p in target.rglob("*") if p.is_file())
        )
        for path in files:
            yield str(path), path.read_bytes().decode("utf-8", "replace")
            yield f"{path} (file name)", path.name
    elif isinstance(target, bytes):
        yield "bytes", target.decode("utf-8", "replace")
    elif isinstance(target, BaseException):
        yield repr(target), "".join(traceback.format_exception(target))
    else:
        yield "text", str(target)


def assert_no_secret_in(*targets: object, secrets: Iterable[str] = CANARIES) -> None:
    """Fail if a canary (or a long piece of one) is in a text, bytes, exception, file or folder."""
    needles = [*secrets, *FRAGMENTS]
    for target in targets:
        for where, text in _texts(target):
            for needle in needles:
                assert needle not in text, f"secret fragment {needle[:6]}… leaked into {where}"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """FASTDESK_HOME in tmp_path, canary keys in the environment and keyring; all undone after."""
    fdhome = tmp_path / "fdhome"
    monkeypatch.setenv("FASTDESK_HOME", str(fdhome))
    monkeypatch.setenv("GROQ_API_KEY", CANARY)
    monkeypatch.delenv("CEREBRAS_API_KEY", raising=False)
    monkeypatch.delenv("FASTDESK_OPENAI_API_KEY", raising=False)
    previous = keyring.core._keyring_backend
    backend = MemoryKeyring()
    backend.items[("fastdesk", "cerebras")] = CEREBRAS_CANARY
    backend.items[("fastdesk", "openai")] = OPAQUE_CANARY
    keyring.set_keyring(backend)
    yield fdhome
    logs.reset_logging()
    keyring.core._keyring_backend = previous
    redact.clear_secrets()


def test_the_helper_catches_a_leak(tmp_path: Path) -> None:
    (tmp_path / "f.log").write_text(f"x {CANARY} y", encoding="utf-8")
    with pytest.raises(AssertionError, match="leaked"):
        assert_no_secret_in(tmp_path)
    with pytest.raises(AssertionError):
        assert_no_secret_in(f"masked wrongly: gsk_…{CANARY[-20:]}")
    with pytest.raises(AssertionError):
        assert_no_secret_in(RuntimeError(OPAQUE_CANARY))
    assert_no_secret_in("gsk_…cdef", keys.mask(CANARY), tmp_path / "missing-folder")


def test_redact_masks_registered_and_key_shaped_secrets() -> None:
    try:
        redact.register_secret(OPAQUE_CANARY)
        text = redact.redact(
            f"a={CANARY} b={CEREBRAS_CANARY} c={OPAQUE_CANARY} "
            "d=sk-proj-Ab3dEfGhIjKlMnOpQrStUvWx e='Authorization: Bearer abcDEF123456789xyz'"
        )
        assert_no_secret_in(text)
        assert "gsk_…cdef" in text and "csk-…6789" in text and "c=…3a91" in text
        assert "sk-proj-…UvWx" in text and "Bearer …9xyz" in text
        assert redact.redact(text) == text  # idempotent
    finally:
        redact.clear_secrets()


def test_redact_masks_the_secrets_a_caller_names_without_registering_them() -> None:
    text = redact.redact(f"key={OPAQUE_CANARY} short=abcd", [OPAQUE_CANARY, "abcd", None, ""])
    assert_no_secret_in(text)
    assert "key=…3a91" in text and "short=…" in text and "abcd" not in text
    assert redact.redact(OPAQUE_CANARY) == OPAQUE_CANARY  # nothing was registered


@pytest.mark.parametrize(
    "harmless",
    [
        "/home/ana/desk-project-documentation-final.md",
        "see sk-learn-tutorial-notes-and-more",
        "gsk_ and csk- alone",
        "ordinary text, even with tokens=512",
    ],
)
def test_redact_leaves_ordinary_text_alone(harmless: str) -> None:
    assert redact.redact(harmless) == harmless


def test_logs_settings_and_exceptions_at_every_verbosity(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for verbose in range(4):
        logs.setup_logging(verbose=verbose, to_file=True)
        for provider in ("groq", "cerebras", "openai"):
            key = keys.get_key(provider)  # registers the key
            assert key in CANARIES
            log = logging.getLogger(f"fastdesk.test.{provider}")
            log.error("using key %s for %s", key, provider)
            log.warning(f"formatted early: {key}")
            log.debug("dict args %(k)s", {"k": key})
            try:
                raise RuntimeError(f"request failed with key {key}")
            except RuntimeError:
                log.exception("provider error")
            log.info("stack", stack_info=True, extra={"key": key})
        logging.getLogger("fastdesk.test").error("bad format %s %s", CANARY)  # wrong arg count
        logging.getLogger("httpx").debug("headers: Authorization: Bearer %s", CANARY)
        logging.getLogger("groq._base_client").debug("Request options: %r", {"api_key": CANARY})

    # The settings file, even when a key is pushed into it.
    s = dataclasses.replace(
        settings.Settings(), extra={"groq": {"api_key": CANARY}, "x": OPAQUE_CANARY}
    )
    settings.save_settings(s)

    log_text = logs.log_file().read_text(encoding="utf-8")
    assert "using key gsk_…cdef for groq" in log_text  # the file holds the masked records
    assert "request failed with key …3a91" in log_text  # caught by the registry alone
    assert "provider error" in log_text and "Traceback" in log_text
    assert_no_secret_in(home, *capsys.readouterr())
    assert logs.log_file().is_relative_to(home)


def test_keys_list_output_at_every_verbosity(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for flags in ([], ["-v"], ["-vv"], ["-vvv"]):
        assert cli_keys.main(["keys", "list", *flags]) == 0
        out, err = capsys.readouterr()
        assert "gsk_…cdef" in out and "csk-…6789" in out
        assert_no_secret_in(out, err)
    assert_no_secret_in(home)


def test_keys_set_failure_output_and_exception(home: Path, capsys) -> None:
    keyring.set_keyring(fail.Keyring())
    logs.setup_logging(verbose=3, to_file=True)
    with pytest.raises(keys.KeyringUnavailable) as caught:
        keys.set_key("groq", CANARY)
    assert_no_secret_in(caught.value, str(caught.value))
    args = argparse.Namespace(keys_action="set", provider="cerebras")
    out, err = io.StringIO(), io.StringIO()
    code = cli_keys.run_keys(args, stdin=io.StringIO(CEREBRAS_CANARY), stdout=out, stderr=err)
    assert code == 1
    assert_no_secret_in(out.getvalue(), err.getvalue(), *capsys.readouterr(), home)


def test_subprocess_keys_commands_leave_no_trace(tmp_path: Path) -> None:
    """The real command, its real stderr and every file it could write, with no keyring at all."""
    env = {k: v for k, v in os.environ.items() if k not in keys.ENV_VARS.values()}
    env.update(
        HOME=str(tmp_path / "home"),
        XDG_CONFIG_HOME=str(tmp_path / "xdg-config"),
        XDG_DATA_HOME=str(tmp_path / "xdg-data"),
        FASTDESK_HOME=str(tmp_path / "fdhome"),
        PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
        GROQ_API_KEY=CANARY,
        FASTDESK_OPENAI_API_KEY=OPAQUE_CANARY,
    )
    runs = [
        (["keys", "list", "-vvv"], "", 0),  # lists the environment, notes the keyring
        (["keys", "set", "-vv", "cerebras"], CEREBRAS_CANARY, 1),
        (["keys", "set", "groq"], f"{CANARY} {CANARY}", 2),  # malformed: echoed nowhere
    ]
    for argv, stdin, expected in runs:
        done = subprocess.run(
            [sys.executable, "-m", "fastdesk.cli.keys", *argv],
            input=stdin.encode(),
            env=env,
            capture_output=True,
            timeout=60,
        )
        assert done.returncode == expected, done.stderr
        assert_no_secret_in(done.stdout, done.stderr)
    assert_no_secret_in(tmp_path)
    # No plaintext fallback: with no keyring, nothing at all lands in HOME or the XDG dirs.
    for folder in ("home", "xdg-config", "xdg-data"):
        written = tmp_path / folder
        assert not written.exists() or not any(p.is_file() for p in written.rglob("*")), folder
