"""Numbers written in words, scale words and units of measure, as values (for the ``numbers``
check: fastdesk.translate.number_reading).

A translation may spell out what its source writes in figures, or the reverse: "zehnmal",
"zweieinhalb Millionen", "twice", "tenfold", "three and a half", "the fifth", 十六, 50万; it may
say "31.51 billion" for 315.1亿 and "60 Meter" for 200 feet. These tables and parsers turn such
words into the numbers they stand for. English and German are read in full (compounds, scales,
ordinals, multipliers, halves), Chinese and Japanese numerals and scale characters too; French,
Spanish, Italian, Portuguese and Dutch their small numbers (2 to 12) and scale words.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import NamedTuple

# --- scale words after figures: 2.5 million, 2,5 Mio., 315.1亿, 50万 --------------------------

_E = {n: Decimal(10) ** n for n in (2, 3, 4, 6, 7, 8, 9, 12)}
SCALES: dict[str, Decimal] = {
    "hundred": _E[2], "thousand": _E[3], "million": _E[6], "millions": _E[6], "bn": _E[9],
    "billion": _E[9], "billions": _E[9], "trillion": _E[12], "mn": _E[6],
    "tausend": _E[3], "mio": _E[6], "million(en)": _E[6], "millionen": _E[6], "mrd": _E[9],
    "milliarde": _E[9], "milliarden": _E[9], "billionen": _E[12],
    "mille": _E[3], "millions de": _E[6], "milliard": _E[9], "milliards": _E[9],
    "mil": _E[3], "millón": _E[6], "millones": _E[6], "mila": _E[3], "milione": _E[6],
    "milioni": _E[6], "miliardo": _E[9], "miliardi": _E[9], "milhão": _E[6], "milhões": _E[6],
    "bilhão": _E[9], "bilhões": _E[9], "duizend": _E[3], "miljoen": _E[6], "miljard": _E[9],
    "百": _E[2], "千": _E[3], "万": _E[4], "萬": _E[4], "十万": _E[4] * 10, "百万": _E[6],
    "千万": _E[7], "亿": _E[8], "億": _E[8], "万亿": _E[12], "兆": _E[12], "만": _E[4],
    "억": _E[8],
}  # fmt: skip
# "Billion" is a million millions in German (and French "billion", Spanish "billón"): read
# both ways when the language is not known
_LONG_SCALE = {"billion": _E[12], "billón": _E[12], "billones": _E[12]}
SCALE_AFTER = re.compile(
    r"\s?[余多]?(万亿|十万|百万|千万|[百千万萬亿億兆만억])"
    r"|\s(?i:(hundred|thousand|millions?|billions?|trillion|bn|mn|tausend|mio|millionen|mrd"
    r"|milliarden?|billionen|mille|milliards?|millón|millones|mila|milioni?|miliard[oi]"
    r"|milhão|milhões|bilhão|bilhões|duizend|miljoen|miljard))(?![^\W\d_])\.?"
)


def scale_value(word: str, lang: str) -> list[Decimal]:
    """What a scale word multiplies by (two readings for "billion" where the language says
    either)."""
    low = word.lower().rstrip(".")
    if low in ("billion", "billón", "billones") and lang not in ("en",):
        if lang in ("de", "fr", "es", "nl", "it", "pt"):
            return [_LONG_SCALE.get(low, _E[12])]
        return [_E[9], _E[12]]
    value = SCALES.get(low) or SCALES.get(word)
    return [value] if value is not None else []


# --- English ---------------------------------------------------------------------------------

_EN_UNITS = {
    w: n
    for n, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
        ]
    )
}
_EN_TENS = {
    w: 10 * n
    for n, w in enumerate(
        ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"], 2
    )
}
_EN_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fifth": 5, "eighth": 8, "ninth": 9, "twelfth": 12,
}  # fmt: skip
_EN_MULTIPLIERS = {"twice": 2, "thrice": 3, "double": 2, "triple": 3, "quadruple": 4}
_EN_BIG = {"hundred": 100, "thousand": 10**3, "million": 10**6, "billion": 10**9,
           "trillion": 10**12}  # fmt: skip


def _en_word(word: str) -> tuple[Decimal, str] | None:
    """One English word's value and role (unit, tens, ordinal, multiplier, big)."""
    if word in _EN_UNITS:
        return Decimal(_EN_UNITS[word]), "unit"
    if word in _EN_TENS:
        return Decimal(_EN_TENS[word]), "tens"
    if word in _EN_BIG or (word.endswith("s") and word[:-1] in _EN_BIG):
        return Decimal(_EN_BIG[word.rstrip("s")]), "big"
    if word in _EN_ORDINALS:
        return Decimal(_EN_ORDINALS[word]), "ordinal"
    if word in _EN_MULTIPLIERS:
        return Decimal(_EN_MULTIPLIERS[word]), "ordinal"
    if word.endswith("fold") and len(word) > 4:
        inner = _en_word(word[:-4].rstrip("-"))
        return (inner[0], "ordinal") if inner and inner[1] in ("unit", "tens") else None
    if word.endswith("th") and len(word) > 4:  # sixth, fortieth, hundredth
        stem = word[:-2]
        for cut in (stem, stem[:-2] + "y" if stem.endswith("ie") else "", stem + "e", stem + "t"):
            inner = _en_word(cut) if cut else None
            if inner and inner[1] in ("unit", "tens", "big"):
                return inner[0], "ordinal"
    return None


