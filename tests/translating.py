"""A model that translates every word it receives, for the emulator: the worst case a real
model comes close to on a docs site, where the generator reads much of a page as syntax.

Every run of letters becomes a French word (the same word for the same English word), in
prose, link text, attribute lists, HTML comments, JSX expressions, shortcode bodies and
reference labels alike. It keeps only what a real model reliably keeps: fastdesk's block
markers, code spans and fences, URLs (link and image destinations, autolinks, bare URLs) and
tokens without letters (numbers, ``{{1}}``). So whatever fastdesk sends that a site generator
reads as syntax comes back broken, and a built site shows it.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

from tests.emulator import last_user_content

__all__ = ["FRENCH", "translate_everything", "translate_text", "upper_everything", "upper_text"]

FRENCH = (
    "le", "la", "les", "une", "des", "pour", "avec", "dans", "sur", "elle", "nous", "vous",
    "texte", "page", "réglage", "thème", "fichier", "modèle", "réponse", "encore", "très",
    "été", "problème", "système", "écrire", "donnée", "même", "où", "déjà", "après",
    "première", "fenêtre", "être", "étape", "réseau", "sécurité", "qui", "que", "mais", "aussi",
    "automatiquement", "configuration", "documentation", "téléchargement", "paramètres",
    "navigation", "traduction", "extension", "recherche", "développeur", "personnalisé",
    "à", "y", "ou", "et", "un", "de", "en",
)  # fmt: skip

# What is kept: marker lines, fenced code, code spans, link destinations, autolinks, URLs
_KEPT = re.compile(
    r"^[ \t]*<!--fd-[0-9a-f]+:\d+-->[ \t]*$"
    r"|^[ \t]*(?P<fence>`{3,}|~{3,})[^\n]*\n(?:.*\n)*?[ \t]*(?P=fence)[ \t]*$"
    r"|(?P<ticks>`+)(?:(?!(?P=ticks)).)+?(?P=ticks)"
    r"|\]\([^)\s]*"
    r"|<[a-z][a-z0-9+.-]*:[^>\s]*>"
    r"|https?://[^\s)>\]\"']+",
    re.MULTILINE | re.IGNORECASE,
)
_WORD = re.compile(r"[A-Za-z]+")


_BY_LENGTH: dict[int, list[str]] = {}
for _word in FRENCH:
    _BY_LENGTH.setdefault(len(_word), []).append(_word)


def _french(word: str) -> str:
    """A French word about as long (a translation is about as long as its source)."""
    size = min(_BY_LENGTH, key=lambda n: (abs(n - len(word)), n))
    choices = _BY_LENGTH[size]
    out = choices[zlib.crc32(word.lower().encode()) % len(choices)]
    return out.capitalize() if word[:1].isupper() else out


def translate_text(text: str) -> str:
    """``text`` with every word outside code and URLs replaced by a French one."""
    parts, last = [], 0
    for kept in _KEPT.finditer(text):
        parts.append(_WORD.sub(lambda m: _french(m.group(0)), text[last : kept.start()]))
        parts.append(kept.group(0))
        last = kept.end()
    parts.append(_WORD.sub(lambda m: _french(m.group(0)), text[last:]))
    return "".join(parts)


def translate_everything(messages: Sequence[Mapping[str, Any]]) -> str:
    """The emulator's answer: the last user message, every word translated."""
    return translate_text(last_user_content(messages))


def upper_text(text: str) -> str:
    """``text`` with every word outside code and URLs upper-cased: a model whose every
    change shows (a lowercase letter left in the prose of its target was never sent)."""
    parts, last = [], 0
    for kept in _KEPT.finditer(text):
        parts.append(_WORD.sub(lambda m: m.group(0).upper(), text[last : kept.start()]))
        parts.append(kept.group(0))
        last = kept.end()
    parts.append(_WORD.sub(lambda m: m.group(0).upper(), text[last:]))
    return "".join(parts)


def upper_everything(messages: Sequence[Mapping[str, Any]]) -> str:
    """The emulator's answer: the last user message, every word upper-cased."""
    return upper_text(last_user_content(messages))
