"""DocumentSession: the open document's state in one language, without Qt (its revisions, the rule
for stale events, the retry schedule, one stream of declared changes)."""

from __future__ import annotations

import math

from fastdesk.document.blocks import parse
from fastdesk.providers.base import RequestStats
from fastdesk.review.model import Review
from fastdesk.review.session import Change, DocumentSession, RetrySchedule, Revisions
from fastdesk.review.target_model import BLOCK_STATES
from fastdesk.translate.events import (
    BlockDone,
    BlockFailed,
    BlockStarted,
    RequestDone,
    RevisionDone,
    Waiting,
)
from tests.fakes import FakeClock

TEXT = "# Title\n\nFirst paragraph.\n\nSecond paragraph.\n"


def session_of(text: str = TEXT) -> tuple[DocumentSession, list[Change], FakeClock]:
    clock = FakeClock()
    session = DocumentSession(Review(None, "fr"), clock=clock)
    seen: list[Change] = []
    session.subscribe(seen.append)
    session.next_revision()
    session.take(1, (), doc=parse(text), busy=True)
    seen.clear()
    return session, seen, clock


def ok(revision: int) -> RequestDone:
    return RequestDone(revision, RequestStats("groq", "m", "ok"))


def test_the_session_numbers_revisions_and_shares_the_counter() -> None:
    revisions = Revisions()
    first = DocumentSession(Review(None, "fr"), revisions)
    second = DocumentSession(Review(None, "de"), revisions)
    assert first.next_revision() == 1 and second.next_revision() == 2
    assert first.revision == second.revision == 2
    assert first.current(2) and not first.current(1)


def test_a_delivery_is_read_once_and_its_effects_are_declared() -> None:
    session, seen, _clock = session_of()
    doc = session.doc
    assert doc is not None
    first, second = doc.blocks[1].id, doc.blocks[2].id
    change = session.take(1, [BlockDone(1, first, "Premier.\n\n", "model"), ok(1)], busy=True)
    assert seen == [change]
    assert change.blocks == {first} and change.review and change.busy is True
    assert change.news == (ok(1),)  # the status bar's share: not a block event
    assert session.model.state_of(first) == "machine"
    assert session.model.state_of(second) == "pending"


def test_only_the_newest_revision_speaks_for_busy_failures_and_settling() -> None:
    session, _seen, _clock = session_of()
    doc = session.doc
    assert doc is not None
    bid = doc.blocks[1].id
    session.next_revision()  # 2 went out: a late delivery of 1 does not say "idle"
    late = session.take(1, [BlockFailed(1, bid, "boom"), RevisionDone(1, 3, 0, 0, 1)])
    assert late.busy is None and late.failed == 0 and late.revision_done is None
    done = RevisionDone(2, 3, 1, 0, 1)
    now = session.take(2, [BlockFailed(2, bid, "boom"), done], busy=False)
    assert now.busy is False and now.failed == 1 and now.revision_done == done


def test_events_of_an_earlier_language_are_dropped() -> None:
    session, _seen, _clock = session_of()
    doc = session.doc
    assert doc is not None
    bid = doc.blocks[1].id
    session.switch(Review(None, "de"), floor=3)
    change = session.take(2, [BlockDone(2, bid, "Erster.\n\n", "model")], busy=True)
    assert not change.review and session.model.state_of(bid) == "pending"
    assert session.take(3, [BlockDone(3, bid, "Erster.\n\n", "model")], busy=True).review


def test_a_document_older_than_the_one_opened_is_ignored() -> None:
    session, _seen, _clock = session_of()
    session.reset(Review(None, "fr"), floor=5)
    session.take(4, (), doc=parse("Old file.\n"))
    assert session.doc is None
    session.take(5, (), doc=parse("New file.\n"))
    assert session.doc is not None and session.doc.source == "New file.\n"


def test_one_vocabulary_of_block_states() -> None:
    session, _seen, _clock = session_of()
    model = session.model
    doc = session.doc
    assert doc is not None
    bid = doc.blocks[1].id
    session.take(1, [BlockStarted(1, bid)], busy=True)
    assert model.state_of(bid) == "in_flight" and model.in_flight(bid)
    session.take(1, [BlockFailed(1, bid, "boom")], busy=False)
    assert model.state_of(bid) == "failed" and model.failed() == [bid]
    assert session.review.state_of(bid) == "flagged"  # the review's meaning is kept
    session.take(1, [BlockStarted(1, bid)], busy=True)
    assert model.state_of(bid) == "retrying" and model.status_of(bid) == "retrying"
    session.review.edit(bid, "Mine.\n\n")
    assert model.state_of(bid) == "edited"  # a reviewer's text stands
    assert {model.state_of(b.id) for b in doc.blocks} <= set(BLOCK_STATES)


