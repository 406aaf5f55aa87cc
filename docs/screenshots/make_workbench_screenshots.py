"""Screenshots of the find bar, the outline and the problems list (light theme), on the sample
translated into French.

    xvfb-run -a -s "-screen 0 1280x800x24" .venv/bin/python \
        docs/screenshots/make_workbench_screenshots.py [find-bar] [outline] [problems]

The same stand-in provider as make_screenshots.py (no network, no key); for the problems list it
changes a link target and a code span in its answers, as a small model might. Writes
find-bar.png, outline.png and problems.png (those named, else all three) next to this file.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from make_screenshots import FRENCH, translated_window, wait  # noqa: E402  (FASTDESK_HOME first)
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtGui import QTextCursor  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402


def main() -> int:
    app = QApplication(sys.argv[:1])
    from fastdesk.ui.app import apply_theme, make_app

    make_app()
    apply_theme(app, "light")
    wanted = set(sys.argv[1:]) or {"find-bar", "outline", "problems"}
    if "find-bar" in wanted:
        find_bar()
    if "outline" in wanted:
        outline()
    if "problems" in wanted:
        problems()
    app.processEvents()
    return 0


def find_bar() -> None:
    window = translated_window()
    view, bench = window.document_view, window.workbench
    view.preview.setFocus()
    wait(100)
    bench.find_bar.find_edit.setText("")
    bench.replace()  # Ctrl+H in the translation: its Markdown, with the replace field
    bench.find_bar.find_edit.setText("fournisseur")
    bench.find_bar.replace_edit.setText("service")
    bench.find_next()
    wait(300)
    window.grab().save(str(HERE / "find-bar.png"))
    print(f"wrote {HERE / 'find-bar.png'}")
    view.source.document().setModified(False)
    window.close()


def outline() -> None:
    window = translated_window()
    view, bench = window.document_view, window.workbench
    view.show_raw(False)  # the rendered translation (the find bar switched to its Markdown)
    bench.show_outline()
    wait(100)
    cursor = view.source.textCursor()
    cursor.setPosition(view.source.toPlainText().find("Code, links and formatting"))
    cursor.movePosition(QTextCursor.MoveOperation.Right, QTextCursor.MoveMode.MoveAnchor, 4)
    view.source.setTextCursor(cursor)
    view.source.setFocus()
    wait(300)
    window.grab().save(str(HERE / "outline.png"))
    print(f"wrote {HERE / 'outline.png'}")
    view.source.document().setModified(False)
    window.close()


def problems() -> None:
    """A link target and a code span changed by the model; two blocks approved already."""
    links, code = "Links keep their targets", "Code, links and formatting"
    FRENCH[links] = FRENCH[links].replace("console.groq.com/docs", "console.groq.com/docs/fr")
    FRENCH[code] = FRENCH[code].replace("fastdesk translate", "fastdesk traduire")
    window = translated_window()
    view, bench = window.document_view, window.workbench
    view.show_raw(False)
    for block in view.review.doc.blocks[:3]:
        window.review_commands.approve_block(block.id)
    bench.show_problems()
    window.resizeDocks([bench.problems], [250], Qt.Orientation.Vertical)
    wait(700)  # the list follows within half a second
    row = next(n for n, p in enumerate(bench.problems.rows) if p.check == "links")
    bench.problems.select(row)
    bench.go_to_problem(bench.problems.rows[row])
    wait(300)
    window.grab().save(str(HERE / "problems.png"))
    print(f"wrote {HERE / 'problems.png'}")
    view.source.document().setModified(False)
    window.close()


if __name__ == "__main__":
    sys.exit(main())
