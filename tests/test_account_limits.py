"""The account's own limits: headers replace the first guess up and down, a paid tier is told
from them, what was read is remembered (with its day) and shared by every limiter on the key."""

from __future__ import annotations

import datetime
import threading
from pathlib import Path

import pytest

from fastdesk.providers.base import RateLimitInfo
from fastdesk.routing.limiter import Limiter, Limits
from fastdesk.routing.shared_budget import SharedBudget, account_id

GPT = ("groq", "openai/gpt-oss-120b")
TABLE = {
    "groq": {
        "*": Limits(requests_per_minute=30, label="Groq free tier"),
        "openai/gpt-oss-120b": Limits(30, 1000, 8000, 200000, label="Groq free tier"),
    }
}
CEILINGS = {"groq": {"requests_per_day": 14400, "tokens_per_minute": 8000}}
PAID = RateLimitInfo(
    limit_requests=500_000, limit_tokens=2_000_000, remaining_tokens=1_999_000, reset_tokens_s=0.1
)
DAY = datetime.datetime(2026, 12, 2, 12, tzinfo=datetime.UTC).timestamp()


class Wall:
    """The wall clock every process shares."""

    def __init__(self) -> None:
        self.now = DAY

    def __call__(self) -> float:
        return self.now


class Clock:
    """One process's clock: its own monotonic origin, the shared wall time."""

    def __init__(self, wall: Wall | None = None, now: float = 1000.0) -> None:
        self.now = now
        self._wall = wall or Wall()

    def monotonic(self) -> float:
        return self.now

    def wall(self) -> float:
        return self._wall()


def two_processes(tmp_path: Path) -> tuple[Wall, Clock, Clock, Limiter, Limiter]:
    """Two limiters on one shared file and one wall clock, each with its own monotonic origin
    (as two processes): (the wall, a's clock, b's clock, a, b)."""
    wall = Wall()
    clock_a, clock_b = Clock(wall), Clock(wall, now=5_000.0)
    a = limiter(SharedBudget(tmp_path / "l.sqlite", wall=wall), clock=clock_a)
    b = limiter(SharedBudget(tmp_path / "l.sqlite", wall=wall), clock=clock_b)
    return wall, clock_a, clock_b, a, b


def limiter(shared: SharedBudget | None = None, clock: Clock | None = None, **kw) -> Limiter:
    return Limiter(
        table=TABLE,
        ceilings=CEILINGS,
        clock=clock or Clock(),
        shared=shared,
        accounts={"groq": account_id("gsk_one")},
        **kw,
    )


def test_a_header_replaces_the_first_guess_up_as_well_as_down() -> None:
    lim = limiter()
    lim.observe(GPT, RateLimitInfo(limit_tokens=6000))
    assert lim.limits(GPT).tokens_per_minute == 6000
    lim.observe(GPT, RateLimitInfo(limit_tokens=7000))  # up again: the server says so
    assert lim.limits(GPT).tokens_per_minute == 7000
    assert lim.limits(GPT).requests_per_minute == 30  # within the free tier: 30/min still holds


def test_a_limit_above_the_free_tier_means_a_paid_tier_and_its_pace() -> None:
    clock = Clock()
    lim = limiter(clock=clock)
    lim.observe(GPT, PAID)
    limits = lim.limits(GPT)
    assert (limits.requests_per_day, limits.tokens_per_minute) == (500_000, 2_000_000)
    assert limits.requests_per_minute is None  # no header states it: learned from 429s
    assert limits.tokens_per_day is None and limits.label == "Groq paid tier"
    for _ in range(200):  # far past the free tier's 30 a minute, no wait once answered
        assert lim.wait_s(GPT, 1000) == 0.0
        lim.admitted(lim.book(GPT, 1000))
    lines = lim.limits(GPT).describe("groq")
    assert any(line.startswith("2,000,000 tokens/min, read from Groq on ") for line in lines)
    assert any("requests/min: not limited by the free tier" in line for line in lines)
    refused = lim.book(GPT, 1000)
    lim.rate_limited(GPT, 1.0, booking=refused)  # the real requests/minute, from a 429
    assert lim.limits(GPT).requests_per_minute == 200
    assert lim.why(GPT, 1) == "Groq rate limit reached"