def test_failed_blocks_are_retried_after_the_backoff_and_an_edit_cancels() -> None:
    session, _seen, clock = session_of()
    doc = session.doc
    assert doc is not None
    bid = doc.blocks[1].id
    retry = session.retry
    session.take(1, [BlockFailed(1, bid, "boom")], usable_in_s=45.0)
    assert retry.poll() == 45.0 and retry.seconds_left() == 45  # the provider's wait wins
    assert retry.text == "1 failed block: retrying in 45 s"
    clock.now += 45
    assert retry.poll() == 0.0 and retry.seconds_left() is None  # due: taken once
    assert retry.level == 1
    session.take(1, [BlockFailed(1, bid, "boom")])
    assert retry.seconds_left() == 60  # the next step of the backoff
    retry.cancel()  # an edit sends the failed blocks anyway
    assert retry.poll() is None and not retry.pending
    assert retry.level == 1  # a cancel is no success: the backoff stays where it was
    session.take(1, [ok(1), BlockFailed(1, bid, "boom")])
    assert retry.seconds_left() == 30  # a request came through: the backoff starts over


def test_the_retry_countdown_goes_out_in_the_stream() -> None:
    session, seen, clock = session_of()
    doc = session.doc
    assert doc is not None
    bid = doc.blocks[1].id
    session.take(1, [BlockFailed(1, bid, "boom")], usable_in_s=45.0)
    seen.clear()
    assert session.poll_retry() == 45.0
    assert [c.retry for c in seen] == ["1 failed block: retrying in 45 s"]
    clock.now += 0.5
    session.poll_retry()  # the same whole second: nothing new to say
    assert len(seen) == 1
    clock.now += 1
    session.poll_retry()
    assert seen[-1].retry == "1 failed block: retrying in 44 s"
    assert seen[-1].blocks == frozenset() and not seen[-1].review  # no block repaints for it
    session.cancel_retry()  # an edit: the status bar's text goes
    assert seen[-1].retry == "" and session.poll_retry() is None
    assert len(seen) == 3
    session.take(1, [BlockFailed(1, bid, "boom")], usable_in_s=math.inf)
    session.poll_retry()
    assert seen[-1].retry == (
        "1 failed block: not retried by themselves until the provider is fixed"
    )


def test_a_retry_waits_for_a_provider_that_cannot_heal_by_itself() -> None:
    schedule = RetrySchedule(FakeClock())
    schedule.arm(2, math.inf)
    assert schedule.poll() is None and schedule.pending
    assert schedule.text == "2 failed blocks: not retried by themselves until the provider is fixed"


def test_a_retry_goes_when_the_blocks_were_translated_meanwhile() -> None:
    session, _seen, _clock = session_of()
    doc = session.doc
    assert doc is not None
    bid = doc.blocks[1].id
    session.take(1, [BlockFailed(1, bid, "boom")])
    session.retry.poll()
    assert session.retry.pending
    session.take(1, [BlockDone(1, bid, "Premier.\n\n", "model")])
    assert not session.retry.pending


def test_unsubscribing_stops_the_stream() -> None:
    session = DocumentSession(Review(None, "fr"))
    seen: list[Change] = []
    stop = session.subscribe(seen.append)
    session.publish(Change(review=True))
    stop()
    session.publish(Change(review=True))
    assert seen == [Change(review=True)]


def test_a_block_waiting_for_a_slot_shows_queued_until_its_request_goes() -> None:
    """An edit during a free-tier backlog: its request waits for a slot; its block says so,
    counting down, until the request goes out (then the mark goes and the margin repaints)."""
    session, _seen, clock = session_of()
    doc = session.doc
    assert doc is not None
    edited, other = doc.blocks[1].id, doc.blocks[2].id
    wait = Waiting(1, "groq", 12.0, "Groq free tier, 30 requests/min", block_ids=(edited,))
    change = session.take(1, [wait], busy=True)
    assert session.backlog.queued(edited) == "queued, about 12 s"
    assert session.backlog.queued(other) == ""
    assert change.blocks == {edited} and change.review  # the margin and the bar hear of it
    clock.now += 5.0
    assert session.backlog.queued(edited) == "queued, about 7 s"  # it counts down
    change = session.take(1, [BlockStarted(1, edited)], busy=True)
    assert session.backlog.queued(edited) == "" and edited in (change.blocks or ())
    session.take(1, [wait], busy=True)
    session.take(1, [], busy=False)  # the work stopped: nothing waits any more
    assert session.backlog.queued(edited) == ""


