"""Screenshot of a free-tier backlog: docs/screenshots/queued-mark.png.

    xvfb-run -a -s "-screen 0 1366x768x24" .venv/bin/python \
        docs/screenshots/make_queued_screenshot.py

A long document (the sample, then a hundred more paragraphs) translated into French through
the real Groq SDK against the loopback emulator (tests/emulator.py) with Groq's free tier for
openai/gpt-oss-120b (30 requests/min, 1,000/day, 8,000 tokens/min, stated in its headers): the
first minute's budget translates the top of the document; the target is then scrolled to where
the translation stops, where the blocks whose requests wait for the next minute show "queued,
about N s" at the right of their first line, counting down.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))

import make_screenshots as shots  # noqa: E402  (sets FASTDESK_HOME to a temporary folder)
from PySide6.QtWidgets import QApplication  # noqa: E402

from fastdesk.config.paths import resource  # noqa: E402
from tests.emulator import Account, Emulator, last_user_content  # noqa: E402

FREE = Account(requests_per_minute=30, requests_per_day=1000, tokens_per_minute=8000)
MODEL = "openai/gpt-oss-120b"
LINE = (
    "Paragraph {n} explains one point of the argument in a sentence or two, with enough words "
    "to look like prose that a translator would meet in an ordinary article."
)
FRENCH = (
    r"Le paragraphe \1 explique un point de l'argument en une phrase ou deux, avec assez de "
    "mots pour ressembler à la prose qu'un traducteur rencontre dans un article ordinaire."
)


def answer(messages: object) -> str:
    text = shots.answer(last_user_content(messages))  # type: ignore[arg-type]
    return re.sub(r"Paragraph (\d+) explains[^\n]*", FRENCH, text)


def main() -> int:
    app = QApplication(sys.argv[:1])
    from fastdesk.providers.groq import GroqProvider
    from fastdesk.routing.limiter import Limiter
    from fastdesk.routing.router import Router
    from fastdesk.translate.engine import Engine
    from fastdesk.ui.app import apply_theme, make_app
    from fastdesk.ui.window.main_window import MainWindow

    make_app()
    apply_theme(app, "light")
    with Emulator(account=FREE, answer=answer, tokens_per_second=600.0) as emu:

        def engine_factory() -> object:
            groq = GroqProvider(
                "gsk_screenshot_0000", base_url=emu.groq_base_url, default_model=MODEL
            )
            router = Router({"groq": groq}, limiter=Limiter(), patient=True, explore_share=0.0)
            return Engine(router, None)

        window = MainWindow(engine_factory=engine_factory, offer_recovery=False)
        window.resize(1366, 740)
        window.move(0, 0)
        window.show()
        window.set_language("fr")
        sample = resource("sample.md").read_text(encoding="utf-8")
        more = "".join(f"{LINE.format(n=n)}\n\n" for n in range(1, 101))
        view = window.document_view
        view.source.setPlainText(f"{sample}\n## Further reading\n\n{more}")
        backlog = view.session.backlog
        for _ in range(1200):  # until requests wait for the next minute (≤ 60 s)
            shots.wait(50)
            if backlog.marks():
                break
        else:
            raise SystemExit("nothing was queued: is the emulator's free tier on?")
        for _ in range(100):
            shots.wait(50)
            if view.scheduler.idle:
                break
        order = [seg.key for seg in view.preview.shown]
        queued = min(backlog.marks(), key=lambda key: order.index(key) if key in order else 1 << 30)
        window.review_commands.go_to_block(order[max(0, order.index(queued) - 3)])
        shots.wait(2500)  # two seconds of countdown, and the panes settled
        out = HERE / "queued-mark.png"
        window.grab().save(str(out))
        print(f"wrote {out}; marks: {sorted(set(backlog.marks().values()))}")
        view.source.document().setModified(False)
        window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
