"""BCP-47 language codes the app offers, with English names for prompts and menus."""

from __future__ import annotations

import re

LANGUAGES: dict[str, str] = {
    "ar": "Arabic",
    "bg": "Bulgarian",
    "ca": "Catalan",
    "cs": "Czech",
    "da": "Danish",
    "de": "German",
    "de-CH": "Swiss German (Standard German as written in Switzerland)",
    "el": "Greek",
    "en": "English",
    "en-GB": "British English",
    "en-US": "American English",
    "es": "Spanish",
    "es-MX": "Mexican Spanish",
    "et": "Estonian",
    "eu": "Basque",
    "fi": "Finnish",
    "fr": "French",
    "fr-CA": "Canadian French",
    "gl": "Galician",
    "he": "Hebrew",
    "hi": "Hindi",
    "hr": "Croatian",
    "hu": "Hungarian",
    "id": "Indonesian",
    "it": "Italian",
    "ja": "Japanese",
    "ko": "Korean",
    "lt": "Lithuanian",
    "lv": "Latvian",
    "nb": "Norwegian Bokmål",
    "nl": "Dutch",
    "pl": "Polish",
    "pt": "Portuguese",
    "pt-BR": "Brazilian Portuguese",
    "ro": "Romanian",
    "ru": "Russian",
    "sk": "Slovak",
    "sl": "Slovenian",
    "sr": "Serbian",
    "sv": "Swedish",
    "th": "Thai",
    "tr": "Turkish",
    "uk": "Ukrainian",
    "vi": "Vietnamese",
    "zh-Hans": "Simplified Chinese",
    "zh-Hant": "Traditional Chinese",
}


def primary(code: str) -> str:
    """The primary subtag: fr-CA → fr."""
    return code.replace("_", "-").split("-")[0].lower()


def language_name(code: str) -> str:
    """English name for a code; unknown codes fall back to their primary subtag, then the code."""
    if code in LANGUAGES:
        return LANGUAGES[code]
    lowered = {k.lower(): v for k, v in LANGUAGES.items()}
    return lowered.get(code.lower()) or LANGUAGES.get(primary(code)) or code


# RFC 5646's well-formed tag (language, script, region, variants, extensions, private use),
# "_" accepted as a separator (pt_BR, a common spelling in site generators' configurations).
# A code becomes part of file and folder names (docs/fr/, guide.fr.md): anything else, a path
# like ../../x included, is refused.
_BCP47 = re.compile(
    r"(?:[A-Za-z]{2,3}(?:[-_][A-Za-z]{3}){0,3}|[A-Za-z]{4,8})"
    r"(?:[-_][A-Za-z]{4})?"
    r"(?:[-_](?:[A-Za-z]{2}|[0-9]{3}))?"
    r"(?:[-_](?:[A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))*"
    r"(?:[-_][0-9A-WY-Za-wy-z](?:[-_][A-Za-z0-9]{2,8})+)*"
    r"(?:[-_][xX](?:[-_][A-Za-z0-9]{1,8})+)?"
)


def is_bcp47(code: str) -> bool:
    """Whether ``code`` is a well-formed BCP-47 language tag (fr, pt-BR, zh-Hant-TW, sr-Latn)."""
    return len(code) <= 64 and _BCP47.fullmatch(code) is not None
