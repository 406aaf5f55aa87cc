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


class Clock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


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
    policy = SendPolicy(0.3, clock=Clock())
    assert policy.delay_s("sentence") == 0.0
    assert policy.delay_s("line") == 0.0
    assert policy.delay_s("left") == 0.0
    assert policy.delay_s("word") == pytest.approx(0.15)
    assert policy.delay_s("typing") == pytest.approx(0.3)  # the setting is the upper bound


def test_no_limits_no_pacing() -> None:
    clock = Clock()
    policy = SendPolicy(0.3, clock=clock)
    policy.sent()
    free = Headroom(None, (), clock.now)
    assert policy.delay_s("typing", free) == pytest.approx(0.3)
    assert policy.delay_s("sentence", free) == 0.0


def test_nothing_goes_before_the_limiter_lets_it() -> None:
    clock = Clock()
    policy = SendPolicy(0.3, clock=clock)
    blocked = Headroom(30, (), clock.now + 4.0)
    assert policy.delay_s("sentence", blocked) == pytest.approx(4.0)
    assert policy.delay_s("typing", blocked) == pytest.approx(4.0)


def test_sends_inside_a_sentence_are_spread_over_the_minute() -> None:
    clock = Clock()
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
    clock = Clock()
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
    clock = Clock()
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