_EN_TOKEN = re.compile(r"[a-z]+")
_FRACTIONS = {"half": Decimal("0.5"), "quarter": Decimal("0.25")}


def english(text: str) -> list[tuple[str, Decimal]]:
    """(words, value) of every spelled number in English ``text``: "two hundred and fifty",
    "three and a half million", "half a million", "a quarter of a million", "twenty-first",
    "tenfold", "twice", "a dozen"."""
    words = _EN_TOKEN.findall(text.lower())
    out: list[tuple[str, Decimal]] = []
    i = 0
    while i < len(words):
        j, total, current, last = i, Decimal(0), Decimal(0), ""
        while j < len(words):
            word = words[j]
            nxt = words[j + 1] if j + 1 < len(words) else ""
            after = words[j + 2 : j + 4]
            if word in ("a", "an", "one") and nxt in _FRACTIONS and not last:
                # half a million, a quarter of a million
                tail = after[1:] if after[:1] == ["of"] else after
                if tail[:1] in (["a"], ["an"]) and words[j + 2 + len(after) - len(tail) + 1 :][:1]:
                    big = words[j + 2 + len(after) - len(tail) + 1]
                    if big in _EN_BIG:
                        total += _FRACTIONS[nxt] * _EN_BIG[big]
                        j, last = j + 3 + len(after) - len(tail) + 1, "end"
                        break
            if word in _FRACTIONS and nxt in ("a", "an") and after[:1] and after[0] in _EN_BIG:
                total += _FRACTIONS[word] * _EN_BIG[after[0]]
                j, last = j + 3, "big"
                continue
            if (
                word == "and"
                and last in ("unit", "tens", "big")
                and nxt == "a"
                and after[:1]
                and after[0] in _FRACTIONS
            ):
                current += _FRACTIONS[after[0]]
                j, last = j + 3, "half"
                continue
            if word == "and" and last == "big" and (nxt in _EN_UNITS or nxt in _EN_TENS):
                j += 1
                continue
            if word in ("a", "an") and not last and nxt in _EN_BIG:
                current, j, last = Decimal(1), j + 1, "unit"
                continue
            if word in ("a", "an") and not last and nxt == "dozen":
                current, j, last = Decimal(12), j + 2, "unit"
                continue
            if word == "fold" and last in ("unit", "tens"):  # ten-fold
                j += 1
                break
            found = _en_word(word)
            if found is None:
                break
            value, role = found
            if role == "big":
                if last in ("", "big") and value > 100:
                    current = current or Decimal(1)
                if value == 100:
                    current = (current or 1) * value
                else:
                    total += (current or 1) * value
                    current = Decimal(0)
            elif role == "tens":
                if last in ("unit", "tens", "half", "ordinal"):
                    break
                current += value
            elif role in ("unit", "ordinal"):
                if last in ("unit", "half", "ordinal") or (last == "tens" and value >= 10):
                    break
                current += value
            j, last = j + 1, role
            if role == "ordinal":
                break
        if last:
            out.append((" ".join(words[i:j]), total + current))
            i = max(j, i + 1)
        else:
            i += 1
    return out


