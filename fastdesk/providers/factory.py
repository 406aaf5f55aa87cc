"""Build the configured providers from the environment, stored keys and chosen models, and say
in one wording how to configure a provider that is not.

A provider is configured when it has a key (the OpenAI-compatible one: a base URL);
``GROQ_API_KEY`` / ``CEREBRAS_API_KEY`` win over keys stored in the keyring. The returned dict
is in default preference order: Cerebras (fastest), Groq, then the OpenAI-compatible server.
The adapters (and their SDKs) are imported when providers are built, not with this module.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from fastdesk.config.keys import checked_key
from fastdesk.config.settings import PROVIDER_NAMES
from fastdesk.providers.base import Provider

if TYPE_CHECKING:
    from fastdesk.providers.sdk import SdkProvider

KEY_ENV = {
    "groq": "GROQ_API_KEY",
    "cerebras": "CEREBRAS_API_KEY",
    "openai": "FASTDESK_OPENAI_API_KEY",
}
BASE_URL_ENV = {
    "groq": "GROQ_BASE_URL",
    "cerebras": "CEREBRAS_BASE_URL",
    "openai": "FASTDESK_OPENAI_BASE_URL",
}
ORDER = ("cerebras", "groq", "openai")
HOW_TO_CONFIGURE = {
    "groq": f"set {KEY_ENV['groq']} or run `fastdesk keys set groq`",
    "cerebras": f"set {KEY_ENV['cerebras']} or run `fastdesk keys set cerebras`",
    "openai": f"set {BASE_URL_ENV['openai']} (e.g. http://127.0.0.1:11434/v1 for Ollama)",
}

log = logging.getLogger(__name__)


def not_configured(names: Sequence[str] = ()) -> str:
    """The one sentence for "not configured": which provider (none named: any of them) and how
    to configure each, e.g. "groq is not configured: set GROQ_API_KEY or run `fastdesk keys set
    groq`"."""
    names = tuple(dict.fromkeys(names))
    if len(names) == 1:
        return f"{names[0]} is not configured: {HOW_TO_CONFIGURE[names[0]]}"
    who = f"none of {', '.join(names)}" if names else "no provider"
    hints = "; or ".join(HOW_TO_CONFIGURE[name] for name in names or PROVIDER_NAMES)
    return f"{who} is configured: {hints}"


def _clean(value: str | None) -> str | None:
    value = (value or "").strip()
    return value or None


def configured_providers(
    env: Mapping[str, str] | None = None,
    keys: Callable[[str], str | None] | None = None,
    models: Mapping[str, str] | None = None,
    base_urls: Mapping[str, str] | None = None,
    read_timeout: float | None = None,
) -> dict[str, Provider]:
    """``{name: provider}`` for every configured provider, best default first.

    ``keys(name)`` looks a stored key up (the keyring); ``models`` gives each provider's default
    model (empty or missing: the adapter's own default); ``base_urls`` are the settings' base
    URLs, which the environment overrides. A failing ``keys`` lookup counts as "no key".
    ``read_timeout``: the HTTP read timeout (None: the adapters' own), past the router's
    deadlines so that those fire first.
    """
    # The adapters import their SDKs, which are slow to import: they load here, when providers
    # are built, so that importing this module (the window, every command) stays quick.
    from fastdesk.providers import cerebras as cerebras_mod
    from fastdesk.providers import groq as groq_mod
    from fastdesk.providers.http_client import DEFAULT_READ_TIMEOUT
    from fastdesk.providers.openai_compat import OpenAICompatProvider

    env = os.environ if env is None else env
    models = models or {}
    base_urls = base_urls or {}

    def key(name: str) -> str | None:
        found = checked_key(name, env.get(KEY_ENV[name]), KEY_ENV[name])  # CR/LF: InvalidKey
        if found is None and keys is not None:
            try:
                found = _clean(keys(name))
            except Exception as exc:  # a broken keyring must not stop the app
                log.warning("no stored key for %s: %s", name, type(exc).__name__)
                found = None
        return found

    def base_url(name: str) -> str | None:
        return _clean(env.get(BASE_URL_ENV[name])) or _clean(base_urls.get(name))

    timeout = read_timeout if read_timeout is not None else DEFAULT_READ_TIMEOUT
    built: dict[str, Provider] = {}
    for name in ORDER:
        if name == "openai":
            url = base_url("openai")
            if url is None:
                continue
            model = _clean(env.get("FASTDESK_OPENAI_MODEL")) or _clean(models.get("openai"))
            built[name] = OpenAICompatProvider(
                url, api_key=key("openai"), default_model=model or "", timeout=timeout
            )
            continue
        api_key = key(name)
        if api_key is None:
            continue
        if name == "cerebras":
            model = _clean(models.get(name)) or cerebras_mod.DEFAULT_MODEL
            built[name] = cerebras_mod.CerebrasProvider(
                api_key, base_url=base_url(name), default_model=model, timeout=timeout
            )
        else:
            model = _clean(models.get(name)) or groq_mod.DEFAULT_MODEL
            built[name] = groq_mod.GroqProvider(
                api_key, base_url=base_url(name), default_model=model, timeout=timeout
            )
    return built


def make_provider(
    name: str,
    *,
    api_key: str | None,
    base_url: str | None = None,
    timeout: float = 10.0,
) -> Provider:
    """A provider built for one check (no retries, short timeouts); the caller closes it.

    ValueError when the provider cannot be built (no key for Groq/Cerebras, no URL for the
    OpenAI-compatible server).
    """
    if name == "openai":
        if not base_url:
            raise ValueError("enter the server's base URL (e.g. http://127.0.0.1:11434/v1)")
        # imported here, as in configured_providers: the SDKs load when a provider is built
        from fastdesk.providers.openai_compat import OpenAICompatProvider

        return OpenAICompatProvider(
            base_url, api_key=api_key or None, timeout=timeout, connect_timeout=min(5.0, timeout)
        )
    if not api_key:
        raise ValueError(f"enter a {name} key first")
    sdk_provider: type[SdkProvider]
    if name == "groq":
        from fastdesk.providers.groq import GroqProvider as sdk_provider
    elif name == "cerebras":
        from fastdesk.providers.cerebras import CerebrasProvider as sdk_provider
    else:
        raise ValueError(f"unknown provider {name!r}")
    return sdk_provider(
        api_key,
        base_url=base_url or None,
        timeout=timeout,
        connect_timeout=min(5.0, timeout),
        max_retries=0,
    )
