"""The ``omission`` check: nothing left out (see fastdesk.translate.meaning_checks).

The answer has half the source's sentences (or fewer); or fewer sentences and far less text than
a translation into that language takes (a dropped sentence in a paragraph of a few); or a whole
source sentence of six words or more left in the source language inside an otherwise translated
block; or an answer that stops at a comma or a semicolon where the source ends its sentence,
shorter than usual. What length cannot see but a name can: a part in brackets whose names or
figures the answer lacks, a credit (an outlet, a byline: fastdesk.translate.credits), a firm's
"&", the item's number a text begins with. A paragraph of many sentences that lost one short
sentence or a phrase is beyond this arithmetic: the reviewer pass (fastdesk.translate.quality)
is for that.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from fastdesk.document.languages import primary
from fastdesk.translate.credits import credit_left_out, outlet_kept
from fastdesk.translate.language import identify
from fastdesk.translate.number_check import month, script_language

_WORD = re.compile(r"[^\W\d_]+")

# --- omission ------------------------------------------------------------------------------------

# Characters a translation takes for one character of English prose (typical technical text;
# a paragraph varies by ±15 %). Languages not listed are not judged on length.
VERBOSITY: dict[str, float] = {
    "en": 1.0, "fr": 1.15, "es": 1.15, "it": 1.12, "pt": 1.12, "ca": 1.12, "gl": 1.12,
    "ro": 1.1, "de": 1.15, "nl": 1.1, "da": 1.0, "sv": 1.0, "nb": 1.0, "no": 1.0, "fi": 1.05,
    "pl": 1.05, "cs": 1.0, "sk": 1.0, "hu": 1.05, "ru": 1.05, "uk": 1.05, "el": 1.1, "tr": 1.0,
    # a Chinese character says what ~2.8 English letters say (WMT's TED talks, zh-en: the
    # median over the translations raters found flawless)
    "zh": 0.36,
}  # fmt: skip
# How far (log) a sentence's translation strays from the expected length, typically; between
# Chinese and a Latin script sentence lengths vary twice as much
SIGMA_CJK = 0.4
# How far (log) a translation's length strays from the usual, for a sentence of ~100 letters
# (WMT's TED talks, translations raters found flawless: en-de 0.16, zh-en 0.21); a longer text
# strays less (by the square root of its length). An answer Z_LENGTH such spreads short: a drop
Z_LENGTH = 4.5
SIGMA_LENGTH = 0.16
SIGMA_LENGTH_CJK = 0.21
MIN_SIZE = 20.0  # letters: below, a text's length says nothing
SHORT_SHARE_CJK = 0.6
_CJK_LANGS = frozenset({"zh", "ja", "ko"})
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
# Fewer sentences and less than this share of a translation's usual length: a drop (merging two
# sentences adds words, it does not shorten the text; set on tests/data/meaning_corpus.py: its
# faithful answers are ≥ 0.83, its merges ≥ 1.06, its answers with a dropped sentence ≤ 0.92)
SHORT_SHARE = 0.95
# ... and where the answer has a comma, semicolon or dash that may join two (TED talks: faithful
# answers joining two sentences are 0.84 to 0.94 of the usual length)
SHORT_SHARE_JOINED = 0.8
SIGMA = 0.2  # how far (log) a sentence's translation strays from the expected length, typically
MERGE = 2.0  # two sentences translated as one (or one as two): rare in a model's answer
MERGE_JOINED = 1.0  # ... where the answer's sentence has a comma, semicolon or dash to join them
DROP = 2.5  # a source sentence with no counterpart: a translation error
MAX_ALIGNED = 60  # longer blocks are not aligned (quadratic; a table of prose)
MIN_UNTRANSLATED_WORDS = 6
# Words a full stop follows without ending a sentence, in the languages checked (titles first:
# "Colorado Gov. Jared Polis")
_ABBREVIATION = re.compile(
    r"(?:\b[^\W\d_]|\b(?:e\.g|i\.e|etc|vs|cf|approx|Dr|Mr|Mrs|Ms|Prof|St|Inc|Ltd|No|Nr|Abs"
    r"|Gov|Sen|Rep|Gen|Col|Lt|Sgt|Capt|Cmdr|Adm|Supt|Det|Insp|Rev|Hon|Pres|Jr|Sr|Bros|Co|Corp"
    r"|Mt|Ft|Ave|Blvd|Rd|Jan|Feb|Mar|Apr|Aug|Sept|Sep|Oct|Nov|Dec|est|dept|Univ|Fig|fig|Vol|vol"
    r"|bzw|ca|usw|ggf|vgl|inkl|evtl|sog|Mio|Mrd|Str|Hr|Fr|Jh|Tel|z\.B|d\.h|u\.a|o\.ä|s\.o"
    r"|Mme|MM|env|p\.ex|núm|pág|aprox|Sra|Sres|Dña|sig|pag|ecc|Dott|Ing|Avv|Sig))$",
)
_WORD_AHEAD = re.compile(r"[^\W\d_]+")
# a sentence ends at . ! ? … and the closing quotes and brackets after them (German „…“
# closes with “); Chinese and Japanese stops need no space after them
_END = re.compile(
    r"([.!?…]+)[\"'”“’‘»«)\]」』）]*(?:\s+|$)|([。！？]+)[\"'”“’」』）]*\s*"
    r"|(?<=[a-z]{2})([.!?])(?=[A-Z][a-z])"  # "nectar.Because": a stop whose space was lost
)
# where an answer may join two sentences into one without losing either
_CLAUSE = re.compile(r"[,;:，；：]\s|\s[–—-]\s")


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
    return word is not None and month(word.group()) is not None


def omission_problem(
    source: str, answer: str, target_lang: str, listed: Sequence[str] = ()
) -> str | None:
    """A dropped sentence, or one left in the source language (see the module docstring);
    ``listed``: the numbers of the answer's ordered list items, which its prose leaves out."""
    src = sentences(source)
    flat = " ".join(answer.split())
    if not src or flat == " ".join(source.split()):  # an echo: not this check's business
        return None
    if _another_text(source, answer):
        return None
    src = _unrepeated(src)
    ans = sentences(answer)
    # Chinese and Japanese end sentences where English joins them with a comma: three short
    # questions asked as one are all there
    joints = len(_CLAUSE.findall(answer))
    clauses = len(ans) + joints if _CJK.search(source) else len(ans)
    if len(src) >= 3 and 2 * len(ans) <= len(src) and clauses < len(src):
        return f"{len(src)} sentences became {len(ans)}"
    target = primary(target_lang)
    kept = [
        s
        for s in src
        if len(_WORD.findall(s)) >= MIN_UNTRANSLATED_WORDS and " ".join(s.split()) in flat
    ]
    phrase = (
        _bracket_left_out(source, answer)
        or credit_left_out(source, answer, primary(target_lang))
        or _firm_left_out(source, answer)
        or _item_number_left_out(source, answer, listed)
    )
    script = script_language(source)
    letters_src, letters_ans = _letters(source), _letters(answer)
    shorter = script is not None or letters_ans < letters_src  # else too long to judge short
    cut = _cut_short(source, answer)
    if len(ans) >= len(src) and not kept and not shorter and cut is None:
        return phrase
    source_lang = script or _language(source)  # ~0.1 ms: only when it matters
    if source_lang == target:
        return None
    cjk = source_lang in _CJK_LANGS or target in _CJK_LANGS
    expected = _expected_ratio(source_lang or "en", target)
    if len(ans) < len(src):
        share = _letters(answer) / (expected * _letters(source)) if expected else 1.0
        # two sentences joined with a comma are as long as both; without a joint, an answer
        # this short lost one
        least = SHORT_SHARE_CJK if cjk else SHORT_SHARE_JOINED if joints else SHORT_SHARE
        if share < least:
            return (
                f"{len(src)} sentences became {len(ans)} and the answer is {share:.0%} of a "
                "translation's usual length: a sentence may be missing"
            )
        dropped = _dropped(src, ans, expected, SIGMA_CJK if cjk else SIGMA)
        if dropped is not None:
            shown = dropped if len(dropped) <= 60 else dropped[:59] + "…"
            return f"{len(src)} sentences became {len(ans)}; no counterpart for {shown!r}"
    if expected and letters_src:
        # a text's length varies less the longer it is (a paragraph 25 % short lost
        # something), more the shorter ("Why? I hear you ask." for a question and a clause);
        # its size in the answer's letters, so that a Chinese character counts as what it says
        share = letters_ans / (expected * letters_src)
        size = max(MIN_SIZE, expected * letters_src)
        spread = (SIGMA_LENGTH_CJK if cjk else SIGMA_LENGTH) * math.sqrt(100 / size)
        if share < math.exp(-Z_LENGTH * spread):
            return (
                f"the answer is {share:.0%} of a translation's usual length: "
                "a sentence or a phrase may be missing"
            )
    if cut is not None and expected and letters_src:
        share = letters_ans / (expected * letters_src)
        if share < CUT_SHARE:
            return (
                f"the answer ends at {cut!r} where the source's sentence ends, and is "
                f"{share:.0%} of a translation's usual length: its end may be missing"
            )
    if kept and source_lang is not None:
        shown = kept[0] if len(kept[0]) <= 60 else kept[0][:59] + "…"
        return f"left untranslated: {shown!r}"
    return phrase


