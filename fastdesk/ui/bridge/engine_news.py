"""What the engine worker's deliveries say of its engine's router: its providers once it is built,
its health report when it changed, the notices it starts with (a key going over plain http, a
model replaced), when a failed block's provider may be asked again; and the top choice's room at
the limiter (``headroom``), which each delivery carries to the GUI thread's sending policy.

Loop thread only."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fastdesk.routing.health import HealthEntry
    from fastdesk.routing.limiter import Headroom
    from fastdesk.routing.router import Router
    from fastdesk.translate.job import JobSpec

log = logging.getLogger("fastdesk.ui")


class EngineNews:
    """``changed``: the router's health changed, for the next delivery to say (called in the loop
    thread, by the router)."""

    def __init__(self, changed: Callable[[], None]) -> None:
        self._changed = changed
        self._providers: tuple[str, ...] | None = None  # to tell; None: told already
        self._health_changed = False

    def not_started(self) -> None:
        """No engine: the window is told there are no providers."""
        self._providers = ()

    def started(self, router: Router, notify: Callable[[str], None]) -> None:
        """A new engine: its providers and health are told, whatever the window showed before;
        ``notify``: a notice to tell once."""
        from fastdesk.translate.wiring import plain_http_warnings

        self._providers = tuple(router.providers)
        if router.health.listener is None:
            router.health.listener = self._on_health  # called in this thread
        self._health_changed = True  # a new engine: whatever the window showed is gone
        try:
            for warning in plain_http_warnings(tuple(router.providers)):
                notify(warning)
        except Exception as exc:  # a warning that cannot be worked out must not stop the engine
            log.warning("could not check the providers' base URLs: %s", exc)
        router.retirements.on_notice = notify  # a model replaced: said once

    def take(
        self, router: Router | None
    ) -> tuple[tuple[str, ...] | None, tuple[HealthEntry, ...] | None]:
        """The providers and the health report, each when it is news (else None)."""
        providers, self._providers = self._providers, None
        health = None
        if self._health_changed:
            health = () if router is None else tuple(router.health_report())
        self._health_changed = False
        return providers, health

    def headroom(self, router: Router | None, spec: JobSpec) -> Headroom | None:
        """The top choice's room at the limiter now (None: no engine, no choice, or it could
        not be read)."""
        from fastdesk.translate.sending import TYPICAL_TOKENS

        if router is None:
            return None
        try:
            choices = router.candidates(spec.provider, spec.model, lang=spec.target_lang)
            return router.limiter.headroom(choices[0], TYPICAL_TOKENS) if choices else None
        except Exception:  # pacing is a nicety: a failure here must not stop the engine
            log.exception("could not read the limiter's room")
            return None

    @staticmethod
    def usable_in_s(router: Router | None, spec: JobSpec) -> float | None:
        """Seconds until the spec's provider may be asked again (Delivery.usable_in_s)."""
        if router is None:
            return None
        return router.usable_in_s(spec.provider or "auto", spec.model)

    def _on_health(self, entry: HealthEntry) -> None:
        self._health_changed = True
        self._changed()
