"""The ``numbers`` and ``omission`` checks against people: precision, recall and false alarms on
Google's WMT MQM human evaluation (prints numbers; not a test; the data is not shipped).

    .venv/bin/python benchmarks/bench_meaning.py PATH [PATH ...] [--limit N] [--show CHECK]
        [--half even|odd] [--min-sentences N] [--groups]

PATH: MQM files (``.tsv``, or the ``.tsv.tar.gz`` the repository packs some in) or folders
holding them, from the public repository google/wmt-mqm-human-evaluation (Freitag et al. 2021,
"Experts, Errors, and Context"): ``ted/ende/mqm_ted_ende.tsv``, ``ted/zhen/mqm_ted_zhen.tsv``
and ``generalMT2023/*/sxs_mqm_generalMT2023_*.3ratingsPerSegment.tsv.tar.gz`` (news and other
paragraphs, three raters each). Each row is one error a professional marked in one machine
translation (its span between ``<v>`` and ``</v>``, on the target or, for an omission, the
source), with a category and a severity; a translation with none has a ``No-error`` row.

Rows are grouped into segments (system, document, segment: one translation, every rater's
errors), and each translation goes through ``check_block`` as the app runs it on an answer
(``mode="translate"``, the target language). Golds, per segment:

* numbers: an Accuracy error whose span holds a digit; and, stricter, one with a figure that is
  in no form on the other side (benchmarks/number_gold.py: 40.000 for 40000, 16th for 十六,
  31.51 billion for 315.1亿 are no change). ``--gold issue``: the figure's digit runs compared
  as written, as issue 41 measured, with its translations where no number changed counted per
  reason (separators, Chinese numerals, scale words) and the recall on the rest;
* omission: an Accuracy/Omission error of any severity; and of major (or critical) severity.

Precision is the share of flagged segments that hold the gold; recall the share of gold
segments flagged; false alarms the share of the segments every rater found flawless (only
``No-error`` rows) that are flagged. ``--show numbers`` prints the flagged segments without the
gold and the gold segments missed (the first ``--examples``), to read why. ``--groups`` sorts
each set's major omissions by kind (in brackets, a clause, a figure, a word: see
benchmarks/omission_groups.py) with how many the check flags, and prints how often raters
agree on an omission in an answer that several systems gave word for word.
"""

from __future__ import annotations

import argparse
import csv
import io
import re
import sys
import tarfile
import time
import zlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import number_gold, omission_groups
from fastdesk.translate.checks import check_block
from fastdesk.translate.meaning_checks import sentences

_MARK = re.compile(r"</?v>")
_SPAN = re.compile(r"<v>(.*?)</v>", re.DOTALL)
_SKIP = ("avg_seg_scores", "source-errors", "no-postedits", "psqm")


@dataclass
class Segment:
    """One machine translation and every error its raters marked."""

    source: str
    target: str
    errors: list[tuple[str, str, str, str]] = field(default_factory=list)  # cat, sev, side, span
    rows: int = 0

    @property
    def flawless(self) -> bool:
        return self.rows > 0 and not self.errors


@dataclass
class Counts:
    """Flagged, gold and both, for one check against one gold."""

    flagged: int = 0
    gold: int = 0
    hit: int = 0

    def row(self) -> str:
        p = f"{self.hit / self.flagged:6.1%}" if self.flagged else "     -"
        r = f"{self.hit / self.gold:6.1%}" if self.gold else "     -"
        return f"{p} ({self.hit}/{self.flagged})  {r} ({self.hit}/{self.gold})"


def _files(paths: list[str]) -> list[Path]:
    found: list[Path] = []
    for name in paths:
        path = Path(name)
        candidates = sorted(path.rglob("*mqm*.tsv*")) if path.is_dir() else [path]
        for c in candidates:
            if c.name.endswith((".tsv", ".tsv.tar.gz")) and not any(s in c.name for s in _SKIP):
                found.append(c)
    return found