# An answer that ends at a comma or a semicolon where the source ends its sentence stopped
# mid-sentence ("It is directly embedded;" for "它是直接嵌入的；没有外部指令输入。"): what
# came after the mark is missing, unless the answer is as long as a translation usually is (a
# full translation that put a comma where the stop was; WMT's TED talks have one, en-de)
_SOURCE_END = re.compile(r"[.!?。！？…][\"'”“’」』）)\]]*\s*$")
_ANSWER_CUT = re.compile(r"([,;，；])\s*$")
CUT_SHARE = 1.0


def _cut_short(source: str, answer: str) -> str | None:
    """The comma or semicolon an answer ends with where its source ends a sentence."""
    cut = _ANSWER_CUT.search(answer)
    return cut.group(1) if cut and _SOURCE_END.search(source) else None


# A part in brackets of a Chinese or Japanese source (a dateline, an outlet's name, a gloss)
# keeps its brackets in a translation; an answer with fewer brackets left one out, unless what
# the part says is elsewhere in the answer: the outlet it names, the figures of a date. Between
# Latin-script languages a gloss in brackets often joins the text ("[of assembly time]" →
# "Montagezeit"): there, a part in brackets is left out only when the answer has fewer brackets
# and lacks its figures (in any locale's form), or, where it has none, one of its names ("(full
# name Demna Gvasalia)"; a capitalised first word may be a gloss's, "(Laughter)").
_BRACKETS = re.compile(r"[（(【\[][^（(【\[）)】\]]{1,80}[）)】\]]")
_OPENERS = re.compile(r"[（(【\[]")
_DATE_PART = re.compile(r"[\d\s年月日号至到]+")
_FIGURE = re.compile(r"\d+")
_LATIN_BRACKETS = re.compile(r"\(([^()]{2,80})\)")
_NAME = re.compile(r"\b[A-Z][\w'-]+")
_NUMBER = re.compile(r"\d[\d.,]*")
_LOCALE_FIGURE = re.compile(r"\d[\d.,'\u00a0\u202f ]*")  # 1,000 is 1.000 or 1 000 in German


