"""Screenshot of the project panel (light theme) on a small MkDocs site in three languages.

    xvfb-run -a -s "-screen 0 1280x800x24" .venv/bin/python \
        docs/screenshots/make_project_screenshot.py

The site is translated into French and German by `fastdesk translate DIR` against the test
emulator (tests/emulator.py: loopback, no key, no network; a phrase book answers), then
given a history: one page approved in French, one paragraph edited since (stale in both), a
German target fixed by hand, Spanish not started. Writes project.png and second-pane.png (German
beside French) next to this file.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
from pathlib import Path, PurePosixPath

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
TMP = Path(tempfile.mkdtemp(prefix="fastdesk-shots-"))
os.environ["FASTDESK_HOME"] = str(TMP / "home")
os.environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"

from PySide6.QtCore import QEventLoop, Qt, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from tests.emulator import Emulator, last_user_content  # noqa: E402
from tests.project_kit import write  # noqa: E402

PAGES = {
    "index.md": ("Welcome", 3),
    "install.md": ("Installing", 4),
    "usage/configuration.md": ("Configuration", 5),
    "usage/command-line.md": ("The command line", 4),
    "usage/projects.md": ("Docs projects", 3),
    "reference/settings.md": ("Settings reference", 6),
    "faq.md": ("Questions", 3),
}


PHRASES = {
    "French": {
        "Step": "Étape",
        "explained in one short paragraph": "expliqué en un court paragraphe",
        "(now simpler)": "(plus simple)",
        "Welcome": "Bienvenue",
        "Installing": "Installation",
        "The command line": "La ligne de commande",
        "Docs projects": "Projets de documentation",
        "Settings reference": "Référence des réglages",
        "Questions": "Questions fréquentes",
        "welcome": "l'accueil",
        "installing": "l'installation",
        "the command line": "la ligne de commande",
        "docs projects": "les projets",
        "settings reference": "les réglages",
        "questions": "les questions",
    },
    "German": {
        "Step": "Schritt",
        "explained in one short paragraph": "in einem kurzen Absatz erklärt",
        "(now simpler)": "(jetzt einfacher)",
        "Welcome": "Willkommen",
        "Installing": "Installation",
        "Configuration": "Konfiguration",
        "The command line": "Die Befehlszeile",
        "Docs projects": "Dokumentationsprojekte",
        "Settings reference": "Einstellungen",
        "Questions": "Häufige Fragen",
        "configuration": "die Konfiguration",
        "welcome": "der Empfang",
        "installing": "die Installation",
        "the command line": "die Befehlszeile",
        "docs projects": "die Projekte",
        "settings reference": "die Einstellungen",
        "questions": "die Fragen",
    },
}


def phrase_book(messages) -> str:  # type: ignore[no-untyped-def]
    """The emulator's answer: the phrases of the page in the system prompt's language."""
    system = str(messages[0].get("content", "")) if messages else ""
    text = last_user_content(messages)
    for language, phrases in PHRASES.items():
        if language in system:
            for english in sorted(phrases, key=len, reverse=True):
                text = text.replace(english, phrases[english])
    return text


def make_site(root: Path) -> None:
    write(
        root / "mkdocs.yml",
        'site_name: Handbook\nexclude_docs: "*.fastdesk.json"\nplugins:\n  - i18n:\n'
        "      languages:\n        - locale: en\n          default: true\n"
        "        - locale: fr\n        - locale: de\n        - locale: es\n",
    )
    for name, (title, n) in PAGES.items():
        body = "".join(
            f"Step {i}: {title.lower()} explained in one short paragraph.\n\n" for i in range(n)
        )
        write(root / "docs" / name, f"# {title}\n\n{body}")


def give_it_a_history(root: Path) -> None:
    from fastdesk.cli.main import run
    from fastdesk.review.model import load_review, save_review

    with contextlib.redirect_stderr(io.StringIO()):
        assert run(["translate", str(root), "--to", "fr,de"]) == 0
    review, _ = load_review(root / "docs/index.md", "fr")
    review.approve_all()
    save_review(review)
    review, _ = load_review(root / "docs/install.md", "fr")
    if review.doc is not None:
        review.approve(next(b.id for b in review.doc.blocks if b.translatable))
        save_review(review)
    config = root / "docs/usage/configuration.md"
    config.write_text(config.read_text().replace("Step 2:", "Step 2 (now simpler):"))
    target = root / "docs/install.de.md"
    target.write_text(target.read_text().replace("Schritt 1:", "Schritt 1 (korrigiert):"))


def wait(ms: int) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def main() -> int:
    app = QApplication(sys.argv[:1])
    from fastdesk.ui.app import apply_theme, make_app

    make_app()
    apply_theme(app, "light")
    with Emulator(answer=phrase_book) as emu:
        os.environ["GROQ_API_KEY"] = "gsk_screenshot"
        os.environ["GROQ_BASE_URL"] = emu.groq_base_url
        root = TMP / "handbook"
        make_site(root)
        give_it_a_history(root)

        from fastdesk.ui.window.main_window import MainWindow

        window = MainWindow(warmup=False, offer_recovery=False)
        window.resize(1280, 800)
        window.show()
        window.open_project(root)
        window.project.choose(PurePosixPath("docs/usage/configuration.md"), "fr")
        for _ in range(100):
            wait(50)
            view = window.document_view
            if not window.project.reading and not view.pending and view.scheduler.idle:
                break
        dock = window.project.dock
        window.resizeDocks([dock], [440], Qt.Orientation.Horizontal)
        wait(300)
        window.grab().save(str(HERE / "project.png"))
        print(f"wrote {HERE / 'project.png'}")
        window.set_second_pane(True)  # View → Second Translation: German beside French
        for _ in range(60):
            wait(50)
            pane = window.document_view.second.pane
            if pane is not None and not pane.model.pending and window.document_view.scheduler.idle:
                break
        wait(300)
        window.grab().save(str(HERE / "second-pane.png"))
        print(f"wrote {HERE / 'second-pane.png'}")
        window.document_view.source.document().setModified(False)
        window.close()
    app.processEvents()
    return 0


if __name__ == "__main__":
    sys.exit(main())