# --- German ----------------------------------------------------------------------------------

_DE_UNITS = {
    "null": 0, "ein": 1, "eins": 1, "zwei": 2, "zwo": 2, "drei": 3, "vier": 4, "fünf": 5,
    "sechs": 6, "sieben": 7, "sieb": 7, "acht": 8, "neun": 9, "zehn": 10, "elf": 11, "zwölf": 12,
    "dreizehn": 13, "vierzehn": 14, "fünfzehn": 15, "sechzehn": 16, "siebzehn": 17,
    "achtzehn": 18, "neunzehn": 19,
}  # fmt: skip
_DE_TENS = {
    "zwanzig": 20, "dreißig": 30, "dreissig": 30, "vierzig": 40, "fünfzig": 50, "sechzig": 60,
    "siebzig": 70, "achtzig": 80, "neunzig": 90,
}  # fmt: skip
_DE_WORD = re.compile(r"[a-zäöüß]+")
_DE_SUFFIX = re.compile(r"(?:mal|fach(?:e[nmrs]?)?|fältig(?:e[nmrs]?)?)$")
_DE_ORDINAL = re.compile(r"s?te[nmrs]?$")
_DE_IRREGULAR = {"ers": 1, "drit": 3, "sieb": 7, "ach": 8}


def _de_below_100(s: str) -> int | None:
    if s in _DE_UNITS:
        return _DE_UNITS[s]
    if s in _DE_TENS:
        return _DE_TENS[s]
    unit, und, tens = s.partition("und")
    if und and unit in _DE_UNITS and tens in _DE_TENS and _DE_UNITS[unit] < 10:
        return _DE_UNITS[unit] + _DE_TENS[tens]
    return None


def _de_below_million(s: str) -> int | None:
    head, sep, rest = s.partition("tausend")
    if sep:
        high = _de_below_1000(head) if head else 1
        low = _de_below_1000(rest) if rest else 0
        return None if high is None or low is None else high * 1000 + low
    return _de_below_1000(s)


def _de_below_1000(s: str) -> int | None:
    head, sep, rest = s.partition("hundert")
    if sep:
        high = _de_below_100(head) if head else 1
        low = _de_below_100(rest) if rest else 0
        return None if high is None or low is None or high > 9 else high * 100 + low
    return _de_below_100(s)


def _de_value(word: str) -> Decimal | None:
    """One German word's value: dreiundzwanzig, zweihundert, zweieinhalb, zehnmal, dritte."""
    w = _DE_SUFFIX.sub("", word) or word
    if w in ("anderthalb", "eineinhalb"):
        return Decimal("1.5")
    half = Decimal(0)
    if w.endswith("einhalb") and len(w) > 7:
        w, half = w[:-7], Decimal("0.5")
    value = _de_below_million(w)
    if value is None and _DE_ORDINAL.search(w):  # zweite, dritte, zwanzigste, hundertste
        for stem in (w[: _DE_ORDINAL.search(w).start()], re.sub(r"te[nmrs]?$", "", w)):  # type: ignore[union-attr]
            value = _DE_IRREGULAR.get(stem, _de_below_million(stem))
            if value is not None:
                break
    if value is None:
        return None
    return Decimal(value) + half


