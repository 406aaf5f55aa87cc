"""Fidelity checks: does a model's answer keep what a translation of a Markdown block must keep?

The engine runs :func:`check_block` on every answer. Each check compares facts extracted once from
the source block and once from the answer (code, link targets, HTML tags, placeholders, block
structure) or looks at the answer alone (thinking leaks, missing accents), and returns a short
detail that says what differs. A failed block is retried once with a firmer instruction, then
flagged (:class:`~fastdesk.translate.events.Flag`) and still written. Checks never rewrite an
answer.

A verbatim answer (the source echoed back, surrounding whitespace aside) passes every check. Every
preservation check holds for it by construction; the accents and glossary-translation checks would
only say "this was not translated", which is no orthography problem and, for a name or a command,
the right answer. So a same-language echo provider (the contract's identity test) costs no retries.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Collection
from dataclasses import dataclass
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.token import Token

from fastdesk.translate.admonitions import check_types
from fastdesk.translate.events import Flag
from fastdesk.translate.glossary import Glossary, primary_subtag
from fastdesk.translate.language import preload as preload_identifier
from fastdesk.translate.language import source_language
from fastdesk.translate.meaning_checks import numbers_problem, omission_problem
from fastdesk.translate.readability import harder
from fastdesk.translate.readability import preload as preload_hyphenation

# Emphasis, entities and soft breaks carry nothing a check compares; without them a paragraph is
# one text token between code spans and links, which is faster and keeps `[t][ref]` in one piece.
_MD = (
    MarkdownIt("commonmark", {"html": True})
    .enable("table")
    .disable(["emphasis", "entity", "newline"])
)
_MD.parse("warm-up: compile the rule chains once, at import")

# --- facts ---------------------------------------------------------------------------------------

_BARE_URL = re.compile(
    r"(?<![\w/@.])(?:https?|ftp)://[^\s<>\"'`\[\]]+|(?<![\w/@.])www\.[^\s<>\"'`\[\]]+"
)
_URL_TRAIL = ".,;:!?*_~'\""
_REF_LINK = re.compile(r"\[([^\[\]\x00]*)\]\[([^\[\]\x00]*)\]")
# a shortcut reference's brackets (a definition's line start matched first, and left out), not
# a full or collapsed reference's, a link's, a footnote's
_SHORTCUT = re.compile(
    r"^[ \t]*\[[^\[\]\n]+\]:|(?<![\]\\])!?\[([^\[\]^\x00][^\[\]\x00]*)\](?![\[(])", re.M
)
_FOOTNOTE = re.compile(r"\[\^([^\]\s\x00]+)\]")
_PLACEHOLDER = re.compile(
    r"\$\{[^{}\s]+\}"  # ${var}
    r"|\{\{[^{}\n]+\}\}"  # {{ name }}
    r"|\{%[^{}\n]*%\}"  # {% tag %}
    r"|\{[#.][^{}\n]*\}"  # {#heading-id .class}
    r"|\{[\w.!:<>^\-\[\]]*\}"  # {name} {0} {} {x:>10}
    r"|%\d+\$[-+#0]*\d*(?:\.\d+)?[sdif]"  # %1$s
    r"|%(?:\([\w.]+\))?[-+#0]*\d*(?:\.\d+)?[sdifrxXeEgGcou](?![A-Za-z])"  # %s %(name)s %.2f
    r"|(?<![\w:/]):(?=[a-z0-9_+\-]*[a-z])[a-z0-9_+\-]+:(?![\w:/])"  # :emoji:
)
_TAG = re.compile(
    r"<(/?)([A-Za-z][A-Za-z0-9-]*)"
    r"((?:\s+[^\s\"'>/=]+(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s\"'=<>`]+))?)*)\s*/?>"
)
_ATTR = re.compile(r"([^\s\"'>/=]+)(?:\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s\"'=<>`]+))?")
# Attributes whose value is human text: translating it is right, so only their presence counts.
_TEXT_ATTRS = frozenset({"alt", "title", "aria-label", "aria-description", "placeholder", "label"})
_WORD = re.compile(r"[^\W\d_]+")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_ESCAPED_PIPE = re.compile(r"\\\|")
_ROW_PREFIX = re.compile(r"^[\s>]*(?:(?:[-*+]|\d{1,9}[.)])\s+(?=\|))?")


@dataclass(frozen=True, slots=True)
class Structure:
    """The block-level shape a translation must keep."""

    headings: tuple[int, ...]  # levels, in order
    lists: tuple[tuple[str, int], ...]  # (marker description, items), in order of opening
    tables: tuple[tuple[int, ...], ...]  # per table: cells per row (delimiter row excluded)
    quote_depth: int
    rules: int  # thematic breaks
    paragraphs: int  # outside lists


@dataclass(frozen=True, slots=True)
class Facts:
    """What the checks compare, extracted once per text (sources are cached across retries)."""

    inline_code: Counter[str]
    code_blocks: Counter[str]  # info string + newline + content, as markdown-it reads it
    targets: Counter[str]  # link/image targets, autolinks, bare URLs, [ref] labels, definitions
    tags: Counter[str]  # normalized HTML tags
    placeholders: Counter[str]
    structure: Structure
    prose: str  # text outside code, URLs and tags: what a reader reads


@lru_cache(maxsize=512)
def facts(text: str) -> Facts:
    """Parse ``text`` (a block's core) with markdown-it and collect what the checks compare."""
    env: dict[str, object] = {}
    tokens = _MD.parse(text, env)
    inline_code: Counter[str] = Counter()
    code_blocks: Counter[str] = Counter()
    targets: Counter[str] = Counter()
    tags: Counter[str] = Counter()
    prose: list[str] = []
    for token in tokens:
        if token.type == "inline" and token.children:
            _inline_facts(token.children, inline_code, targets, tags, prose)
        elif token.type in ("fence", "code_block"):
            code_blocks[f"{token.info.strip()}\n{token.content}"] += 1
        elif token.type == "html_block":
            tags.update(_tags(token.content))
            prose.append(_TAG.sub(" ", token.content))
    references = env.get("references")
    if isinstance(references, dict):
        for label, ref in references.items():
            targets[f"[{label.casefold()}]: {ref.get('href', '')}"] += 1
    prose_text = "\n".join(prose)
    placeholders = Counter(_norm_placeholder(m) for m in _PLACEHOLDER.findall(prose_text))
    prose_text = _PLACEHOLDER.sub(" ", prose_text)
    return Facts(
        inline_code=inline_code,
        code_blocks=code_blocks,
        targets=targets,
        tags=tags,
        placeholders=placeholders,
        structure=_structure(tokens, text),
        prose=prose_text,
    )


def _inline_facts(
    children: list[Token],
    inline_code: Counter[str],
    targets: Counter[str],
    tags: Counter[str],
    prose: list[str],
) -> None:
    flat: list[str] = []  # text with \x00 for anything else, so [t][ref] never spans a code span
    link_depth = 0
    for child in children:
        kind = child.type
        if kind == "text":
            content = child.content
            flat.append(content)
            if "://" in content or "www." in content:
                if link_depth == 0:
                    targets.update(_bare_urls(content))
                content = _BARE_URL.sub(" ", content)
            prose.append(content)
            continue
        flat.append("\x00")
        if kind == "code_inline":
            inline_code[child.content] += 1
        elif kind == "link_open":
            link_depth += 1
            targets[str(child.attrs.get("href", ""))] += 1
        elif kind == "link_close":
            link_depth -= 1
        elif kind == "image":
            targets[str(child.attrs.get("src", ""))] += 1
            prose.append(child.content)
        elif kind == "html_inline":
            tags.update(_tags(child.content))
    joined = "".join(flat)
    if "[" in joined:
        for match in _REF_LINK.finditer(joined):
            label = match.group(2) or match.group(1)
            targets[f"[{' '.join(label.split()).casefold()}]"] += 1
        targets.update(f"[^{m}]" for m in _FOOTNOTE.findall(joined))


def _bare_urls(text: str) -> list[str]:
    return [normalize_link(url) for _start, _end, url in bare_url_spans(text)]


def bare_url_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, url) of each bare URL in ``text``, trailing punctuation left out as a
    reader (and GitHub) would leave it out."""
    spans = []
    for match in _BARE_URL.finditer(text):
        url = match.group(0).rstrip(_URL_TRAIL)
        while url.endswith(")") and url.count(")") > url.count("("):
            url = url[:-1].rstrip(_URL_TRAIL)
        spans.append((match.start(), match.start() + len(url), url))
    return spans


def normalize_link(url: str) -> str:
    """A link target as the checks compare it (markdown-it's normalisation)."""
    return _MD.normalizeLink(url)


def _tags(html: str) -> list[str]:
    """Tags as ``<name a="1" b>``: attributes sorted, text attributes without their value."""
    found = []
    for slash, name, attrs in _TAG.findall(html):
        if name.lower() in ("think", "thinking"):
            continue  # the thinking check's business
        parts = []
        for attr, value in _ATTR.findall(attrs):
            attr = attr.lower()
            if attr in _TEXT_ATTRS or not value:
                parts.append(attr)
            else:
                parts.append(f"{attr}={value.strip(chr(34) + chr(39))!r}")
        found.append("<" + slash + name.lower() + "".join(" " + p for p in sorted(parts)) + ">")
    return found


def _norm_placeholder(text: str) -> str:
    return "".join(text.split()) if text.startswith(("{", "$")) else text


def _structure(tokens: list[Token], text: str) -> Structure:
    headings: list[int] = []
    lists: list[str] = []  # each list's description, in the order they open
    items: list[int] = []  # and how many items it has
    open_lists: list[int] = []
    tables: list[list[int]] = []
    depth = max_depth = rules = paragraphs = 0
    lines: list[str] | None = None
    for token in tokens:
        kind = token.type
        if kind == "heading_open":
            headings.append(int(token.tag[1]))
        elif kind == "paragraph_open" and not open_lists:
            paragraphs += 1  # list items are counted as items
        elif kind == "bullet_list_open":
            open_lists.append(len(lists))
            lists.append(f"bullet list ({token.markup})")
            items.append(0)
        elif kind == "ordered_list_open":
            open_lists.append(len(lists))
            start = token.attrs.get("start", 1)
            lists.append(f"ordered list ({start}{token.markup})")
            items.append(0)
        elif kind == "list_item_open" and open_lists:
            items[open_lists[-1]] += 1
        elif kind in ("bullet_list_close", "ordered_list_close") and open_lists:
            open_lists.pop()
        elif kind == "blockquote_open":
            depth += 1
            max_depth = max(max_depth, depth)
        elif kind == "blockquote_close":
            depth -= 1
        elif kind == "hr":
            rules += 1
        elif kind == "table_open":
            tables.append([])
        elif kind == "tr_open" and tables and token.map:
            if lines is None:
                lines = text.split("\n")
            tables[-1].append(_cells(lines[token.map[0]] if token.map[0] < len(lines) else ""))
    return Structure(
        headings=tuple(headings),
        lists=tuple(zip(lists, items, strict=True)),
        tables=tuple(tuple(rows) for rows in tables),
        quote_depth=max_depth,
        rules=rules,
        paragraphs=paragraphs,
    )


def _cells(line: str) -> int:
    """Cells in a raw table row (markdown-it pads or cuts rows to the header's width)."""
    row = _ROW_PREFIX.sub("", line).strip()
    row = _CODE_SPAN.sub("x", _ESCAPED_PIPE.sub("x", row))
    if row.startswith("|"):
        row = row[1:]
    if row.endswith("|"):
        row = row[:-1]
    return row.count("|") + 1


# --- the checks ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Pair:
    """A source block and the model's answer for it, with what a check needs to judge them."""

    source: str
    answer: str
    src: Facts
    ans: Facts
    target_lang: str
    mode: str
    glossary: Glossary | None
    source_lang: str | None = None  # when known (a project's, a document's): not identified

    @property
    def simplify(self) -> bool:
        return self.mode == "simplify"


Check = Callable[[Pair], str | None]


def _short(item: str, limit: int = 60) -> str:
    item = item.replace("\n", "⏎")
    return item if len(item) <= limit else item[: limit - 1] + "…"


def _diff(
    src: Counter[str], ans: Counter[str], what: str, show: Callable[[str], str]
) -> str | None:
    """'what changed: a → b' for one swap; otherwise lists of what is missing and what was added."""
    missing = list((src - ans).elements())
    added = list((ans - src).elements())
    if not missing and not added:
        return None
    if len(missing) == 1 and len(added) == 1:
        return f"{what} changed: {show(missing[0])} → {show(added[0])}"
    parts = []
    for label, items in (("missing", missing), ("added", added)):
        if items:
            more = f" (+{len(items) - 3} more)" if len(items) > 3 else ""
            parts.append(f"{what} {label}: " + ", ".join(show(i) for i in items[:3]) + more)
    return "; ".join(parts)


def check_code(pair: Pair) -> str | None:
    """Fenced and indented code inside the block must come back byte for byte."""
    if _fenced_whole(pair.answer) and not _fenced_whole(pair.source):
        return "the whole answer is wrapped in a code fence: send the Markdown bare"
    missing = pair.src.code_blocks - pair.ans.code_blocks
    added = pair.ans.code_blocks - pair.src.code_blocks
    if not missing and not added:
        return None
    if sum(missing.values()) == 1 and sum(added.values()) == 1:
        old, new = next(iter(missing)), next(iter(added))
        old_lines, new_lines = old.split("\n"), new.split("\n")
        for number, (a, b) in enumerate(zip(old_lines, new_lines, strict=False)):
            if a != b:
                where = "info string" if number == 0 else f"line {number}"
                return f"code block changed at {where}: {_short(a)!r} → {_short(b)!r}"
        return "code block changed: lines added or removed"
    count = (sum(pair.src.code_blocks.values()), sum(pair.ans.code_blocks.values()))
    if count[0] != count[1]:
        return f"{count[0]} code blocks became {count[1]}"
    return "code blocks changed"


def _fenced_whole(text: str) -> bool:
    text = text.strip()
    return text.startswith(("```", "~~~")) and text.endswith(("```", "~~~")) and "\n" in text


def check_inline_code(pair: Pair) -> str | None:
    """Inline code spans are names and commands: the same spans, as many times."""
    return _diff(
        pair.src.inline_code, pair.ans.inline_code, "inline code", lambda s: f"`{_short(s)}`"
    )


def check_links(pair: Pair) -> str | None:
    """Link and image targets, autolinks, bare URLs, reference labels unchanged; text may change.
    A shortcut reference (``[Label]``, defined elsewhere on the page) that comes back as a full
    one to its label (``[Étiquette][Label]``: its text translated, as a site generator's
    dialect writes it back, fastdesk.document.syntax) is the same link."""
    src = pair.src.targets
    added = pair.ans.targets - src
    if added:
        found = [label for label in _SHORTCUT.findall(pair.source) if label]
        src = src + (added & Counter(f"[{' '.join(label.split()).casefold()}]" for label in found))
    return _diff(src, pair.ans.targets, "link target", _short)


def check_html(pair: Pair) -> str | None:
    """The same HTML tags and attributes (text attributes such as alt may be translated)."""
    return _diff(pair.src.tags, pair.ans.tags, "HTML tag", _short)


def check_placeholders(pair: Pair) -> str | None:
    """Template placeholders ({name}, {{x}}, %s, %(n)s, ${v}, :emoji:) are code, not prose."""
    return _diff(pair.src.placeholders, pair.ans.placeholders, "placeholder", _short)


def check_structure(pair: Pair) -> str | None:
    """Same headings, lists, tables, quote depth, rules; paragraphs too unless simplifying."""
    src, ans = pair.src.structure, pair.ans.structure
    problems = []
    if src.headings != ans.headings:
        problems.append(
            _seq("heading", [f"h{h}" for h in src.headings], [f"h{h}" for h in ans.headings])
        )
    if src.lists != ans.lists:
        problems.append(_lists(src.lists, ans.lists))
    if src.tables != ans.tables:
        problems.append(_tables(src.tables, ans.tables))
    if src.quote_depth != ans.quote_depth:
        problems.append(f"blockquote depth {src.quote_depth} became {ans.quote_depth}")
    if src.rules != ans.rules:
        problems.append(f"{src.rules} horizontal rules became {ans.rules}")
    if src.paragraphs != ans.paragraphs and not pair.simplify:
        problems.append(f"{src.paragraphs} paragraphs became {ans.paragraphs}")
    return "; ".join(problems) or None


def _seq(what: str, src: list[str], ans: list[str]) -> str:
    if len(src) == len(ans):
        return "; ".join(f"{what} {a} became {b}" for a, b in zip(src, ans, strict=True) if a != b)
    before, after = ", ".join(src) or "none", ", ".join(ans) or "none"
    return f"{len(src)} {what}s ({before}) became {len(ans)} ({after})"


def _lists(src: tuple[tuple[str, int], ...], ans: tuple[tuple[str, int], ...]) -> str:
    if len(src) != len(ans):
        return f"{len(src)} lists became {len(ans)}"
    for (src_kind, src_items), (ans_kind, ans_items) in zip(src, ans, strict=True):
        if src_kind != ans_kind:
            return f"{src_kind} became {ans_kind}"
        if src_items != ans_items:
            return f"{src_kind} of {src_items} items became {ans_items} items"
    return "lists changed"


def _tables(src: tuple[tuple[int, ...], ...], ans: tuple[tuple[int, ...], ...]) -> str:
    if len(src) != len(ans):
        return f"{len(src)} tables became {len(ans)}"
    for src_rows, ans_rows in zip(src, ans, strict=True):
        if len(src_rows) != len(ans_rows):
            return f"table of {len(src_rows)} rows became {len(ans_rows)} rows"
        for number, (a, b) in enumerate(zip(src_rows, ans_rows, strict=True), 1):
            if a != b:
                return f"table row {number}: {a} cells became {b}"
    return "tables changed"


_THINK_TAG = re.compile(r"</?think(?:ing)?\s*>", re.IGNORECASE)
_PREAMBLE = re.compile(
    r"""^\s*(?:
      (?:okay|ok|alright|all\s+right|sure|certainly|of\s+course)\b[\s,!.:]*
          (?:so\b|let'?s\b|let\s+me\b|here\b|i\b|i'll\b|i'm\b|we\b|now\b|the\s+user\b|first\b)
    | here(?:'s|\s+is|\s+are)\s+(?:the|your|a|an|my)\b[^\n]{0,40}?
          \b(?:translation|translated|version|rewrite|rewritten|simplified|simpler)
    | (?:let\s+me|let's|i\s+will|i'll|i\s+need\s+to|i\s+should|first,\s+i)\s+
          (?:translat|simplif|rewrit|think|analy[sz])\w*\b[^\n]{0,40}?
          \b(?:this|these|it|the\s+(?:text|paragraph|fragment|sentence|markdown|passage|block|user))\b
    | the\s+user\s+(?:wants|asks|is\s+asking)
    | (?:translation|traduction|traducción|tradução|übersetzung|traduzione)\s*:
    | voici\s+(?:la|une)\s+(?:traduction|version)
    | aquí\s+(?:está|tienes)\s+la\s+(?:traducción|versión)
    | hier\s+ist\s+die\s+(?:übersetzung|vereinfachte)
    )""",
    re.IGNORECASE | re.VERBOSE,
)
_META_NOTE = re.compile(
    r"^\s*\(?\s*(?:note|nota|remarque|anmerkung|hinweis|n\.\s?b\.)\s*:[^\n]*"
    r"(?:translat|traduc|übersetz|tradu[çz]|original|unchanged|inchang|as\s+is|preserved|kept)",
    re.IGNORECASE,
)


def check_thinking(pair: Pair) -> str | None:
    """Reasoning that leaked into the answer: think tags, a preamble, a closing note about it."""
    tags = len(_THINK_TAG.findall(pair.answer)) - len(_THINK_TAG.findall(pair.source))
    if tags > 0:
        return "thinking tags (<think>) left in the answer"
    first = pair.answer.lstrip().split("\n", 1)[0]
    if _PREAMBLE.match(first) and not _PREAMBLE.match(pair.source.lstrip().split("\n", 1)[0]):
        return f"reasoning or preamble before the answer: {_short(first)!r}"
    last = pair.answer.rstrip().rsplit("\n", 1)[-1]
    if _META_NOTE.match(last) and not _META_NOTE.search(pair.source):
        return f"note about the translation after the answer: {_short(last)!r}"
    return None


# --- accents -------------------------------------------------------------------------------------

# Letters a language's orthography needs (lowercase). "*" means: any accented Latin letter.
ACCENT_LETTERS: dict[str, str] = {
    "fr": "àâæçéèêëîïôœùûüÿ",
    "es": "áéíóúñü¿¡",
    "gl": "áéíóúñü",
    "pt": "áâãàçéêíóôõú",
    "it": "àèéìíîòóùú",
    "ca": "àèéíïòóúüç·",
    "ro": "ăâîșțşţ",
    "de": "äöüß",
    "pl": "ąćęłńóśźż",
    "cs": "áčďéěíňóřšťúůýž",
    "sk": "áäčďéíĺľňóôŕšťúýž",
    "sl": "čšž",
    "hr": "čćđšž",
    "bs": "čćđšž",
    "hu": "áéíóöőúüű",
    "tr": "çğıöşü\u0307",
    "sv": "åäöé",
    "no": "æøåé",
    "nb": "æøåé",
    "nn": "æøåé",
    "da": "æøåé",
    "fi": "äöåšž",
    "is": "áéíóúýþæöð",
    "et": "äöõüšž",
    "lv": "āčēģīķļņšūž",
    "lt": "ąčęėįšųūž",
    "mt": "ċġħżà",
    "eo": "ĉĝĥĵŝŭ",
    "sq": "çë",
    "vi": "*",
}
# Letters of prose from which an answer with none of those letters is suspicious. Measured on the
# Debian gettext catalogs (real translations, >= 12 words): below these lengths correct text with
# no accent at all is common (Spanish: 12% of 150-letter strings). Italian is absent: its accents
# are too rare (20% of 300-letter strings have none), only stripped words tell.
_MIN_LETTERS: dict[str, int] = {
    "fr": 250, "es": 300, "gl": 300, "pt": 300, "ca": 300, "ro": 300, "de": 400,
    "pl": 200, "cs": 200, "sk": 200, "sl": 400, "hr": 400, "bs": 400, "hu": 150, "tr": 100,
    "sv": 250, "no": 300, "nb": 300, "nn": 300, "da": 300, "fi": 300, "is": 150, "et": 300,
    "lv": 150, "lt": 150, "mt": 300, "eo": 400, "sq": 150, "vi": 100,
}  # fmt: skip
_MIN_WORDS = 12


# Common words that correct spelling always writes with an accent and whose bare form is neither a
# word of the language nor common English. One in an answer (and not in its source) means the model
# dropped accents, even in a short answer.
def _wordset(words: str) -> frozenset[str]:
    return frozenset(words.split())


_STRIPPED_WORDS: dict[str, frozenset[str]] = {
    "fr": _wordset(
        "tres deja etre ete etait etaient apres francais francaise systeme systemes probleme "
        "problemes modele modeles donnees donnee reponse reponses requete requetes memoire numero "
        "periode egalement generalement necessaire necessaires deuxieme troisieme derniere "
        "dernieres etape etapes ecran ecrans ecrit ecrire equipe equipes securite qualite creer "
        "acces succes interet verifier verifiez deployer reseau reseaux methode methodes parametre "
        "parametres caractere caracteres bibliotheque telecharger telechargement developpement "
        "developpeur developpeurs reel reelle resultat resultats plutot bientot "
        "entierement evenement evenements etat etats idee idees specifique specifiques "
        "differentes differents selectionner selectionnez precedente precedentes premieres "
        "cle cles fenetre fenetres cout couts controle grace voila"
    ),
    "es": _wordset(
        "tambien ademas despues asi aqui alli facil dificil rapido rapida rapidamente numero "
        "pagina paginas codigo codigos metodo metodos traduccion informacion configuracion "
        "aplicacion funcion seccion opcion conexion sesion tecnologia categoria garantia "
        "compania dias ultimo ultima ultimos ultimas publico basico basica tecnico tecnica "
        "automatico automatica automaticamente util utiles electronico telefono busqueda "
        "todavia ningun algun segun espanol pequeno pequena tamano diseno caracteristica "
        "caracteristicas estadisticas parametro parametros proposito practica practicas maximo "
        "minimo unico unica economico estan tendra podra debera habra ahi traduccion "
        "descripcion ejecucion instalacion actualizacion documentacion solucion accion "
        "direccion"
    ),
    "pt": _wordset(
        "nao sao tambem voce voces entao informacao traducao configuracao aplicacao funcao "
        "versao solucao questao atencao opcao sessao conexao padrao codigo pagina paginas numero "
        "rapido rapida facil ate apos alem porem estao serao tera podera possivel disponivel "
        "necessario servico servicos atraves historico ultimo ultima metodo analise usuario "
        "usuarios especifico proximo proxima memoria instalacao atualizacao documentacao "
        "descricao execucao conteudo"
    ),
    "de": _wordset(
        "fur uber konnen mussen moglich moglichkeit naturlich wahrend spater zuruck "
        "hauptsachlich ubersetzung ubersetzen uberprufen ausfuhren verfugbar fruher anderung "
        "anderungen losung losungen schlussel gerat gerate ermoglicht ermoglichen enthalt lauft "
        "hinzufugen gultig ungultig qualitat prioritat funktionalitat kompatibilitat grun "
        "benutzeroberflache offnen geoffnet"
    ),
    "it": _wordset(
        "perche poiche piu puo gia cosi citta liberta qualita possibilita attivita funzionalita "
        "velocita universita finche affinche sara potra dovra verra avra cioe percio "
        "compatibilita sicche"
    ),
}

LANGUAGE_NAMES: dict[str, str] = {
    "fr": "French", "es": "Spanish", "pt": "Portuguese", "it": "Italian", "de": "German",
    "ca": "Catalan", "gl": "Galician", "ro": "Romanian", "pl": "Polish", "cs": "Czech",
    "sk": "Slovak", "sl": "Slovenian", "hr": "Croatian", "bs": "Bosnian", "hu": "Hungarian",
    "tr": "Turkish", "sv": "Swedish", "no": "Norwegian", "nb": "Norwegian", "nn": "Norwegian",
    "da": "Danish", "fi": "Finnish", "is": "Icelandic", "et": "Estonian", "lv": "Latvian",
    "lt": "Lithuanian", "mt": "Maltese", "eo": "Esperanto", "sq": "Albanian", "vi": "Vietnamese",
}  # fmt: skip


def _accented(text: str, letters: str) -> int:
    """How many of ``letters`` (or, for "*", accented Latin letters) ``text`` holds."""
    if letters == "*":
        return sum(1 for ch in text if ord(ch) > 127 and ch.isalpha() and _is_latin(ch))
    lowered = text.lower()
    return sum(lowered.count(ch) for ch in letters)


def _is_latin(ch: str) -> bool:
    return unicodedata.name(ch, "").startswith("LATIN")


def check_accents(pair: Pair) -> str | None:
    """Answers that lost the diacritics their language needs (small models such as Llama 3.1 8B
    do)."""
    lang = primary_subtag(pair.target_lang or "")
    letters = ACCENT_LETTERS.get(lang)
    if pair.simplify:
        # Simplifying stays in the source's language: only an answer that lost the accents its
        # source had is suspect.
        if letters is None or not _accented(pair.src.prose, letters):
            letters = "*"
        if _accented(pair.src.prose, letters) < 2:
            return None
    elif letters is None:
        return None
    words = _WORD.findall(pair.ans.prose)
    source_words = {w.casefold() for w in _WORD.findall(pair.src.prose)}
    stripped = _STRIPPED_WORDS.get(lang, frozenset())
    # All-capital words are skipped: capitals often go without accents in print (MEMOIRE).
    bare = sorted({w.casefold() for w in words if not w.isupper()} & stripped - source_words)
    if bare:
        return f"accents missing from: {', '.join(bare[:5])}"
    enough = 300 if letters == "*" else _MIN_LETTERS.get(lang)
    letter_count = sum(len(w) for w in words)
    if enough is None or len(words) < _MIN_WORDS or letter_count < enough:
        return None
    if _accented(pair.ans.prose, letters):
        return None
    name = "accented" if letters == "*" else LANGUAGE_NAMES.get(lang, lang)
    return f"no {name} letters in {len(words)} words"


def check_glossary(pair: Pair) -> str | None:
    """Kept terms kept, forced translations used (see glossary.Glossary.check)."""
    if not pair.glossary:
        return None
    lang = None if pair.simplify else pair.target_lang
    flags = pair.glossary.check(pair.src.prose, pair.ans.prose, lang)
    return "; ".join(f.detail for f in flags) or None


def check_admonitions(pair: Pair) -> str | None:
    """Admonition types are syntax (the engine puts back a changed one: admonitions)."""
    return check_types(pair.source, pair.answer)


def check_readability(pair: Pair) -> str | None:
    """Simplify: an answer harder to read than its source (a long enough block only: the
    formulas say little about one sentence)."""
    if not pair.simplify:
        return None
    lang = pair.source_lang or source_language(pair.source) or pair.target_lang
    return harder(pair.source, pair.answer, lang)


_ORDERED = re.compile(r"ordered list \((\d+)")


def _list_numbers(found: Facts) -> list[str]:
    """The numbers of a block's ordered lists' items, which its prose leaves out."""
    return [
        str(int(m.group(1)) + n)
        for kind, items in found.structure.lists
        if (m := _ORDERED.match(kind))
        for n in range(items)
    ]


def _counted(found: Facts) -> str:
    """The prose with its ordered lists' numbers: "1. eine …" made a list by the answer keeps
    the source's "1." (the structure check says the list is new)."""
    numbers = _list_numbers(found)
    return f"{found.prose}\n{' '.join(numbers)}" if numbers else found.prose


CHECKS: dict[str, Check] = {
    "thinking": check_thinking,
    "code": check_code,
    "inline_code": check_inline_code,
    "links": check_links,
    "html": check_html,
    "placeholders": check_placeholders,
    "structure": check_structure,
    "glossary": check_glossary,
    "accents": check_accents,
    "admonition": check_admonitions,
    "readability": check_readability,
    "numbers": lambda p: numbers_problem(
        _counted(p.src), _counted(p.ans), p.target_lang, p.source_lang
    ),
    "omission": lambda p: (
        None
        if p.simplify
        else omission_problem(p.src.prose, p.ans.prose, p.target_lang, _list_numbers(p.ans))
    ),
}
"""Every check by the name its flags carry, in the order they run and are reported."""


def brought_in(source: str, answer: str) -> str | None:
    """What ``answer`` brings in that ``source`` lacks, among what the fidelity checks compare
    (link targets, code, HTML tags, placeholders), or None. A translator's file (XLIFF, PO)
    may drop or reword, as a hand edit may; it must not add a link or a command: the one
    thing a stranger's file could use a project's published pages for."""
    if answer.strip() == source.strip():
        return None
    src, ans = facts(source), facts(answer)
    found = []
    for what, a, b in (
        ("link target", src.targets, ans.targets),
        ("inline code", src.inline_code, ans.inline_code),
        ("code block", src.code_blocks, ans.code_blocks),
        ("HTML tag", src.tags, ans.tags),
        ("placeholder", src.placeholders, ans.placeholders),
    ):
        added = list((b - a).elements())
        if added:
            found.append(f"{what} {', '.join(_short(x) for x in added[:3])}")
    return "; ".join(found) or None


def check_block(
    source: str,
    answer: str,
    *,
    target_lang: str,
    mode: str,
    glossary: Glossary | None = None,
    source_lang: str | None = None,
) -> list[Flag]:
    """Flags for every check ``answer`` fails against ``source``; empty when it is faithful.
    ``source_lang``: the source's language when known (else, where a check needs it, it is
    identified from ``source``: ~0.2 ms a paragraph)."""
    if answer.strip() == source.strip():
        return []
    src, ans = facts(source), facts(answer)
    pair = Pair(source, answer, src, ans, target_lang, mode, glossary, source_lang)
    flags = []
    for name, check in CHECKS.items():
        detail = check(pair)
        if detail:
            flags.append(Flag(name, detail))
    return flags


# What a stored answer may never fail unless its own flags said so when it was stored: a model
# cannot change a link target (they are never sent), and a model's changed code or placeholder
# is flagged as it is stored. An imported answer (TMX) failing one is a stranger's link or
# command; a local one failing one its flags do not record was changed on disk.
CARRIED_CHECKS = ("links", "code", "inline_code", "html", "placeholders")
# What any of them could find starts with one of these (a link's bracket, an autolink's or a
# tag's <, a code span's backtick, a fence, an indented code line, a URL, a placeholder's
# brace, percent, dollar or colon): a text without any has nothing they compare (most prose:
# the markdown parse is skipped for it).
_MAY_CARRY = re.compile(
    r"[\[\]`<{%$]|(?:https?|ftp)://|www\.|:[a-z0-9_+\-]+:|^(?: {4}|\t|~~~)", re.M
)


def stored_answer_problem(
    source: str, answer: str, recorded: Collection[str], *, imported: bool
) -> str | None:
    """Why a translation memory's ``answer`` for ``source`` must not be used (None: it may),
    by the same checks a model's answer goes through: one of :data:`CARRIED_CHECKS` fails and
    the answer was imported, or its stored flags (``recorded``, check names) do not say so."""
    if answer.strip() == source.strip():
        return None
    if not (_MAY_CARRY.search(source) or _MAY_CARRY.search(answer)):
        return None  # no link, code, tag or placeholder on either side: nothing to compare
    src, ans = facts(source), facts(answer)
    pair = Pair(source, answer, src, ans, "", "translate", None)
    for name in CARRIED_CHECKS:
        detail = CHECKS[name](pair)
        if detail and (imported or name not in recorded):
            return detail
    return None


def preload(mode: str, lang: str) -> None:
    """Load now what the checks of ``mode`` answers in ``lang`` read (call it in a thread): the
    language identifier (~0.7 s) and, to simplify, ``lang``'s hyphenation dictionary (~0.2 s),
    each holding the GIL. Left to the first answer, loading held back the answers streaming in
    beside it, and a one-paragraph ``fastdesk translate`` waited for it after its answer."""
    preload_identifier()
    if mode == "simplify":
        preload_hyphenation(lang)
