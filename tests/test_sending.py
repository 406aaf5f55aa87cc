"""The sending policy: what was typed sets the wait, the limiter's room has the last word."""

from __future__ import annotations

import math

import pytest

from fastdesk.routing.limiter import Headroom, Limiter, Limits
from fastdesk.translate.sending import (
    SendPolicy,
    room_for_extra,
    spare_requests,
    what_was_typed,
)
from tests.fakes import FakeClock


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("The cat sat on the mat.", "sentence"),
        ("Is it? ", "sentence"),
        ("She said «non.»", "sentence"),
        ("Wait…", "sentence"),
        ("終わり。", "sentence"),
        ("**Done!**", "sentence"),
        ("The cat sat", "typing"),
        ("The cat ", "word"),
        ("First, ", "word"),
        ("", "line"),
        ("   ", "line"),
        ("1.", "typing"),  # a numbered list item being started, not a sentence
        ("  12) ", "typing"),
    ],
)
def test_what_was_typed(line: str, kind: str) -> None:
    assert what_was_typed(line, len(line)) == kind


def test_only_the_text_before_the_cursor_counts() -> None:
    line = "Done. And more"
    assert what_was_typed(line, len("Done.")) == "sentence"
    assert what_was_typed(line, len("Done. An")) == "typing"


def test_boundaries_go_at_once_and_a_word_being_typed_waits_the_whole_setting() -> None:
    policy = SendPolicy(0.3, clock=FakeClock())
    assert policy.delay_s("sentence") == 0.0
    assert policy.delay_s("line") == 0.0
    assert policy.delay_s("left") == 0.0
    assert policy.delay_s("word") == pytest.approx(0.15)
    assert policy.delay_s("typing") == pytest.approx(0.3)  # the setting is the upper bound


def test_no_limits_no_pacing() -> None:
    clock = FakeClock()
    policy = SendPolicy(0.3, clock=clock)
    policy.sent()
    free = Headroom(None, (), clock.now)
    assert policy.delay_s("typing", free) == pytest.approx(0.3)
    assert policy.delay_s("sentence", free) == 0.0


def test_nothing_goes_before_the_limiter_lets_it() -> None:
    clock = FakeClock()
    policy = SendPolicy(0.3, clock=clock)
    blocked = Headroom(30, (), clock.now + 4.0)
    assert policy.delay_s("sentence", blocked) == pytest.approx(4.0)
    assert policy.delay_s("typing", blocked) == pytest.approx(4.0)


def test_sends_inside_a_sentence_are_spread_over_the_minute() -> None:
    clock = FakeClock()
    policy = SendPolicy(0.3, clock=clock)
    room = Headroom(30, (), clock.now)
    assert policy.delay_s("typing", room) == pytest.approx(0.3)
    policy.sent()
    clock.now += 0.5
    assert policy.delay_s("typing", room) == pytest.approx(60 / 30 - 0.5)  # the limit's pace
    assert policy.delay_s("sentence", room) == 0.0  # a boundary is not held back
    clock.now += 2.0
    assert policy.delay_s("typing", room) == pytest.approx(0.3)


def test_the_reserve_is_left_to_boundaries() -> None:
    clock = FakeClock()
    policy = SendPolicy(0.3, clock=clock)
    spare = spare_requests(Headroom(30, (), 0.0))
    assert spare is not None
    # the minute's spare requests went out over the last 50 s
    sent = tuple(clock.now - 50 + i for i in range(spare))
    room = Headroom(30, sent, clock.now)
    assert policy.delay_s("sentence", room) == 0.0
    # inside a word: until the oldest of them leaves its minute
    assert policy.delay_s("typing", room) == pytest.approx(sent[0] + 60 - clock.now)


def test_warm_ups_never_eat_the_reserve() -> None:
    now = 1000.0
    assert room_for_extra(None, now)
    assert room_for_extra(Headroom(30, (), now), now)
    assert not room_for_extra(Headroom(30, (), now + 1), now)
    spare = spare_requests(Headroom(30, (), now))
    assert spare is not None
    assert not room_for_extra(Headroom(30, tuple(now - 10 for _ in range(spare)), now), now)
    assert room_for_extra(Headroom(30, tuple(now - 10 for _ in range(spare - 1)), now), now)


def test_headroom_counts_cancelled_requests_and_says_when_the_limiter_frees() -> None:
    clock = FakeClock()
    limiter = Limiter(table={"groq": {"*": Limits(requests_per_minute=3)}}, clock=clock)
    pair = ("groq", "m")
    for _ in range(3):
        limiter.book(pair, 10)  # booked when they went out; never settled (cancelled)
        clock.now += 1
    room = limiter.headroom(pair, 10)
    assert room.per_minute == 3 and len(room.sent) == 3
    assert room.free_at == pytest.approx(clock.now - 3 + 60)  # the oldest leaves its minute
    assert room.fewer_than_at(3) == room.free_at
    assert room.fewer_than_at(4) == -math.inf
    clock.now += 60
    assert limiter.headroom(pair, 10).sent == ()


# ---- the day's limit ------------------------------------------------------------------------

GPT_OSS = ("groq", "openai/gpt-oss-120b")  # Groq free tier: 30 a minute, 1,000 a day


