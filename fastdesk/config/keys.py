"""API keys: from the environment, else from the OS keyring (service "fastdesk", user = provider).

Environment variables win, so scripts and CI never depend on a keyring. Keys are stored only in
a real OS keyring (Secret Service, macOS Keychain, Windows Credential Manager): with none, storing
fails with :class:`KeyringUnavailable`, which says so and points to the environment variables.
There is deliberately no plaintext fallback, and plaintext backends (``keyrings.alt``) are refused.

Every key this module hands out is registered with :mod:`fastdesk.config.redact`, and no error
message
built here contains a key: backend errors are re-raised ``from None`` with their text redacted.

``keyring`` is imported where it is first used, not with this module: its backends are slow to
load, and the window and the commands that need no stored key start without them.
"""

from __future__ import annotations

import ipaddress
import logging
import os
from typing import TYPE_CHECKING, Literal
from urllib.parse import urlsplit

from fastdesk.config.redact import exception_text, mask, redact, register_secret
from fastdesk.config.settings import PROVIDER_NAMES

if TYPE_CHECKING:
    from keyring.backend import KeyringBackend

__all__ = [
    "ENV_VARS",
    "SERVICE",
    "InvalidKey",
    "KeyringUnavailable",
    "KeysError",
    "checked_key",
    "delete_key",
    "env_key",
    "get_key",
    "key_problem",
    "key_source",
    "keyring_available",
    "mask",
    "normalise_key",
    "plain_http_warning",
    "set_key",
    "stored_key",
    "unavailable_error",
]

log = logging.getLogger(__name__)

SERVICE = "fastdesk"
ENV_VARS: dict[str, str] = {
    "groq": "GROQ_API_KEY",
    "cerebras": "CEREBRAS_API_KEY",
    "openai": "FASTDESK_OPENAI_API_KEY",
}
# Backends that would keep keys in a plain (or weakly protected, terminal-prompting) file.
_REFUSED_MODULE_PREFIXES = ("keyrings.alt", "keyring.backends.null", "keyring.backends.fail")

KeySource = Literal["env", "keyring"]


class KeysError(Exception):
    """Base of this module's errors; ``str()`` is one plain sentence without any key."""


class KeyringUnavailable(KeysError):
    """No usable OS keyring (none installed, locked, refused): keys can only come from env vars."""


class InvalidKey(KeysError, ValueError):
    """A key that cannot be sent: a line break, a space, a control or non-ASCII character.

    A CR or LF in a header value would end the header there, and the rest of the "key" would
    reach the server as headers of its own; such a key is refused where it is read, by name of
    its provider and variable, never echoed.
    """


def key_problem(key: str) -> str | None:
    """What makes a (stripped) key unsendable as an HTTP header value, or None."""
    if "\r" in key or "\n" in key:
        return "contains a line break"
    if any(c.isspace() for c in key):
        return "contains spaces"
    if not key.isprintable():
        return "contains control characters"
    if not key.isascii():
        return "contains characters that are not ASCII"
    return None


def checked_key(provider: str, value: str | None, where: str) -> str | None:
    """``value`` stripped (None when blank), registered for redaction; :class:`InvalidKey` when
    it could not be sent. ``where`` names its source in the message (``GROQ_API_KEY``)."""
    key = (value or "").strip()
    if not key:
        return None
    register_secret(key)  # even a refused key must never appear in a log
    problem = key_problem(key)
    if problem is not None:
        raise InvalidKey(
            f"the {provider} key in {where} {problem}, so it was not used; "
            "set it again with only the key"
        )
    return key


def _check_provider(provider: str) -> str:
    if provider not in ENV_VARS:
        raise ValueError(
            f"unknown provider {provider!r} (choose one of: {', '.join(PROVIDER_NAMES)})"
        )
    return provider


def _env_hint() -> str:
    names = ", ".join(ENV_VARS[p] for p in PROVIDER_NAMES)
    return f"set the key in an environment variable instead ({names})"


def _backend() -> KeyringBackend:
    import keyring

    return keyring.get_keyring()


def _backend_name(backend: object) -> str:
    cls = type(backend)
    return f"{cls.__module__}.{cls.__qualname__}"


def keyring_available() -> tuple[bool, str]:
    """``(True, backend name)`` when keys can be stored, else ``(False, why not)``.

    It does not contact the keyring (that may prompt or block); a locked or broken keyring shows
    up later as :class:`KeyringUnavailable` from :func:`set_key`/:func:`delete_key`.
    """
    try:
        backend = _backend()
    except Exception as exc:  # a broken keyring config file or backend import
        return (
            False,
            f"the keyring library failed to start: {redact(str(exc)) or type(exc).__name__}",
        )
    name = _backend_name(backend)
    from keyring.backends import chainer

    if isinstance(backend, chainer.ChainerBackend):
        chained = [b for b in backend.backends if not _refused(b)]
        if not chained:
            return False, "no keyring backend was found (the keyring chain is empty)"
        return True, name + " (" + ", ".join(_backend_name(b) for b in chained) + ")"
    if _refused(backend):
        if name.startswith("keyrings.alt"):
            return (
                False,
                f"the configured keyring ({name}) keeps keys in a file; fastdesk refuses it",
            )
        return False, "no Secret Service, Keychain or Credential Manager was found"
    return True, name