def _tables(path: Path) -> Iterator[TextIO]:
    if path.name.endswith(".tar.gz"):
        with tarfile.open(path) as tar:
            for member in tar.getmembers():
                packed = tar.extractfile(member) if member.name.endswith(".tsv") else None
                if packed is not None:
                    yield io.TextIOWrapper(packed, encoding="utf-8")
    else:
        with path.open(encoding="utf-8") as handle:
            yield handle


def read_segments(path: Path) -> dict[tuple[str, str, str], Segment]:
    """The file's segments by (system, document, segment number)."""
    csv.field_size_limit(1 << 30)
    segments: dict[tuple[str, str, str], Segment] = {}
    for table in _tables(path):
        reader = csv.reader(table, delimiter="\t", quoting=csv.QUOTE_NONE)
        head = next(reader)
        col = {name: n for n, name in enumerate(head)}
        seg_col = col.get("docSegId", col.get("seg_id", 3))
        for row in reader:
            if len(row) < 9:
                continue
            system, doc, seg = row[col["system"]], row[col["doc"]], row[seg_col]
            source, target = row[col["source"]], row[col["target"]]
            category, severity = row[col["category"]], row[col["severity"]]
            if severity.startswith("HOTW"):  # a rater's attention test, not the system's output
                continue
            key = (system, doc, seg)
            segment = segments.get(key)
            if segment is None:
                segment = segments[key] = Segment(_MARK.sub("", source), _MARK.sub("", target))
            segment.rows += 1
            if category.lower().replace("-", " ") in ("no error", "no error"):
                continue
            if category.startswith("Source issue") or severity.lower() == "neutral":
                continue  # the source's own fault, or no error at all
            side, span = ("target", "")
            for name, text in (("target", target), ("source", source)):
                marked = _SPAN.findall(text)
                if marked:
                    side, span = name, " ".join(marked)
                    break
            segment.errors.append((category, severity.lower(), side, span))
    return segments


RAW_DIGITS = False  # --gold issue: digit runs compared as written, as the issue measured
HALF: int | None = None  # --half even|odd: only the documents whose name's CRC-32 is even (odd)
MIN_SENTENCES = 0  # --min-sentences N: only the segments whose source has N sentences or more
GROUPS = False  # --groups: the major omissions by kind, and the raters' agreement


def golds(segment: Segment, langs: tuple[str, str]) -> dict[str, bool]:
    """Which golds a segment holds (see the module docstring); ``langs``: (source, target)."""
    omission = major = False
    for category, severity, _side, _span in segment.errors:
        if category.startswith("Accuracy") and "Omission" in category:
            omission = True
            major = major or severity in ("major", "critical")
    errors, source, target = segment.errors, segment.source, segment.target
    digit_changed = (
        number_gold.as_written(errors, source, target)
        if RAW_DIGITS
        else number_gold.changed(errors, source, target, langs)
    )
    return {
        "numbers: Accuracy span with a digit": bool(number_gold.digit_errors(errors)),
        "numbers: digits missing/changed opposite": digit_changed,
        "omission: Accuracy/Omission, any severity": omission,
        "omission: major": major,
    }


def _pair(path: Path) -> tuple[str, str]:
    """(set name, target language) from the file name: mqm_ted_ende.tsv → ("ted en-de", "de")."""
    name = path.name.split(".")[0]
    m = re.search(r"(?:mqm_)(\w+?)_([a-z]{2})([a-z]{2})$", name)
    if m is None:
        raise SystemExit(f"{path}: not an MQM file name (mqm_<set>_<src><tgt>.tsv)")
    return f"{m.group(1)} {m.group(2)}-{m.group(3)}", m.group(3)


