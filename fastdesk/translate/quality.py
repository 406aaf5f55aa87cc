"""A second opinion on meaning: a reviewer model lists a translation's errors, MQM-style, and
back-translation for editors who do not read the target language.

The deterministic checks (fastdesk.translate.checks, meaning_checks) see numbers, structure and
dropped sentences, not a flipped negation or a product name translated. So after a block's
translation settles, :class:`Reviewer` asks a reviewer model (a setting; by default the fastest
configured model, another one than the translator's when there is one) for the errors it sees,
as JSON: the span in the translation, an MQM core category, a severity and a one-line
explanation. The answer is validated strictly (:func:`parse_review`): a span that does not occur
in the translation, an unknown category or severity, anything that is not the JSON asked for is
dropped and never shown.

Score (MQM, as in the MQM Council's scoring model and TAUS DQF): each error costs its severity's
weight, minor 1, major 5, critical 25; the block's score is 100 × (1 − penalty / words), words
being the source's (the evaluation word count), never below 0. A document's score is the same
over all its reviewed blocks.

Reviews are cached in the translation memory beside the translation (keyed by source, answer and
language, so a corrected block is judged again and an unchanged one never), run after the
translations, at the lowest rank in the engine's request slots, and only within the rate budget:
a reviewer that would have to wait (the limiter, a 429) gives up the review rather than hold a
slot, unless told to be patient (the command line's ``--review``). Their requests carry the
purpose "review", so their cost is counted apart.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from fastdesk.document.languages import language_name
from fastdesk.providers.base import TextDelta
from fastdesk.routing.router import AllProvidersFailed, AttemptDone, Backoff, Restart, Router
from fastdesk.translate.events import EngineEvent, RequestDone
from fastdesk.translate.memory import Memory, MemoryKey
from fastdesk.translate.prompts import PROMPT_VERSION, ThinkStripper, build_messages, system_prompt

Pair = tuple[str, str]
Emit = Callable[[EngineEvent], None]

REVIEW_VERSION = "1"  # bump when the reviewer's instructions change: part of the cache key
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
REVIEW_SHARE = 0.5  # reviews use at most this share of a minute's requests: translations first
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


def cached_review(
    memory: Memory | None, source: str, answer: str, target_lang: str, *, touch: bool = True
) -> QualityReview | None:
    """The memory's review of ``answer`` (a block's translation of ``source``), or None."""
    if memory is None:
        return None
    payload = memory.get_review(review_key(source, answer, target_lang), touch=touch)
    return None if payload is None else QualityReview.from_json(payload, answer)


def word_count(text: str) -> int:
    return len(_WORD.findall(text))


def review_key(source: str, answer: str, target_lang: str) -> str:
    """The cache key of a review: the block's source and answer (a changed one is new)."""
    parts = (REVIEW_VERSION, target_lang, source, answer)
    return hashlib.blake2b("\x1f".join(parts).encode(), digest_size=20).hexdigest()


# --- the request ---------------------------------------------------------------------------------


def review_messages(
    source: str, answer: str, *, source_lang: str | None, target_lang: str
) -> list[dict[str, str]]:
    """The reviewer's instructions and the pair it judges."""
    src_name = language_name(source_lang) if source_lang else "the source language"
    tgt_name = language_name(target_lang)
    system = (
        f"You are a professional translation reviewer using MQM. You get a Markdown fragment in "
        f"{src_name} and its translation into {tgt_name} ({target_lang}). List every error of "
        "the translation; do not rewrite it.\n\n"
        "Answer with JSON only, no prose, no code fence:\n"
        '{"errors": [{"span": "...", "category": "...", "severity": "...", '
        '"explanation": "..."}]}\n'
        "- span: the erroneous words copied exactly from the translation (for an omission: the "
        "translation's words where the missing text belongs).\n"
        "- category: one of accuracy/omission, accuracy/addition, accuracy/mistranslation, "
        "accuracy/untranslated, fluency, terminology, style, locale.\n"
        "- severity: minor (a flaw a reader barely notices), major (changes or obscures the "
        "meaning), critical (wrong in a way that could harm: a negation flipped, a number "
        "changed).\n"
        "- explanation: one short line, in English.\n"
        "Markdown, code, URLs and placeholders are not errors when kept unchanged. "
        'If the translation has no error, answer {"errors": []}.'
    )
    user = f"Source:\n<<<\n{source}\n>>>\n\nTranslation:\n<<<\n{answer}\n>>>"
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


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


# --- the reviewer --------------------------------------------------------------------------------


class _NoRoom(Exception):
    """The reviewer would have to wait: the review is given up (translations go first)."""


