"""How long the document will take at the pooled rate limits (routing/pace.py), from what its
runs plan to send: the one plan the engine makes (Planned), summed over the runs of the revision
it is made for (an admonition's pieces are a run of their own, so the sum grows as they are
planned; the window shows the last). With it goes the pace it implies, seconds a block: the
review bar's "N to come, about …" takes it while arrivals do not show a pace yet (the first
minute of a tokens/minute limit comes in one burst). Loop thread only."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fastdesk.translate.events import Planned

if TYPE_CHECKING:
    from fastdesk.routing.router import Router
    from fastdesk.translate.job import JobSpec


class PlanEstimate:
    def __init__(self) -> None:
        self._due = True  # the first document: say how long it will take
        self._text = ""  # to tell the window (Delivery.estimate)
        self._block_s: float | None = None  # and the pace it implies (Delivery.block_s)
        # the revision whose runs' plans make the estimate, and their sum so far
        self._of: int | None = None
        self._planned = (0, 0, 0)

    @property
    def pending(self) -> bool:
        """An estimate the window has not been told."""
        return bool(self._text) or self._block_s is not None

    def first(self, revision: int) -> None:
        """The first update the translator was given: the estimate is made from its plans."""
        if self._due:
            self._due = False
            self.start(revision)

    def start(self, revision: int) -> None:
        """The estimate is made from the plans of this revision's runs (see count)."""
        self._of, self._planned = revision, (0, 0, 0)

    def replanned(self, revision: int) -> None:
        """Every block of ``revision`` is planned again: its runs are counted anew."""
        if self._of == revision:
            self._planned = (0, 0, 0)

    def count(self, plan: Planned, router: Router, spec: JobSpec) -> bool:
        """Add a run's plan; True when the estimate is new (then a delivery should tell it)."""
        from fastdesk.routing.pace import work_estimate

        if plan.revision != self._of:
            return False
        requests, tokens, blocks = self._planned
        self._planned = requests, tokens, blocks = (
            requests + plan.requests,
            tokens + plan.tokens,
            blocks + plan.blocks,
        )
        provider = spec.provider or "auto"
        found = work_estimate(router, provider, spec.model, spec.target_lang, requests, tokens)
        self._text = found.text()
        self._block_s = found.seconds / blocks if found.seconds > 0 and blocks else 0.0
        return True

    def take(self) -> tuple[str, float | None]:
        """The estimate's words ("" : nothing worth saying) and the pace in seconds a block
        (0: the limits do not slow the work; None: nothing new since the last take)."""
        told = self._text, self._block_s
        self._text, self._block_s = "", None
        return told
