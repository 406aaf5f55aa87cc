"""The ``numbers`` check: every number, date, time, version and unit of the source is in the
answer (see fastdesk.translate.meaning_checks for both meaning checks).

A locale's separators are not a change: 1,000.5 = 1 000,5 = 1.000,5 = 1'000.5, and 1,000 may be
a thousand or one (German decimal comma) on either side; the source's own format copied into
the answer (£52,000 in German) reads as the source reads it. Dates may change form (March 12,
2026 = 12 mars 2026 = 12/03/2026 = 2026年3月12日), 3:00 PM may become 15 h 00, 1.30pm 13.30
Uhr, 下午3点 3 p.m. A number may be spelled out or scaled ("3 steps" → "trois étapes", 2.5
million = zweieinhalb Millionen = 250万, 315.1亿 = 31.51 billion, 10 times = zehnmal, 第五 = the
fifth), and a measure converted (200 feet → 60 Meter, 10 miles → 16 km, a 15-foot boat →
fünf Meter, 10000 nanoseconds → zehn Mikrosekunden); in one unit a measure is compared exactly.
A measure the source says twice in two units (120 feet, or 40 meters) may be kept once. A
figure the answer adds is a flag only when the source has it in no form (十六, 九二 → '92, a
foot → 30 cm).

Digits stand next to Chinese or Japanese characters without a space (减18.3%, 达24,150): a
number's boundary is a Latin letter or digit, never a CJK character.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from fastdesk.document.languages import primary
from fastdesk.translate import number_words
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
# A word character that is no CJK character: what may not touch a number
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_NW = rf"[^\W{_CJK}]"
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
_ISO_DATE = re.compile(rf"(?<!{_NW}|[.\-])(\d{{4}})-(\d{{1,2}})-(\d{{1,2}})(?![\w\-])")
_NUM_DATE = re.compile(
    rf"(?<!{_NW}|[./])(\d{{1,2}})([/.])(\d{{1,2}})\2(\d{{4}}|\d{{2}}(?=[^\d.]|$))(?![\w/])"
)
# 2026年3月12日, 3月12日, 2023年1月, 1月 (ja, zh) and 2026년 3월 12일 (ko)
_CJK_DATE = re.compile(
    rf"(?<!{_NW})(?:(\d{{4}})\s*[年년]\s*)?(\d{{1,2}})\s*[月월](?:\s*(\d{{1,2}})\s*[日号號일])?"
)
_TIME = re.compile(
    rf"(?<!{_NW}|[.:,])(\d{{1,2}})(?:\s?(?::|h|H|\.)\s?(\d{{2}}))?"
    r"(?:\s?([AaPp])\.?\s?[Mm]\.?(?!\w)|\s?Uhr\b)"
    rf"|(?<!{_NW}|[.:,])(\d{{1,2}}):(\d{{2}})(?![\d:])"
    rf"|(?<!{_NW}|[.:,])(\d{{1,2}})\s?h\s?(\d{{2}})?(?!\w)"
    r"|(上午|早上|凌晨|下午|晚上|中午)?(\d{1,2})\s*[点點时時](?:\s*(\d{1,2})\s*分|(半))?"
)
_VERSION = re.compile(r"(?<![\w.])(v?)(\d+(?:\.\d+){2,}|(?<=v)\d+\.\d+)(?![\w]|\.\d)")
# a currency's letters may touch its figures: RM476.5, Rs500, NT$30 ($ is no word character)
_NUMBER = re.compile(
    rf"(?:(?<=\bRM)|(?<=\bRs)|(?<=\bRp)|(?<!{_NW}))\d+(?:(?:[.,'’\u00a0\u202f\u2009]|[ ])\d+)*"
    r"(?!D\b)"  # 3D, 2D: a dimension, not a number
)
# "4 to 6 million": the first number shares the second's scale word
_RANGE_TO = re.compile(
    r"\s*(?:-|–|—|~|to|and|or|bis|und|oder|à|et|a|y|e|tot|至|到)\s*[$€£¥]?\s*\d+(?:[.,]\d+)*"
)
# 1 followed by a Chinese classifier is often an article in the translation: 1家 → "a"
_CLASSIFIER = re.compile(r"[个個家只位名项項份次条條本件张張台辆輛座所间間种種]")
_HAS_DIGIT = re.compile(r"\d")
_HINT_NUM_DATE = re.compile(r"\d[/.]\d{1,2}[/.]\d")
_HINT_TIME = re.compile(r"\d\s?(?:[:.]\d|[hH](?![^\W\d_])|[AaPp]\.?\s?[Mm]|Uhr|[点點时時])")
_HINT_VERSION = re.compile(r"\d\.\d+\.\d|v\d")
_HINT_CJK_DATE = re.compile(r"\d\s*[月월]")
_HAS_CJK = re.compile(rf"[{_CJK}]")
_YEAR = re.compile(r"(?<!\d)((?:19|20)\d\d)(?!\d)")
_SPACES = " \u00a0\u202f\u2009"
_AMBIGUOUS = re.compile(r"(?<![\d.,])\d{1,3}[.,]\d{3}(?![\d.,])")  # 1,000: which mark is it?
_UNIT = re.compile(
    r"\s?(%|‰|°C|°F|KiB|MiB|GiB|TiB|kB|KB|MB|GB|TB|PB|Ko|ko|Mo|Go|To|kbit/s|Mbit/s|Gbit/s|"
    r"bit/s|kbps|Mbps|Gbps|tok/s|µs|ns|ms|min|kHz|MHz|GHz|Hz|mm|cm|km|kg|mg|ml|mL|px|dpi|fps|"
    r"rem|em|kW|mA|[smhgWVlLx×€$£¥])(?![^\W\d_])"
)
_CURRENCY_BEFORE = re.compile(r"([$€£¥])\s?$")
# Currencies named after the figure (Chinese and Japanese write 100美元, 50元): a dollar
# amount is no yuan amount. Named as their sign, so "$100" is "100美元".
_CURRENCIES = {
    "美元": "$", "美金": "$", "新元": "$", "港元": "$", "港币": "$", "澳元": "$", "加元": "$",
    "新台币": "$", "欧元": "€", "英镑": "£", "日元": "¥", "円": "¥", "元": "¥", "人民币": "¥",
    "块": "¥", "yuan": "¥", "rmb": "¥", "renminbi": "¥", "yen": "¥", "dollars": "$",
    "dollar": "$", "euros": "€", "euro": "€", "pounds": "£", "dollar)": "$",
}  # fmt: skip
_CURRENCY_AFTER = re.compile(
    r"\s?(?:[万亿千百]|余万|多万)*(?:多|余)?(美元|美金|新元|港元|港币|澳元|加元|新台币|欧元|英镑|日元|円|人民币|元|块)"
    r"|\s?(?:(?:million|billion|thousand|trillion)\s)?(?:US\s)?((?i:yuan|rmb|renminbi|yen|dollars?|euros?))\b"
)
_UNIT_ALIASES = {
    "Ko": "kB", "ko": "kB", "KB": "kB", "Mo": "MB", "Go": "GB", "To": "TB", "×": "x",
    "mL": "ml", "L": "l", "kbps": "kbit/s", "Mbps": "Mbit/s", "Gbps": "Gbit/s",
}  # fmt: skip
_WORD = re.compile(r"[^\W\d_]+")
_PERCENT_WORDS = re.compile(r"\s?(?:percent|per cent|Prozent|pour cent|por ciento|per cento)\b")


@dataclass(frozen=True, slots=True)
class Item:
    """A number, date, time or version as written, and the values it may stand for."""

    kind: str  # number | date | time | version | spelled | month
    text: str
    values: frozenset[str]
    unit: str | None = None
    parts: tuple[str, ...] = ()  # a date's or time's numbers, for a form not recognised opposite
    measure: number_words.Measure | None = None  # 200 feet: a length, in metres


def _canon(digits: str) -> str:
    """A decimal as one spelling: no leading zeros, no trailing fraction zeros."""
    try:
        value = Decimal(digits).normalize()
    except InvalidOperation:
        return digits
    return format(value, "f")


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
            if sep == "," and decimal == "." and not grouped:  # [1,1]: two numbers
                return _split(groups)
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


def month(name: str) -> int | None:
    """The month a word names (English capitalised only), or None."""
    found = _EN_MONTHS.get(name)
    if found is None and len(name) >= 3:
        found = _MONTHS.get(name.lower())
    return found


def script_language(text: str) -> str | None:
    """ "ja", "ko" or "zh" when ``text`` is written in their scripts (no model needed)."""
    if not _HAS_CJK.search(text):
        return None
    if re.search(r"[\u3040-\u30ff]", text):
        return "ja"
    if re.search(r"[\uac00-\ud7af]", text):
        return "ko"
    return "zh"


def extract(
    text: str,
    lang: str = "",
    *,
    spelled: bool = False,
    copied: tuple[frozenset[str], str | None] = (frozenset(), None),
) -> list[Item]:
    """Every number-like item of ``text`` (prose), in order of kind; ``lang``: the text's
    language when known (its decimal mark, its words for numbers); ``spelled``: its spelled-out
    numbers and lone month names too (an answer's: "trois étapes" keeps "3 steps", "January"
    keeps 1月); ``copied``: the source's runs of figures and its decimal mark, a run the text
    copies read the source's way (£52,000 in German is still fifty-two thousand; [1,1] in
    German still two numbers)."""
    decimal = decimal_mark(lang)
    code = primary(lang) if lang else ""
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
    for m in _CJK_DATE.finditer(text) if _HINT_CJK_DATE.search(text) else ():
        y, mo, d = m.groups()
        if 1 <= int(mo) <= 12 and (d is None or 1 <= int(d) <= 31):
            parts = tuple(p for p in (y, mo, d) if p)
            take(m, Item("date", m.group(), _date_keys(y, int(mo), d), parts=parts))
    for m in _ISO_DATE.finditer(text) if "-" in text else ():
        y, mo, d = m.groups()
        if 1 <= int(mo) <= 12 and 1 <= int(d) <= 31 and free(m):
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
    months = [(w, n) for w in words if (n := month(w)) is not None]
    named = bool(months)
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
            number = month(name)
            if number is None or (day and not 1 <= int(day) <= 31):
                continue
            parts = tuple(p for p in (day, year) if p)
            take(m, Item("date", m.group(), _date_keys(year, number, day), parts=parts))
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
    for m in _untaken(text, taken):
        token = m.group().rstrip(_SPACES)
        pieces = _pieces(token, copied[1] if token in copied[0] else decimal)
        for n, (values, shown) in enumerate(pieces):
            after = m.start() + len(token) if n == len(pieces) - 1 else None
            before = text[max(0, m.start() - 2) : m.start()] if n == 0 else ""
            fraction = _FRACTIONS.get(text[after : after + 1]) if after is not None else None
            if fraction is not None and after is not None:  # 3½
                values = frozenset(_canon(str(Decimal(v) + fraction)) for v in values)
                shown, after = shown + text[after], after + 1
            unit = _unit(text, after, before)
            measure = None
            if after is not None:
                values, unit, measure = _scaled(text, after, values, unit, code)
            kind = "number"
            if shown == "1" and after is not None and _CLASSIFIER.match(text, after):
                kind = "optional"
            items.append(Item(kind, shown, values, unit, measure=measure))
        for i in range(m.start(), m.end()):
            taken[i] = True
    if spelled:
        items.extend(_spelled(text, code, months))
    return items


def _untaken(text: str, taken: list[bool]) -> Iterator[re.Match[str]]:
    """The number runs of ``text`` outside what a date, time or version took; of a run partly
    taken, its rest ("October 1990.3": a 3 the answer brought in)."""
    for m in _NUMBER.finditer(text):
        if not any(taken[m.start() : m.end()]):
            yield m
            continue
        i = m.start()
        while i < m.end():
            j = i
            while j < m.end() and not taken[j]:
                j += 1
            if j > i:
                yield from _NUMBER.finditer(text, i, j)
            i = j + 1


_FRACTIONS = {"½": Decimal("0.5"), "¼": Decimal("0.25"), "¾": Decimal("0.75")}
_RANGE_WORDS = re.compile(r"\s*(?:-|–|—|to|or|and|bis|oder|und|à|et|ou)\s*", re.IGNORECASE)


Spelled = tuple[str, Decimal, number_words.Measure | None]  # words, value, measure


def spelled_measures(text: str, code: str) -> list[Spelled]:
    """(words, value, measure) of each number ``text`` spells out: "fünf Meter" is 5 m, and in
    "zweieinhalb bis vier Meter" the first shares the second's unit."""
    found: list[Spelled] = []
    spans: list[tuple[int, int]] = []
    at = 0
    for shown, value in number_words.spelled(text, code):
        words = r"[\s-]+".join(re.escape(w) for w in shown.split())
        if code not in ("zh", "ja"):  # Chinese numerals touch the words around them
            words = rf"(?<![^\W\d_]){words}(?![^\W\d_])"
        m = re.compile(words, re.IGNORECASE).search(text, at)
        if m is None:
            found.append((shown, value, None))
            spans.append((at, at))
            continue
        at = m.end()
        found.append((shown, value, number_words.measure(text, m.end(), value)))
        spans.append(m.span())
    for k in range(len(found) - 1):
        (shown, value, unit), (_, nxt, shared) = found[k], found[k + 1]
        ranged = _RANGE_WORDS.fullmatch(text[spans[k][1] : spans[k + 1][0]])
        if unit is None and shared and shared.quantity != "temperature" and nxt and ranged:
            base = shared.base * value / nxt  # the first of a range shares the second's unit
            found[k] = (shown, value, number_words.Measure(shared.quantity, base, shared.unit))
    return found


