"""Glossaries from translation tools: TBX (written here by translate-toolkit, an independent
writer), OmegaT's TSV and CSV with a row of language codes."""

from __future__ import annotations

from pathlib import Path

import pytest
from translate.storage import tbx as tt_tbx

from fastdesk.translate.glossary import GlossaryError, find_folder_glossary, load_glossary


def test_tbx_from_translate_toolkit(tmp_path: Path) -> None:
    store = tt_tbx.tbxfile(sourcelanguage="en", targetlanguage="fr")
    store.addsourceunit("pull request").target = "demande de fusion"
    store.addsourceunit("fastdesk").target = "fastdesk"
    path = tmp_path / "terms.tbx"
    path.write_bytes(bytes(store))
    glossary = load_glossary([path])
    assert glossary.terms_for("fr") == {"pull request": "demande de fusion"}
    assert glossary.keep == ("fastdesk",)
    lines = glossary.for_text("Open a pull request in fastdesk.", "fr").prompt_lines("fr")
    assert any("demande de fusion" in line for line in lines)


def test_omegat_tsv_takes_its_language_from_the_file_name(tmp_path: Path) -> None:
    path = tmp_path / "glossary.de.tsv"
    path.write_text(
        "# OmegaT glossary\npull request\tPull-Request\tcomment\nGroq\t\t\n", encoding="utf-8"
    )
    glossary = load_glossary([path])
    assert glossary.terms_for("de") == {"pull request": "Pull-Request"}
    assert glossary.keep == ("Groq",)
    (tmp_path / "glossary.tsv").write_text("a\tb\n", encoding="utf-8")
    with pytest.raises(GlossaryError, match="which language"):
        load_glossary([tmp_path / "glossary.tsv"])


def test_csv_with_a_row_of_language_codes(tmp_path: Path) -> None:
    path = tmp_path / "terms.csv"
    path.write_text('en,fr,es\n"pull request",demande de fusion,solicitud\nfastdesk,,\n')
    glossary = load_glossary([path])
    assert glossary.terms_for("fr") == {"pull request": "demande de fusion"}
    assert glossary.terms_for("es") == {"pull request": "solicitud"}
    assert glossary.keep == ("fastdesk",)
    path.write_text("en,fr\n,orphan\n")
    with pytest.raises(GlossaryError, match="line 2"):
        load_glossary([path])


def test_a_folder_glossary_may_be_a_tbx_and_a_bad_one_is_one_line(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    folder = tmp_path / "docs"
    folder.mkdir()
    bad = tmp_path / ".fastdesk-glossary.tbx"
    bad.write_text("<html/>", encoding="utf-8")
    assert find_folder_glossary(folder / "a.md") == bad
    with pytest.raises(GlossaryError, match="not a TBX file") as info:
        load_glossary([bad])
    assert "\n" not in str(info.value)


FORMULAS = [
    "x\r=cmd|' /C calc'!A0",
    '=HYPERLINK("https://evil.example","x")',
    "+cmd|' /C calc'!A0",
    "@SUM(A1:A9)",
    "-2+3",
    "\tTAB",
    "\rCR",
]


@pytest.mark.parametrize("tab", [False, True], ids=["csv", "tsv"])
def test_cells_a_spreadsheet_would_run_are_quoted_and_read_back_as_they_were(
    tmp_path: Path, tab: bool
) -> None:
    import csv
    import io

    from fastdesk.translate.glossary_formats import write_table

    rows = [["en", "fr"], *[[f, f"{f} fr"] for f in FORMULAS], ["plain", "simple"]]
    text = write_table(rows, tab=tab)
    cells = [
        c
        for row in csv.reader(io.StringIO(text, newline=""), delimiter="\t" if tab else ",")
        for c in row
    ]
    for cell in cells:
        assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), cell
    assert "'=HYPERLINK" in text and "plain" in text
    path = tmp_path / ("g.tsv" if tab else "g.csv")
    path.write_text(text, encoding="utf-8", newline="")
    expected = {f.strip(): f"{f} fr".strip() for f in FORMULAS} | {"plain": "simple"}
    assert load_glossary([path]).terms_for("fr") == expected
