"""`fastdesk translate` end to end: the real SDKs against the loopback emulator."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from fastdesk.cli.main import run
from fastdesk.config.logs import reset_logging
from tests.emulator import Emulator, PromptCache

DOC = """# Guide

fastdesk translates **Markdown** live. See [the docs](https://example.com/docs).

- Install it with `pip install fastdesk`
- Open a file

```sh
fastdesk guide.md
```
"""

PROVIDER_ENV = {
    "groq": lambda emu: {"GROQ_API_KEY": "gsk_test", "GROQ_BASE_URL": emu.groq_base_url},
    "cerebras": lambda emu: {
        "CEREBRAS_API_KEY": "csk-test",
        "CEREBRAS_BASE_URL": emu.cerebras_base_url,
    },
    "openai": lambda emu: {
        "FASTDESK_OPENAI_BASE_URL": emu.openai_base_url,
        "FASTDESK_OPENAI_MODEL": "local-model",
    },
}


@pytest.fixture(autouse=True)
def _no_keyring(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    from fastdesk.config.settings import Settings, save_settings

    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    # The emulator echoes: an echo of English prose is a translation into English only (into
    # French it is not_translated: tests/test_not_translated.py).
    save_settings(Settings(target_language="en"))
    yield
    reset_logging()


@pytest.fixture
def emu() -> Iterator[Emulator]:
    with Emulator() as e:
        yield e


def use(monkeypatch: pytest.MonkeyPatch, emu: Emulator, provider: str = "groq") -> None:
    for name, value in PROVIDER_ENV[provider](emu).items():
        monkeypatch.setenv(name, value)


def budget(**requests: float) -> None:
    """The user's [requests] settings (retry budget, deadlines) for this test."""
    from dataclasses import replace

    from fastdesk.config.settings import load_settings, save_settings

    save_settings(replace(load_settings()[0], requests=dict(requests)))


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    return path


@pytest.mark.parametrize("provider", ["groq", "cerebras", "openai"])
def test_echo_leaves_document_identical_for_every_provider_kind(
    provider: str, emu: Emulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use(monkeypatch, emu, provider)
    src = write(tmp_path / "guide.md", DOC.replace("\n", "\r\n"))
    out, report = tmp_path / "guide.fr.md", tmp_path / "report.json"
    # an echo is a translation into the source's own language only (else: not_translated)
    args = ["--provider", provider, "--report", str(report), "--to", "en"]
    code = run(["translate", str(src), "-o", str(out), *args])
    assert code == 0
    assert out.read_bytes() == src.read_bytes()
    data = json.loads(report.read_text())
    doc = data["documents"][0]
    assert doc["status"] == "ok" and doc["input"] == str(src) and doc["output"] == str(out)
    assert doc["blocks"] == 5 and doc["translated_blocks"] == 4 and doc["from_memory"] == 0
    req = data["requests"][0]
    assert req["provider"] == provider and req["status"] == "ok" and req["error"] is None
    assert req["prompt_tokens"] > 0 and req["completion_tokens"] > 0 and req["ttfb_ms"] > 0
    totals = data["totals"]
    assert totals["requests"] == len(data["requests"]) and totals["wall_ms"] > 0
    if provider == "openai":
        assert req["cost_usd"] == 0
    sent = emu.chat_requests[0].body
    assert sent["stream"] is True
    assert re.match(r"<!--fd-[0-9a-f]{6}:1-->\n", sent["messages"][-1]["content"])
    assert "fastdesk guide.md" not in json.dumps(sent)  # code is never sent


def test_report_totals_count_the_cached_prompt_tokens(
    emu: Emulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use(monkeypatch, emu)
    emu.configure(prompt_cache=PromptCache())
    files = [write(tmp_path / f"p{i}.md", DOC.replace("Guide", f"Guide {i}")) for i in range(3)]
    report = tmp_path / "r.json"
    out = tmp_path / "out"
    args = ["--to", "en", "--out-dir", str(out), "--report", str(report)]
    code = run(["translate", *map(str, files), *args])
    assert code == 0
    data = json.loads(report.read_text())
    totals, requests = data["totals"], data["requests"]
    assert len(requests) >= 3
    cached = sum(r["cached_tokens"] or 0 for r in requests)
    assert totals["cached_tokens"] == cached > 0  # the shared first message, from the 2nd on
    assert totals["cached_share"] == round(cached / totals["prompt_tokens"], 3)


def test_report_cost_follows_price_table(emu: Emulator, tmp_path: Path, monkeypatch) -> None:
    use(monkeypatch, emu, "groq")
    src = write(tmp_path / "a.md", DOC)
    report = tmp_path / "r.json"
    assert (
        run(
            [
                "translate",
                str(src),
                "-o",
                str(tmp_path / "o.md"),
                "--provider",
                "groq",
                "--model",
                "llama-3.1-8b-instant",
                "--report",
                str(report),
            ]
        )
        == 0
    )
    req = json.loads(report.read_text())["requests"][0]
    expected = (req["prompt_tokens"] * 0.05 + req["completion_tokens"] * 0.08) / 1e6
    assert req["model"] == "llama-3.1-8b-instant"
    assert req["cost_usd"] == pytest.approx(expected)


def test_second_run_makes_no_request_and_an_edit_one_small_request(
    emu: Emulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use(monkeypatch, emu)
    body = "".join(f"## Part {i}\n\nText of paragraph {i}.\n\n" for i in range(50))
    src = write(tmp_path / "long.md", body)
    out = tmp_path / "out.md"
    assert run(["translate", str(src), "-o", str(out)]) == 0
    first = emu.request_count
    assert first >= 1
    assert run(["translate", str(src), "-o", str(out), "--report", str(tmp_path / "r.json")]) == 0
    assert emu.request_count == first
    assert json.loads((tmp_path / "r.json").read_text())["documents"][0]["from_memory"] == 100
    write(src, body.replace("Text of paragraph 30.", "Text of paragraph thirty."))
    assert run(["translate", str(src), "-o", str(out)]) == 0
    assert emu.request_count == first + 1
    assert emu.chat_requests[-1].body["messages"][-1]["content"] == "Text of paragraph thirty."
    assert out.read_text() == src.read_text()


def test_the_checks_load_beside_the_first_requests_and_not_for_a_run_with_none(
    emu: Emulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The language identifier and the hyphenation dictionary load in a thread as the run starts
    (a one-paragraph run waited ~0.7 s for them after its answer); a run the memory answers
    whole sends nothing and loads nothing."""
    import threading

    from fastdesk.cli import translate as cli_translate

    loads: list[tuple[str, str, bool]] = []
    monkeypatch.setattr(
        cli_translate,
        "preload",
        lambda mode, lang: loads.append(
            (mode, lang, threading.current_thread() is threading.main_thread())
        ),
    )
    use(monkeypatch, emu)
    src = write(tmp_path / "doc.md", "A paragraph that utilizes a word.\n")
    out = tmp_path / "out.md"
    assert run(["translate", str(src), "-o", str(out), "--mode", "simplify", "--to", "en"]) == 0
    assert loads == [("simplify", "en", False)]  # once, off the loop's thread
    assert run(["translate", str(src), "-o", str(out), "--mode", "simplify", "--to", "en"]) == 0
    assert emu.request_count == 1 and len(loads) == 1


def test_to_and_mode_reach_the_prompt(emu, tmp_path, monkeypatch) -> None:
    use(monkeypatch, emu)
    src = write(tmp_path / "a.md", "# Guide\n\nShort.\n")  # too short to judge its language
    assert (
        run(["translate", str(src), "-o", str(tmp_path / "o.md"), "--to", "pt-BR", "--no-memory"])
        == 0
    )
    assert "Brazilian Portuguese" in emu.chat_requests[-1].body["messages"][0]["content"]
    assert (
        run(
            [
                "translate",
                str(src),
                "-o",
                str(tmp_path / "o.md"),
                "--mode",
                "simplify",
                "--no-memory",
            ]
        )
        == 0
    )
    assert "plain language" in emu.chat_requests[-1].body["messages"][0]["content"]


def test_several_inputs_into_out_dir_and_report_on_stderr(
    emu, tmp_path, monkeypatch, capsys
) -> None:
    use(monkeypatch, emu)
    a, b = write(tmp_path / "a.md", DOC), write(tmp_path / "b.md", "Hello *world*.\n")
    out_dir = tmp_path / "out"
    assert run(["translate", str(a), str(b), "--out-dir", str(out_dir), "--report", "-"]) == 0
    assert (out_dir / "a.md").read_text() == DOC and (
        out_dir / "b.md"
    ).read_text() == "Hello *world*.\n"
    report = json.loads(capsys.readouterr().err)
    assert [d["input"] for d in report["documents"]] == [str(a), str(b)]


def test_standard_output_is_the_default(emu, tmp_path, monkeypatch, capfdbinary) -> None:
    use(monkeypatch, emu)
    src = write(tmp_path / "a.md", DOC)
    assert run(["translate", str(src)]) == 0
    assert capfdbinary.readouterr().out == DOC.encode()


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary"),
        ("Caf\u00e9 au lait\n".encode("latin-1"), "not UTF-8"),
    ],
)
def test_unreadable_input_exits_2_naming_file_and_writes_nothing(
    content: bytes, reason: str, emu, tmp_path, monkeypatch, capsys
) -> None:
    use(monkeypatch, emu)
    good = write(tmp_path / "good.md", DOC)
    bad = tmp_path / "bad.md"
    bad.write_bytes(content)
    out_dir = tmp_path / "out"
    code = run(["translate", str(good), str(bad), "--out-dir", str(out_dir)])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert len(err.splitlines()) == 1 and str(bad) in err and reason in err
    assert not out_dir.exists() and emu.request_count == 0


@pytest.mark.parametrize("kind", ["missing", "folder"])
def test_missing_file_or_folder_exits_2(kind, tmp_path, capsys) -> None:
    target = tmp_path / "nope.md"
    if kind == "folder":
        target.mkdir()
    assert run(["translate", str(target)]) == 2
    err = capsys.readouterr().err
    assert str(target) in err and ("no such file" in err or "folder" in err)


def test_unreachable_provider_exits_1_and_keeps_existing_output(
    tmp_path, monkeypatch, capsys
) -> None:
    with Emulator() as dead:
        url = dead.groq_base_url
    monkeypatch.setenv("GROQ_API_KEY", "gsk_test")
    monkeypatch.setenv("GROQ_BASE_URL", url)  # nothing listens there any more
    budget(retry_attempts=2)
    src = write(tmp_path / "a.md", DOC)
    out = write(tmp_path / "a.fr.md", "previous translation\n")
    report = tmp_path / "r.json"
    assert run(["translate", str(src), "-o", str(out), "--report", str(report)]) == 1
    assert out.read_text() == "previous translation\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".a.fr.md")] == []
    data = json.loads(report.read_text())
    assert data["documents"][0]["status"] == "failed"
    assert data["requests"] and data["requests"][0]["status"] == "error"
    assert "a.md" in capsys.readouterr().err


def test_rate_limited_everywhere_exits_1_with_retry_hint(
    emu, tmp_path, monkeypatch, capsys
) -> None:
    use(monkeypatch, emu)
    emu.fail_status(429, times=None, retry_after=7)
    # 7 s is more than this request may wait: it fails at once (rate waits counted)
    budget(retry_seconds=2, wait_for_rate=0)
    src = write(tmp_path / "a.md", "One paragraph.\n")
    assert run(["translate", str(src), "-o", str(tmp_path / "o.md")]) == 1
    err = capsys.readouterr().err
    assert "rate limit reached; try again in 7 s" in err and not (tmp_path / "o.md").exists()
    assert len(emu.chat_requests) == 1


def test_unconfigured_provider_is_a_usage_error(tmp_path, capsys) -> None:
    src = write(tmp_path / "a.md", DOC)
    assert run(["translate", str(src), "--provider", "cerebras"]) == 2
    assert "CEREBRAS_API_KEY" in capsys.readouterr().err


@pytest.mark.parametrize(
    "args",
    [["-o", "x.md", "--out-dir", "d"], ["--concurrency", "0"], ["second.md"]],
)
def test_bad_usage_exits_2(args, tmp_path, capsys) -> None:
    src = write(tmp_path / "a.md", DOC)
    write(tmp_path / "second.md", DOC)
    os.chdir(tmp_path)
    assert run(["translate", str(src), *args]) == 2
    assert capsys.readouterr().err.strip()


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["site", "-o", "out.md"], ["site", "out.md"]),
        (["site", "--out-dir", "o"], ["site", "o"]),
        (["site", "--to", "fr", "--mode", "simplify"], ["site"]),
        (["a.md", "--changed-since", "HEAD"], ["a.md"]),
        (["a.md", "sub/a.md", "--changed-since", "HEAD"], ["a.md", "sub/a.md"]),
        (["a.md", "sub/a.md", "-o", "x.md"], ["x.md", "a.md", "sub/a.md"]),
        (["a.md", "-o", "x.md", "--out-dir", "d"], ["x.md", "d"]),
        (["a.md", "sub/a.md"], ["a.md", "sub/a.md"]),
        (["a.md", "sub/a.md", "--out-dir", "d"], ["a.md", "sub/a.md"]),
        (["a.md", "site", "--out-dir", "d"], ["site"]),
        (["absent.md"], ["absent.md"]),
        (["a.md", "-o", "a.md"], ["a.md"]),
        (["a.md", "-o", "sub"], ["sub"]),
    ],
)
def test_a_usage_error_names_the_file_or_folder_it_is_about(
    args: list[str], named: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 44: one line, exit 2, nothing written, and the line says which input or output."""
    work = tmp_path / "work"  # the settings' home is elsewhere in tmp_path: logs are not outputs
    write(work / "a.md", DOC)
    write(work / "sub/a.md", DOC)
    write(work / "site/en/index.md", DOC)
    os.chdir(work)
    before = sorted(work.rglob("*"))
    assert run(["translate", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("fastdesk translate: "), err
    for name in named:
        assert name in err, (name, err)
    about = err.split(": ", 2)[1]  # what the line is about comes first, as for every error
    assert about.split(", ")[0] == named[0], err
    assert sorted(work.rglob("*")) == before


def test_five_megabyte_document_goes_through_whole(emu, tmp_path, monkeypatch) -> None:
    use(monkeypatch, emu, "openai")
    # no rate-limit headers: the emulator's default ones (60,000 tokens/min) would be honoured
    emu.configure(rate_limits=None)
    para = "A sentence of a long document, with `code` and [a link](https://example.com). " * 12
    text = "".join(f"## Heading {i}\n\n{para}\n\n" for i in range(5_000_000 // (len(para) + 20)))
    assert len(text.encode()) >= 4_900_000
    src = write(tmp_path / "big.md", text)
    out = tmp_path / "big.out.md"
    assert (
        run(
            [
                "translate",
                str(src),
                "-o",
                str(out),
                "--no-memory",
                "--concurrency",
                "8",
                "--to",
                "en",
            ]
        )
        == 0
    )
    assert out.read_bytes() == src.read_bytes()


def test_model_without_provider_is_used_as_named(emu, tmp_path, monkeypatch) -> None:
    use(monkeypatch, emu, "groq")
    src = write(tmp_path / "a.md", DOC)
    assert (
        run(["translate", str(src), "-o", str(tmp_path / "o.md"), "--model", "qwen/qwen3-32b"]) == 0
    )
    body = emu.chat_requests[-1].body
    assert body["model"] == "qwen/qwen3-32b"
    assert body.get("reasoning_effort") == "none"  # Qwen3 must not think aloud
    assert "/no_think" in body["messages"][0]["content"]


def test_no_key_in_output_report_logs_or_memory_at_any_verbosity(
    emu, tmp_path, monkeypatch, capfd
) -> None:
    from tests.test_no_leaks import CANARY, assert_no_secret_in

    monkeypatch.setenv("GROQ_API_KEY", CANARY)
    monkeypatch.setenv("GROQ_BASE_URL", emu.groq_base_url)
    src = write(tmp_path / "a.md", DOC)
    report = tmp_path / "r.json"
    assert (
        run(["translate", str(src), "-o", str(tmp_path / "o.md"), "-vvv", "--report", str(report)])
        == 0
    )
    emu.fail_status(401, times=None)
    assert run(["translate", str(src), "-o", str(tmp_path / "p.md"), "-vvv", "--no-memory"]) == 1
    out = capfd.readouterr()
    assert "groq" in out.err  # the verbose log did say something
    assert emu.chat_requests[0].auth  # the key was really sent, in the header only
    assert_no_secret_in(out.out, out.err, report, tmp_path, os.environ["FASTDESK_HOME"])


def test_memory_clear_makes_the_next_run_translate_again(
    emu, tmp_path, monkeypatch, capsys
) -> None:
    use(monkeypatch, emu)
    src = write(tmp_path / "a.md", DOC)
    assert run(["translate", str(src), "-o", str(tmp_path / "o.md"), "--to", "en"]) == 0
    n = emu.request_count
    assert run(["memory", "stats"]) == 0
    assert capsys.readouterr().out.startswith("4 translations")
    assert run(["memory", "clear"]) == 0
    assert run(["translate", str(src), "-o", str(tmp_path / "o.md"), "--to", "en"]) == 0
    assert emu.request_count == 2 * n


def test_stored_key_for_a_local_server_is_sent(emu, tmp_path, monkeypatch) -> None:
    import keyring

    from tests.keyrings import MemoryKeyring

    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    backend.set_password("fastdesk", "openai", "sk-local-server-key-for-test")
    monkeypatch.setenv("FASTDESK_OPENAI_BASE_URL", emu.openai_base_url)
    src = write(tmp_path / "a.md", DOC)
    assert run(["translate", str(src), "-o", str(tmp_path / "o.md"), "--provider", "openai"]) == 0
    assert emu.chat_requests[-1].auth


def test_command_line_spend_counts_in_todays_total(emu, tmp_path, monkeypatch) -> None:
    from fastdesk.routing.costs import CostLedger

    use(monkeypatch, emu, "groq")
    src = write(tmp_path / "a.md", DOC)
    report = tmp_path / "r.json"
    args = ["--provider", "groq", "--model", "llama-3.1-8b-instant", "--report", str(report)]
    assert run(["translate", str(src), "-o", str(tmp_path / "o.md"), "--to", "en", *args]) == 0
    spent = json.loads(report.read_text())["totals"]["cost_usd"]
    today = CostLedger().today()
    assert today.requests == 1 and today.usd == pytest.approx(spent)


# ---- one transient fault with a single provider loses nothing ---------------------------------

FAULTS = {
    "429 retry-after seconds": lambda emu: emu.fail_status(429, retry_after=0.2),
    "429 try again in …s": lambda emu: emu.fail_status(429, retry_in="0.3s"),
    "503": lambda emu: emu.fail_status(503),
    "cut stream": lambda emu: emu.fail_cut(after_chunks=3),
    "malformed stream": lambda emu: emu.fail_malformed(after_chunks=3),
    "error event mid-stream": lambda emu: emu.fail_midstream(after_chunks=2, status=500),
}


@pytest.mark.parametrize("fault", list(FAULTS))
def test_one_transient_fault_is_retried_on_the_only_provider(
    fault, emu, tmp_path, monkeypatch
) -> None:
    use(monkeypatch, emu)
    FAULTS[fault](emu)
    src = write(tmp_path / "guide.md", DOC)
    out, report = tmp_path / "guide.fr.md", tmp_path / "r.json"
    args = ["--report", str(report), "--no-memory", "--to", "en"]  # an echo is English
    code = run(["translate", str(src), "-o", str(out), *args])
    assert code == 0
    assert out.read_text() == DOC
    statuses = [r["status"] for r in json.loads(report.read_text())["requests"]]
    assert statuses == ["error", "ok"]


def test_sigterm_stops_cleanly_and_writes_the_report_of_what_was_done(emu, tmp_path) -> None:
    import signal
    import subprocess
    import sys
    import threading

    done = write(tmp_path / "a.md", "First document.\n")
    stuck = write(tmp_path / "b.md", "Second document.\n")
    release = threading.Event()

    def answer(messages) -> str:
        if "Second" in str(messages):
            release.wait(20)  # the second request hangs until the test ends
        return "Premier."

    emu.configure(answer=answer)
    report, out_dir = tmp_path / "r.json", tmp_path / "out"
    env = dict(os.environ, GROQ_API_KEY="gsk_test", GROQ_BASE_URL=emu.groq_base_url)
    command = [sys.executable, "-m", "fastdesk", "translate", str(done), str(stuck)]
    command += ["--out-dir", str(out_dir), "--report", str(report), "--no-memory"]
    command += ["--concurrency", "1"]
    proc = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True)
    try:
        assert emu.wait_for(lambda: len(emu.chat_requests) >= 2, timeout=30)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=20)
    finally:
        release.set()
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 128 + signal.SIGTERM
    assert "interrupted; 1 of 2 documents written" in err
    data = json.loads(report.read_text())
    assert [d["status"] for d in data["documents"]] == ["ok", "interrupted"]
    assert (out_dir / "a.md").read_text() == "Premier.\n"
    assert not (out_dir / "b.md").exists()


def test_a_300_block_document_through_a_provider_failing_one_request_in_three(
    emu, tmp_path, monkeypatch
) -> None:
    use(monkeypatch, emu)
    emu.configure(fail_every=3)  # a command-line run packs 64 blocks a request: ~5 requests
    text = "".join(f"## Part {i}\n\nParagraph {i} of the long document.\n\n" for i in range(150))
    src = write(tmp_path / "long.md", text)
    out, report = tmp_path / "long.out.md", tmp_path / "r.json"
    args = ["--report", str(report), "--no-memory", "--concurrency", "2"]
    assert run(["translate", str(src), "-o", str(out), *args]) == 0
    assert out.read_text() == text
    statuses = [r["status"] for r in json.loads(report.read_text())["requests"]]
    assert statuses.count("error") >= 2 and statuses.count("ok") >= 5