def _spelled(text: str, code: str, months: list[tuple[str, int]]) -> list[Item]:
    """The numbers ``text`` spells out, and its month names (``months``: "in January" keeps
    1月; "January to September 2022": January's year may be said after it)."""
    found = [
        Item("spelled", shown, frozenset({_canon(str(value))}), measure=measure)
        for shown, value, measure in spelled_measures(text, code)
    ]
    years = set(_YEAR.findall(text)) if months else set()
    for word, number in months:
        keys = {f"?-{number}-?"} | {f"{int(y)}-{number}-?" for y in years}
        found.append(Item("month", word, frozenset(keys)))
    return found


def _scaled(
    text: str, end: int, values: frozenset[str], unit: str | None, code: str
) -> tuple[frozenset[str], str | None, number_words.Measure | None]:
    """A number's values with the scale word after it (2.5 million, 50万), its unit when it
    is a percentage in words, and its measure (200 feet)."""
    m = number_words.SCALE_AFTER.match(text, end)
    shared = None
    if m is None:
        r = _RANGE_TO.match(text, end)
        shared = number_words.SCALE_AFTER.match(text, r.end()) if r is not None else None
    for scale in (m, shared):
        if scale is None:
            continue
        word = scale.group(1) or scale.group(2)
        scaled = set(values)
        for factor in number_words.scale_value(word, code):
            for v in values:
                scaled.add(_canon(str(Decimal(v) * factor)))
        values = frozenset(scaled)
    if m is not None:
        end = m.end()
    if text.startswith("年代", end) and len(values) == 1:  # 80年代: the 1980s
        two = next(iter(values))
        if len(two) == 2:
            values = values | {f"19{two}", f"20{two}"}
    if unit is None and _PERCENT_WORDS.match(text, end):
        unit = "%"
    measure = None
    if len(values) == 1:
        measure = number_words.measure(text, end, Decimal(next(iter(values))))
    return values, unit, measure


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
    c = _CURRENCY_AFTER.match(text, after) if after is not None else None
    if c is not None:
        return _CURRENCIES[c.group(1) or c.group(2).lower()]
    b = _CURRENCY_BEFORE.search(before)
    return b.group(1) if b else None


