"""The fault suite: `fastdesk translate` as a hostile user (or a bad day) would run it.

Special files, a broken or locked memory, read-only folders, full disks, corrupted and crafted
state files, keys with line breaks, killed runs. Each case must end in its exit status (0 all
written; 1 a document or the report not written, the others written; 2 bad usage or an
unreadable input, before any request) with one line per problem on standard error, never a
traceback, with the user's sources and existing outputs as they were.

Real conditions where the machine allows: special files are made on the fly, permissions are
enforced on a child that runs without root's override (``tests.hostile.powerless``), a full
disk is a child under RLIMIT_FSIZE or, in-process, atomic writes refused with ENOSPC.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fastdesk.cli.main import run
from fastdesk.config.logs import reset_logging
from tests.emulator import Emulator
from tests.hostile import REPO, full_disk, powerless, read_only, run_fastdesk, tree

DOC = "# Guide\n\nfastdesk translates **Markdown** live.\n\n- Install it\n- Open a file\n"
OLD = "the previous translation\n"


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    with Emulator() as emulator:
        yield emulator


@pytest.fixture(autouse=True)
def _provider(monkeypatch: pytest.MonkeyPatch, emu: Emulator) -> Iterator[None]:
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    monkeypatch.setenv("GROQ_API_KEY", "gsk_test")
    monkeypatch.setenv("GROQ_BASE_URL", emu.groq_base_url)
    emu.clear_faults()
    yield
    reset_logging()


@pytest.fixture
def src(tmp_path: Path) -> Path:
    """The user's folder: a source and an earlier translation of it."""
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "guide.md").write_text(DOC, encoding="utf-8")
    (folder / "guide.fr.md").write_text(OLD, encoding="utf-8")
    return folder


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str]]:
    """Run the command in-process; its status and its standard error's lines."""
    code = run(["translate", *args])
    reset_logging()
    err = capsys.readouterr().err
    assert "Traceback" not in err and "Logging error" not in err
    return code, err.splitlines()


def child_env(emu: Emulator, home: Path, **extra: str) -> dict[str, str]:
    return {
        "GROQ_API_KEY": "gsk_test",
        "GROQ_BASE_URL": emu.groq_base_url,
        "FASTDESK_HOME": str(home),
        **extra,
    }


