"""Writing the target out: the translated Markdown (guide.fr.md), the translation alone as an
HTML page (guide.fr.html), and a bilingual review page.

The review page is one standalone HTML file (inline CSS, no script, no external resource, a
Content-Security-Policy that forbids both) for people without the app: source and target side by
side, one table row per block so long blocks stay aligned, each block's review state as a badge
and its failed checks listed. Raw HTML in the documents is shown as text, never run; links keep
only safe schemes; images become links (a review page must not fetch anything when opened).
"""

from __future__ import annotations

import datetime as dt
import html
import os
import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path

from fastdesk.config.fileio import atomic_write_text
from fastdesk.config.paths import resource
from fastdesk.document.blocks import Block, Document
from fastdesk.document.html import NO_CONTEXT, Context, contexts, render
from fastdesk.document.languages import LANGUAGES, language_name, primary
from fastdesk.document.target import TargetView
from fastdesk.review.model import STATE_STYLES, BlockInfo, Review
from fastdesk.translate.events import Flag
from fastdesk.translate.flag_words import plain_flag

__all__ = [
    "bilingual_html",
    "export_bilingual",
    "export_path",
    "export_target",
    "export_translation_html",
    "html_export_path",
    "is_language_suffix",
    "review_summary",
    "text_direction",
    "translation_html",
]

# ---- file names -------------------------------------------------------------------------------

_KNOWN = frozenset(code.lower() for code in LANGUAGES) | {primary(c) for c in LANGUAGES}
_TAG = re.compile(r"[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*")


def is_language_suffix(part: str) -> bool:
    """'en', 'fr-CA', 'pt_BR' are; 'v2', 'old', 'draft' are not (only codes we know)."""
    return bool(_TAG.fullmatch(part)) and (
        part.lower() in _KNOWN or (primary(part) in _KNOWN and ("-" in part or "_" in part))
    )


def export_path(source: str | os.PathLike[str] | None, lang: str) -> Path:
    """Where the target of ``source`` in ``lang`` goes, next to it.

    guide.md → guide.fr.md; a language suffix on the source is replaced: guide.en.md →
    guide.fr.md; never the source itself (guide.fr.md in fr → guide.fr.fr.md). A source without
    a suffix gets ``.md``. Untitled (None): ``untitled.fr.md``, relative (the caller picks a
    folder).
    """
    path = Path(source) if source is not None else Path("untitled.md")
    suffix = path.suffix or ".md"
    stem = path.stem if path.suffix else path.name
    base, dot, last = stem.rpartition(".")
    if dot and base and is_language_suffix(last):
        candidate = path.with_name(f"{base}.{lang}{suffix}")
        if candidate.name != path.name:
            return candidate
    return path.with_name(f"{stem}.{lang}{suffix}")


def html_export_path(source: str | os.PathLike[str] | None, lang: str) -> Path:
    """guide.md → guide.fr.review.html (the bilingual review page)."""
    target = export_path(source, lang)
    return target.with_name(f"{target.stem}.review.html")


# ---- the target Markdown ----------------------------------------------------------------------


def export_target(
    target: Review | str, path: str | os.PathLike[str], *, newline: str = "\n"
) -> Path:
    """Write the target Markdown atomically (never half a file). ``newline``: the source file's
    line ends ("\\r\\n" for a CRLF source), applied to a text using "\\n"."""
    text = target.target_text() if isinstance(target, Review) else target
    if newline != "\n":
        text = text.replace("\r\n", "\n").replace("\n", newline)
    atomic_write_text(path, text)
    return Path(path)


# ---- direction --------------------------------------------------------------------------------

_RTL_LANGUAGES = frozenset(
    {"ar", "arc", "ckb", "dv", "fa", "he", "iw", "ku-arab", "ps", "sd", "syr", "ug", "ur", "yi"}
)
_RTL_SCRIPTS = frozenset({"arab", "hebr", "syrc", "thaa", "nkoo", "adlm", "rohg", "mand"})


def text_direction(lang: str) -> str:
    """ "rtl" for right-to-left languages (ar, he, fa, ur…, or an Arabic/Hebrew… script subtag),
    else "ltr"."""
    parts = lang.replace("_", "-").lower().split("-")
    if any(p in _RTL_SCRIPTS for p in parts[1:]):
        return "rtl"
    if any(p in ("latn", "cyrl") for p in parts[1:]):
        return "ltr"
    return "rtl" if parts[0] in _RTL_LANGUAGES else "ltr"


