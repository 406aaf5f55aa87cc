"""What a site generator reads as syntax inside a block, kept out of the model's reach.

A block of prose on a docs site carries syntax the generator reads: reference labels
(``[text][label]``), attribute lists and explicit heading ids (``{ .md-button }``,
``{#install}``), alert types (``> [!NOTE]``), icon and emoji shortcodes
(``:material-plus-circle:``), HTML comments (Material's
``<!-- md:default -->`` badges), HTML and JSX tags, MDX expressions (``{year}``,
``{/* truncate */}``), Hugo shortcodes, and (MkDocs) pymdownx ``///`` blocks, mkdocstrings
``:::`` lines and ``--8<--`` snippets. A model that translates them breaks the built site, and a
check afterwards can only flag it. So before the request :func:`shield` puts a numbered token
(``{{1}}``, a placeholder every model keeps and the engine's placeholder check already holds to
the source) in place of each, and :func:`unshield` puts them back in the answer. Which spans
are syntax is decided here, by the dialect, not found afterwards.

A reference whose text is also its label (``[Label][]``, or ``[Label]`` with a definition) keeps
its text translatable: it is sent as ``[Label]{{1}}`` and written back as it was when the text
came back unchanged, else as a full reference to the source's label (``[Étiquette][Label]``).

Headings: a translated heading would get a new anchor from its translated text, and every link
to it would break. :func:`anchors` gives each heading's anchor as the generator makes it from
the source (its slug rules and numbering of duplicates) and :func:`keep_anchor` writes it as an
explicit id, in the dialect's syntax, on a translated heading whose anchor would change.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Iterable
from dataclasses import dataclass

__all__ = [
    "SHIELDED_DIALECTS",
    "Shielded",
    "Span",
    "anchors",
    "block_title",
    "defined_labels",
    "definition_terms",
    "explicit_id",
    "inline_text",
    "keep_anchor",
    "shield",
    "slug",
    "unshield",
]

SHIELDED_DIALECTS = frozenset({"mkdocs", "hugo", "docusaurus"})


@dataclass(frozen=True)
class Span:
    """What a token stands for: ``text``; or, when the answer right before the token still
    ends with ``unchanged`` (a label the model left as it was), ``echo`` (what the source had)."""

    text: str
    echo: str = ""
    unchanged: str = ""
    first: bool = False  # it opens the block (a line's syntax): put back first if lost


@dataclass(frozen=True)
class Shielded:
    """A block's core as sent (``text``) and what each token ``{{n}}`` stands for."""

    text: str
    spans: tuple[Span, ...] = ()


