"""The messages sent to a model, and the streaming-safe stripper for "thinking aloud".

Contract (README, tests/test_prompts.py): the text to translate is the whole content of the LAST
user message; instructions, glossary and context live in the system messages: the first is the
same for every request of a run (a prefix the providers cache), a second one carries what one
request adds. So a provider that
echoes the last user message gives back the source unchanged, and the engine can map answers back
exactly. Several blocks may share one request: each is preceded by a marker line
(:class:`Markers`) that carries a nonce drawn for that request, so a source that shows a marker
(``<!--fd:1-->`` in a list item of a page about fastdesk) cannot collide with the real ones.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from fastdesk.document.languages import language_name, primary

PROMPT_VERSION = "4"  # bump when the instructions change: it is part of the memory key

MODES = ("translate", "simplify")

_THINK_START = re.compile(r"\s*<think(?:ing)?\s*>", re.IGNORECASE)


@dataclass(frozen=True)
class Markers:
    """The marker lines of one request: ``<!--fd-<nonce>:N-->``, the nonce absent from its text."""

    nonce: str

    @classmethod
    def fresh(cls, text: str) -> Markers:
        """Markers whose nonce does not occur in ``text`` (the source cannot contain them)."""
        while True:
            nonce = secrets.token_hex(3)
            if nonce not in text:
                return cls(nonce)

    def line(self, n: int) -> str:
        return f"<!--fd-{self.nonce}:{n}-->"

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        """A whole marker line (the model may pad it with spaces)."""
        return re.compile(rf"^[ \t]*<!--\s*fd-{self.nonce}:(\d+)\s*-->[ \t]*\r?$", re.MULTILINE)

    @cached_property
    def start_pattern(self) -> re.Pattern[str]:
        """The start of a marker line still arriving, at the very end of a stream so far:
        "<", "<!", "<!-", … "<!--fd-a1b2c3:12--"."""
        prefix = f"<!--fd-{self.nonce}:"
        steps = "".join(f"(?:{re.escape(ch)}" for ch in prefix[1:])
        tail = r"(?:\d*\s*-{0,2})?"
        return re.compile(rf"(?:^|\n)[ \t]*<{steps}{tail}{')?' * (len(prefix) - 1)}\Z")


def needs_markers(cores: Sequence[str]) -> bool:
    """Several blocks, or one that itself starts with ``<think>``: then anything before the
    first marker is the model's own (its thinking, stripped) and the source's is kept."""
    return len(cores) > 1 or any(_THINK_START.match(core) for core in cores)


_TYPOGRAPHY = {
    "fr": "French typography: a non-breaking space (U+00A0) before : ; ? ! and inside « ».",
    "de": "German typography: „Anführungszeichen“ for quotes; nouns capitalised.",
    "es": "Spanish typography: opening ¿ and ¡ where needed.",
}

_RULES = """Rules:
- Answer with the {what} only: no preamble, no notes, no explanations, no code fences around it.
- Keep the Markdown exactly: the same headings and levels, list markers, numbering, indentation,
  tables, block quotes, emphasis, line breaks and blank lines.
- Never change code spans (`like this`), fenced code, URLs, link and image targets, HTML tags and
  attributes, or placeholders such as {{name}}, {{{{name}}}}, %s, %(name)s, ${{var}}.
