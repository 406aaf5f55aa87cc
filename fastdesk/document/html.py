"""Markdown → HTML: the one renderer of the rendered view and the HTML export.

Why here: the blocks are cut by markdown-it-py (``blocks``), so the HTML comes from the same
CommonMark parser, with GitHub's extensions (tables, strikethrough, task lists, autolinks,
footnotes: mdit-py-plugins' ``gfm_plugin``) and front matter shown as a small metadata box.

A block is rendered on its own (the panes update block by block), so what it needs from the rest
of the document comes in a :class:`Context`: the document's link reference definitions and
footnote labels, and an ordered list item's number in its list (a list written ``1.``, ``1.``,
``1.`` shows 1, 2, 3 however its items are rendered). :func:`contexts` computes them.

``safe=True`` (a page opened in a browser): raw HTML is shown as text, links keep only safe
schemes, images become links to them so nothing loads when the page is opened.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from mdit_py_plugins.footnote.index import footnote_tail
from mdit_py_plugins.gfm import gfm_plugin

from fastdesk.document.blocks import Document, toml_front_matter_rule

__all__ = ["NO_CONTEXT", "Context", "contexts", "render", "safe_url"]


@dataclass(frozen=True)
class Context:
    """What a block rendered alone needs from its document (hashable: renders are cached)."""

    references: tuple[tuple[str, str, str], ...] = ()  # (normalised label, href, title)
    footnotes: tuple[str, ...] = ()  # footnote labels, numbered in this order
    number: int | None = None  # an ordered list item's number in its list


NO_CONTEXT = Context()


@lru_cache(maxsize=8192)
def render(text: str, context: Context = NO_CONTEXT, *, safe: bool = False) -> str:
    """HTML for ``text`` (one block or a whole document), cached per text and context."""
    md = _parser(safe)
    env: EnvType = {
        "references": {
            label: {"href": href, "title": title} for label, href, title in context.references
        },
    }
    if context.footnotes:
        env["footnotes"] = {
            "refs": {f":{label}": i for i, label in enumerate(context.footnotes)},
            "list": {i: {"label": label, "count": 0} for i, label in enumerate(context.footnotes)},
        }
        env["fastdesk_footnotes"] = context.footnotes
    tokens = md.parse(text, env)
    if context.number is not None:
        _renumber(tokens, context.number)
    out: str = md.renderer.render(tokens, md.options, env)
    return out


def contexts(doc: Document) -> dict[str, Context]:
    """Block id → the Context it renders in (blocks outside ordered lists share one)."""
    env: EnvType = {}
    refs_text = "".join(
        b.text if b.text.endswith(("\n", "\r")) else b.text + "\n"
        for b in doc.blocks
        if b.kind == "reference"
    )
    if refs_text:
        _parser(False).parse(refs_text, env)
    references = tuple(
        (label, str(ref.get("href", "")), str(ref.get("title", "")))
        for label, ref in env.get("references", {}).items()
    )
    # a footnote definition is a paragraph of its own block (translatable): found by its start
    notes = dict.fromkeys(m.group(1) for b in doc.blocks if (m := _FOOTNOTE.match(b.text)))
    base = Context(references, tuple(notes))
    out: dict[str, Context] = {}
    previous: tuple[str, int] | None = None  # (delimiter, number) of the item just above
    for block in doc.blocks:
        marker = block.list_marker
        if block.kind == "list_item" and marker[:-1].isdigit():
            delimiter = marker[-1]
            if previous is not None and previous[0] == delimiter:
                number = previous[1] + 1
            else:
                number = int(marker[:-1])
            previous = (delimiter, number)
            out[block.id] = Context(base.references, base.footnotes, number)
        else:
            previous = None if block.kind != "blank" else previous
            out[block.id] = base
    return out


_FOOTNOTE = re.compile(r"[ ]{0,3}\[\^([^\]\s]+)\]:")


def _renumber(tokens: list[Token], number: int) -> None:
    """The first ordered list of a lone list item starts at the item's number in its list."""
    for token in tokens:
        if token.type == "ordered_list_open" and token.level == 0:
            if number == 1:
                token.attrs.pop("start", None)
            else:
                token.attrSet("start", str(number))
            return


# ---- the parser -------------------------------------------------------------------------------


