"""Docs projects: layouts, `fastdesk translate DIR`, `fastdesk status`, hand-edited targets."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

import pytest

from fastdesk.cli.main import run
from fastdesk.project.layout import ProjectError, find_project
from fastdesk.project.links import rebase_links
from tests.emulator import Emulator
from tests.project_kit import LAYOUTS, answer_in_language, make_project, page, use_emulator, write


@pytest.fixture
def emu(monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    with Emulator(answer=answer_in_language) as e:
        use_emulator(monkeypatch, e)
        yield e


def status(capsys: pytest.CaptureFixture[str], root: Path, *extra: str) -> dict:
    capsys.readouterr()
    assert run(["status", str(root), "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_layout_is_detected_with_sources_and_targets(layout: str, tmp_path: Path) -> None:
    _files, sources, first_target = LAYOUTS[layout]
    project = find_project(make_project(tmp_path, layout))
    assert project.layout == layout
    assert project.languages == ("fr",)
    assert [s.as_posix() for s in project.sources()] == sources
    assert project.target(project.sources()[0], "fr").as_posix() == first_target


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_translate_dir_then_second_run_then_one_paragraph_edit(
    layout: str, tmp_path: Path, emu: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path / "site", layout)
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    assert run(["translate", str(root), "--to", "fr,de"]) == 0
    first = emu.request_count
    assert first >= 2  # both languages went out
    project = find_project(root, ("fr", "de"))
    for source in project.sources():
        for lang, word in (("fr", "Étape"), ("de", "Schritt")):
            target = (root / project.target(source, lang)).read_text(encoding="utf-8")
            assert f"{word} 0 of" in target
            assert "Step --not-translated" in target  # code is kept
    for path, data in before.items():  # sources and other files untouched
        assert path.read_bytes() == data
    report = status(capsys, root, "--to", "fr,de")
    assert {f["state"] for f in report["files"]} == {"up_to_date"}

    assert run(["translate", str(root), "--to", "fr,de"]) == 0
    assert emu.request_count == first  # a second run makes no request

    # a translator fixes the German target of the last page by hand
    last_de = root / project.target(project.sources()[-1], "de")
    fixed = last_de.read_text(encoding="utf-8").replace("Schritt 0 of", "Schritt null von", 1)
    last_de.write_text(fixed, encoding="utf-8")

    edited = root / project.sources()[0]
    edited.write_text(
        edited.read_text(encoding="utf-8").replace("thing number 1.", "other thing, 1."),
        encoding="utf-8",
    )
    report = status(capsys, root, "--to", "fr,de")
    stale = [f for f in report["files"] if f["state"] == "stale"]
    source_name = project.sources()[0].as_posix()
    assert sorted((f["source"], f["lang"], f["stale"]) for f in stale) == [
        (source_name, "de", 1),
        (source_name, "fr", 1),
    ]
    assert run(["translate", str(root), "--to", "fr,de"]) == 0
    assert emu.request_count == first + 2  # one paragraph, two languages
    sent = [r.body["messages"][-1]["content"] for r in emu.chat_requests[-2:]]
    assert all("other thing, 1." in s and "thing number 0" not in s for s in sent)
    fr = (root / project.target(project.sources()[0], "fr")).read_text(encoding="utf-8")
    assert "Étape 1 of" in fr and "other thing, 1." in fr
    if len(project.sources()) > 1:  # the hand edit was taken in, not written over
        assert last_de.read_text(encoding="utf-8") == fixed
        entry = next(
            f
            for f in status(capsys, root, "--to", "fr,de")["files"]
            if f["source"] == project.sources()[-1].as_posix() and f["lang"] == "de"
        )
        assert entry["edited"] == 1 and entry["state"] == "up_to_date"


def test_hand_edited_target_becomes_the_editors_correction(
    tmp_path: Path, emu: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path, "mkdocs-suffix")
    assert run(["translate", str(root), "--to", "fr"]) == 0
    target = root / "docs/index.fr.md"
    fixed = target.read_text(encoding="utf-8").replace(
        "Étape 2 of Home: do the thing number 2.", "Étape 2 de l'accueil : faites la chose 2."
    )
    target.write_text(fixed, encoding="utf-8")
    report = status(capsys, root)
    entry = next(f for f in report["files"] if f["source"] == "docs/index.md")
    assert entry["hand_edits"] == 1 and entry["state"] == "up_to_date"

    # the source changes elsewhere: the translator's block survives, the changed one is sent
    source = root / "docs/index.md"
    source.write_text(
        source.read_text(encoding="utf-8").replace("number 0.", "number zero."), encoding="utf-8"
    )
    count = emu.request_count
    assert run(["translate", str(root)]) == 0
    assert emu.request_count == count + 1
    text = target.read_text(encoding="utf-8")
    assert "Étape 2 de l'accueil : faites la chose 2." in text
    assert "Étape 0 of Home: do the thing number zero." in text
    sidecar = json.loads((root / "docs/index.md.fastdesk.json").read_text(encoding="utf-8"))
    kept = [b for b in sidecar["languages"]["fr"]["blocks"] if b.get("edited")]
    assert [b["text"] for b in kept] == ["Étape 2 de l'accueil : faites la chose 2.\n\n"]
    # and a later run neither requests nor writes over it
    assert run(["translate", str(root)]) == 0
    assert emu.request_count == count + 1
    assert "faites la chose 2." in target.read_text(encoding="utf-8")


def test_an_existing_translation_is_taken_in_not_retranslated(
    tmp_path: Path, emu: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path, "mirror")
    human = page("Accueil").replace("Step", "Étape").replace("Étape --", "Step --")
    write(root / "fr/index.md", human)
    assert run(["translate", str(root)]) == 0
    assert (root / "fr/index.md").read_text(encoding="utf-8") == human
    sent = " ".join(r.body["messages"][-1]["content"] for r in emu.chat_requests)
    assert "of Deep" in sent and "of Home" not in sent  # only the page with no translation
    entry = next(f for f in status(capsys, root)["files"] if f["source"] == "en/index.md")
    assert entry["edited"] == 4 and entry["state"] == "up_to_date"


def test_links_and_images_keep_working_from_the_target_folder(
    tmp_path: Path, emu: Emulator
) -> None:
    root = tmp_path
    write(root / "docusaurus.config.js", "module.exports = {i18n: {defaultLocale: 'en'}};")
    write(
        root / "docs/intro.md",
        "# Intro\n\nSee [basics](tutorial/basics.md#top), ![logo](../static/logo.png) and "
        "[site](https://example.com/x.md). Code `[a](b.md)` stays.\n\n[ref]: tutorial/basics.md\n",
    )
    write(root / "docs/tutorial/basics.md", "# Basics\n\nBack to [intro](../intro.md).\n")
    write(root / "static/logo.png", "png")
    assert run(["translate", str(root), "--to", "fr"]) == 0
    base = root / "i18n/fr/docusaurus-plugin-content-docs/current"
    intro = (base / "intro.md").read_text(encoding="utf-8")
    assert "[basics](tutorial/basics.md#top)" in intro  # the translated page, same relative path
    assert "![logo](../../../../static/logo.png)" in intro
    assert (base / "intro.md").parent.joinpath("../../../../static/logo.png").resolve() == (
        root / "static/logo.png"
    ).resolve()
    assert "[site](https://example.com/x.md)" in intro and "`[a](b.md)`" in intro
    assert "[ref]: tutorial/basics.md" in intro
    assert "[intro](../intro.md)" in (base / "tutorial/basics.md").read_text(encoding="utf-8")


def test_rebase_maps_pages_to_their_targets_and_assets_back() -> None:
    src, tgt = PurePosixPath("docs/en/a.md"), PurePosixPath("docs/fr/a.md")
    pages = {PurePosixPath("docs/en/b.md"): PurePosixPath("docs/fr/b.md")}
    text = "[b](b.md) ![i](img/x.png) [top](#top) [abs](/x.md)"
    out = rebase_links(text, src, tgt, pages.get)
    assert out == "[b](b.md) ![i](../en/img/x.png) [top](#top) [abs](/x.md)"
    back = {v: k for k, v in pages.items()}
    assert rebase_links(out, tgt, src, back.get) == text


def test_changed_since_limits_to_files_changed_in_git(
    tmp_path: Path, emu: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path, "mkdocs-suffix")

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)

    git("init", "-q")
    git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "docs", "--allow-empty")
    git("add", "-A")
    git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "docs")
    write(root / "docs/sub/guide.md", page("Guide", 4))
    assert run(["translate", str(root), "--changed-since", "HEAD"]) == 0
    assert (root / "docs/sub/guide.fr.md").is_file()
    assert not (root / "docs/index.fr.md").exists()  # not changed since HEAD: left for later
    assert run(["translate", str(root), "--changed-since", "nope"]) == 2
    assert "nope" in capsys.readouterr().err


def test_blocks_without_translation_fail_the_file_unless_allow_partial(
    tmp_path: Path, emu: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path, "mirror")
    emu.fail_status(401, times=None)
    assert run(["translate", str(root), "--to", "fr"]) == 1
    assert not (root / "fr/index.md").exists()
    assert "not written" in capsys.readouterr().err
    assert run(["translate", str(root), "--to", "fr", "--allow-partial"]) == 0
    assert (root / "fr/index.md").read_text(encoding="utf-8") == page("Home")
    assert "written with the source in place of" in capsys.readouterr().err
    emu.clear_faults()
    assert run(["translate", str(root), "--to", "fr"]) == 0
    assert "Étape 0" in (root / "fr/index.md").read_text(encoding="utf-8")


def test_fastdesk_toml_names_the_layout_and_bad_ones_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path / "manual/intro.md", page("Intro"))
    write(
        tmp_path / ".fastdesk.toml",
        'source = "en"\nlanguages = ["de", "es"]\n[[roots]]\nsource = "manual"\n'
        'target = "translations/{lang}/{path}"\n',
    )
    project = find_project(tmp_path)
    assert project.languages == ("de", "es")
    assert project.target(project.sources()[0], "es").as_posix() == "translations/es/intro.md"
    report = status(capsys, tmp_path)
    assert [(f["lang"], f["state"]) for f in report["files"]] == [
        ("de", "missing"),
        ("es", "missing"),
    ]
    write(tmp_path / ".fastdesk.toml", "layout = 'nope'\n")
    with pytest.raises(ProjectError, match="layout 'nope'"):
        find_project(tmp_path)
    assert run(["status", str(tmp_path)]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert run(["status", str(tmp_path / "absent")]) == 2


def test_a_hand_edit_survives_without_the_written_record(tmp_path: Path, emu: Emulator) -> None:
    """A target the window exported (a sidecar, no record of the write): the review's text is
    the base, so a hand-edited machine block is still taken in, not written over."""
    root = make_project(tmp_path, "hugo-folder")
    assert run(["translate", str(root), "--to", "fr"]) == 0
    (root / ".fastdesk/written.json").unlink()
    target = root / "content/fr/_index.md"
    text = target.read_text(encoding="utf-8").replace("Étape 1 of Home", "Étape un, à la main")
    target.write_text(text, encoding="utf-8")
    count = emu.request_count
    assert run(["translate", str(root), "--to", "fr"]) == 0
    assert emu.request_count == count
    assert target.read_text(encoding="utf-8") == text


DIALECT_PAGES = {
    "mkdocs-suffix": (
        "docs/index.md",
        '# Step\n\n--8<-- "Step.md"\n\n!!! note "Step"\n\n    Indented Step body.\n\n'
        'Step text.\n\n{: #Step }\n\n=== "Step"\n\n    Tab Step.\n',
        ['--8<-- "Step.md"', "{: #Step }"],
    ),
    "docusaurus": (
        "docs/intro.mdx",
        "import Step from './Step';\nexport const Step2 = 1;\n\n# Step\n\n<Tabs>\n\n"
        '<TabItem value="Step">\n\nStep in a tab.\n\n</TabItem>\n\n</Tabs>\n\n:::note\n\n'
        "Step note.\n\n:::\n\n:::tip[Step title]\n\nStep tip.\n\n:::\n",
        [
            "import Step from './Step';",
            "export const Step2 = 1;",
            '<TabItem value="Step">',
            ":::note",
        ],
    ),
    "hugo-folder": (
        "content/en/_index.md",
        '# Step\n\n{{< figure src="Step.png" >}}\n\n{{% notice Step %}}\n\nStep text.\n',
        ['{{< figure src="Step.png" >}}', "{{% notice Step %}}"],
    ),
}


# what the generator needs changed: a relative import from the target's folder (Docusaurus'
# i18n/fr/…), a translated heading's source anchor as an explicit id (Docusaurus, Hugo)
WRITTEN_AS = {
    "docusaurus": {
        "import Step from './Step';\n": "import Step from '../../../../docs/Step';\n",
        "# Step\n": "# Étape {/* #step */}\n",
    },
    "hugo-folder": {"# Step\n": "# Étape {#step}\n"},
}


@pytest.mark.parametrize("layout", sorted(DIALECT_PAGES))
def test_the_dialects_syntax_is_kept_byte_for_byte(
    layout: str, tmp_path: Path, emu: Emulator
) -> None:
    root = make_project(tmp_path, layout)
    name, text, kept = DIALECT_PAGES[layout]
    write(root / name, text)
    assert run(["translate", str(root), "--to", "fr"]) == 0
    project = find_project(root)
    target = (root / project.target(PurePosixPath(name), "fr")).read_text(encoding="utf-8")
    assert "# Étape" in target  # the prose is translated…
    sent = "\n".join(r.body["messages"][-1]["content"] for r in emu.chat_requests)
    changes = WRITTEN_AS.get(layout, {})
    for line in kept:  # …the syntax is neither sent nor changed
        assert changes.get(line + "\n", line).strip() in target and line not in sent
    expected = "".join(
        changes.get(line) or (line if line.strip() in kept else line.replace("Step", "Étape"))
        for line in text.splitlines(keepends=True)
    )
    assert target == expected


def test_mkdocs_admonition_and_tab_bodies_are_translated_as_markdown(
    tmp_path: Path, emu: Emulator
) -> None:
    root = make_project(tmp_path, "mkdocs-suffix")
    text = (
        '!!! warning "Careful Step"\n\n    Step one body.\n\n    - Step item\n\n'
        "    ```sh\n    Step --code\n    ```\n\n"
        "??? tip\n    Step lazy body,\n    second line.\n\n"
        '=== "Tab"\n\n\tStep in a tab.\n\nStep after.\n'
    )
    write(root / "docs/index.md", text)
    assert run(["translate", str(root), "--to", "fr"]) == 0
    target = (root / "docs/index.fr.md").read_text(encoding="utf-8")
    assert target == text.replace("Step", "Étape").replace("Étape --code", "Step --code")
    sent = [r.body["messages"][-1]["content"] for r in emu.chat_requests]
    # the title as a block of its own, without its syntax; a page's blocks and its containers'
    # pieces in one request (a command-line run is a backfill: nobody waits)
    assert any(re.search(r"(\A|-->\n)Careful Step(\n|\Z)", s) for s in sent)
    assert len(sent) == 2  # the two pages
    bodies = [s for s in sent if "Step one body." in s or "Step lazy body" in s]
    assert bodies and all(not s.startswith((" ", "!!!", "???")) for s in bodies)
    assert not any("Step --code" in s or "    Step" in s for s in sent)  # dedented; code kept
    count = emu.request_count
    assert run(["translate", str(root), "--to", "fr"]) == 0
    assert emu.request_count == count


def test_an_attribute_list_inside_a_block_is_never_sent_and_comes_back_as_it_was(
    tmp_path: Path, emu: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path, "mkdocs-suffix")
    source = "# Home\n\nStep one, with a class.\n{: .Step }\n\n*[Step]: kept as it is\n"
    write(root / "docs/index.md", source)
    assert run(["translate", str(root), "--to", "fr"]) == 0
    target = (root / "docs/index.fr.md").read_text("utf-8")
    assert target == source.replace("Step one", "Étape one")
    sent = "\n".join(r.body["messages"][-1]["content"] for r in emu.chat_requests)
    assert "Step one" in sent and "{: .Step }" not in sent and "*[Step]:" not in sent

    # a model that drops the token in its place: the syntax is put back, and flagged
    edited = source.replace("one", "two").replace("as it is", "as is")
    (root / "docs/index.md").write_text(edited, "utf-8")
    emu.configure(answer=lambda m: re.sub(r"\{\{\d+\}\}", "", answer_in_language(m)))
    assert run(["translate", str(root), "--to", "fr"]) == 0
    target = (root / "docs/index.fr.md").read_text("utf-8")
    assert "{: .Step }" in target and "*[Step]:" in target
    entry = next(f for f in status(capsys, root)["files"] if f["source"] == "docs/index.md")
    assert entry["flagged"] == 2
    sidecar = json.loads((root / "docs/index.md.fastdesk.json").read_text("utf-8"))
    flags = [b["flags"] for b in sidecar["languages"]["fr"]["blocks"] if "flags" in b]
    assert flags == [
        [["dialect", "{: .Step } lost by the answer; put back"]],
        [["dialect", "*[Step]: lost by the answer; put back"]],
    ]


def test_a_shortcut_reference_whose_text_is_translated_is_neither_retried_nor_flagged(
    tmp_path: Path, emu: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path, "mkdocs-suffix")
    source = "# Home\n\nRead the [Step guide] first.\n\n[Step guide]: sub/guide.md\n"
    write(root / "docs/index.md", source)
    before = emu.request_count
    assert run(["translate", str(root), "--to", "fr"]) == 0
    target = (root / "docs/index.fr.md").read_text("utf-8")
    assert "Read the [Étape guide][Step guide] first." in target  # the label kept
    assert "[Step guide]: sub/guide.md" in target
    assert emu.request_count - before == 2  # the two pages, no retry
    entry = next(f for f in status(capsys, root)["files"] if f["source"] == "docs/index.md")
    assert entry["flagged"] == 0


def test_a_folder_without_languages_or_with_file_options_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path / "en/index.md", page("Home"))
    for extra in ([], ["--to", "fr", "-o", "x.md"], ["--to", "fr", "--mode", "simplify"]):
        capsys.readouterr()
        assert run(["translate", str(tmp_path), *extra]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("fastdesk translate: ")
    assert not list(tmp_path.rglob("*.fastdesk.json"))
    assert run(["translate", str(tmp_path / "en/index.md"), "--changed-since", "HEAD"]) == 2


def test_separate_hand_edits_stay_with_their_own_blocks(tmp_path: Path, emu: Emulator) -> None:
    root = make_project(tmp_path, "mirror")
    write(root / "en/index.md", page("Home", 6))
    assert run(["translate", str(root), "--to", "fr"]) == 0
    target = root / "fr/index.md"
    text = target.read_text(encoding="utf-8")
    text = text.replace("Étape 1 of Home", "Première étape").replace("number 4.", "numéro 4.")
    text = text.replace("Étape 5 of Home: do the thing number 5.\n\n", "")  # deleted
    target.write_text(text, encoding="utf-8")
    assert run(["translate", str(root), "--to", "fr"]) == 0
    assert target.read_text(encoding="utf-8") == text
    sidecar = json.loads((root / "en/index.md.fastdesk.json").read_text("utf-8"))
    edited = [(b["i"], b["text"]) for b in sidecar["languages"]["fr"]["blocks"] if b.get("edited")]
    # paragraphs 1 and 4 (blocks 2 and 5) and the deleted one (6); where a blank line between
    # two changed blocks goes is the diff's choice: the written file is exact either way
    assert [i for i, _t in edited] == [2, 5, 6]
    assert edited[0][1] == "Première étape: do the thing number 1.\n\n"
    assert edited[1][1].startswith("Étape 4 of Home: do the thing numéro 4.\n")
    assert "Étape 5" not in "".join(t for _i, t in edited)


def test_an_unreadable_target_is_never_written_over(
    tmp_path: Path, emu: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path, "mirror")
    bad = root / "fr/index.md"
    bad.parent.mkdir(parents=True, exist_ok=True)
    bad.write_bytes(b"\xff\xfe not UTF-8")
    assert run(["translate", str(root), "--to", "fr"]) == 1
    assert bad.read_bytes() == b"\xff\xfe not UTF-8"
    assert "cannot be read (not UTF-8" in capsys.readouterr().err
    assert (root / "fr/deep/page.md").is_file()  # the others are written
    entry = next(f for f in status(capsys, root)["files"] if f["source"] == "en/index.md")
    assert entry["state"] == "conflict"


def test_status_says_how_to_keep_mkdocs_from_publishing_the_review_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path / "site", "mkdocs-suffix")
    assert run(["status", str(root)]) == 0
    assert 'note: mkdocs.yml: add exclude_docs: "*.fastdesk.json"' in capsys.readouterr().out
    config = root / "mkdocs.yml"
    config.write_text(config.read_text() + 'exclude_docs: "*.fastdesk.json"\n')
    assert run(["status", str(root)]) == 0
    assert "note:" not in capsys.readouterr().out
    hugo = make_project(tmp_path / "hugo", "hugo-folder")
    assert run(["status", str(hugo)]) == 0
    assert "note:" not in capsys.readouterr().out


@pytest.mark.parametrize(
    ("layout", "home"),
    [
        ("mkdocs-suffix", "docs/index.md"),
        ("mkdocs-folder", "docs/en/index.md"),
        ("docusaurus", "docs/intro.md"),  # not the blog post that sorts first
        ("hugo-folder", "content/en/_index.md"),
        ("hugo-suffix", "content/_index.md"),
        ("mirror", "en/index.md"),  # not en/deep/page.md that sorts first
    ],
)
def test_the_home_page_is_the_index_page(layout: str, home: str, tmp_path: Path) -> None:
    project = find_project(make_project(tmp_path, layout))
    assert project.home_page() == PurePosixPath(home)


def test_the_home_page_prefers_the_shallowest_index_then_readme(tmp_path: Path) -> None:
    from tests.project_kit import page, write

    write(tmp_path / "mkdocs.yml", "site_name: t\n")
    for name in ("docs/en/faq.md", "docs/en/sub/index.md", "docs/en/README.md"):
        write(tmp_path / name, page("P"))
    (tmp_path / "docs/fr").mkdir()
    project = find_project(tmp_path)
    assert project.sources()[0] == PurePosixPath("docs/en/README.md")
    assert project.home_page() == PurePosixPath("docs/en/README.md")  # shallower than sub/index
    write(tmp_path / "docs/en/index.md", page("Home"))
    assert find_project(tmp_path).home_page() == PurePosixPath("docs/en/index.md")