def _bracket_left_out(source: str, answer: str) -> str | None:
    """A part in brackets of the source that the answer, in another script, lacks."""
    if "（" not in source and "(" not in source and "【" not in source and "[" not in source:
        return None
    if not _CJK.search(source):
        return _latin_bracket_left_out(source, answer)
    if _CJK.search(answer):
        return None
    groups = _BRACKETS.findall(source)
    if len(groups) <= len(_OPENERS.findall(answer)):
        return None
    for group in reversed(groups):
        if len(_CJK.findall(group)) < 2 or outlet_kept(group, answer):
            continue
        day = _FIGURE.findall(group)[-1:]
        if (
            _DATE_PART.fullmatch(group[1:-1])
            and day
            and re.search(rf"(?<!\d){day[0]}(?!\d)", answer)
        ):
            continue  # （2月10日）: the date is there (its day), in brackets or not
        return f"left out: a part in brackets ({group!r})"
    return None


def _latin_bracket_left_out(source: str, answer: str) -> str | None:
    groups = _LATIN_BRACKETS.findall(source)
    if len(groups) <= answer.count("(") + answer.count("（"):
        return None
    figures = {re.sub(r"\D", "", f) for f in _LOCALE_FIGURE.findall(answer)}
    for group in groups:
        numbers = _NUMBER.findall(group)
        if numbers:  # a figure kept in any form keeps the part ("(1,000 in March)": 1.000)
            if not any(re.sub(r"\D", "", n) in figures for n in numbers):
                return f"left out: a part in brackets ('({group})')"
            continue
        names = _NAME.findall(group)[1 if _NAME.match(group) else 0 :]  # not its first word
        if names and not all(name in answer for name in names):
            return f"left out: a part in brackets ('({group})')"
    return None


# Words in Latin letters inside a Chinese or Japanese source (a name, an acronym, a term)
# pass into a Latin-script answer as they are
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z-]+")
# ... and so do its figures, in some form: an answer keeping none of four is another text (a
# date and a time, "2023-02-11 13:09:10", answered with a film's credits; set on WMT23 zh-en)
ANOTHER_TEXT_ANCHORS = 4


def _another_text(source: str, answer: str) -> bool:
    """Whether the answer, in Latin script, keeps none of the Latin words and figures of a
    Chinese or Japanese source that has a Latin word or four figures and words in all: it is
    another text (a model's invention), not this one with a gap; the numbers and language
    checks speak for it, and what it lacks is not an omission."""
    if not _CJK.search(source) or _CJK.search(answer):
        return False
    words = set(_LATIN_WORD.findall(source))
    anchors = words | set(_FIGURE.findall(source))
    if not words and len(anchors) < ANOTHER_TEXT_ANCHORS:
        return False
    kept = set(_LATIN_WORD.findall(answer)) | set(_FIGURE.findall(answer))
    return kept.isdisjoint(anchors)


