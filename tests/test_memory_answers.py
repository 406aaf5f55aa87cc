"""A translation memory's answer is an answer: one that fails the link, code or placeholder
checks (an older import, a file changed on disk) is never written into a target: the block is
asked of the model and the report names the entry. An import is one transaction, shows its
progress on a terminal, and Ctrl+C leaves the memory as it was (exit 130, one line)."""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from fastdesk.cli.main import run
from fastdesk.translate.checks import stored_answer_problem
from fastdesk.translate.events import Flag
from fastdesk.translate.memory import IMPORTED, Memory, MemoryKey, default_path
from fastdesk.translate.prompts import PROMPT_VERSION
from fastdesk.translate.tmx import TmxUnit, import_tmx, write_tmx
from tests.emulator import Emulator
from tests.hostile import REPO
from tests.project_kit import answer_in_language, make_project, use_emulator, write

SOURCE = "See [the guide](guide.md) and run `pip install fastdesk` to start."
EVIL = "Voir [le guide](https://evil.example/malware.exe) et lancez `pip install fastdesk`."


@pytest.fixture
def emu(monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    with Emulator(answer=answer_in_language) as e:
        use_emulator(monkeypatch, e)
        yield e


@pytest.mark.parametrize(
    ("provider", "flags"),
    [
        (IMPORTED, (Flag("links", "link target changed"),)),  # an import of an older version
        ("groq", ()),  # a model's answer changed on disk (a model never sees link targets)
    ],
    ids=["older-import", "changed-on-disk"],
)
def test_a_stored_answer_that_changes_a_link_is_asked_of_the_model_and_named(
    tmp_path: Path,
    emu: Emulator,
    capsys: pytest.CaptureFixture[str],
    provider: str,
    flags: tuple[Flag, ...],
) -> None:
    memory = Memory(default_path())
    key = MemoryKey(SOURCE, "translate", "fr", PROMPT_VERSION)
    assert memory.put(key, EVIL, provider=provider, model=provider, flags=flags)
    memory.close()
    doc = write(tmp_path / "doc.md", "# Start\n\n" + SOURCE + "\n")
    out, report = tmp_path / "out.md", tmp_path / "r.json"
    args = ["translate", str(doc), "--to", "fr", "-o", str(out), "--report", str(report)]
    assert run(args) == 0
    assert emu.request_count >= 1
    assert "evil.example" not in out.read_text(encoding="utf-8")
    (named,) = json.loads(report.read_text(encoding="utf-8"))["documents"][0]["memory_refused"]
    assert "line 3" in named and "evil.example" in named
    err = [x for x in capsys.readouterr().err.splitlines() if "memory" in x]
    assert len(err) == 1 and "doc.md" in err[0] and "line 3" in err[0]


def test_a_project_runs_report_names_the_memorys_answers_not_used(
    tmp_path: Path, emu: Emulator
) -> None:
    """A project run's report says it too, on the page's line, as a single file's does."""
    memory = Memory(default_path())
    key = MemoryKey(SOURCE, "translate", "fr", PROMPT_VERSION)
    flags = (Flag("links", "link target changed"),)
    assert memory.put(key, EVIL, provider=IMPORTED, model=IMPORTED, flags=flags)
    memory.close()
    root = make_project(tmp_path / "site", "mkdocs-suffix")
    index = root / "docs" / "index.md"
    index.write_text(index.read_text(encoding="utf-8") + "\n" + SOURCE + "\n", encoding="utf-8")
    report = tmp_path / "r.json"
    assert run(["translate", str(root), "--to", "fr", "--report", str(report)]) == 0
    assert "evil.example" not in (root / "docs" / "index.fr.md").read_text(encoding="utf-8")
    pages = json.loads(report.read_text(encoding="utf-8"))["documents"]
    refused = {p["input"]: p.get("memory_refused") for p in pages}
    (named,) = refused.pop(index.relative_to(root).as_posix())
    assert "evil.example" in named and named.startswith("line ")
    assert not any(refused.values())  # the other pages had nothing refused


def test_a_models_own_flagged_answer_is_still_used_from_memory(
    tmp_path: Path, emu: Emulator
) -> None:
    """What the model answered and the checks flagged when it was stored is used as before."""
    source = "Run `pip install fastdesk` now."
    answer = "Lancez `pip install fastdesk-fr` maintenant."
    memory = Memory(default_path())
    key = MemoryKey(source, "translate", "fr", PROMPT_VERSION)
    flag = Flag("inline_code", "inline code changed")
    assert memory.put(key, answer, provider="groq", model="m", flags=(flag,))
    memory.close()
    doc = write(tmp_path / "doc.md", source + "\n")
    out = tmp_path / "out.md"
    run(["translate", str(doc), "--to", "fr", "-o", str(out)])
    assert emu.request_count == 0 and out.read_text(encoding="utf-8") == answer + "\n"


def test_an_import_is_one_transaction(tmp_path: Path) -> None:
    memory = Memory(tmp_path / "m.sqlite3")
    try:
        own = MemoryKey("Own.", "translate", "fr", PROMPT_VERSION)
        assert memory.put(own, "Le mien.", provider="groq", model="m")

        def entries() -> Iterator[tuple[MemoryKey, str, tuple[Flag, ...], str]]:
            for i in range(50):
                if i == 30:
                    raise KeyboardInterrupt  # Ctrl+C in the middle of the writes
                key = MemoryKey(f"Block {i}.", "translate", "fr", PROMPT_VERSION)
                yield key, f"Bloc {i}.", (), "en"

        with pytest.raises(KeyboardInterrupt):
            memory.put_all(entries(), provider=IMPORTED, model=IMPORTED)
        assert memory.count() == 1 and memory.unknown_sources() == 1  # as it was
        units = [TmxUnit("en", f"Block {i}.", (("fr", f"Bloc {i}."),)) for i in range(50)]
        assert import_tmx(memory, units, None).kept == 50
        assert memory.count() == 51
    finally:
        memory.close()


def test_ctrl_c_during_a_large_import_exits_130_with_one_line_and_nothing_imported(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    units = [
        TmxUnit("en", f"Paragraph {i} of the guide, with words.", (("fr", f"Paragraphe {i}."),))
        for i in range(30_000)
    ]
    tmx = write(tmp_path / "big.tmx", write_tmx(units))
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": str(REPO),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "LANG": "C.UTF-8",
        "FASTDESK_HOME": str(home),
    }
    leader, follower = pty.openpty()  # standard error a terminal: the progress shows
    child = subprocess.Popen(
        [sys.executable, "-m", "fastdesk", "memory", "import", str(tmx)],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=follower,
        stdin=subprocess.DEVNULL,
    )
    os.close(follower)
    seen = b""
    try:
        deadline = time.monotonic() + 120
        while b"translations" not in seen:  # the progress marker: the import is under way
            assert time.monotonic() < deadline, seen
            ready, _, _ = select.select([leader], [], [], 1.0)
            if ready:
                seen += os.read(leader, 4096)
            assert child.poll() is None, seen
        child.send_signal(signal.SIGINT)
        assert child.wait(timeout=60) == 130
        while True:
            ready, _, _ = select.select([leader], [], [], 0.2)
            if not ready:
                break
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the child is gone: the terminal is closed
                break
            if not chunk:
                break
            seen += chunk
    finally:
        if child.poll() is None:
            child.kill()
        os.close(leader)
        assert child.stdout is not None
        child.stdout.close()
    said = [line for line in seen.decode().replace("\r", "\n").splitlines() if "fastdesk" in line]
    assert said == [f"fastdesk memory: interrupted: nothing imported from {tmx}"]
    assert "Traceback" not in seen.decode()
    stats = subprocess.run(
        [sys.executable, "-m", "fastdesk", "memory", "stats"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert stats.stdout.startswith("0 translations"), stats


@pytest.mark.parametrize(
    "text",
    [
        "Use %d items",
        "Hi :smile: there",
        "    indented code",
        "~~~\ncode\n~~~",
        "<b>bold</b>",
        "see www.example.com",
        "get ftp://host/x",
        "Hello {name}",
        "Set ${var}",
        "a [link](x.md)",
        "run `make`",
        "<https://example.org>",
    ],
)
def test_a_memory_hit_is_checked_whenever_a_carried_check_could_find_something(
    text: str,
) -> None:
    """The shortcut that skips the parse for plain prose never skips a text that has a link,
    code, a tag or a placeholder: such a text changed to plain prose is refused."""
    from fastdesk.translate.checks import facts

    found = facts(text)
    assert (
        found.targets
        or found.inline_code
        or found.code_blocks
        or found.tags
        or (found.placeholders)
    )
    assert stored_answer_problem(text, "Du texte simple.", (), imported=True) is not None
