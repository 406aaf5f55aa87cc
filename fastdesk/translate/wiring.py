"""Putting the pieces together from settings and environment: one place for the window,
the command line and the benchmarks to get a ready Engine."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from pathlib import Path

from fastdesk.config.settings import Settings, glossary_file, load_settings
from fastdesk.routing.pricing import PriceTable
from fastdesk.routing.router import Router, options_from_settings
from fastdesk.translate.engine import Engine
from fastdesk.translate.glossary import Glossary, GlossaryError, find_folder_glossary, load_glossary
from fastdesk.translate.memory import Memory

log = logging.getLogger("fastdesk")


class NotConfigured(Exception):
    """The requested provider has no key (or base URL); the message says how to add one."""


HOW_TO_CONFIGURE = {
    "groq": "set GROQ_API_KEY or run `fastdesk keys set groq`",
    "cerebras": "set CEREBRAS_API_KEY or run `fastdesk keys set cerebras`",
    "openai": "set FASTDESK_OPENAI_BASE_URL (e.g. http://127.0.0.1:11434/v1 for Ollama)",
}


def load_user_settings() -> Settings:
    """The user's settings; what was wrong with the file goes to the log as warnings (by
    load_settings itself: logging them again here printed each one twice)."""
    return load_settings()[0]


def glossary_for(settings: Settings, document: str | Path | None) -> Glossary | None:
    """The global glossary merged with the document folder's one (folder wins)."""
    paths = [p for p in (glossary_file(settings),) if os.path.isfile(p)]  # never raises
    if document is not None:
        folder = find_folder_glossary(Path(document))
        if folder is not None:
            paths.append(folder)
    if not paths:
        return None
    try:
        return load_glossary(paths)
    except GlossaryError as exc:
        log.warning("glossary ignored: %s", exc)
        return None


def build_router(
    settings: Settings | None = None,
    *,
    provider: str = "auto",
    env: Mapping[str, str] | None = None,
) -> Router:
    """A router over the configured providers; NotConfigured when `provider` is not among them."""
    from fastdesk.config.keys import get_key
    from fastdesk.config.settings import providers_models
    from fastdesk.providers.factory import configured_providers

    settings = settings or load_settings()[0]
    providers = configured_providers(
        env=env, keys=get_key, models=providers_models(settings), base_urls=settings.base_urls
    )
    if provider != "auto" and provider not in providers:
        raise NotConfigured(f"{provider} is not configured: {HOW_TO_CONFIGURE[provider]}")
    if not providers:
        raise NotConfigured(
            "no provider is configured: "
            + "; or ".join(HOW_TO_CONFIGURE[name] for name in ("groq", "cerebras", "openai"))
        )
    return Router(
        providers, pricing=PriceTable(settings.price_overrides), **options_from_settings(settings)
    )


def build_engine(
    settings: Settings | None = None,
    *,
    provider: str = "auto",
    use_memory: bool = True,
    concurrency: int | None = None,
    env: Mapping[str, str] | None = None,
) -> Engine:
    settings = settings or load_settings()[0]
    router = build_router(settings, provider=provider, env=env)
    memory = Memory() if use_memory else None
    return Engine(router, memory, concurrency=concurrency or settings.concurrency)