def measure(
    path: Path, limit: int | None, show: str | None, examples: int, pooled: dict[str, Counts]
) -> None:
    name, lang = _pair(path)
    langs = (name.split()[-1].split("-")[0], lang)
    segments = [
        segment
        for (_system, doc, _seg), segment in read_segments(path).items()
        if (HALF is None or zlib.crc32(doc.encode()) % 2 == HALF)
        and len(sentences(segment.source)) >= MIN_SENTENCES
    ][:limit]
    artefacts: Counter[str] = Counter()  # --gold issue: its gold segments with no changed number
    real = Counts()
    counts: dict[str, Counts] = {}
    alarms = {"numbers": 0, "omission": 0}
    flawless = 0
    shown = {"flagged": 0, "missed": 0}
    kinds: dict[str, Counts] = {}  # --groups: major omissions by kind
    ratings: list[tuple[str, str, bool, bool]] = []
    start = time.perf_counter()
    for segment in segments:
        flags = {
            f.check: f.detail
            for f in check_block(segment.source, segment.target, target_lang=lang, mode="translate")
        }
        held = golds(segment, langs)
        if RAW_DIGITS and held["numbers: digits missing/changed opposite"]:
            why = number_gold.artefact(segment.errors, segment.source, segment.target, langs)
            if why is not None:
                artefacts[why] += 1
            else:
                real.gold += 1
                real.hit += "numbers" in flags
        flawless += segment.flawless
        if GROUPS:
            _sort(segment, held, set(flags), kinds, ratings)
        for check in alarms:
            if check in flags and segment.flawless:
                alarms[check] += 1
        for gold, yes in held.items():
            check = gold.split(":")[0]
            c = counts.setdefault(gold, Counts())
            c.flagged += check in flags
            c.gold += yes
            c.hit += yes and check in flags
        if show:
            gold_any = any(yes for g, yes in held.items() if g.startswith(show))
            strict = held[
                "numbers: digits missing/changed opposite"
                if show == "numbers"
                else "omission: Accuracy/Omission, any severity"
            ]
            kind = (
                "flagged" if show in flags and not gold_any
                else "missed" if strict and show not in flags
                else None
            )  # fmt: skip
            if kind and shown[kind] < examples:
                shown[kind] += 1
                errs = [e for e in segment.errors if e[0].startswith("Accuracy")]
                print(f"--- {kind} [{name}] {flags.get(show, '')}")
                print(f"  S: {segment.source}\n  T: {segment.target}\n  E: {errs}")
    took = time.perf_counter() - start
    print(f"\n{name}: {len(segments)} translations, {flawless} flawless ({took:.1f} s)")
    print(f"  {'gold':44} {'precision':>16}  {'recall':>16}  false alarms")
    for gold, c in counts.items():
        total = pooled.setdefault(gold, Counts())
        total.flagged, total.gold, total.hit = (
            total.flagged + c.flagged,
            total.gold + c.gold,
            total.hit + c.hit,
        )
        alarm = pooled.setdefault(f"{gold}: alarms", Counts())
        alarm.flagged += alarms[gold.split(":")[0]]
        alarm.gold += flawless
        check = gold.split(":")[0]
        fa = alarms[check]
        rate = f"{fa / flawless:.1%} ({fa}/{flawless})" if flawless else "-"
        print(f"  {gold:44} {c.row()}  {rate}")
    if RAW_DIGITS:
        _print_artefacts(artefacts, real, pooled)
    if GROUPS:
        _print_groups(kinds, ratings)


def _sort(
    segment: Segment,
    held: dict[str, bool],
    checks: set[str],
    kinds: dict[str, Counts],
    ratings: list[tuple[str, str, bool, bool]],
) -> None:
    """--groups: count a segment's major omission under its kind (flagged: by the numbers
    check and not the omission check: a figure left out), and keep its rating."""
    major = held["omission: major"]
    ratings.append(
        (segment.source, segment.target, held["omission: Accuracy/Omission, any severity"], major)
    )
    if not major:
        return
    spans = [
        span
        for category, severity, _side, span in segment.errors
        if "Omission" in category and severity in ("major", "critical")
    ]
    c = kinds.setdefault(omission_groups.segment_group(spans, segment.source), Counts())
    c.gold += 1
    c.hit += "omission" in checks
    c.flagged += "omission" not in checks and "numbers" in checks