_TOKEN = re.compile(r"\{\{\s*(\d+)\s*\}\}")
# code is kept by the model and checked by the engine: never shielded, never looked into
_CODE = (
    r"(?P<fence>^[ \t]*(?P<f>`{3,}|~{3,})[^\n]*\n(?:.*\n)*?[ \t]*(?P=f)[ \t]*$)"
    r"|(?P<ticks>`+)(?:(?!(?P=ticks)).)+?(?P=ticks)"
)
_COMMON = [
    r"(?P<comment><!--[\s\S]*?-->)",
    # a link reference definition inside a block (a list item's): label and URL are syntax
    r"(?P<definition>^[ \t]*\[(?!\^)[^\]\n]+\]:[ \t]+\S[^\n]*$)",  # not a footnote's
    r"(?P<footnote>\[\^[^\]\s]+\])",
    r"(?P<alert>\[![A-Za-z]+\][+-]?)",  # a GitHub-style alert's type: > [!NOTE]
    # a full reference's label, a collapsed reference, a shortcut (checked against definitions)
    # (a label may run over a line; Python-Markdown also takes "[text]\n[label]")
    r"(?P<full>\][ \t]*\n?[ \t]*(?P<flabel>\[(?!\^)[^\[\]]*[^\[\]\s][^\[\]]*\]))",
    r"(?P<collapsed>(?<![\]\\])!?\[(?P<clabel>[^\[\]]+)\]\[\])",
    r"(?P<shortcut>(?<![\]\\])!?\[(?P<slabel>[^\[\]^][^\[\]]*)\](?!\(|[ \t]*\n?[ \t]*\[(?!\^)))",
    r"(?P<attrs>\{:?[ \t]*(?:[#.][^{}\n]*|[\w-]+=[^{}\n]*)\})",
    r"(?P<emoji>(?<![\w:/`]):(?=[a-z0-9_+\-]*[a-z])[a-z0-9_+\-]+:(?![\w:/]))",
    r"(?P<tag></?[A-Za-z][\w:.-]*(?:\s[^<>{}]*)?/?>)",
]
_DIALECT = {
    "mkdocs": [
        # a pymdownx block's line and mkdocstrings' ::: line, with the YAML options indented
        # below them (a titled block's title is prose: sent), or a snippet line
        r"(?P<line>^(?P<lead>[ \t]*)(?:/{3,}|:::[ \t])[^\n]*(?:\n(?P=lead)[ \t]+\S[^\n]*)*$"
        r"|^[ \t]*-{2,}8<-{2,}[^\n]*$)",
        r"(?P<abbr>^\*\[[^\]\n]+\]:)",
        # a task list item's box (pymdownx.tasklist: [x] read as another word unticks it) and
        # pymdownx.fancylists' markers (a. i. A) #.), which CommonMark reads as text
        r"(?P<task>^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+\[[ xX]\](?=[ \t]))",
        # pymdownx.magiclink's mentions and repository shorthands: @user, @user/repo
        r"(?P<mention>(?<![\w@./`])@[A-Za-z0-9][\w-]*(?:/[\w.-]*\w)?)",
        r"(?P<fancy>^[ \t]*(?:[a-zA-Z]|[ivxlcdmIVXLCDM]{1,8}|#)[.)](?=[ \t]))",
        # keys, a named one in quotes too: ++ctrl+alt+"My Special Key"++
        r'(?P<keys>\+\+(?:[\w-]+|"[^"\n]*")(?:\+(?:[\w-]+|"[^"\n]*"))*\+\+)',
    ],
    "hugo": [
        # a shortcode that holds code, body and all: {{< hl >}}fmt.Println(){{< /hl >}}
        r"(?P<code_shortcode>\{\{[<%]\s*(?P<code_name>code-toggle|highlight|hl|code)\b"
        r"[^\n]*?[%>]\}\}[\s\S]*?\{\{[<%]\s*/\s*(?P=code_name)\s*[%>]\}\})",
        r"(?P<shortcode>\{\{[<%][\s\S]*?[%>]\}\})",
    ],
    "docusaurus": [r"(?P<line>^[ \t]*(?:import|export)[ \t][^\n]*$)"],
}


def _pattern(dialect: str) -> re.Pattern[str]:
    if dialect not in _PATTERNS:
        alternatives = [_CODE, *_DIALECT.get(dialect, []), *_COMMON]
        _PATTERNS[dialect] = re.compile("|".join(alternatives), re.MULTILINE)
    return _PATTERNS[dialect]


_PATTERNS: dict[str, re.Pattern[str]] = {}
# (Python-Markdown takes "[label]:url" without a space too, and the URL on the next line)
_DEFINITION = re.compile(r"^[ \t]*\[([^\]\n]+)\]:(?=[ \t]*\S|[ \t]*\r?\n[ \t]*\S)", re.MULTILINE)


# a shortcut reference's text that is a name, not prose: one word holding $ . _ / @ or #
# (translated, "[$ref]" became "[$des][$ref]", which pymdownx.arithmatex reads as math)
_NAME = re.compile(r"(?=[^\s\[\]]*\w)[^\s\[\]]*[$._/@#][^\s\[\]]*")


def _label(text: str) -> str:
    return " ".join(text.split()).casefold()


def defined_labels(texts: Iterable[str]) -> frozenset[str]:
    """The link reference labels a document defines (in blocks of their own, or in a list
    item's), from its blocks' texts."""
    return frozenset(_label(m.group(1)) for t in texts for m in _DEFINITION.finditer(t))


