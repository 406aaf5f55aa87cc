"""`fastdesk translate DIR --batch [--wait]`: a project through Groq's Batch API, against the
loopback emulator's files and batches (tests/batch_emulator.py) through the real groq SDK."""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from fastdesk.cli import batch as batch_cli
from fastdesk.cli.main import run
from fastdesk.project.batch_jobs import JOBS_PATH
from fastdesk.project.layout import Project, find_project
from fastdesk.providers.base import estimate_tokens
from fastdesk.providers.batch_api import parse_results, split_lines
from fastdesk.routing.pricing import PriceTable
from tests.emulator import Emulator, last_user_content
from tests.project_kit import answer_in_language, make_project, page, use_emulator, write

ROOT = Path(__file__).resolve().parents[1]
LANGS = ("fr", "de")
WORDS = {"fr": "Étape", "de": "Schritt"}


@pytest.fixture
def emu(monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    with Emulator(answer=answer_in_language) as e:
        use_emulator(monkeypatch, e)
        monkeypatch.setattr(batch_cli, "POLL_FIRST_S", 0.0)  # --wait polls at once
        yield e


def batch(root: Path, *extra: str) -> int:
    return run(["translate", str(root), "--to", ",".join(LANGS), "--batch", *extra])


def jobs(root: Path) -> list[dict[str, Any]]:
    path = root / JOBS_PATH
    return json.loads(path.read_text())["jobs"] if path.exists() else []


def targets(root: Path) -> dict[tuple[str, str], str]:
    project = find_project(root, LANGS)
    return {
        (s.as_posix(), lang): (root / project.target(s, lang)).read_text(encoding="utf-8")
        for s in project.sources()
        for lang in LANGS
        if (root / project.target(s, lang)).exists()
    }


def assert_whole(root: Path) -> None:
    """Every source has both targets, each in its language, code kept."""
    found = targets(root)
    assert len(found) == 2 * len(find_project(root, LANGS).sources())
    for (_source, lang), text in found.items():
        assert f"{WORDS[lang]} 0 of" in text and "Step 0" not in text
        assert "Step --not-translated" in text


def test_one_job_then_progress_then_targets_at_the_batch_price(
    tmp_path: Path, emu: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path / "site", "mkdocs-suffix")
    assert batch(root) == 0
    said = capsys.readouterr().err
    assert emu.batches.uploads == 1 and emu.batches.created == 1
    assert not emu.chat_requests  # nothing live
    assert not targets(root)  # nothing written yet
    (job,) = jobs(root)
    assert job["id"] in said and "at the batch price" in said
    lines = emu.batches.lines
    assert len(lines) == len(job["requests"]) == 4  # one request a page and language
    body = lines[0]["body"]
    assert body["model"] == "openai/gpt-oss-20b" and body["max_completion_tokens"] > 0

    capsys.readouterr()
    assert run(["status", str(root), "--to", "fr,de", "--json"]) == 0
    (listed,) = json.loads(capsys.readouterr().out)["batch_jobs"]
    assert listed["id"] == job["id"] and listed["status"] == "in_progress"
    assert run(["status", str(root), "--to", "fr,de"]) == 0
    assert f"batch job {job['id']}" in capsys.readouterr().out

    assert batch(root) == 0  # the job is done now: its answers are taken in
    report = tmp_path / "report.json"
    assert batch(root, "--report", str(report)) == 0  # nothing left to do
    assert_whole(root)
    assert not emu.chat_requests and emu.batches.uploads == 1
    assert not jobs(root)  # used up: forgotten


def test_report_totals_carry_the_batch_cost(tmp_path: Path, emu: Emulator) -> None:
    root = make_project(tmp_path / "site", "mkdocs-suffix")
    assert batch(root) == 0
    report = tmp_path / "report.json"
    assert batch(root, "--wait", "--report", str(report)) == 0
    data = json.loads(report.read_text())
    totals = data["totals"]
    assert totals["batch_requests"] == 4 and totals["live_requests"] == 0
    prices = PriceTable()
    live = sum(
        prices.cost("groq", r["model"], r["prompt_tokens"], r["completion_tokens"]) or 0
        for r in data["requests"]
    )
    assert totals["batch_cost_usd"] == pytest.approx(live / 2)
    assert totals["cost_usd"] == pytest.approx(live / 2)
    assert all(r["batch"] for r in data["requests"])


def test_a_killed_wait_resumes_without_a_second_upload(tmp_path: Path, emu: Emulator) -> None:
    root = make_project(tmp_path / "site", "mkdocs-suffix")
    emu.batches.hold = True  # the job stays in progress while the first run waits
    command = [sys.executable, "-m", "fastdesk", "translate", str(root), "--to", "fr,de"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen(
        [*command, "--batch", "--wait"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        assert emu.wait_for(lambda: emu.batches.created == 1, timeout=60)
        assert emu.wait_for(lambda: bool(jobs(root)) and bool(jobs(root)[0]["id"]), timeout=30)
    finally:
        os.killpg(child.pid, signal.SIGKILL)  # a crash, a reboot
        child.wait(timeout=30)
        assert child.stderr is not None
        child.stderr.close()
    assert not targets(root)
    emu.batches.hold = False
    assert batch(root, "--wait") == 0
    assert emu.batches.uploads == 1 and emu.batches.created == 1  # not paid twice
    assert not emu.chat_requests
    assert_whole(root)


def test_a_lost_answer_to_creating_the_job_makes_no_second_job(
    tmp_path: Path, emu: Emulator
) -> None:
    root = make_project(tmp_path / "site", "mkdocs-suffix")
    emu.batches.lose_create = 1  # the job is made; its id never reaches us
    assert batch(root) == 0
    assert emu.batches.created == 1
    (job,) = jobs(root)
    assert job["id"] in emu.batches.jobs  # found by its input file
    assert batch(root, "--wait") == 0
    assert emu.batches.created == 1 and emu.batches.uploads == 1
    assert_whole(root)


def test_an_expired_job_delivers_part_and_a_next_job_asks_the_rest(
    tmp_path: Path, emu: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path / "site", "mkdocs-suffix")
    emu.batches.configure(expire_after=3)  # 3 of the 4 requests answered, then expired
    assert batch(root) == 0
    emu.batches.configure(expire_after=None)
    assert batch(root, "--wait") == 0
    said = capsys.readouterr().err
    assert "the batch jobs left 1 of 4 requests unanswered: they go in a next job" in said
    assert emu.batches.created == 2 and len(emu.batches.lines) == 5  # the 4, then the 1
    assert not emu.chat_requests
    assert jobs(root) == []
    assert_whole(root)


def test_what_an_expired_job_left_goes_live_when_it_is_little(
    tmp_path: Path, emu: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "site"
    write(root / "mkdocs.yml", "site_name: t\n")
    for n in range(6):
        write(root / f"docs/page{n}.md", page(f"Page {n}"))
    emu.batches.configure(expire_after=11)  # 11 of the 12 requests answered, then expired
    assert batch(root, "--wait") == 0
    assert emu.batches.created == 1
    assert len(emu.chat_requests) == 1  # the one it did not answer, live (1 in 12: < 10 %)
    assert "11 requests answered by batch jobs, 1 sent live" in capsys.readouterr().err
    assert jobs(root) == []
    assert_whole(root)


def _breaks_links(messages: Sequence[Mapping[str, Any]]) -> str:
    """An answer that loses a link's target (a check flags it) unless told its previous
    answer was rejected (the engine's retry, with a firmer instruction)."""
    text = answer_in_language(messages)
    # a retry's reproach comes after the shared instructions, in the second system message
    if any("previous answer was rejected" in str(m.get("content")) for m in messages[:-1]):
        return text
    return text.replace("https://example.com/a", "https://example.org/b")


def test_a_flagged_answer_is_retried_live(tmp_path: Path, emu: Emulator) -> None:
    root = tmp_path / "site"
    write(root / "mkdocs.yml", "site_name: t\n")
    write(
        root / "docs/index.md", page("Home") + "\nStep: see [the guide](https://example.com/a).\n"
    )
    emu.configure(answer=_breaks_links)
    assert batch(root, "--wait") == 0
    retries = [
        r for r in emu.chat_requests if "example.com" in last_user_content(r.body["messages"])
    ]
    assert retries  # live, for the flagged block only
    assert len(emu.chat_requests) <= 2  # one per language at most
    for lang in LANGS:
        text = (root / f"docs/index.{lang}.md").read_text(encoding="utf-8")
        assert "(https://example.com/a)" in text and "example.org" not in text


def test_a_target_edited_by_hand_while_the_job_runs_is_not_overwritten(
    tmp_path: Path, emu: Emulator
) -> None:
    root = make_project(tmp_path / "site", "mkdocs-suffix")
    assert run(["translate", str(root), "--to", "fr,de"]) == 0  # translated live once
    project: Project = find_project(root, LANGS)
    source = root / project.sources()[0]
    source.write_text(
        source.read_text(encoding="utf-8").replace("thing number 1.", "other thing, 1."),
        encoding="utf-8",
    )
    live = len(emu.chat_requests)
    assert batch(root) == 0  # the changed paragraph, in both languages, in a job
    assert len(emu.batches.lines) == 2
    fr = root / project.target(project.sources()[0], "fr")
    edited = fr.read_text(encoding="utf-8").replace("Étape 2 of", "Étape deux de", 1)
    fr.write_text(edited, encoding="utf-8")  # a answer_in_language's fix, meanwhile
    assert batch(root, "--wait") == 0
    text = fr.read_text(encoding="utf-8")
    assert "Étape deux de" in text  # kept
    assert "other thing, 1." in text  # and the job's answer written beside it
    assert len(emu.chat_requests) == live  # nothing more live


def test_a_provider_without_a_batch_api_says_so_and_runs_live(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with Emulator(answer=answer_in_language) as e:
        monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
        monkeypatch.delenv("GROQ_API_KEY", raising=False)
        monkeypatch.setenv("CEREBRAS_API_KEY", "csk_test")
        monkeypatch.setenv("CEREBRAS_BASE_URL", e.cerebras_base_url)
        root = make_project(tmp_path / "site", "mkdocs-suffix")
        assert batch(root) == 0
        said = [line for line in capsys.readouterr().err.splitlines() if "Batch API" in line]
        assert len(said) == 1 and said[0].startswith("fastdesk translate: cerebras has no")
        assert e.batches.uploads == 0 and len(e.chat_requests) >= 4
        assert_whole(root)


def test_batch_and_wait_take_a_folder(tmp_path: Path) -> None:
    doc = write(tmp_path / "a.md", "# A\n")
    assert run(["translate", str(doc), "--batch"]) == 2


def test_requests_go_in_as_few_jobs_as_the_limits_allow() -> None:
    lines = [json.dumps({"custom_id": f"r{i}", "pad": "x" * 50}) for i in range(7)]
    assert [len(c) for c in split_lines(lines, max_lines=3)] == [3, 3, 1]
    size = len(lines[0]) + 1
    assert [len(c) for c in split_lines(lines, max_bytes=2 * size)] == [2, 2, 2, 1]
    assert split_lines(lines) == [lines]
    with pytest.raises(ValueError):
        split_lines(lines, max_bytes=10)


def test_answers_are_read_in_any_order_and_bad_lines_skipped() -> None:
    ok = {
        "custom_id": "b",
        "response": {
            "status_code": 200,
            "body": {
                "choices": [{"message": {"content": "Bonjour"}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 5, "completion_tokens": 2},
            },
        },
    }
    failed = {"custom_id": "a", "response": None, "error": {"message": "expired"}}
    found = parse_results([json.dumps(ok), "not json", json.dumps(failed), "[1]", ""])
    assert found["b"].text == "Bonjour" and found["b"].completion_tokens == 2
    assert found["a"].text is None and found["a"].error == "expired"
    assert set(found) == {"a", "b"}


def test_a_second_machine_takes_the_job_in_without_paying_again(
    tmp_path: Path, emu: Emulator
) -> None:
    root = make_project(tmp_path / "site", "mkdocs-suffix")
    assert batch(root) == 0
    clone = tmp_path / "clone"
    shutil.copytree(root, clone)  # .fastdesk/ and all, as a git clone of the project would
    assert batch(clone, "--wait") == 0
    assert_whole(clone)
    assert emu.batches.uploads == 1 and emu.batches.created == 1 and not emu.chat_requests
    assert batch(root, "--wait") == 0  # the first machine too, from the provider's files
    assert_whole(root)
    assert emu.batches.uploads == 1 and not emu.chat_requests


def test_answers_are_never_read_from_the_project(
    tmp_path: Path, emu: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    """A cloned project's files are input: a job it names that this key's account does not
    know is forgotten, and no answer is ever taken from the project's own files."""
    root = make_project(tmp_path / "site", "mkdocs-suffix")
    planted = {
        "provider": "groq",
        "model": "openai/gpt-oss-20b",
        "submitted": 0.0,
        "requests": {"fd-planted": ""},
        "input_file_id": "file_planted",
        "id": "batch_planted",
        "status": "completed",
        "fetched": True,
        "output_file_id": "file_planted_out",
    }
    write(root / JOBS_PATH, json.dumps({"version": 1, "jobs": [planted]}))
    write(root / ".fastdesk/batches/batch_planted.json", json.dumps({"fd-planted": {"text": "X"}}))
    assert batch(root, "--wait") == 0
    assert "batch job batch_planted: the provider does not know it" in capsys.readouterr().err
    assert emu.batches.created == 1 and not emu.chat_requests  # its own job, then written
    assert_whole(root)
    assert jobs(root) == []


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_wait_shows_one_progress_line_on_a_terminal(
    tmp_path: Path, emu: Emulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_project(tmp_path / "site", "mkdocs-suffix")
    emu.batches.configure(steps=("validating", "in_progress", "in_progress", "completed"))
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert batch(root, "--wait") == 0
    shown = terminal.getvalue()
    progress = [part for part in shown.split("\r") if part.startswith("batch job ")]
    assert len(progress) >= 2  # rewritten in place, poll after poll
    assert "validating" in progress[0] and "in_progress, 2 of 4" in shown
    assert_whole(root)


def test_a_request_is_known_by_its_language_and_blocks_not_its_markers() -> None:
    from fastdesk.project.batch_run import request_id
    from fastdesk.translate.prompts import Markers, pack_text

    blocks = ["Step one.", "Step two."]

    def asked(markers: Markers, lang_word: str) -> list[dict[str, str]]:
        system = {"role": "system", "content": f"Translate into {lang_word}. Example: x"}
        return [system, {"role": "user", "content": pack_text(blocks, markers)}]

    first, second = Markers("a1b2c3"), Markers("d4e5f6")
    one, nonce = request_id("fr", asked(first, "French"))
    assert nonce == "a1b2c3"
    assert request_id("fr", asked(second, "French (other examples)")) == (one, "d4e5f6")
    assert request_id("de", asked(first, "German"))[0] != one
    bare = [{"role": "user", "content": "Step one."}]
    assert request_id("fr", bare)[1] == "" and request_id("fr", bare)[0] != one


def test_an_ended_job_nothing_asks_for_any_more_is_forgotten(
    tmp_path: Path, emu: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path / "site", "mkdocs-suffix")
    assert batch(root) == 0
    assert run(["translate", str(root), "--to", "fr,de"]) == 0  # translated live meanwhile
    (job,) = jobs(root)
    emu.batches.jobs[job["id"]].status = "completed"
    job["status"] = "completed"
    write(root / JOBS_PATH, json.dumps({"version": 1, "jobs": [job]}))
    capsys.readouterr()
    assert batch(root) == 0
    assert "nothing is stale any more; forgotten" in capsys.readouterr().err
    assert jobs(root) == []


def long_page(title: str, paragraphs: int) -> str:
    """A page of ``paragraphs`` paragraphs of about 40 tokens each that say Step (and names,
    in no language: the emulator's answer translates only Step)."""
    body = "".join(
        f"Step {i} of {title}: " + " ".join(f"{title}-{i}-{k}" for k in range(14)) + ".\n\n"
        for i in range(paragraphs)
    )
    return f"# {title}\n\n{body}```sh\nStep --not-translated\n```\n"


def test_a_job_carries_a_backfills_packs_and_every_answer_is_taken_in(
    tmp_path: Path, emu: Emulator
) -> None:
    # 40 paragraphs of ~40 tokens: live packs (16 blocks, 1,200 tokens) would make 3 requests a
    # page, and a backfill on this free tier (8,000 tokens a minute) too; a job runs apart from
    # the per-minute limits, so a page goes in one request of a backfill's size
    root = tmp_path / "site"
    write(root / "mkdocs.yml", "site_name: t\n")
    boxes = '!!! note "Step title"\n\n    Step in a note.\n\n=== "Tab"\n\n    Step in a tab.\n\n'
    for name in ("index", "guide"):
        write(root / f"docs/{name}.md", long_page(name.title(), 40) + "\n" + boxes)
    assert batch(root) == 0
    lines = emu.batches.lines
    assert len(lines) == 2 * len(LANGS)  # one request a page and language, its containers in it
    for line in lines:
        text = last_user_content(line["body"]["messages"])
        # the heading, the paragraphs, the note's title and body, the tab's title and body
        assert text.count("Step") == 43 and text.count("-->\n") == 45
        # and each could still go live alone (what a job leaves unanswered does) in the free
        # tier's minute: its prompt and completion budget within 8,000 tokens
        booked = estimate_tokens(*(m["content"] for m in line["body"]["messages"]))
        assert booked + line["body"]["max_completion_tokens"] <= 8000
    report = tmp_path / "report.json"
    assert batch(root, "--wait", "--report", str(report)) == 0
    totals = json.loads(report.read_text())["totals"]
    assert totals["batch_requests"] == 4 and totals["live_requests"] == 0  # every answer used
    assert not emu.chat_requests
    for lang in LANGS:
        for name in ("index", "guide"):
            text = (root / f"docs/{name}.{lang}.md").read_text(encoding="utf-8")
            assert text.count(f"{WORDS[lang]} ") == 43 and "Step --not-translated" in text
            assert f'!!! note "{WORDS[lang]} title"' in text


NAV_CONFIG = """\
site_name: t
nav:
  - Step in: index.md
  - Step by step: sub/guide.md
plugins:
  - i18n:
      docs_structure: suffix
      languages:
        - locale: en
          default: true
        - locale: fr
        - locale: de
"""


def test_the_collection_translates_the_labels_as_a_live_run_does(
    tmp_path: Path, emu: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    """The nav titles are not pages: no job carries them, the collection sends them live
    (said, with what they cost), as a live run does once its pages are done."""
    root = make_project(tmp_path / "site", "mkdocs-suffix")
    write(root / "mkdocs.yml", NAV_CONFIG)
    assert batch(root) == 0
    assert not emu.chat_requests  # the job submitted, nothing live
    assert "nav_translations" not in (root / "mkdocs.yml").read_text(encoding="utf-8")
    capsys.readouterr()
    assert batch(root, "--wait") == 0  # the job's answers taken in, the labels translated
    said = capsys.readouterr().err
    assert_whole(root)
    config = (root / "mkdocs.yml").read_text(encoding="utf-8")
    assert config.count("nav_translations:") == 2
    assert '"Step in": "Étape in"' in config and '"Step by step": "Schritt by step"' in config
    assert len(emu.chat_requests) == 4  # two titles into two languages, live
    assert "fastdesk translate: mkdocs.yml: 2 nav titles translated into fr's" in said
    assert "4 requests sent live for the labels outside the pages" in said
    assert "$" in said.split("labels outside the pages")[1].splitlines()[0]

    # the entries gone, no page stale: a batch run translates them as a live run does (from
    # the memory: nothing sent)
    write(root / "mkdocs.yml", NAV_CONFIG)
    assert batch(root) == 0
    assert (root / "mkdocs.yml").read_text(encoding="utf-8") == config
    assert len(emu.chat_requests) == 4 and emu.batches.created == 1