def test_a_cerebras_free_tier_header_corrects_a_disputed_figure() -> None:
    table = {
        "cerebras": {"gpt-oss-120b": Limits(30, 14400, 60000, 10**6, label="Cerebras free tier")}
    }
    ceilings = {"cerebras": {"requests_per_day": 14400, "tokens_per_minute": 60000}}
    lim = Limiter(table=table, ceilings=ceilings, clock=Clock())
    pair = ("cerebras", "gpt-oss-120b")
    lim.observe(pair, RateLimitInfo(limit_tokens=30000, tokens_per="minute", requests_per="day"))
    limits = lim.limits(pair)
    assert (limits.tokens_per_minute, limits.requests_per_minute) == (30000, 30)
    assert limits.describe("cerebras")[2].startswith("30,000 tokens/min, read from Cerebras on ")
    assert limits.describe("cerebras")[0] == (
        "30 requests/min, Cerebras free tier, as published (until its headers say)"
    )


def test_your_settings_are_a_cap_headers_only_tighten() -> None:
    yours = {"groq": {"*": {"requests_per_minute": 100, "tokens_per_minute": 50_000}}}
    lim = limiter(overrides=yours)
    lim.observe(GPT, PAID)
    assert (
        lim.limits(GPT).tokens_per_minute == 50_000 and lim.limits(GPT).requests_per_minute == 100
    )
    lim.observe(GPT, RateLimitInfo(limit_tokens=20_000))
    assert lim.limits(GPT).tokens_per_minute == 20_000


def test_what_the_headers_said_is_remembered_for_the_next_start(tmp_path) -> None:
    wall = Wall()
    first = limiter(SharedBudget(tmp_path / "limits.sqlite", wall=wall))
    first.observe(GPT, PAID)
    wall.now += 3 * 86400  # days later, another run
    second = limiter(SharedBudget(tmp_path / "limits.sqlite", wall=wall))
    limits = second.limits(GPT)
    assert limits.tokens_per_minute == 2_000_000 and limits.requests_per_minute is None
    assert "2,000,000 tokens/min, read from Groq on 2026-12-02" in limits.describe("groq")
    other_key = Limiter(
        table=TABLE,
        ceilings=CEILINGS,
        shared=SharedBudget(tmp_path / "limits.sqlite", wall=wall),
        accounts={"groq": account_id("gsk_two")},
    )
    assert other_key.limits(GPT).tokens_per_minute == 8000  # another account: its own


def test_two_limiters_on_one_key_share_the_minute(tmp_path) -> None:
    wall, clock_a, clock_b, a, b = two_processes(tmp_path)
    for n in range(30):
        lim = a if n % 2 else b
        assert lim.wait_s(GPT, 10) == 0.0
        lim.book(GPT, 10)
        for c in (clock_a, clock_b):
            c.now += 1.0
        wall.now += 1.0
    clock_a.now += 1.0  # past SYNC_S: the other's entries are read again
    clock_b.now += 1.0
    wall.now += 1.0
    assert a.wait_s(GPT, 10) == pytest.approx(29.0)  # 15 of its own, 15 of the other's
    assert b.wait_s(GPT, 10) == pytest.approx(29.0)
    a.rate_limited(GPT, 40.0)
    clock_b.now += 1.0
    wall.now += 1.0
    assert b.wait_s(GPT, 10) == pytest.approx(39.0)  # the 429 the other met counts here too
    assert "gsk_one" not in (tmp_path / "l.sqlite").read_bytes().decode("latin-1")


def test_the_first_429_either_limiter_meets_teaches_both(tmp_path) -> None:
    """A paid tier's headers lift the published 30 requests/min (Groq never states it); the
    server still refuses past 30. The 429 one process meets sets the limit for the other too,
    before the other sends again (not one 429 each)."""
    wall, clock_a, clock_b, a, b = two_processes(tmp_path)
    a.observe(GPT, PAID)
    b.observe(GPT, PAID)
    assert b.limits(GPT).requests_per_minute is None  # paid: learnt from 429s only
    for n in range(30):
        lim = a if n % 2 else b
        lim.book(GPT, 10)
        for c in (clock_a, clock_b):
            c.now += 0.5
        wall.now += 0.5
    a.book(GPT, 10)  # the 31st: refused
    a.rate_limited(GPT, 2.0)
    assert a.limits(GPT).requests_per_minute == 30
    clock_b.now += 1.0  # the other process looks again
    wall.now += 1.0
    assert b.wait_s(GPT, 10) > 2.0  # past the block: still waiting for the minute's room
    assert b.limits(GPT).requests_per_minute == 30