# A firm's name joined with "&" (Debevoise & Plimpton, Procter & Gamble) keeps it
_FIRM = re.compile(r"\b[A-Z][\w.]*\s?&\s?[A-Z][\w.]*")


def _firm_left_out(source: str, answer: str) -> str | None:
    """A name joined with "&" in a Latin-script source whose "&" the answer lacks."""
    if "&" not in source or "&" in answer:
        return None
    firm = _FIRM.search(source)
    return None if firm is None else f"left out: part of the name {firm.group()!r}"


# A text that begins with an item's number ("1.Build a strong community: …", "(2) …", a
# heading's "4. Installing": one that Markdown does not read as a list, whose marker the
# structure check compares) keeps it in the answer, as a figure or as its ordered list's
# number; reviewers mark one dropped as an omission (WMT 2023: each of the 10 translations
# that dropped one, en-de and zh-en)
_ITEM_NUMBER = re.compile(r"\s*[(（]?(\d{1,2})\s*[.)．）、](?!\d)")  # not 1.5


def _item_number_left_out(source: str, answer: str, listed: Sequence[str]) -> str | None:
    """The number a source's text begins with, as an item's, that the answer lacks (in its
    figures or its ordered list's numbers, ``listed``)."""
    item = _ITEM_NUMBER.match(source)
    if item is None or item.group(1) in listed or item.group(1) in _FIGURE.findall(answer):
        return None
    return f"left out: the item's number {item.group().strip()!r}"


def _unrepeated(src: list[str]) -> list[str]:
    """The sentences without one that repeats its predecessor, whole or as its start ("Thank
    you. Thank you." and "谢谢。谢谢大家。" say thanks once)."""
    out: list[str] = []
    for sentence in src:
        if out and (sentence == out[-1] or len(out[-1]) <= SHORT_REPEAT):
            last, this = _core(out[-1]), _core(sentence)
            short = len(_WORD.findall(out[-1])) <= 2
            if this == last or (short and this.startswith(last)):
                continue
        out.append(sentence)
    return out


SHORT_REPEAT = 24  # characters: a sentence of two words ("Thank you.") a longer one may repeat


def _core(sentence: str) -> str:
    return "".join(_WORD.findall(sentence)).lower()


def _language(text: str) -> str | None:
    langs = identify(text)
    return max(langs, key=langs.__getitem__) if langs else None


def _dropped(src: list[str], ans: list[str], ratio: float | None, sigma: float) -> str | None:
    """The source sentence a length alignment leaves without a counterpart, or None.

    Gale and Church's alignment (1993) by sentence length in letters, with beads 1-1, 2-1, 1-2
    and 1-0: a bead costs its length mismatch ((log(answer / (ratio × source))) / SIGMA)², a
    merge or a split MERGE more, a source sentence without counterpart DROP. So a short
    sentence whose neighbour's answer is as long as both is read as merged, not dropped."""
    if len(src) > MAX_ALIGNED:
        return None
    s = [max(1, _letters(x)) for x in src]
    t = [max(1, _letters(x)) for x in ans]
    joined = [_CLAUSE.search(x) is not None for x in ans]
    r = ratio or sum(t) / sum(s)
    n, m = len(s), len(t)
    cost = [[math.inf] * (m + 1) for _ in range(n + 1)]
    back = [[(0, 0)] * (m + 1) for _ in range(n + 1)]
    cost[0][0] = 0.0

    def bead(a: int, b: int) -> float:
        return (math.log(b / (r * a)) / sigma) ** 2

    for i in range(n + 1):
        for j in range(m + 1):
            options: list[tuple[float, tuple[int, int]]] = []
            if i and j:
                options.append((cost[i - 1][j - 1] + bead(s[i - 1], t[j - 1]), (1, 1)))
            if i >= 2 and j:
                merged = bead(s[i - 2] + s[i - 1], t[j - 1])
                # two sentences joined need a joint: a comma, a semicolon, a dash
                joint = MERGE_JOINED if joined[j - 1] else MERGE
                options.append((cost[i - 2][j - 1] + joint + merged, (2, 1)))
            if i >= 3 and j:  # three short questions asked as one
                merged = bead(s[i - 3] + s[i - 2] + s[i - 1], t[j - 1])
                joint = 2 * (MERGE_JOINED if joined[j - 1] else MERGE)
                options.append((cost[i - 3][j - 1] + joint + merged, (3, 1)))
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
