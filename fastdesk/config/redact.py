"""Keep API keys out of every text fastdesk writes: logs, reports, exception messages, files.

Two nets, because either alone has holes:

- the secrets actually in use, replaced wherever they appear, whatever their shape: a
  process-wide registry (:func:`register_secret`; ``keys.get_key`` registers every key it hands
  out), and the ones a caller holds and names (a provider its own key: ``redact(text, secrets)``);
- patterns for key-shaped strings (``gsk_…`` Groq, ``csk-…`` Cerebras, ``sk-…`` OpenAI style,
  ``Bearer …`` headers), so a key that never went through the registry is masked too.

The providers build their error messages with it too: one set of rules for every text.

A masked key keeps its well-known prefix and its last four characters (``gsk_…abcd``): enough to
tell two keys apart, not enough to use one.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Iterable

__all__ = [
    "account_id",
    "clear_secrets",
    "contains_secret",
    "exception_text",
    "mask",
    "printable",
    "redact",
    "register_secret",
]

MIN_SECRET_LENGTH = 8  # shorter strings would redact ordinary words; real keys are far longer
MIN_NAMED_SECRET_LENGTH = 4  # a secret the caller names is one, however short
_KNOWN_PREFIXES = ("sk-proj-", "gsk_", "csk-", "sk-")

# A key-shaped token: a known prefix at a token start, then 8+ key characters (mixing letters and
# digits, see _looks_random): also a key cut short in a server's message.
_KEY_SHAPE = re.compile(r"(?<![A-Za-z0-9_-])(?:gsk_|csk-|sk-)[A-Za-z0-9_-]{8,}")
_BEARER = re.compile(r"(?i)(\bbearer\s+)([A-Za-z0-9._~+/-]{8,}=*)")

_lock = threading.Lock()
_secrets: set[str] = set()
_registry_re: re.Pattern[str] | None = None


def mask(key: str) -> str:
    """``gsk_…abcd``: the key's known prefix, an ellipsis, its last four characters.

    Keys shorter than 12 characters show nothing but the ellipsis (four characters of a short key
    would be too much of it).
    """
    key = key.strip()
    if len(key) < 12:
        return "…"
    prefix = next((p for p in _KNOWN_PREFIXES if key.startswith(p)), "")
    return f"{prefix}…{key[-4:]}"


def register_secret(secret: str | None) -> None:
    """Remember ``secret`` so that :func:`redact` hides it from now on (short ones are ignored)."""
    global _registry_re
    if not secret:
        return
    secret = secret.strip()
    if len(secret) < MIN_SECRET_LENGTH:
        return
    with _lock:
        if secret in _secrets:
            return
        _secrets.add(secret)
        ordered = sorted(_secrets, key=len, reverse=True)  # longest first: no partial overlaps
        _registry_re = re.compile("|".join(re.escape(s) for s in ordered))


def clear_secrets() -> None:
    """Forget every registered secret (tests)."""
    global _registry_re
    with _lock:
        _secrets.clear()
        _registry_re = None


def _looks_random(body: str) -> bool:
    """Real keys mix letters and digits; ``sk-learn-tutorial-notes`` does not."""
    return any(c.isdigit() for c in body) and any(c.isalpha() for c in body)


def _mask_shape(match: re.Match[str]) -> str:
    token = match.group(0)
    body = token.split("_", 1)[1] if token.startswith("gsk_") else token.split("-", 1)[1]
    return mask(token) if _looks_random(body) else token


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """``text`` with every registered secret, each of ``secrets`` (from 4 characters) and every
    key-shaped token masked."""
    if not text:
        return text
    named = {s.strip() for s in secrets if s and len(s.strip()) >= MIN_NAMED_SECRET_LENGTH}
    for secret in sorted(named, key=len, reverse=True):  # longest first: no partial overlaps
        text = text.replace(secret, mask(secret))
    pattern = _registry_re
    if pattern is not None:
        text = pattern.sub(lambda m: mask(m.group(0)), text)
    text = _KEY_SHAPE.sub(_mask_shape, text)
    return _BEARER.sub(lambda m: m.group(1) + mask(m.group(2)), text)


def exception_text(exc: BaseException) -> str:
    """``TypeName: message`` with every secret masked: an error nobody worded for a reader
    (a library's, a bug), safe to log or show."""
    return f"{type(exc).__name__}: {redact(str(exc))}"


def contains_secret(text: str) -> bool:
    """Whether :func:`redact` would change ``text`` (a registered secret or a key-shaped token)."""
    return redact(text) != text


def account_id(secret: str | None) -> str:
    """A short name for the account behind ``secret`` (an API key): a salted hash, so files can
    say which entries share a key (one rate-limit budget) without holding anything usable."""
    if not secret:
        return ""
    return hashlib.sha256(b"fastdesk-account\0" + secret.encode()).hexdigest()[:16]


def printable(text: str, limit: int = 200) -> str:
    """``text`` on one line for a terminal, at most ``limit`` characters: control and other
    unprintable characters (an escape sequence, a line break, a right-to-left override) shown
    as their escapes (``\\x1b``), so a file someone else wrote cannot move the cursor, clear
    the screen or forge a line of ours."""
    shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text[:limit])
    return shown + ("…" if len(text) > limit else "")
