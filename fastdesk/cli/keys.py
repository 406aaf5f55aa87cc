"""``fastdesk keys set|list|delete``: manage API keys in the OS keyring from the command line.

The key is read from standard input (with ``getpass`` when it is a terminal, so it is never echoed)
and never printed back unmasked. Exit status: 0 done, 2 bad usage (empty or malformed key), 1 the
OS keyring failed (one line on standard error saying why and pointing to the environment variables).
``list`` without a keyring still lists the environment's keys and exits 0 with that line as a note.
"""

from __future__ import annotations

import argparse
import getpass
import logging
import os
import sys
from collections.abc import Callable
from typing import TextIO

from fastdesk.config import keys
from fastdesk.config.logs import setup_logging
from fastdesk.config.redact import mask, redact
from fastdesk.config.settings import PROVIDER_NAMES

__all__ = ["main", "register", "run_keys"]

log = logging.getLogger(__name__)

EXIT_OK, EXIT_KEYRING, EXIT_USAGE = 0, 1, 2
_PROVIDERS = " | ".join(PROVIDER_NAMES)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``keys`` command (``func=run_keys``) to the main parser's subcommands."""
    parser = sub.add_parser(
        "keys",
        help="store, list or delete API keys in the OS keyring",
        description="Manage API keys in the OS keyring. Environment variables "
        f"({', '.join(keys.ENV_VARS.values())}) win over stored keys.",
    )
    actions = parser.add_subparsers(dest="keys_action", metavar="ACTION", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "-v", "--verbose", action="count", default=0, help="log more (-vv: debug) to standard error"
    )
    store = actions.add_parser(
        "set", parents=[common], help="read a key from standard input (never echoed) and store it"
    )
    store.add_argument("provider", metavar="PROVIDER", choices=PROVIDER_NAMES, help=_PROVIDERS)
    actions.add_parser(
        "list", parents=[common], help="providers with a key, masked, and which source is used"
    )
    remove = actions.add_parser("delete", parents=[common], help="remove a stored key")
    remove.add_argument("provider", metavar="PROVIDER", choices=PROVIDER_NAMES, help=_PROVIDERS)
    parser.set_defaults(func=run_keys)


def run_keys(
    args: argparse.Namespace,
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run one ``keys`` action; returns the exit status.

    Sets up logging from ``args.verbose`` when the parser gave one (the command line does).
    """
    verbose = getattr(args, "verbose", None)
    if verbose is not None:
        setup_logging(verbose, to_file=True)
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    action = args.keys_action
    try:
        if action == "set":
            return _set(args.provider, stdin, stdout, stderr)
        if action == "list":
            return _list(stdout, stderr)
        if action == "delete":
            return _delete(args.provider, stdout)
    except keys.KeyringUnavailable as exc:
        _say(stderr, str(exc))
        return EXIT_KEYRING
    except keys.InvalidKey as exc:  # an environment variable holding a newline, say
        _say(stderr, str(exc))
        return EXIT_USAGE
    _say(stderr, f"unknown keys action {action!r}")
    return EXIT_USAGE


def _say(stream: TextIO, message: str) -> None:
    """One redacted line on ``stream``."""
    print(f"fastdesk keys: {redact(message)}", file=stream)


def _read_key(provider: str, stdin: TextIO) -> str:
    try:
        if stdin.isatty():
            return getpass.getpass(f"{provider} API key (not shown): ", stream=sys.stderr)
        return stdin.read()
    except EOFError:
        return ""


def _set(provider: str, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    raw = _read_key(provider, stdin)
    try:
        key = keys.normalise_key(raw)
    except ValueError as exc:
        _say(stderr, f"{provider}: {exc}; nothing stored")
        return EXIT_USAGE
    keys.set_key(provider, key)
    print(f"{provider}: key {mask(key)} stored in the OS keyring", file=stdout)
    if _env_set(provider):
        var = keys.ENV_VARS[provider]
        print(f"{provider}: note: {var} is set and wins over the stored key", file=stdout)
    return EXIT_OK


def _list(stdout: TextIO, stderr: TextIO) -> int:
    available, reason = keys.keyring_available()
    rows = [("PROVIDER", "IN USE", "KEYRING", "ENVIRONMENT")]
    for provider in PROVIDER_NAMES:
        env = keys.env_key(provider)
        stored = keys.stored_key(provider) if available else None
        in_use = "env" if env else "keyring" if stored else "-"
        rows.append(
            (
                provider,
                in_use,
                mask(stored) if stored else "-",
                f"{keys.ENV_VARS[provider]}={mask(env)}" if env else "-",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        print(redact("  ".join([*cells, row[-1]]).rstrip()), file=stdout)
    log.debug("keyring backend: %s", reason)
    if not available:  # listing worked (the environment is all there is): a note, not a failure
        _say(stderr, f"note: {keys.unavailable_error(reason)}")
    return EXIT_OK


def _delete(provider: str, stdout: TextIO) -> int:
    if keys.delete_key(provider):
        print(f"{provider}: stored key deleted", file=stdout)
    else:
        print(f"{provider}: no stored key (nothing to delete)", file=stdout)
    if _env_set(provider):
        print(f"{provider}: note: {keys.ENV_VARS[provider]} is still set", file=stdout)
    return EXIT_OK


def _env_set(provider: str) -> bool:
    """Whether the provider's variable is set (a note only: its value is not checked here)."""
    return bool(os.environ.get(keys.ENV_VARS[provider], "").strip())


def main(argv: list[str] | None = None) -> int:
    """``python -m fastdesk.cli.keys keys ACTION …``: the same command without fastdesk.cli.main."""
    parser = argparse.ArgumentParser(prog="fastdesk")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] = args.func
    return func(args)


if __name__ == "__main__":
    sys.exit(main())