def _time(m: re.Match[str]) -> Item | None:
    g = m.groups()
    hours: tuple[int, ...]
    if g[0] is not None:  # 3 PM, 3:30 p.m., 1.30pm, 15 Uhr, 13.30 Uhr
        hour, minute, half = int(g[0]), int(g[1] or 0), (g[2] or "").lower()
        if half:
            if not 1 <= hour <= 12:
                return None
            hour = hour % 12 + (12 if half == "p" else 0)
        hours = (hour,)
    elif g[3] is not None:  # 10:30
        hour, minute = int(g[3]), int(g[4])
        hours = (hour,)
    elif g[5] is not None:  # 15 h 30, 15h
        hour, minute = int(g[5]), int(g[6] or 0)
        hours = (hour,)
    else:  # 下午3点半: the afternoon's 3 o'clock; without a part of the day, either
        part, hour = g[7], int(g[8])
        minute = 30 if g[10] else int(g[9] or 0)
        if part in ("下午", "晚上") and hour < 12:
            hours = (hour + 12,)
        elif part or hour >= 12:
            hours = (hour,)
        else:
            hours = (hour, hour + 12)
    if max(hours) > 24 or minute > 59:
        return None
    parts = tuple(p for p in g if p and p.isdigit())
    text = m.group()
    if text.endswith(".") and not text.lower().endswith(".m."):
        text = text[:-1]  # the sentence's full stop
    return Item("time", text, frozenset(f"{h}:{minute:02d}" for h in hours), parts=parts)


