"""Screenshots of the window, light and dark, on the sample document translated into French.

    xvfb-run -a -s "-screen 0 1280x800x24" .venv/bin/python docs/screenshots/make_screenshots.py

A stand-in provider answers with a hand-written French translation of resources/sample.md (no
network, no key), with a realistic time to first token, so the status bar shows real figures
as the app measured them. Writes window-light.png and window-dark.png next to this file.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
os.environ["FASTDESK_HOME"] = tempfile.mkdtemp(prefix="fastdesk-shots-")

from PySide6.QtCore import QEventLoop, QTimer  # noqa: E402
from PySide6.QtGui import QTextCursor  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from fastdesk.providers.base import ChatRequest, ModelInfo, StreamEnd, TextDelta, Usage  # noqa: E402

FRENCH = {
    "# Welcome to fastdesk": "# Bienvenue dans fastdesk",
    "fastdesk translates your **Markdown** while you type.": (
        "fastdesk traduit votre **Markdown** pendant que vous écrivez. Modifiez ce texte à "
        "gauche et regardez la traduction à droite vous suivre, paragraphe par paragraphe. Seul "
        "ce que vous changez est renvoyé\u00a0: même un long document reste rapide et bon marché."
    ),
    "## How it works": "## Comment ça marche",
    "1. You write": "1. Vous écrivez ou collez du Markdown dans le volet source.",
    "2. After a short pause": (
        "2. Après une courte pause, les paragraphes modifiés partent vers le fournisseur "
        "configuré le plus rapide."
    ),
    "3. The answer streams": (
        "3. La réponse s'affiche à sa place, à droite, sans déplacer ce que vous lisez."
    ),
    "Answers you have already seen": (
        "Les réponses déjà vues viennent de la *mémoire de traduction*\u00a0: elles ne coûtent "
        "rien et apparaissent instantanément. Rouvrez le même document demain\u00a0: il est "
        "traduit avant que vous le regardiez."
    ),
    "## What stays untouched": "## Ce qui reste intact",
    "Code, links and formatting": (
        "Le code, les liens et la mise en forme sont conservés tels quels. Par exemple, cette "
        "commande n'est jamais traduite\u00a0: `fastdesk translate guide.md --to de -o "
        "guide.de.md`, pas plus que le bloc ci-dessous."
    ),
    "Links keep their targets": (
        "Les liens gardent leur cible\u00a0: lisez la [documentation de Groq]"
        "(https://console.groq.com/docs) ou le [guide d'inférence de Cerebras]"
        "(https://inference-docs.cerebras.ai/) pour obtenir une clé d'API."
    ),
    "## Providers at a glance": "## Les fournisseurs en un coup d'œil",
    "| Provider |": (
        "| Fournisseur | Premier jeton typique | Point fort |\n"
        "|----------|--------------------:|----------|\n"
        "| Groq | 200–600 ms | Nombreux modèles ouverts, offre gratuite généreuse |\n"
        "| Cerebras | 150–400 ms | Débit très élevé |\n"
        "| Serveur local | selon votre machine | Privé, sans clé d'API |"
    ),
    "> **Tip:**": (
        "> **Astuce\u00a0:** appuyez sur Ctrl+R pour basculer la traduction entre la vue rendue "
        "et le\n> Markdown brut, et sur Ctrl+Entrée pour traduire tout de suite."
    ),
    "## Checklist for your first document": "## Pour votre premier document",
    "- Add a key": "- Ajoutez une clé avec `fastdesk keys set groq`, ou définissez `GROQ_API_KEY`.",
    "- Choose the target language": (
        "- Choisissez la langue cible dans la barre d'outils (tapez un nom ou un code comme "
        "`pt-BR`)."
    ),
    "- Switch the mode": ("- Passez en mode *Simplifier* pour réécrire un texte en langage clair."),
    "- Export the translation": "- Exportez la traduction avec Ctrl+E quand elle vous convient.",
    "Questions or ideas?": (
        "Des questions ou des idées\u00a0? Écrivez à l'équipe à "
        "[hello@example.com](mailto:hello@example.com)."
    ),
}


def french(core: str) -> str:
    for start, text in FRENCH.items():
        if core.startswith(start):
            return text
    return core


def answer(text: str) -> str:
    """Translate each block of a (possibly packed) request, keeping the marker lines."""
    parts = re.split(r"^(<!--fd-\w+:\d+-->)[ \t]*$", text, flags=re.MULTILINE)
    out = []
    for i, part in enumerate(parts):
        if i % 2:
            out.append(part)
        elif part.strip("\n"):
            out.append("\n" + french(part.strip("\n")) + "\n\n")
    return "".join(out).strip("\n")


class SampleProvider:
    """Answers like a fast provider: ~0.2 s to the first token, then ~800 tokens/s."""

    name = "groq"
    default_model = "openai/gpt-oss-20b"

    async def stream(self, request: ChatRequest) -> AsyncIterator[object]:
        text = [m for m in request.messages if m["role"] == "user"][-1]["content"]
        reply = answer(text)
        await asyncio.sleep(0.21)
        for i in range(0, len(reply), 16):
            yield TextDelta(reply[i : i + 16])
            await asyncio.sleep(0.005)
        yield Usage(prompt_tokens=180 + len(text) // 4, completion_tokens=len(reply) // 4 + 1)
        yield StreamEnd("stop")

    async def list_models(self) -> list[ModelInfo]:
        return [ModelInfo(self.default_model)]

    async def aclose(self) -> None:
        return None


def engine_factory() -> object:
    from fastdesk.routing.router import Router
    from fastdesk.translate.engine import Engine

    return Engine(Router({"groq": SampleProvider()}), None)


def wait(ms: int) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def translated_window():  # type: ignore[no-untyped-def]
    """A 1,024×700 window (a small laptop's) on the sample, once its translation has streamed
    in."""
    from fastdesk.ui.window.main_window import MainWindow

    window = MainWindow(engine_factory=engine_factory)
    window.resize(1024, 700)
    window.show()
    window.files.open_sample()
    for _ in range(100):
        wait(50)
        view = window.document_view
        if not view.pending and view.scheduler.idle and not window.status.activity.isVisible():
            break
    return window


def shoot(theme: str, out: Path) -> None:
    from fastdesk.ui.app import apply_theme

    app = QApplication.instance()
    apply_theme(app, theme)
    window = translated_window()
    # put the cursor in the "How it works" list so the highlight shows on both sides
    cursor = window.document_view.source.textCursor()
    cursor.setPosition(window.document_view.source.toPlainText().find("After a short pause"))
    cursor.movePosition(QTextCursor.MoveOperation.Right, QTextCursor.MoveMode.MoveAnchor, 5)
    window.document_view.source.setTextCursor(cursor)
    window.document_view.source.setFocus()
    wait(300)
    window.grab().save(str(out))
    window.document_view.source.document().setModified(False)
    window.close()
    print(f"wrote {out}")


def main() -> int:
    app = QApplication(sys.argv[:1])
    from fastdesk.ui.app import make_app

    make_app()
    shoot("light", HERE / "window-light.png")
    shoot("dark", HERE / "window-dark.png")
    app.processEvents()
    return 0


if __name__ == "__main__":
    sys.exit(main())
