"""Every house file (style, glossary in each format, the corrections' review files, a project's
configuration at any level) is read only inside the project: a committed symlink out is refused
in one line naming it and nothing of it is sent; one swapped in while it is opened is refused
too. Each test is a file an attacker could commit to a project someone clones."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from fastdesk.cli.main import run
from fastdesk.config import fileio
from fastdesk.config.settings import Settings
from fastdesk.project.house import house_for
from fastdesk.project.layout import enclosing_project
from tests.emulator import Emulator
from tests.project_kit import answer_in_language, make_project, sent, use_emulator, write
from tests.test_corrections import reviewed

SECRET = "TOP-SECRET-42 password=hunter2"


@pytest.fixture
def emu(monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    with Emulator(answer=answer_in_language) as e:
        use_emulator(monkeypatch, e)
        yield e


def secret_file(tmp_path: Path, name: str, text: str) -> Path:
    return write(tmp_path / "home" / ".ssh" / name, text)


GLOSSARIES = {
    ".fastdesk-glossary.toml": f'[translate.fr]\n"Step" = "{SECRET}"\n',
    ".fastdesk-glossary.tbx": (
        '<martif type="TBX" xml:lang="en"><text><body><termEntry>'
        '<langSet xml:lang="en"><tig><term>Step</term></tig></langSet>'
        f'<langSet xml:lang="fr"><tig><term>{SECRET}</term></tig></langSet>'
        "</termEntry></body></text></martif>\n"
    ),
    ".fastdesk-glossary.tsv": f"en\tfr\nStep\t{SECRET}\n",
    ".fastdesk-glossary.csv": f"en,fr\nStep,{SECRET}\n",
}


@pytest.mark.parametrize("single_page", [False, True], ids=["project", "page"])
def test_a_style_file_linked_out_is_refused_in_one_line_and_not_sent(
    tmp_path: Path, emu: Emulator, capsys: pytest.CaptureFixture[str], single_page: bool
) -> None:
    secret = secret_file(tmp_path, "id_rsa", f"## All languages\n{SECRET}\n")
    site = make_project(tmp_path / "site", "mkdocs-suffix")
    os.symlink(secret, site / ".fastdesk-style.md")
    target = site / "docs" / "index.md" if single_page else site
    args = ["translate", str(target), "--to", "fr", "--no-memory"]
    if single_page:
        args += ["-o", str(tmp_path / "out.md")]
    assert run(args) == 0
    err = capsys.readouterr().err
    assert emu.request_count >= 1
    assert "TOP-SECRET" not in sent(emu)
    lines = [line for line in err.splitlines() if ".fastdesk-style.md" in line]
    assert len(lines) == 1 and "outside the project" in lines[0]
    assert "TOP-SECRET" not in err


@pytest.mark.parametrize("name", list(GLOSSARIES))
def test_a_glossary_linked_out_in_every_format_is_refused_and_not_sent(
    tmp_path: Path, emu: Emulator, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    secret = secret_file(tmp_path, "terms" + Path(name).suffix, GLOSSARIES[name])
    site = make_project(tmp_path / "site", "mkdocs-suffix")
    os.symlink(secret, site / name)
    assert run(["translate", str(site), "--to", "fr", "--no-memory"]) == 0
    err = capsys.readouterr().err
    assert emu.request_count >= 1
    assert "TOP-SECRET" not in sent(emu)
    lines = [line for line in err.splitlines() if name in line]
    assert len(lines) == 1 and "outside the project" in lines[0]


def test_the_same_glossary_inside_the_project_is_used(tmp_path: Path, emu: Emulator) -> None:
    """The check refuses the link, not the file: a real one (or a link inside) is sent."""
    site = make_project(tmp_path / "site", "mkdocs-suffix")
    real = write(site / "terms" / "glossary.toml", GLOSSARIES[".fastdesk-glossary.toml"])
    os.symlink(real, site / ".fastdesk-glossary.toml")
    assert run(["translate", str(site), "--to", "fr", "--no-memory"]) == 0
    assert "TOP-SECRET" in sent(emu)


def test_review_files_linked_out_give_no_examples(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    theirs = reviewed(outside / "guide.md")  # someone's approved corrections, outside
    here = tmp_path / "clone"
    (here / ".git").mkdir(parents=True)
    write(here / "guide.md", (outside / "guide.md").read_text(encoding="utf-8"))
    os.symlink(theirs, here / theirs.name)
    bank = house_for(here / "guide.md", Settings()).examples("fr")
    assert bank is not None and len(bank) == 0
    (here / theirs.name).unlink()  # the same file inside: 4 corrections
    write(here / theirs.name, theirs.read_text(encoding="utf-8"))
    bank = house_for(here / "guide.md", Settings()).examples("fr")
    assert bank is not None and len(bank) == 4


def test_a_project_configuration_linked_out_at_a_lower_level_is_not_read(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    secret = secret_file(tmp_path, "config.toml", 'languages = ["fr"]\nlayout = "mirror"\n')
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    page = write(repo / "sub" / "en" / "index.md", "# Hi\n")
    os.symlink(secret, repo / "sub" / ".fastdesk.toml")
    with caplog.at_level("WARNING", logger="fastdesk"):
        assert enclosing_project(page) is None  # not taken as the page's project
    (line,) = [r.getMessage() for r in caplog.records]
    assert ".fastdesk.toml" in line and "outside the project" in line


def test_a_link_swapped_in_while_a_house_file_is_opened_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = secret_file(tmp_path, "id_rsa", SECRET)
    site = tmp_path / "site"
    style = write(site / ".fastdesk-style.md", "Short sentences.\n")
    real_lstat = os.lstat

    def swap_after_check(path: str | os.PathLike[str], *a: object, **k: object) -> os.stat_result:
        result = real_lstat(path)
        if Path(path) == style.resolve():  # checked: now the attacker swaps in a link
            style.unlink()
            os.symlink(secret, style)
        return result

    monkeypatch.setattr(os, "lstat", swap_after_check)
    with pytest.raises(fileio.Outside) as info:
        fileio.read_confined(style, site, 1000)
    assert str(style) in str(info.value) and "not read" in str(info.value)


def test_a_file_replaced_after_its_check_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not a link: another file renamed over it (its identity differs from the one checked)."""
    site = tmp_path / "site"
    style = write(site / ".fastdesk-style.md", "Short sentences.\n")
    other = write(site / "other", SECRET)
    real_lstat = os.lstat

    def replace_after_check(
        path: str | os.PathLike[str], *a: object, **k: object
    ) -> os.stat_result:
        result = real_lstat(path)
        if Path(path) == style.resolve():
            os.replace(other, style)
        return result

    monkeypatch.setattr(os, "lstat", replace_after_check)
    with pytest.raises(fileio.Outside):
        fileio.read_confined(style, site, 1000)


def test_nul_bytes_in_a_style_file_are_not_sent(
    tmp_path: Path, emu: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    site = make_project(tmp_path / "site", "mkdocs-suffix")
    (site / ".fastdesk-style.md").write_bytes(b"## All languages\nShort\x00 sentences.\n")
    assert run(["translate", str(site), "--to", "fr", "--no-memory"]) == 0
    err = capsys.readouterr().err
    assert emu.request_count >= 1
    assert "\\u0000" not in sent(emu) and "Short" not in sent(emu)
    lines = [line for line in err.splitlines() if ".fastdesk-style.md" in line]
    assert len(lines) == 1 and "NUL" in lines[0]


def test_too_large_says_two_different_figures(tmp_path: Path) -> None:
    path = write(tmp_path / "style.md", "x" * 65_601)
    with pytest.raises(fileio.BrokenFile) as info:
        fileio.read_file_bytes(path, 64 * 1024)
    assert info.value.reason == "too large (65,601 bytes; the limit is 65,536 bytes)"