# --- matching ------------------------------------------------------------------------------------


def _dates_agree(source: str, answer: str) -> bool:
    """A source date "?-2-10" (no year said) agrees with "2023-2-10": what it says is kept."""
    return all(s in ("?", a) for s, a in zip(source.split("-"), answer.split("-"), strict=True))


def _compatible(s: Item, a: Item, units: bool) -> bool:
    if a.kind == "month":
        return s.kind == "date" and any(_dates_agree(v, w) for v in s.values for w in a.values)
    if s.kind == "date" and a.kind == "date" and not s.values & a.values:
        return any(_dates_agree(v, w) for v in s.values for w in a.values)
    if s.measure is not None and a.measure is not None and s.measure[0] == a.measure[0]:
        return number_words.converted(s.measure, a.measure)
    if not s.values & a.values or (a.kind == "spelled" and s.kind not in ("number", "optional")):
        return False
    return not units or s.unit is None or a.unit is None or s.unit == a.unit


def _match(src: list[Item], ans: list[Item], *, units: bool) -> tuple[list[int], list[int]]:
    """Pair source items with answer items of a shared value (augmenting paths: a value that
    may stand for two never takes the other's place); the unpaired of each side."""
    owner: dict[int, int] = {}

    def assign(i: int, seen: set[int]) -> bool:
        for j, a in enumerate(ans):
            if j in seen or not _compatible(src[i], a, units):
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