def _refused(backend: object) -> bool:
    return _backend_name(backend).startswith(_REFUSED_MODULE_PREFIXES)


def unavailable_error(reason: str) -> KeyringUnavailable:
    """The error for "no usable keyring", naming the environment variables to use instead."""
    return KeyringUnavailable(f"OS keyring unavailable: {reason}; {_env_hint()}")


def _require_keyring() -> KeyringBackend:
    ok, reason = keyring_available()
    if not ok:
        raise unavailable_error(reason)
    return _backend()


def _backend_failure(action: str, exc: BaseException) -> KeyringUnavailable:
    detail = redact(str(exc)).strip() or type(exc).__name__
    return unavailable_error(f"{action} failed ({type(exc).__name__}: {detail})")


def env_key(provider: str) -> str | None:
    """The key from the provider's environment variable, if set and not blank (InvalidKey when
    it holds what a key cannot, such as the newline of a paste)."""
    var = ENV_VARS[_check_provider(provider)]
    return checked_key(provider, os.environ.get(var), var)


def stored_key(provider: str) -> str | None:
    """The key stored in the OS keyring, or None (also when there is no usable keyring)."""
    _check_provider(provider)
    ok, reason = keyring_available()
    if not ok:
        log.debug("no keyring lookup for %s: %s", provider, reason)
        return None
    try:
        value = _backend().get_password(SERVICE, provider)
    except Exception as exc:  # locked, D-Bus gone, backend bug: the caller just has no key
        reason = exception_text(exc)
        log.warning("could not read the %s key from the OS keyring: %s", provider, reason)
        return None
    try:
        return checked_key(provider, value, "the OS keyring")
    except InvalidKey as exc:  # stored by another tool: `keys set` refuses such keys
        log.warning("%s (`fastdesk keys set %s`)", exc, provider)
        return None


def get_key(provider: str) -> str | None:
    """The key to use for ``provider``: its environment variable, else the OS keyring, else None.

    Never raises for a missing or broken keyring. The key is registered for redaction.
    """
    return env_key(provider) or stored_key(provider)


def key_source(provider: str) -> KeySource | None:
    """Where :func:`get_key` would take the key from: ``"env"``, ``"keyring"`` or None."""
    if env_key(provider):
        return "env"
    return "keyring" if stored_key(provider) else None


def normalise_key(key: str) -> str:
    """Strip surrounding whitespace; refuse an empty key or one with inner spaces or line breaks."""
    key = key.strip()
    if not key:
        raise ValueError("the key is empty")
    problem = key_problem(key)
    if problem is not None:
        raise InvalidKey(f"the key {problem} (paste only the key)")
    return key


def set_key(provider: str, key: str) -> None:
    """Store ``key`` for ``provider`` in the OS keyring (replacing any previous one).

    Raises ValueError for a bad provider or key, :class:`KeyringUnavailable` when it cannot be
    stored. Nothing is ever written anywhere else.
    """
    _check_provider(provider)
    key = normalise_key(key)
    register_secret(key)  # before anything can fail, so even a backend's message is redacted
    backend = _require_keyring()
    try:
        backend.set_password(SERVICE, provider, key)
    except Exception as exc:
        raise _backend_failure("storing the key", exc) from None
    log.info("stored the %s key in the OS keyring (%s)", provider, mask(key))


def delete_key(provider: str) -> bool:
    """Remove the stored key for ``provider``; False when there was none."""
    _check_provider(provider)
    backend = _require_keyring()
    from keyring.errors import PasswordDeleteError

    try:
        if backend.get_password(SERVICE, provider) is None:
            return False
        backend.delete_password(SERVICE, provider)
    except PasswordDeleteError:
        return False
    except Exception as exc:
        raise _backend_failure("deleting the key", exc) from None
    log.info("deleted the %s key from the OS keyring", provider)
    return True


# ---- where a key goes ------------------------------------------------------------------------

_LOCAL_SUFFIXES = (".localhost", ".local", ".lan", ".home.arpa", ".internal")


def _local_host(host: str) -> bool:
    """This computer or the local network: loopback, private, link-local or shared addresses,
    ``localhost``, mDNS and home names, and single-label names (a machine on the LAN)."""
    host = host.lower().rstrip(".")
    if not host:
        return False
    if host == "localhost" or host.endswith(_LOCAL_SUFFIXES):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return "." not in host and ":" not in host
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return not address.is_global


def plain_http_warning(provider: str, base_url: str | None) -> str | None:
    """One sentence when ``provider``'s key would travel unencrypted (plain ``http://``) to a
    host outside this computer and its local network, else None.

    Call it only for a provider that has a key, once per run (the command line) or per engine
    start (the window): a local model server over http is normal, a remote one over http lets
    anyone on the way read the key.
    """
    if not base_url:
        return None
    try:
        parts = urlsplit(base_url.strip())
        host = parts.hostname or ""
    except ValueError:
        return None
    if parts.scheme.lower() != "http" or _local_host(host):
        return None
    return (
        f"the {provider} key will be sent unencrypted to {host} (plain http:// in its base URL); "
        "anyone on the network path can read it: use https://"
    )
