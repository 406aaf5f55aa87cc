"""Screenshots of the window for a keyboard, a screen reader and a small screen (issue 40): every
panel open at 1,024×700 (light and dark), the focus frame after F6, Replace All passing over code,
the reading level for Simplify, Translate Project's progress and the guide's movement keys.

    xvfb-run -a -s "-screen 0 1366x768x24" .venv/bin/python \
        docs/screenshots/make_access_screenshots.py

The same stand-in provider as make_screenshots.py (no network, no key), on a small MkDocs
project made in a temporary folder from the sample document. Writes the PNGs next to this file.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from make_screenshots import engine_factory, wait  # noqa: E402  (FASTDESK_HOME first)
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QApplication, QWidget  # noqa: E402

SAMPLE = HERE.parents[1] / "resources" / "sample.md"
PAGES = {
    "getting-started.md": "# Getting started\n\nInstall the extension, then run it.\n",
    "reference/extension-api.md": (
        "# Extension API\n\nThe `markdown.preprocessors.Preprocessor` class runs first: see "
        "[preprocessors](#preprocessors).\n\n## Preprocessors\n\nEach preprocessor gets the "
        "lines.\n"
    ),
}


def site() -> Path:
    root = Path(tempfile.mkdtemp(prefix="fastdesk-shots-site-"))
    (root / "mkdocs.yml").write_text(
        "site_name: demo\nplugins:\n  - i18n:\n      languages:\n        - locale: en\n"
        "          default: true\n        - locale: fr\n",
        encoding="utf-8",
    )
    docs = root / "docs"
    (docs / "reference").mkdir(parents=True)
    shutil.copy(SAMPLE, docs / "index.md")
    for name, text in PAGES.items():
        (docs / name).write_text(text, encoding="utf-8")
    return root


def window(theme: str, size: tuple[int, int] = (1024, 700)):  # type: ignore[no-untyped-def]
    from fastdesk.ui.app import apply_theme
    from fastdesk.ui.window.main_window import MainWindow

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    apply_theme(app, theme)
    w = MainWindow(engine_factory=engine_factory)
    w.files._ask_save = lambda: "discard"  # type: ignore[method-assign]
    w.resize(*size)
    w.show()
    w.open_project(site())
    for _ in range(100):
        wait(50)
        view = w.document_view
        if not view.pending and view.scheduler.idle and not w.status.activity.isVisible():
            break
    return w


def everything(w) -> None:  # type: ignore[no-untyped-def]
    w.show_project()
    w.workbench.show_outline()
    w.house.show_style()
    w.house.show_glossary()
    w.workbench.show_problems()
    w.workbench.replace()
    wait(300)


def save(widget: QWidget, name: str) -> None:
    """The widget's pixels, as a 256-colour PNG when ImageMagick is there (a tenth the size)."""
    out = HERE / name
    widget.grab().save(str(out))
    if shutil.which("convert"):
        subprocess.run(["convert", str(out), "-colors", "256", f"PNG8:{out}"], check=True)
    print(f"wrote {out} ({out.stat().st_size // 1024} KB)")


def panels(theme: str) -> None:
    w = window(theme)
    everything(w)
    w.activateWindow()  # (no window manager under Xvfb: the focus needs an active window)
    w.document_view.source.setFocus()
    wait(200)
    for _ in range(2):
        w.actions_.next_pane.trigger()  # F6: the translation, then the first panel, framed
        wait(100)
    wait(300)
    save(w, f"all-panels-1024-{theme}.png")
    w.close()


def replace_in_code() -> None:
    w = window("light", (1024, 700))
    w.project.choose(Path("docs/reference/extension-api.md"), "fr")
    wait(800)
    w.document_view.source.setFocus()
    w.workbench.replace()
    bar = w.workbench.find_bar
    bar.find_edit.setText("preprocessors")
    bar.replace_edit.setText("pre-steps")
    wait(200)
    save(bar, "replace-skips-code.png")
    bar.code.setChecked(True)
    dialog = bar.preview_all()
    if dialog is not None:
        wait(300)
        save(dialog, "replace-preview-code.png")
        dialog.reject()
    w.close()


def reading_level() -> None:
    w = window("light", (1024, 700))
    w.set_mode("simplify")
    w.house.show_style()
    wait(300)
    save(w.house.style_dock, "reading-level.png")
    w.close()


def project_run() -> None:
    w = window("light", (1024, 700))
    if w.project.project is not None and w.project_run.start(w.project.project):
        for _ in range(60):
            wait(50)
            progress = w.project_run.progress
            if progress is not None and "pages done" in progress.labelText():
                break
        if w.project_run.progress is not None:
            save(w.project_run.progress, "project-run.png")
        w.project_run.stop()
    w.close()


def guide() -> None:
    w = window("light", (1024, 700))
    w.workbench.show_guide()
    wait(300)
    if w.workbench.guide is not None:
        w.workbench.guide.resize(560, 420)
        w.workbench.guide.browser.scrollToAnchor("moving")
        wait(200)
        save(w.workbench.guide, "guide-movement-keys.png")
    w.close()


def main() -> int:
    app = QApplication(sys.argv[:1])
    from fastdesk.ui.app import make_app

    make_app()
    app.setAttribute(Qt.ApplicationAttribute.AA_DontShowIconsInMenus, False)
    panels("light")
    panels("dark")
    replace_in_code()
    reading_level()
    project_run()
    guide()
    app.processEvents()
    return 0


if __name__ == "__main__":
    sys.exit(main())
