"""Docusaurus' theme strings (``i18n/fr/code.json``, the navbar's, footer's and blog's JSON, as
``docusaurus write-translations --locale fr`` writes them: tests/data/sites/docusaurus/i18n) are
translated by ``fastdesk translate DIR --to fr``: every message in English changes, keys,
descriptions, placeholders, plural forms and the spaces around a message stay byte for byte,
the theme's own French (as Docusaurus ships it, or sure to be French) is neither sent nor
changed, and a translator's change survives the next run, which translates only what
write-translations added since."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from fastdesk.cli.main import run
from tests.emulator import Emulator
from tests.project_kit import make_project, sent, use_emulator
from tests.translating import translate_everything

THEME = Path(__file__).parent / "data" / "sites" / "docusaurus" / "i18n"
FILES = (
    "code.json",
    "docusaurus-theme-classic/navbar.json",
    "docusaurus-theme-classic/footer.json",
    "docusaurus-plugin-content-blog/options.json",
)
FRENCH = "Nous n'avons pas trouvé ce que vous recherchez."


@pytest.fixture
def emu(monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    with Emulator(answer=translate_everything) as e:
        use_emulator(monkeypatch, e)
        e.configure(rate_limits=None)
        yield e


def _load(path: Path) -> dict[str, dict[str, str]]:
    data: dict[str, dict[str, str]] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _shape(message: str) -> tuple[list[str], int, str, str]:
    """What Docusaurus reads out of a message: placeholders, plural forms, edge spaces."""
    stripped = message.strip()
    lead, trail = message[: message.index(stripped)], message[len(message.rstrip()) :]
    return sorted(re.findall(r"\{\w+\}", message)), message.count("|"), lead, trail


def test_theme_strings_are_translated_in_the_files_docusaurus_reads(
    tmp_path: Path, emu: Emulator
) -> None:
    root = make_project(tmp_path, "docusaurus")
    shutil.copytree(THEME / "fr", root / "i18n/fr")
    # the theme's own French, as Docusaurus ships it: English where it has no translation
    shipped = root / "node_modules/@docusaurus/theme-translations/locales"
    copy, system = "theme.CodeBlock.copy", "theme.colorToggle.ariaLabel.mode.system"
    for locale, messages in (
        ("base", {copy: "Copy", system: "system mode"}),
        ("fr", {copy: "Copier", system: "system mode"}),
    ):
        (shipped / locale).mkdir(parents=True)
        (shipped / locale / "theme-common.json").write_text(json.dumps(messages), "utf-8")
    before = {name: _load(root / "i18n/fr" / name) for name in FILES}
    assert run(["translate", str(root), "--to", "fr"]) == 0

    for name in FILES:
        theirs, ours = before[name], _load(root / "i18n/fr" / name)
        assert list(ours) == list(theirs), name  # every key, in order
        for key, entry in theirs.items():
            assert set(ours[key]) == set(entry), key
            assert ours[key]["description"] == entry["description"], key
            if entry["message"] in (FRENCH, "Copier"):  # the theme's French: kept, not sent
                assert ours[key]["message"] == entry["message"]
                continue
            assert ours[key]["message"] != entry["message"], key
            assert _shape(ours[key]["message"]) == _shape(entry["message"]), key
    assert FRENCH not in sent(emu) and "Copier" not in sent(emu)
    code = _load(root / "i18n/fr/code.json")
    assert code["theme.lastUpdated.atDate"]["message"].startswith(" ")
    assert code["homepage.posts"]["message"].count("|") == 1

    # a translator's message stays; what write-translations adds later is translated alone
    code["homepage.tagline"]["message"] = "Les dinosaures, c'est génial"
    code["homepage.more"] = {"message": "Read the documentation", "description": "A link"}
    (root / "i18n/fr/code.json").write_text(
        json.dumps(code, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )
    emu.reset_records()
    assert run(["translate", str(root), "--to", "fr"]) == 0
    after = _load(root / "i18n/fr/code.json")
    assert after["homepage.tagline"]["message"] == "Les dinosaures, c'est génial"
    assert after["homepage.more"]["message"] not in ("", "Read the documentation")
    assert {k: v for k, v in after.items() if k != "homepage.more"} == {
        k: v for k, v in code.items() if k != "homepage.more"
    }
    assert "documentation" in sent(emu) and "dinosaures" not in sent(emu)
    assert "system mode" not in sent(emu)  # translated once, by the first run


def test_a_theme_file_that_is_not_a_translation_file_is_left_alone(
    tmp_path: Path, emu: Emulator
) -> None:
    root = make_project(tmp_path, "docusaurus")
    broken = '{"theme.x": {"message": "Half a file'
    (root / "i18n/fr").mkdir(parents=True)
    (root / "i18n/fr/code.json").write_text(broken, encoding="utf-8")
    assert run(["translate", str(root), "--to", "fr"]) == 0
    assert (root / "i18n/fr/code.json").read_text(encoding="utf-8") == broken
