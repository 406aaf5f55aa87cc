"""A second opinion on meaning: a reviewer model lists a translation's errors, MQM-style, and
back-translation for editors who do not read the target language.

The deterministic checks (fastdesk.translate.checks, meaning_checks) see numbers, structure and
dropped sentences, not a flipped negation or a product name translated. So after a block's
translation settles, :class:`Reviewer` asks a reviewer model (a setting; by default the fastest
configured model, another one than the model that translated when there is one) for the errors
it sees, as JSON: the span in the translation, an MQM core category, a severity and a one-line
explanation. The answer is validated strictly (fastdesk.translate.mqm.parse_review): a span that
does not occur in the translation, an unknown category or severity, anything that is not the
JSON asked for is dropped and never shown; it is scored there too.

Reviews are cached in the translation memory beside the translation (keyed by source, answer and
language, so a corrected block is judged again and an unchanged one never), run after the
translations, at the lowest rank in the engine's request slots, and only within the rate budget:
a reviewer that would have to wait (the limiter, a 429) gives up the review rather than hold a
slot, unless told to be patient (the command line's ``--review``). Their requests carry the
purpose "review", so their cost is counted apart.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from fastdesk.document.languages import language_name
from fastdesk.providers.base import TextDelta, estimate_tokens
from fastdesk.routing.router import AllProvidersFailed, AttemptDone, Backoff, Restart, Router
from fastdesk.translate.events import Emit, RequestDone
from fastdesk.translate.memory import Memory, MemoryKey
from fastdesk.translate.mqm import REVIEW_SCHEMA, QualityReview, parse_review, word_count
from fastdesk.translate.prompts import PROMPT_VERSION, ThinkStripper, build_messages, system_prompt

Pair = tuple[str, str]

REVIEW_VERSION = "1"  # bump when the reviewer's instructions change: part of the cache key
REVIEW_SHARE = 0.5  # reviews use at most this share of a minute's requests: translations first


def cached_review(
    memory: Memory | None, source: str, answer: str, target_lang: str, *, touch: bool = True
) -> QualityReview | None:
    """The memory's review of ``answer`` (a block's translation of ``source``), or None."""
    if memory is None:
        return None
    payload = memory.get_review(review_key(source, answer, target_lang), touch=touch)
    return None if payload is None else QualityReview.from_json(payload, answer)


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


# --- the reviewer --------------------------------------------------------------------------------


class _NoRoom(Exception):
    """The reviewer would have to wait: the review is given up (translations go first)."""


class Reviewer:
    """Reviews and back-translates blocks through the router; caches both in the memory.

    ``model``: "provider/model" (the user's choice) or "" (the fastest configured choice,
    another than the model that translated when there is one). ``patient``: wait for the rate
    limit (the command line) instead of giving the review up (the window)."""

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

    def choice(self, lang: str, translated_by: Pair | None = None) -> Pair | None:
        """Which (provider, model) reviews a translation into ``lang`` made by ``translated_by``."""
        provider, sep, model = self.model.partition("/")
        if sep and provider in self.router.providers and model:
            return provider, model
        ranked = self.router.candidates("auto", None, expected_tokens=200, lang=lang)
        others = [p for p in ranked if p != translated_by] or ranked
        return others[0] if others else None

    def budget_allows(self, lang: str) -> bool:
        """Whether reviews are on by default: when the reviewer's limits are the user's own
        (settings' [rate_limits]: their tier), not a free tier's, whose minute goes to the
        translations, nor unknown ones (docs/quality.md)."""
        pair = self.choice(lang)
        return pair is not None and self.router.limiter.yours(pair)

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
        translated_by: Pair | None = None,
        emit: Emit | None = None,
        revision: int = 0,
    ) -> QualityReview | None:
        """The review of ``answer`` (cached, else asked for); None when there is none: no
        reviewer, no room in the budget, the request failed, or the answer was junk."""
        hit = self.cached(source, answer, target_lang)
        if hit is not None:
            return hit
        pair = self.choice(target_lang, translated_by)
        if pair is None:
            return None
        messages = review_messages(source, answer, source_lang=source_lang, target_lang=target_lang)
        tokens = estimate_tokens(*(m["content"] for m in messages)) + 256
        if not self.patient and not self.has_room(pair, tokens):
            return None
        got = await self._ask(
            messages,
            pair,
            emit,
            revision,
            max_tokens=1024 + len(answer) // 2,
            json_schema=REVIEW_SCHEMA,
        )
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
        budget = 3 * estimate_tokens(answer) + 256
        got = await self._ask(messages, pair, emit, revision, max_tokens=budget)
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
        json_schema: Mapping[str, object] | None = None,
    ) -> tuple[str, str, str] | None:
        """One request to ``pair``: (answer, provider, model) when it completed, else None;
        ``json_schema``: the answer's shape, where the provider can hold the model to it."""
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
            json_schema=json_schema,
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
