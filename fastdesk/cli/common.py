"""What the file and folder commands share: the usage error, a document's report, the engine
built from the settings and the arguments, and the JSON report.

Its own module so that ``cli/translate`` (which hands a folder over to ``cli/project``) and
``cli/project`` both import it, and neither imports the other back.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import sys
from dataclasses import dataclass, field

from fastdesk.config.fileio import atomic_write_text, os_error_line
from fastdesk.config.keys import InvalidKey
from fastdesk.config.settings import saved_settings
from fastdesk.document.blocks import Document
from fastdesk.project.house import House, house_for
from fastdesk.translate.consistency import Unit, glossary_drift, inconsistencies
from fastdesk.translate.engine import Engine
from fastdesk.translate.glossary import Glossary
from fastdesk.translate.job import JobSpec
from fastdesk.translate.mqm import QualityReview, document_score
from fastdesk.translate.readability import ReadingLevel
from fastdesk.translate.style import Style
from fastdesk.translate.wiring import (
    NotConfigured,
    build_engine,
    plain_http_warnings,
)

log = logging.getLogger("fastdesk.translate")


class UsageError(Exception):
    """Bad arguments or an unreadable input: exit status 2 with this one line."""


@dataclass
class DocReport:
    """What happened to one input, for the exit status and the JSON report."""

    input: str
    output: str | None
    doc: Document
    status: str = "pending"  # then ok | partial | failed | interrupted
    dialect: str = "commonmark"  # its project's site generator's, when it is in one
    not_translated: list[int] = field(default_factory=list)  # blocks whose answers were not
    translated: int = 0
    from_memory: int = 0
    flags: list[dict[str, object]] = field(default_factory=list)
    # the translation memory's answers not used (each line names its block and why)
    memory_refused: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    simplified: bool = False
    readability: dict[str, object] | None = None  # simplify: before, after, formula, harder
    reviewed: bool = False  # --review: the reviewer's verdicts below go in the report
    reviews: dict[int, QualityReview] = field(default_factory=dict)  # block index → review
    # block index → its translation (translatable blocks): the consistency check reads them
    translations: dict[int, str] = field(default_factory=dict)
    target_lang: str = ""

    @property
    def score(self) -> float | None:
        return document_score(self.reviews.values())

    def as_dict(self) -> dict[str, object]:
        extra: dict[str, object] = {"readability": self.readability} if self.simplified else {}
        out: dict[str, object] = {
            "input": self.input,
            "output": self.output,
            "status": self.status,
            "blocks": len(self.doc.blocks),
            "translated_blocks": self.translated,
            "from_memory": self.from_memory,
            "flags": self.flags,
            "not_translated": sorted(self.not_translated),
            **extra,
        }
        if self.memory_refused:
            out["memory_refused"] = self.memory_refused
        if self.reviewed:
            out["score"] = self.score
            out["reviewed_blocks"] = len(self.reviews)
            out["review_errors"] = [
                {"block": i, "line": self.doc.blocks[i].line, **error.as_dict()}
                for i, review in sorted(self.reviews.items())
                for error in review.errors
            ]
        return out


def wants_review(args: argparse.Namespace) -> bool:
    """``--review``, or ``--min-score`` (which needs the scores)."""
    return bool(getattr(args, "review", False) or getattr(args, "min_score", None) is not None)


def build_job(args: argparse.Namespace) -> tuple[Engine, JobSpec, House]:
    """The engine, the job the arguments ask for (settings fill the rest) and the house of the
    first input (a file's docs project, or the folder's): its glossary, house style and the
    editor's corrections go with every request. UsageError when no provider is configured, a
    key is unusable or --reading-level is not one."""
    settings = saved_settings()
    house = house_for(args.inputs[0], settings)
    mode = args.mode or settings.mode
    review = wants_review(args)
    if review and mode != "translate":
        raise UsageError("--review and --min-score judge translations: not with --mode simplify")
    spec = house.apply(
        JobSpec(
            mode=mode,
            target_lang=args.lang or settings.target_language,
            provider=args.provider,
            model=args.model or None,
            use_memory=not args.no_memory,
            review=review,
        )
    )
    spec = dataclasses.replace(spec, style=_reading_level(args, mode, spec.style))
    try:
        engine = build_engine(
            settings,
            provider=args.provider,
            use_memory=not args.no_memory,
            concurrency=args.concurrency,
            patient_review=review,
            backfill=True,  # nobody waits for a block of a command-line run
        )
    except (NotConfigured, InvalidKey) as exc:
        raise UsageError(str(exc)) from None
    for warning in plain_http_warnings(engine.router.providers, settings):  # once per run
        log.warning("%s", warning)
    return engine, spec, house


def _reading_level(args: argparse.Namespace, mode: str, style: Style | None) -> Style | None:
    """The house style with --reading-level on top."""
    level = getattr(args, "reading_level", None)
    if not level:
        return style
    if mode != "simplify":
        raise UsageError("--reading-level goes with --mode simplify")
    try:
        return (style or Style()).with_level(ReadingLevel.parse(level))
    except ValueError as exc:
        raise UsageError(f"--reading-level: {exc}") from None


def units(reports: list[DocReport]) -> list[Unit]:
    """Every translated block of the reports, for the consistency check."""
    return [
        Unit(r.input, i, r.doc.blocks[i].line, r.doc.blocks[i].text, text, r.target_lang)
        for r in reports
        for i, text in sorted(r.translations.items())
        if i < len(r.doc.blocks)
    ]


def write_report(
    target: str | None,
    reports: list[DocReport],
    requests: list[dict[str, object]],
    wall_ms: float,
    glossary: Glossary | None = None,
) -> bool:
    """Write the report; False (after one line) when it could not be (the outputs stay). With
    translations: ``consistency`` (a source translated several ways, sources given one
    translation, across the documents) and, with a ``glossary``, ``glossary_drift`` (each
    term rendered other than the glossary says, or several ways, and where)."""
    if not target:
        return True
    purposes = [r.pop("purpose", None) for r in requests]
    for request, purpose in zip(requests, purposes, strict=True):
        if purpose == "batch":  # answered by a Batch API job, at its price
            request["batch"] = True
    reviews = [r for r, p in zip(requests, purposes, strict=True) if p == "review"]
    requests = [r for r in requests if r not in reviews]
    batched = [r for r in requests if r.get("batch")]
    totals: dict[str, object] = {
        "requests": len(requests),
        "prompt_tokens": _total(requests, "prompt_tokens"),
        "completion_tokens": _total(requests, "completion_tokens"),
        # prompt tokens the providers served from their caches, and their share of the prompt
        "cached_tokens": _total(requests, "cached_tokens"),
        "cached_share": _share(requests),
        "cost_usd": _cost(requests),
        "wall_ms": round(wall_ms, 1),
    }
    if batched:  # a --batch run: what its jobs answered, apart
        totals["batch_requests"] = len(batched)
        totals["batch_cost_usd"] = _cost(batched)
        totals["live_requests"] = len(requests) - len(batched)
    payload: dict[str, object] = {
        "documents": [r.as_dict() for r in reports],
        "requests": requests,
        "totals": totals,
    }
    translated = units(reports)
    if translated:
        payload["consistency"] = [i.as_dict() for i in inconsistencies(translated)]
        if glossary:
            drifts = glossary_drift(translated, glossary)
            payload["glossary_drift"] = [t.as_dict() for t in drifts if t.drifts]
    if any(r.reviewed for r in reports):  # counted apart: a review is not a translation
        payload["review_requests"] = reviews
        totals["review_requests"] = len(reviews)
        totals["review_cost_usd"] = _cost(reviews)
    text = json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
    if target == "-":
        sys.stderr.write(text)
        return True
    try:
        atomic_write_text(target, text)
    except OSError as exc:
        line = os_error_line(target, exc, "report not written")
        print(f"fastdesk translate: {line}", file=sys.stderr)
        return False
    return True


def _cost(requests: list[dict[str, object]]) -> float | None:
    """Their total cost; None when one has no known price (never counted as $0)."""
    costs = [r["cost_usd"] for r in requests]
    known = [float(c) for c in costs if isinstance(c, int | float)]
    return sum(known) if len(known) == len(costs) else None


def _share(requests: list[dict[str, object]]) -> float | None:
    """Cached prompt tokens ÷ prompt tokens (0..1); None when no server reported a cache."""
    cached, prompt = _total(requests, "cached_tokens"), _total(requests, "prompt_tokens")
    return round(cached / prompt, 3) if cached is not None and prompt else None


def _total(requests: list[dict[str, object]], name: str) -> int | None:
    """The sum of what the servers reported; None (not 0) when none reported any."""
    known = [value for r in requests if isinstance(value := r[name], int)]
    return sum(known) if known else None
