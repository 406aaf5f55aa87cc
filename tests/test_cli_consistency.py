"""`fastdesk translate --report` says where a run's translations disagree: a source translated
two ways across the documents, two sources given one translation, and a glossary term rendered
other than the glossary says on some pages (the real Groq SDK against the loopback server)."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from fastdesk.cli.main import run
from fastdesk.config.logs import reset_logging
from tests.emulator import Emulator, last_user_content

SAVE = "Save your work before you close the window."
SAVE_DE = ("Speichern Sie Ihre Arbeit, bevor Sie das Fenster schließen.",
           "Sichern Sie Ihre Arbeit, bevor Sie das Fenster schließen.")  # fmt: skip
KEEP = "Keep your work before you close the window."
OPEN = "Open the workspace from the start page of the application."
OPEN_DE = "Öffnen Sie den Workspace auf der Startseite der Anwendung."
CLOSE = "Close the workspace when the whole team has finished its work."
CLOSE_DE = "Schließen Sie den Arbeitsbereich, wenn das ganze Team fertig ist."


@pytest.fixture(autouse=True)
def _settings(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    from fastdesk.config.settings import Settings, save_settings

    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    save_settings(Settings(target_language="de"))
    yield
    reset_logging()


@pytest.fixture
def emu(monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    turns = itertools.count()

    def german(messages: Sequence[Mapping[str, Any]]) -> str:
        """A translator that renders SAVE one way, then the other; KEEP as SAVE's first."""
        text = last_user_content(messages)
        if SAVE in text:
            text = text.replace(SAVE, SAVE_DE[next(turns) % 2])
        return text.replace(KEEP, SAVE_DE[0]).replace(OPEN, OPEN_DE).replace(CLOSE, CLOSE_DE)

    with Emulator(answer=german) as e:
        monkeypatch.setenv("GROQ_API_KEY", "gsk_test")
        monkeypatch.setenv("GROQ_BASE_URL", e.groq_base_url)
        yield e


def test_the_report_lists_inconsistencies_and_glossary_drift(
    emu: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / ".fastdesk-glossary.toml").write_text(
        '[translate.de]\nworkspace = "Arbeitsbereich"\n', encoding="utf-8"
    )
    a = tmp_path / "a.md"
    b = tmp_path / "b.md"
    a.write_text(f"{SAVE}\n\n{OPEN}\n", encoding="utf-8")
    b.write_text(f"{SAVE}\n\n{KEEP}\n\n{CLOSE}\n", encoding="utf-8")
    args = ["translate", str(a), str(b), "--to", "de", "--no-memory", "--provider", "groq"]
    run([*args, "--out-dir", str(tmp_path / "out"), "--report", "-"])
    report = json.loads(capsys.readouterr().err)
    several, one = report["consistency"]
    assert several["kind"] == "several translations" and several["source"] == SAVE
    assert sorted(t["text"] for t in several["translations"]) == sorted(SAVE_DE)
    places = [p for t in several["translations"] for p in t["places"]]
    assert sorted((p["document"], p["line"]) for p in places) == [(str(a), 1), (str(b), 1)]
    assert one["kind"] == "one translation" and one["translation"] == SAVE_DE[0]
    assert sorted(s["text"] for s in one["sources"]) == sorted([SAVE, KEEP])
    (drift,) = report["glossary_drift"]
    assert drift["term"] == "workspace" and drift["expected"] == "Arbeitsbereich"
    by_text = {r["text"]: [p["document"] for p in r["places"]] for r in drift["renderings"]}
    assert by_text["Arbeitsbereich"] == [str(b)]
    assert str(a) in next(docs for text, docs in by_text.items() if text != "Arbeitsbereich")
