"""A whole docs site, cold, on a paid key, against a loopback OpenAI-compatible server.

    .venv/bin/python benchmarks/bench_site.py DOCS_DIR [--to fr[,de…]] [--concurrency N] [--runs 1]

DOCS_DIR: a MkDocs site's folder (with its mkdocs.yml beside or inside it), e.g. Python-Markdown's
``docs/`` (github.com/Python-Markdown/markdown). It is copied to a temporary folder and
``fastdesk translate DIR --to LANG --provider openai`` runs on it as a fresh process, as a user
runs it, memory off. The server (tests/emulator.py, OpenAI flavour) answers after 150 ms to
first token at 800 tokens/s, states a paid tier in its headers (2,000,000 tokens/min), caches
prompts by exact prefix as the providers do, and "translates every word": each prose word of a
request's text comes back spelt backwards, its first "e" accented as the target language
accents it, the commonest English words given in that language (so the language identifier
reads it as that language), code, URLs, link targets, tags, attribute lists and the marker
lines kept; no answer is an echo and every answer is about as long as its source. It follows
the other tools' formats as a model would (benchmarks/bench_peers.py runs them against this
same server): a request whose text is a JSON object (mdpo-llm's batches) is answered with the
same keys, each value translated; their placeholders (``@@LINE_0001@@``, ``⟦P:0⟧``) are kept
like fastdesk's markers; a user message that gives instructions before "Content to translate:"
(markdown-translate-ai) has only what follows translated.

Printed: wall time, requests, requests per page and language, the requests that carry one
block (and how many of those are retries with a firmer instruction), prompt characters (and the
first, shared system message's share), prompt tokens, cached prompt tokens, uncached prompt
tokens ÷ the source's tokens (the pages' characters ÷ 4, as the server counts, once per
language), completion tokens.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.emulator import Emulator, PromptCache, RateLimits, last_user_content

ROOT = Path(__file__).resolve().parents[1]
PAID = RateLimits(
    limit_requests=500_000,
    remaining_requests=499_999,
    reset_requests_s=0.2,
    limit_tokens=2_000_000,
    remaining_tokens=1_999_000,
    reset_tokens_s=0.1,
)


KEPT = re.compile(
    r"(```.*?```|~~~.*?~~~|`[^`\n]*`|\]\([^)]*\)|<[^>\n]*>|https?://\S+|\{[^}\n]*\}"
    r"|^\s*\[[^\]]+\]:.*$|^<!--fd-.*$|&\w+;|\[[^\]]*\]\[[^\]]*\]|@@[^@\s]+@@|⟦[^⟧\s]*⟧)",
    re.S | re.M,
)
WORD = re.compile(r"[A-Za-z]{2,}")
MARKER = re.compile(r"^<!--fd-\w+:\d+-->$", re.M)
# a user message that opens with instructions and then gives the text (markdown-translate-ai):
# only the text is translated and answered
INSTRUCTIONS = re.compile(r"\A.*?\n(?:Content|Text) to translate:\n\n", re.S)


# each language has its accents (an é in a German answer is flagged, and asked again) and its
# commonest words, given as they are so that the language identifier reads the answer as the
# language asked for (backwards words alone read as anything: "not German", asked again)
ACCENTS = {"French": "é", "German": "ä", "Spanish": "á"}
_ENGLISH = "the and of to is in for with that this it are be not or on by as you which can from"
_COMMON = {
    "French": "le et de à est dans pour avec que ce il sont être pas ou sur par comme vous qui "
    "peut depuis",
    "German": "die und von zu ist in für mit dass dies es sind sein nicht oder auf durch als Sie "
    "welche kann aus",
    "Spanish": "el y de a es en para con que esto lo son ser no o sobre por como usted cual "
    "puede desde",
}
COMMON = {
    name: dict(zip(_ENGLISH.split(" "), words.split(" "), strict=True))
    for name, words in _COMMON.items()
}


def _backwards(word: str, accent: str, common: Mapping[str, str]) -> str:
    found = common.get(word.lower())
    if found is not None:
        return found[0].upper() + found[1:] if word[0].isupper() else found
    turned = word[::-1].lower().replace("e", accent, 1)
    return turned[0].upper() + turned[1:] if word[0].isupper() else turned


def every_word(messages: Sequence[Mapping[str, Any]]) -> str:
    """The request's text with every prose word "translated" into the language the first
    system message names (French by default): spelt backwards with an accent of that language,
    its commonest words given in it. A JSON object (blocks by id, as mdpo-llm sends them) keeps
    its keys and has its values translated."""
    text = INSTRUCTIONS.sub("", last_user_content(messages), count=1)
    system = str(messages[0].get("content", "")) if messages else ""
    name = next((n for n in ACCENTS if f"into {n}" in system), "French")
    if text.lstrip().startswith("{"):
        try:
            blocks = json.loads(text)
        except ValueError:
            blocks = None
        if isinstance(blocks, dict):
            return json.dumps(_values_translated(blocks, name), ensure_ascii=False)
    return _translated(text, name)


def _values_translated(value: Any, name: str) -> Any:
    if isinstance(value, str):
        return _translated(value, name)
    if isinstance(value, dict):
        return {key: _values_translated(item, name) for key, item in value.items()}
    if isinstance(value, list):
        return [_values_translated(item, name) for item in value]
    return value


def _translated(text: str, name: str) -> str:
    accent, common = ACCENTS[name], COMMON[name]

    def turn(m: re.Match[str]) -> str:
        return _backwards(m.group(0), accent, common)

    out, last = [], 0
    for kept in KEPT.finditer(text):
        out += [WORD.sub(turn, text[last : kept.start()]), kept.group(0)]
        last = kept.end()
    out.append(WORD.sub(turn, text[last:]))
    return "".join(out)


def site_server(cache: PromptCache) -> Emulator:
    """The loopback server every tool is measured against: 150 ms to first token, 800
    tokens/s (streamed or whole), a paid tier in its headers, ``cache`` as its prompt cache,
    the model :func:`every_word`."""
    return Emulator(
        ttfb=0.15,
        tokens_per_second=800,
        rate_limits=PAID,
        prompt_cache=cache,
        answer=every_word,
    )


def site_copy(docs: Path, into: Path) -> tuple[Path, int, int]:
    """The site copied under ``into``; (its root, its pages, the pages' characters)."""
    root = into / "site"
    config = next(
        (p for p in (docs / "mkdocs.yml", docs.parent / "mkdocs.yml") if p.exists()), None
    )
    shutil.copytree(docs, root / "docs")
    if config is not None:
        shutil.copy(config, root / "mkdocs.yml")
    pages = sorted((root / "docs").rglob("*.md"))
    return root, len(pages), sum(len(p.read_text(encoding="utf-8")) for p in pages)


def run_once(docs: Path, lang: str, concurrency: int | None) -> dict[str, float]:
    tmp = Path(tempfile.mkdtemp(prefix="bench-site-"))
    root, pages, chars = site_copy(docs, tmp)
    report = tmp / "report.json"
    cache = PromptCache()
    with site_server(cache) as emu:
        env = {
            **os.environ,
            "FASTDESK_HOME": str(tmp / "home"),
            "FASTDESK_OPENAI_BASE_URL": emu.openai_base_url,
            "FASTDESK_OPENAI_API_KEY": "sk-bench-site",
            "FASTDESK_OPENAI_MODEL": "bench-model",
            "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
            "PYTHONPATH": str(ROOT),
        }
        for name in ("GROQ_API_KEY", "CEREBRAS_API_KEY"):
            env.pop(name, None)
        args = ["translate", str(root), "--to", lang, "--provider", "openai", "--no-memory"]
        args += ["--report", str(report)]
        if concurrency:
            args += ["--concurrency", str(concurrency)]
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "fastdesk", *args], env=env, capture_output=True, text=True
        )
        wall = time.perf_counter() - start
        bodies = [r.body for r in emu.chat_requests]
    if done.returncode not in (0, 1):
        sys.exit(f"fastdesk exited {done.returncode}: {done.stderr[-2000:]}")
    data = json.loads(report.read_text(encoding="utf-8"))
    totals = data["totals"]
    prompt_chars = sum(len(str(m["content"])) for b in bodies for m in b["messages"])
    system_chars = sum(len(str(b["messages"][0]["content"])) for b in bodies)
    cached = cache.total  # as the server counted them (the report's totals say the same)
    sizes = sorted(max(1, len(MARKER.findall(last_user_content(b["messages"])))) for b in bodies)
    retries = sum(1 for b in bodies if "previous answer was rejected" in json.dumps(b["messages"]))
    singles = sum(1 for n in sizes if n == 1)
    if os.environ.get("BENCH_SITE_WHY"):
        why: dict[str, int] = {}
        for b in bodies:
            found = re.search(r"rejected: (\w+)", json.dumps(b["messages"]))
            if found:
                why[found.group(1)] = why.get(found.group(1), 0) + 1
        print(f"  retried for: {why}", file=sys.stderr)
    print(
        f"  blocks a request: median {sizes[len(sizes) // 2]}, max {sizes[-1]}; "
        f"{singles} of one block, {retries} retries with a firmer instruction",
        file=sys.stderr,
    )
    shutil.rmtree(tmp, ignore_errors=True)
    return {
        "pages": pages,
        "wall_s": wall,
        "exit": done.returncode,
        "requests": totals["requests"],
        "prompt_chars": prompt_chars,
        "system_chars": system_chars,
        "prompt_tokens": totals["prompt_tokens"] or 0,
        "cached_tokens": cached,
        "source_tokens": chars / 4 * len(lang.split(",")),
        "languages": len(lang.split(",")),
        "singles": singles,
        "retries": retries,
        "completion_tokens": totals["completion_tokens"] or 0,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("docs", type=Path)
    ap.add_argument("--to", default="fr")
    ap.add_argument("--concurrency", type=int)
    ap.add_argument("--runs", type=int, default=1)
    args = ap.parse_args()
    for _ in range(args.runs):
        f = run_once(args.docs, args.to, args.concurrency)
        uncached = f["prompt_tokens"] - f["cached_tokens"]
        print(
            f"{f['pages']} pages × {f['languages']} languages: {f['wall_s']:.1f} s "
            f"(exit {f['exit']}), {f['requests']} requests "
            f"({f['requests'] / f['pages'] / f['languages']:.2f} a page and language; "
            f"{f['singles']} of one block, {f['retries']} of them retries), "
            f"prompt {f['prompt_chars'] / 1000:.0f} k "
            f"chars (first system message {f['system_chars'] / 1000:.0f} k), "
            f"{f['prompt_tokens']} prompt tokens of which {f['cached_tokens']} cached; uncached "
            f"÷ source tokens {uncached / f['source_tokens']:.2f}; "
            f"{f['completion_tokens']} completion tokens"
        )


if __name__ == "__main__":
    main()
