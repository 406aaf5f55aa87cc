"""What the raters' omissions in ``bench_meaning.py``'s data are, by kind, and how far raters
agree on them (``--groups``; prints nothing itself).

A deterministic check can only see some kinds of omission: a part in brackets, a whole clause
or sentence (by length, by a sentence that has no counterpart), a figure (the ``numbers``
check). A word inside a sentence (a function word such as 也, 其实, 被, "the"; a content word
such as 质量, 状况, "hurt") needs a bilingual dictionary or a word aligner, and is where raters
disagree most: ``agreement`` counts, over the answers that several systems gave word for word
to the same source (each rated on its own), how many of those ratings mark an omission. A
check gives one verdict for one answer, so on such answers its precision is at most that share.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

GROUPS = (
    "in brackets",
    "a clause or sentence",
    "a figure",
    "a content word or phrase",
    "a function word",
    "punctuation",
)
# a part of the source between these is a clause; a span that is one whole is a clause dropped
_CLAUSE_MARK = re.compile(r"[，。；：！？、,;:!?.]|——|--|\s[–—-]\s|[–—－]")
_HAN = re.compile(r"[\u4e00-\u9fff]")
_WORD = re.compile(r"[^\W\d_]+|\d+")
_EDGES = " \t\n，。；：！？、,;:!?.\"'“”‘’「」"
# closed-class words: adverbs, modals, conjunctions, prepositions, pronouns, demonstratives,
# classifiers and particles (a span made of these only is a function word)
_FUNCTION_ZH = """
    也 也许 还 还是 依然 仍然 其实 越 能 能够 要 可以 需要 会 将 就 都 又 才 再 只 只是 甚至
    大概 可能 有点 有些 比较 非常 很 更 最 太 真 确实 到底 究竟 已经 正在 一直 总是 一路 分别
    一起 在一起 被 把 让 使 给 对 对于 关于 相对于 从 在 中 当中 其中 之中 里 上 上面 下面 这儿
    那儿 这里 那里 这 那 这种 那种 这个 那个 这些 那些 某 某种 一种 有一种 种 个 些 它 它们 他
    他们 她 她们 我 我们 你 你们 大家 人们 自己 的 地 得 了 着 过 吗 呢 吧 啊 因为 所以 但是 但
    而 而且 并且 或者 如果 虽然 即使 即便 也就是 也就是说 就是 这就是 也是 比如 比如说 例如 像
    如同 以及 和 与 及 后者 前者 各 每 每个 所有 一些 是 有"""
FUNCTION_ZH = frozenset(_FUNCTION_ZH.split())
_FUNCTION_EN = """
    i you he she it we they me him her us them my your his its our their this that these
    those the a an and or but nor so if as than then because since while when where which who
    whom whose what in on at to of for with by from up down out over about into onto off
    through after before again also too very just only even still already ago there here now
    not no is are was were be been being am has have had do does did will would can could may
    might must should shall ever really actually quite rather"""
FUNCTION_EN = frozenset(_FUNCTION_EN.split())


def group(span: str, source: str) -> str:
    """The kind of a span an annotator marked as omitted from ``source``."""
    core = span.strip(_EDGES)
    if not _WORD.search(core):
        return "punctuation"
    if core[:1] in "（([【" or core[-1:] in "）)]】":
        return "in brackets"
    if re.search(r"\d", core):
        return "a figure"
    clauses = {c.strip(_EDGES) for c in _CLAUSE_MARK.split(source)}
    han = len(_HAN.findall(core))
    words = [] if han else _WORD.findall(core)
    if core in clauses or han >= 6 or len(words) >= 5:
        return "a clause or sentence"
    function = core in FUNCTION_ZH if han else all(w.lower() in FUNCTION_EN for w in words)
    return "a function word" if function else "a content word or phrase"


def segment_group(spans: Iterable[str], source: str) -> str:
    """A translation's kind: the most visible of its omissions' (a clause before a word)."""
    found = {group(span, source) for span in spans}
    return next((g for g in GROUPS if g in found), "punctuation")


def agreement(ratings: Iterable[tuple[str, str, bool, bool]]) -> tuple[int, int, int]:
    """Over answers given word for word to one source more than once, one of which a rater
    marked with a major omission: (answers, ratings, ratings that mark an omission).
    ``ratings``: (source, answer, any omission marked, a major one marked), one a rating."""
    seen: dict[tuple[str, str], list[tuple[bool, bool]]] = defaultdict(list)
    for source, answer, omitted, major in ratings:
        seen[(" ".join(source.split()), " ".join(answer.split()))].append((omitted, major))
    answers = n = marked = 0
    for verdicts in seen.values():
        if len(verdicts) >= 2 and any(major for _m, major in verdicts):
            answers += 1
            n += len(verdicts)
            marked += sum(m for m, _major in verdicts)
    return answers, n, marked
