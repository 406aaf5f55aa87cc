"""Small docs projects made in a test, one per i18n layout, and the emulator's answer per language.

The emulator's answer marks each language (Step → Étape in French, Schritt in German) so a test
sees which language reached which file; every other word is echoed, markers included.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.emulator import Emulator, last_user_content

WORD = {"French": "Étape", "German": "Schritt", "Spanish": "Paso"}


def answer_in_language(messages: Sequence[Mapping[str, Any]]) -> str:
    """Step → the language's word for it (from the system prompt's language name)."""
    system = str(messages[0].get("content", "")) if messages else ""
    word = next((w for name, w in WORD.items() if name in system), "Step")
    return last_user_content(messages).replace("Step", word)


def sent(emu: Emulator) -> str:
    """Everything the provider was sent (every request's body, as JSON text)."""
    return json.dumps([r.body for r in emu.requests], ensure_ascii=False)


def use_emulator(monkeypatch: pytest.MonkeyPatch, emu: Emulator) -> None:
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    monkeypatch.setenv("GROQ_API_KEY", "gsk_test")
    monkeypatch.setenv("GROQ_BASE_URL", emu.groq_base_url)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    return path


def page(title: str, n: int = 3) -> str:
    """A page: a heading, n paragraphs that say Step, a code block (never translated)."""
    body = "".join(f"Step {i} of {title}: do the thing number {i}.\n\n" for i in range(n))
    return f"# {title}\n\n{body}```sh\nStep --not-translated\n```\n"


# layout → (files to create, relative source paths expected, target of the first source in fr)
LAYOUTS: dict[str, tuple[dict[str, str], list[str], str]] = {
    "mkdocs-suffix": (
        {
            "mkdocs.yml": "site_name: t\nplugins:\n  - i18n:\n      languages:\n"
            "        - locale: en\n          default: true\n        - locale: fr\n",
            "docs/index.md": page("Home"),
            "docs/sub/guide.md": page("Guide"),
            "docs/img/logo.png": "not markdown",
        },
        ["docs/index.md", "docs/sub/guide.md"],
        "docs/index.fr.md",
    ),
    "mkdocs-folder": (
        {
            "mkdocs.yml": "site_name: t\n",
            "docs/en/index.md": page("Home"),
            "docs/en/sub/guide.md": page("Guide"),
            "docs/fr/.keep": "",
        },
        ["docs/en/index.md", "docs/en/sub/guide.md"],
        "docs/fr/index.md",
    ),
    "docusaurus": (
        {
            "docusaurus.config.js": "module.exports = { i18n: { defaultLocale: 'en', "
            "locales: ['en', 'fr'] } };\n",
            "docs/intro.md": page("Intro"),
            "docs/tutorial/basics.mdx": page("Basics"),
            "blog/2026-01-01-hello.md": page("Hello"),
            "src/pages/index.js": "export default () => null;\n",
            "src/pages/about.md": page("About"),
        },
        [
            "blog/2026-01-01-hello.md",
            "docs/intro.md",
            "docs/tutorial/basics.mdx",
            "src/pages/about.md",
        ],
        "i18n/fr/docusaurus-plugin-content-blog/2026-01-01-hello.md",
    ),
    "hugo-folder": (
        {
            "hugo.toml": 'defaultContentLanguage = "en"\n[languages.en]\nweight = 1\n'
            "[languages.fr]\nweight = 2\n",
            "content/en/_index.md": page("Home"),
            "content/en/posts/first.md": page("First"),
        },
        ["content/en/_index.md", "content/en/posts/first.md"],
        "content/fr/_index.md",
    ),
    "hugo-suffix": (
        {
            "hugo.toml": 'defaultContentLanguage = "en"\n[languages.en]\n[languages.fr]\n',
            "content/_index.md": page("Home"),
            "content/posts/first.md": page("First"),
        },
        ["content/_index.md", "content/posts/first.md"],
        "content/_index.fr.md",
    ),
    "mirror": (
        {
            "en/index.md": page("Home"),
            "en/deep/page.md": page("Deep"),
            "fr/README.txt": "targets go here",
            "notes.txt": "left alone",
        },
        ["en/deep/page.md", "en/index.md"],
        "fr/deep/page.md",
    ),
}


def make_project(root: Path, layout: str) -> Path:
    files, _sources, _target = LAYOUTS[layout]
    for name, text in files.items():
        write(root / name, text)
    return root
