"""Relative links and images that keep working from the target's folder.

A target in another folder (docs/fr/…, i18n/fr/…) would break ``![](img/a.png)`` and
``[see](other.md)``. A link to another source page is pointed at that page's target in the same
language; a link to anything else (an image, a download) at the same file, from the target's
folder. Links that already resolve the same way (suffix layouts: the same folder) are untouched,
and so are absolute URLs and anything inside code; a ``#fragment`` only when the anchor it
names moves in the translation (fastdesk.project.anchors).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from pathlib import PurePosixPath

__all__ = ["FragmentMap", "outside_code", "rebase_links"]

# [text](url "title"), ![alt](url), and reference definitions [ref]: url
_INLINE = re.compile(r"(!?\[(?:[^\]\\`]|\\.)*\]\(\s*<?)([^)\s>]+)")
_REFDEF = re.compile(r"^( {0,3}\[[^\]]+\]:\s*<?)(\S+?)(>?(?:\s|$))", re.MULTILINE)
_CODE = re.compile(r"(`+)(?:(?!\1).)*?\1|^(?:```|~~~).*?^(?:```|~~~)", re.DOTALL | re.MULTILINE)
# MDX: require('./img/a.png'), import x from '../a.js', import './a.css'
_MODULE = re.compile(r"""((?:\brequire\(\s*|\bfrom\s+|\bimport\s+)(['"]))(\.\.?/[^'"\s]+)(\2)""")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:|^//|^#|^/")

PageMap = Callable[[PurePosixPath], PurePosixPath | None]
# (the page a link leads to, relative to the root, as the text names it; its #fragment) → the
# fragment to write (fastdesk.project.anchors: a translated heading's or tab's anchor)
FragmentMap = Callable[[PurePosixPath, str], str]


def rebase_links(
    text: str,
    source: PurePosixPath,
    target: PurePosixPath,
    page_target: PageMap,
    *,
    modules: bool = False,
    fragment: FragmentMap | None = None,
) -> str:
    """``text`` (written for ``source``) with its relative URLs rewritten for ``target``.

    ``page_target(path)`` gives the target (in this language) of the source page at ``path``
    (relative to the project root), or None when ``path`` is not a source page. ``modules``:
    MDX's relative ``require()`` and ``import`` paths too (``./`` or ``../``-led).
    ``fragment``: each link's ``#fragment`` (in the page, or into a page of the project)
    rewritten by it."""
    src_dir, tgt_dir = source.parent, target.parent
    if src_dir == tgt_dir and fragment is None:
        return text

    def fix(url: str) -> str:
        path, sep, frag = url.partition("#")
        if not path and sep and fragment is not None:
            return "#" + fragment(source, frag)
        if _SCHEME.match(url) or not path:
            return url
        resolved = PurePosixPath(posixpath.normpath((src_dir / path).as_posix()))
        page = page_target(resolved)
        if frag and fragment is not None and page is not None:
            frag = fragment(resolved, frag)
        if src_dir == tgt_dir:
            return path + sep + frag
        dest = page if page is not None else resolved
        new = posixpath.relpath(dest.as_posix(), tgt_dir.as_posix() or ".")
        return new + sep + frag

    def inline(m: re.Match[str]) -> str:
        return m.group(1) + fix(m.group(2))

    def refdef(m: re.Match[str]) -> str:
        return m.group(1) + fix(m.group(2)) + m.group(3)

    def module(m: re.Match[str]) -> str:
        new = fix(m.group(3))
        return m.group(1) + (new if new.startswith(".") else "./" + new) + m.group(4)

    def rebased(part: str) -> str:
        part = _REFDEF.sub(refdef, _INLINE.sub(inline, part))
        return _MODULE.sub(module, part) if modules else part

    return outside_code(text, rebased)


def outside_code(text: str, change: Callable[[str], str]) -> str:
    """``text`` with ``change`` applied to each part outside code spans and fences (kept as
    they are)."""
    parts, last = [], 0
    for code in _CODE.finditer(text):
        parts.append(change(text[last : code.start()]))
        parts.append(code.group(0))
        last = code.end()
    parts.append(change(text[last:]))
    return "".join(parts)