def test_a_claim_that_brings_in_another_limiters_429_holds_to_what_it_learnt(tmp_path) -> None:
    """The other process's 429 (and the limit it learnt) first comes in inside a claim, its
    block already over: the claim holds to the learnt limit in the same transaction, instead
    of sending a 31st request into the same minute (the limit was read only at the next look,
    after the claim had gone)."""
    wall, clock_a, clock_b, a, b = two_processes(tmp_path)
    a.observe(GPT, PAID)
    b.observe(GPT, PAID)
    for n in range(30):
        lim = a if n % 2 else b
        booking = lim.claim(GPT, 10)
        assert booking is not None
        lim.admitted(booking)
        lim.settle(booking, 10)
        for c in (clock_a, clock_b, wall):
            c.now += 0.5
    refused = a.claim(GPT, 10)
    a.rate_limited(GPT, 1.0, booking=refused)  # the 31st: refused, the limit learnt
    assert a.limits(GPT).requests_per_minute == 30
    for c in (clock_a, clock_b, wall):
        c.now += 2.0  # past the block: b has not looked since
    assert b.claim(GPT, 10) is None  # the minute is full by the limit a learnt
    assert b.limits(GPT).requests_per_minute == 30
    assert 0 < b.wait_s(GPT, 10) <= 60.0


