"""The ``omission`` check on an answer that stops mid-sentence: it ends at a comma or a
semicolon where its source ends a sentence, and is shorter than a translation usually is (what
came after the mark is missing); a full-length answer that only put a comma for the stop, a
source that itself stops at a comma, and an answer ending at a colon are no omission. And on a
text that begins with an item's number ("3.Keep …", "(2) …", a heading's "4.") that the answer
lacks, in figures or as its ordered list's number."""

from __future__ import annotations

import pytest

from fastdesk.translate.checks import check_block


def omission(source: str, answer: str, lang: str) -> str | None:
    """The omission flag as the app raises it on an answer (check_block, Markdown and all)."""
    flags = {
        f.check: f.detail for f in check_block(source, answer, target_lang=lang, mode="translate")
    }
    return flags.get("omission")


@pytest.mark.parametrize(
    ("source", "answer", "lang", "mark"),
    [
        ("这台机器会自动保存文件；用户不需要再手动保存。", "The machine saves files automatically;",
         "en", ";"),
        ("他打开了厨房的窗户，然后安静地离开了房间。", "He opened the kitchen window,", "en", ","),
        ("The update installs itself overnight, checks the disk and removes the old version.",
         "Das Update installiert sich über Nacht und prüft die Festplatte,", "de", ","),
        ("Les fichiers sont copiés sur le disque; l'ancienne version est supprimée.",
         "The files are copied to the disk;", "en", ";"),
    ],
)  # fmt: skip
def test_an_answer_that_stops_at_a_comma_lost_its_end(
    source: str, answer: str, lang: str, mark: str
) -> None:
    found = omission(source, answer, lang)
    assert found is not None
    assert f"ends at {mark!r}" in found


@pytest.mark.parametrize(
    ("source", "answer", "lang"),
    [
        # the whole sentence is there; only the stop became a comma
        ("It works.", "Es funktioniert,", "de"),
        ("我们明天见。", "We will see each other again tomorrow,", "en"),
        # the source itself stops at a comma (a subtitle's line goes on in the next)
        ("我们打开了厨房的窗户，", "We opened the kitchen window,", "en"),
        # a colon announces what follows, in the source's next block
        ("最后，我们设定了两个目标。", "Finally, we set two goals:", "en"),
        # items of a list that end with semicolons, in the source too
        ("- 保存文件；\n- 关闭窗口；", "- Save the file;\n- Close the window;", "en"),
        # a full answer that ends properly
        ("这台机器会自动保存文件；用户不需要再手动保存。",
         "The machine saves files automatically; users no longer need to save by hand.", "en"),
    ],
)  # fmt: skip
def test_a_full_answer_ending_at_a_comma_is_no_omission(
    source: str, answer: str, lang: str
) -> None:
    assert omission(source, answer, lang) is None


@pytest.mark.parametrize(
    ("source", "answer", "lang"),
    [
        ("3.Keep your receipts: the shop asks for them when you return an item.",
         "Bewahren Sie Ihre Quittungen auf: Der Laden verlangt sie bei einer Rückgabe.", "de"),
        ("(2) 每天检查一次备份，并记录结果。",
         "Check the backup once a day and record the result.", "en"),
        ("## 4. Installing the tools", "## Installation der Werkzeuge", "de"),
    ],
)  # fmt: skip
def test_an_items_number_left_out(source: str, answer: str, lang: str) -> None:
    found = omission(source, answer, lang)
    assert found is not None
    assert "the item's number" in found


@pytest.mark.parametrize(
    ("source", "answer", "lang"),
    [
        # kept as written, or as the answer's ordered list
        ("3.Keep your receipts: the shop asks for them when you return an item.",
         "3. Bewahren Sie Ihre Quittungen auf: Der Laden verlangt sie bei einer Rückgabe.", "de"),
        ("3.Keep your receipts: the shop asks for them when you return an item.",
         "3) Bewahren Sie Ihre Quittungen auf: Der Laden verlangt sie bei einer Rückgabe.", "de"),
        ("(2) 每天检查一次备份，并记录结果。",
         "(2) Check the backup once a day and record the result.", "en"),
        ("## 4. Installing the tools", "## 4. Installation der Werkzeuge", "de"),
        # a Markdown list's marker is the structure check's, and a decimal is no item's number
        ("1. Open the file.", "Öffnen Sie die Datei.", "de"),
        ("1.5 million people visited the museum last year.",
         "Anderthalb Millionen Menschen besuchten letztes Jahr das Museum.", "de"),
    ],
)  # fmt: skip
def test_an_items_number_kept_is_no_omission(source: str, answer: str, lang: str) -> None:
    assert omission(source, answer, lang) is None
