"""Translate Project's question when the provider has a Batch API: now, or in a batch at half
price within 24 h, both costs said, the project's pending jobs listed. Thin: the jobs are
fastdesk.project.batch_flow's (what the command line's ``--batch`` does), the run
fastdesk.ui.workbench.project_run's; this asks and says.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtWidgets import QMessageBox, QWidget

from fastdesk.project.batch_flow import Offer
from fastdesk.project.batch_jobs import Job
from fastdesk.routing.pricing import format_cost

__all__ = ["ask", "submitted_text"]


def ask(parent: QWidget, offer: Offer, choose: Callable[[str], object]) -> QMessageBox:
    """A window-modal question (objectName ``batchOffer``); ``choose("live" | "batch")`` is
    called with the answer (nothing on Cancel). Returned shown."""
    box = QMessageBox(parent)
    box.setObjectName("batchOffer")
    box.setWindowTitle("Translate Project")
    box.setIcon(QMessageBox.Icon.Question)
    if offer.requests:
        box.setText(
            f"Translate {offer.blocks} blocks of {offer.pairs} pages now, or in a batch at "
            "half price, answered within 24 hours?"
        )
    else:
        box.setText("Every stale block is in a batch job already.")
    lines = [f"Now: about {format_cost(offer.live_usd)}."]
    if offer.requests:
        lines.append(
            f"In a batch: about {format_cost(offer.batch_usd)}; Translate Project again once it "
            "is done to write the pages."
        )
    if offer.pending:
        lines += ["", "Pending batch jobs:", *offer.pending]
    box.setInformativeText("\n".join(lines))
    now = box.addButton("Translate &Now", QMessageBox.ButtonRole.AcceptRole)
    now.setObjectName("batchOfferNow")
    now.setAccessibleName("Translate now")
    choices = {now: "live"}
    if offer.requests:
        later = box.addButton("In a &Batch (half price)", QMessageBox.ButtonRole.ActionRole)
        later.setObjectName("batchOfferBatch")
        later.setAccessibleName("Translate in a batch, half price, within 24 hours")
        choices[later] = "batch"
        box.setDefaultButton(later)
    box.addButton(QMessageBox.StandardButton.Cancel)

    def clicked() -> None:
        choice = choices.get(box.clickedButton())  # type: ignore[call-overload]
        if choice is not None:
            choose(choice)

    box.finished.connect(clicked)
    box.open()
    return box


def submitted_text(jobs: Sequence[Job]) -> str:
    """ "Batch job … submitted: 24 requests, about $0.0015 (half the live price) …"."""
    usd = [j.estimate_usd for j in jobs]
    total = None if any(u is None for u in usd) else sum(u or 0.0 for u in usd)
    names = ", ".join(j.id for j in jobs)
    return (
        f"Batch job {names} submitted: {sum(len(j.requests) for j in jobs)} requests, about "
        f"{format_cost(total)} (half the live price); Translate Project again once it is done "
        "(within 24 h) to write the pages"
    )
