"""Finding a model server on this computer (Ollama), so a first run can work without any key.

Detection is one short loopback request (0.3 s timeout, no proxy: ``trust_env=False``) made in
an asyncio loop off the GUI thread. Ollama answers ``GET /api/tags`` with its pulled models; any
OpenAI-compatible server answers ``GET /v1/models``; either is enough.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import httpx

from fastdesk.config.settings import Settings, save_settings, saved_settings

__all__ = [
    "OLLAMA_BASE",
    "detect_ollama",
    "openai_base_url",
    "use_local_server",
]

OLLAMA_BASE = "http://127.0.0.1:11434"


def openai_base_url(base: str = OLLAMA_BASE) -> str:
    """The OpenAI-compatible base URL of a server at ``base`` (``…/v1``, as settings keep it)."""
    base = base.rstrip("/")
    return base if base.endswith("/v1") else f"{base}/v1"


def _names(payload: object, list_key: str, name_keys: tuple[str, ...]) -> list[str] | None:
    """Model names from ``payload[list_key]`` (None when the payload is not that shape)."""
    if not isinstance(payload, Mapping) or not isinstance(payload.get(list_key), list):
        return None
    names: list[str] = []
    for item in payload[list_key]:
        if not isinstance(item, Mapping):
            continue
        name = next((item[k] for k in name_keys if isinstance(item.get(k), str)), None)
        if name and name not in names:
            names.append(name)
    return names


async def _get_json(client: httpx.AsyncClient, url: str) -> object:
    try:
        response = await client.get(url)
        if response.status_code != 200:
            return None
        return response.json()
    except (httpx.HTTPError, ValueError):
        return None


async def detect_ollama(base: str = OLLAMA_BASE, timeout: float = 0.3) -> list[str] | None:
    """The models a local Ollama (or OpenAI-compatible server) at ``base`` serves, or None.

    ``[]`` means a server answered but has no model pulled yet. Never raises for a server that is
    absent, slow, or something else on that port.
    """
    base = base.rstrip("/").removesuffix("/v1")
    async with httpx.AsyncClient(timeout=httpx.Timeout(timeout), trust_env=False) as client:
        names = _names(await _get_json(client, f"{base}/api/tags"), "models", ("name", "model"))
        if names is not None:
            return names
        return _names(await _get_json(client, f"{base}/v1/models"), "data", ("id",))


def use_local_server(base_url: str, model: str, settings: Settings | None = None) -> Settings:
    """Remember an OpenAI-compatible server and its model in the settings file; returns them.

    Read-modify-write over the file as it is now (``settings`` when given), so what the window
    or the dialog saved meanwhile is kept. The URL is stored as ``…/v1``.
    """
    current = settings if settings is not None else saved_settings()
    updated = dataclasses.replace(
        current,
        base_urls={**current.base_urls, "openai": openai_base_url(base_url)},
        models={**current.models, "openai": model} if model else current.models,
    )
    save_settings(updated)
    return updated