def german(text: str) -> list[tuple[str, Decimal]]:
    """(word, value) of every spelled number in German ``text``, scale words applied:
    "zweieinhalb Millionen" is 2500000; articles (ein, eine) are no number."""
    out: list[tuple[str, Decimal]] = []
    words = _DE_WORD.findall(text.lower())
    for n, word in enumerate(words):
        if word.startswith("ein") and len(word) <= 5 and word != "eins":
            continue  # ein, eine, einen: an article far more often than a number
        value = _de_value(word)
        if value is None:
            continue
        nxt = words[n + 1] if n + 1 < len(words) else ""
        scale = SCALES.get(nxt)
        if nxt in ("billion", "billionen"):
            scale = _E[12]
        if scale is not None and scale >= 1000:
            value *= scale
        out.append((word, value))
    return out


# --- Chinese and Japanese numerals -----------------------------------------------------------

_CJK_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5,
               "六": 6, "七": 7, "八": 8, "九": 9}  # fmt: skip
_CJK_SMALL = {"十": 10, "百": 100, "千": 1000}
_CJK_BIG = {"万": 10**4, "萬": 10**4, "亿": 10**8, "億": 10**8}
CJK_NUMERAL = re.compile(r"[零〇一二两兩三四五六七八九十百千万萬亿億]{2,}|[二两兩三四五六七八九十]")


def cjk_value(run: str) -> Decimal | None:
    """A run of Chinese (or Japanese) numerals: 十六 16, 三千五百 3500, 五十万 500000, 一百零五
    105; None for what is no number (a lone 万)."""
    if not any(ch in _CJK_SMALL or ch in _CJK_BIG for ch in run):  # 二〇二三: digit by digit
        digits = "".join(str(_CJK_DIGITS[ch]) for ch in run)
        return Decimal(digits) if len(run) == 4 or len(run) == 1 else None
    total, section, digit = 0, 0, None
    for ch in run:
        if ch in "零〇" and (total or section):
            continue  # 一百零五: the zero only says a place is empty
        if ch in _CJK_DIGITS:
            if digit is not None:  # 六七千: a range, not one number
                return None
            digit = _CJK_DIGITS[ch]
        elif ch in _CJK_SMALL:
            section += (1 if digit is None else digit) * _CJK_SMALL[ch]
            digit = None
        elif ch in _CJK_BIG:
            section += digit or 0
            if section == 0:
                return None
            total += section * _CJK_BIG[ch]
            section, digit = 0, None
    section += digit or 0
    value = total + section
    return Decimal(value) if value else None


def chinese(text: str) -> list[tuple[str, Decimal]]:
    """(numerals, value) of every run of Chinese numerals in ``text``."""
    out = []
    for m in CJK_NUMERAL.finditer(text):
        value = cjk_value(m.group())
        if value is not None:
            out.append((m.group(), value))
    return out


_DIGITWISE = re.compile(r"[零〇一二两兩三四五六七八九]{2,3}")


def digitwise(text: str) -> list[Decimal]:
    """Runs of two or three Chinese digits read digit by digit, which ``chinese`` leaves out
    (六七 may be "six or seven"): 九二共识 is the "92 Consensus", the "1992 Consensus" too.
    Only for what a translation may bring in, never for what it must keep."""
    out = []
    for m in _DIGITWISE.finditer(text):
        digits = "".join(str(_CJK_DIGITS[ch]) for ch in m.group())
        out.append(Decimal(digits))
        if len(digits) == 2:
            out.extend((Decimal("19" + digits), Decimal("20" + digits)))
    return out


# --- small numbers of the other languages ----------------------------------------------------

