"""API keys: environment first, OS keyring second, no plaintext fallback, and `fastdesk keys`.

Most tests use an in-memory keyring backend (fast, no D-Bus). The ones marked ``keyring`` use a
real Secret Service: run them through ``scripts/with-keyring`` (a throwaway, unlocked
gnome-keyring); elsewhere they skip, unless FASTDESK_KEYRING_SANDBOX=1 says one must be there.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import subprocess
import sys
import traceback
import uuid
from collections.abc import Iterator
from pathlib import Path

import keyring
import keyring.core
import pytest
from keyring.backend import KeyringBackend
from keyring.backends import chainer, fail
from keyring.errors import KeyringLocked, PasswordDeleteError

from fastdesk.cli import keys as cli_keys
from fastdesk.config import keys, logs, redact
from fastdesk.config.keys import KeyringUnavailable
from tests.keyrings import MemoryKeyring

GROQ = "gsk_KEYSTEST_0123456789_abcdefGHIJ"
CEREBRAS = "csk-keystest_0123456789_abcdefghij"


class LockedKeyring(MemoryKeyring):
    """A keyring whose every call fails, with the secret in the message (a careless backend)."""

    def get_password(self, service: str, username: str) -> str | None:
        raise KeyringLocked(f"collection locked while reading {service}/{username}")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise KeyringLocked(f"cannot store {password!r}: collection locked")

    def delete_password(self, service: str, username: str) -> None:
        raise KeyringLocked("collection locked")


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """No keys from the environment, files only under tmp_path, the keyring backend restored."""
    for var in keys.ENV_VARS.values():
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("FASTDESK_HOME", str(tmp_path / "fdhome"))
    previous = keyring.core._keyring_backend
    yield tmp_path
    keyring.core._keyring_backend = previous
    redact.clear_secrets()
    logs.reset_logging()


@pytest.fixture
def memory() -> MemoryKeyring:
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    return backend


@pytest.fixture
def no_keyring() -> None:
    keyring.set_keyring(fail.Keyring())


def files_under(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file())


# ---- env and keyring ---------------------------------------------------------------------------


def test_environment_wins_over_the_keyring(memory: MemoryKeyring, monkeypatch) -> None:
    keys.set_key("groq", GROQ)
    assert keys.get_key("groq") == GROQ and keys.key_source("groq") == "keyring"
    monkeypatch.setenv("GROQ_API_KEY", "gsk_FROMENV_0123456789_abcdefghij")
    assert keys.get_key("groq") == "gsk_FROMENV_0123456789_abcdefghij"
    assert keys.key_source("groq") == "env"
    monkeypatch.setenv("GROQ_API_KEY", "   ")  # blank counts as unset
    assert keys.key_source("groq") == "keyring"


def test_each_provider_has_its_variable(memory: MemoryKeyring, monkeypatch) -> None:
    assert keys.ENV_VARS == {
        "groq": "GROQ_API_KEY",
        "cerebras": "CEREBRAS_API_KEY",
        "openai": "FASTDESK_OPENAI_API_KEY",
    }
    monkeypatch.setenv("CEREBRAS_API_KEY", f"  {CEREBRAS}\n")
    monkeypatch.setenv("FASTDESK_OPENAI_API_KEY", "local-key-123456")
    assert keys.get_key("cerebras") == CEREBRAS
    assert keys.get_key("openai") == "local-key-123456"
    assert keys.get_key("groq") is None and keys.key_source("groq") is None


def test_keys_are_stored_under_service_fastdesk(memory: MemoryKeyring) -> None:
    keys.set_key("cerebras", f"  {CEREBRAS}\n")
    assert memory.items == {("fastdesk", "cerebras"): CEREBRAS}


def test_returned_keys_are_registered_for_redaction(memory: MemoryKeyring, monkeypatch) -> None:
    memory.items[("fastdesk", "openai")] = "opaque-local-key-778899"
    monkeypatch.setenv("GROQ_API_KEY", GROQ)
    keys.get_key("openai")
    keys.get_key("groq")
    text = redact.redact("a opaque-local-key-778899 b " + GROQ)
    assert "opaque-local-key-778899" not in text and GROQ not in text


def test_delete(memory: MemoryKeyring) -> None:
    keys.set_key("groq", GROQ)
    assert keys.delete_key("groq") is True
    assert keys.delete_key("groq") is False
    assert keys.get_key("groq") is None


@pytest.mark.parametrize("bad", ["", "  \n", "gsk_abc def", "two\nlines", "tab\tkey"])
def test_bad_keys_are_refused(memory: MemoryKeyring, bad: str) -> None:
    with pytest.raises(ValueError):
        keys.set_key("groq", bad)
    assert memory.items == {}


def test_unknown_provider(memory: MemoryKeyring) -> None:
    for call in (keys.get_key, keys.key_source, keys.delete_key):
        with pytest.raises(ValueError, match="unknown provider 'mistral'"):
            call("mistral")
    with pytest.raises(ValueError, match="groq, cerebras, openai"):
        keys.set_key("mistral", GROQ)


@pytest.mark.parametrize(
    ("key", "masked"),
    [
        ("gsk_abcdefghijklm_nopqrstuvwxyz1234", "gsk_…1234"),
        ("csk-abcdefghijklm_nopqrstuvwxyz9876", "csk-…9876"),
        ("sk-proj-abcdefghijklmnopqrstuvwxyzWXYZ", "sk-proj-…WXYZ"),
        ("sk-abcdefghijklmnopqrstuvwxyz0000", "sk-…0000"),
        ("opaque-local-key-778899", "…8899"),
        ("short", "…"),
    ],
)
def test_mask(key: str, masked: str) -> None:
    assert keys.mask(key) == masked


# ---- no usable keyring -------------------------------------------------------------------------


def test_no_backend_get_returns_none_without_raising(no_keyring: None) -> None:
    assert keys.keyring_available()[0] is False
    assert keys.get_key("groq") is None
    assert keys.key_source("groq") is None


def test_no_backend_set_says_so_plainly_and_writes_nothing(no_keyring: None, isolated) -> None:
    before = files_under(isolated)
    with pytest.raises(KeyringUnavailable) as caught:
        keys.set_key("groq", GROQ)
    message = str(caught.value)
    assert message.startswith("OS keyring unavailable: no Secret Service, Keychain or")
    for var in keys.ENV_VARS.values():
        assert var in message
    assert "\n" not in message and GROQ not in message
    with pytest.raises(KeyringUnavailable):
        keys.delete_key("groq")
    assert files_under(isolated) == before


def test_the_backend_named_by_the_environment_is_honoured(isolated) -> None:
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    code = "from fastdesk.config import keys; print(keys.keyring_available())"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("(False, 'no Secret Service")


def test_an_empty_chain_is_no_keyring(monkeypatch) -> None:
    empty = chainer.ChainerBackend()
    monkeypatch.setattr(chainer.ChainerBackend, "backends", [])
    keyring.set_keyring(empty)
    ok, reason = keys.keyring_available()
    assert not ok and "chain is empty" in reason
    with pytest.raises(KeyringUnavailable):  # the chainer itself would silently store nothing
        keys.set_key("groq", GROQ)


def test_a_chain_with_a_real_backend_is_used(monkeypatch) -> None:
    inner = MemoryKeyring()
    monkeypatch.setattr(chainer.ChainerBackend, "backends", [inner])
    keyring.set_keyring(chainer.ChainerBackend())
    assert keys.keyring_available()[0]
    keys.set_key("groq", GROQ)
    assert inner.items[("fastdesk", "groq")] == GROQ


def test_a_plaintext_backend_is_refused() -> None:
    plaintext = type("PlaintextKeyring", (MemoryKeyring,), {"__module__": "keyrings.alt.file"})
    backend = plaintext()
    keyring.set_keyring(backend)
    ok, reason = keys.keyring_available()
    assert not ok and "keeps keys in a file" in reason
    with pytest.raises(KeyringUnavailable):
        keys.set_key("groq", GROQ)
    assert backend.items == {}
    assert keys.get_key("groq") is None


def test_a_failing_backend_never_leaks_the_key(caplog) -> None:
    keyring.set_keyring(LockedKeyring())
    with pytest.raises(KeyringUnavailable) as caught:
        keys.set_key("groq", GROQ)
    assert "storing the key failed (KeyringLocked" in str(caught.value)
    full = "".join(traceback.format_exception(caught.value))
    assert GROQ not in full and "KEYSTEST" not in full
    assert caught.value.__cause__ is None and caught.value.__suppress_context__
    assert keys.get_key("groq") is None  # reading fails quietly: no key, a warning
    assert "could not read the groq key" in caplog.text


# ---- the command line --------------------------------------------------------------------------


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="fastdesk")
    cli_keys.register(parser.add_subparsers(dest="command", required=True))
    return parser.parse_args(argv)


def run(argv: list[str], stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    args = parse(argv)
    assert args.func is cli_keys.run_keys
    code = args.func(args, stdin=io.StringIO(stdin), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_cli_set_list_delete(memory: MemoryKeyring, monkeypatch) -> None:
    code, out, err = run(["keys", "set", "groq"], stdin=GROQ + "\n")
    assert (code, err) == (0, "")
    assert "gsk_…GHIJ" in out and GROQ not in out
    assert memory.items[("fastdesk", "groq")] == GROQ

    monkeypatch.setenv("CEREBRAS_API_KEY", CEREBRAS)
    code, out, err = run(["keys", "list"])
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split() == ["PROVIDER", "IN", "USE", "KEYRING", "ENVIRONMENT"]
    assert lines[1].split() == ["groq", "keyring", "gsk_…GHIJ", "-"]
    assert lines[2].split() == ["cerebras", "env", "-", "CEREBRAS_API_KEY=csk-…ghij"]
    assert lines[3].split() == ["openai", "-", "-", "-"]

    code, out, _ = run(["keys", "delete", "groq"])
    assert code == 0 and "deleted" in out and memory.items == {}
    code, out, _ = run(["keys", "delete", "groq"])
    assert code == 0 and "nothing to delete" in out


def test_cli_set_notes_when_the_environment_wins(memory: MemoryKeyring, monkeypatch) -> None:
    monkeypatch.setenv("GROQ_API_KEY", "gsk_OTHER_0123456789_abcdefghijk")
    code, out, _ = run(["keys", "set", "groq"], stdin=GROQ)
    assert code == 0 and "GROQ_API_KEY is set and wins" in out


@pytest.mark.parametrize("stdin", ["", "\n  \n", "gsk_a b"])
def test_cli_set_refuses_an_empty_or_malformed_key(memory: MemoryKeyring, stdin: str) -> None:
    code, out, err = run(["keys", "set", "groq"], stdin=stdin)
    assert code == 2 and out == "" and memory.items == {}
    assert len(err.splitlines()) == 1 and "nothing stored" in err


def test_cli_set_uses_getpass_on_a_terminal(memory: MemoryKeyring, monkeypatch) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

        def read(self, *_: object) -> str:
            raise AssertionError("a terminal must be read with getpass (no echo)")

    prompts: list[str] = []
    monkeypatch.setattr(
        "fastdesk.cli.keys.getpass.getpass",
        lambda prompt, stream=None: prompts.append(prompt) or f" {GROQ} ",
    )
    args = parse(["keys", "set", "groq"])
    out = io.StringIO()
    assert cli_keys.run_keys(args, stdin=Terminal(), stdout=out, stderr=io.StringIO()) == 0
    assert prompts and "groq" in prompts[0]
    assert memory.items[("fastdesk", "groq")] == GROQ


def test_cli_without_keyring_set_and_delete_exit_1_list_notes_it(
    no_keyring: None, isolated, monkeypatch
) -> None:
    before = files_under(isolated)
    for argv, stdin in ((["keys", "set", "groq"], GROQ), (["keys", "delete", "groq"], "")):
        code, out, err = run(argv, stdin=stdin)
        assert code == 1 and out == ""
        assert len(err.splitlines()) == 1
        assert "OS keyring unavailable" in err and "GROQ_API_KEY" in err and GROQ not in err
    monkeypatch.setenv("GROQ_API_KEY", GROQ)
    code, out, err = run(["keys", "list"])  # it could list: done, with a note
    assert code == 0 and "groq      env" in out and "gsk_…GHIJ" in out and GROQ not in out
    assert len(err.splitlines()) == 1 and "note: OS keyring unavailable" in err
    assert files_under(isolated) == before


@pytest.mark.parametrize(
    "argv", [["keys"], ["keys", "set"], ["keys", "set", "mistral"], ["keys", "frobnicate"]]
)
def test_cli_bad_usage_exits_2(argv: list[str], capsys) -> None:
    with pytest.raises(SystemExit) as caught:
        parse(argv)
    assert caught.value.code == 2


def test_cli_standalone_entry_without_keyring(isolated) -> None:
    env = {k: v for k, v in os.environ.items() if k not in keys.ENV_VARS.values()}
    env.update(PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring", HOME=str(isolated))
    done = subprocess.run(
        [sys.executable, "-m", "fastdesk.cli.keys", "keys", "set", "groq"],
        input=GROQ,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "OS keyring unavailable" in done.stderr
    assert GROQ not in done.stderr


# ---- a real Secret Service ---------------------------------------------------------------------


@pytest.fixture
def secret_service(monkeypatch: pytest.MonkeyPatch) -> Iterator[KeyringBackend]:
    """The real Secret Service backend, under a throwaway service name, or a clear skip."""
    from keyring.backends import SecretService

    try:
        SecretService.Keyring.priority  # noqa: B018 (raises when no Secret Service is reachable)
    except Exception as exc:
        reason = f"no Secret Service reachable ({exc}); run through scripts/with-keyring"
        if os.environ.get("FASTDESK_KEYRING_SANDBOX") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    backend = SecretService.Keyring()
    keyring.set_keyring(backend)
    # Never touch a developer's real fastdesk keys: a unique service name per test.
    service = f"fastdesk-test-{uuid.uuid4().hex[:8]}"
    monkeypatch.setattr(keys, "SERVICE", service)
    yield backend
    for provider in keys.ENV_VARS:
        with contextlib.suppress(PasswordDeleteError):
            backend.delete_password(service, provider)


@pytest.mark.keyring
def test_secret_service_round_trip(secret_service: KeyringBackend) -> None:
    ok, name = keys.keyring_available()
    assert ok and "SecretService" in name
    assert keys.get_key("groq") is None
    keys.set_key("groq", GROQ)
    keys.set_key("cerebras", CEREBRAS)
    assert secret_service.get_password(keys.SERVICE, "groq") == GROQ
    assert keys.get_key("groq") == GROQ and keys.key_source("groq") == "keyring"
    keys.set_key("groq", GROQ[::-1])  # replacing, not adding a second item
    assert keys.get_key("groq") == GROQ[::-1]
    assert keys.delete_key("groq") is True
    assert keys.get_key("groq") is None and keys.delete_key("groq") is False
    assert keys.get_key("cerebras") == CEREBRAS


@pytest.mark.keyring
def test_secret_service_cli(secret_service: KeyringBackend, monkeypatch) -> None:
    code, out, err = run(["keys", "set", "cerebras"], stdin=CEREBRAS)
    assert code == 0, err
    code, out, err = run(["keys", "list"])
    assert code == 0, err
    assert "cerebras  keyring  csk-…ghij" in out and CEREBRAS not in out
    monkeypatch.setenv("CEREBRAS_API_KEY", GROQ)
    assert keys.get_key("cerebras") == GROQ  # the environment still wins
    code, out, err = run(["keys", "delete", "cerebras"])
    assert code == 0 and "deleted" in out
    assert secret_service.get_password(keys.SERVICE, "cerebras") is None


# ---- keys that cannot be sent, and keys sent where anyone can read them ------------------------


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("gsk_abc\r\nX-Injected-Header: yes", "contains a line break"),
        ("gsk_abc\ndef", "contains a line break"),
        ("gsk_abc def", "contains spaces"),
        ("gsk_abc\x07", "contains control characters"),
        ("gsk_abcé", "contains characters that are not ASCII"),
    ],
)
def test_an_environment_key_that_cannot_be_sent_is_refused_by_name(
    monkeypatch, value: str, problem: str
) -> None:
    monkeypatch.setenv("GROQ_API_KEY", value)
    with pytest.raises(keys.InvalidKey) as caught:
        keys.env_key("groq")
    assert str(caught.value) == (
        f"the groq key in GROQ_API_KEY {problem}, so it was not used; "
        "set it again with only the key"
    )
    assert "gsk_abc" not in str(caught.value)
    assert redact.redact(value.strip()) != value.strip()  # registered: no log can show it


def test_a_pasted_trailing_newline_is_only_whitespace(monkeypatch) -> None:
    monkeypatch.setenv("GROQ_API_KEY", GROQ + "\r\n")
    assert keys.env_key("groq") == GROQ


def test_the_factory_refuses_such_a_key_instead_of_sending_it() -> None:
    from fastdesk.providers.factory import configured_providers

    env = {"GROQ_API_KEY": "gsk_abc\r\nX-Injected-Header: yes"}
    with pytest.raises(keys.InvalidKey, match="GROQ_API_KEY contains a line break"):
        configured_providers(env=env)
    assert set(configured_providers(env={"GROQ_API_KEY": GROQ})) == {"groq"}


def test_cli_list_names_a_bad_environment_key_in_one_line(
    memory: MemoryKeyring, monkeypatch
) -> None:
    monkeypatch.setenv("GROQ_API_KEY", "gsk_abc\ndef")
    code, out, err = run(["keys", "list"])
    assert code == 2 and "gsk_abc" not in out + err
    assert err.splitlines() == [
        "fastdesk keys: the groq key in GROQ_API_KEY contains a line break, so it was not used; "
        "set it again with only the key"
    ]
    code, out, err = run(["keys", "set", "groq"], stdin=GROQ)  # storing still works
    assert code == 0 and "GROQ_API_KEY is set and wins" in out


@pytest.mark.parametrize(
    "url",
    [
        None,
        "",
        "https://api.example.com/v1",
        "http://127.0.0.1:11434/v1",
        "http://localhost:8000/v1",
        "http://[::1]:8080/v1",
        "http://192.168.1.20:8000/v1",
        "http://10.0.0.7/v1",
        "http://172.16.3.4/v1",
        "http://169.254.1.1/v1",
        "http://[fe80::1]/v1",
        "http://[fd00::5]/v1",
        "http://100.64.0.9/v1",  # shared address space (carrier NAT, VPNs)
        "http://gpu-box:8000/v1",  # a single-label name: a machine on the LAN
        "http://ollama.local/v1",
        "http://server.home.arpa/v1",
    ],
)
def test_no_warning_for_https_or_this_computer_or_the_local_network(url: str | None) -> None:
    assert keys.plain_http_warning("openai", url) is None


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("http://api.example.com/v1", "api.example.com"),
        ("HTTP://API.EXAMPLE.COM/v1", "api.example.com"),
        ("http://8.8.8.8:8000/v1", "8.8.8.8"),
        ("http://[2001:4860:4860::8888]/v1", "2001:4860:4860::8888"),
        ("http://[::ffff:8.8.8.8]/v1", "::ffff:8.8.8.8"),
        ("http://user@llm.example.org/v1", "llm.example.org"),
    ],
)
def test_a_key_over_plain_http_to_a_remote_host_is_warned(url: str, host: str) -> None:
    assert keys.plain_http_warning("groq", url) == (
        f"the groq key will be sent unencrypted to {host} (plain http:// in its base URL); "
        "anyone on the network path can read it: use https://"
    )