- Link text and image alt text are prose: {prose}.
- Lines like <!--fd-…:N--> are markers: copy each unchanged, on its own line, in order."""


@dataclass(frozen=True)
class Context:
    """Read-only context sent with a block so that a short edit stays coherent with the rest."""

    title: str = ""
    previous: str = ""


def _is_reasoning_model(model: str) -> bool:
    name = model.lower()
    return "qwen3" in name or "qwen-3" in name or "qwq" in name or "deepseek-r1" in name


def system_prompt(
    mode: str,
    target_lang: str,
    *,
    model: str = "",
    style: str = "",
    glossary_lines: Sequence[str] = (),
) -> str:
    """The instructions every request of a run shares (its first message, byte for byte).

    Providers cache prompts by their exact prefix (Groq: whole prefix, 2 h; Cerebras: 128-token
    blocks, 5 min to 1 h; OpenAI-style servers alike), and a cached prompt token is billed at
    about half price and, at Groq, not counted against the minute's limits
    (console.groq.com/docs/prompt-caching). So this message holds only what is the same for a
    project, mode, language and model: the fixed rules, the house style and the whole glossary
    section that applies (``glossary_lines``); what differs per request goes after it, in
    :func:`request_notes`."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r} (expected one of {', '.join(MODES)})")
    if mode == "translate":
        name = language_name(target_lang)
        head = (
            f"You are a professional translator. Translate the Markdown document fragment that the "
            f"user sends into {name} ({target_lang}). Write natural, fluent {name} with correct "
            f"spelling, every accent and diacritic, and the typography of the language."
        )
        rules = _RULES.format(what="translation", prose=f"translate it into {name}")
        typo = _TYPOGRAPHY.get(primary(target_lang))
        if typo:
            rules += f"\n- {typo}"
    else:
        head = (
            "You rewrite Markdown in plain language for a general audience: short sentences, "
            "common words, active voice, jargon explained, in the SAME language as the text. "
            "Keep every fact."
        )
        rules = _RULES.format(what="rewritten text", prose="simplify it like the rest")
    parts = [head, rules]
    if _is_reasoning_model(model):
        parts.append("/no_think")
    if style.strip():
        parts.append(f"House style of this project (follow it):\n{style.strip()}")
    if glossary_lines:
        parts.append(_glossary_section(glossary_lines))
    return "\n\n".join(parts)


def _glossary_section(lines: Sequence[str]) -> str:
    return "Glossary (obey it exactly):\n" + "\n".join(f"- {line}" for line in lines)


def request_notes(
    mode: str,
    *,
    glossary_lines: Sequence[str] = (),
    examples: Sequence[tuple[str, str]] = (),
    context: Context | None = None,
    firmer: str = "",
) -> str:
    """What one request adds after the shared instructions ("" when nothing): the glossary
    entries its text uses (when the whole section was too long to share), the editor's
    corrections most like it, its context, a retry's reproach. ``examples``: (source,
    corrected translation) pairs."""
    parts = []
    if glossary_lines:
        parts.append(_glossary_section(glossary_lines))
    if examples:
        what = "translations" if mode == "translate" else "rewrites"
        shown = [f"Source:\n{src}\nCorrected:\n{dst}" for src, dst in examples]
        parts.append(
            f"Examples of {what} as this team's editor corrected them (follow their choices of "
            "words and style; they are not the text to work on):\n\n" + "\n\n".join(shown)
        )
    if context and (context.title or context.previous):
        ctx = ["Context, for coherence only (do not translate or repeat it):"]
        if context.title:
            ctx.append(f"Document title: {context.title}")
        if context.previous:
            ctx.append(f"Preceding text: {context.previous}")
        parts.append("\n".join(ctx))
    if firmer:
        parts.append(f"IMPORTANT: your previous answer was rejected: {firmer}. Follow every rule.")
    return "\n\n".join(parts)


def expand_prompt(target_lang: str, *, model: str = "", context: Context | None = None) -> str:
    """Instructions to elaborate a section for a reader who wants more detail."""
    name = language_name(target_lang)
    parts = [
        f"You expand a section of a Markdown document for a reader who asked for more detail. "
        f"Write in {name} ({target_lang}), whatever the language of the section. Explain the "
        f"ideas further, add a short example where it helps, and keep every fact consistent "
        f"with the section. Answer with Markdown only, at most about three short paragraphs or "
        f"a list; do not repeat the section itself; no preamble.",
    ]
    if _is_reasoning_model(model):
        parts.append("/no_think")
    if context and context.title:  # after what every request shares (see system_prompt)
        parts.append(f"Document title: {context.title}")
    return "\n\n".join(parts)


