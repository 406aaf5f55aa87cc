"""Deterministic meaning checks: numbers kept, nothing left out (the ``numbers`` and ``omission``
flags).

The structural checks (fastdesk.translate.checks) say nothing about meaning: an answer that
turns "30 days" into "3 days" or drops a sentence keeps every code span and link. These two look
at the prose alone, cost nothing and run on every answer beside them:

* ``numbers``: every number, date, time, version and unit of the source is in the answer. A
  locale's separators are not a change: 1,000.5 = 1 000,5 = 1.000,5 = 1'000.5, and 1,000 may be
  a thousand or one (German decimal comma) on either side. Dates may change form (March 12,
  2026 = 12 mars 2026 = 12/03/2026), 3:00 PM may become 15 h 00, a small number may be spelled
  out ("3 steps" → "trois étapes"), "5 MB" may become "5 Mo". Only what is missing is a flag: an
  added number may be a spelled-out one written as digits.
* ``omission``: the answer has half the source's sentences (or fewer); or fewer sentences and
  far less text than a translation into that language takes (a dropped sentence in a paragraph
  of a few); or a whole source sentence of six words or more left in the source language inside
  an otherwise translated block. A paragraph of many sentences that lost one short sentence is
  beyond length arithmetic: the reviewer pass (fastdesk.translate.review) is for that.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from fastdesk.document.languages import primary
from fastdesk.translate.language import identify

# --- extraction ----------------------------------------------------------------------------------

_MONTHS: dict[str, int] = {}
for _names in (
    # fr, es, it, pt, de, nl: lower case; month abbreviations with a dot are read without it
    "janvier février mars avril mai juin juillet août septembre octobre novembre décembre",
    "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre",
    "gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre novembre dicembre",
    "janeiro fevereiro março abril maio junho julho agosto setembro outubro novembro dezembro",
    "januar februar märz april mai juni juli august september oktober november dezember",
    "januari februari maart april mei juni juli augustus september oktober november december",
    "janv févr mars avr mai juin juil août sept oct nov déc",
    "ene feb mar abr may jun jul ago sep oct nov dic",
    "jan feb mär apr mai jun jul aug sep okt nov dez",
):
    for _n, _name in enumerate(_names.split(), 1):
        _MONTHS.setdefault(_name, _n)
# English months are only read capitalised: "may 5 users" is no date
_EN_MONTHS = {
    name: n
    for n, names in enumerate(
        (
            "January Jan",
            "February Feb",
            "March Mar",
            "April Apr",
            "May",
            "June Jun",
            "July Jul",
            "August Aug",
            "September Sept Sep",
            "October Oct",
            "November Nov",
            "December Dec",
        ),
        1,
    )
    for name in names.split()
}
_ORD = r"(?:st|nd|rd|th|er|e|º|°|\.)?"
# a word next to a number: a date when the word is a month (looked up, not an alternation of
# every month name: that made the check 2 ms a paragraph)
_DAY_MONTH = re.compile(
    rf"(?<![\w.,])(\d{{1,2}}){_ORD}\s+(?:de\s+)?([^\W\d_]+)\.?(?:,?\s+(?:de\s+)?(\d{{4}}))?(?!\w)"
)
_MONTH_DAY = re.compile(
    rf"(?<!\w)([^\W\d_]+)\.?\s+(\d{{1,2}}){_ORD}(?:,?\s+(\d{{4}}))?(?![\w,.]?\d)"
)
_MONTH_YEAR = re.compile(r"(?<!\w)([^\W\d_]+)\.?,?\s+(?:de\s+)?(\d{4})(?!\d)")
_ISO_DATE = re.compile(r"(?<![\w.\-])(\d{4})-(\d{1,2})-(\d{1,2})(?![\w\-])")
_NUM_DATE = re.compile(r"(?<![\w./])(\d{1,2})([/.])(\d{1,2})\2(\d{4}|\d{2}(?=[^\d.]|$))(?![\w/])")
_TIME = re.compile(
    r"(?<![\w.:,])(\d{1,2})(?:\s?(?::|h|H)\s?(\d{2}))?(?:\s?([AaPp])\.?\s?[Mm]\.?(?!\w)|\s?Uhr\b)"
    r"|(?<![\w.:,])(\d{1,2}):(\d{2})(?![\d:])"
    r"|(?<![\w.:,])(\d{1,2})\s?h\s?(\d{2})?(?!\w)"
)
_VERSION = re.compile(r"(?<![\w.])(v?)(\d+(?:\.\d+){2,}|(?<=v)\d+\.\d+)(?![\w]|\.\d)")
_NUMBER = re.compile(r"(?<!\w)\d+(?:(?:[.,'’\u00a0\u202f\u2009]|[ ])\d+)*")
_HAS_DIGIT = re.compile(r"\d")
_HINT_NUM_DATE = re.compile(r"\d[/.]\d{1,2}[/.]\d")
_HINT_TIME = re.compile(r"\d\s?(?::\d|[hH](?![^\W\d_])|[AaPp]\.?\s?[Mm]|Uhr)")
_HINT_VERSION = re.compile(r"\d\.\d+\.\d|v\d")
_SPACES = " \u00a0\u202f\u2009"
_AMBIGUOUS = re.compile(r"(?<![\d.,])\d{1,3}[.,]\d{3}(?![\d.,])")  # 1,000: which mark is it?
_UNIT = re.compile(
    r"\s?(%|‰|°C|°F|KiB|MiB|GiB|TiB|kB|KB|MB|GB|TB|PB|Ko|ko|Mo|Go|To|kbit/s|Mbit/s|Gbit/s|"
    r"bit/s|kbps|Mbps|Gbps|tok/s|µs|ns|ms|min|kHz|MHz|GHz|Hz|mm|cm|km|kg|mg|ml|mL|px|dpi|fps|"
    r"rem|em|kW|mA|[smhgWVlLx×€$£¥])(?![^\W\d_])"
)
_CURRENCY_BEFORE = re.compile(r"([$€£¥])\s?$")
_UNIT_ALIASES = {
    "Ko": "kB", "ko": "kB", "KB": "kB", "Mo": "MB", "Go": "GB", "To": "TB", "×": "x",
    "mL": "ml", "L": "l", "kbps": "kbit/s", "Mbps": "Mbit/s", "Gbps": "Gbit/s",
}  # fmt: skip
_SPELLED: dict[str, dict[str, int]] = {
    lang: {word: n for n, word in enumerate(words.split(), 2)}
    for lang, words in {
        "en": "two three four five six seven eight nine ten eleven twelve",
        "fr": "deux trois quatre cinq six sept huit neuf dix onze douze",
        "es": "dos tres cuatro cinco seis siete ocho nueve diez once doce",
        "it": "due tre quattro cinque sei sette otto nove dieci undici dodici",
        "pt": "dois três quatro cinco seis sete oito nove dez onze doze",
        "de": "zwei drei vier fünf sechs sieben acht neun zehn elf zwölf",
        "nl": "twee drie vier vijf zes zeven acht negen tien elf twaalf",
    }.items()
}
_SPELLED_EXTRA = {"es": {"dos": 2}, "pt": {"duas": 2}, "de": {"zwo": 2}}
_WORD = re.compile(r"[^\W\d_]+")


@dataclass(frozen=True, slots=True)
class Item:
    """A number, date, time or version as written, and the values it may stand for."""

    kind: str  # number | date | time | version
    text: str
    values: frozenset[str]
    unit: str | None = None
    parts: tuple[str, ...] = ()  # a date's or time's numbers, for a form not recognised opposite


def _canon(digits: str) -> str:
    """A decimal as one spelling: no leading zeros, no trailing fraction zeros."""
    try:
        value = Decimal(digits).normalize()
    except InvalidOperation:
        return digits
    text = format(value, "f")
    return text


# Languages whose decimal mark is a point (1,000.5); the others listed write 1.000,5 or 1 000,5.
_DECIMAL_POINT = frozenset({"en", "zh", "ja", "ko", "he", "hi", "th", "ms", "ga", "mt", "es-MX",
                            "es-US", "de-CH", "it-CH", "fr-CH"})  # fmt: skip
_DECIMAL_COMMA = frozenset({
    "fr", "es", "it", "pt", "de", "nl", "ca", "gl", "ro", "pl", "cs", "sk", "sl", "hr", "bs", "sr",
    "bg", "ru", "uk", "be", "da", "sv", "nb", "nn", "no", "fi", "et", "lv", "lt", "el", "tr", "hu",
    "id", "vi", "is",
})  # fmt: skip


def decimal_mark(lang: str | None) -> str | None:
    """ "." or "," for a language (its region first: de-CH writes 1'000.5), None when unknown."""
    if not lang:
        return None
    parts = lang.split("-")
    region = f"{parts[0].lower()}-{parts[1].upper()}" if len(parts) > 1 else ""
    for tag in (region, parts[0].lower()):
        if tag in _DECIMAL_POINT:
            return "."
        if tag in _DECIMAL_COMMA:
            return ","
    return None


def _number_values(token: str, decimal: str | None = None) -> list[frozenset[str]]:
    """The values of one run of digits and separators; a run that is no single number (1,2,3;
    a list of years) is several. ``decimal``: the text's decimal mark, when known (1,000 is a
    thousand in English, one in German); unknown, a lone mark before 3 digits is either."""
    groups = re.split(r"[.,'’\u00a0\u202f\u2009 ]", token)
    seps = re.findall(r"[.,'’\u00a0\u202f\u2009 ]", token)
    if not seps:
        return [frozenset({_canon(token)})]
    kinds = set(seps)
    grouped = 1 <= len(groups[0]) <= 3 and all(len(g) == 3 for g in groups[1:])
    if len(kinds) == 1:
        sep = seps[0]
        if sep not in ".,":  # spaces and apostrophes only group thousands
            return [frozenset({_canon("".join(groups))})] if grouped else _split(groups)
        if len(seps) == 1:
            value = _canon(f"{groups[0]}.{groups[1]}")
            thousand = _canon("".join(groups))
            if grouped and decimal is None:  # 1,000 or 1.000: a thousand, or one (de, fr)
                return [frozenset({thousand, value})]
            return [frozenset({thousand if grouped and sep != decimal else value})]
        return [frozenset({_canon("".join(groups))})] if grouped else _split(groups)
    last = seps[-1]
    if last in ".," and seps.count(last) == 1 and len(kinds) == 2:
        whole = groups[:-1]
        if 1 <= len(whole[0]) <= 3 and all(len(g) == 3 for g in whole[1:]):
            return [frozenset({_canon("".join(whole) + "." + groups[-1])})]
    return _split(groups)


def _split(groups: list[str]) -> list[frozenset[str]]:
    return [frozenset({_canon(g)}) for g in groups if g]


def _date_keys(year: str | None, month: int, day: str | None) -> frozenset[str]:
    y = str(int(year)) if year else "?"
    return frozenset({f"{y}-{month}-{int(day) if day else '?'}"})


def _month(name: str) -> int | None:
    if name in _EN_MONTHS:
        return _EN_MONTHS[name]
    return _MONTHS.get(name.lower().rstrip("."))


def extract(text: str, lang: str = "", *, spelled: bool = False) -> list[Item]:
    """Every number-like item of ``text`` (prose), in order of kind; ``lang``: the text's
    language when known (its decimal mark); ``spelled``: its spelled-out small numbers too (an
    answer's: "trois étapes" keeps "3 steps")."""
    decimal = decimal_mark(lang)
    items: list[Item] = []
    taken = [False] * len(text)

    def free(m: re.Match[str]) -> bool:
        return not any(taken[m.start() : m.end()])

    def take(m: re.Match[str], item: Item) -> None:
        for i in range(m.start(), m.end()):
            taken[i] = True
        items.append(item)

    # Each pattern only where a cheap hint says it may match: the checks run on every answer
    # (2 ms a paragraph with every pattern everywhere; tests/test_checks.py's budget)
    words = _WORD.findall(text)
    for m in _ISO_DATE.finditer(text) if "-" in text else ():
        y, mo, d = m.groups()
        if 1 <= int(mo) <= 12 and 1 <= int(d) <= 31:
            take(m, Item("date", m.group(), _date_keys(y, int(mo), d), parts=(y, mo, d)))
    for m in _NUM_DATE.finditer(text) if _HINT_NUM_DATE.search(text) else ():
        a, _sep, b, y = m.groups()
        y4 = y if len(y) == 4 else str(2000 + int(y))
        keys = {
            next(iter(_date_keys(y4, int(mo), d)))
            for mo, d in ((a, b), (b, a))
            if 1 <= int(mo) <= 12 and 1 <= int(d) <= 31
        }
        if keys and free(m):
            take(m, Item("date", m.group(), frozenset(keys), parts=(a, b, y)))
    named = any(_month(w) is not None for w in words)
    for pattern, order in ((_DAY_MONTH, "dmy"), (_MONTH_DAY, "mdy"), (_MONTH_YEAR, "my")):
        for m in pattern.finditer(text) if named else ():
            if not free(m):
                continue
            if order == "dmy":
                day, name, year = m.groups()
            elif order == "mdy":
                name, day, year = m.groups()
            else:
                (name, year), day = m.groups(), None
            month = _month(name)
            if month is None or (day and not 1 <= int(day) <= 31):
                continue
            parts = tuple(p for p in (day, year) if p)
            take(m, Item("date", m.group(), _date_keys(year, month, day), parts=parts))
    for m in _TIME.finditer(text) if _HINT_TIME.search(text) else ():
        if free(m):
            item = _time(m)
            if item is not None:
                take(m, item)
    for m in _VERSION.finditer(text) if _HINT_VERSION.search(text) else ():
        body = m.group(2)
        if not m.group(1) and re.fullmatch(r"\d{1,3}(?:\.\d{3})+", body):
            continue  # 1.000.000: a German million, not a version
        if free(m):
            take(m, Item("version", m.group(), frozenset({"v" + body})))
    for m in _NUMBER.finditer(text):
        if not free(m):
            continue
        token = m.group().rstrip(_SPACES)
        pieces = _pieces(token, decimal)
        for n, (values, shown) in enumerate(pieces):
            after = m.start() + len(token) if n == len(pieces) - 1 else None
            before = text[max(0, m.start() - 2) : m.start()] if n == 0 else ""
            items.append(Item("number", shown, values, _unit(text, after, before)))
        for i in range(m.start(), m.end()):
            taken[i] = True
    table = {**_SPELLED.get(primary(lang), {}), **_SPELLED_EXTRA.get(primary(lang), {})}
    if spelled and table:
        for word in words:
            value = table.get(word.lower())
            if value is not None:
                items.append(Item("spelled", word, frozenset({str(value)})))
    return items


def _pieces(token: str, decimal: str | None) -> list[tuple[frozenset[str], str]]:
    """(values, text) of each number in a run; plain spaces join only thousands groups."""
    runs = [token]
    if " " in token:  # "between 3 and 5 000": only a 3-digit group after a space joins
        runs, current = [], ""
        for part in token.split(" "):
            if current and (len(part.split(",")[0].split(".")[0]) != 3 or len(current) > 11):
                runs.append(current)
                current = part
            else:
                current = f"{current} {part}" if current else part
        runs.append(current)
    out = []
    for run in runs:
        values = _number_values(run, decimal)
        if len(values) == 1:
            out.append((values[0], run))
        else:
            out.extend((v, next(iter(v))) for v in values)
    return out


def _unit(text: str, after: int | None, before: str) -> str | None:
    """The unit written after the number ending at ``after`` (None: not the run's last), else
    a currency sign just ``before`` it."""
    m = _UNIT.match(text, after) if after is not None else None
    if m is not None:
        unit = m.group(1)
        return _UNIT_ALIASES.get(unit, unit)
    b = _CURRENCY_BEFORE.search(before)
    return b.group(1) if b else None


def _time(m: re.Match[str]) -> Item | None:
    g = m.groups()
    if g[0] is not None:  # 3 PM, 3:30 p.m., 15 Uhr
        hour, minute, half = int(g[0]), int(g[1] or 0), (g[2] or "").lower()
        if half:
            if not 1 <= hour <= 12:
                return None
            hour = hour % 12 + (12 if half == "p" else 0)
    elif g[3] is not None:  # 10:30
        hour, minute = int(g[3]), int(g[4])
    else:  # 15 h 30, 15h
        hour, minute = int(g[5]), int(g[6] or 0)
    if hour > 24 or minute > 59:
        return None
    parts = tuple(p for p in g if p and p.isdigit())
    text = m.group()
    if text.endswith(".") and not text.lower().endswith(".m."):
        text = text[:-1]  # the sentence's full stop
    return Item("time", text, frozenset({f"{hour}:{minute:02d}"}), parts=parts)


# --- matching ------------------------------------------------------------------------------------


def _match(src: list[Item], ans: list[Item], *, units: bool) -> tuple[list[int], list[int]]:
    """Pair source items with answer items of a shared value (augmenting paths: a value that
    may stand for two never takes the other's place); the unpaired of each side."""
    owner: dict[int, int] = {}

    def compatible(s: Item, a: Item) -> bool:
        if not s.values & a.values or (a.kind == "spelled" and s.kind != "number"):
            return False
        return not units or s.unit is None or a.unit is None or s.unit == a.unit

    def assign(i: int, seen: set[int]) -> bool:
        for j, a in enumerate(ans):
            if j in seen or not compatible(src[i], a):
                continue
            seen.add(j)
            if j not in owner or assign(owner[j], seen):
                owner[j] = i
                return True
        return False

    # the fewest possible values first, so an ambiguous 1,000 does not take a plain 1's place
    missing = [i for i in sorted(range(len(src)), key=lambda i: len(src[i].values))
               if not assign(i, set())]  # fmt: skip
    return sorted(missing), [j for j in range(len(ans)) if j not in owner]


def _flatten(items: Iterable[Item], kept: set[str]) -> list[Item]:
    """Dates and times as their numbers (for the other side's form that was not read as one),
    but those of a kind in ``kept``."""
    out = []
    for item in items:
        if not item.parts or item.kind in kept:
            out.append(item)
        else:
            out.extend(Item("number", p, frozenset({_canon(p)})) for p in item.parts)
    return out


def numbers_problem(source: str, answer: str, target_lang: str) -> str | None:
    """What the answer lost of the source's numbers, dates, times, versions and units."""
    if _HAS_DIGIT.search(source) is None:
        return None
    src = extract(source, (_language(source) or "") if _AMBIGUOUS.search(source) else "")
    if not src:
        return None
    ans = extract(answer, target_lang, spelled=True)
    missing, extra = _match(src, ans, units=True)
    lost = [src[i] for i in missing]
    added = [ans[j] for j in extra]
    if lost and added:  # a form read on one side only (a date in words here, figures there)
        # ... unless both sides have one: then a changed month or hour is a change
        seen_src, seen_ans = {s.kind for s in lost}, {a.kind for a in added}
        flat_src = _flatten(lost, seen_ans)
        flat_ans = _flatten(added, seen_src)
        still, spare = _match(flat_src, flat_ans, units=True)
        lost = [flat_src[i] for i in still]
        added = [flat_ans[j] for j in spare]
    if not lost:
        return None
    added = [a for a in added if a.kind != "spelled"]
    if len(lost) == 1 and len(added) == 1:
        return f"{lost[0].kind} changed: {_shown(lost[0])} → {_shown(added[0])}"
    more = f" (+{len(lost) - 3} more)" if len(lost) > 3 else ""
    kinds = sorted({i.kind for i in lost})
    what = "numbers" if kinds == ["number"] else "numbers or dates"
    return f"{what} missing: " + ", ".join(_shown(i) for i in lost[:3]) + more


def _shown(item: Item) -> str:
    text = item.text.strip()
    if item.unit and item.kind == "number" and item.unit not in text:
        return f"{text} {item.unit}"
    return text


# --- omission ------------------------------------------------------------------------------------

# Characters a translation takes for one character of English prose (typical technical text;
# a paragraph varies by ±15 %). Languages not listed are not judged on length.
VERBOSITY: dict[str, float] = {
    "en": 1.0, "fr": 1.15, "es": 1.15, "it": 1.12, "pt": 1.12, "ca": 1.12, "gl": 1.12,
    "ro": 1.1, "de": 1.15, "nl": 1.1, "da": 1.0, "sv": 1.0, "nb": 1.0, "no": 1.0, "fi": 1.05,
    "pl": 1.05, "cs": 1.0, "sk": 1.0, "hu": 1.05, "ru": 1.05, "uk": 1.05, "el": 1.1, "tr": 1.0,
}  # fmt: skip
# Fewer sentences and less than this share of a translation's usual length: a drop (merging two
# sentences adds words, it does not shorten the text; set on tests/data/meaning_corpus.py: its
# faithful answers are ≥ 0.83, its merges ≥ 1.06, its answers with a dropped sentence ≤ 0.92)
SHORT_SHARE = 0.95
SIGMA = 0.2  # how far (log) a sentence's translation strays from the expected length, typically
MERGE = 2.0  # two sentences translated as one (or one as two): rare in a model's answer
DROP = 2.5  # a source sentence with no counterpart: a translation error
MAX_ALIGNED = 60  # longer blocks are not aligned (quadratic; a table of prose)
MIN_UNTRANSLATED_WORDS = 6
_ABBREVIATION = re.compile(
    r"(?:\b[^\W\d_]|\b(?:e\.g|i\.e|etc|vs|cf|approx|Dr|Mr|Mrs|Ms|Prof|St|Inc|Ltd|No|Nr|Abs"
    r"|bzw|ca|usw|ggf|vgl|inkl|Mme|MM|env|p\.ex|núm|pág|aprox|Sr|Sra))$",
)
_WORD_AHEAD = re.compile(r"[^\W\d_]+")
_END = re.compile(r"([.!?…。！？]+)[\"'”»)\]]*(?:\s+|$)")


def sentences(prose: str) -> list[str]:
    """The sentences of a block's prose: each line (a list item, a table cell) split at its
    full stops, question and exclamation marks; abbreviations and decimals do not end one."""
    out: list[str] = []
    for line in prose.splitlines():
        start = 0
        for m in _END.finditer(line):
            head = line[start : m.start()].rstrip()
            after = line[m.end() : m.end() + 1]
            if m.group(1) == "." and (
                _ABBREVIATION.search(head)
                or (after and after.islower())
                or (head[-1:].isdigit() and _month_ahead(line, m.end()))  # am 12. März
            ):
                continue
            if m.end() < len(line) and not after:
                continue
            piece = line[start : m.end()].strip()
            if _WORD.search(piece):
                out.append(piece)
            start = m.end()
        rest = line[start:].strip()
        if _WORD.search(rest):
            out.append(rest)
    return out


def _month_ahead(line: str, at: int) -> bool:
    word = _WORD_AHEAD.match(line, at)
    return word is not None and _month(word.group()) is not None


def omission_problem(source: str, answer: str, target_lang: str) -> str | None:
    """A dropped sentence, or one left in the source language (see the module docstring)."""
    src = sentences(source)
    flat = " ".join(answer.split())
    if not src or flat == " ".join(source.split()):  # an echo: not this check's business
        return None
    ans = sentences(answer)
    if len(src) >= 3 and 2 * len(ans) <= len(src):
        return f"{len(src)} sentences became {len(ans)}"
    target = primary(target_lang)
    kept = [
        s
        for s in src
        if len(_WORD.findall(s)) >= MIN_UNTRANSLATED_WORDS and " ".join(s.split()) in flat
    ]
    if len(ans) >= len(src) and not kept:
        return None
    source_lang = _language(source)  # identified only when it matters: it costs ~0.1 ms
    if source_lang == target:
        return None
    if len(ans) < len(src):
        expected = _expected_ratio(source_lang or "en", target)
        share = _letters(answer) / (expected * _letters(source)) if expected else 1.0
        if share < SHORT_SHARE:
            return (
                f"{len(src)} sentences became {len(ans)} and the answer is {share:.0%} of a "
                "translation's usual length: a sentence may be missing"
            )
        dropped = _dropped(src, ans, expected)
        if dropped is not None:
            short = dropped if len(dropped) <= 60 else dropped[:59] + "…"
            return f"{len(src)} sentences became {len(ans)}; no counterpart for {short!r}"
    if kept and source_lang is not None:
        short = kept[0] if len(kept[0]) <= 60 else kept[0][:59] + "…"
        return f"left untranslated: {short!r}"
    return None


def _language(text: str) -> str | None:
    langs = identify(text)
    return max(langs, key=langs.__getitem__) if langs else None


def _dropped(src: list[str], ans: list[str], ratio: float | None) -> str | None:
    """The source sentence a length alignment leaves without a counterpart, or None.

    Gale and Church's alignment (1993) by sentence length in letters, with beads 1-1, 2-1, 1-2
    and 1-0: a bead costs its length mismatch ((log(answer / (ratio × source))) / SIGMA)², a
    merge or a split MERGE more, a source sentence without counterpart DROP. So a short
    sentence whose neighbour's answer is as long as both is read as merged, not dropped."""
    if len(src) > MAX_ALIGNED:
        return None
    s = [max(1, _letters(x)) for x in src]
    t = [max(1, _letters(x)) for x in ans]
    r = ratio or sum(t) / sum(s)
    n, m = len(s), len(t)
    cost = [[math.inf] * (m + 1) for _ in range(n + 1)]
    back = [[(0, 0)] * (m + 1) for _ in range(n + 1)]
    cost[0][0] = 0.0

    def bead(a: int, b: int) -> float:
        return (math.log(b / (r * a)) / SIGMA) ** 2

    for i in range(n + 1):
        for j in range(m + 1):
            options: list[tuple[float, tuple[int, int]]] = []
            if i and j:
                options.append((cost[i - 1][j - 1] + bead(s[i - 1], t[j - 1]), (1, 1)))
            if i >= 2 and j:
                merged = bead(s[i - 2] + s[i - 1], t[j - 1])
                options.append((cost[i - 2][j - 1] + MERGE + merged, (2, 1)))
            if i and j >= 2:
                split = bead(s[i - 1], t[j - 2] + t[j - 1])
                options.append((cost[i - 1][j - 2] + MERGE + split, (1, 2)))
            if i:
                options.append((cost[i - 1][j] + DROP, (1, 0)))
            if options:
                cost[i][j], back[i][j] = min(options)
    i, j = n, m
    while i or j:
        di, dj = back[i][j]
        if (di, dj) == (1, 0):
            return src[i - 1]
        i, j = i - di, j - dj
    return None


def _expected_ratio(source_lang: str, target: str) -> float | None:
    src, tgt = VERBOSITY.get(source_lang), VERBOSITY.get(target)
    return None if src is None or tgt is None else tgt / src


def _letters(text: str) -> int:
    return sum(len(w) for w in _WORD.findall(text))
