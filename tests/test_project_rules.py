"""The rules docs/command-line.md, docs/projects.md and docs/house-style.md state for a docs
project hold on one: an answer that is the source unchanged leaves the page partial (exit 1,
written only with --allow-partial) and asked again; a house style change makes the pages it
affects stale and the next run translates them again; `fastdesk status` exits 0 on a project
that names no target language."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from fastdesk.cli.main import run
from fastdesk.project.layout import ProjectError, find_project, set_languages
from tests.emulator import Emulator
from tests.project_kit import answer_in_language, make_project, use_emulator, write

ENGLISH = (
    "The editor translates each paragraph while you type, and it keeps every link intact, "
    "so the reader never loses the thread."
)
FRENCH = (
    "L'éditeur traduit chaque paragraphe pendant que vous tapez, et il garde chaque lien "
    "intact, pour que le lecteur ne perde jamais le fil."
)


@pytest.fixture
def emu(monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    with Emulator(answer=answer_in_language) as e:
        use_emulator(monkeypatch, e)
        yield e


def _status(capsys: pytest.CaptureFixture[str], root: Path, *extra: str) -> dict[str, object]:
    capsys.readouterr()
    assert run(["status", str(root), "--json", *extra]) == 0
    data: dict[str, object] = json.loads(capsys.readouterr().out)
    return data


def test_an_echoed_page_is_partial_not_written_and_asked_again(
    tmp_path: Path, emu: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path, "mkdocs-suffix")
    write(root / "docs/index.md", f"# Home\n\n{ENGLISH}\n")
    target, report = root / "docs/index.fr.md", tmp_path / "report.json"
    emu.configure(answer=None)  # every answer is the source unchanged
    assert run(["translate", str(root), "--to", "fr", "--report", str(report)]) == 1
    assert not target.exists()
    err = capsys.readouterr().err
    assert "docs/index.md → docs/index.fr.md: not written: 1 blocks not translated (lines 3" in err
    assert "; 1 not written" in err
    doc = next(
        d for d in json.loads(report.read_text())["documents"] if d["input"] == "docs/index.md"
    )
    assert doc["status"] == "partial" and doc["not_translated"] == [1]

    assert run(["translate", str(root), "--to", "fr", "--allow-partial"]) == 1
    assert target.read_text(encoding="utf-8") == f"# Home\n\n{ENGLISH}\n"  # the source there
    entry = next(f for f in _status(capsys, root)["files"] if f["source"] == "docs/index.md")  # type: ignore[attr-defined]
    assert entry["state"] == "stale" and entry["stale"] == 1

    emu.configure(answer=lambda m: answer_in_language(m).replace(ENGLISH, FRENCH))
    before = emu.request_count
    assert run(["translate", str(root), "--to", "fr"]) == 0
    assert emu.request_count > before
    assert target.read_text(encoding="utf-8") == f"# Home\n\n{FRENCH}\n"


def test_a_house_style_change_makes_its_language_stale_and_is_translated_again(
    tmp_path: Path, emu: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path, "mkdocs-suffix")
    style = write(root / ".fastdesk-style.md", "## fr\n\nVouvoiement.\n\n## de\n\nSiezen.\n")
    assert run(["translate", str(root), "--to", "fr,de"]) == 0
    totals = _status(capsys, root, "--to", "fr,de")["totals"]
    assert totals["up_to_date"] == 4 and totals["stale"] == 0  # type: ignore[index]

    style.write_text("## fr\n\nTutoiement.\n\n## de\n\nSiezen.\n", encoding="utf-8")
    files = _status(capsys, root, "--to", "fr,de")["files"]
    stale = {(f["source"], f["lang"]) for f in files if f["state"] == "stale"}  # type: ignore[attr-defined]
    assert stale == {("docs/index.md", "fr"), ("docs/sub/guide.md", "fr")}  # French only
    before = emu.request_count
    assert run(["translate", str(root), "--to", "fr,de"]) == 0
    sent = emu.chat_requests[before:]
    assert sent and all("Tutoiement" in r.body["messages"][0]["content"] for r in sent)
    totals = _status(capsys, root, "--to", "fr,de")["totals"]
    assert totals["up_to_date"] == 4 and totals["stale"] == 0  # type: ignore[index]


def test_status_on_a_project_without_target_languages_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path / "mkdocs.yml", "site_name: t\n")
    write(tmp_path / "docs/index.md", "# Home\n")
    assert run(["status", str(tmp_path)]) == 0
    assert "no target languages" in capsys.readouterr().err
    data = _status(capsys, tmp_path)
    assert data["files"] == [] and data["project"]["languages"] == []  # type: ignore[index]


def test_naming_the_languages_keeps_the_rest_of_the_configuration(tmp_path: Path) -> None:
    config = write(
        tmp_path / ".fastdesk.toml",
        'source = "en"\n\n[[roots]]\nsource = "manual"\ntarget = "translations/{lang}/{path}"\n',
    )
    write(tmp_path / "manual/index.md", "# Home\n")
    assert find_project(tmp_path).languages == ()
    set_languages(tmp_path, ("fr",))
    assert config.read_text(encoding="utf-8").startswith('languages = ["fr"]\nsource = "en"\n')
    set_languages(tmp_path, ("fr", "de"))
    project = find_project(tmp_path)
    assert project.languages == ("fr", "de") and project.roots[0].source == "manual"
    with pytest.raises(ProjectError, match="BCP-47"):
        set_languages(tmp_path, ("../x",))
    assert find_project(tmp_path).languages == ("fr", "de")


def test_links_and_assets_as_each_generator_resolves_them(
    tmp_path: Path, emu: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path / "docusaurus", "docusaurus")
    page = (
        "import shot from './img/shot.png';\n\n# Step\n\n"
        "<img src={require('./img/logo.png').default} alt=\"Logo\" />\n\n"
        "![Step](./img/logo.png) and [the intro](../intro.md)\n"
    )
    write(root / "docs/tutorial/images.mdx", page)
    assert run(["translate", str(root), "--to", "fr"]) == 0
    target = root / "i18n/fr/docusaurus-plugin-content-docs/current/tutorial/images.mdx"
    up = "../../../../../docs/tutorial/img"  # i18n/fr/… has no img/ of its own
    assert target.read_text(encoding="utf-8") == (
        f"import shot from '{up}/shot.png';\n\n# Étape {{/* #step */}}\n\n"
        f"<img src={{require('{up}/logo.png').default}} alt=\"Logo\" />\n\n"
        f"![Étape]({up}/logo.png) and [the intro](../intro.md)\n"
    )

    hugo = make_project(tmp_path / "hugo", "hugo-folder")
    write(
        hugo / "content/en/posts/second.md", "# Step\n\n[first](../first/) and ![Step](pic.png)\n"
    )
    assert run(["translate", str(hugo), "--to", "fr"]) == 0
    assert (hugo / "content/fr/posts/second.md").read_text(encoding="utf-8") == (
        "# Étape {#step}\n\n[first](../first/) and ![Étape](pic.png)\n"
    )  # Hugo resolves both by the page's path in its own language: left as they are


def test_docusaurus_category_labels_are_translated_where_docusaurus_reads_them(
    tmp_path: Path, emu: Emulator
) -> None:
    root = make_project(tmp_path, "docusaurus")
    write(
        root / "sidebars.js",
        "// a comment: items: [\nconst sidebars = {\n"
        "  tutorialSidebar: [{type: 'autogenerated', dirName: '.'}],\n};\n"
        "module.exports = sidebars;\n",
    )
    category = {
        "label": "Step by step",
        "link": {"type": "generated-index", "description": "Step one first."},
    }
    write(root / "docs/tutorial/_category_.json", json.dumps(category))
    current = root / "i18n/fr/docusaurus-plugin-content-docs/current.json"
    key = "sidebar.tutorialSidebar.category.Step by step"
    write(current, json.dumps({"theme.kept": {"message": "gardé"}}))
    assert run(["translate", str(root), "--to", "fr"]) == 0
    data = json.loads(current.read_text(encoding="utf-8"))
    assert data["theme.kept"] == {"message": "gardé"}
    assert data[key]["message"] == "Étape by step"
    assert data[f"{key}.link.generated-index.description"]["message"] == "Étape one first."
    # a translator's label is theirs: a later run keeps it
    data[key]["message"] = "Pas à pas"
    current.write_text(json.dumps(data), encoding="utf-8")
    write(root / "docs/intro.md", "# Step\n\nStep again.\n")
    assert run(["translate", str(root), "--to", "fr"]) == 0
    assert json.loads(current.read_text(encoding="utf-8"))[key]["message"] == "Pas à pas"


def test_a_hugo_page_that_sets_its_url_gets_an_address_in_its_own_language(
    tmp_path: Path, emu: Emulator
) -> None:
    """Hugo: a `url` with a leading slash is the same address in every language (the French
    page would be written over the English one); without it, under the language's prefix."""
    root = make_project(tmp_path, "hugo-folder")
    yaml = "---\ntitle: Step\nurl: /commands/step/\naliases: [/old/]\n---\n\nStep one.\n\n"
    toml = (  # a table's url ([cascade]'s, for the pages below) is not the page's
        "+++\ntitle = 'Step'\nurl = \"/commands/step-two\"\n[cascade]\nurl = '/:slug/'\n+++\n\n"
        "Step two.\n"
    )
    kept = (
        "---\ntitle: Step\nurl: https://example.org/step/\ncascade:\n  url: /:slug/\n---\n\n"
        "Step three.\n\n```yaml\nurl: /in/code/\n```\n"
    )
    write(root / "content/en/commands/step.md", yaml + "url: /not/front/matter/\n")
    write(root / "content/en/commands/two.md", toml)
    write(root / "content/en/commands/three.md", kept)
    assert run(["translate", str(root), "--to", "fr"]) == 0
    fr = root / "content/fr/commands"
    assert (fr / "step.md").read_text(encoding="utf-8") == (
        "---\ntitle: Étape\nurl: commands/step/\naliases: [/old/]\n---\n\nÉtape one.\n\n"
        "url: /not/front/matter/\n"
    )
    assert (fr / "two.md").read_text(encoding="utf-8") == (
        "+++\ntitle = 'Étape'\nurl = \"commands/step-two\"\n[cascade]\nurl = '/:slug/'\n+++\n\n"
        "Étape two.\n"
    )
    assert (fr / "three.md").read_text(encoding="utf-8") == kept.replace("Step", "Étape")
    source = (root / "content/en/commands/step.md").read_text(encoding="utf-8")
    assert source == yaml + "url: /not/front/matter/\n"  # the source keeps its own address