def build_messages(system: str, text: str, notes: str = "") -> list[dict[str, str]]:
    """The shared instructions, this request's notes (a second system message, only when there
    are any: the first stays an identical prefix across requests), then the text as the last
    user message (verbatim)."""
    messages = [{"role": "system", "content": system}]
    if notes:
        messages.append({"role": "system", "content": notes})
    messages.append({"role": "user", "content": text})
    return messages


def pack_text(cores: Sequence[str], markers: Markers | None) -> str:
    """The blocks of one message, a marker line before each (``markers`` None: one bare block)."""
    if markers is None:
        if len(cores) != 1:
            raise ValueError("several blocks need markers")
        return cores[0]
    return "\n\n".join(f"{markers.line(i + 1)}\n{core}" for i, core in enumerate(cores))


def split_pack(answer: str, count: int, markers: Markers | None) -> list[str] | None:
    """Map a pack answer back to its blocks; None when the markers are not exactly 1..count.
    A bare block (``markers`` None) is the whole answer."""
    if markers is None:
        return [answer.strip("\r\n")]
    found = list(markers.pattern.finditer(answer))
    if [int(m.group(1)) for m in found] != list(range(1, count + 1)):
        return None
    if answer[: found[0].start()].strip():
        return None
    parts = []
    for i, m in enumerate(found):
        end = found[i + 1].start() if i + 1 < len(found) else len(answer)
        body = answer[m.end() : end]
        if body.startswith("\n"):
            body = body[1:]
        parts.append(body.strip("\r\n"))
    return parts


def partial_pack(answer: str, count: int, markers: Markers | None) -> dict[int, str]:
    """While streaming: the text so far of each block (0-based) whose marker has arrived."""
    if markers is None:
        return {0: answer.strip("\r\n")}
    found = list(markers.pattern.finditer(answer))
    out: dict[int, str] = {}
    for i, m in enumerate(found):
        n = int(m.group(1)) - 1
        if not 0 <= n < count:
            continue
        if i + 1 < len(found):
            text = answer[m.end() : found[i + 1].start()]
        else:  # the block still streaming: not the first characters of the next marker
            text = markers.start_pattern.sub("", answer[m.end() :])
        out[n] = text.strip("\r\n")
    return out


class ThinkStripper:
    """Removes a leading ``<think>…</think>`` from a stream of text chunks, even split mid-tag.

    Feed chunks as they arrive; ``feed`` returns what may be shown now. Text is held back only
    while it could still be the start of a think block, so ordinary answers stream untouched.
    """

    OPEN, CLOSE = "<think>", "</think>"

    def __init__(self) -> None:
        self._buf = ""
        self._state = "start"  # start | thinking | passthrough

    def feed(self, chunk: str) -> str:
        if self._state == "passthrough":
            return chunk
        if self._state == "after":
            return self._after(chunk)
        self._buf += chunk
        if self._state == "start":
            stripped = self._buf.lstrip()
            if not stripped or (len(stripped) < len(self.OPEN) and self.OPEN.startswith(stripped)):
                return ""  # still undecided
            if not stripped.startswith(self.OPEN):
                self._state = "passthrough"
                out, self._buf = self._buf, ""
                return out
            self._state = "thinking"
            self._buf = stripped[len(self.OPEN) :]
        end = self._buf.find(self.CLOSE)
        if end < 0:
            # keep only a tail that might be the start of the closing tag
            self._buf = self._buf[-(len(self.CLOSE) - 1) :]
            return ""
        rest = self._buf[end + len(self.CLOSE) :]
        self._buf = ""
        self._state = "after"
        return self._after(rest)

    def _after(self, text: str) -> str:
        """Drop the whitespace between </think> and the answer, then pass everything through."""
        text = text.lstrip()
        if text:
            self._state = "passthrough"
        return text

    def finish(self) -> str:
        """End of stream: text held back that turned out not to be a think block."""
        if self._state == "start":
            out, self._buf = self._buf, ""
            return out
        return ""


def strip_thinking(text: str) -> str:
    """Whole-text version of :class:`ThinkStripper`."""
    s = ThinkStripper()
    return s.feed(text) + s.finish()
