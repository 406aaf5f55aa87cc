"""A text's credits: the outlet, the reporter and the picture's source a translation must keep.

News and press texts open or close with a credit: a dateline ("新华社北京2月11日电", "BERLIN
(AP) —"), a byline ("（记者赵博、黄扬）"), an outlet after a title ("…-中新网"), a picture's
source ("图源：…"). A translation that drops one has left something out that no length model
sees (a credit is a few characters) and that professional reviewers mark as a major omission
(WMT 2023's news paragraphs: a fifth of the zh-en omissions annotators marked were credits).
An outlet's name survives translation: in its English or romanised form from Chinese, as
written between Latin-script languages. An answer that names an outlet, even the wrong one,
has not left the credit out (a wrong name is a mistranslation, not this check's business).
"""

from __future__ import annotations

import re
from collections import Counter

# Outlets by their Chinese names, with the forms an English (or other Latin-script) answer
# gives them; a form of five letters or more may begin a longer word ("economic observ…").
_OUTLETS_ZH: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("中新网|中国新闻网|中新社",
     ("china news", "chinanews", "china-news", "china new", "new net", "cns", "zhongxin")),
    ("新华社|新华网", ("xinhua",)),
    ("央视网|央视新闻|央视", ("cctv", "china central television")),
    ("人民网|人民日报",
     ("people's daily", "people’s daily", "people.cn", "people's net", "people’s net")),
    ("环球时报|环球网", ("global times", "huanqiu")),
    ("法新社", ("afp", "agence france", "france-presse", "france presse")),
    ("路透社|路透", ("reuters",)),
    ("美联社", ("associated press", "ap")),
    ("彭博社|彭博", ("bloomberg",)),
    ("德国之声", ("deutsche welle", "dw", "voice of germany")),
    ("中央社", ("cna", "central news agency")),
    ("越通社", ("vna", "vietnam news agency", "vietnam news", "viet nam news")),
    ("朝中社", ("kcna", "korean central news")),
    ("韩联社", ("yonhap",)),
    ("共同社", ("kyodo",)),
    ("塔斯社", ("tass",)),
    ("联合早报", ("zaobao",)),
    ("澎湃新闻", ("the paper", "thepaper")),
    ("扬子晚报", ("yangtse", "yangzi", "yangtze", "yangzhi", "evening news")),
    ("经济观察网|经济观察报", ("economic observ", "economy observ", "economics observ")),
    ("美国之音", ("voice of america", "voa")),
    ("纽约时报", ("new york times", "nyt")),
    ("华尔街日报", ("wall street journal", "wsj")),
    ("华盛顿邮报", ("washington post",)),
    ("金融时报", ("financial times",)),
    ("南华早报", ("south china morning post", "scmp")),
)  # fmt: skip
# Outlets as Latin-script sources name them (kept as they are in a translation)
_OUTLETS_LATIN = (
    "AP", "Associated Press", "Reuters", "AFP", "Agence France-Presse", "Bloomberg", "CNN", "BBC",
    "CBS", "CBS News", "NBC", "NBC News", "BBC News", "ABC News", "Fox News", "RT", "Kazinform",
    "Xinhua", "DPA", "TASS", "Vogue",
    "Politico", "Axios", "Al Jazeera", "Sky News", "CNBC", "MSNBC", "NPR", "Yonhap", "Kyodo",
    "Interfax", "UPI", "New York Times", "Washington Post", "Wall Street Journal",
    "Financial Times", "The Guardian", "Forbes", "Newsweek", "ESPN", "USA Today", "HuffPost",
)  # fmt: skip


def _form(text: str) -> str:
    # a short form is a whole word (AP, DW); a long one may begin a longer word
    tail = r"(?![a-z])" if len(text) <= 4 else ""
    return r"(?<![a-z])" + re.escape(text) + tail