def test_the_queued_marks_and_when_their_counts_next_drop() -> None:
    """What the target panes paint ("queued, about N s" per queued block) and when to paint
    again: when a count drops by one, never while nothing is queued or every wait is over."""
    session, _seen, clock = session_of()
    backlog = session.backlog
    doc = session.doc
    assert doc is not None
    a, b = doc.blocks[1].id, doc.blocks[2].id
    assert backlog.marks() == {} and backlog.next_change_s() is None
    session.take(1, [Waiting(1, "groq", 11.5, "Groq free tier", block_ids=(a,))], busy=True)
    session.take(1, [Waiting(1, "groq", 3.25, "Groq free tier", block_ids=(b,))], busy=True)
    assert backlog.marks() == {a: "queued, about 12 s", b: "queued, about 4 s"}
    assert backlog.next_change_s() == 0.25  # b's 3.25 s become 3 s first
    clock.now += 0.25
    assert backlog.marks()[b] == "queued, about 3 s" and backlog.next_change_s() == 0.25
    clock.now += 0.25
    assert backlog.marks()[a] == "queued, about 11 s" and backlog.next_change_s() == 0.75
    clock.now += 20.0  # both waits are over: their requests are about to go
    assert set(backlog.marks().values()) == {"queued, about 0 s"}
    assert backlog.next_change_s() is None
    session.take(1, [BlockStarted(1, a), BlockStarted(1, b)], busy=True)
    assert backlog.marks() == {} and backlog.next_change_s() is None


def test_what_is_to_come_counts_down_with_its_pace_beside_it() -> None:
    """A paced backlog: "N to come" falls as blocks arrive, and the pace they arrive at says
    how long the rest will take (nothing is said before a rate wait or two arrivals). The pace
    is the last two minutes' (backlog.WINDOW_S): once the blocks come 30 s apart instead of
    20 s, it is 30 s a block, not the 22.5 s of all eight gaps since the first."""
    text = "".join(f"Paragraph {n}.\n\n" for n in range(10))
    session, _seen, clock = session_of(text)
    doc = session.doc
    assert doc is not None
    ids = [b.id for b in doc.blocks]

    def to_come() -> int:
        summary = session.review.summary()
        return summary.in_flight + summary.pending

    assert to_come() == 10
    session.take(1, [BlockDone(1, ids[0], "P0.\n\n", "m")], busy=True)
    session.take(1, [BlockDone(1, ids[1], "P1.\n\n", "m")], busy=True)
    assert to_come() == 8 and session.backlog.estimate(to_come()) == ""  # not paced
    session.take(1, [Waiting(1, "groq", 20.0, "Groq free tier, 30 requests/min")], busy=True)
    for n in range(2, 5):
        clock.now += 20.0
        session.take(1, [BlockDone(1, ids[n], f"P{n}.\n\n", "m")], busy=True)
    # five arrivals over 60 s: 15 s a block; 5 to come
    assert to_come() == 5 and session.backlog.estimate(5) == "about 75 s"
    for n in range(5, 9):
        clock.now += 30.0
        session.take(1, [BlockDone(1, ids[n], f"P{n}.\n\n", "m")], busy=True)
    assert to_come() == 1
    assert session.backlog.estimate(1) == "about 30 s"  # 120 s over the last four gaps
    assert session.backlog.estimate(100) == f"about {100 * 30 // 60} min"
    session.take(1, [], busy=False)
    assert session.backlog.estimate(1) == ""  # settled: the pace starts over


def test_a_burst_of_arrivals_does_not_promise_the_rest_at_once() -> None:
    """At a tokens/minute limit the blocks come in one burst a minute: the pace runs to now and
    the estimate is never shorter than the wait the queued blocks are under."""
    text = "".join(f"Paragraph {n}.\n\n" for n in range(40))
    session, _seen, clock = session_of(text)
    doc = session.doc
    assert doc is not None
    ids = [b.id for b in doc.blocks]
    session.take(1, [Waiting(1, "groq", 1.0, "Groq free tier, 8,000 tokens/min")], busy=True)
    first = clock.now + 0.125
    for n in range(30):  # a burst: 30 blocks in under 4 s
        clock.now += 0.125
        session.take(1, [BlockDone(1, ids[n], f"P{n}.\n\n", "m")], busy=True)
    queued = Waiting(1, "groq", 57.0, "Groq free tier, 8,000 tokens/min", block_ids=(ids[30],))
    session.take(1, [queued], busy=True)
    queued_at = clock.now
    assert session.backlog.estimate(10) == "about 57 s"  # not "about 2 s": they wait 57 s
    clock.now = first + 32.0  # no arrival since: the pace runs to now (29 blocks in 32 s)
    assert session.backlog.estimate(100) == f"about {math.ceil(100 * 32.0 / 29)} s"
    left = 57.0 - (clock.now - queued_at)  # the wait under way, counting down
    assert session.backlog.estimate(10) == f"about {math.ceil(left)} s"


def test_the_limits_pace_from_the_plan_reaches_the_backlog_until_the_work_settles() -> None:
    """The window's delivery carries the pace the account's limits allow (seconds a block, from
    the engine's plan): the bar says it before the first burst shows a minute, and forgets it
    once the work settles."""
    text = "".join(f"Paragraph {n}.\n\n" for n in range(10))
    session, _seen, _clock = session_of(text)
    rate = Waiting(1, "groq", 1.0, "Groq free tier, 8,000 tokens/min")
    session.take(1, [rate], busy=True, block_s=1.5)
    assert session.backlog.estimate(280) == "about 7 min"
    session.take(1, [], busy=False)
    session.take(1, [rate], busy=True)
    assert session.backlog.estimate(280) == ""  # no pace known: none is said