def _source_language(source: str) -> str | None:
    """The source's language: its script says CJK; else the identifier (only when it matters:
    a separator that reads two ways, a word after a number)."""
    found = script_language(source)
    if found is not None:
        return found
    langs = identify(source)
    return max(langs, key=langs.__getitem__) if langs else None


def numbers_problem(
    source: str, answer: str, target_lang: str, source_lang: str | None = None
) -> str | None:
    """What the answer lost of the source's numbers, dates, times, versions and units.
    ``source_lang``: the source's language when known (else identified when it matters)."""
    if _HAS_DIGIT.search(source) is None and _HAS_DIGIT.search(answer) is None:
        return None
    lang = source_lang or _source_language(source) or ""
    src = extract(source, lang)
    runs = frozenset(m.group().rstrip(_SPACES) for m in _NUMBER.finditer(source))
    ans = extract(answer, target_lang, spelled=True, copied=(runs, decimal_mark(lang)))
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
    lost = [s for s in lost if s.kind != "optional"]
    if not any(a.measure for a in added):  # nothing of the answer's stands for a lost measure
        lost = [s for s in lost if not _twin(s, src, lost)]
    if not lost:
        return _added(source, lang, src, added)
    words = _in_words(source, lang)  # 二十大's 20 in "20th" is no change of a lost 10
    added = [a for a in added if a.kind not in ("spelled", "month") and not a.values & words]
    if len(lost) == 1 and len(added) == 1:
        return f"{lost[0].kind} changed: {_shown(lost[0])} → {_shown(added[0])}"
    more = f" (+{len(lost) - 3} more)" if len(lost) > 3 else ""
    kinds = sorted({i.kind for i in lost})
    what = "numbers" if kinds == ["number"] else "numbers or dates"
    return f"{what} missing: " + ", ".join(_shown(i) for i in lost[:3]) + more


