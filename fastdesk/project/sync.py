"""One source file in one language: what its record says, what is stale, and the target to write.

The record is the source's review sidecar (machine answers and the editor's texts, per block),
what fastdesk last wrote to the target (``record.WrittenRecord``) and the target file on disk.
A target edited by hand is compared block by block with what was written: the blocks that
differ become the editor's corrections, so they are never overwritten. A target fastdesk never
wrote (a translation that existed before) is paired with the source block by block.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from fastdesk.config.fileio import DocumentError, FileError, atomic_write_text, read_document
from fastdesk.document.blocks import Document, parse
from fastdesk.document.dialects import apply_dialect
from fastdesk.document.target import TargetView
from fastdesk.project.anchors import AnchorTable, PageAnchors, anchor_model
from fastdesk.project.fragments import hugo_fragments
from fastdesk.project.layout import Project
from fastdesk.project.links import rebase_links
from fastdesk.project.record import WrittenRecord
from fastdesk.review.model import Review, diff_target_edit, load_review, review_path, save_review
from fastdesk.translate.style import StyleError, find_style_file, load_style

__all__ = [
    "OUTSIDE",
    "Pair",
    "copy_text",
    "link_anchors",
    "open_pair",
    "relinked",
    "write_target",
]

# Why a pair whose target or review file is a symlink out of the project is left alone.
OUTSIDE = "leads outside the project through a symlink; neither read nor written"


@dataclass
class Pair:
    """A source file and its target in one language, brought up to date with the disk."""

    project: Project
    source: PurePosixPath
    lang: str
    target: PurePosixPath
    doc: Document
    review: Review
    target_exists: bool
    hand_edits: int = 0
    # (block id, text) of each block taken in from the target on disk, as review.edit got it
    taken: list[tuple[str, str]] = field(default_factory=list)
    conflict: str | None = None  # why the target must not be written over
    warnings: list[str] = field(default_factory=list)
    _saved: object = None  # the review as its sidecar holds it (saved again only when changed)
    # False when the sidecar leads outside the project (a symlink): it is never written
    sidecar_inside: bool = True
    # changed blocks with no translation now: (former source, former translation)
    previous: dict[str, tuple[str, str]] = field(default_factory=dict)
    style: str = ""  # the version of the house style for this language now
    # machine translations made under another house style than today's: stale, asked again
    restyled: frozenset[str] = frozenset()
    # the anchors translated headings, tabs and terms move, in every page of this language
    # (link_anchors): the links written into the target follow them
    anchors: AnchorTable = field(default_factory=dict)

    # ---- what is stale --------------------------------------------------------------------

    def needed(self) -> list[str]:
        """Blocks to translate: no translation at all, or a source-changed edit with no machine
        answer for the new source (kept aside for the editor's choice)."""
        out = []
        again = set(self.not_translated())
        for block in self.doc.blocks:
            if not block.translatable or not block.split()[1].strip():
                continue
            state = self.review.state_of(block.id)
            if (
                self.review.shown_text(block.id) is None
                or (state == "stale_edit" and self.review.info(block.id).machine is None)
                or block.id in again
                or block.id in self.restyled
            ):
                out.append(block.id)
        return out

    def not_translated(self) -> list[str]:
        """Blocks whose answer was not a translation (the source echoed, another language):
        the source stands in their place, nobody corrected it, and the next run asks again."""
        return [
            b.id
            for b in self.doc.blocks
            if b.translatable
            and self.review.shown_text(b.id) is not None
            and any(f.check == "not_translated" for f in self.review.flags_of(b.id))
            and self.review.info(b.id).text is None
        ]

    def missing(self) -> list[int]:
        """Lines of the translatable blocks that have no translation to write."""
        return [
            b.line
            for b in self.doc.blocks
            if b.translatable and b.split()[1].strip() and self.review.shown_text(b.id) is None
        ]

    def status(self) -> dict[str, object]:
        summary = self.review.summary()
        stale = set(self.needed()) | set(self.review.stale_blocks())
        state = "missing" if not self.target_exists else "stale" if stale else "up_to_date"
        if self.conflict:
            state = "conflict"
        return {
            "source": self.source.as_posix(),
            "lang": self.lang,
            "target": self.target.as_posix(),
            "state": state,
            "blocks": summary.blocks,
            "stale": len(stale),
            "flagged": summary.flagged,
            "edited": summary.edited,
            "approved": summary.approved,
            "approved_percent": round(100 * summary.approved / summary.blocks)
            if summary.blocks
            else 100,
            "hand_edits": self.hand_edits,
            **({"conflict": self.conflict} if self.conflict else {}),
        }

    # ---- writing --------------------------------------------------------------------------

    def view(self, dest: PurePosixPath | None = None) -> TargetView:
        """The target as it would be written: links rebased for the target's folder (or for a
        file at ``dest``, relative to the root: a copy elsewhere), their fragments following the
        anchors the translations move (``anchors``: link_anchors)."""
        return _shown(self, self.doc, dest)

    def write(self, record: WrittenRecord) -> bool:
        """Write the target (when it changed) and the sidecar (when the review changed);
        True when the target file was written."""
        if self.conflict:
            raise RuntimeError(f"{self.target}: {self.conflict}")
        self.save_review()
        view = self.view()
        path = self.project.root / self.target
        current = _read(path)[0]
        record.put(self.target.as_posix(), view, self.style)
        if current == view.text:
            return False
        atomic_write_text(path, view.text)
        self.target_exists = True
        return True

    def save_review(self) -> None:
        if not self.sidecar_inside:
            return
        if self.review.to_dict() != self._saved or not _sidecar_exists(self):
            save_review(self.review)
            self._saved = self.review.to_dict()

    # ---- links ----------------------------------------------------------------------------

    def _to_target(self, text: str, dest: PurePosixPath | None = None) -> str:
        where = self.target if dest is None else dest
        return relinked(self.project, self.source, self.lang, text, where, self.anchors)

    def _to_source(self, text: str) -> str:
        """A block edited by hand, links as the source has them (an anchor a translated heading
        moved stays as the editor wrote it: it is the target's)."""
        if self.project.dialect == "hugo":
            return text
        back = {t: s for s, t in self._pages().items()}
        mdx = self.project.dialect == "docusaurus"
        return rebase_links(text, self.target, self.source, back.get, modules=mdx)

    def _pages(self) -> dict[PurePosixPath, PurePosixPath]:
        return self.project.pages(self.lang)


def relinked(
    project: Project,
    source: PurePosixPath,
    lang: str,
    text: str,
    dest: PurePosixPath,
    anchors: AnchorTable | None = None,
) -> str:
    """``text`` (``source``'s translation into ``lang``, links as the source has them) with its
    relative links rebased for a file at ``dest`` (relative to the root, maybe ``../``-led):
    links to other pages point at their targets in ``lang``. Hugo resolves a link by the
    page's path in its own language (a page bundle's files are shared by its translations):
    its links stay as they are. In MDX, ``require('./img/a.png')`` and ``import … from
    './a.js'`` are rebased like images. ``anchors``: the anchors translated headings, tabs and
    terms move (link_anchors); a link's ``#fragment`` naming one follows it, in the generator's
    link syntax (Hugo's: fastdesk.project.fragments)."""
    if project.dialect == "hugo":
        text = language_url(text)
        return hugo_fragments(text, project, source, anchors) if anchors else text
    mdx = project.dialect == "docusaurus"

    def fragment(page: PurePosixPath, frag: str) -> str:
        return (anchors or {}).get(page.as_posix(), {}).get(frag, frag)

    return rebase_links(
        text,
        source,
        dest,
        project.pages(lang).get,
        modules=mdx,
        fragment=fragment if anchors else None,
    )


def link_anchors(pairs: Sequence[Pair]) -> None:
    """Give each pair the anchors that the translations of its language's pages move
    (fastdesk.project.anchors: MkDocs headings without ``attr_list`` and content tabs named by
    their titles, Hugo's definition terms), from each page's source and review, so that the
    links written into every target follow them. A page's are computed when a link first names
    it (a window's Save reads the few pages its page links to, not the project); a page not
    among ``pairs`` is read with its review. Nothing where no anchor moves (Docusaurus, and
    Hugo's headings, keep the source's as an explicit id)."""
    if not pairs:
        return
    project = pairs[0].project
    model = anchor_model(project)
    if model is None:
        return
    by_lang: dict[str, dict[PurePosixPath, Pair]] = {}
    for pair in pairs:
        by_lang.setdefault(pair.lang, {})[pair.source] = pair
    for lang, known in by_lang.items():
        table = _Anchors(project, lang, known, model)
        for each in known.values():
            each.anchors = table


class _Anchors(Mapping[str, Mapping[str, str]]):
    """One language's anchor table (AnchorTable), each page's computed when first asked."""

    def __init__(
        self,
        project: Project,
        lang: str,
        known: dict[PurePosixPath, Pair],
        model: PageAnchors,
    ) -> None:
        self._project, self._lang, self._known, self._model = project, lang, known, model
        self._pages = {s.as_posix(): s for s in project.sources()}
        self._done: dict[str, Mapping[str, str]] = {}
        self._record: WrittenRecord | None = None

    def __getitem__(self, key: str) -> Mapping[str, str]:
        if key not in self._done:
            self._done[key] = self._moved(self._pages[key])
        return self._done[key]

    def _moved(self, source: PurePosixPath) -> Mapping[str, str]:
        page = self._known.get(source)
        if page is None:
            self._record = self._record or WrittenRecord(self._project.root)
            try:
                page = open_pair(self._project, source, self._lang, self._record)
            except (FileError, OSError, ValueError):
                return {}
        return self._model(page.doc, page.review.shown_text)

    def __contains__(self, key: object) -> bool:  # a page of the project, not computed
        return key in self._pages

    def __iter__(self) -> Iterator[str]:
        return iter(self._pages)

    def __len__(self) -> int:
        return len(self._pages)


# a Hugo page's own URL in its front matter, from the site's root: url: /about/, url = '/about/'
_ROOT_URL = re.compile(
    r"\A(?P<fence>---|\+\+\+)[ \t]*\r?\n(?:.*\n)*?"
    r"(?P<key>url(?:[ \t]*:|[ \t]*=)[ \t]*['\"]?)/(?![/\s'\"])",
    re.MULTILINE,
)


def language_url(text: str) -> str:
    """A translation's front matter ``url`` made relative to its language: in a multilingual
    Hugo site a ``url`` with a leading slash is the same address in every language (the French
    page would be written over the English one, or not at all), one without it is under the
    language's prefix (gohugo.io/content-management/urls/#leading-slashes). Only that slash
    goes; every other byte is kept."""
    m = _ROOT_URL.match(text)
    if m is None or _fence_end(text, m["fence"]) < m.end("key"):
        return text
    if _TABLE.search(text, 0, m.start("key")):
        return text  # a TOML table's url ([cascade]'s, for the pages below): not the page's
    return text[: m.end("key")] + text[m.end("key") + 1 :]


_TABLE = re.compile(r"^[ \t]*\[", re.MULTILINE)


def _fence_end(text: str, fence: str) -> int:
    """Where a front matter opened by ``fence`` closes (0: it does not)."""
    close = re.compile(rf"^{re.escape(fence)}[ \t]*$", re.MULTILINE)
    found = close.search(text, len(fence))
    return found.start() if found else 0


def _read(path: Path) -> tuple[str | None, str | None]:
    """The file's text, or None and why not (None, None: there is no such file)."""
    if not path.exists():
        return None, None
    try:
        return read_document(path), None
    except DocumentError as exc:
        return None, exc.reason


def _sidecar_exists(pair: Pair) -> bool:
    return review_path(pair.project.root / pair.source).is_file()


def open_pair(project: Project, source: PurePosixPath, lang: str, record: WrittenRecord) -> Pair:
    """Read the source, its review and its target; take in what was changed on the target by
    hand; realign onto the source as it is now. Raises DocumentError for an unreadable source."""
    path = project.root / source
    if not project.inside(source):
        raise DocumentError(path, "leads outside the project (a symlink); not read")
    doc = apply_dialect(parse(read_document(path)), project.dialect)
    target = project.target(source, lang)
    sidecar = review_path(path)
    sidecar_inside = project.inside(sidecar.relative_to(project.root).as_posix())
    target_inside = project.inside(target)
    if sidecar_inside:
        review, warnings = load_review(path, lang)  # aligned to the source it was saved with
    else:
        review, warnings = Review(path, lang), []
    disk, why = _read(project.root / target) if target_inside else (None, None)
    unreadable = f"the target cannot be read ({why}); fastdesk will not write over it"
    exists = disk is not None or why is not None
    pair = Pair(project, source, lang, target, doc, review, exists, conflict=why and unreadable)
    pair.warnings, pair._saved, pair.sidecar_inside = warnings, review.to_dict(), sidecar_inside
    if not (target_inside and sidecar_inside):
        pair.conflict = OUTSIDE
        review.realign(doc)
        return pair
    before = review.doc
    old = {b.id: t for b in before.blocks if (t := review.shown_text(b.id))} if before else {}
    _bring_up_to_date(pair, disk, record)
    if before is not None:
        pair.previous = _previous(before, old, pair)
    pair.style = style_version(project, lang)
    written = record.get(target.as_posix())
    if written is not None and written.style is not None and written.style != pair.style:
        pair.restyled = frozenset(
            b.id
            for b in doc.blocks
            if b.translatable
            and review.shown_text(b.id) is not None
            and review.info(b.id).text is None  # an editor's text is theirs, style or not
        )
    return pair


def style_version(project: Project, lang: str) -> str:
    """The version of the project's house style (``.fastdesk-style.md`` at its root, as a
    run reads it) for translating into ``lang``; "" without one, or one that cannot be read
    (the run goes without it too)."""
    path = find_style_file(project.root, project.root)
    if path is None:
        return ""
    try:
        return load_style(path).version("translate", lang)
    except StyleError:
        return ""


def _bring_up_to_date(pair: Pair, disk: str | None, record: WrittenRecord) -> None:
    """Take the target's hand edits in and realign the review onto the source as it is now."""
    review, doc, target = pair.review, pair.doc, pair.target
    if disk is None:
        review.realign(doc)
        return
    written = record.get(target.as_posix())
    shown = _shown(pair, review.doc) if review.doc is not None else None
    if shown is not None and shown.text == disk:
        review.realign(doc)
    elif written is not None and written.view.text == disk:
        review.realign(doc)  # the review moved on since (an import): the file is as written
    elif written is not None:
        _take_in(pair, written.view, disk)
    elif shown is not None:  # no record (the window exported it): what the review shows
        _take_in(pair, shown, disk)
    else:
        review.realign(doc)
        _pair_blocks(pair, disk)


def _previous(before: Document, old: dict[str, str], pair: Pair) -> dict[str, tuple[str, str]]:
    """Block id → (its former source, its former translation) for the blocks whose source
    changed and that have no translation now: a fuzzy suggestion for a translator (XLIFF, PO).
    Changed blocks are paired by position within each changed stretch of the same length."""
    new_ids = [b.id for b in pair.doc.blocks]
    old_ids = [b.id for b in before.blocks]
    out: dict[str, tuple[str, str]] = {}
    matcher = difflib.SequenceMatcher(None, old_ids, new_ids, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "replace" or i2 - i1 != j2 - j1:
            continue
        for k in range(i2 - i1):
            was, now = before.blocks[i1 + k], pair.doc.blocks[j1 + k]
            if was.id in old and now.translatable and pair.review.shown_text(now.id) is None:
                out[now.id] = (was.text, old[was.id])
    return out


def _shown(pair: Pair, doc: Document, dest: PurePosixPath | None = None) -> TargetView:
    """What the review shows for ``doc``, links rebased (for the target, or a file at
    ``dest``): the target it would write."""
    review = pair.review
    texts, spans, pos = [], [], 0
    for block in doc.blocks:
        text = review.shown_text(block.id)
        texts.append(pair._to_target(block.text if text is None else text, dest))
        spans.append((block.id, pos, pos + len(texts[-1])))
        pos += len(texts[-1])
    return TargetView("".join(texts), tuple(spans), frozenset())


def _take_in(pair: Pair, written: TargetView, disk: str) -> None:
    """Blocks of the written target that differ on disk become the editor's corrections."""
    review = pair.review
    changes = _changed_blocks(written, disk)
    later = []
    for bid, text in changes:
        if review.doc is not None and bid in {b.id for b in review.doc.blocks}:
            _hand_edit(pair, bid, text)
        else:
            later.append((bid, text))
    review.realign(pair.doc)
    for bid, text in later:
        if bid in {b.id for b in pair.doc.blocks}:
            _hand_edit(pair, bid, text)
        else:
            pair.conflict = (
                "edited by hand where the source changed too; fastdesk will not write over it "
                "(take the edit into the source's review, or revert it)"
            )


def _hand_edit(pair: Pair, block_id: str, target_text: str) -> None:
    """A block of the target as a person left it: the editor's correction (links as the
    source has them)."""
    text = pair._to_source(target_text)
    pair.review.edit(block_id, text)
    pair.hand_edits += 1
    pair.taken.append((block_id, text))


def _pair_blocks(pair: Pair, disk: str) -> None:
    """A target fastdesk did not write: its blocks are the translator's, paired with the
    source's by their sequence of kinds."""
    src, tgt = pair.doc.blocks, parse(disk).blocks
    matcher = difflib.SequenceMatcher(
        None, [b.kind for b in src], [b.kind for b in tgt], autojunk=False
    )
    for tag, i1, i2, j1, _j2 in matcher.get_opcodes():
        if tag != "equal":
            continue
        for k in range(i2 - i1):
            block, theirs = src[i1 + k], tgt[j1 + k]
            if block.translatable and pair.review.shown_text(block.id) is None:
                _hand_edit(pair, block.id, theirs.text)


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def _changed_blocks(written: TargetView, disk: str) -> list[tuple[str, str]]:
    """(block id, its text on disk) for the written blocks that differ there, by a line diff:
    separate edits stay with their own blocks; lines replaced one for one stay with theirs;
    other new lines go to the block they replace (or, inserted, the block above)."""
    owners: list[int] = []  # the block of each written line (a block is whole lines)
    for k, (_bid, start, end) in enumerate(written.spans):
        owners += [k] * len(_LINE.findall(written.text, start, end))
    old_lines = _LINE.findall(written.text)
    if len(owners) != len(old_lines):  # a block that does not end a line: by text ends
        old = {bid: written.text[s:e] for bid, s, e in written.spans}
        return [(b, t) for b, t in diff_target_edit(written, disk) if t != old[b]]
    new_lines = _LINE.findall(disk)
    texts: list[list[str]] = [[] for _ in written.spans]
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal" or (i2 - i1 == j2 - j1):
            for k in range(j2 - j1):
                texts[owners[i1 + k]].append(new_lines[j1 + k])
        elif j2 > j1:
            owner = owners[i1] if i1 < i2 else owners[i1 - 1] if i1 > 0 else 0
            texts[owner].extend(new_lines[j1:j2])
    return [
        (bid, "".join(texts[k]))
        for k, (bid, start, end) in enumerate(written.spans)
        if "".join(texts[k]) != written.text[start:end]
    ]


def write_target(project: Project, source: PurePosixPath, lang: str) -> Pair:
    """Write ``source``'s target in ``lang`` from its review as `fastdesk translate DIR` writes
    it (links rebased, the record kept), with no request: the window's Save in a project. Not
    written when blocks have no translation (``pair.missing()``) or over a ``pair.conflict``."""
    record = WrittenRecord(project.root)
    pair = open_pair(project, source, lang, record)
    if pair.conflict or pair.missing():
        pair.save_review()  # hand edits taken in are kept even so
        return pair
    link_anchors([pair])
    pair.write(record)
    record.save()
    return pair


def copy_text(
    project: Project, source: PurePosixPath, lang: str, review: Review, dest: PurePosixPath
) -> str:
    """``source``'s translation into ``lang`` as ``review`` has it (the window's, unsaved
    edits included) for a file at ``dest`` (relative to the root, maybe ``../``-led), written
    as the target is (Pair.view: `fastdesk translate DIR`, `fastdesk export`): links rebased for
    ``dest``'s folder, their fragments following the anchors that translated headings, tabs
    and Hugo terms move. The window's Export Translation to another path than the target."""
    doc = review.doc if review.doc is not None else parse("")  # a review never shown
    target = project.target(source, lang)
    pair = Pair(project, source, lang, target, doc, review, target_exists=False)
    pair.sidecar_inside = False  # a copy: the review is the window's to save, not this
    link_anchors([pair])
    return pair.view(dest).text
