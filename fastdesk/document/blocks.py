"""Markdown → blocks with exact source spans, and back (byte-exact).

The engine translates a document block by block, so a live edit re-sends only the blocks it
touched. This module cuts the ORIGINAL source (CRLF, lone CR, BOM, NUL and all) into contiguous
blocks: ``join(b.text for b in parse(s).blocks) == s`` for every string ``s``.

How: markdown-it-py (CommonMark + GFM tables + front matter) finds the top-level structure and
gives each top-level token a line map; we turn those line numbers into character offsets of the
original string ourselves, because markdown-it normalises line endings before it parses. Lines
are the pieces between ``\\r\\n``, ``\\r`` or ``\\n`` (as CommonMark defines them; not
``str.splitlines``, which also breaks on form feeds and U+2028).

Granularity: one block per top-level construct, except that a top-level list gives one block per
item. Blank lines after a block belong to it (its trailing whitespace); blank lines at the very
start form a leading non-translatable ``blank`` block. Link reference definitions (which
markdown-it consumes without tokens unless asked) are blocks of their own, one per definition.

Kinds: heading, paragraph, list_item, blockquote, table, html, hr, code, front_matter, reference,
blank. Not translatable: code (fenced and indented), front matter (YAML ``---``, TOML ``+++``),
references, hr, blank, and html blocks that are only comments or are ``<script>``/``<style>``.

Ids: ``id`` is a short hash of the block's kind and exact text, plus ``-N`` for the N-th (N ≥ 2)
block with that same kind and text, counting from the top. So an edit changes only the ids of the
blocks it touches, and inserting or deleting a block elsewhere changes no other id, EXCEPT that
inserting (or deleting) a block identical to a later one renumbers the later duplicates.
Equal ids imply byte-identical texts. Note that blank lines belong to the block above them, so
adding or removing blank lines between two blocks changes the id of the upper one, and an edit
that changes structure (splitting a paragraph, turning a line into a list item) changes the ids
of every block it merges or splits.

"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from hashlib import blake2b

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.token import Token
from mdit_py_plugins.front_matter import front_matter_plugin

from fastdesk.document.text_ends import common_prefix, common_suffix

__all__ = ["KINDS", "UNTRANSLATABLE_KINDS", "Block", "Document", "join", "parse", "reparse"]

KINDS = (
    "heading",
    "paragraph",
    "list_item",
    "blockquote",
    "table",
    "html",
    "hr",
    "code",
    "front_matter",
    "reference",
    "blank",
)
UNTRANSLATABLE_KINDS = frozenset({"code", "front_matter", "reference", "hr", "blank"})

_LINE_BREAK = re.compile(r"\r\n?|\n")
_WHITESPACE = " \t\r\n"
_BOM = "\ufeff"
# An html block made only of comments (and whitespace) carries no text to translate.
_ONLY_COMMENTS = re.compile(r"\s*(?:<!--.*?-->\s*)+", re.DOTALL)
# Raw-text HTML elements: their content is program text, not prose.
_RAW_HTML = re.compile(r"\s*<(?:script|style)(?=[\s>]|$)", re.IGNORECASE)

# Top-level token type → block kind.
_KIND_OF_TOKEN = {
    "heading_open": "heading",
    "paragraph_open": "paragraph",
    "blockquote_open": "blockquote",
    "table_open": "table",
    "html_block": "html",
    "hr": "hr",
    "fence": "code",
    "code_block": "code",
    "front_matter": "front_matter",
    "definition": "reference",
}
_LIST_OPEN = frozenset({"bullet_list_open", "ordered_list_open"})


@dataclass(frozen=True)
class Block:
    """One top-level piece of a document. ``text`` is exactly ``source[start:end]``.

    ``line`` is the 1-based number of the block's first line (lines split at CRLF, CR or LF).
    ``heading_level`` is 1-6 for headings, else 0. ``list_marker`` is the item's marker as
    written (``-``, ``*``, ``+``, ``1.``, ``3)``) for list items, else "".
    """

    id: str
    kind: str
    start: int
    end: int
    line: int
    text: str
    translatable: bool
    heading_level: int = 0
    list_marker: str = ""

    def split(self) -> tuple[str, str, str]:
        """(leading whitespace, core, trailing whitespace): only the core is sent to a model.

        Whitespace is spaces, tabs, CR and LF (plus a byte-order mark at the start), so blank
        lines, indentation of the first line and a BOM never depend on the model's answer.
        """
        core = self.text.lstrip(_WHITESPACE + _BOM)
        lead = self.text[: len(self.text) - len(core)]
        core = core.rstrip(_WHITESPACE)
        trail = self.text[len(lead) + len(core) :]
        return lead, core, trail


@dataclass(frozen=True)
class Document:
    """A parsed source and its blocks, in order, covering the source exactly."""

    source: str
    blocks: tuple[Block, ...]
    _starts: tuple[int, ...] = field(init=False, repr=False, compare=False)
    _lines: tuple[int, ...] = field(init=False, repr=False, compare=False)
    _ids: dict[str, int] = field(init=False, repr=False, compare=False)
    _last_line: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # As an editor counts them: a final line break opens one more (empty) line.
        src = self.source
        breaks = src.count("\n") + src.count("\r") - src.count("\r\n")
        last_line = breaks + 1 if src else 0
        object.__setattr__(self, "_last_line", last_line)
        object.__setattr__(self, "_starts", tuple(b.start for b in self.blocks))
        object.__setattr__(self, "_lines", tuple(b.line for b in self.blocks))
        object.__setattr__(self, "_ids", {b.id: i for i, b in enumerate(self.blocks)})

    def block_at_offset(self, offset: int) -> int:
        """Index of the block holding character ``offset``; the end of the text counts as the last
        block (a cursor after the final character). IndexError outside ``0..len(source)``."""
        if not self.blocks or offset < 0 or offset > len(self.source):
            raise IndexError(f"offset {offset} outside the document (0..{len(self.source)})")
        return bisect.bisect_right(self._starts, offset) - 1

    def block_at_line(self, line: int) -> int:
        """Index of the block holding 1-based ``line`` (a blank line belongs to the block above;
        the empty line after a final line break, to the last block). IndexError outside."""
        if not self.blocks or line < 1 or line > self._last_line:
            raise IndexError(f"line {line} outside the document (1..{self._last_line})")
        return bisect.bisect_right(self._lines, line) - 1

    def by_id(self, block_id: str) -> Block:
        """The block with this id; KeyError if none."""
        return self.blocks[self._ids[block_id]]

    def index_of(self, block_id: str) -> int:
        """Position of the block with this id; KeyError if none."""
        return self._ids[block_id]


def join(parts: Iterable[str]) -> str:
    """Reassemble a document from block texts (the one way to do it, so it stays in one place)."""
    return "".join(parts)


def parse(source: str) -> Document:
    """Cut ``source`` into contiguous top-level blocks with exact spans and stable ids."""
    line_starts = _line_starts(source)
    segments = _segments(source, len(line_starts))
    spans = _cover(source, line_starts, segments)
    return Document(source, _make_blocks(source, line_starts, spans))


def reparse(previous: Document, source: str) -> Document:
    """``parse(source)`` for an edit of ``previous.source``: the same Document, but only the
    blocks around the edit go through markdown-it again.

    Why: the live translator parses on every pause in typing, and a whole parse of 500 blocks
    takes ~20 ms (of a 5 MB document, over a second), all on the path from keystroke to
    translation. The window parsed again is the edited blocks plus one block on each side; the
    blocks after it are taken over, shifted. The window is kept only when its last block comes
    out as that block did before (so nothing the edit opened, such as a code fence, runs on
    past it) and, below the top of the document, its first block too and no front matter in
    it; otherwise, and when the document opens with front matter that the edit could end
    elsewhere, the whole source is parsed. tests/test_blocks.py holds it to ``parse``.
    """
    old, blocks = previous.source, previous.blocks
    if source == old:
        return previous
    if not blocks or not source:
        return parse(source)
    head = common_prefix(old, source)
    tail = common_suffix(old, source, min(len(old), len(source)) - head)
    first = max(previous.block_at_offset(head) - 1, 0)
    if source.lstrip(_BOM).startswith(("---", "+++")) and (
        first == 0 or blocks[0].kind != "front_matter"
    ):
        # Front matter opened at the top ends at the first closing line, anywhere below: an
        # edit in it, or anywhere while it is still open, can move that end.
        return parse(source)
    stop = previous.block_at_offset(max(head, len(old) - tail - 1)) + 1  # the block after it
    delta = len(source) - len(old)
    end = blocks[stop].end + delta if stop < len(blocks) else len(source)
    window = _parse_window(source, blocks[first].start, end, blocks[first].line)
    if window is None or (first > 0 and not _same_shape(window[0], blocks[first])):
        return parse(source)
    if stop < len(blocks):
        last = window[-1]
        if last.text != blocks[stop].text or not _same_shape(last, blocks[stop]):
            return parse(source)
        lines = last.line - blocks[stop].line
        window.extend(_moved(b, b.id, delta, lines) for b in blocks[stop + 1 :])
    return Document(source, (*blocks[:first], *_numbered(window, blocks[:first])))


def _parse_window(source: str, start: int, end: int, line: int) -> list[Block] | None:
    """The blocks of ``source[start:end]`` parsed alone, placed at ``start`` and (1-based)
    ``line``; their ids count duplicates within the window only. None for a window below the
    top of the document that holds front matter: only the top of a document may."""
    text = source[start:end]
    line_starts = _line_starts(text)
    spans = _cover(text, line_starts, _segments(text, len(line_starts)))
    if start > 0 and any(span.kind == "front_matter" for span in spans):
        return None
    return [_moved(b, b.id, start, line - 1) for b in _make_blocks(text, line_starts, spans)]


def _moved(block: Block, block_id: str, chars: int, lines: int) -> Block:
    """``block`` under ``block_id``, ``chars`` characters and ``lines`` lines further down."""
    return Block(
        block_id,
        block.kind,
        block.start + chars,
        block.end + chars,
        block.line + lines,
        block.text,
        block.translatable,
        block.heading_level,
        block.list_marker,
    )


def _same_shape(a: Block, b: Block) -> bool:
    return (a.kind, a.heading_level, a.list_marker) == (b.kind, b.heading_level, b.list_marker)


def _numbered(blocks: list[Block], above: Iterable[Block]) -> list[Block]:
    """``blocks`` with the ids they get below ``above`` (duplicates counted from the top)."""
    seen: dict[str, int] = {}
    for block in above:
        digest = block.id.partition("-")[0]
        seen[digest] = seen.get(digest, 0) + 1
    out = []
    for block in blocks:
        digest = block.id.partition("-")[0]
        n = seen[digest] = seen.get(digest, 0) + 1
        block_id = digest if n == 1 else f"{digest}-{n}"
        out.append(block if block.id == block_id else _moved(block, block_id, 0, 0))
    return out


# --- markdown-it ----------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    """CommonMark + GFM tables + YAML/TOML front matter; block level only (no inline parsing)."""
    md = MarkdownIt("commonmark", {"inline_definitions": True})
    md.enable("table")
    md.use(front_matter_plugin)
    md.block.ruler.before("table", "front_matter_toml", toml_front_matter_rule)
    md.core.ruler.enableOnly(["normalize", "block"])
    md.parse("warm up\n")  # compile the rule chains now, not lazily in whichever thread comes first
    return md


def toml_front_matter_rule(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """Hugo-style ``+++`` TOML front matter on the very first line, closed by a ``+++`` line."""
    if start_line != 0 or not _is_fence_line(state, 0, "+++"):
        return False
    close = next((n for n in range(1, end_line) if _is_fence_line(state, n, "+++")), None)
    if close is None:
        return False
    if silent:
        return True
    token = state.push("front_matter", "", 0)
    token.markup = "+++"
    token.block = True
    token.hidden = True
    token.content = state.src[state.bMarks[1] : state.eMarks[close - 1]] if close > 1 else ""
    state.line = close + 1
    token.map = [0, state.line]
    return True


def _is_fence_line(state: StateBlock, line: int, marker: str) -> bool:
    """True when ``line`` is exactly ``marker`` at column 0, trailing spaces/tabs allowed."""
    text = state.src[state.bMarks[line] : state.eMarks[line]]
    return text.rstrip(" \t") == marker


@dataclass(frozen=True)
class _Segment:
    """A top-level construct as markdown-it saw it: lines [begin, end)."""

    begin: int
    end: int
    kind: str
    heading_level: int = 0
    list_marker: str = ""


def _segments(source: str, line_count: int) -> list[_Segment]:
    """Top-level constructs (list items for top-level lists), in source order."""
    text = source[1:] if source.startswith(_BOM) else source
    tokens = _parser().parse(text) if text else []
    segments: list[_Segment] = []
    in_list = False
    for token in tokens:
        if token.level == 0:
            if token.nesting == -1:
                in_list = False
                continue
            if token.type in _LIST_OPEN:
                in_list = True
                continue
            kind = _KIND_OF_TOKEN.get(token.type, "paragraph")
            level = int(token.tag[1:]) if kind == "heading" else 0
            _add(segments, token, kind, line_count, heading_level=level)
        elif in_list and token.level == 1 and token.type == "list_item_open":
            _add(segments, token, "list_item", line_count, list_marker=_marker(token))
    return segments


def _add(
    segments: list[_Segment],
    token: Token,
    kind: str,
    line_count: int,
    *,
    heading_level: int = 0,
    list_marker: str = "",
) -> None:
    if token.map is None:  # no known top-level token lacks one; its lines fall into a gap
        return
    begin, end = token.map
    end = max(begin, min(end, line_count))
    segments.append(_Segment(begin, end, kind, heading_level, list_marker))


def _marker(token: Token) -> str:
    """``-``/``*``/``+`` for bullets; the number as written plus ``.`` or ``)`` for ordered."""
    return f"{token.info}{token.markup}" if token.info else token.markup


# --- lines → characters ---------------------------------------------------------------------


def _line_starts(source: str) -> list[int]:
    """Offset of the first character of every line of the original source."""
    starts = [0]
    starts.extend(m.end() for m in _LINE_BREAK.finditer(source))
    if starts[-1] == len(source):  # text ends with a line break (or is empty): no line after it
        starts.pop()
    return starts


@dataclass(frozen=True)
class _Span:
    begin: int  # first line
    end: int  # one past the last line
    kind: str
    heading_level: int = 0
    list_marker: str = ""


def _cover(source: str, line_starts: list[int], segments: list[_Segment]) -> list[_Span]:
    """Lines covered by segments, plus every uncovered line: blank lines join the block above
    (or a leading ``blank`` block); anything else (none known) joins the block above too."""
    line_count = len(line_starts)
    spans: list[_Span] = []
    cursor = 0
    for seg in segments:
        begin = max(seg.begin, cursor)
        if seg.end <= begin:
            continue
        if begin > cursor:
            _absorb(spans, source, line_starts, cursor, begin)
        spans.append(_Span(begin, seg.end, seg.kind, seg.heading_level, seg.list_marker))
        cursor = seg.end
    if cursor < line_count:
        _absorb(spans, source, line_starts, cursor, line_count)
    return spans


def _absorb(spans: list[_Span], source: str, line_starts: list[int], begin: int, end: int) -> None:
    """Lines [begin, end) that no token covers: extend the previous span, or start a new one."""
    if spans:
        last = spans[-1]
        spans[-1] = _Span(last.begin, end, last.kind, last.heading_level, last.list_marker)
        return
    stop = line_starts[end] if end < len(line_starts) else len(source)
    blank = not source[line_starts[begin] : stop].strip(_WHITESPACE + _BOM)
    spans.append(_Span(begin, end, "blank" if blank else "paragraph"))


# --- blocks ---------------------------------------------------------------------------------


def _make_blocks(source: str, line_starts: list[int], spans: list[_Span]) -> tuple[Block, ...]:
    blocks: list[Block] = []
    seen: dict[str, int] = {}
    for i, span in enumerate(spans):
        start = line_starts[span.begin]  # the first span begins at line 0, offset 0
        end = line_starts[spans[i + 1].begin] if i + 1 < len(spans) else len(source)
        text = source[start:end]
        digest = _digest(span.kind, text)
        n = seen[digest] = seen.get(digest, 0) + 1
        blocks.append(
            Block(
                id=digest if n == 1 else f"{digest}-{n}",
                kind=span.kind,
                start=start,
                end=end,
                line=span.begin + 1,
                text=text,
                translatable=_translatable(span.kind, text),
                heading_level=span.heading_level,
                list_marker=span.list_marker,
            )
        )
    return tuple(blocks)


def _digest(kind: str, text: str) -> str:
    data = f"{kind}\0{text}".encode("utf-8", "surrogatepass")
    return blake2b(data, digest_size=8).hexdigest()


def _translatable(kind: str, text: str) -> bool:
    if kind in UNTRANSLATABLE_KINDS:
        return False
    if kind == "html":
        body = text.lstrip(_BOM)
        return not (_ONLY_COMMENTS.fullmatch(body) or _RAW_HTML.match(body))
    return True