# ---- Markdown → safe HTML ---------------------------------------------------------------------


def _render(text: str, context: Context) -> str:
    """One block's HTML, safe to open in a browser, in its document's context."""
    return render(text, context, safe=True)


@lru_cache(maxsize=1)
def _stylesheet() -> str:
    css = resource("review.css").read_text(encoding="utf-8")
    badges = "\n".join(
        f".badge-{state} {{ background: {style.colour}; }}\n"
        f".state-{state} td.tgt {{ border-left-color: {style.colour}; }}"
        for state, style in STATE_STYLES.items()
    )
    return f"{css}\n/* state colours (fastdesk.review.model.STATE_STYLES) */\n{badges}\n"


# ---- the bilingual page -----------------------------------------------------------------------

_SKIPPED_KINDS = frozenset({"blank", "reference"})
_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"


def bilingual_html(
    doc: Document,
    target: Review | TargetView | Mapping[str, str],
    lang: str,
    title: str,
    *,
    source_lang: str | None = None,
    generated: dt.datetime | None = None,
) -> str:
    """A standalone page: source and target side by side, one row per block.

    ``target``: a Review (texts, states and flags), a TargetView (the pane's text, by span) or
    block id → text (e.g. what Engine.run returns). Blocks without a target show their source.
    """
    texts, review = _target_texts(doc, target)
    # reference definitions are not translated: both sides resolve them as the source does
    context = contexts(doc)
    rows = [
        _row(
            block, texts.get(block.id), review, context.get(block.id, NO_CONTEXT), lang, source_lang
        )
        for block in doc.blocks
        if block.kind not in _SKIPPED_KINDS and block.text.strip()
    ]
    when = (generated or dt.datetime.now().astimezone()).strftime("%Y-%m-%d %H:%M")
    return _page(title, lang, source_lang, when, review, "\n".join(rows))


def translation_html(text: str, lang: str, title: str) -> str:
    """The translation alone as a standalone page (the same safety as the review page: no
    script, no external resource, raw HTML shown as text), in the target's language and
    direction, for readers rather than reviewers."""
    body = render(text, NO_CONTEXT, safe=True)
    direction = text_direction(lang)
    style = "main { max-width: 50em; margin: 2em auto; padding: 0 1em; }"
    return f"""{_head(title, f'lang="{html.escape(lang)}" dir="{direction}"', style)}
<body>
<main class="translation">
{body}
</main>
</body>
</html>
"""


def export_translation_html(
    text: str, lang: str, path: str | os.PathLike[str], *, title: str | None = None
) -> Path:
    """Write :func:`translation_html` atomically to ``path``."""
    atomic_write_text(path, translation_html(text, lang, title or Path(path).stem))
    return Path(path)


def export_bilingual(
    doc: Document,
    target: Review | TargetView | Mapping[str, str],
    lang: str,
    path: str | os.PathLike[str],
    *,
    title: str | None = None,
    source_lang: str | None = None,
) -> Path:
    """Write :func:`bilingual_html` atomically to ``path``."""
    page = bilingual_html(doc, target, lang, title or Path(path).name, source_lang=source_lang)
    atomic_write_text(path, page)
    return Path(path)


def _target_texts(
    doc: Document, target: Review | TargetView | Mapping[str, str]
) -> tuple[dict[str, str], Review | None]:
    if isinstance(target, Review):
        texts = {b.id: t for b in doc.blocks if (t := target.shown_text(b.id)) is not None}
        return texts, target
    if isinstance(target, TargetView):
        pending = target.pending
        return {b: target.text[s:e] for b, s, e in target.spans if b not in pending}, None
    return dict(target), None


