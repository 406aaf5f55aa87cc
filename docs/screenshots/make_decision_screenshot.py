"""Screenshot of deciding on a changed source (light theme): docs/screenshots/source-changed.png.

    xvfb-run -a -s "-screen 0 1280x800x24" .venv/bin/python \
        docs/screenshots/make_decision_screenshot.py

The sample translated into French by make_screenshots.py's stand-in provider (no network, no
key); a paragraph corrected in the target, then its source reworded: the dialog shows the word
diff of the two sources, the kept correction and the new machine translation.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import make_screenshots as shots  # noqa: E402  (sets FASTDESK_HOME first)
from make_review_screenshot import replace_in_target  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

OLD = "Answers you have already seen come from the *translation memory*: they cost nothing and"
NEW = "Answers you have seen before come from the *translation memory*: they cost nothing and"
shots.FRENCH["Answers you have seen before"] = (
    "Les réponses que vous avez déjà vues viennent de la *mémoire de traduction*\u00a0: elles "
    "ne coûtent rien et apparaissent aussitôt. Rouvrez le même document la semaine "
    "prochaine\u00a0: il est déjà traduit."
)


def main() -> int:
    app = QApplication(sys.argv[:1])
    from fastdesk.ui.app import apply_theme, make_app

    make_app()
    apply_theme(app, "light")
    window = shots.translated_window()
    view = window.document_view
    view.show_raw(True)
    shots.wait(200)
    replace_in_target(window, "viennent de la", "sont tirées de la")  # the editor's correction
    source = view.source.toPlainText()
    reworded = source.replace(OLD, NEW).replace("appear instantly", "appear at once")
    view.source.setPlainText(reworded.replace("tomorrow and", "next week and"))
    for _ in range(100):
        shots.wait(50)
        stale = view.review.stale_blocks()
        if stale and view.review.info(stale[0]).machine and view.scheduler.idle:
            break
    dialog = window.review_commands.decide(stale[0])
    assert dialog is not None
    dialog.resize(860, 440)
    shots.wait(300)
    out = HERE / "source-changed.png"
    dialog.grab().save(str(out))
    print(f"wrote {out}")
    dialog.reject()
    view.source.document().setModified(False)
    window.close()
    app.processEvents()
    return 0


if __name__ == "__main__":
    sys.exit(main())