SMALL: dict[str, dict[str, int]] = {
    lang: {word: n for n, word in enumerate(words.split(), 2)}
    for lang, words in {
        "fr": "deux trois quatre cinq six sept huit neuf dix onze douze",
        "es": "dos tres cuatro cinco seis siete ocho nueve diez once doce",
        "it": "due tre quattro cinque sei sette otto nove dieci undici dodici",
        "pt": "dois três quatro cinco seis sete oito nove dez onze doze",
        "nl": "twee drie vier vijf zes zeven acht negen tien elf twaalf",
    }.items()
}
SMALL["pt"]["duas"] = 2


def spelled(text: str, lang: str) -> list[tuple[str, Decimal]]:
    """(words, value) of the numbers ``text`` (in ``lang``, a primary subtag) spells out."""
    if lang == "en":
        return english(text)
    if lang == "de":
        return german(text)
    if lang in ("zh", "ja"):
        return chinese(text)
    table = SMALL.get(lang)
    if not table:
        return []
    return [(w, Decimal(table[w.lower()])) for w in re.findall(r"[^\W\d_]+", text)
            if w.lower() in table]  # fmt: skip


# --- units of measure: a conversion is no change ---------------------------------------------

# unit word → (quantity, factor to the quantity's base unit)
MEASURES: dict[str, tuple[str, Decimal]] = {}
for _quantity, _table in {
    "length": {
        "mm": "0.001",
        "millimeter": "0.001",
        "millimetres": "0.001",
        "millimeters": "0.001",
        "cm": "0.01",
        "zentimeter": "0.01",
        "centimeter": "0.01",
        "centimeters": "0.01",
        "centimetres": "0.01",
        "m": "1",
        "meter": "1",
        "metern": "1",
        "meters": "1",
        "metres": "1",
        "metre": "1",
        "km": "1000",
        "kilometer": "1000",
        "kilometern": "1000",
        "kilometers": "1000",
        "kilometres": "1000",
        "kilometre": "1000",
        "inch": "0.0254",
        "inches": "0.0254",
        "zoll": "0.0254",
        "foot": "0.3048",
        "feet": "0.3048",
        "ft": "0.3048",
        "fuß": "0.3048",
        "yard": "0.9144",
        "yards": "0.9144",
        "mile": "1609.344",
        "miles": "1609.344",
        "meile": "1609.344",
        "meilen": "1609.344",
        "米": "1",
        "公里": "1000",
        "千米": "1000",
        "厘米": "0.01",
        "英里": "1609.344",
        "英尺": "0.3048",
        "英寸": "0.0254",
    },
    "mass": {
        "g": "0.001",
        "gramm": "0.001",
        "grams": "0.001",
        "kg": "1",
        "kilogramm": "1",
        "kilogram": "1",
        "kilograms": "1",
        "kilo": "1",
        "kilos": "1",
        "t": "1000",
        "tonnen": "1000",
        "tonne": "1000",
        "tonnes": "1000",
        "tons": "907.18474",
        "pound": "0.45359237",
        "pounds": "0.45359237",
        "lb": "0.45359237",
        "lbs": "0.45359237",
        "ounce": "0.028349523",
        "ounces": "0.028349523",
        "oz": "0.028349523",
        "unzen": "0.028349523",
        "克": "0.001",
        "公斤": "1",
        "千克": "1",
        "吨": "1000",
        "磅": "0.45359237",
        "斤": "0.5",
    },
    "volume": {
        "l": "1",
        "liter": "1",
        "litern": "1",
        "liters": "1",
        "litres": "1",
        "ml": "0.001",
        "gallon": "3.785411784",
        "gallons": "3.785411784",
        "gallonen": "3.785411784",
        "升": "1",
    },
    "area": {
        "hektar": "10000",
        "hectares": "10000",
        "hectare": "10000",
        "ha": "10000",
        "acre": "4046.8564224",
        "acres": "4046.8564224",
        "morgen": "2500",
        "quadratmeter": "1",
        "quadratkilometer": "1000000",
        "公顷": "10000",
        "亩": "666.67",
        "平方米": "1",
        "平方公里": "1000000",
        "square miles": "2589988.11",
        "square kilometers": "1000000",
        "square kilometres": "1000000",
    },
    "time": {
        "ns": "0.000000001",
        "nanosecond": "0.000000001",
        "nanoseconds": "0.000000001",
        "nanosekunden": "0.000000001",
        "µs": "0.000001",
        "microsecond": "0.000001",
        "microseconds": "0.000001",
        "mikrosekunde": "0.000001",
        "mikrosekunden": "0.000001",
        "ms": "0.001",
        "millisecond": "0.001",
        "milliseconds": "0.001",
        "millisekunde": "0.001",
        "millisekunden": "0.001",
        "纳秒": "0.000000001",
        "微秒": "0.000001",
        "毫秒": "0.001",
    },
    "speed": {
        "mph": "1.609344",
        "km/h": "1",
        "kmh": "1",
        "stundenkilometer": "1",
    },
}.items():
    for _name, _factor in _table.items():
        MEASURES[_name] = (_quantity, Decimal(_factor))