def shield(core: str, dialect: str, labels: frozenset[str] = frozenset()) -> Shielded:
    """``core`` with its ``dialect``'s syntax replaced by tokens (see the module); ``labels``:
    the document's defined reference labels (a shortcut reference is one only when defined)."""
    if dialect not in SHIELDED_DIALECTS or _TOKEN.search(core):
        return Shielded(core)  # a source that shows tokens of its own is sent as it is
    spans: list[Span] = []
    out: list[str] = []
    last = 0

    def token(span: Span) -> str:
        spans.append(span)
        return f"{{{{{len(spans)}}}}}"

    for m in _iter_syntax(core, dialect):
        kind = m.lastgroup
        if kind in ("fence", "ticks", "f"):
            continue
        start, end = m.start(), m.end()
        if kind == "full":  # the label only: "]" and what follows it stay
            start = m.start("flabel")
            out.append(core[last:start] + token(Span(core[start:end])))
        elif kind == "collapsed":
            label = m.group("clabel")
            bang = "!" if m.group(0).startswith("!") else ""
            # [Label][] → [Label]{{n}}: the text stays translatable, the label does not
            out.append(core[last:start] + f"{bang}[{label}]")
            out.append(token(Span(f"[{label}]", "[]", f"[{label}]")))
        elif kind == "shortcut":
            label = m.group("slabel")
            if _label(label) not in labels:
                continue
            if _NAME.fullmatch(label):  # [$ref], [schema.json]: a name, kept as code is
                out.append(core[last:start] + token(Span(core[start:end], first=start == 0)))
                last = end
                continue
            bang = "!" if m.group(0).startswith("!") else ""
            out.append(core[last:start] + f"{bang}[{label}]")
            out.append(token(Span(f"[{label}]", "", f"[{label}]")))
        elif (
            kind == "line"
            and (titled := _BLOCK_TITLE.match(core, start, end))
            and (_prose_title(titled))
        ):  # /// tab | Title: the title is sent, the syntax around it is not
            head, tail = titled.start("title"), titled.end("title")
            out.append(core[last:start] + token(Span(core[start:head], first=start == 0)))
            out.append(core[head:tail])
            if core[tail:end].strip():
                out.append(token(Span(core[tail:end])))
            else:
                out.append(core[tail:end])
        else:
            out.append(core[last:start] + token(Span(core[start:end], first=start == 0)))
        last = end
    if not spans:
        return Shielded(core)
    out.append(core[last:])
    return Shielded("".join(out), tuple(spans))


# a pymdownx block's opening line with an argument: ``/// tab | Title``, ``/// html | div``
_BLOCK_TITLE = re.compile(
    r"[ \t]*/{3,}[ \t]*(?P<name>[\w-]+)[ \t]*\|[ \t]*(?P<title>[^\n]*?)[ \t]*(?=\n|$)"
)
# blocks whose argument is syntax: an HTML tag and selector, a caption's number or id
_SYNTAX_ARGUMENT = re.compile(r"html|[\w-]*caption")
_NOT_PROSE = re.compile(r"[<>{}\[\]|]|(?<![\w:]):[a-z0-9_+\-]+:")  # code spans are prose's


def _prose_title(m: re.Match[str]) -> bool:
    """Whether a block's argument is a title a reader reads (admonitions, details, tabs and
    the site's own types), with nothing a generator reads in it."""
    title = m["title"]
    return (
        _SYNTAX_ARGUMENT.fullmatch(m["name"]) is None
        and re.search(r"[^\W\d_]", title) is not None
        and _NOT_PROSE.search(title) is None
    )


def block_title(line: str) -> str | None:
    """The title of a pymdownx block's opening line (``/// note | Title``), sent to the model
    (fastdesk.document.dialects keeps such a line translatable); None: syntax only."""
    m = _BLOCK_TITLE.fullmatch(line.rstrip("\r\n"))
    return m["title"] if m is not None and _prose_title(m) else None


def _iter_syntax(core: str, dialect: str) -> Iterable[re.Match[str] | _Found]:
    """The syntax spans of ``core``; in MDX, expressions and JSX tags with expressions in
    them are found by brace matching (they may nest)."""
    pattern = _pattern(dialect)
    if dialect != "docusaurus":
        yield from pattern.finditer(core)
        return
    code = [(m.start(), m.end()) for m in re.finditer(_CODE, core, re.MULTILINE)]
    jsx = [  # JSX tags with expressions in them, found once (a page may hold many tags)
        whole
        for tag in _OPEN_TAG.finditer(core)
        if not _inside(tag.start(), code)
        and (whole := _jsx_tag(core, tag.start())) is not None
        and "{" in whole.group(0)
    ]
    pos, next_jsx = 0, 0
    while pos < len(core):
        found: list[re.Match[str] | _Found] = []
        m = pattern.search(core, pos)
        if m is not None:
            found.append(m)
        brace = _mdx_expression(core, pos, code)
        if brace is not None:
            found.append(brace)
        while next_jsx < len(jsx) and jsx[next_jsx].start() < pos:
            next_jsx += 1
        if next_jsx < len(jsx):
            found.append(jsx[next_jsx])
        if not found:
            return
        first = min(found, key=lambda f: (f.start(), -f.end()))
        yield first
        pos = max(first.end(), pos + 1)