_ZH = tuple(
    (re.compile(names), re.compile("|".join(map(_form, forms)))) for names, forms in _OUTLETS_ZH
)
# any outlet named in an English answer, or a word that names one ("news agency", "CNN.com")
_ANY_OUTLET = re.compile(
    "|".join(_form(f) for _n, forms in _OUTLETS_ZH for f in forms)
    + r"|(?<![a-z])(?:cnn|cnet|news agency|news network|news service|news website|press agency)"
    r"(?![a-z])|[a-z]\.(?:com|cn)(?![a-z])"
)
_LATIN = re.compile(
    r"(?<![\w-])("
    + "|".join(map(re.escape, sorted(_OUTLETS_LATIN, key=len, reverse=True)))
    + r")(?![\w-])"
)
# a quick look first: the words an outlet's name begins with, among the source's capitalised
_LATIN_FIRST = frozenset(name.split()[0] for name in _OUTLETS_LATIN)
_CAPITALISED = re.compile(r"[A-Z][A-Za-z]*")
# a byline: a reporter's name in brackets, or a reporter in the dateline at the start
_BYLINE = re.compile(r"[（(]记者[^）)]{2,14}[）)]|^[^，。,]{0,20}?记者(?![会站])")
_REPORTER = re.compile(r"reporter|correspondent|journalist|\bby\b|staff writer", re.IGNORECASE)
_PICTURE = re.compile(r"图源|图片来源|来源[:：]")
_SOURCE_WORD = re.compile(
    r"source|credit|photo|image|picture|courtesy|figure|chart|graph|from", re.IGNORECASE
)
_HAN = re.compile(r"[\u4e00-\u9fff]")


def credit_left_out(source: str, answer: str, target: str) -> str | None:
    """The credit of the source (an outlet, a byline, a picture's source) the answer lacks;
    an outlet the source names more often than the answer does is one left out."""
    if _HAN.search(source):
        if _HAN.search(answer):
            return None  # into Chinese or Japanese: the names stay as they are
        low = answer.lower()
        named = _ANY_OUTLET.search(low) is not None
        for names, forms in _ZH:
            found = names.findall(source)
            if not found or found[0] in answer:
                continue
            kept = len(forms.findall(low))
            # not named at all; or named fewer times (a dateline and the byline after it,
            # "越通社河内——越通社特派记者报道", each name the outlet)
            if (not kept and not named) or 0 < kept < len(found):
                return f"left out: the credit {found[0]!r}"
        if target != "en":  # the words below are English
            return None
        byline = _BYLINE.search(source)
        if byline and not _REPORTER.search(answer):
            return f"left out: the byline {byline.group()!r}"
        picture = _PICTURE.search(source)
        if picture and not _SOURCE_WORD.search(answer):
            return f"left out: the picture's source ({picture.group()!r})"
        return None
    if _HAN.search(answer) or _LATIN_FIRST.isdisjoint(_CAPITALISED.findall(source)):
        return None  # names written in Chinese characters are not compared; no outlet named
    counts = Counter(
        found.group()
        for found in _LATIN.finditer(source)
        if len(found.group()) > SHORT_NAME or _credited(source, found.start(), found.end())
    )
    for name, times in counts.items():
        if answer.count(name) < times:  # "… said in an interview with Vogue … he told Vogue"
            return f"left out: the credit {name!r}"
    return None


# An outlet's short name (AP, RT, UPI) is read as a credit only where a credit stands: in
# brackets ("BERLIN (AP) —"), after a dash ("- RT World News"), beside a word of reporting
# ("AP reported", "told NPR"); elsewhere "AP" may be an access point
SHORT_NAME = 3
_CREDIT_BEFORE = re.compile(
    r"(?:[(\[]|[-–—]\s?|\b(?:told|tells|to|by|via|cites?|from|according to|with))\s?$"
)
_CREDIT_AFTER = re.compile(
    r"^(?:\s?[)\]]|\s(?:News|World News|reported|reports|said|says|cites?|quoted|wrote)\b)"
)


def _credited(source: str, start: int, end: int) -> bool:
    before, after = source[max(0, start - 16) : start], source[end : end + 16]
    return bool(_CREDIT_BEFORE.search(before) or _CREDIT_AFTER.match(after))


def outlet_kept(group: str, answer: str) -> bool:
    """Whether a part of a Chinese source names an outlet that the answer names too."""
    low = answer.lower()
    return any(names.search(group) and forms.search(low) for names, forms in _ZH)
