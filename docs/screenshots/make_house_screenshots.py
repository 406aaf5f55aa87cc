"""Screenshots of the House Style and Glossary panels, on the sample translated into French,
in a folder with a house style and a glossary.

    QT_QPA_PLATFORM=offscreen .venv/bin/python docs/screenshots/make_house_screenshots.py

The same stand-in provider as make_screenshots.py (no network, no key). Writes style-panel.png
and glossary-panel.png next to this file.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from make_screenshots import engine_factory, wait  # noqa: E402  (FASTDESK_HOME first)
from PySide6.QtWidgets import QApplication  # noqa: E402

STYLE = """# House style of the fastdesk docs

## All languages
Audience: people who write documentation, not programmers.
Short sentences. Keep product names (Groq, Cerebras) as they are.

## fr
Vouvoyez le lecteur. « Fournisseur », jamais « provider ».
Espace insécable avant : ; ? !

## de
Siezen Sie den Leser.

## Simplify
Reading level: B1
"""
GLOSSARY = """# agreed in the docs team, 2026
[keep]
terms = ["fastdesk", "Markdown"]

[translate.fr]
"translation memory" = "mémoire de traduction"
"provider" = "fournisseur"
"pull request" = "demande de fusion"
"""


def main() -> int:
    app = QApplication(sys.argv[:1])
    from fastdesk.config.paths import resource
    from fastdesk.ui.app import apply_theme, make_app
    from fastdesk.ui.window.main_window import MainWindow

    make_app()
    apply_theme(app, "light")
    folder = Path(tempfile.mkdtemp(prefix="fastdesk-house-")) / "docs"
    folder.mkdir()
    (folder / ".fastdesk-style.md").write_text(STYLE, encoding="utf-8")
    (folder / ".fastdesk-glossary.toml").write_text(GLOSSARY, encoding="utf-8")
    page = folder / "welcome.md"
    page.write_text(resource("sample.md").read_text(encoding="utf-8"), encoding="utf-8")
    window = MainWindow(engine_factory=engine_factory)
    window.resize(1280, 800)
    window.show()
    window.open_file(page)
    for _ in range(100):
        wait(50)
        view = window.document_view
        if not view.pending and view.scheduler.idle and not window.status.activity.isVisible():
            break
    house = window.house
    house.show_style()
    editor = house.style_dock.editor
    found = editor.document().find("Vouvoyez le lecteur")
    found.insertText("Tutoyez le lecteur")  # an edit, as typed
    editor.setTextCursor(found)
    wait(200)
    shoot(house.style_dock, "style-panel.png")
    house.show_glossary()
    source = window.document_view.source
    source.setTextCursor(source.document().find("provider"))
    house.add_to_glossary()
    house.glossary_dock.target.setText("fournisseur d'IA")
    wait(200)
    shoot(house.glossary_dock, "glossary-panel.png")
    window.document_view.source.document().setModified(False)
    window.close()
    app.processEvents()
    return 0


def shoot(dock, name: str) -> None:  # type: ignore[no-untyped-def]
    dock.setFloating(True)
    dock.resize(560, 620)
    wait(200)
    dock.grab().save(str(HERE / name))
    print(f"wrote {HERE / name}")
    dock.setFloating(False)


if __name__ == "__main__":
    sys.exit(main())