MEASURE_AFTER = re.compile(
    r"\s?(平方公里|平方米|公里|千米|厘米|英里|英尺|英寸|公斤|千克|公顷|纳秒|微秒|毫秒|[米克吨磅斤亩升])"
    r"|[\s-]?((?i:square (?:miles|kilomet(?:er|re)s)|[^\W\d_]+(?:/h)?))(?![^\W\d_])"
)
# Temperatures: Fahrenheit and Celsius are converted by formula, not by a factor ("115
# Fahrenheit", "44 degrees Centigrade", "43 Grad Celsius")
TEMPERATURE = re.compile(
    r"\s?°\s?([CF])"
    r"|\s(?i:(?:degrees?\s|grad\s)?(fahrenheit|celsius|centigrade))(?![^\W\d_])"
)
# "a foot", "an inch": a measure of one that says no figure (about a foot long → ca. 30 cm)
ONE_MEASURE = re.compile(r"(?<![^\W\d_])(?i:an?)(?=\s[^\W\d_])")


class Measure(NamedTuple):
    """A figure with its unit: its quantity, its value in the quantity's base unit (metres,
    °C…) and its unit (a factor, or a temperature scale), so that one unit is compared exactly
    and two units within a conversion's rounding."""

    quantity: str
    base: Decimal
    unit: str


def measure(text: str, end: int, value: Decimal) -> Measure | None:
    """The measure of the number ``value`` ending at ``end`` of ``text`` when a unit of
    measure follows it; None otherwise."""
    t = TEMPERATURE.match(text, end)
    if t is not None:
        unit = (t.group(1) or t.group(2) or "c")[0].lower()
        celsius = (value - 32) * 5 / 9 if unit == "f" else value
        return Measure("temperature", celsius, unit)
    m = MEASURE_AFTER.match(text, end)
    if m is None:
        return None
    word = m.group(1) or m.group(2)
    found = MEASURES.get(word) or MEASURES.get(word.lower())
    if found is None:
        return None
    return Measure(found[0], value * found[1], str(found[1]))


def converted(a: Measure, b: Measure, tolerance: float = 0.1) -> bool:
    """Two measures of one quantity, the same in one unit or within ``tolerance`` in two (a
    converted figure is rounded: 200 feet → 60 Meter, 10 miles → 16 km, 115 °F → 46 °C)."""
    if a.quantity != b.quantity:
        return False
    if a.unit == b.unit:  # 200 feet → 210 feet is a change, not a rounding
        return a.base == b.base
    if a.quantity == "temperature":  # a rounded conversion, or a speaker's own (115 °F ≈ 44 °C)
        return abs(a.base - b.base) <= 3
    high = max(abs(a.base), abs(b.base))
    return high > 0 and abs(a.base - b.base) <= Decimal(str(tolerance)) * high
