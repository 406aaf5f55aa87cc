"""Screenshots of the find bar and the outline (light theme), on the sample translated into French.

    xvfb-run -a -s "-screen 0 1280x800x24" .venv/bin/python \
        docs/screenshots/make_workbench_screenshots.py

The same stand-in provider as make_screenshots.py (no network, no key). Writes find-bar.png and
outline.png next to this file.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from make_screenshots import translated_window, wait  # noqa: E402  (sets FASTDESK_HOME first)
from PySide6.QtGui import QTextCursor  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402


def main() -> int:
    app = QApplication(sys.argv[:1])
    from fastdesk.ui.app import apply_theme, make_app

    make_app()
    apply_theme(app, "light")

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
    app.processEvents()
    return 0


if __name__ == "__main__":
    sys.exit(main())
