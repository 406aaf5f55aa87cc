"""MQM review data: a reviewer's errors as fastdesk keeps them, their validation, and the score.

MQM (Multidimensional Quality Metrics, the MQM Council; TAUS DQF scores the same way): an error
has a category (the core's accuracy with omission, addition, mistranslation and untranslated;
fluency, terminology, style, locale conventions) and a severity whose weight is its penalty,
minor 1, major 5, critical 25. A block scores 100 × (1 − penalty / words), words being the
source's (the evaluation word count), never below 0; a document the same over all its reviewed
blocks. Its own module, below the events that carry a review (translate/events.py) and the
reviewer that asks for one (translate/quality.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass

SEVERITY_WEIGHTS = {"minor": 1, "major": 5, "critical": 25}
CATEGORIES = (
    "accuracy/omission",
    "accuracy/addition",
    "accuracy/mistranslation",
    "accuracy/untranslated",
    "fluency",
    "terminology",
    "style",
    "locale",
)
# The names a model may use for them (MQM's own, with and without their parent)
_CATEGORY_NAMES = {
    **{c: c for c in CATEGORIES},
    **{c.split("/")[1]: c for c in CATEGORIES if "/" in c},
    "accuracy": "accuracy/mistranslation",
    "locale conventions": "locale",
    "locale convention": "locale",
    "locale-conventions": "locale",
    "grammar": "fluency",
    "spelling": "fluency",
    "punctuation": "fluency",
}
# The reviewer's answer as a JSON schema, for providers that hold a model to one (strict
# structured outputs on Groq's gpt-oss and on Cerebras: every property required, no other, no
# "type" list; providers.groq, providers.cerebras): the answer then always parses, and
# parse_review still checks each error (a span must be in the translation)
REVIEW_SCHEMA: dict[str, object] = {
    "name": "mqm_review",
    "schema": {
        "type": "object",
        "properties": {
            "errors": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "span": {"type": "string"},
                        "category": {"type": "string", "enum": list(CATEGORIES)},
                        "severity": {"type": "string", "enum": list(SEVERITY_WEIGHTS)},
                        "explanation": {"type": "string"},
                    },
                    "required": ["span", "category", "severity", "explanation"],
                    "additionalProperties": False,
                },
            }
        },
        "required": ["errors"],
        "additionalProperties": False,
    },
}
MAX_SPAN = 300
MAX_EXPLANATION = 200
_WORD = re.compile(r"\w+")


@dataclass(frozen=True, slots=True)
class ReviewError:
    """One error the reviewer named, validated: ``span`` occurs in the translation at
    ``start``."""

    start: int
    span: str
    category: str  # one of CATEGORIES
    severity: str  # minor | major | critical
    explanation: str

    @property
    def weight(self) -> int:
        return SEVERITY_WEIGHTS[self.severity]

    def as_dict(self) -> dict[str, object]:
        return {
            "start": self.start,
            "span": self.span,
            "category": self.category,
            "severity": self.severity,
            "explanation": self.explanation,
        }


@dataclass(frozen=True, slots=True)
class QualityReview:
    """A block's review: its errors and the source's word count they are weighed against."""

    errors: tuple[ReviewError, ...]
    words: int
    provider: str = ""
    model: str = ""

    @property
    def penalty(self) -> int:
        return sum(e.weight for e in self.errors)

    @property
    def score(self) -> float:
        return mqm_score(self.penalty, self.words)

    def to_json(self) -> str:
        return json.dumps(
            {
                "errors": [e.as_dict() for e in self.errors],
                "words": self.words,
                "provider": self.provider,
                "model": self.model,
            },
            ensure_ascii=False,
        )

    @classmethod
    def from_json(cls, text: str, target: str) -> QualityReview | None:
        """A cached review, checked again against its translation (None: not ours)."""
        try:
            raw = json.loads(text)
            errors = parse_errors(raw["errors"], target)
            words = int(raw["words"])
            return cls(errors, words, str(raw.get("provider", "")), str(raw.get("model", "")))
        except (ValueError, TypeError, KeyError, RecursionError):
            return None


def mqm_score(penalty: int, words: int) -> float:
    """100 × (1 − penalty / words), at least 0, to one decimal."""
    return round(max(0.0, 100.0 * (1.0 - penalty / max(1, words))), 1)


def document_score(reviews: Iterable[QualityReview]) -> float | None:
    """The score of a document's reviewed blocks together (None: none reviewed)."""
    reviews = list(reviews)
    if not reviews:
        return None
    return mqm_score(sum(r.penalty for r in reviews), sum(r.words for r in reviews))


def word_count(text: str) -> int:
    return len(_WORD.findall(text))


def parse_review(text: str, answer: str) -> tuple[ReviewError, ...] | None:
    """The errors of a reviewer's answer that hold up; None when the answer is not the JSON
    asked for at all (then there is no review, rather than a clean one)."""
    body = _THINK.sub("", text).strip()
    fenced = _FENCE.fullmatch(body)
    if fenced:
        body = fenced.group(1).strip()
    try:
        raw = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if isinstance(raw, dict):
        raw = raw.get("errors")
    if not isinstance(raw, list):
        return None
    return parse_errors(raw, answer)


_THINK = re.compile(r"<think(?:ing)?\s*>.*?</think(?:ing)?\s*>", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```(?:json)?\s*\n?(.*?)\n?```", re.DOTALL)


def parse_errors(items: object, answer: str) -> tuple[ReviewError, ...]:
    """The valid errors of a list (see the module docstring); the others are dropped."""
    if not isinstance(items, list):
        raise TypeError("errors must be a list")
    out: list[ReviewError] = []
    for item in items:
        error = _error(item, answer)
        if error is not None and error not in out:
            out.append(error)
    return tuple(sorted(out, key=lambda e: (e.start, e.span)))


def _error(item: object, answer: str) -> ReviewError | None:
    if not isinstance(item, dict):
        return None
    span, category, severity = item.get("span"), item.get("category"), item.get("severity")
    explanation = item.get("explanation")
    if not all(isinstance(v, str) for v in (span, category, severity, explanation)):
        return None
    assert isinstance(span, str) and isinstance(category, str)  # for the type checker
    assert isinstance(severity, str) and isinstance(explanation, str)
    sub = item.get("subcategory")
    name = category.strip().lower()
    if isinstance(sub, str) and sub.strip() and "/" not in name:
        name = f"{name}/{sub.strip().lower()}"
    found = _CATEGORY_NAMES.get(name)
    level = severity.strip().lower()
    line = " ".join(explanation.split())
    start = answer.find(span) if span.strip() and len(span) <= MAX_SPAN else -1
    if found is None or level not in SEVERITY_WEIGHTS or not line or start < 0:
        return None
    if len(line) > MAX_EXPLANATION:
        line = line[: MAX_EXPLANATION - 1] + "…"
    return ReviewError(start, span, found, level, line)
