"""Glossaries: TOML loading and merging, language fallback, per-block cut-down, prompt lines,
the check, the folder lookup, and messages for broken files."""

from __future__ import annotations

from pathlib import Path

import pytest

from fastdesk.translate.glossary import (
    FOLDER_GLOSSARY,
    Glossary,
    GlossaryError,
    find_folder_glossary,
    load_glossary,
)

GLOBAL = """\
# The user's glossary
[keep]
terms = ["fastdesk", "Groq", "Cerebras"]

[translate.fr]
"pull request" = "demande de fusion"
"translation memory" = "mémoire de traduction"

[translate.fr-CA]
"email" = "courriel"

[translate.es]
"pull request" = "solicitud de extracción"
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def glossary(tmp_path: Path) -> Glossary:
    return load_glossary([write(tmp_path / "glossary.toml", GLOBAL)])


# --- loading and merging -------------------------------------------------------------------------


def test_load_one_file(glossary: Glossary) -> None:
    assert glossary.keep == ("fastdesk", "Groq", "Cerebras")
    assert glossary.translate["fr"] == {
        "pull request": "demande de fusion",
        "translation memory": "mémoire de traduction",
    }
    assert glossary.translate["fr-ca"] == {"email": "courriel"}


def test_later_file_wins(tmp_path: Path) -> None:
    first = write(tmp_path / "global.toml", GLOBAL)
    folder = write(
        tmp_path / "docs" / FOLDER_GLOSSARY,
        '[keep]\nterms = ["pull request", "GROQ"]\n\n'
        '[translate.fr]\n"Translation memory" = "mémoire des traductions"\n',
    )
    merged = load_glossary([first, folder])
    # The folder keeps "pull request": the global French and Spanish translations of it are gone.
    assert "pull request" in merged.keep
    assert "pull request" not in merged.terms_for("fr")
    assert "pull request" not in merged.terms_for("es")
    # Same term in another case: one entry, the later spelling.
    assert [t for t in merged.keep if t.casefold() == "groq"] == ["GROQ"]
    assert merged.terms_for("fr") == {"Translation memory": "mémoire des traductions"}


def test_keep_as_a_plain_array_and_empty_file(tmp_path: Path) -> None:
    plain = load_glossary([write(tmp_path / "a.toml", 'keep = ["Qwen3"]\n')])
    assert plain.keep == ("Qwen3",)
    empty = load_glossary([write(tmp_path / "b.toml", "# nothing yet\n")])
    assert empty == Glossary() and not empty
    assert load_glossary([]) == Glossary()


def test_version_is_stable_and_tracks_content(tmp_path: Path, glossary: Glossary) -> None:
    again = load_glossary([write(tmp_path / "again.toml", GLOBAL)])
    assert glossary.version == again.version and len(glossary.version) == 12
    reordered = Glossary(keep=tuple(reversed(glossary.keep)), translate=dict(glossary.translate))
    assert reordered.version == glossary.version
    changed = Glossary(keep=glossary.keep, translate={"fr": {"pull request": "requête de tirage"}})
    assert changed.version != glossary.version
    assert Glossary().version != glossary.version
    assert {glossary: 1}[again] == 1  # hashable: usable as a cache key


# --- language fallback ---------------------------------------------------------------------------


def test_regional_code_falls_back_to_primary(glossary: Glossary) -> None:
    assert glossary.terms_for("fr-CA") == {
        "pull request": "demande de fusion",
        "translation memory": "mémoire de traduction",
        "email": "courriel",
    }
    assert glossary.terms_for("fr_ca") == glossary.terms_for("fr-CA")
    assert "email" not in glossary.terms_for("fr")
    assert glossary.terms_for("es-MX") == {"pull request": "solicitud de extracción"}
    assert glossary.terms_for("de") == {}
    assert glossary.terms_for(None) == {}


def test_regional_entry_overrides_primary() -> None:
    g = Glossary(translate={"pt": {"file": "ficheiro"}, "pt-BR": {"File": "arquivo"}})
    assert g.terms_for("pt-BR") == {"File": "arquivo"}
    assert g.terms_for("pt-PT") == {"file": "ficheiro"}


def test_forced_translation_beats_keep_for_that_language() -> None:
    g = Glossary(keep=("email",), translate={"fr-CA": {"email": "courriel"}})
    assert g.keep_for("fr-CA") == ()
    assert g.keep_for("fr") == ("email",)


# --- for_text and prompt lines -------------------------------------------------------------------


def test_for_text_keeps_only_what_occurs(glossary: Glossary) -> None:
    text = "Open a Pull Requests page in FastDesk; the translation\nmemory stays local."
    small = glossary.for_text(text, "fr-CA")
    assert small.keep == ("fastdesk",)
    assert small.terms_for("fr-CA") == {
        "pull request": "demande de fusion",
        "translation memory": "mémoire de traduction",
    }
    assert small.version != glossary.version
    # Whole words only: "Groqcloud" is not "Groq", "emails" is a plural of "email" though.
    assert glossary.for_text("Groqcloud sends emails", "fr-CA").terms_for("fr-CA") == {
        "email": "courriel"
    }
    assert glossary.for_text("Groqcloud sends emails", "fr-CA").keep == ()
    assert glossary.for_text("Nothing relevant here.", "fr") == Glossary()


def test_for_text_version_ignores_unrelated_entries(tmp_path: Path, glossary: Glossary) -> None:
    bigger = load_glossary(
        [write(tmp_path / "g.toml", GLOBAL), write(tmp_path / "h.toml", 'keep = ["Ollama"]\n')]
    )
    text = "Groq answers a pull request."
    assert bigger.version != glossary.version
    assert bigger.for_text(text, "fr").version == glossary.for_text(text, "fr").version


def test_prompt_lines(glossary: Glossary) -> None:
    small = glossary.for_text("Groq reviews each pull request by email.", "fr-CA")
    assert small.prompt_lines("fr-CA") == [
        'Never translate these terms, write them exactly as given: "Groq".',
        'Translate "pull request" as "demande de fusion".',
        'Translate "email" as "courriel".',
    ]
    assert Glossary().prompt_lines("fr") == []
    assert small.prompt_lines(None) == [
        'Never translate these terms, write them exactly as given: "Groq".'
    ]


# --- check ---------------------------------------------------------------------------------------


def test_check_kept_terms(glossary: Glossary) -> None:
    source = "Fastdesk sends each block to Groq or Cerebras."
    assert glossary.check(source, "Fastdesk envoie chaque bloc à Groq ou Cerebras.", "fr") == []
    # The glossary's own spelling is fine too (a brand written in lower case).
    assert (
        glossary.check(source, "Avec fastdesk, chaque bloc part chez Groq ou Cerebras.", "fr") == []
    )
    flags = glossary.check(source, "Fastdesk envoie chaque bloc à GroqCloud ou Cérébras.", "fr")
    assert [f.check for f in flags] == ["glossary", "glossary"]
    assert [f.detail for f in flags] == [
        '"Groq" must stay as is, not found in the answer',
        '"Cerebras" must stay as is, not found in the answer',
    ]


def test_check_forced_translations(glossary: Glossary) -> None:
    source = "Open a pull request, then another two pull requests."
    good = "Ouvrez une demande de fusion, puis deux autres demandes de fusion."
    assert glossary.check(source, good, "fr") == []
    assert glossary.check(source, "Abra una solicitud de extracción.", "es") == []
    flags = glossary.check(source, "Ouvrez une pull request, puis deux autres.", "fr-CA")
    assert [f.detail for f in flags] == ['"pull request" must be translated as "demande de fusion"']
    # Not in the source: nothing to check. No language (simplify): translations do not apply.
    assert glossary.check("Open an issue.", "Ouvrez un ticket.", "fr") == []
    assert glossary.check(source, "Open a pull request, then two more.", None) == []


def test_terms_only_in_code_links_or_identifiers_ask_nothing(glossary: Glossary) -> None:
    # a reference label, a link target, a code span, a dotted identifier: names, not prose
    source = (
        "See [the guide][pull request] and [merging](https://x.org/pull request), "
        "`git pull request` or pull.request.merge.\n\n[pull request]: https://x.org/pr\n"
    )
    assert glossary.check(source, "Voir le guide et la fusion.", "fr") == []
    prose = "Open a pull request: see [the guide][pr]."
    flags = glossary.check(prose, "Ouvrez une pull request.", "fr")
    assert [f.detail for f in flags] == ['"pull request" must be translated as "demande de fusion"']


# --- folder lookup -------------------------------------------------------------------------------


def test_find_folder_glossary_nearest_parent(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    top = write(repo / FOLDER_GLOSSARY, "")
    doc = write(repo / "docs" / "guide" / "intro.md", "# Intro\n")
    assert find_folder_glossary(doc) == top
    nearer = write(repo / "docs" / FOLDER_GLOSSARY, "")
    assert find_folder_glossary(doc) == nearer
    assert find_folder_glossary(doc.parent) == nearer  # a folder is its own start


def test_find_folder_glossary_stops_at_git_root(tmp_path: Path) -> None:
    write(tmp_path / FOLDER_GLOSSARY, "")  # outside the work tree: not used
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    doc = write(repo / "docs" / "a.md", "text\n")
    assert find_folder_glossary(doc) is None
    worktree = tmp_path / "worktree"
    write(worktree / ".git", "gitdir: elsewhere\n")  # a linked work tree has a .git file
    assert find_folder_glossary(write(worktree / "b.md", "text\n")) is None


def test_find_folder_glossary_without_git_walks_to_root(tmp_path: Path) -> None:
    found = write(tmp_path / FOLDER_GLOSSARY, "")
    assert find_folder_glossary(write(tmp_path / "a" / "b" / "c.md", "x\n")) == found


# --- broken files --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        # tomllib notices the unclosed array where the next table starts.
        ('[keep]\nterms = ["Groq", "Cerebras"\n\n[translate.fr]\n', 4, "Unclosed array"),
        ('[translate.fr]\n"pull request" "demande"\n', 2, "invalid TOML"),
        ('[keep]\nterms = "Groq"\n', 2, "array of strings"),
        ("[keep]\nterms = [1, 2]\n", 2, "non-empty strings"),
        ('[keep]\nterm = ["Groq"]\n', 2, "unknown key 'term'"),
        ('[keeps]\nterms = ["Groq"]\n', 1, "unknown section 'keeps'"),
        ('[keep]\nterms = []\n\n[translate.french]\n"a" = "b"\n', 4, "not a language code"),
        ('[translate.fr]\n"a" = "b"\n"pull request" = 3\n', 3, "non-empty string"),
        ('translate = "fr"\n', 1, "tables such as [translate.fr]"),
    ],
)
def test_broken_file_names_file_and_line(tmp_path: Path, text: str, line: int, reason: str) -> None:
    path = write(tmp_path / "docs" / FOLDER_GLOSSARY, text)
    with pytest.raises(GlossaryError) as caught:
        load_glossary([write(tmp_path / "ok.toml", GLOBAL), path])
    error = caught.value
    assert error.path == path and error.line == line
    assert reason in error.reason
    assert str(error).startswith(f"{path}, line {line}: ")


def test_unreadable_and_non_utf8_files(tmp_path: Path) -> None:
    with pytest.raises(GlossaryError, match="cannot read") as caught:
        load_glossary([tmp_path / "missing.toml"])
    assert caught.value.line is None and "missing.toml" in str(caught.value)
    latin1 = tmp_path / "latin1.toml"
    latin1.write_bytes('[keep]\nterms = ["Groq"]\n[translate.fr]\n"a" = "é"\n'.encode("latin-1"))
    with pytest.raises(GlossaryError, match=r"line 4: not UTF-8"):
        load_glossary([latin1])


def test_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "bom.toml"
    path.write_bytes('\ufeff[keep]\nterms = ["Groq"]\n'.encode())
    assert load_glossary([path]).keep == ("Groq",)


# --- at scale, and where a folder glossary may come from -------------------------------------


class _Counted(str):
    """A term that counts how often it is case folded (a measure of the work per term)."""

    folds = 0

    def casefold(self) -> str:
        _Counted.folds += 1
        return super().casefold()


def test_a_large_glossary_is_matched_in_linear_work_once_per_language() -> None:
    n = 2_000
    table: dict[str, str] = {_Counted(f"widget{i} part"): f"pièce{i}" for i in range(n)}
    keep = tuple(_Counted(f"Brand{i}") for i in range(n))
    glossary = Glossary(keep=keep, translate={"fr": table})
    _Counted.folds = 0
    texts = [f"Paragraph {i}: the widget{i} part and Brand{i} ship together." for i in range(50)]
    for k, text in enumerate(texts):
        assert _Counted.folds <= 5 * n * min(k, 1), k  # term by term: n * n for one block
        used = glossary.for_text(text, "fr")
        assert dict(used.translate["fr"]) == {f"widget{k} part": f"pièce{k}"}
        assert glossary.check(text, text, "fr")  # the forced translation is missing
    # term by term, each block folded every term again (and the forced ones n times over)
    assert _Counted.folds <= 5 * n


@pytest.mark.parametrize(
    ("term", "text", "forced", "kept"),
    [
        ("pull request", "Open a Pull\n  Request now.", True, True),
        ("pull request", "Two pull requests.", True, False),  # a forced term's plural counts
        ("pull request", "pull requester", False, False),
        ("C++", "Written in C++ mostly.", True, True),
        ("Node.js", "Runs on node.js today.", True, True),
        ("API", "The RAPID tool.", False, False),
        ("API", "Call the api.", True, True),
        ("straße", "Die Straße ist lang.", True, True),
        ("e-mail", "Send an e\u00a0mail or an e-mail.", True, True),
    ],
)
def test_the_automaton_finds_whole_words_as_the_term_by_term_match_did(
    term: str, text: str, forced: bool, kept: bool
) -> None:
    assert bool(Glossary(translate={"fr": {term: "X"}}).for_text(text, "fr")) is forced
    assert bool(Glossary(keep=(term,)).for_text(text, "fr")) is kept


def test_a_folder_glossary_is_not_taken_from_home_or_a_folder_anyone_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    write(home / FOLDER_GLOSSARY, "[keep]\nterms = ['x']\n")
    assert find_folder_glossary(write(home / "notes" / "a.md", "x\n")) is None
    shared = tmp_path / "shared"
    write(shared / FOLDER_GLOSSARY, "[keep]\nterms = ['x']\n")
    shared.chmod(0o1777)  # as /tmp is
    assert find_folder_glossary(write(shared / "cloned" / "a.md", "x\n")) is None
    site = tmp_path / "site"
    write(tmp_path / FOLDER_GLOSSARY, "[keep]\nterms = ['x']\n")
    doc = write(site / "docs" / "a.md", "x\n")
    assert find_folder_glossary(doc, root=site) is None  # not above the project's root
