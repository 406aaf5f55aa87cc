"""Entries added to the project's glossary file (its other lines kept) and `fastdesk glossary`."""

from __future__ import annotations

from pathlib import Path

import pytest

from fastdesk.cli.main import run
from fastdesk.translate.glossary import GlossaryError, load_glossary
from fastdesk.translate.glossary_edit import add_translation, glossary_to_write
from tests.test_corrections import reviewed

FILE = """# The team's terms: keep this comment
[keep]
terms = ["fastdesk"]

[translate.fr]
"pull request" = "demande de fusion"   # agreed 2024

[translate.de]
"pull request" = "Pull-Request"
"""


def test_an_entry_goes_into_its_languages_table_and_nothing_else_moves(tmp_path: Path) -> None:
    path = tmp_path / ".fastdesk-glossary.toml"
    path.write_text(FILE, encoding="utf-8")
    assert add_translation(path, "fr", "branch", "branche")
    text = path.read_text(encoding="utf-8")
    assert text == FILE.replace("# agreed 2024\n", '# agreed 2024\nbranch = "branche"\n')
    assert load_glossary([path]).terms_for("fr") == {
        "pull request": "demande de fusion",
        "branch": "branche",
    }
    assert not add_translation(path, "fr", "Branch", "branche")  # already says so
    assert add_translation(path, "FR", "branch", "rameau")  # a change replaces its line
    assert load_glossary([path]).terms_for("fr")["branch"] == "rameau"
    assert path.read_text(encoding="utf-8").count("branch") == 1
    assert add_translation(path, "es", "branch", "rama")  # a new table at the end
    assert path.read_text(encoding="utf-8").endswith('\n\n[translate.es]\nbranch = "rama"\n')
    assert load_glossary([path]).terms_for("de") == {"pull request": "Pull-Request"}


def test_a_new_file_at_the_project_root_and_bad_ones_untouched(tmp_path: Path) -> None:
    doc = tmp_path / "site" / "docs" / "a.md"
    doc.parent.mkdir(parents=True)
    doc.write_text("x\n", encoding="utf-8")
    target = glossary_to_write(doc, top=tmp_path / "site")
    assert target == tmp_path / "site" / ".fastdesk-glossary.toml"
    assert add_translation(target, "fr", 'say "hi"', "dire « salut »")
    assert load_glossary([target]).terms_for("fr") == {'say "hi"': "dire « salut »"}
    broken = tmp_path / "bad.toml"
    broken.write_text("[translate.fr\n", encoding="utf-8")
    with pytest.raises(GlossaryError):
        add_translation(broken, "fr", "a", "b")
    assert broken.read_text(encoding="utf-8") == "[translate.fr\n"
    tbx = tmp_path / "g.tbx"
    with pytest.raises(GlossaryError, match="TBX or CSV"):
        add_translation(tbx, "fr", "a", "b")


def test_the_command_suggests_and_adds_what_the_editor_keeps_correcting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reviewed(tmp_path / "notes" / "guide.md")
    assert run(["glossary", "suggest", str(tmp_path / "notes"), "--to", "fr"]) == 0
    out = capsys.readouterr().out
    assert 'you changed "Tirez" to "Extrayez" 3 times (for "Pull")' in out
    assert not (tmp_path / "notes" / ".fastdesk-glossary.toml").exists()
    assert run(["glossary", "suggest", str(tmp_path / "notes"), "--to", "fr", "--add"]) == 0
    written = tmp_path / "notes" / ".fastdesk-glossary.toml"
    assert load_glossary([written]).terms_for("fr") == {"Pull": "Extrayez"}
    assert run(["glossary", "suggest", str(tmp_path / "notes"), "--to", "fr"]) == 0
    assert "no change made 3 times" in capsys.readouterr().out  # the glossary says it now
    doc = tmp_path / "notes" / "guide.md"
    assert run(["glossary", "add", "image", "image", "--to", "fr", "--in", str(doc)]) == 0
    assert load_glossary([written]).terms_for("fr")["image"] == "image"