@lru_cache(maxsize=2)
def _parser(safe: bool) -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": not safe})
    gfm_plugin(md, front_matter=True)
    md.block.ruler.before("table", "front_matter_toml", toml_front_matter_rule)
    md.core.ruler.after("block", "footnote_ids", _keep_footnote_ids)
    md.core.ruler.at("footnote_tail", _footnotes_defined_here)
    md.add_render_rule("front_matter", _front_matter)
    md.add_render_rule("footnote_block_open", _footnote_block_open)
    if safe:
        md.add_render_rule("link_open", _safe_link_open)
        md.add_render_rule("image", _image_as_link)
    md.render("warm up [^x]\n\n[^x]: y\n")  # compile the rule chains now, in this thread
    return md


def _keep_footnote_ids(state: Any) -> None:
    """A definition parsed in this block resets its label's id: give back the document's."""
    labels = state.env.get("fastdesk_footnotes", ())
    refs = state.env.get("footnotes", {}).get("refs")
    if labels and refs is not None:
        refs.update({f":{label}": i for i, label in enumerate(labels)})


def _footnotes_defined_here(state: Any) -> None:
    """Footnotes are listed under the block that defines them, not under every block citing one
    (the labels of the whole document are known to every block through its Context)."""
    data = state.env.get("footnotes")
    if not data or not data.get("list"):
        footnote_tail(state)
        return
    here = {t.meta["label"] for t in state.tokens if t.type == "footnote_reference_open"}
    everything = data["list"]
    data["list"] = {i: note for i, note in everything.items() if note.get("label") in here}
    try:
        footnote_tail(state)
    finally:
        for i, note in data["list"].items():
            everything[i] = note
        data["list"] = everything


def _footnote_block_open(
    self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    first = tokens[idx + 1].meta.get("id", 0) if idx + 1 < len(tokens) else 0
    rule = '<hr class="footnotes-sep">\n' if first == 0 else ""
    start = f' start="{first + 1}"' if first else ""
    return f'{rule}<section class="footnotes">\n<ol class="footnotes-list"{start}>\n'


_FIELD = re.compile(r"\s*([\w.-]+)\s*[:=]\s*(.*)")


def _front_matter(
    self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """Front matter as a small box of its fields (``key: value`` or ``key = value`` lines)."""
    rows = []
    for line in tokens[idx].content.splitlines():
        if not line.strip():
            continue
        m = _FIELD.fullmatch(line)
        key, value = (m.group(1), m.group(2).strip().strip("\"'")) if m else ("", line.strip())
        rows.append(f"<tr><th>{html.escape(key)}</th><td>{html.escape(value)}</td></tr>")
    return f'<table class="front-matter">{"".join(rows)}</table>\n'


_SAFE_SCHEME = re.compile(r"(?:https?|mailto|ftp):", re.IGNORECASE)
_HAS_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def safe_url(url: str) -> bool:
    """http(s), mailto, ftp and scheme-less (relative, #fragment) URLs; not javascript:, data:…"""
    cleaned = re.sub(r"[\x00-\x20]", "", html.unescape(url))
    return bool(_SAFE_SCHEME.match(cleaned)) or not _HAS_SCHEME.match(cleaned)


_OPENS_ON_CLICK = re.compile(r"(?:https?://|mailto:)", re.IGNORECASE)


def opens_on_click(url: str) -> bool:
    """Whether a link clicked in the window is handed to the operating system: only web pages
    (http, https) and mail (mailto). Anything else a document may hold (``javascript:``,
    ``smb://`` that leaks credentials on Windows, ``file:``, a custom app's scheme) is shown,
    not followed: the document may be a stranger's."""
    cleaned = url.strip()
    return not re.search(r"[\x00-\x20\x7f]", cleaned) and bool(_OPENS_ON_CLICK.match(cleaned))


def _safe_link_open(
    self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    token = tokens[idx]
    if not safe_url(str(token.attrGet("href") or "")):
        token.attrs.pop("href", None)
    out: str = self.renderToken(tokens, idx, options, env)
    return out


def _image_as_link(
    self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    token = tokens[idx]
    src, title = str(token.attrGet("src") or ""), token.attrGet("title")
    alt = self.renderInlineAsText(token.children or [], options, env)
    label = html.escape(f"[image: {alt}]" if alt else "[image]")
    title_attr = f' title="{html.escape(str(title))}"' if title else ""
    if src and safe_url(src):
        return f'<a href="{html.escape(src)}" class="image"{title_attr}>{label}</a>'
    return f'<span class="image"{title_attr}>{label}</span>'