def test_an_unwritable_shared_file_only_costs_the_sharing(tmp_path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    lim = limiter(SharedBudget(blocker / "sub" / "limits.sqlite", wall=Wall()))
    lim.book(GPT, 10)
    lim.observe(GPT, RateLimitInfo(limit_tokens=6000))
    assert lim.limits(GPT).tokens_per_minute == 6000 and lim.wait_s(GPT, 10) == 0.0


def test_two_limiters_never_both_take_the_last_slot(tmp_path) -> None:
    """Both saw one slot left; the first to claim it gets it, the other reads the file again in
    its claim (not its last look, however recent) and waits."""
    _wall, _clock_a, clock_b, a, b = two_processes(tmp_path)
    for _ in range(29):
        assert a.claim(GPT, 10) is not None
    clock_b.now += 1.0
    assert a.wait_s(GPT, 10) == 0.0 and b.wait_s(GPT, 10) == 0.0  # one slot left, both see it
    assert a.claim(GPT, 10) is not None
    assert b.claim(GPT, 10) is None  # same instant: its last look is still fresh, yet it knows
    assert b.wait_s(GPT, 10) > 0 and a.claim(GPT, 10) is None


def test_a_claim_is_one_transaction_across_connections(tmp_path) -> None:
    """One limiter held inside its claim (its transaction open): the other's claim waits for
    it to end instead of slipping in between, so of the last slot only one gets it."""
    entered, release = threading.Event(), threading.Event()

    class HeldWall(Wall):
        held = False

        def __call__(self) -> float:
            if threading.current_thread().name == "a" and not self.held:
                self.held = True
                entered.set()
                release.wait(30)
            return self.now

    wall_a, wall_b = HeldWall(), Wall()
    a = limiter(SharedBudget(tmp_path / "l.sqlite", wall=wall_a), clock=Clock(wall_b))
    b = limiter(SharedBudget(tmp_path / "l.sqlite", wall=wall_b), clock=Clock(wall_b))
    for _ in range(29):
        assert b.claim(GPT, 10) is not None
    a.limits(GPT)  # its state and its connection exist before the race
    got: dict[str, object] = {}
    ta = threading.Thread(target=lambda: got.update(a=a.claim(GPT, 10)), name="a")
    tb = threading.Thread(target=lambda: got.update(b=b.claim(GPT, 10)), name="b")
    ta.start()
    assert entered.wait(30)  # a is inside its claim
    tb.start()
    tb.join(0.3)  # b, if it could, would now check and book
    assert "b" not in got  # it could not: it waits for a's transaction
    release.set()
    ta.join(30)
    tb.join(30)
    assert [name for name in "ab" if got.get(name) is not None] in (["a"], ["b"])


def test_a_request_counts_from_when_its_answer_began_its_tokens_from_its_end(tmp_path) -> None:
    """As the server counts: a request from its arrival (here: when its answer began, the
    latest moment it can have arrived; from its booking, the other process woke a tenth of a
    second early and met a 429), the answer's tokens from its end (Groq counts them as they
    are generated). Not the request from the answer's end: then a 429 counted requests the
    server's minute had let go, and learnt a limit that high."""
    wall, clock_a, clock_b, a, b = two_processes(tmp_path)
    bookings = [a.claim(GPT, 250) for _ in range(30)]  # the whole minute's requests

    def later(seconds: float) -> None:
        for c in (clock_a, clock_b, wall):
            c.now += seconds

    later(1.0)  # the server admitted them: their answers begin
    for booking in bookings:
        assert booking is not None
        a.admitted(booking)
    later(2.0)  # the answers end, 200 tokens each
    for booking in bookings:
        assert booking is not None
        a.settle(booking, 200)
    later(57.5)  # 60.5 s after the booking, 59.5 s after the answers began
    assert a.wait_s(GPT, 10) == pytest.approx(0.5)
    assert b.wait_s(GPT, 10) == pytest.approx(0.5)  # read from the shared file
    assert b.claim(GPT, 10) is None
    later(1.0)  # a minute after the answers began, 58.5 s after they ended
    assert a.wait_s(GPT, 10) == 0.0 and b.wait_s(GPT, 10) == 0.0
    assert b.wait_s(GPT, 2500) == pytest.approx(1.5)  # 6,000 tokens until a minute after the end
    assert b.why(GPT, 2500) == "Groq free tier, 8,000 tokens/min"
    assert b.claim(GPT, 10) is not None


def test_a_refused_request_does_not_count_and_the_429_learns_what_the_server_counted() -> None:
    """The server counts the requests it admitted: a 429 learns those whose answer began, not
    the refused one, nor the ones still on their way (sent at once past the limit, each is
    refused in turn), nor those that ended with no answer (still paced as counted); the
    refused ones leave the minute."""
    clock = Clock()
    lim = limiter(clock=clock)
    lim.observe(GPT, PAID)
    for _ in range(20):
        lim.admitted(lim.book(GPT, 10))
        clock.now += 1.0
    for _ in range(2):  # ended with no answer (a connection cut): the server may not know them
        lim.settle(lim.book(GPT, 10), None)
    burst = [lim.book(GPT, 10) for _ in range(3)]  # sent before the first 429 came back
    for booking in burst:
        lim.rate_limited(GPT, 1.0, booking=booking)
        assert lim.limits(GPT).requests_per_minute == 20  # not 24, 23 nor 22
    clock.now += 1.0  # past the block
    assert lim.wait_s(GPT, 10) == pytest.approx(41.0)  # the 22 pace it, the 3 refused do not
    clock.now += 41.0
    assert lim.wait_s(GPT, 10) == 0.0


def test_a_paid_tiers_unknown_limit_is_met_one_request_at_a_time() -> None:
    """A paid tier states no requests/minute (Groq): the next request waits until the one
    before it was answered or refused, so past the unknown limit one request meets a 429, not
    a burst sent at once; a limit learnt lifts the wait."""
    clock = Clock()
    lim = limiter(clock=clock)
    lim.observe(GPT, PAID)
    first = lim.claim(GPT, 10)
    assert first is not None
    assert lim.claim(GPT, 10) is None and 0 < lim.wait_s(GPT, 10) < 0.1
    assert lim.why(GPT, 10) == (
        "Groq paid tier, one request at a time until a 429 tells its requests/min"
    )
    lim.admitted(first)  # its answer began
    second = lim.claim(GPT, 10)
    assert second is not None
    lim.rate_limited(GPT, 1.0, booking=second)  # too few requests to learn a limit from
    clock.now += 1.0
    assert lim.claim(GPT, 10) is not None  # refused, it is no longer on its way
    lim.observe(GPT, RateLimitInfo(limit_requests=100, requests_per="minute"))
    assert lim.claim(GPT, 10) is not None  # a stated limit: no longer one at a time


def test_a_request_that_failed_or_was_cancelled_counts_until_it_ended() -> None:
    """No usage reported (an error, a cancelled hedge): the tokens booked, from its end."""
    clock = Clock()
    lim = limiter(clock=clock)
    booking = lim.book(GPT, 7000)
    clock.now += 30.0
    lim.settle(booking, None)
    clock.now += 45.0  # 75 s after the booking, 45 s after the end
    assert lim.wait_s(GPT, 2000) == pytest.approx(15.0)
    assert lim.why(GPT, 2000) == "Groq free tier, 8,000 tokens/min"
