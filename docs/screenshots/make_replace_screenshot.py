"""The Replace All preview at 1,024×700: each change in its line, ticked, one skipped.

    xvfb-run -a -s "-screen 0 1280x800x24" .venv/bin/python \
        docs/screenshots/make_replace_screenshot.py

Uses make_screenshots' stand-in provider (no network, no key). Writes replace-preview.png.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import make_screenshots as shots  # noqa: E402
from PySide6.QtGui import QGuiApplication  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402


def main() -> int:
    app = QApplication(sys.argv[:1])
    from fastdesk.ui.app import apply_theme, make_app

    make_app()
    apply_theme(app, "light")
    window = shots.translated_window()
    view = window.document_view
    view.show_raw(True)
    shots.wait(300)
    view.target_editor.setFocus()
    window.workbench.replace()
    bar = window.workbench.find_bar
    bar.find_edit.setText("traduction")
    bar.replace_edit.setText("version")
    bar.preserve.setChecked(True)
    dialog = bar.preview_all()
    assert dialog is not None
    dialog.tick(1, False)
    dialog.move(window.geometry().center() - dialog.rect().center())
    shots.wait(500)
    # the window with the dialog over it, as the editor sees it (the screen: Xvfb)
    shot = QGuiApplication.primaryScreen().grabWindow(0).copy(
        window.geometry().x(), window.geometry().y(), window.width(), window.height()
    )
    out = HERE / "replace-preview.png"
    shot.save(str(out))
    print(f"wrote {out}")
    dialog.reject()
    view.source.document().setModified(False)
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
