"""Putting the pieces together from settings and environment: the one place where the window,
the command line, ``fastdesk bench`` and the Compare dialog get their providers, a router or a
ready Engine, and the one "not configured" error (its wording: providers.factory.not_configured).

The router, its limiter, health and statistics read one clock (fastdesk.clock): the caller's (the
window passes the one its sending policy and retry of failed blocks read), else one made here.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from fastdesk.clock import Clock, SystemClock
from fastdesk.config.keys import get_key, plain_http_warning
from fastdesk.config.settings import Settings, glossary_file, providers_models, saved_settings
from fastdesk.providers.factory import configured_providers, not_configured
from fastdesk.routing.concurrency import CEILING
from fastdesk.routing.limiter import Limiter
from fastdesk.routing.pricing import PriceTable
from fastdesk.routing.retired import Retirements
from fastdesk.routing.retry import Deadlines, RetryPolicy
from fastdesk.routing.router import Router, options_from_settings
from fastdesk.routing.shared_budget import SharedBudget, default_path
from fastdesk.translate.engine import Engine
from fastdesk.translate.glossary import (
    Glossary,
    GlossaryError,
    HouseFile,
    find_folder_glossary,
    load_glossary,
)
from fastdesk.translate.memory import Memory
from fastdesk.translate.quality import Reviewer
from fastdesk.translate.style import Style, StyleError, find_style_file, load_style

if TYPE_CHECKING:
    from fastdesk.providers.base import Provider

log = logging.getLogger("fastdesk")


class NotConfigured(LookupError):
    """The requested provider has no key (or base URL); the message says how to add one."""


def glossary_for(
    settings: Settings,
    document: str | Path | None,
    root: Path | None = None,
    ignored: list[str] | None = None,
) -> Glossary | None:
    """The global glossary merged with the document folder's one (folder wins), looked for no
    higher than ``root`` (a docs project's) when given. A glossary left out is logged, and its
    one-line reason added to ``ignored`` (the window says it in the status bar)."""
    paths: list[Path | HouseFile] = [
        p
        for p in (glossary_file(settings),)
        if os.path.isfile(p)  # never raises
    ]
    if document is not None:
        folder = find_folder_glossary(Path(document), root)
        if folder is not None:  # the project's: read only inside it
            paths.append(HouseFile(folder, root))
    if not paths:
        return None
    try:
        return load_glossary(paths)
    except GlossaryError as exc:
        log.warning("glossary ignored: %s", exc)
        if ignored is not None:
            ignored.append(f"Glossary not used: {exc}")
        return None


def style_for(
    document: str | Path | None, root: Path | None = None, ignored: list[str] | None = None
) -> Style | None:
    """The house style beside the document or above it (not above ``root``, the project's
    root); None without one. A file that cannot be read is logged and left out (its reason in
    ``ignored``), like a bad glossary: the translation goes on without it."""
    if document is None:
        return None
    path = find_style_file(Path(document), root)
    if path is None:
        return None
    try:
        style = load_style(path, root)
    except StyleError as exc:
        log.warning("house style ignored: %s", exc)
        if ignored is not None:
            ignored.append(f"House style not used: {exc}")
        return None
    for warning in style.warnings:
        log.warning("%s: %s", path, warning)
    return style


def build_providers(
    settings: Settings,
    *,
    only: Collection[str] = (),
    env: Mapping[str, str] | None = None,
) -> dict[str, Provider]:
    """The configured providers, best default first (keys: the environment, then the keyring;
    models and base URLs: the settings); with ``only``, just those. NotConfigured when none is."""
    providers = _configured(settings, env)
    _require(providers, tuple(only))
    return {name: p for name, p in providers.items() if not only or name in only}


def build_router(
    settings: Settings | None = None,
    *,
    provider: str = "auto",
    env: Mapping[str, str] | None = None,
    clock: Clock | None = None,
) -> Router:
    """A router over the configured providers; NotConfigured when `provider` is not among them."""
    settings = settings or saved_settings()
    clock = clock or SystemClock()
    providers = _configured(settings, env)
    if provider != "auto":
        _require(providers, (provider,))
    _require(providers, ())
    options = options_from_settings(settings)
    pricing = PriceTable(settings.price_overrides)
    retry = RetryPolicy.from_settings(settings.requests)
    # the published free tiers, the settings on top, what the servers stated on earlier runs,
    # and every other window or command on the same key counted (one budget per key)
    accounts = {name: str(getattr(p, "account", "")) for name, p in providers.items()}
    shared = SharedBudget(default_path(), wall=clock.wall)
    limiter = Limiter(settings.rate_limits, clock=clock, shared=shared, accounts=accounts)
    retirements = Retirements(shared, defaults=lambda name: providers[name].default_model)
    deadlines = Deadlines.from_settings(settings.requests)
    return Router(
        providers,
        pricing=pricing,
        retry=retry,
        limiter=limiter,
        deadlines=deadlines,
        clock=clock,
        retirements=retirements,
        # a document is paced, never failed, while the rate is the only obstacle
        patient=bool(settings.requests.get("wait_for_rate", 1)),
        **options,
    )


def _configured(settings: Settings, env: Mapping[str, str] | None) -> dict[str, Provider]:
    return configured_providers(
        env=env,
        keys=get_key,
        models=providers_models(settings),
        base_urls=settings.base_urls,
        read_timeout=Deadlines.from_settings(settings.requests).read_timeout,
    )


def _require(providers: Mapping[str, Provider], names: Sequence[str]) -> None:
    """NotConfigured unless one of ``names`` (none: any provider) is among ``providers``."""

    if not any(name in providers for name in names or providers):
        raise NotConfigured(not_configured(names))


def build_engine(
    settings: Settings | None = None,
    *,
    provider: str = "auto",
    use_memory: bool = True,
    concurrency: int | None = None,
    env: Mapping[str, str] | None = None,
    clock: Clock | None = None,
    patient_review: bool = False,
    backfill: bool = False,
) -> Engine:
    """The engine of the window and the command line. Its requests in flight follow the
    account (routing/concurrency.py) under a cap: ``concurrency`` (``--concurrency N``; the
    window passes its own, fastdesk.ui.bridge.translators), else the settings' ``concurrency``,
    else ``CEILING`` (32). ``patient_review``: reviews
    wait for the rate limit (the command line's ``--review``) rather than give way (the
    window's: translations first). ``backfill``: nobody waits for a block (the command line):
    larger packs (Engine.packs)."""
    settings = settings or saved_settings()
    router = build_router(settings, provider=provider, env=env, clock=clock)
    memory = Memory() if use_memory else None
    reviewer = Reviewer(router, memory, model=settings.review_model, patient=patient_review)
    return Engine(
        router,
        memory,
        concurrency=concurrency or settings.concurrency or CEILING,
        reviewer=reviewer,
        backfill=backfill,
        adaptive=True,
    )


def plain_http_warnings(providers: Collection[str], settings: Settings | None = None) -> list[str]:
    """One line per provider whose key would travel unencrypted to a host outside this computer
    and its network (plain ``http://`` base URL): said once when an engine starts, by the
    command line and by the window."""

    settings = settings or saved_settings()
    warnings = []
    for name in providers:
        warning = plain_http_warning(name, settings.base_url_for(name))
        if warning is not None and get_key(name):
            warnings.append(warning)
    return warnings
