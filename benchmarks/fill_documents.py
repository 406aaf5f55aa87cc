"""Long Markdown documents for benchmarks/bench_window_fill.py, and the answer its server gives.

Two generated shapes (made on the spot, no file kept) and any file given on the command line:

``bench``     headings, one short paragraph with a link and inline code, two list items and now
              and then a fenced code block per section: small blocks, many to a request.
``handbook``  a heading every ten blocks; paragraphs of 2-4 sentences from a small vocabulary,
              each ending with a link (``See [note N](https://example.org/n/N).``); a three-item
              list and a fenced code block in every ten: larger blocks, fewer to a request.
``shapes``    front matter, then by turns tables, admonitions, ten-item lists, code blocks,
              paragraphs with two links, headings: what a docs site's pages are made of.

The server's answer (``shout``) is "same-language simplify" made visible: the prose of the
request upper-cased, its code (fenced and inline), link targets, HTML and the request's block
markers kept, so the fidelity checks pass (no retries) and a block with its answer differs from
its source. Module level: it crosses to the emulator's process by name.
"""

from __future__ import annotations

import os
import random
import re
import time
from collections.abc import Callable

VOCABULARY = [
    "editor",
    "review",
    "translation",
    "latency",
    "provider",
    "streaming",
    "paragraph",
    "glossary",
    "document",
    "memory",
    "budget",
    "accent",
    "export",
    "section",
    "simplify",
    "language",
    "token",
    "cost",
    "window",
    "status",
]


def bench(blocks: int = 4000) -> str:
    """Headings, short paragraphs with a link and inline code each, list items, fenced code."""
    parts: list[str] = []
    i = 0
    while len(parts) < blocks:
        parts.append(f"## Section {i}: how to utilize it\n\n")
        parts.append(
            f"Paragraph {i} says how to utilize one idea in plain words. It links to "
            f"[the guide](https://example.com/{i}) and names `option_{i}` once.\n\n"
        )
        parts.append(f"- First point of section {i}: utilize the short form.\n")
        parts.append(f"- Second point of section {i}: utilize the long form, a little longer.\n\n")
        if i % 4 == 0:
            parts.append(f"```python\nprint('unchanged code {i}')\n```\n\n")
        i += 1
    return "".join(parts[:blocks])


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(VOCABULARY) for _ in range(rng.randint(8, 18))]
    return " ".join(words).capitalize() + "."


def handbook(blocks: int = 4000, seed: int = 3) -> str:
    """A heading every ten blocks, paragraphs of 2-4 sentences each ending with a link, a
    three-item list and a fenced code block in every ten (the same text for the same seed)."""
    rng = random.Random(seed)
    out = ["# Handbook\n"]
    for i in range(blocks):
        kind = i % 10
        if kind == 0:
            out.append(f"## Section {i // 10 + 1}\n")
        elif kind == 4:
            out.append("\n".join(f"- {_sentence(rng)}" for _ in range(3)) + "\n")
        elif kind == 7:
            out.append(f"```python\nvalue_{i} = compute({i})\n```\n")
        else:
            sentences = " ".join(_sentence(rng) for _ in range(rng.randint(2, 4)))
            out.append(f"{sentences} See [note {i}](https://example.org/n/{i}).\n")
    return "\n".join(out)


GENERATED: dict[str, Callable[[int], str]] = {"bench": bench, "handbook": handbook}


# What an answer keeps as it is: block markers and other HTML comments, fenced code, inline
# code, link targets and reference definitions, raw URLs, HTML tags and entities, template tags,
# admonition and directive heads, front matter keys.
_KEPT = re.compile(
    r"<!--.*?-->"
    r"|^(?P<fence>[ \t]*(?:`{3,}|~{3,})).*?^(?P=fence)[ \t]*$"
    r"|`[^`\n]+`"
    r"|\]\([^)\n]*\)"
    r"|\]\[[^\]\n]*\]"
    r"|^[ \t]*\[[^\]\n]+\]:.*$"
    r"|<[A-Za-z/!][^>\n]*>"
    r"|https?://\S+"
    r"|&#?\w+;"
    r"|\{[{%].*?[%}]\}"
    r"|^[ \t]*(?:!!!|\?\?\?\+?|:::+)[ \t]*\S*"
    r"|^[\w-]+:(?=[ \t]|$)",
    re.DOTALL | re.MULTILINE,
)


def shout_text(text: str) -> str:
    """``text`` with its prose upper-cased and everything in ``_KEPT`` as it was."""
    out: list[str] = []
    pos = 0
    for kept in _KEPT.finditer(text):
        out.append(text[pos : kept.start()].upper())
        out.append(kept.group(0))
        pos = kept.end()
    out.append(text[pos:].upper())
    return "".join(out)


ARRIVALS_ENV = "FASTDESK_BENCH_ARRIVALS"  # a file: the server notes each request's arrival


# A request's block marker line (fastdesk.translate.prompts.Markers): each block between two is
# shouted on its own, so that an answer does not depend on how blocks were packed. (Shouted whole,
# a block's unclosed "<!--" or fence, as the CommonMark spec's examples have, kept the blocks after
# it in its request as they were: the command line's output and the window's then differed.)
_MARKER_LINE = re.compile(r"^<!--fd-\w+:\d+-->$", re.MULTILINE)


def shout(messages: object) -> str:
    """The emulator's answer: the last user message, the prose of each of its blocks
    upper-cased (see the module docstring). With ``ARRIVALS_ENV`` set, each arrival's time is
    appended to that file."""
    from tests.emulator import last_user_content

    arrivals = os.environ.get(ARRIVALS_ENV)
    if arrivals:
        with open(arrivals, "a", encoding="utf-8") as f:
            f.write(f"{time.time():.4f}\n")
    text: str = last_user_content(messages)  # type: ignore[arg-type]
    out: list[str] = []
    pos = 0
    for marker in _MARKER_LINE.finditer(text):
        out += [shout_text(text[pos : marker.start()]), marker.group(0)]
        pos = marker.end()
    out.append(shout_text(text[pos:]))
    return "".join(out)


def shapes(blocks: int = 4000) -> str:
    """Front matter, then by turns: a table, an admonition, a long list, code blocks, a
    paragraph with two links and a heading: the shapes a docs site's pages are made of."""
    out = ["---\ntitle: Shapes of a docs page\ntags: [bench, shapes]\n---\n"]
    i = 0
    while len(out) < blocks:
        kind = i % 6
        if kind == 0:
            out.append(f"## Part {i // 6 + 1}: how to utilize the settings\n")
        elif kind == 1:
            rows = "\n".join(
                f"| option_{i}_{r} | utilize it for case {r} | `{r * 7}` |" for r in range(5)
            )
            out.append(f"| Name | What it does | Default |\n|---|---|---|\n{rows}\n")
        elif kind == 2:
            out.append(
                f'!!! note "Before part {i}"\n    Check the settings first, then utilize the'
                f" [reference](https://example.org/ref/{i}) for the details.\n"
            )
        elif kind == 3:
            out.append(
                "\n".join(f"- Step {s} of part {i}: utilize the tool once more." for s in range(10))
                + "\n"
            )
        elif kind == 4:
            out.append(f"```bash\nfastdesk translate part_{i}.md --to fr\n```\n")
            out.append(f"```python\nconfig_{i} = load('part_{i}.toml')\n```\n")
        else:
            out.append(
                f"Part {i} says how to utilize [the guide](https://example.com/{i}) and"
                f" [the API](https://example.com/api/{i}) in plain words.\n"
            )
        i += 1
    return "\n".join(out[:blocks])


GENERATED["shapes"] = shapes
