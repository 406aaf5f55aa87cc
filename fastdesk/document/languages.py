"""BCP-47 language codes the app offers, with English names for prompts and menus."""

from __future__ import annotations

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