def _inside(i: int, ranges: list[tuple[int, int]]) -> bool:
    return any(a <= i < b for a, b in ranges)


class _Found:
    """A span found by hand, shaped like the re.Match the caller reads."""

    lastgroup = "expression"

    def __init__(self, text: str, start: int, end: int) -> None:
        self._text, self._start, self._end = text, start, end

    def start(self, _group: int | str = 0) -> int:
        return self._start

    def end(self, _group: int | str = 0) -> int:
        return self._end

    def group(self, _n: int | str = 0) -> str:
        return self._text[self._start : self._end]


_OPEN_TAG = re.compile(r"<[A-Za-z][\w:.-]*")


def _matching_brace(text: str, start: int) -> int | None:
    """The end (one past) of the braces opened at ``start``, strings skipped."""
    depth, i, quote = 0, start, ""
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"`":
            quote = ch
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def _mdx_expression(text: str, pos: int, code: list[tuple[int, int]]) -> _Found | None:
    """The next ``{…}`` MDX expression at or after ``pos`` outside ``code`` (``{/* … */}``
    too)."""
    i = text.find("{", pos)
    while i >= 0:
        if not _inside(i, code) and (i == 0 or text[i - 1] != "\\"):
            end = _matching_brace(text, i)
            if end is not None:
                return _Found(text, i, end)
        i = text.find("{", i + 1)
    return None


def _jsx_tag(text: str, start: int) -> _Found | None:
    """A JSX tag with expressions in its attributes, ``<img src={require('./a.png')} />``."""
    m = _OPEN_TAG.match(text, start)
    if m is None:
        return None
    i = m.end()
    while i < len(text):
        ch = text[i]
        if ch == "{":
            end = _matching_brace(text, i)
            if end is None:
                return None
            i = end
            continue
        if ch in "'\"":
            close = text.find(ch, i + 1)
            if close < 0:
                return None
            i = close + 1
            continue
        if ch == ">":
            return _Found(text, start, i + 1)
        if ch == "<":
            return None
        i += 1
    return None


def unshield(answer: str, shielded: Shielded, *, partial: bool = False) -> tuple[str, list[str]]:
    """``answer`` with every token put back; the second item lists the spans the answer lost
    (put back where they were, at its start or its end, so nothing the generator reads is
    lost) or repeated. ``partial``: an answer still streaming (the tokens it holds put back,
    nothing added; a token cut at its end is left out)."""
    spans = shielded.spans
    if not spans:
        return answer, []
    seen: set[int] = set()
    problems: list[str] = []
    out: list[str] = []
    last = 0
    for m in _TOKEN.finditer(answer):
        n = int(m.group(1))
        before = answer[last : m.start()]
        out.append(before)
        last = m.end()
        if not 1 <= n <= len(spans):
            out.append(m.group(0))
            continue
        if n in seen:
            problems.append(spans[n - 1].text)
            continue
        seen.add(n)
        span = spans[n - 1]
        if span.unchanged and "".join(out).endswith(span.unchanged):
            out.append(span.echo)
        else:
            out.append(span.text)
    rest = answer[last:]
    if partial:
        cut = rest.rfind("{{")
        return "".join(out) + (rest[:cut] if cut >= 0 and "}}" not in rest[cut:] else rest), []
    out.append(rest)
    text = "".join(out)
    lost = [span for n, span in enumerate(spans, 1) if n not in seen]
    head = " ".join(span.text for span in lost if span.first)
    tail = " ".join(span.text for span in lost if not span.first)
    if head:
        text = head + " " + text.lstrip()
    if tail:
        text = text.rstrip() + " " + tail + answer[len(answer.rstrip()) :]
    return text, [span.text for span in lost] + problems


# ---- heading anchors ---------------------------------------------------------------------------

