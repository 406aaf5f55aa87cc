"""Screenshot of a review in progress: docs/screenshots/review.png.

    xvfb-run -a -s "-screen 0 1280x800x24" .venv/bin/python \
        docs/screenshots/make_review_screenshot.py

The sample document, opened from a file and translated into French by make_screenshots.py's
stand-in provider (no network, no key), then reviewed the way an editor would: blocks approved,
a correction typed in the target, a heading whose source changed after it was corrected, a block
that failed a check (the answer changed a link) with its reason on hover, a few blocks from the
translation memory and the last ones still being translated. The screen is grabbed (not the
window) so that the tooltip shows.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))

import make_screenshots as shots  # noqa: E402  (sets FASTDESK_HOME to a temporary folder)
from PySide6.QtCore import QPoint  # noqa: E402
from PySide6.QtGui import QTextCursor  # noqa: E402
from PySide6.QtWidgets import QApplication, QToolTip  # noqa: E402

from fastdesk.config.paths import resource  # noqa: E402
from fastdesk.providers.base import ChatRequest, StreamEnd, TextDelta, Usage  # noqa: E402

MEMORY_FIRST = (
    "Answers you have already seen come from the *translation memory*: they cost nothing and "
    "appear instantly. Open the same document tomorrow and it is translated before you look "
    "at it.\n\n## What stays untouched\n"
)


class ReviewProvider(shots.SampleProvider):
    """The sample's translation, except that one answer changes a link target (a failed
    check) and the end of the document is still on its way when the picture is taken."""

    async def stream(self, request: ChatRequest) -> AsyncIterator[object]:
        text = [m for m in request.messages if m["role"] == "user"][-1]["content"]
        if "Questions or ideas" in text:
            await asyncio.sleep(3600)  # "translating" in the margin
        reply = shots.answer(text).replace("console.groq.com/docs", "console.groq.com/fr/docs")
        await asyncio.sleep(0.21)
        for i in range(0, len(reply), 16):
            yield TextDelta(reply[i : i + 16])
            await asyncio.sleep(0.005)
        yield Usage(prompt_tokens=180 + len(text) // 4, completion_tokens=len(reply) // 4 + 1)
        yield StreamEnd("stop")


def engine_factory() -> object:
    from fastdesk.routing.router import Router
    from fastdesk.translate.engine import Engine
    from fastdesk.translate.memory import Memory

    return Engine(Router({"groq": ReviewProvider()}), Memory())


def settled(window: object, held: int = 0) -> bool:
    w = window
    return (
        len(w.document_view.pending) <= held  # type: ignore[attr-defined]
        and w.document_view.scheduler.idle  # type: ignore[attr-defined]
        and w.document_view.review.doc is not None  # type: ignore[attr-defined]
        and w.document_view.review.doc.source == w.document_view.source.toPlainText()  # type: ignore[attr-defined]
    )


def wait_for(condition: object, limit_ms: int = 8000) -> None:
    for _ in range(limit_ms // 50):
        if condition():  # type: ignore[operator]
            return
        shots.wait(50)
    raise SystemExit("timed out waiting for the window")


def block(window: object, needle: str) -> str:
    return next(b.id for b in window.document_view.review.doc.blocks if needle in b.text)  # type: ignore[attr-defined]


def replace_in_target(window: object, old: str, new: str) -> None:
    """Select ``old`` in the raw target and type ``new`` over it, as a reviewer would."""
    editor = window.document_view.target_editor  # type: ignore[attr-defined]
    start = editor.toPlainText().index(old)
    cursor = editor.textCursor()
    cursor.setPosition(start)
    cursor.setPosition(start + len(old), QTextCursor.MoveMode.KeepAnchor)
    editor.setTextCursor(cursor)
    editor.insertPlainText(new)


def main() -> int:
    app = QApplication(sys.argv[:1])
    from fastdesk.ui.app import apply_theme, make_app
    from fastdesk.ui.window.main_window import MainWindow

    make_app()
    apply_theme(app, "light")
    folder = Path(tempfile.mkdtemp(prefix="fastdesk-review-"))
    guide = folder / "guide.md"
    guide.write_text(resource("sample.md").read_text(encoding="utf-8"), encoding="utf-8")

    # translated once before (an earlier run): the memory will answer these
    earlier = MainWindow(engine_factory=engine_factory, offer_recovery=False)
    earlier.set_language("fr")
    earlier.document_view.source.setPlainText(MEMORY_FIRST)
    wait_for(lambda: settled(earlier))
    earlier.document_view.source.document().setModified(False)
    earlier.close()
    shots.wait(300)

    window = MainWindow(engine_factory=engine_factory)
    window.resize(1280, 800)
    window.move(0, 0)
    window.show()
    window.set_language("fr")
    window.open_file(guide)
    wait_for(lambda: settled(window, held=1))
    shots.wait(200)

    for needle in ("# Welcome", "translates your", "1. You write"):
        window.review_commands.approve_block(block(window, needle))
    window.document_view.show_raw(True)
    replace_in_target(window, "partent vers le fournisseur", "sont envoyés au fournisseur")
    replace_in_target(window, "## Comment ça marche", "## Comment cela fonctionne")
    window.review_commands.approve_block(block(window, "2. After"))
    replace_in_target(window, "sans déplacer ce", "sans faire bouger ce")
    # the author renames the heading after it was corrected: "source changed since your edit"
    source = window.document_view.source
    cursor = source.textCursor()
    cursor.setPosition(source.toPlainText().index("How it works") + len("How "))
    source.setTextCursor(cursor)
    source.insertPlainText("fastdesk ")
    wait_for(lambda: settled(window, held=1) and window.document_view.review.stale_blocks())
    window.document_view.show_raw(False)
    # both panes' cursors in the same block
    window.review_commands.go_to_block(block(window, "2. After"))
    cursor.setPosition(source.toPlainText().index("After a short pause") + 5)
    source.setTextCursor(cursor)
    source.setFocus()
    shots.wait(400)

    margin = window.document_view.margins[1]
    link = block(window, "Links keep their targets")
    window.document_view.preview.verticalScrollBar().setValue(0)
    shots.wait(200)
    extents = {key: (top, bottom) for key, top, bottom in margin.blocks()}
    if link in extents:
        top, bottom = extents[link]
        where = margin.mapToGlobal(QPoint(MARGIN_X, (top + bottom) // 2))
        QToolTip.showText(where, window.document_view.review_ctl.tooltip_of(link), margin)
    shots.wait(500)
    frame = window.frameGeometry()
    shot = app.primaryScreen().grabWindow(0, frame.x(), frame.y(), frame.width(), frame.height())
    out = HERE / "review.png"
    shot.save(str(out))
    print(f"wrote {out}")
    print("review:", window.document_view.review_ctl.summary())
    window.document_view.source.document().setModified(False)
    window.close()
    return 0


MARGIN_X = 5

if __name__ == "__main__":
    sys.exit(main())
