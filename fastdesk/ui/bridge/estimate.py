"""How long the document will take at the pooled rate limits (routing/pace.py), from what its
runs plan to send: the one plan the engine makes (Planned), summed over the runs of the revision
it is made for (an admonition's pieces are a run of their own, so the sum grows as they are
planned; the window shows the last). Loop thread only."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fastdesk.translate.events import Planned

if TYPE_CHECKING:
    from fastdesk.routing.router import Router
    from fastdesk.translate.engine import JobSpec


class PlanEstimate:
    def __init__(self) -> None:
        self._due = True  # the first document: say how long it will take
        self._text = ""  # to tell the window (WorkerBatch.estimate)
        # the revision whose runs' plans make the estimate, and their sum so far
        self._of: int | None = None
        self._planned = (0, 0)

    @property
    def pending(self) -> bool:
        """An estimate the window has not been told."""
        return bool(self._text)

    def first(self, revision: int) -> None:
        """The first update the session was given: the estimate is made from its plans."""
        if self._due:
            self._due = False
            self.start(revision)

    def start(self, revision: int) -> None:
        """The estimate is made from the plans of this revision's runs (see count)."""
        self._of, self._planned = revision, (0, 0)

    def replanned(self, revision: int) -> None:
        """Every block of ``revision`` is planned again: its runs are counted anew."""
        if self._of == revision:
            self._planned = (0, 0)

    def count(self, plan: Planned, router: Router, spec: JobSpec) -> bool:
        """Add a run's plan; True when the estimate is new (then a batch should tell it)."""
        from fastdesk.routing.pace import estimate, workload_tokens

        if plan.revision != self._of:
            return False
        requests, tokens = self._planned
        self._planned = requests, tokens = requests + plan.requests, tokens + plan.tokens
        pairs = router.candidates(spec.provider or "auto", spec.model, lang=spec.target_lang)
        workload = workload_tokens(tokens, requests)
        self._text = estimate(router.limiter, pairs, requests, workload).text()
        return True

    def take(self) -> str:
        text, self._text = self._text, ""
        return text