class Reviewer:
    """Reviews and back-translates blocks through the router; caches both in the memory.

    ``model``: "provider/model" (the user's choice) or "" (the fastest configured choice,
    another than the translator's when there is one). ``patient``: wait for the rate limit (the
    command line) instead of giving the review up (the window)."""

    def __init__(
        self,
        router: Router,
        memory: Memory | None = None,
        *,
        model: str = "",
        patient: bool = False,
        share: float = REVIEW_SHARE,
    ) -> None:
        self.router = router
        self.memory = memory
        self.model = model
        self.patient = patient
        self.share = share

    def choice(self, lang: str, translator: Pair | None = None) -> Pair | None:
        """Which (provider, model) reviews a translation into ``lang`` made by ``translator``."""
        provider, sep, model = self.model.partition("/")
        if sep and provider in self.router.providers and model:
            return provider, model
        ranked = self.router.candidates("auto", None, expected_tokens=200, lang=lang)
        others = [p for p in ranked if p != translator] or ranked
        return others[0] if others else None

    def has_room(self, pair: Pair, tokens: int) -> bool:
        """Whether a review may go now without taking a translation's place in the budget."""
        if self.router.limiter.wait_s(pair, tokens) > 0:
            return False
        room = self.router.limiter.headroom(pair, tokens)
        if room.per_minute is not None and len(room.sent) >= self.share * room.per_minute:
            return False
        return room.left_today is None or room.left_today > 1

    def cached(self, source: str, answer: str, target_lang: str) -> QualityReview | None:
        return cached_review(self.memory, source, answer, target_lang)

    async def review(
        self,
        source: str,
        answer: str,
        *,
        source_lang: str | None,
        target_lang: str,
        translator: Pair | None = None,
        emit: Emit | None = None,
        revision: int = 0,
    ) -> QualityReview | None:
        """The review of ``answer`` (cached, else asked for); None when there is none: no
        reviewer, no room in the budget, the request failed, or the answer was junk."""
        hit = self.cached(source, answer, target_lang)
        if hit is not None:
            return hit
        pair = self.choice(target_lang, translator)
        if pair is None:
            return None
        messages = review_messages(source, answer, source_lang=source_lang, target_lang=target_lang)
        tokens = sum(len(m["content"]) for m in messages) // 4 + 256
        if not self.patient and not self.has_room(pair, tokens):
            return None
        got = await self._ask(messages, pair, emit, revision, max_tokens=1024 + len(answer) // 2)
        if got is None:
            return None
        text, provider, model = got
        errors = parse_review(text, answer)
        if errors is None:
            return None
        result = QualityReview(errors, word_count(source), provider, model)
        if self.memory is not None:
            self.memory.put_review(review_key(source, answer, target_lang), result.to_json())
        return result

    async def back_translate(
        self,
        answer: str,
        *,
        source_lang: str,
        target_lang: str,
        emit: Emit | None = None,
        revision: int = 0,
    ) -> str | None:
        """``answer`` (a block's translation into ``target_lang``) translated back into
        ``source_lang``, for an editor who does not read the target language; cached in the
        memory under its own mode ("back", never exported as a translation)."""
        key = MemoryKey(answer, "back", source_lang, PROMPT_VERSION)
        if self.memory is not None:
            hit = self.memory.get(key)
            if hit is not None:
                return hit.answer
        pair = self.choice(source_lang)
        if pair is None:
            return None
        system = system_prompt("translate", source_lang, model=pair[1])
        messages = build_messages(system, answer)
        got = await self._ask(messages, pair, emit, revision, max_tokens=3 * len(answer) // 4 + 256)
        if got is None or not got[0].strip():
            return None
        text, provider, model = got
        if self.memory is not None:
            self.memory.put(key, text, provider=provider, model=model)
        return text

    async def _ask(
        self,
        messages: list[dict[str, str]],
        pair: Pair,
        emit: Emit | None,
        revision: int,
        *,
        max_tokens: int,
    ) -> tuple[str, str, str] | None:
        """One request to ``pair``: (answer, provider, model) when it completed, else None."""
        acc: list[str] = []
        stripper = ThinkStripper()
        finish: str | None = None
        stream = self.router.stream(
            messages,
            provider=pair[0],
            model=pair[1],
            max_tokens=max_tokens,
            purpose="review",
            blocks=1,
            expected_tokens=200,
            hedge=False,
        )
        try:
            async for event in stream:
                if isinstance(event, TextDelta):
                    acc.append(stripper.feed(event.text))
                elif isinstance(event, Restart):
                    acc.clear()
                    stripper = ThinkStripper()
                elif isinstance(event, AttemptDone):
                    finish = event.finish_reason
                    if emit is not None:
                        emit(RequestDone(revision, event.stats))
                elif isinstance(event, Backoff) and not self.patient:
                    raise _NoRoom(event.reason)
        except (AllProvidersFailed, _NoRoom):
            return None
        finally:
            await stream.aclose()  # type: ignore[attr-defined]  # stops a given-up attempt
        if finish != "stop":
            return None
        acc.append(stripper.finish())
        return "".join(acc), pair[0], pair[1]
