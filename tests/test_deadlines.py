"""Deadlines and caps against hostile streams (the real SDKs over loopback): a server that drips,
streams for ever, sends a 4 GiB chunk or invalid UTF-8 is cut off with a clear error; an answer
that did not finish with "stop" is not written."""

from __future__ import annotations

import asyncio

import pytest

from fastdesk.document.blocks import parse
from fastdesk.providers.base import ProviderError
from fastdesk.routing.retry import Deadlines, RetryPolicy
from fastdesk.routing.router import AllProvidersFailed, Router
from fastdesk.routing.stats import StatsStore
from fastdesk.translate.engine import Engine
from fastdesk.translate.events import BlockDone, BlockFailed
from fastdesk.translate.job import JobSpec
from tests.emulator import Emulator, Fault

MESSAGES = [{"role": "system", "content": "Translate."}, {"role": "user", "content": "Hello"}]


def router_for(emu: Emulator, **kw) -> Router:
    from fastdesk.providers.groq import GroqProvider

    provider = GroqProvider("gsk_test_not_a_real_key_000000", base_url=emu.groq_base_url)
    kw.setdefault("retry", RetryPolicy.none())
    return Router({"groq": provider}, stats=StatsStore.memory(), explore_share=0.0, **kw)


def fail_with(emu: Emulator, router: Router, max_tokens: int = 64) -> ProviderError:
    """How the request failed. Which limit cut it is read from the error (it names the limit),
    and that the client cut it from the server seeing it leave (``left``), not from a stopwatch."""

    async def go() -> ProviderError:
        try:
            with pytest.raises(AllProvidersFailed) as info:
                async for _ev in router.stream(MESSAGES, max_tokens=max_tokens):
                    pass
        finally:
            await router.aclose()
        last = info.value.last
        assert last is not None
        return last

    return asyncio.run(go())


def left(emu: Emulator) -> bool:
    """The server saw the client leave mid-answer (30 s: a hang guard only)."""
    return emu.wait_for(lambda: emu.disconnects >= 1, 30)


def test_a_drip_is_cut_off_by_the_whole_request_deadline() -> None:
    with Emulator() as emu:
        emu.inject(Fault("drip", after_chunks=1, interval=0.05))
        router = router_for(emu, deadlines=Deadlines(total_s=0.6, gap_s=5))
        error = fail_with(emu, router, max_tokens=10_000)
        assert left(emu)  # a drip of 10,000 tokens, 50 ms apart: it would not have ended
    assert error.kind == "timeout" and "longer than 0.6 s" in error.message


def test_silence_after_the_first_token_is_cut_off_by_the_gap_deadline() -> None:
    with Emulator() as emu:
        emu.fail_hang(after_chunks=2)
        router = router_for(emu, deadlines=Deadlines(gap_s=0.3))
        error = fail_with(emu, router)
        assert left(emu)  # the server hangs for ever: only the gap deadline ends it
    assert error.kind == "timeout" and "stopped for 0.3 s" in error.message


def test_no_first_token_in_time() -> None:
    with Emulator(ttfb=2.0) as emu:
        router = router_for(emu, deadlines=Deadlines(first_token_s=0.3))
        error = fail_with(emu, router)
        assert left(emu) and emu.answered == 0  # cut during the 2 s wait, before any answer
    assert error.kind == "timeout" and "no first token in 0.3 s" in error.message


def test_an_endless_answer_stops_at_its_max_tokens_with_a_margin() -> None:
    with Emulator() as emu:
        emu.inject(Fault("endless", after_chunks=1))
        router = router_for(emu)
        error = fail_with(emu, router, max_tokens=100)
        assert left(emu)  # the answer is endless: the client cut it
    assert error.kind == "too_long" and "past its 100 tokens" in error.message


def test_a_giant_chunk_is_malformed_and_memory_stays_bounded() -> None:
    import tracemalloc

    with Emulator() as emu:
        emu.inject(Fault("giant_chunk", after_chunks=1))
        router = router_for(emu)
        tracemalloc.start()
        error = fail_with(emu, router)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    # the client stopped reading the 4 GiB chunk at 1 MiB, so its memory stayed small
    assert error.kind == "malformed" and "over 1 MiB" in error.message
    assert peak < 64 * 2**20


def test_invalid_utf8_fails_the_answer() -> None:
    with Emulator() as emu:
        emu.inject(Fault("bad_utf8", after_chunks=1))
        error = fail_with(emu, router_for(emu))
    assert error.kind == "malformed" and "invalid UTF-8" in error.message
    assert "the server answered but its stream was malformed" in error.message


@pytest.mark.parametrize("finish", ["content_filter", "length", None])
def test_an_answer_that_did_not_stop_is_not_written(finish) -> None:
    with Emulator(finish_reason=finish) as emu:
        engine = Engine(router_for(emu))
        events: list[object] = []

        async def go() -> None:
            await engine.run(parse("Hello.\n"), JobSpec(), emit=events.append)
            await engine.router.aclose()

        asyncio.run(go())
    assert not [e for e in events if isinstance(e, BlockDone)]
    [failed] = [e for e in events if isinstance(e, BlockFailed)]
    assert ("finish_reason content_filter" if finish == "content_filter" else "") in failed.error
    assert failed.error.startswith("groq/")


def test_deadlines_from_settings_and_the_read_timeout_past_them() -> None:
    limits = Deadlines.from_settings({"first_token_s": 600, "total_s": 900})
    assert (limits.first_token_s, limits.gap_s, limits.total_s) == (600, 20, 900)
    assert limits.read_timeout > 600  # a CPU server's first token is not cut by httpx first
    assert limits.max_chars(100) == 100 * 6 + 1024 and limits.max_chars(None) is None
