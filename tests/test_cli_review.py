"""`fastdesk translate --review / --min-score` and `fastdesk status`'s page scores, end to end
against the loopback emulator playing both the translating model and a scripted reviewer."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from fastdesk.cli.main import run
from fastdesk.config.logs import reset_logging
from fastdesk.translate.mqm import mqm_score
from tests.data.meaning_corpus import CORPUS
from tests.emulator import Emulator, last_user_content, review_pair, scripted_reviewer
from tests.project_kit import answer_in_language, make_project, use_emulator

FR = {src: answers["fr"] for src, answers in CORPUS}
FIRST, SECOND = CORPUS[0][0], CORPUS[6][0]
DOC = f"# Guide\n\n{FIRST}\n\n{SECOND}\n"
SPAN = "au lendemain"  # not in these paragraphs: a span outside the text, dropped
MINOR = {"span": "corbeille", "category": "terminology", "severity": "minor",
         "explanation": "the product calls it the bin"}  # fmt: skip


def french(messages: Sequence[Mapping[str, Any]]) -> str:
    text = last_user_content(messages)
    for src, fr in FR.items():
        text = text.replace(src, fr)
    return text


def one_minor(source: str, _target: str) -> str:
    """The reviewer: a minor error in the first paragraph (and one outside the text), none
    elsewhere."""
    if source == FIRST:
        return json.dumps({"errors": [MINOR, {**MINOR, "span": SPAN}]})
    return json.dumps({"errors": []})


@pytest.fixture
def emu(monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    from fastdesk.config.settings import Settings, save_settings

    with Emulator() as e:
        use_emulator(monkeypatch, e)
        save_settings(Settings(target_language="fr"))
        yield e
    reset_logging()


def translate(tmp_path: Path, *args: str) -> tuple[int, dict[str, Any]]:
    src = tmp_path / "guide.md"
    src.write_text(DOC, encoding="utf-8")
    report = tmp_path / "report.json"
    code = run(
        ["translate", str(src), "-o", str(tmp_path / "out.md"), "--report", str(report), *args]
    )
    return code, json.loads(report.read_text(encoding="utf-8"))


def test_review_puts_scores_and_errors_in_the_report(emu: Emulator, tmp_path: Path) -> None:
    emu.configure(answer=scripted_reviewer(one_minor, french))
    code, report = translate(tmp_path, "--review")
    assert code == 0
    (doc,) = report["documents"]
    words = len(FIRST.split()) + len(SECOND.split()) + 1  # the heading's one word, too
    assert doc["score"] == mqm_score(1, words) and doc["reviewed_blocks"] == 3
    target = FR[FIRST]
    assert doc["review_errors"] == [
        {"block": 1, "line": 3, "start": target.index("corbeille"), **MINOR}
    ]
    # reviews are counted apart from translations
    assert {r["provider"] for r in report["review_requests"]} == {"groq"}
    assert report["totals"]["review_requests"] == len(report["review_requests"]) == 3
    assert report["totals"]["requests"] == len(report["requests"]) >= 1
    sent = [review_pair(r.body["messages"]) for r in emu.chat_requests]
    assert sum(p is not None for p in sent) == 3
    assert (tmp_path / "out.md").read_text(encoding="utf-8").count("corbeille") == 1


def test_min_score_gates_a_pipeline(
    emu: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    emu.configure(answer=scripted_reviewer(one_minor, french))
    code, report = translate(tmp_path, "--min-score", "99")
    score = report["documents"][0]["score"]
    assert code == 1 and score < 99
    assert f"review score {score:g} is below --min-score 99" in capsys.readouterr().err
    assert (tmp_path / "out.md").exists()  # written: the gate is the exit status
    code, _ = translate(tmp_path, "--min-score", "90")  # from the memory: same score
    assert code == 0


def test_min_score_without_a_usable_review_fails(
    emu: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    emu.configure(answer=scripted_reviewer("I cannot review this.", french))
    code, report = translate(tmp_path, "--min-score", "50")
    assert code == 1 and report["documents"][0]["score"] is None
    assert "no review could score it" in capsys.readouterr().err


def test_without_review_the_report_is_as_before(emu: Emulator, tmp_path: Path) -> None:
    emu.configure(answer=scripted_reviewer(one_minor, french))
    code, report = translate(tmp_path)
    assert code == 0 and "score" not in report["documents"][0]
    assert "review_requests" not in report
    assert all(review_pair(r.body["messages"]) is None for r in emu.chat_requests)


@pytest.mark.parametrize("value", ["-1", "101"])
def test_min_score_out_of_range_is_bad_usage(emu: Emulator, tmp_path: Path, value: str) -> None:
    code = run(["translate", str(tmp_path / "x.md"), "--min-score", value])
    assert code == 2 and emu.chat_requests == []


def test_status_shows_each_pages_score(
    emu: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def reviewer(_source: str, target: str) -> str:
        error = {"span": "Étape 0", "category": "style", "severity": "major", "explanation": "x"}
        return json.dumps({"errors": [error] if "Étape 0 of Home" in target else []})

    emu.configure(answer=scripted_reviewer(reviewer, answer_in_language))
    root = make_project(tmp_path / "site", "mkdocs-suffix")
    assert run(["translate", str(root), "--to", "fr", "--review"]) == 0
    capsys.readouterr()
    assert run(["status", str(root), "--json"]) == 0
    files = {f["source"]: f for f in json.loads(capsys.readouterr().out)["files"]}
    home_words = 1 + 3 * 9  # "# Home", three times "Step 0 of Home: do the thing number 0."
    assert files["docs/index.md"]["score"] == mqm_score(5, home_words)
    assert files["docs/sub/guide.md"]["score"] == 100.0
    assert run(["status", str(root)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any("docs/index.md" in line and f"score {mqm_score(5, home_words):g}" in line
               for line in lines)  # fmt: skip
    # a folder's --min-score reads the same scores
    assert run(["translate", str(root), "--to", "fr", "--min-score", "99"]) == 1
    assert "docs/index.fr.md: review score" in capsys.readouterr().err