def translated_once(src: Path, emu: Emulator, tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A FASTDESK_HOME that one translation filled (memory, log, costs, stats), and its env."""
    home = tmp_path / "home"
    env = child_env(emu, home)
    result = run_fastdesk(["translate", str(src / "guide.md"), "-o", str(src / "a.md")], env)
    assert result.returncode == 0
    return home, env


def one_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


# ---- 1. special files: refused at once ---------------------------------------------------------


@pytest.mark.parametrize("kind", ["dev-zero", "link-to-dev-zero", "fifo", "link-to-fifo"])
def test_special_files_exit_2_at_once(kind: str, emu: Emulator, tmp_path: Path) -> None:
    """/dev/zero grew to 11.7 GB in 20 s, a FIFO hung forever; a child with a timeout, so a
    regression fails instead of taking the suite down."""
    target = tmp_path / "input.md"
    if kind == "dev-zero":
        target = Path("/dev/zero")
    elif kind == "link-to-dev-zero":
        target.symlink_to("/dev/zero")
    else:
        fifo = tmp_path / "pipe"
        os.mkfifo(fifo)
        target = fifo if kind == "fifo" else target
        if kind == "link-to-fifo":
            target.symlink_to(fifo)
    before = emu.request_count
    done = run_fastdesk(["translate", str(target)], child_env(emu, tmp_path / "home"), timeout=20)
    reason = "is a device" if "zero" in kind else "is a named pipe"
    assert done.returncode == 2
    assert one_line(done.stderr) == (f"fastdesk translate: {target}: {reason}, not a regular file")
    assert done.stdout == "" and emu.request_count == before


def test_a_symlink_loop_says_symlink_loop(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = tmp_path / "a.md", tmp_path / "b.md"
    a.symlink_to(b)
    b.symlink_to(a)
    code, err = cli(capsys, str(a))
    assert code == 2 and err == [f"fastdesk translate: {a}: symlink loop"]


# ---- 2. a broken, locked or read-only translation memory ---------------------------------------


def _memory(home: Path) -> Path:
    return home / "cache" / "memory.sqlite3"


def test_a_half_truncated_memory_is_set_aside_once_and_the_run_goes_on(
    src: Path, isolated_home: Path, emu: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    out = src / "guide.fr.md"
    code, _ = cli(capsys, str(src / "guide.md"), "-o", str(out))
    assert code == 0
    memory = _memory(isolated_home)
    import sqlite3

    db = sqlite3.connect(memory)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    with memory.open("r+b") as fh:
        fh.truncate(memory.stat().st_size // 2)
    code, err = cli(capsys, str(src / "guide.md"), "-o", str(out))
    assert code == 0 and out.read_text(encoding="utf-8") == DOC
    assert len(err) == 1 and "translation memory" in err[0] and "was broken" in err[0]
    assert len(list(memory.parent.glob("memory.sqlite3.broken-*"))) == 1
    assert cli(capsys, str(src / "guide.md"), "-o", str(out)) == (0, [])  # fresh and quiet


@pytest.mark.parametrize("what", ["garbage", "folder"])
def test_a_memory_that_is_not_a_database_is_set_aside(
    what: str, src: Path, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    memory = _memory(isolated_home)
    memory.parent.mkdir(parents=True)
    if what == "garbage":
        memory.write_bytes(os.urandom(4096))
    else:
        memory.mkdir()
    code, err = cli(capsys, str(src / "guide.md"), "-o", str(src / "out.md"))
    assert code == 0 and (src / "out.md").read_text(encoding="utf-8") == DOC
    assert len(err) == 1 and "was broken" in err[0]


def test_a_locked_memory_means_this_run_without_memory(
    src: Path,
    isolated_home: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from fastdesk.translate import memory as memory_module

    monkeypatch.setattr(memory_module, "LOCK_TIMEOUT_S", 0.3)
    code, _ = cli(capsys, str(src / "guide.md"), "-o", str(src / "out.md"), "--to", "de")
    assert code == 0
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, time\n"
            f"db = sqlite3.connect({str(_memory(isolated_home))!r}, isolation_level=None)\n"
            "db.execute('BEGIN EXCLUSIVE'); print('held', flush=True); time.sleep(60)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        code, err = cli(capsys, str(src / "guide.md"), "-o", str(src / "out2.md"))
    finally:
        holder.kill()
        holder.wait()
    assert code == 0 and (src / "out2.md").read_text(encoding="utf-8") == DOC
    assert len(err) == 1 and "locked by another program" in err[0]
    assert "this run goes without memory" in err[0]


def test_fastdesk_memory_on_a_broken_or_locked_memory_is_one_line(
    src: Path,
    isolated_home: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from fastdesk.translate import memory as memory_module

    memory = _memory(isolated_home)
    memory.parent.mkdir(parents=True)
    memory.write_bytes(b"not a database at all" * 100)
    assert run(["memory", "stats"]) == 0
    reset_logging()
    err, out = capsys.readouterr()[::-1]
    assert len(err.splitlines()) == 1 and "was broken" in err
    assert out.startswith("0 translations in ")
    monkeypatch.setattr(memory_module, "LOCK_TIMEOUT_S", 0.3)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, time\n"
            f"db = sqlite3.connect({str(memory)!r}, isolation_level=None)\n"
            "db.execute('BEGIN EXCLUSIVE'); print('held', flush=True); time.sleep(60)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        assert run(["memory", "clear"]) == 1
    finally:
        holder.kill()
        holder.wait()
    reset_logging()
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "locked by another program" in err
    assert "Traceback" not in err


def test_a_read_only_memory_means_this_run_without_memory(
    src: Path, emu: Emulator, tmp_path: Path
) -> None:
    prefix = powerless()
    home, env = translated_once(src, emu, tmp_path)
    cache = _memory(home).parent
    with read_only(cache, *cache.iterdir()):
        done = run_fastdesk(
            ["translate", str(src / "guide.md"), "-o", str(src / "b.md")], env, prefix=prefix
        )
    assert done.returncode == 0 and (src / "b.md").read_text(encoding="utf-8") == DOC
    line = one_line(done.stderr)
    assert "translation memory" in line and "this run goes without memory" in line


# ---- 3. outputs, reports, folders and FASTDESK_HOME ---------------------------------------------


def test_an_output_folder_that_is_read_only_exits_2_before_any_request(
    src: Path, emu: Emulator, tmp_path: Path
) -> None:
    prefix = powerless()
    before, requests = tree(src), emu.request_count
    with read_only(src):
        done = run_fastdesk(
            ["translate", str(src / "guide.md"), "-o", str(src / "guide.fr.md")],
            child_env(emu, tmp_path / "home"),
            prefix=prefix,
        )
    assert done.returncode == 2
    assert (
        one_line(done.stderr) == f"fastdesk translate: {src}: cannot write there: permission denied"
    )
    assert tree(src) == before and emu.request_count == requests


def test_a_folder_in_the_input_path_that_cannot_be_read_exits_2(
    src: Path, emu: Emulator, tmp_path: Path
) -> None:
    """Was exit 1 with a PermissionError traceback; the contract says 2."""
    prefix = powerless()
    locked = src / "private"
    locked.mkdir()
    (locked / "notes.md").write_text(DOC, encoding="utf-8")
    locked.chmod(0)
    try:
        done = run_fastdesk(
            ["translate", str(locked / "notes.md")],
            child_env(emu, tmp_path / "home"),
            prefix=prefix,
        )
    finally:
        locked.chmod(0o755)
    assert done.returncode == 2
    assert one_line(done.stderr) == f"fastdesk translate: {locked / 'notes.md'}: permission denied"


def test_a_glossary_in_a_folder_that_cannot_be_read_is_skipped(
    src: Path, emu: Emulator, tmp_path: Path
) -> None:
    prefix = powerless()
    home = tmp_path / "home"
    locked = tmp_path / "private"
    locked.mkdir()
    (locked / "glossary.toml").write_text('[keep]\nterms = ["fastdesk"]\n', encoding="utf-8")
    (home / "config").mkdir(parents=True)
    settings = f"version = 1\nglossary_path = {str(locked / 'glossary.toml')!r}\n"
    (home / "config" / "settings.toml").write_text(settings.replace("'", '"'), encoding="utf-8")
    locked.chmod(0)
    try:
        done = run_fastdesk(
            ["translate", str(src / "guide.md"), "-o", str(src / "x.md")],
            child_env(emu, home),
            prefix=prefix,
        )
    finally:
        locked.chmod(0o755)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and (src / "x.md").read_text(encoding="utf-8") == DOC


def test_a_full_disk_fails_that_document_only_and_keeps_its_old_output(
    src: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = src / "out"
    out.mkdir()
    (out / "b.md").write_text(OLD, encoding="utf-8")
    (src / "b.md").write_text("Another *document*.\n", encoding="utf-8")
    full_disk(monkeypatch, out, name="b.md")
    sources = {p: p.read_bytes() for p in (src / "guide.md", src / "b.md")}
    code, err = cli(capsys, str(src / "guide.md"), str(src / "b.md"), "--out-dir", str(out))
    assert code == 1
    assert err == [f"fastdesk translate: {out / 'b.md'}: not written: no space left on the disk"]
    assert (out / "guide.md").read_text(encoding="utf-8") == DOC  # the other one is written
    assert (out / "b.md").read_text(encoding="utf-8") == OLD
    assert sorted(p.name for p in out.iterdir()) == ["b.md", "guide.md"]  # no temporary file
    assert {p: p.read_bytes() for p in sources} == sources


@pytest.mark.parametrize("where", ["a file", "under a file"])
def test_an_out_dir_that_cannot_be_one_exits_2(
    where: str, src: Path, emu: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = src / "notes.txt"
    blocker.write_text("mine\n", encoding="utf-8")
    out_dir = blocker if where == "a file" else blocker / "out"
    requests = emu.request_count
    code, err = cli(capsys, str(src / "guide.md"), "--out-dir", str(out_dir))
    assert code == 2 and err == [
        f"fastdesk translate: {blocker}: is a file, not a folder, "
        f"so {out_dir / 'guide.md'} cannot be written"
    ]
    assert blocker.read_text(encoding="utf-8") == "mine\n" and emu.request_count == requests


def test_an_output_that_is_the_input_through_a_symlinked_folder_exits_2(
    src: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (src.parent / "alias").symlink_to(src)
    out = src.parent / "alias" / "guide.md"
    code, err = cli(capsys, str(src / "guide.md"), "-o", str(out))
    assert code == 2 and err == [f"fastdesk translate: {out}: output would overwrite its input"]
    assert (src / "guide.md").read_text(encoding="utf-8") == DOC


def test_a_report_that_cannot_be_written_is_refused_before_any_request(
    src: Path, emu: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    requests, before = emu.request_count, tree(src)
    report = src / "reports"
    report.mkdir()
    code, err = cli(capsys, str(src / "guide.md"), "-o", str(src / "x.md"), "--report", str(report))
    assert code == 2 and err == [f"fastdesk translate: {report}: is a folder, not a file"]
    assert emu.request_count == requests and tree(src) == before
    code, err = cli(
        capsys, str(src / "guide.md"), "-o", str(src / "x.md"), "--report", str(src / "guide.md")
    )
    assert code == 2 and err == [
        f"fastdesk translate: {src / 'guide.md'}: the report would overwrite an input or an output"
    ]


def test_a_report_that_fails_at_the_end_keeps_the_translations_and_exits_1(
    src: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Decided: the translations are written (they were paid for); the report's line, exit 1."""
    reports = tmp_path / "reports"
    reports.mkdir()
    full_disk(monkeypatch, reports)
    code, err = cli(
        capsys, str(src / "guide.md"), "-o", str(src / "x.md"), "--report", str(reports / "r.json")
    )
    assert code == 1
    assert err == [
        f"fastdesk translate: {reports / 'r.json'}: report not written: no space left on the disk"
    ]
    assert (src / "x.md").read_text(encoding="utf-8") == DOC and not list(reports.iterdir())


def test_a_report_in_a_read_only_folder_exits_2(src: Path, emu: Emulator, tmp_path: Path) -> None:
    prefix = powerless()
    reports = tmp_path / "reports"
    reports.mkdir()
    with read_only(reports):
        done = run_fastdesk(
            [
                "translate",
                str(src / "guide.md"),
                "-o",
                str(src / "x.md"),
                "--report",
                str(reports / "r.json"),
            ],
            child_env(emu, tmp_path / "home"),
            prefix=prefix,
        )
    assert done.returncode == 2
    assert (
        one_line(done.stderr)
        == f"fastdesk translate: {reports}: cannot write there: permission denied"
    )
    assert not (src / "x.md").exists()


def test_fastdesk_home_that_is_a_file_exits_2(
    src: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home-file"
    home.write_text("not a folder\n", encoding="utf-8")
    monkeypatch.setenv("FASTDESK_HOME", str(home))
    code, err = cli(capsys, str(src / "guide.md"), "-o", str(src / "x.md"))
    assert code == 2 and err == [
        f"fastdesk translate: FASTDESK_HOME ({home}) is a file, not a folder"
    ]
    assert home.read_text(encoding="utf-8") == "not a folder\n" and not (src / "x.md").exists()


def test_a_read_only_fastdesk_home_translates_without_keeping_anything(
    src: Path, emu: Emulator, tmp_path: Path
) -> None:
    prefix = powerless()
    home, env = translated_once(src, emu, tmp_path)
    folders = [home, *(p for p in home.rglob("*") if p.is_dir())]
    with read_only(*folders, *(p for p in home.rglob("*") if p.is_file())):
        kept = tree(home)
        done = run_fastdesk(
            ["translate", str(src / "guide.md"), "-o", str(src / "b.md"), "--to", "de"],
            env,
            prefix=prefix,
        )
        assert tree(home) == kept
    assert done.returncode == 0 and (src / "b.md").read_text(encoding="utf-8") == DOC
    lines = done.stderr.splitlines()
    assert lines and all(line.startswith("fastdesk: WARNING") for line in lines), done.stderr
    assert any("this run goes without memory" in line for line in lines)


def test_a_full_fastdesk_home_still_translates_to_standard_output(
    src: Path, emu: Emulator, tmp_path: Path
) -> None:
    """RLIMIT_FSIZE=0: no file can grow, as on a full disk (standard output is a pipe)."""
    done = run_fastdesk(
        ["translate", str(src / "guide.md")], child_env(emu, tmp_path / "home"), file_size_limit=0
    )
    assert done.returncode == 0 and done.stdout == DOC
    lines = done.stderr.splitlines()
    assert lines and all(line.startswith("fastdesk: WARNING") for line in lines), done.stderr
    assert any("log file" in line for line in lines)
    assert any("memory" in line for line in lines)
    assert any("cost totals could not be saved" in line for line in lines)


def test_a_log_file_that_is_a_folder_costs_one_line_not_135(
    src: Path, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = isolated_home / "logs" / "fastdesk.log"
    log.mkdir(parents=True)
    code, err = cli(capsys, str(src / "guide.md"), "-o", str(src / "x.md"), "-v")
    assert code == 0 and (src / "x.md").read_text(encoding="utf-8") == DOC
    about_log = [line for line in err if "log file" in line]
    assert about_log == [
        f"fastdesk: WARNING fastdesk: the log file {log} cannot be written "
        "(is a folder, not a file); logging to standard error only"
    ]
    assert log.is_dir()


# ---- 4. crafted state files: set aside, defaults, the run goes on ------------------------------

NESTED_JSON = "[" * 3000 + "]" * 3000
NESTED_TOML = "x = " + "[" * 3000 + "]" * 3000 + "\n"


@pytest.mark.parametrize(
    ("relative", "content", "aside"),
    [
        ("config/settings.toml", NESTED_TOML, True),
        ("data/router-stats.json", NESTED_JSON, True),
        ("data/router-stats.json", '{"version": 1, "choices": {"groq/m": {"ttfb_ms": 7}}}', True),
        ("data/costs.json", '{"days": ' * 3000 + "{}" + "}" * 3000, True),
        ("cache/models.json", NESTED_JSON, False),
        ("config/glossary.toml", NESTED_TOML, False),  # the user's own file: reported only
    ],
)
def test_a_crafted_state_file_is_set_aside_and_the_run_goes_on(
    relative: str,
    content: str,
    aside: bool,
    src: Path,
    isolated_home: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = isolated_home / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content, encoding="utf-8")
    code, err = cli(capsys, str(src / "guide.md"), "-o", str(src / "x.md"))
    assert code == 0 and (src / "x.md").read_text(encoding="utf-8") == DOC
    kept = list(path.parent.glob(path.name + ".broken-*"))
    if aside:
        assert len(kept) == 1 and kept[0].read_text(encoding="utf-8") == content
        assert any(kept[0].name in line for line in err), err
    else:
        assert kept == []
    if relative.endswith(("settings.toml", "glossary.toml")):
        assert any("nested more than" in line for line in err), err
    assert all(line.startswith("fastdesk: WARNING") for line in err), err
    assert len(err) == (0 if relative.startswith("cache/") else 1), err  # said once


def test_crafted_sidecars_and_autosaves_are_set_aside_never_the_document(tmp_path: Path) -> None:
    from fastdesk.document.blocks import parse
    from fastdesk.review import autosave
    from fastdesk.review.model import load_review, review_path

    source = tmp_path / "guide.md"
    source.write_text(DOC, encoding="utf-8")
    for content in (
        NESTED_JSON,
        '{"version": 1, "languages": {"fr": ' * 1000 + "{}" + "}" * 1001,
        '{"version": 1, "app": "fastdesk", "languages": {"fr": {"lang": "fr", "blocks": 5}}}',
    ):
        review_path(source).write_text(content, encoding="utf-8")
        review, warnings = load_review(source, "fr", parse(DOC))
        assert not review.has_work() and len(warnings) == 1
        assert not review_path(source).exists()
    assert source.read_text(encoding="utf-8") == DOC
    folder = autosave.autosave_dir()
    folder.mkdir(parents=True)
    good = {"version": 1, "path": str(source), "saved": "2026-01-01T00:00:00+00:00"}
    (folder / "nested.json").write_text(NESTED_JSON, encoding="utf-8")
    (folder / "types.json").write_text(json.dumps({**good, "source": 5}), encoding="utf-8")
    (folder / "pid.json").write_text(json.dumps({**good, "pid": "me", "source": "x"}), "utf-8")
    huge = json.dumps({**good, "pid": 10**30, "source": "unsaved words"})
    (folder / "huge-pid.json").write_text(huge, encoding="utf-8")  # was an OverflowError
    year_9999 = json.dumps({**good, "saved": "9999-12-31T23:59:59-12:00", "source": "later"})
    (folder / "year-9999.json").write_text(year_9999, encoding="utf-8")  # no clock shows it
    found = autosave.pending(folder)
    assert sorted(r.key for r in found) == ["huge-pid", "year-9999"]
    assert {r.preview for r in found} == {"unsaved words", "later"}
    assert all(r.label.startswith("guide.md (autosaved ") for r in found)
    names = sorted(p.name.split(".broken-")[0] for p in folder.iterdir())
    assert names == ["huge-pid.json", "nested.json", "pid.json", "types.json", "year-9999.json"]
    assert len(list(folder.glob("*.broken-*"))) == 3


# ---- 5. keys and where they go -----------------------------------------------------------------


@pytest.mark.parametrize("value", ["gsk_abc\r\nX-Injected-Header: yes", "gsk_abc\n", "gsk_a\nb"])
def test_a_key_with_a_line_break_is_refused_and_never_sent(
    value: str,
    src: Path,
    emu: Emulator,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`X-Injected-Header: yes` once reached the server."""
    if value == "gsk_abc\n":  # a trailing newline (a paste) is only whitespace: stripped, fine
        monkeypatch.setenv("GROQ_API_KEY", value)
        assert cli(capsys, str(src / "guide.md"), "-o", str(src / "x.md"))[0] == 0
        return
    monkeypatch.setenv("GROQ_API_KEY", value)
    emu.reset_records()
    code, err = cli(capsys, str(src / "guide.md"), "-o", str(src / "x.md"))
    assert code == 2 and err == [
        "fastdesk translate: the groq key in GROQ_API_KEY contains a line break, so it was not "
        "used; set it again with only the key"
    ]
    assert emu.requests == [] and not (src / "x.md").exists()
    assert "gsk_a" not in "\n".join(err)


def test_a_stored_key_with_a_line_break_is_not_used(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import keyring

    from fastdesk.config import keys
    from tests.keyrings import MemoryKeyring

    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    backend.set_password("fastdesk", "groq", "gsk_secret\nX-Evil: 1")
    monkeypatch.delenv("GROQ_API_KEY")
    assert keys.get_key("groq") is None
    assert "the groq key in the OS keyring contains a line break" in caplog.text
    assert "gsk_secret" not in caplog.text


def test_a_key_over_plain_http_to_a_remote_host_is_warned_once(
    src: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from fastdesk.config import keys

    monkeypatch.setattr(keys, "_local_host", lambda host: False)  # the emulator plays "remote"
    (src / "b.md").write_text("Second.\n", encoding="utf-8")
    code, err = cli(capsys, str(src / "guide.md"), str(src / "b.md"), "--out-dir", str(src / "o"))
    assert code == 0
    assert len(err) == 1 and "groq key will be sent unencrypted to 127.0.0.1" in err[0]


# ---- 6. the cost ledger survives kill -9 --------------------------------------------------------


def test_each_request_is_in_the_ledger_before_the_next_event(
    src: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Durable as it completes: the file counts a request as soon as its event is handled."""
    from fastdesk.routing import costs

    seen: list[int] = []
    record = costs.CostLedger.record

    def checked(self: costs.CostLedger, stats: object) -> object:
        result = record(self, stats)  # type: ignore[arg-type]
        days = json.loads(costs.costs_path().read_text(encoding="utf-8"))["days"]
        seen.append(sum(d["requests"] + d["unknown"] for d in days.values()))
        return result

    monkeypatch.setattr(costs.CostLedger, "record", checked)
    docs = []
    for n in range(4):
        (src / f"d{n}.md").write_text(f"Paragraph {n}.\n", encoding="utf-8")
        docs.append(str(src / f"d{n}.md"))
    code, _ = cli(capsys, *docs, "--out-dir", str(src / "o"), "--no-memory", "--concurrency", "1")
    assert code == 0 and seen == list(range(1, len(seen) + 1)) and len(seen) >= 4


def test_a_run_killed_with_sigkill_has_counted_every_answered_request(tmp_path: Path) -> None:
    """Killed runs once lost 12 % of answered requests (365 of 415) from the ledger."""
    concurrency = 4
    # no rate-limit headers: the limiter would keep to what they say (60,000 tokens a minute)
    with Emulator(ttfb=0.01, tokens_per_second=3000, rate_limits=None) as slow:
        home = tmp_path / "home"
        # 300 requests in a few seconds: past the free tier's 30 a minute the limiter would wait
        (home / "config").mkdir(parents=True)
        (home / "config" / "settings.toml").write_text(
            '[rate_limits.groq."llama-3.1-8b-instant"]\nrequests_per_minute = 0\n',
            encoding="utf-8",
        )
        files = []
        for n in range(300):
            path = tmp_path / f"d{n}.md"
            path.write_text(f"# Part {n}\n\nParagraph number {n} of the set.\n", encoding="utf-8")
            files.append(str(path))
        env = {
            **os.environ,
            "PYTHONPATH": str(REPO),
            "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
            **child_env(slow, home),
        }
        args = [
            "--out-dir",
            str(tmp_path / "out"),
            "--no-memory",
            "--concurrency",
            str(concurrency),
        ]
        child = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "fastdesk",
                "translate",
                *files,
                *args,
                "--model",
                "llama-3.1-8b-instant",
            ],
            env=env,
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            # (a hang guard only: a loaded machine took over 60 s to get there)
            assert slow.wait_for(lambda: slow.answered >= 40, timeout=300)
        finally:
            child.send_signal(signal.SIGKILL)  # also when the assertion failed: never a hang
            child.wait()
        # the streams the server was still sending when the client died: each one ended or cut
        assert slow.wait_for(lambda: slow.open_connections == 0, timeout=30)
        answered = slow.answered
    days = json.loads((home / "data" / "costs.json").read_text(encoding="utf-8"))["days"]
    counted = sum(d["requests"] + d["unknown"] for d in days.values())
    # Only answers still on their way through the client when it died may be missing.
    assert answered - concurrency <= counted <= answered + concurrency


# ---- 7. one document never takes down another --------------------------------------------------


def test_an_internal_error_in_one_document_is_its_one_line(
    src: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from fastdesk.translate.engine import Engine

    real_run = Engine.run_parts  # every run of a document goes through it

    async def run_or_fail(self: Engine, parts, spec, **kw):  # type: ignore[no-untyped-def]
        if any("poison" in b.text for part in parts for b in part.doc.blocks):
            raise IndexError("list index out of range")
        return await real_run(self, parts, spec, **kw)

    monkeypatch.setattr(Engine, "run_parts", run_or_fail)
    (src / "bad.md").write_text("A poison paragraph.\n", encoding="utf-8")
    (src / "ok.md").write_text("A fine paragraph.\n", encoding="utf-8")
    out = src / "o"
    code, err = cli(
        capsys,
        str(src / "bad.md"),
        str(src / "guide.md"),
        str(src / "ok.md"),
        "--out-dir",
        str(out),
    )
    assert code == 1
    assert err == [
        f"fastdesk translate: {src / 'bad.md'}: not translated: "
        "internal error (IndexError: list index out of range)"
    ]
    assert (out / "guide.md").read_text(encoding="utf-8") == DOC
    assert (out / "ok.md").read_text(encoding="utf-8") == "A fine paragraph.\n"
    assert not (out / "bad.md").exists()


# ---- 4b. any well-formed file of the wrong shape: validated, never an exception ---------------

_NAMES = [
    "version",
    "days",
    "choices",
    "languages",
    "lang",
    "source",
    "blocks",
    "id",
    "text",
    "pid",
    "path",
    "review",
    "saved",
    "ttfb_ms",
    "tokens_per_s",
    "usd",
    "requests",
    "x",
]
_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(),
    st.text(max_size=6),
    st.sampled_from(["groq/m", "2026-07-15", "fr", "translate"]),
)
_json = st.recursive(
    _leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.one_of(st.sampled_from(_NAMES), st.text(max_size=4)), inner, max_size=4),
    ),
    max_leaves=25,
)


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(value=_json, version=st.sampled_from([1, 1, 0, "1", None]))
def test_every_json_state_file_validates_whatever_it_holds(
    tmp_path: Path, value: object, version: object
) -> None:
    from fastdesk.document.blocks import parse
    from fastdesk.review import autosave
    from fastdesk.review.model import load_review, review_path
    from fastdesk.routing.costs import CostLedger
    from fastdesk.routing.stats import StatsStore

    folder = tmp_path / f"case{os.urandom(6).hex()}"
    folder.mkdir()
    shaped = {"version": version, "days": value, "choices": value, "languages": {"fr": value}}
    for content in (value, shaped, {**shaped, "source": "x", "pid": value, "review": value}):
        text = json.dumps(content, allow_nan=True)
        (folder / "router-stats.json").write_text(text, encoding="utf-8")
        StatsStore.load(folder / "router-stats.json")
        (folder / "costs.json").write_text(text, encoding="utf-8")
        ledger = CostLedger(folder / "costs.json")
        ledger.today()
        ledger.close()
        source = folder / "g.md"
        source.write_text(DOC, encoding="utf-8")
        review_path(source).write_text(text, encoding="utf-8")
        load_review(source, "fr", parse(DOC))
        assert source.read_text(encoding="utf-8") == DOC
        (folder / "autosave").mkdir(exist_ok=True)
        (folder / "autosave" / "a.json").write_text(text, encoding="utf-8")
        for found in autosave.pending(folder / "autosave", include_running=True):
            _ = found.label
            autosave.restore(found)