def _row(
    block: Block,
    text: str | None,
    review: Review | None,
    context: Context,
    lang: str,
    source_lang: str | None,
) -> str:
    info = review.info(block.id) if review else None
    state = info.state if info else ("pending" if text is None else "")
    # a failed check is about the machine's text: moot once a reviewer rewrote it
    flags = info.flags if info and not info.edited and state != "stale_edit" else ()
    src_html = _render(block.text, context)
    tgt_html = _render(block.text if text is None else text, context)
    badge = _badges(state, info) if state and block.translatable else ""
    human = " human" if info is not None and info.edited else ""
    base = info.base if info and state == "stale_edit" else None
    notes = _flags(flags) + (_stale_note(base, context) if base is not None else "")
    src_attrs = _lang_attrs(source_lang)
    return (
        f'<tr id="line-{block.line}" class="kind-{block.kind} state-{state or "none"}{human}">'
        f'<td class="line">{block.line}</td>'
        f'<td class="src"{src_attrs}>{src_html}</td>'
        f'<td class="tgt"{_lang_attrs(lang)}>{badge}{tgt_html}{notes}</td></tr>'
    )


def _badges(state: str, info: BlockInfo | None) -> str:
    """The state's badge, after an "edited" one when a reviewer's hand wrote the text but the
    state says something else (approved, source changed): a human edit stays visible as such."""
    edited = info is not None and info.edited and state != "edited"
    return (_badge("edited") if edited else "") + _badge(state)


def _badge(state: str) -> str:
    style = STATE_STYLES[state]
    return (
        f'<span class="badge badge-{state}" title="{html.escape(style.meaning)}" dir="ltr">'
        f"{html.escape(style.label)}</span>"
    )


def _flags(flags: tuple[Flag, ...]) -> str:
    if not flags:
        return ""
    items = "".join(
        f"<li><b>{html.escape(name)}</b>: {html.escape(reason)}</li>"
        for name, reason in (plain_flag(f.check, f.detail) for f in flags)
    )
    return f'<ul class="flags" dir="ltr">{items}</ul>'


def _stale_note(base: str, context: Context) -> str:
    return (
        '<div class="stale" dir="ltr"><p class="note">The source changed since this edit, '
        f"which was made for this source:</p>{_render(base, context)}</div>"
    )


def _lang_attrs(lang: str | None) -> str:
    if not lang:
        return ""
    return f' lang="{html.escape(lang)}" dir="{text_direction(lang)}"'


def review_summary(review: Review) -> str:
    """The page's header count: "edited" counts every block a reviewer's hand wrote, approved
    since or not (the window's summary counts the edited blocks still to approve)."""
    s = review.summary()
    blocks = review.doc.blocks if review.doc is not None else ()
    infos = [review.info(b.id) for b in blocks if b.translatable]
    edited = sum(i.edited for i in infos)
    both = sum(i.edited and i.approved for i in infos)
    parts = [f"{s.blocks} blocks", f"{s.approved} approved"]
    parts.append(f"{edited} edited" + (f" ({both} of them approved)" if both else ""))
    parts.append(f"{s.flagged} flagged")
    if s.stale:
        parts.append(f"{s.stale} source changed")
    return " · ".join(parts)


def _head(title: str, html_attrs: str, style: str = "") -> str:
    """A standalone page's start, up to its body: no script, no external resource (the CSP
    forbids both), the stylesheet inline."""
    return f"""<!DOCTYPE html>
<html {html_attrs}>
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="fastdesk">
<title>{html.escape(title)}</title>
<style>
{_stylesheet()}
{style}
</style>
</head>"""


def _page(
    title: str,
    lang: str,
    source_lang: str | None,
    when: str,
    review: Review | None,
    rows: str,
) -> str:
    src_name = language_name(source_lang) if source_lang else "Source"
    tgt_name = language_name(lang)
    summary = f" · {html.escape(review_summary(review))}" if review else ""
    legend = ""
    if review:
        legend = (
            '<p class="legend">'
            + " ".join(
                _badge(s)
                for s in ("machine", "memory", "edited", "approved", "flagged", "stale_edit")
            )
            + "</p>"
        )
    return f"""{_head(title, f'lang="{html.escape(source_lang or "und")}"')}
<body>
<header>
<h1>{html.escape(title)}</h1>
<p class="meta">{html.escape(src_name)} → {html.escape(tgt_name)} ({html.escape(lang)}){summary}
 · {html.escape(when)}</p>
{legend}
</header>
<table class="bilingual">
<colgroup><col class="line"><col class="src"><col class="tgt"></colgroup>
<thead><tr><th class="line">Line</th><th class="src">{html.escape(src_name)}</th>
<th class="tgt"{_lang_attrs(lang)}>{html.escape(tgt_name)}</th></tr></thead>
<tbody>
{rows}
</tbody>
</table>
</body>
</html>
"""