def _twin(item: Item, src: list[Item], lost: list[Item]) -> bool:
    """The source says ``item``'s measure again in another unit, and that one is kept: "120
    feet, or 40 meters" → "40 Meter", "115 Fahrenheit, 43 or 44 degrees Centigrade" → "44 Grad
    Celsius"."""
    if item.measure is None:
        return False
    return any(
        other.measure is not None
        and other.measure.unit != item.measure.unit
        and other not in lost
        and number_words.converted(item.measure, other.measure)
        for other in src
    )


def _added(source: str, lang: str, src: list[Item], added: list[Item]) -> str | None:
    """A figure the answer brings in that the source has in no form: not in figures, not in
    words ("three" → 3, 十六 → 16, 九二 → 92), not as a year or a part of a date, not as a
    measure converted ("eight-foot" → 2,5 Meter, "a foot" → 30 cm)."""
    figures = [a for a in added if a.kind in ("number", "date", "time", "version")]
    if not figures:
        return None
    known: set[str] = set()
    measures = [item.measure for item in src if item.measure is not None]
    for item in src:
        known |= item.values
        known.update(_canon(p) for p in item.parts)
    known |= _in_words(source, lang)
    measures += [m for _w, _v, m in spelled_measures(source, primary(lang or "en")) if m]
    for m in number_words.ONE_MEASURE.finditer(source):
        one = number_words.measure(source, m.end(), Decimal(1))
        if one is not None:
            measures.append(one)
    new = []
    for item in figures:
        parts = {_canon(p) for p in item.parts} if item.parts else set()
        if item.values & known or (parts and parts <= known):
            continue
        if item.measure and any(number_words.converted(item.measure, m) for m in measures):
            continue
        new.append(item)
    if not new:
        return None
    return "number added: " + ", ".join(_shown(i) for i in new[:3])


def _in_words(source: str, lang: str) -> set[str]:
    """The numbers the source says in words or numerals ("three", 十六, and 九二 digit by
    digit), as values."""
    code = primary(lang or "en")
    found = {_canon(str(value)) for _w, value in number_words.spelled(source, code)}
    if code in ("zh", "ja"):
        found.update(_canon(str(v)) for v in number_words.digitwise(source))
    return found


def _shown(item: Item) -> str:
    text = item.text.strip()
    if item.unit and item.kind == "number" and item.unit not in text:
        return f"{text} {item.unit}"
    return text