def test_headroom_says_what_is_left_of_the_day_from_the_table_and_the_headers() -> None:
    from fastdesk.providers.base import RateLimitInfo

    clock = FakeClock()
    limiter = Limiter(clock=clock)  # the published free tiers
    assert limiter.headroom(GPT_OSS, 10).per_day == 1000
    assert limiter.headroom(GPT_OSS, 10).left_today == 1000
    for _ in range(5):
        limiter.book(GPT_OSS, 10)
    assert limiter.headroom(GPT_OSS, 10).left_today == 995
    # Groq's x-ratelimit-remaining-requests counts the day: another client spent some too
    limiter.observe(GPT_OSS, RateLimitInfo(remaining_requests=400, reset_requests_s=3600.0))
    assert limiter.headroom(GPT_OSS, 10).left_today == 400
    limiter.book(GPT_OSS, 10)
    assert limiter.headroom(GPT_OSS, 10).left_today == 399
    clock.now += 3601  # the header's reset passed: the client's own count again
    assert limiter.headroom(GPT_OSS, 10).left_today == 994
    # a per-minute header says nothing of the day
    limiter.observe(
        GPT_OSS, RateLimitInfo(remaining_requests=3, reset_requests_s=30.0, requests_per="minute")
    )
    assert limiter.headroom(GPT_OSS, 10).left_today == 994
    assert (
        Limiter(table={"groq": {"*": Limits(requests_per_minute=30)}})
        .headroom(GPT_OSS, 10)
        .left_today
        is None
    )


def test_sends_inside_a_sentence_spread_what_is_left_of_the_day_over_a_working_day() -> None:
    from fastdesk.translate.sending import WORKDAY_S, day_pace_s

    clock = FakeClock()
    policy = SendPolicy(0.3, clock=clock)
    policy.sent()
    day = Headroom(30, (), clock.now, per_day=1000, left_today=1000)
    assert day_pace_s(day) == pytest.approx(WORKDAY_S / 1000)  # 28.8 s
    assert policy.delay_s("typing", day) == pytest.approx(28.8)
    assert policy.delay_s("word", day) == pytest.approx(28.8)
    assert policy.delay_s("sentence", day) == 0.0  # boundaries still at once
    assert policy.delay_s("left", day) == 0.0
    half = Headroom(30, (), clock.now, per_day=1000, left_today=500)
    assert policy.delay_s("typing", half) == pytest.approx(57.6)  # fewer left: further apart
    # a large day (14,400 at 30 a minute) is the minute's own pace
    big = Headroom(30, (), clock.now, per_day=14_400, left_today=14_400)
    assert policy.delay_s("typing", big) == pytest.approx(2.0)
    clock.now += 30
    assert policy.delay_s("typing", day) == pytest.approx(0.3)


def test_the_status_bar_hears_once_that_the_day_stretches_the_pacing() -> None:
    clock = FakeClock()
    policy = SendPolicy(0.3, clock=clock)
    big = Headroom(30, (), clock.now, per_day=14_400, left_today=14_000)
    policy.delay_s("typing", big)
    assert policy.take_note() is None  # the minute's pace: nothing to say
    day = Headroom(30, (), clock.now, per_day=1000, left_today=990)
    policy.delay_s("sentence", day)
    assert policy.take_note() is None  # a boundary is not held back
    policy.delay_s("typing", day)
    note = policy.take_note()
    assert note is not None and "990 of 1,000 requests left today" in note
    assert "every 29 s" in note
    assert policy.take_note() is None
    policy.delay_s("typing", Headroom(30, (), clock.now, per_day=1000, left_today=500))
    assert policy.take_note() is None  # said once


def test_warm_ups_wait_while_the_day_is_stretched() -> None:
    now = 1000.0
    assert room_for_extra(Headroom(30, (), now, per_day=14_400, left_today=14_400), now)
    assert not room_for_extra(Headroom(30, (), now, per_day=1000, left_today=1000), now)


def test_an_hour_of_typing_leaves_most_of_a_1000_a_day_limit() -> None:
    """The issue's case: at ~20 sends a minute the day's 1,000 requests lasted under an hour.
    A typist edits every 3 s mid-sentence and ends a sentence every 30 s, for an hour, through
    the published limits on an injected clock: every send is booked."""
    clock = FakeClock()
    limiter = Limiter(clock=clock)
    policy = SendPolicy(0.3, clock=clock)
    due: float | None = None
    mid_gaps: list[float] = []
    for step in range(1200):  # 3 s apart: an hour
        clock.now += 3.0
        if due is not None and due <= clock.now:  # the timer of the last edit fired
            limiter.book(GPT_OSS, 800)
            policy.sent()
        kind = "sentence" if step % 10 == 9 else "typing"
        before = policy.last_sent
        room = limiter.headroom(GPT_OSS, 800)
        due = clock.now + policy.delay_s(kind, room)  # type: ignore[arg-type]
        if kind == "typing" and before > -math.inf:
            mid_gaps.append(due - before)
    left = limiter.headroom(GPT_OSS, 800).left_today
    assert left is not None and left > 1000 - 200  # ~120 boundaries and a few dozen others
    assert min(mid_gaps) >= 28.8 - 1e-6  # none inside a sentence closer than the day allows