_HEADING = re.compile(
    r"^(?P<marks>[ \t]{0,3}#{1,6})(?P<text>[ \t][^\n]*?)??(?P<close>[ \t]+#+)?[ \t]*$"
)
# an explicit id: {#id}, { #id .class }, { id="4.53.17" }, {/* #id */}
_EXPLICIT = re.compile(
    r"\{:?[^{}\n]*?(?:(?<![\w-])#(?P<hash>[^\s{}]+)|\bid=[\"']?(?P<attr>[^\"'\s{}]+))[^{}\n]*\}"
    r"|\{/\*[ \t]*#(?P<comment>[^\s{}*]+)[ \t]*\*/\}"
)
# an attribute list without an id that ends a heading line: the id goes into it
_TRAILING_ATTRS = re.compile(r"\{(?P<colon>:?)(?P<space>[ \t]*)(?P<body>[^{}\n]*)\}[ \t]*$")
_INLINE_STRIP = (
    (re.compile(r"!\[[^\]]*\]\([^)]*\)"), ""),  # images have no text
    (re.compile(r"\[([^\]]*)\]\([^)]*\)"), r"\1"),
    (re.compile(r"\[([^\]]*)\]\[[^\]]*\]"), r"\1"),
    (re.compile(r"<[^>]+>"), ""),
    (re.compile(r"\{[^{}]*\}"), ""),
    (re.compile(r"(?<![\w:/]):[a-z0-9_+\-]+:(?![\w:/])"), ""),
    (re.compile(r"(?<!\w)[*_]+|[*_]+(?!\w)"), ""),
)


def heading_text(line: str) -> str | None:
    """An ATX heading line's text as the generator shows it (inline syntax dropped); None
    for a line that is not one."""
    m = _HEADING.match(line)
    if m is None:
        return None
    return inline_text(m.group("text") or "")


def inline_text(markdown: str) -> str:
    """A line of Markdown's text as the generator shows it: inline syntax dropped, code's
    text kept as it is, runs of whitespace as one space."""
    parts = re.split(r"(`+)(.+?)\1", markdown)
    out = []
    for i, part in enumerate(parts):
        if i % 3 == 2:
            out.append(part)
        elif i % 3 == 0:
            for pattern, repl in _INLINE_STRIP:
                part = pattern.sub(repl, part)
            out.append(part)
    return " ".join("".join(out).split())


# a definition list's definition line (Goldmark, PHP Markdown Extra): ": The definition"
_DEFINITION_LINE = re.compile(r"^ {0,3}:[ \t]")


def definition_terms(paragraph: str) -> list[str]:
    """The terms of the definition list a paragraph block opens (its lines before the first
    ``: definition`` line, each a term), which Hugo's ``autoDefinitionTermID`` gives ids as
    it gives headings theirs; [] for a paragraph that is not one."""
    lines = paragraph.split("\n")
    for i, line in enumerate(lines):
        if _DEFINITION_LINE.match(line):
            terms = [t.strip() for t in lines[:i]]
            return terms if all(terms) else []
    return []


def _hugo_slug(text: str, id_type: str) -> str:
    """Hugo's anchorize for ``markup.goldmark.parser.autoHeadingIDType``: ``github`` keeps
    letters, decimal digits, ``_`` and ``-`` (a space is a ``-``), lower-cased;
    ``github-ascii`` the same without accents, ASCII only; ``blackfriday`` runs of anything
    else as one ``-`` between letters and digits. Its typographer first makes ``--`` and
    ``---`` dashes, which go."""
    text = text.replace("---", "\u2014").replace("--", "\u2013").strip()
    out: list[str] = []
    if id_type == "blackfriday":
        dash = False
        for ch in text:
            if ch.isalpha() or unicodedata.category(ch).startswith("N"):
                out.append("-" if dash and out else "")
                out.append(ch.lower())
                dash = False
            else:
                dash = True
        return "".join(out)
    if id_type == "github-ascii":
        text = "".join(
            c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn"
        )
    for ch in text:
        if id_type == "github-ascii" and not ch.isascii():
            continue
        if ch in " -":
            out.append("-")
        elif ch == "_" or ch.isalpha() or unicodedata.category(ch) == "Nd":
            out.append(ch.lower())
    return "".join(out)


