"""Streams in flight follow the account: additive increase while answers come back prompt and
the limiter has room, multiplicative decrease on a 429 or a slow first token, per provider and
model, under the cap the user set (routing/concurrency.py, translate/slots.py)."""

from __future__ import annotations

import asyncio

from fastdesk.document.blocks import parse
from fastdesk.providers.groq import GroqProvider
from fastdesk.routing.concurrency import CEILING, START, Concurrency
from fastdesk.routing.retry import RetryPolicy
from fastdesk.routing.router import Router
from fastdesk.routing.stats import StatsStore
from fastdesk.translate.engine import Engine
from fastdesk.translate.job import JobSpec
from fastdesk.translate.slots import Slots
from tests.emulator import Emulator, Fault
from tests.fakes import FakeClock, FakeProvider

PAIR = ("groq", "m")


def answers(c: Concurrency, n: int, *, ttfb_ms: float = 100.0, room: bool = True) -> None:
    for _ in range(n):
        c.settle(PAIR, ok=True, throttled=False, ttfb_ms=ttfb_ms, room=room)


def test_prompt_answers_with_room_widen_the_window_up_to_its_ceiling() -> None:
    c = Concurrency()
    assert c.window(PAIR) == START
    answers(c, 4)
    assert c.window(PAIR) == START + 4  # slow start: one more per answer
    answers(c, 500)
    assert c.window(PAIR) == CEILING
    assert c.window(("cerebras", "m")) == START  # each choice its own


def test_no_room_in_the_account_keeps_the_window() -> None:
    c = Concurrency()
    answers(c, 10, room=False)
    assert c.window(PAIR) == START


def test_a_429_halves_it_once_per_window_then_it_grows_one_a_window() -> None:
    c = Concurrency()
    answers(c, 12)  # 16
    for _ in range(5):  # the answers already under way when the first 429 came
        c.settle(PAIR, ok=False, throttled=True, ttfb_ms=None, room=False)
    assert c.window(PAIR) == 8
    answers(c, 10)  # above the last cut: about one per window's worth of answers
    assert c.window(PAIR) == 9


def test_a_slow_first_token_halves_it() -> None:
    c = Concurrency()
    answers(c, 4, ttfb_ms=150.0)  # 8
    answers(c, 1, ttfb_ms=2500.0)
    assert c.window(PAIR) == 4


def test_slots_follow_a_resize() -> None:
    async def go() -> tuple[int, int]:
        slots = Slots(1)
        inside = 0
        most = 0
        gate = asyncio.Event()

        async def one() -> None:
            nonlocal inside, most
            async with slots.take():
                inside += 1
                most = max(most, inside)
                await gate.wait()
                inside -= 1

        tasks = [asyncio.create_task(one()) for _ in range(6)]
        await asyncio.sleep(0)
        before = inside
        slots.resize(4)  # three more waiters go in at once
        await asyncio.sleep(0)
        gate.set()
        await asyncio.gather(*tasks)
        return before, most

    assert asyncio.run(go()) == (1, 4)


def test_a_narrowed_window_still_lets_an_edit_in_at_once() -> None:
    """The window halves while the backlog holds every slot: the backlog waits until enough of
    its requests have ended, an edit (a priority holder) goes into the reserved slot now."""

    async def go() -> tuple[bool, bool]:
        slots = Slots(4, reserved=1)
        gate = asyncio.Event()

        async def backlog() -> None:
            async with slots.take():
                await gate.wait()

        held = [asyncio.create_task(backlog()) for _ in range(4)]
        await asyncio.sleep(0)
        slots.resize(2)  # a 429 or a slow first token halved the window
        edit_in = asyncio.Event()
        more_in = asyncio.Event()

        async def edit() -> None:
            async with slots.take(priority=True):
                edit_in.set()

        async def more() -> None:
            async with slots.take():
                more_in.set()

        edit_task, more_task = asyncio.create_task(edit()), asyncio.create_task(more())
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        seen = edit_in.is_set(), more_in.is_set()
        gate.set()
        await asyncio.gather(*held, edit_task, more_task)
        return seen

    assert asyncio.run(go()) == (True, False)


def page(n: int) -> str:
    return "".join(f"Paragraph {i} explains one idea of the page.\n\n" for i in range(n))


def run_fake(*, adaptive: bool, concurrency: int) -> int:
    fake = FakeProvider(delay=0.001)
    router = Router(
        {"groq": fake}, retry=RetryPolicy.none(), stats=StatsStore.memory(), clock=FakeClock()
    )
    engine = Engine(router, concurrency=concurrency, max_pack_blocks=1, adaptive=adaptive)
    asyncio.run(engine.run(parse(page(200)), JobSpec(target_lang="en")))
    return fake.max_in_flight


def test_an_engine_sends_more_at_once_as_answers_come_back_and_never_past_the_cap() -> None:
    assert run_fake(adaptive=False, concurrency=4) <= 4
    assert run_fake(adaptive=True, concurrency=32) > 4
    assert run_fake(adaptive=True, concurrency=3) <= 3  # --concurrency 3 caps it


def test_a_429_from_the_server_narrows_the_choice_it_came_from() -> None:
    async def go(url: str) -> int:
        provider = GroqProvider("gsk_aimd_test_0000", base_url=url, default_model="m")
        router = Router({"groq": provider}, stats=StatsStore.memory(), patient=True)
        engine = Engine(router, concurrency=32, max_pack_blocks=1, adaptive=True)
        try:
            await engine.run(parse(page(40)), JobSpec(target_lang="en"))
        finally:
            await router.aclose()
        return router.concurrency.window(("groq", "m"))

    with Emulator(rate_limits=None) as emu:
        wide = asyncio.run(go(emu.groq_base_url))
    with Emulator(rate_limits=None) as emu:
        emu.inject(Fault("status", status=429, retry_after_ms=1), times=3)
        narrowed = asyncio.run(go(emu.groq_base_url))
    assert narrowed < wide
