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
from fastdesk.document.syntax import block_title
from fastdesk.document.text_ends import common_prefix

__all__ = [
    "DIALECTS",
    "TITLES",
    "Container",
    "Piece",
    "apply_dialect",
    "container",
    "dedent",
    "fence_title",
    "front_matter",
    "indent",
    "keep_syntax",
    "meta_data",
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
        lines = [line.strip() for line in _without_options(core) if line.strip()]
        syntax = lines and all(any(p.fullmatch(line) for p in patterns) for line in lines)
        syntax = syntax and not (dialect == "mkdocs" and any(map(block_title, lines)))
        syntax = syntax or block.id in code or (dialect == "docusaurus" and _esm(core))
        if block.translatable and syntax and not (titled and titled.fullmatch(core)):
            block = dataclasses.replace(block, translatable=False)
            changed = True
        blocks.append(block)
    return Document(doc.source, tuple(blocks)) if changed else doc


_HEADER = re.compile(r"(?P<lead>[ \t]*)(?:/{3,}|:::[ \t])")


def _without_options(core: str) -> list[str]:
    """``core``'s lines without the YAML options indented below a pymdownx block's opening
    line or mkdocstrings' ``:::`` line (syntax, as the line above them)."""
    out: list[str] = []
    lead: str | None = None  # the indentation of the header whose options may follow
    for line in core.splitlines():
        if (
            lead is not None
            and line.strip()
            and line.startswith(lead)
            and (line[len(lead) : len(lead) + 1] in (" ", "\t"))
        ):
            continue
        header = _HEADER.match(line)
        lead = header["lead"] if header is not None else None
        out.append(line)
    return out


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
        body = dialect == "mkdocs" and (_body_of(blocks, block) or fence_title(block) is not None)
        if not block.translatable and (body or front_matter(block, dialect)):
            block = dataclasses.replace(block, translatable=True)
            changed = True
        blocks.append(block)
    return Document(doc.source, tuple(blocks)) if changed else doc


def container(doc: Document, block: Block, dialect: str, *, page: bool = True) -> Container | None:
    """``block`` as an admonition or tab (or front matter: the values a reader sees): the
    pieces to keep and to translate (None: it is not one, the engine takes it as any block).
    ``page``: ``doc`` is a page (not a container's body, where no meta-data is read)."""
    if block.kind == "front_matter":
        return front_matter(block, dialect) if page else None
    if dialect == "mkdocs" and block.kind == "paragraph" and page and _first(doc, block):
        meta = meta_data(block)
        if meta is not None:
            return meta
    if dialect == "mkdocs" and block.kind == "code":
        i = doc.index_of(block.id)
        if block.translatable and _body_of(doc.blocks[:i], block):
            return (Piece("body", block.text, _body_prefix(block.text)),)
        return fence_title(block)
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
        pieces.append(Piece("body", rest, _body_prefix(rest)))
    elif rest:
        if rest.strip():
            return None  # something else follows the opening line: an ordinary block
        pieces.append(Piece("keep", rest))
    return tuple(pieces) if any(p.kind != "keep" for p in pieces) else None


# ---- a code block's title: what a reader sees above the code -------------------------------

# pymdownx.highlight's (and Material's) title="…" on a fence's opening line
_FENCE_TITLE = re.compile(
    r"(?P<head>[ \t]{0,3}(?P<fence>`{3,}|~{3,})[^\n`]*?(?<=[\s{])title=\")"
    r"(?P<title>[^\"\n]*[^\W\d_][^\"\n]*)(?=\")"
)


def fence_title(block: Block) -> Container | None:
    """A fenced code block with a ``title="…"`` (MkDocs): the title to translate, the fence,
    its other options and the code kept as they are. None: no such title."""
    if block.kind != "code":
        return None
    m = _FENCE_TITLE.match(block.text)
    if m is None:
        return None
    return (
        Piece("keep", m["head"]),
        Piece("title", m["title"]),
        Piece("keep", block.text[m.end() :]),
    )


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


# MultiMarkdown's meta-data, which MkDocs reads at a page's top when there is no YAML front
# matter (Python-Markdown's own docs: "title: Library Reference"): "key: value" lines, a value
# going on over lines indented by 4 spaces, up to the first blank line
_META_LINE = re.compile(r"[ ]{0,3}[A-Za-z0-9_-]+:.*|[ ]{4,}\S.*")
_META_SHOWN = re.compile(
    r"^(?P<head>\ufeff?[ ]{0,3}(?P<key>[A-Za-z0-9_-]+):[ \t]*)(?P<value>\S[^\r\n]*?)[ \t]*\r?$",
    re.MULTILINE,
)


def meta_data(block: Block) -> Container | None:
    """A page's first block read as MultiMarkdown meta-data (MkDocs takes it so: every line
    ``key: value`` or a value's indented continuation) as pieces: the shown fields' one-line
    values to translate, every key and other value kept. None: not meta-data, or nothing
    shown in it."""
    _lead, core, _trail = block.split()
    lines = core.lstrip("\ufeff").splitlines()
    if not lines or not all(_META_LINE.fullmatch(line) for line in lines):
        return None
    if lines[0][:1] in (" ", "\t"):
        return None
    text = block.text
    pieces: list[Piece] = []
    last = 0
    for m in _META_SHOWN.finditer(text):
        following = text[m.end() :].lstrip("\r\n").split("\n", 1)[0]
        if m["key"].lower() not in SHOWN_FIELDS or following.startswith("    "):
            continue  # a value over several lines is kept
        pieces += [Piece("keep", text[last : m.start("value")]), Piece("value", m["value"])]
        last = m.end("value")
    if not pieces:
        return None
    pieces.append(Piece("keep", text[last:]))
    return tuple(pieces)


def _first(doc: Document, block: Block) -> bool:
    """Whether ``block`` is the page's first (only blank lines above it)."""
    for other in doc.blocks:
        if other.id == block.id:
            return True
        if other.kind != "blank":
            return False
    return False


def safe_value(text: str, quote: str) -> bool:
    """Whether a translated front matter value can stand where the source's did, in the
    same quotes (or none): else the source's is kept."""
    if not text.strip() or any(c in text for c in "\r\n"):
        return False
    if quote:
        return quote not in text and "\\" not in text
    plain_breaks = ": " in text or " #" in text or text.endswith(":")
    return not (plain_breaks or text[0] in "-?:,[]{}#&*!|>'\"%@`")


# a definition list's definition (Python-Markdown's def_list): ":   The definition"
_DEFINITION = re.compile(r":[ \t]+\S")


def _body_of(above: Sequence[Block], block: Block) -> bool:
    """An indented code block right below an opening line (``!!! note``, ``=== "Tab"``), or
    below the body's first paragraph when that is the opening line's lazy continuation (the
    body's further paragraphs), or below a definition (``:   Text``: the definition's further
    paragraphs, indented by 4 spaces)."""
    if block.kind != "code" or block.text[:1] not in (" ", "\t") or not above:
        return False
    lines = [line for line in above[-1].text.splitlines() if line.strip()]
    if not lines:
        return False
    if _OPENER.fullmatch(lines[-1].strip()) is not None:
        return True
    if _DEFINITION.match(lines[0]) is not None:  # a definition's further paragraphs
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


def _body_prefix(text: str) -> str:
    """A container body's indentation: one level (4 spaces or a tab, as Python-Markdown reads
    it), so that code indented further in the body stays code (``        code`` under
    ``!!! note`` is the note's code block)."""
    found = _prefix(text)
    return found[:1] if found.startswith("\t") else found[:4]


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
