"""A site generator's Markdown dialect: the lines that are only its syntax.

Read as plain CommonMark, a line such as ``--8<-- "snippet.md"`` (MkDocs snippets),
``{: .class }`` (attribute lists), ``!!! note "Title"`` (an admonition's opening line),
``import Tabs from '@theme/Tabs';`` (MDX), ``<Tabs>`` (a JSX component) or
``{{< figure src="a.png" >}}`` (a Hugo shortcode) is a paragraph, and would be sent to a model
that may "translate" it. :func:`keep_syntax` marks a block made only of such lines not
translatable: it is copied as it is, like code. Here, below the engine, so that a document
translated live (the window's) keeps them too.

MkDocs admonition and content-tab bodies (``!!! note`` / ``=== "Tab"`` followed by a
4-space-indented body) are, to CommonMark, an indented code block or a paragraph's lazy
continuation. In a MkDocs project they are translatable *containers*: :func:`container` cuts
one into pieces kept as they are (the opening line's syntax) and pieces translated on their own
(through the memory like any block): the title, and the body as Markdown (dedented, block by
block, indented back). Docusaurus ``:::tip Title`` / ``:::tip[Title]`` titles likewise
(fastdesk.translate.dialect translates them, for the command line and the window alike).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass

from fastdesk.document.blocks import Block, Document
from fastdesk.document.text_ends import common_prefix

__all__ = [
    "DIALECTS",
    "TITLES",
    "Container",
    "Piece",
    "apply_dialect",
    "container",
    "dedent",
    "front_matter",
    "indent",
    "keep_syntax",
    "safe_value",
]

_MKDOCS = (
    re.compile(r"-{2,}8<-{2,}.*"),  # snippets
    re.compile(r"///.*"),  # a pymdownx block's opening or closing line
    re.compile(r":::[ \t]+\S.*"),  # mkdocstrings' ::: identifier
    re.compile(r"\{:?[^{}]*\}"),  # an attribute list alone on its line
    re.compile(r"(?:!!!|\?\?\?\+?)\s+[\w-]+(?:\s+[\w-]+)*(?:\s+\".*\")?"),  # admonition opener
    re.compile(r"===\+?\s+\".*\""),  # a content tab's opener
)
_DOCUSAURUS = (
    re.compile(r"(?:import|export)\s.*"),  # MDX ES modules
    re.compile(r"</?[A-Z][\w.]*(?:\s[^<>]*)?/?>"),  # a JSX component tag alone on its line
    re.compile(r":::\w*.*"),  # an admonition fence alone
)
_HUGO = (re.compile(r"\{\{[<%].*?[%>]\}\}"),)  # shortcodes
# a Hugo shortcode that holds code: its body is never prose (code-toggle's TOML, highlight's Go)
_CODE_SHORTCODE = re.compile(
    r"\{\{[<%]\s*(?P<close>/)?\s*(?P<name>code-toggle|highlight|hl|code)\b[^\n]*?(?P<end>/)?\s*[%>]\}\}"
)

DIALECTS: dict[str, tuple[re.Pattern[str], ...]] = {
    "mkdocs": _MKDOCS,
    "docusaurus": _DOCUSAURUS,
    "hugo": _HUGO,
    "commonmark": (),
}

# an opening line's title: !!! note "Title", === "Tab", :::tip Title, :::tip[Title]
TITLES = {
    "mkdocs": re.compile(
        r"(?P<head>\s*(?:(?:!!!|\?\?\?\+?)\s+[\w-]+(?:\s+[\w-]+)*|===\+?)\s+\")"
        r"(?P<title>[^\"]*\S[^\"]*)(?P<tail>\"\s*)"
    ),
    "docusaurus": re.compile(
        r"(?P<head>\s*:::\w+(?:\[|[ \t]+))(?P<title>[^\]\r\n]*?\S[^\]\r\n]*?)(?P<tail>\]?[ \t]*)"
    ),
}


def keep_syntax(doc: Document, dialect: str) -> Document:
    """``doc`` with the blocks made only of ``dialect``'s syntax lines marked not translatable;
    a titled opening line (``!!! note "Title"``, ``:::tip Title``) stays translatable, for its
    title (the same ids and text: only the flag changes)."""
    patterns = DIALECTS.get(dialect, ())
    if not patterns:
        return doc
    titled = TITLES.get(dialect)
    blocks: list[Block] = []
    changed = False
    code = _in_code_shortcodes(doc) if dialect == "hugo" else set()
    for block in doc.blocks:
        core = block.split()[1]
        lines = [line.strip() for line in core.splitlines() if line.strip()]
        syntax = lines and all(any(p.fullmatch(line) for p in patterns) for line in lines)
        syntax = syntax or block.id in code or (dialect == "docusaurus" and _esm(core))
        if block.translatable and syntax and not (titled and titled.fullmatch(core)):
            block = dataclasses.replace(block, translatable=False)
            changed = True
        blocks.append(block)
    return Document(doc.source, tuple(blocks)) if changed else doc


def _esm(core: str) -> bool:
    """An MDX ES module block: ``import``/``export`` first, running on to the blank line
    (a multi-line ``export const Highlight = …`` is JavaScript to its end)."""
    return re.match(r"(?:import|export)[ \t{*]", core) is not None


def _in_code_shortcodes(doc: Document) -> set[str]:
    """The blocks a Hugo shortcode leaves open: a shortcode that holds code, from the block
    that opens it (when it does not close it there too) to the block that closes it; a
    shortcode's own ``{{< … >}}`` written over lines that CommonMark cuts into blocks (a
    ``>}}`` line reads as a blockquote), from its opening to its closing delimiter."""
    inside: str | None = None
    tag = False  # within a {{< … >}} itself
    out: set[str] = set()
    for block in doc.blocks:
        was, was_tag = inside, tag
        for m in _CODE_SHORTCODE.finditer(block.text):
            if inside is None and not m["close"] and not m["end"]:
                inside = m["name"]
            elif m["close"] and m["name"] == inside:
                inside = None
        prose = "" if block.kind == "code" else _CODE_SPAN.sub("", block.text)
        for m in _DELIMITER.finditer(prose):  # code showing a shortcode does not open one
            tag = m.group(0) in ("{{<", "{{%")
        if was is not None or inside is not None or was_tag or tag:
            out.add(block.id)
    return out


_DELIMITER = re.compile(r"\{\{[<%]|[%>]\}\}")
_CODE_SPAN = re.compile(r"(`+)[^`]+?\1")


# ---- admonitions and tabs: containers ---------------------------------------------------------

_OPENER = re.compile(r"(?:!!!|\?\?\?\+?)\s+[\w-]+.*|===\+?\s+\".*\"")


@dataclass(frozen=True)
class Piece:
    """Part of a container: ``kind`` keep (as it is), title (one line of prose), body
    (Markdown indented by ``prefix``) or value (a front matter field's, in the quotes
    ``prefix`` holds, or none)."""

    kind: str
    text: str
    prefix: str = ""


Container = tuple[Piece, ...]


def apply_dialect(doc: Document, dialect: str) -> Document:
    """``doc`` with the blocks made only of ``dialect``'s syntax lines marked not translatable
    (a titled opening line excepted: its title is translated:
    fastdesk.document.dialects.keep_syntax), and (MkDocs) admonition and tab bodies marked
    translatable (same ids, same text: the round trip and echo identity hold)."""
    doc = keep_syntax(doc, dialect)
    if dialect not in DIALECTS or dialect == "commonmark":
        return doc
    blocks: list[Block] = []
    changed = False
    for block in doc.blocks:
        body = dialect == "mkdocs" and _body_of(blocks, block)
        if not block.translatable and (body or front_matter(block, dialect)):
            block = dataclasses.replace(block, translatable=True)
            changed = True
        blocks.append(block)
    return Document(doc.source, tuple(blocks)) if changed else doc


def container(doc: Document, block: Block, dialect: str) -> Container | None:
    """``block`` as an admonition or tab (or front matter: the values a reader sees): the
    pieces to keep and to translate (None: it is not one, the engine takes it as any block)."""
    if block.kind == "front_matter":
        return front_matter(block, dialect)
    if dialect == "mkdocs" and block.kind == "code":
        i = doc.index_of(block.id)
        if block.translatable and _body_of(doc.blocks[:i], block):
            return (Piece("body", block.text, _prefix(block.text)),)
        return None
    titled = TITLES.get(dialect)
    first, newline, rest = block.text.partition("\n")
    line, _cr, _ = first.partition("\r")
    opener = titled.fullmatch(line) if titled else None
    pieces: list[Piece] = []
    if opener:
        pieces += [Piece("keep", opener["head"]), Piece("title", opener["title"])]
        pieces.append(Piece("keep", opener["tail"] + first[len(line) :] + newline))
    elif dialect == "mkdocs" and _OPENER.fullmatch(first.strip()):
        pieces.append(Piece("keep", first + newline))
    else:
        return None
    if dialect == "mkdocs" and rest.strip() and rest[:1] in (" ", "\t"):
        pieces.append(Piece("body", rest, _prefix(rest)))
    elif rest:
        if rest.strip():
            return None  # something else follows the opening line: an ordinary block
        pieces.append(Piece("keep", rest))
    return tuple(pieces) if any(p.kind != "keep" for p in pieces) else None


# ---- front matter: what a reader sees -----------------------------------------------------------

# the fields a generator shows a reader: the page's title (and its title in the navigation, the
# sidebar, the pager) and its description (the meta description, Docusaurus' doc cards)
SHOWN_FIELDS = (
    "title",
    "description",
    "sidebar_label",
    "pagination_label",
    "linkTitle",
    "nav_title",
)
_FIELD = re.compile(
    r"^(?P<head>(?P<key>" + "|".join(SHOWN_FIELDS) + r")[ \t]*(?P<sep>[:=])[ \t]*)"
    r"(?:\"(?P<dq>[^\"\\\n]*\S[^\"\\\n]*)\"|'(?P<sq>[^'\n]*\S[^'\n]*)'"
    r"|(?P<plain>[^\s\"'|>&*!%@`{\[#-][^\n]*?))[ \t]*(?P<tail>(?:[ \t]#[^\n]*)?)$",
    re.MULTILINE,
)


def front_matter(block: Block, dialect: str) -> Container | None:
    """A YAML (``---``) or TOML (``+++``) front matter block as pieces: each shown field's
    value (``title``, ``description``, ``sidebar_label``…, one line, quoted or plain; a plain
    value only in YAML) to translate, every key and other field kept as it is. None: no such
    value (or a dialect without pages, plain CommonMark)."""
    if block.kind != "front_matter" or dialect not in DIALECTS or dialect == "commonmark":
        return None
    text = block.text
    toml = text.lstrip("\ufeff").startswith("+++")
    pieces: list[Piece] = []
    last = 0
    for m in _FIELD.finditer(text):
        if (m["sep"] == "=") != toml or (toml and m["plain"] is not None):
            continue
        quote, value = next(
            (q, m[g]) for q, g in (('"', "dq"), ("'", "sq"), ("", "plain")) if m[g] is not None
        )
        if quote == "" and (": " in value or value.rstrip().endswith(":")):
            continue
        start = m.start(g := {'"': "dq", "'": "sq", "": "plain"}[quote])
        pieces += [Piece("keep", text[last:start]), Piece("value", value, quote)]
        last = m.end(g)
    if not pieces:
        return None
    pieces.append(Piece("keep", text[last:]))
    return tuple(pieces)


def safe_value(text: str, quote: str) -> bool:
    """Whether a translated front matter value can stand where the source's did, in the
    same quotes (or none): else the source's is kept."""
    if not text.strip() or any(c in text for c in "\r\n"):
        return False
    if quote:
        return quote not in text and "\\" not in text
    plain_breaks = ": " in text or " #" in text or text.endswith(":")
    return not (plain_breaks or text[0] in "-?:,[]{}#&*!|>'\"%@`")


