"""A docs project's report says where its pages' translations disagree, translated in this run
or not: a paragraph two pages share, hand-edited on one of them, is a source translated two
ways (`fastdesk translate DIR --report`, the real Groq SDK against the loopback server)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from fastdesk.cli.main import run
from fastdesk.project.layout import find_project
from fastdesk.project.status import translated_units
from tests.emulator import Emulator
from tests.project_kit import answer_in_language, make_project, use_emulator

SHARED = "Step 9: save your work before you close the window.\n"
SHARED_FR = "Étape 9: save your work before you close the window."
EDITED_FR = "Étape 9 : enregistrez votre travail avant de fermer la fenêtre."


@pytest.fixture
def emu(monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    with Emulator(answer=answer_in_language) as e:
        use_emulator(monkeypatch, e)
        yield e


def test_a_hand_edit_on_one_page_makes_the_shared_paragraph_inconsistent(
    tmp_path: Path, emu: Emulator
) -> None:
    root = make_project(tmp_path, "mkdocs-suffix")
    for name in ("docs/index.md", "docs/sub/guide.md"):
        path = root / name
        path.write_text(path.read_text(encoding="utf-8") + "\n" + SHARED, encoding="utf-8")
    assert run(["translate", str(root), "--to", "fr"]) == 0
    units = [u for u in translated_units(find_project(root)) if u.source == SHARED]
    assert sorted(u.document for u in units) == ["docs/index.md", "docs/sub/guide.md"]
    target = root / "docs/index.fr.md"
    target.write_text(
        target.read_text(encoding="utf-8").replace(SHARED_FR, EDITED_FR), encoding="utf-8"
    )
    report = tmp_path / "r.json"
    count = emu.request_count
    assert run(["translate", str(root), "--report", str(report)]) == 0
    assert emu.request_count == count  # nothing to translate: the report reads the pages
    (found,) = json.loads(report.read_text(encoding="utf-8"))["consistency"]
    assert found["kind"] == "several translations" and found["lang"] == "fr"
    where = {t["text"]: [p["document"] for p in t["places"]] for t in found["translations"]}
    assert where == {EDITED_FR: ["docs/index.md"], SHARED_FR: ["docs/sub/guide.md"]}