def _print_groups(kinds: dict[str, Counts], ratings: list[tuple[str, str, bool, bool]]) -> None:
    total = sum(c.gold for c in kinds.values())
    print(f"  major omissions by kind ({total}): flagged by the omission check (by numbers alone)")
    for kind in omission_groups.GROUPS:
        c = kinds.get(kind, Counts())
        print(f"    {kind:40} {c.gold:5}  flagged {c.hit} ({c.flagged})")
    answers, n, marked = omission_groups.agreement(ratings)
    share = f"{marked / n:.0%}" if n else "-"
    print(
        f"  answers given word for word more than once, a major omission marked in one: {answers};"
        f" their {n} ratings mark an omission in {marked} ({share})"
    )


def _print_artefacts(artefacts: Counter[str], real: Counts, pooled: dict[str, Counts]) -> None:
    """The issue's digits-changed gold less its segments where no number changed, by reason
    (benchmarks/number_gold.py), and the recall on what is left."""
    gold = real.gold + sum(artefacts.values())
    why = ", ".join(f"{n} {reason}" for reason, n in sorted(artefacts.items())) or "none"
    recall = f"{real.hit / real.gold:.1%} ({real.hit}/{real.gold})" if real.gold else "-"
    print(f"  issue gold {gold}, no number changed in {sum(artefacts.values())} ({why})")
    print(f"  {'numbers: recall on its changed numbers':44} {'':16}  {recall:>16}")
    for reason, n in artefacts.items():
        total = pooled.setdefault(f"artefact: {reason}", Counts())
        total.gold += n
    total = pooled.setdefault("artefact: none (changed numbers)", Counts())
    total.gold += real.gold
    total.hit += real.hit


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("paths", nargs="+", help="MQM .tsv (or .tsv.tar.gz) files or folders")
    parser.add_argument("--limit", type=int, default=None, help="the first N segments of each")
    parser.add_argument("--show", choices=("numbers", "omission"), default=None)
    parser.add_argument("--examples", type=int, default=20)
    parser.add_argument(
        "--gold",
        choices=("figures", "issue"),
        default="figures",
        help="issue: the digits-changed gold as issue 41 measured it (digit runs as written)",
    )
    parser.add_argument(
        "--half",
        choices=("even", "odd"),
        default=None,
        help="only the documents whose name's CRC-32 is even (odd): a rule set on one half "
        "is measured on the other",
    )
    parser.add_argument(
        "--min-sentences",
        type=int,
        default=0,
        help="only the segments whose source has this many sentences or more (2: paragraphs, "
        "not headlines)",
    )
    parser.add_argument(
        "--groups",
        action="store_true",
        help="the major omissions by kind, and how often raters agree on one",
    )
    args = parser.parse_args()
    global RAW_DIGITS, HALF, MIN_SENTENCES, GROUPS
    GROUPS = args.groups
    MIN_SENTENCES = args.min_sentences
    RAW_DIGITS = args.gold == "issue"
    HALF = None if args.half is None else ("even", "odd").index(args.half)
    files = _files(args.paths)
    if not files:
        raise SystemExit("no MQM .tsv files under " + ", ".join(args.paths))
    check_block("Warm up: 1 file.", "Aufwärmen: 1 Datei.", target_lang="de", mode="translate")
    pooled: dict[str, Counts] = {}
    for path in files:
        measure(path, args.limit, args.show, args.examples, pooled)
    if len(files) > 1:
        print(f"\nall {len(files)} sets together:")
        for gold, c in pooled.items():
            if not gold.endswith(": alarms") and not gold.startswith("artefact: "):
                alarm = pooled[f"{gold}: alarms"]
                rate = f"{alarm.flagged / alarm.gold:.1%}" if alarm.gold else "-"
                print(f"  {gold:44} {c.row()}  {rate} ({alarm.flagged}/{alarm.gold})")
        if RAW_DIGITS:
            print("  the issue's digits-changed gold, its segments where no number changed:")
            for gold, c in pooled.items():
                if gold.startswith("artefact: "):
                    recall = f"  recall {c.hit / c.gold:.1%} ({c.hit}/{c.gold})" if c.hit else ""
                    print(f"    {gold[len('artefact: ') :]:40} {c.gold:5}{recall}")


if __name__ == "__main__":
    main()