def _body_of(above: Sequence[Block], block: Block) -> bool:
    """An indented code block right below an opening line (``!!! note``, ``=== "Tab"``), or
    below the body's first paragraph when that is the opening line's lazy continuation (the
    body's further paragraphs)."""
    if block.kind != "code" or block.text[:1] not in (" ", "\t") or not above:
        return False
    lines = [line for line in above[-1].text.splitlines() if line.strip()]
    if not lines:
        return False
    if _OPENER.fullmatch(lines[-1].strip()) is not None:
        return True
    return _OPENER.fullmatch(lines[0].strip()) is not None and lines[-1][:1] in (" ", "\t")


def _prefix(text: str) -> str:
    """The indentation all non-blank lines share."""
    found = [
        line[: len(line) - len(line.lstrip(" \t"))] for line in text.splitlines() if line.strip()
    ]
    if not found:
        return ""
    low, high = min(found), max(found)  # what they all share, the extremes share
    return low[: common_prefix(low, high)]


def dedent(body: str, prefix: str) -> str:
    """The body without its indentation (blank lines as they are)."""
    return "".join(
        line[len(prefix) :] if line.strip() and line.startswith(prefix) else line
        for line in body.splitlines(keepends=True)
    )


def indent(text: str, prefix: str) -> str:
    """The inverse of :func:`dedent`: every non-blank line indented by ``prefix``."""
    return "".join(
        prefix + line if line.strip() else line for line in text.splitlines(keepends=True)
    )