def slug(text: str, dialect: str, id_type: str = "github") -> str:
    """The anchor ``dialect``'s generator makes from a heading's text: Python-Markdown's toc
    (MkDocs: ASCII only, runs of spaces and hyphens as one), Hugo's (``id_type``: its
    ``autoHeadingIDType``, see :func:`_hugo_slug`), Docusaurus' github-slugger (letters,
    digits, ``-`` and ``_`` kept, each space a ``-``)."""
    if dialect == "hugo":
        return _hugo_slug(text, id_type)
    if dialect == "mkdocs":
        value = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
        value = re.sub(r"[^\w\s-]", "", value).strip().lower()
        return re.sub(r"[-\s]+", "-", value)
    return "".join("-" if ch == " " else ch for ch in text.lower() if ch.isalnum() or ch in "-_ ")


def anchors(
    headings: Iterable[tuple[str, str]],
    dialect: str,
    *,
    terms: Collection[str] = (),
    id_type: str = "github",
) -> dict[str, str]:
    """Block id → the anchor the generator gives that heading in the source, for
    ``headings`` (id, heading line) in document order, duplicates numbered as it numbers them
    (MkDocs ``_1``, Hugo and Docusaurus ``-1``). An explicit id counts as taken, except in
    Hugo (Goldmark numbers only the ids it makes). ``terms``: the ids among ``headings`` whose
    line is a definition term (Hugo's ``autoDefinitionTermID``: numbered with the headings);
    ``id_type``: Hugo's ``autoHeadingIDType``."""
    out: dict[str, str] = {}
    used: set[str] = set()
    for block_id, line in headings:
        explicit = None if block_id in terms else _EXPLICIT.search(line)
        if explicit:
            if dialect != "hugo":
                used.add(explicit["hash"] or explicit["attr"] or explicit["comment"])
            continue
        text = inline_text(line) if block_id in terms else heading_text(line)
        if text is None:
            continue
        base = slug(text, dialect, id_type)
        anchor, n = base, 0
        if dialect == "mkdocs":
            while anchor in used or not anchor:
                n += 1
                anchor = f"{base}_{n}"
        else:
            while anchor in used:
                n += 1
                anchor = f"{base}-{n}"
        used.add(anchor)
        out[block_id] = anchor
    return out


def explicit_id(line: str) -> str | None:
    """The explicit id a heading line names (``{#id}``, ``{ id="x" }``, ``{/* #id */}``)."""
    m = _EXPLICIT.search(line)
    return (m["hash"] or m["attr"] or m["comment"]) if m else None


def id_syntax(anchor: str, dialect: str) -> str:
    """An explicit heading id in ``dialect``'s syntax."""
    if dialect == "mkdocs":
        return f"{{ #{anchor} }}"
    if dialect == "docusaurus":
        return f"{{/* #{anchor} */}}"
    return f"{{#{anchor}}}"


def keep_anchor(
    answer: str, anchor: str, dialect: str, source: str = "", id_type: str = "github"
) -> str:
    """A translated ATX heading (its first line) with ``anchor`` as its explicit id, when its
    own text would give another one and it names none. ``source``: the source's heading line;
    an answer whose text gives the slug the source's gave is numbered among its duplicates as
    the source was (``### Fixed`` again is ``fixed_2`` again: left as it is)."""
    first, newline, rest = answer.partition("\n")
    line = first.rstrip("\r")
    m = _HEADING.match(line)
    if m is None or _EXPLICIT.search(line):
        return answer
    text = heading_text(line)
    if text is None or slug(text, dialect, id_type) == anchor:
        return answer
    before = heading_text(source) if source else None
    if before is not None and slug(before, dialect, id_type) == slug(text, dialect, id_type):
        return answer
    cut = m.start("close") if m.group("close") else len(line.rstrip(" \t"))
    attrs = _TRAILING_ATTRS.search(line[:cut]) if dialect != "docusaurus" else None
    if attrs is not None:  # { data-toc-label="…" } → { #id data-toc-label="…" }
        inside = f"{attrs['colon']}{attrs['space'] or ' ' * (dialect == 'mkdocs')}#{anchor} "
        line = (
            line[: attrs.start("colon")]
            + inside
            + attrs["body"].lstrip()
            + line[attrs.end("body") :]
        )
    else:
        line = line[:cut].rstrip(" \t") + " " + id_syntax(anchor, dialect) + line[cut:]
    return line + first[len(first.rstrip("\r")) :] + newline + rest
