"""Warm start: a tiny request to the top choice(s) so the user's first edit does not pay a model's
cold start (seconds, against a fraction of one warm: docs/routing.md) nor a TLS handshake.

Qt-free; the window asks for one when the app starts or comes back from a long idle, and while
the editor types after a quiet spell (``ACTIVE_IDLE_S``, then only with requests to spare at the
limiter: fastdesk.translate.sending); its worker loop checks :func:`needs_warmup` and sends
:func:`warm_up`. A warm-up asks for one token ("Hi", ``max_tokens=1``),
so it costs a few prompt tokens; it is skipped when the user or the budget says no. Its timing is
not put in the router's latency windows (a cold answer is not what the next edit will see), but
its failures do reach the router's health: a refused key is known before the user types.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from fastdesk.providers.base import RequestStats
from fastdesk.routing.router import AllProvidersFailed, AttemptDone, Router

log = logging.getLogger(__name__)

WARMUP_MESSAGES = ({"role": "user", "content": "Hi"},)
DEFAULT_IDLE_S = 300.0  # providers unload idle models and close idle connections
# While the editor types: a warm-up after this long without a request, so the edit's request
# finds the connection open (the client keeps an idle one 30 s: providers.http_client).
ACTIVE_IDLE_S = 25.0


def needs_warmup(last_activity: float | None, now: float, idle_s: float = DEFAULT_IDLE_S) -> bool:
    """True at start (nothing sent yet) or after ``idle_s`` seconds without a request."""
    return last_activity is None or now - last_activity >= idle_s


async def warm_up(
    router: Router,
    *,
    top: int = 1,
    provider: str = "auto",
    model: str | None = None,
    lang: str | None = None,
    enabled: bool = True,
    timeout_s: float = 15.0,
) -> list[RequestStats]:
    """Send "Hi" (one token) to the ``top`` first choices at once; returns their stats.

    ``enabled=False`` (the user turned warm-ups off, or the budget is spent) sends nothing.
    Never raises for a provider failure: the stats say what happened.
    """
    if not enabled or top < 1:
        return []
    choices = router.candidates(provider, model, lang=lang)[:top]
    results = await asyncio.gather(*(_one(router, p, m, timeout_s) for p, m in choices))
    return [s for s in results if s is not None]


async def _one(router: Router, provider: str, model: str, timeout_s: float) -> RequestStats | None:
    done: RequestStats | None = None

    async def ask() -> None:
        nonlocal done
        async for ev in router.stream(
            list(WARMUP_MESSAGES), provider=provider, model=model, max_tokens=1, purpose="warmup"
        ):
            if isinstance(ev, AttemptDone):
                done = ev.stats

    with contextlib.suppress(AllProvidersFailed):
        try:
            await asyncio.wait_for(ask(), timeout_s)
        except TimeoutError:
            log.info("warm-up of %s/%s gave no answer in %.0f s", provider, model, timeout_s)
    if done is not None:
        log.info("warm-up %s/%s: %s, %s ms", provider, model, done.status, _ms(done.ttfb_ms))
    return done


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"
