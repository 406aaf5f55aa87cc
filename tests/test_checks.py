"""Fidelity checks on hand-written EN→FR/ES/DE/PT/IT pairs: each check catches a real violation
and lets a faithful translation through; a verbatim echo passes everything."""

from __future__ import annotations

import unicodedata
from typing import Any

import pytest

from fastdesk.translate.checks import CHECKS, Pair, check_block, facts
from fastdesk.translate.glossary import Glossary


def flags_of(source: str, answer: str, lang: str = "fr", mode: str = "translate", **kw: Any):
    return {
        f.check: f.detail for f in check_block(source, answer, target_lang=lang, mode=mode, **kw)
    }


def strip_accents(text: str) -> str:
    decomposed = unicodedata.normalize("NFD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).replace("ß", "ss")


# --- faithful translations pass ------------------------------------------------------------------

FAITHFUL = [
    (
        "fr",
        "Run `fastdesk translate notes.md --to fr` and open [the guide](https://example.com/guide "
        '"User guide"). The answer streams in **well under a second**.',
        "Lancez `fastdesk translate notes.md --to fr` et ouvrez [le guide]"
        '(https://example.com/guide "Guide de l’utilisateur"). La réponse s’affiche en '
        "**bien moins d’une seconde**.",
    ),
    (
        "fr",
        "## Getting started",
        "## Premiers pas",
    ),
    (
        "fr",
        "Getting started\n===============",
        "Premiers pas\n============",
    ),
    (
        "fr",
        "1. Install the app with `pip install fastdesk`.\n"
        "2. Store your key: `fastdesk keys set groq`.\n"
        "3. Open a document.",
        "1. Installez l’application avec `pip install fastdesk`.\n"
        "2. Enregistrez votre clé : `fastdesk keys set groq`.\n"
        "3. Ouvrez un document.",
    ),
    (
        "es",
        "| Provider | Speed | Price |\n|---|---:|---|\n| Groq | 840 tok/s | $0.05 |\n"
        "| Cerebras | 2000 tok/s | free tier |",
        "| Proveedor | Velocidad | Precio |\n|---|---:|---|\n| Groq | 840 tok/s | $0,05 |\n"
        "| Cerebras | 2000 tok/s | nivel gratuito |",
    ),
    (
        "es",
        "> **Note:** the key is stored in the system keyring, never in a file.\n"
        "> See <https://example.com/keys> for details.",
        "> **Nota:** la clave se guarda en el llavero del sistema, nunca en un archivo.\n"
        "> Consulta <https://example.com/keys> para más detalles.",
    ),
    (
        "de",
        "Press <kbd>Ctrl</kbd>+<kbd>S</kbd> to save. "
        '<img src="img/save.png" alt="The save button" width="24">',
        "Drücken Sie <kbd>Ctrl</kbd>+<kbd>S</kbd>, um zu speichern. "
        '<img src="img/save.png" alt="Die Schaltfläche Speichern" width="24">',
    ),
    (
        "de",
        "Hello {name}, you have %(count)d new messages and ${credits} credits left :tada:",
        "Hallo {name}, Sie haben %(count)d neue Nachrichten und noch ${credits} Guthaben :tada:",
    ),
    (
        "fr",
        "- Install the dependencies:\n\n  ```sh\n  pip install -e .\n  ```\n\n- Run the tests.",
        "- Installez les dépendances :\n\n  ```sh\n  pip install -e .\n  ```\n\n"
        "- Lancez les tests.",
    ),
    (
        "fr",
        "Read the [installation notes][install] first, then the [FAQ][] and footnote[^1].",
        "Lisez d’abord les [notes d’installation][install], puis la [FAQ][] et la note[^1].",
    ),
    (
        "fr",
        "Details live at https://example.com/docs/limits (see the table).",
        "Les détails sont sur https://example.com/docs/limits (voir le tableau).",
    ),
    (
        "pt-BR",
        '![Architecture diagram](img/arch.svg "How requests flow")',
        '![Diagrama da arquitetura](img/arch.svg "Como as requisições fluem")',
    ),
    (
        "fr",
        "Here is the list of supported providers: Groq, Cerebras and any OpenAI-compatible server.",
        "Voici la liste des fournisseurs pris en charge : Groq, Cerebras et tout serveur "
        "compatible OpenAI.",
    ),
    (
        "fr",
        "Growth reached 50% of users in 2025, up from 12% a year earlier.",
        "La croissance a atteint 50 % des utilisateurs en 2025, contre 12 % un an plus tôt.",
    ),
]


@pytest.mark.parametrize(("lang", "source", "answer"), FAITHFUL)
def test_faithful_translation_passes(lang: str, source: str, answer: str) -> None:
    assert flags_of(source, answer, lang) == {}


# --- code ----------------------------------------------------------------------------------------


def test_code_block_inside_list_item_must_be_byte_identical() -> None:
    source = "- Install it:\n\n  ```sh\n  pip install fastdesk\n  fastdesk --version\n  ```"
    answer = "- Installez-le :\n\n  ```sh\n  pip installer fastdesk\n  fastdesk --version\n  ```"
    flags = flags_of(source, answer)
    assert set(flags) == {"code"}
    assert "pip install fastdesk" in flags["code"] and "pip installer fastdesk" in flags["code"]


def test_code_block_in_blockquote_comment_translated() -> None:
    source = "> Example:\n>\n> ```python\n> # read the file\n> text = path.read_text()\n> ```"
    answer = "> Exemple :\n>\n> ```python\n> # lire le fichier\n> text = path.read_text()\n> ```"
    assert "code" in flags_of(source, answer)


def test_code_block_dropped() -> None:
    source = "- Run:\n\n  ```\n  make test\n  ```"
    answer = "- Lancez `make test`."
    assert flags_of(source, answer)["code"] == "1 code blocks became 0"


def test_inline_code_translated_or_dropped() -> None:
    source = "Click `Save` or press `Ctrl+S`; the file is written by `atomic_write_text`."
    translated = "Cliquez sur `Enregistrer` ou appuyez sur `Ctrl+S` ; `atomic_write_text` l’écrit."
    assert flags_of(source, translated)["inline_code"] == (
        "inline code changed: `Save` → `Enregistrer`"
    )
    dropped = "Cliquez sur Save ou appuyez sur Ctrl+S ; `atomic_write_text` écrit le fichier."
    assert "inline code missing: `Save`, `Ctrl+S`" in flags_of(source, dropped)["inline_code"]


def test_inline_code_backtick_count_may_change() -> None:
    source = "Use ``--to fr`` to pick French."
    answer = "Utilisez `--to fr` pour choisir le français."
    assert flags_of(source, answer) == {}


# --- links ---------------------------------------------------------------------------------------


def test_link_text_may_change_but_not_its_target() -> None:
    source = "Read [the guide](https://example.com/en/guide) before you start."
    good = "Lisez [le guide](https://example.com/en/guide) avant de commencer."
    bad = "Lisez [le guide](https://example.com/fr/guide) avant de commencer."
    assert flags_of(source, good) == {}
    assert flags_of(source, bad)["links"] == (
        "link target changed: https://example.com/en/guide → https://example.com/fr/guide"
    )


def test_link_dropped_image_changed_autolink_changed() -> None:
    source = (
        "See [limits](https://example.com/limits), ![chart](img/chart.png) "
        "and <https://status.example.com>."
    )
    answer = "Voir les limites, ![graphique](img/graphique.png) et <https://statut.example.com>."
    detail = flags_of(source, answer)["links"]
    assert (
        "missing: https://example.com/limits, img/chart.png, https://status.example.com" in detail
    )
    assert "added: img/graphique.png, https://statut.example.com" in detail


def test_bare_url_changed() -> None:
    source = "The API lives at https://api.example.com/v1, as documented."
    answer = "L’API se trouve sur https://api.exemple.com/v1, comme documenté."
    assert flags_of(source, answer)["links"] == (
        "link target changed: https://api.example.com/v1 → https://api.exemple.com/v1"
    )


def test_reference_label_translated() -> None:
    source = "Follow the [setup guide][setup] and the [FAQ][]."
    answer = "Suivez le [guide d’installation][installation] et la [FAQ][]."
    assert flags_of(source, answer)["links"] == "link target changed: [setup] → [installation]"


def test_a_shortcut_reference_made_a_full_one_to_its_label_is_the_same_link() -> None:
    # a site's shortcut reference, its label shielded and its text translated, comes back full
    source = "See the [CodeHilite Extension] and [Smarty] for an explanation of `linenums`."
    answer = (
        "Voir l’[extension CodeHilite][CodeHilite Extension] et [Smarty] pour une explication "
        "de `linenums`."
    )
    assert "links" not in flags_of(source, answer)
    other = "Voir l’[extension CodeHilite][Autre] et [Smarty] pour une explication de `linenums`."
    assert flags_of(source, other)["links"] == "link target added: [autre]"
    ending = "Use the syntax of Python-Markdown's [Admonition Extension]:"  # not a definition
    made_full = "Utilisez la syntaxe de l’[extension Admonition][Admonition Extension] :"
    assert "links" not in flags_of(ending, made_full)


def test_reference_definitions_in_the_block() -> None:
    source = "Read [the docs][d].\n\n[d]: https://example.com/docs"
    answer = "Lisez [la doc][d].\n\n[d]: https://example.com/doc"
    assert "links" in flags_of(source, answer)


def test_footnote_reference_dropped() -> None:
    source = "Groq runs Llama 3.1 8B at 840 tokens per second.[^speed]"
    answer = "Groq exécute Llama 3.1 8B à 840 jetons par seconde."
    assert flags_of(source, answer)["links"] == "link target missing: [^speed]"


# --- html ----------------------------------------------------------------------------------------


def test_html_attribute_changed_or_tag_dropped() -> None:
    source = 'Press <kbd>Ctrl</kbd> and see <a href="#keys" class="ref">the keys</a>.'
    changed = 'Appuyez sur <kbd>Ctrl</kbd> et voyez <a href="#touches" class="ref">les touches</a>.'
    dropped = 'Appuyez sur Ctrl et voyez <a href="#keys" class="ref">les touches</a>.'
    assert flags_of(source, changed)["html"] == (
        "HTML tag changed: <a class='ref' href='#keys'> → <a class='ref' href='#touches'>"
    )
    assert flags_of(source, dropped)["html"] == "HTML tag missing: <kbd>, </kbd>"


def test_html_block_and_translated_text_attributes() -> None:
    source = (
        '<details>\n<summary title="More">Advanced options</summary>\nNothing here.\n</details>'
    )
    good = '<details>\n<summary title="Plus">Options avancées</summary>\nRien ici.\n</details>'
    bad = "<details>\n<summary>Options avancées</summary>\nRien ici.\n</details>"
    assert flags_of(source, good) == {}
    assert "html" in flags_of(source, bad)


# --- placeholders --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "answer", "missing"),
    [
        ("Welcome back, {user_name}!", "Bon retour, {nom_utilisateur} !", "{user_name}"),
        ("Hello {{ user }}, welcome.", "Bonjour utilisateur, bienvenue.", "{{user}}"),
        ("Saved %s files in %.1f seconds.", "%s fichiers enregistrés en secondes.", "%.1f"),
        (
            "You have %(count)d new messages.",
            "Vous avez %(nombre)d nouveaux messages.",
            "%(count)d",
        ),
        ("Costs ${price} per month.", "Coûte {price} par mois.", "${price}"),
        ("Great job :tada: see you soon.", "Bravo, à bientôt.", ":tada:"),
        ("Loaded {0} of {1} blocks.", "{0} blocs chargés.", "{1}"),
    ],
)
def test_placeholders_kept(source: str, answer: str, missing: str) -> None:
    assert missing in flags_of(source, answer)["placeholders"]


def test_placeholder_spacing_and_prose_percent_are_not_placeholders() -> None:
    assert flags_of("Hello {{ user }}!", "Bonjour {{user}} !") == {}
    assert facts("About 50% of us do it; 100% done at 10:30:00.").placeholders == {}
    assert facts("Drücken Sie 50%ige Rabatte?").placeholders == {}


# --- structure -----------------------------------------------------------------------------------


def test_heading_level_changed() -> None:
    assert flags_of("## Getting started", "### Premiers pas")["structure"] == "heading h2 became h3"
    assert flags_of("Setup\n-----", "# Installation")["structure"] == "heading h2 became h1"
    assert "structure" in flags_of("## Getting started", "Premiers pas")


def test_list_items_and_markers() -> None:
    source = "- Fast\n- Cheap\n- Private"
    assert flags_of(source, "- Rapide\n- Bon marché")["structure"] == (
        "bullet list (-) of 3 items became 2 items"
    )
    assert flags_of(source, "1. Rapide\n2. Bon marché\n3. Privé")["structure"] == (
        "bullet list (-) became ordered list (1.)"
    )
    assert flags_of(source, "* Rapide\n* Bon marché\n* Privé")["structure"] == (
        "bullet list (-) became bullet list (*)"
    )


def test_nested_list_flattened() -> None:
    source = "- Providers\n  - Groq\n  - Cerebras\n- Models"
    answer = "- Fournisseurs\n- Groq\n- Cerebras\n- Modèles"
    assert flags_of(source, answer)["structure"] == "2 lists became 1"


def test_table_rows_and_cells() -> None:
    source = "| Model | Speed |\n|---|---|\n| Llama 3.1 8B | fast |\n| Qwen3 32B | slower |"
    missing_cell = "| Modèle | Vitesse |\n|---|---|\n| Llama 3.1 8B | rapide |\n| Qwen3 32B |"
    missing_row = "| Modèle | Vitesse |\n|---|---|\n| Llama 3.1 8B | rapide |"
    broken = "| Modèle | Vitesse |\n| Llama 3.1 8B | rapide |\n| Qwen3 32B | plus lent |"
    assert flags_of(source, missing_cell)["structure"] == "table row 3: 2 cells became 1"
    assert flags_of(source, missing_row)["structure"] == "table of 3 rows became 2 rows"
    assert "1 tables became 0" in flags_of(source, broken)["structure"]


def test_table_cells_with_escaped_pipes_and_code() -> None:
    source = "| Syntax | Meaning |\n|---|---|\n| `a|b` | either \\| or |"
    answer = "| Syntaxe | Sens |\n|---|---|\n| `a|b` | l’un \\| ou l’autre |"
    assert flags_of(source, answer) == {}


def test_blockquote_depth_and_paragraphs() -> None:
    source = "> > Nested quote."
    assert flags_of(source, "> Citation imbriquée.")["structure"] == "blockquote depth 2 became 1"
    one = "Groq designs chips. Cerebras builds a wafer-scale engine."
    two = "Groq conçoit des puces.\n\nCerebras construit un moteur à l’échelle de la tranche."
    assert flags_of(one, two)["structure"] == "1 paragraphs became 2"
    simple = "Groq fait des puces.\n\nCerebras fait une très grosse puce."
    assert "structure" not in flags_of(one, simple, "en", mode="simplify")


# --- thinking ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        "<think>The user wants French.</think>\nLa clé est stockée dans le trousseau.",
        "La clé est stockée dans le trousseau.</think>",
        "Okay, let's translate this paragraph.\nLa clé est stockée dans le trousseau.",
        "Here is the translation:\n\nLa clé est stockée dans le trousseau.",
        "Voici la traduction :\nLa clé est stockée dans le trousseau.",
        "The user wants this in French. La clé est stockée dans le trousseau.",
        "La clé est stockée dans le trousseau.\n\n(Note: I kept the product names unchanged.)",
        "Let me translate this into French.\n\nLa clé est stockée dans le trousseau.",
    ],
)
def test_thinking_leaks(answer: str) -> None:
    assert "thinking" in flags_of("The key is stored in the keyring.", answer)


def test_thinking_not_flagged_on_plain_openings() -> None:
    source = "To begin, install the app and translate the strings."
    simple = "Let's start by installing the app. Then translate the strings."
    assert "thinking" not in flags_of(source, simple, "en", mode="simplify")
    assert "thinking" not in flags_of(source, "Okay. Install the app first.", "en", mode="simplify")


def test_answer_wrapped_in_a_code_fence() -> None:
    answer = "```markdown\nLa clé est stockée dans le trousseau.\n```"
    assert flags_of("The key is stored in the keyring.", answer)["code"] == (
        "the whole answer is wrapped in a code fence: send the Markdown bare"
    )


def test_thinking_not_flagged_when_the_source_says_it() -> None:
    source = "Okay, let's start: models such as Qwen3 wrap their reasoning in `<think>` tags."
    answer = (
        "Bon, commençons : des modèles comme Qwen3 enveloppent leur raisonnement dans des "
        "balises `<think>`."
    )
    assert flags_of(source, answer) == {}
    source = "Here is the translation memory: a SQLite file in the cache folder."
    answer = "Voici la mémoire de traduction : un fichier SQLite dans le dossier de cache."
    assert flags_of(source, answer) == {}


# --- accents -------------------------------------------------------------------------------------

EN = (
    "The translation memory keeps every accepted answer. When you reopen a document that was "
    "already translated, no request is sent: unchanged blocks are reused as they are, and only the "
    "edited paragraphs go to the model. The cost of an edit therefore grows with its own size, not "
    "with the size of the whole document."
)
FR = (
    "La mémoire de traduction conserve chaque réponse acceptée. Quand vous rouvrez un document "
    "déjà traduit, aucune requête n’est envoyée : les blocs inchangés sont repris tels quels, et "
    "seuls les paragraphes modifiés partent vers le modèle. Le coût d’une modification croît donc "
    "avec sa propre taille, et non avec celle du document entier."
)
ES = (
    "La memoria de traducción conserva cada respuesta aceptada. Cuando vuelves a abrir un "
    "documento ya traducido, no se envía ninguna petición: los bloques sin cambios se "
    "reutilizan tal cual y solo los párrafos editados van al modelo. El coste de una edición "
    "crece con su propio tamaño, no con el del documento entero."
)
DE = (
    "Der Übersetzungsspeicher bewahrt jede akzeptierte Antwort auf. Wenn Sie ein bereits "
    "übersetztes Dokument erneut öffnen, wird keine Anfrage gesendet: Unveränderte Blöcke werden "
    "so übernommen, wie sie sind, und nur die bearbeiteten Absätze gehen an das Modell. Die Kosten "
    "einer Änderung wachsen daher mit ihrer eigenen Größe, nicht mit der des ganzen Dokuments."
)
PT = (
    "A memória de tradução guarda cada resposta aceita. Quando você reabre um documento já "
    "traduzido, nenhuma requisição é enviada: os blocos inalterados são reaproveitados como estão, "
    "e só os parágrafos editados vão para o modelo. O custo de uma edição cresce com o próprio "
    "tamanho, não com o do documento inteiro."
)
IT = (
    "La memoria di traduzione conserva ogni risposta accettata. Quando riapri un documento già "
    "tradotto non parte nessuna richiesta, perché i blocchi invariati vengono riutilizzati così "
    "come sono e solo i paragrafi modificati vanno al modello. Il costo di una modifica cresce "
    "quindi con la sua dimensione, non con quella dell'intero documento."
)


@pytest.mark.parametrize(
    ("lang", "answer"),
    [("fr", FR), ("fr-CA", FR), ("es", ES), ("de", DE), ("de-CH", DE), ("pt-BR", PT), ("it", IT)],
)
def test_accents_correct_passes_stripped_is_flagged(lang: str, answer: str) -> None:
    assert flags_of(EN, answer, lang) == {}
    stripped = strip_accents(answer)
    assert stripped != answer
    assert "accents" in flags_of(EN, stripped, lang)


def test_accents_whole_answer_without_any_accent() -> None:
    # No word of the stripped list here: the "no accented letter at all" rule must catch it.
    answer = (
        "Le serveur renvoie la liste des fichiers au client, qui les copie dans le dossier local "
        "puis les ouvre un par un dans le volet de droite. Le texte source reste a gauche, la "
        "version traduite a droite, et chaque paragraphe modifie repart vers le fournisseur le "
        "plus rapide du moment pour une nouvelle traduction."
    )
    assert flags_of(EN, answer)["accents"].startswith("no French letters in")


def test_accents_partly_stripped_answer() -> None:
    answer = FR.replace("déjà", "deja")
    assert flags_of(EN, answer)["accents"] == "accents missing from: deja"


@pytest.mark.parametrize(
    ("lang", "answer"),
    [
        # Correct sentences that happen to need no accent: they must not be flagged.
        (
            "fr",
            "Le serveur renvoie une liste de fichiers, puis le client les copie dans le dossier "
            "local avant de quitter.",
        ),
        (
            "es",
            "Representa un cambio en el brillo predeterminado de la componente azul, y cero "
            "indica que no hay cambios.",
        ),
        (
            "de",
            "Wenn dies eingeschaltet ist, wird ein nicht gequotetes NULL in einem Array als "
            "NULL-Wert interpretiert, ansonsten als Zeichenkette.",
        ),
        (
            "it",
            "La scrittura di una pagina durante un crash del sistema operativo potrebbe essere "
            "stata scritta su disco solo in parte, e durante il ripristino le pagine vengono "
            "lette di nuovo dal registro delle transazioni per essere sicuri che siano integre, "
            "come previsto dal formato del file di dati usato dal programma.",
        ),
        ("ja", "This answer is not Japanese at all, but Japanese needs no Latin accents anyway."),
        ("fr", "Groq, Cerebras, OpenAI"),
    ],
)
def test_accents_no_false_positive_on_correct_text(lang: str, answer: str) -> None:
    assert "accents" not in flags_of(EN, answer, lang)


def test_accents_ignore_code_urls_and_source_words() -> None:
    answer = (
        "Lancez `fastdesk translate --to fr notes.md --out-dir build/fr` puis ouvrez "
        "https://example.com/docs/memoire-de-traduction/numero-de-version dans le navigateur."
    )
    assert "accents" not in flags_of("Run it, then open the page in the browser.", answer)
    # A stripped-looking word that the source itself has (a name) is no accent problem.
    assert "accents" not in flags_of("Ask Sara.", "Demande à Sara.", "it")


def test_accents_in_simplify_mode_judge_against_the_source() -> None:
    simple_fr = (
        "Le programme garde chaque reponse dans sa memoire. Si vous rouvrez un texte deja traduit, "
        "il ne demande rien de nouveau au serveur. Seuls les morceaux que vous avez changes "
        "repartent vers le modele, et le reste ne coute rien."
    )
    assert "accents" in flags_of(FR, simple_fr, "fr", mode="simplify")
    # The source had no accents either (English): nothing to lose, nothing flagged.
    simple_en = (
        "The app keeps each answer. Only changed parts go to the model, so edits cost little."
    )
    assert flags_of(EN, simple_en, "fr", mode="simplify") == {}
    # Unknown language code in simplify mode: any accented letters of the source count (the bar
    # is higher: 300 letters).
    long_fr = FR + " " + FR
    assert "accents" in flags_of(long_fr, strip_accents(long_fr), "und", mode="simplify")


# --- glossary through check_block ----------------------------------------------------------------


def test_glossary_flags_are_one_check() -> None:
    glossary = Glossary(keep=("Groq",), translate={"fr": {"pull request": "demande de fusion"}})
    source = "Open a pull request; Groq reviews it."
    good = "Ouvrez une demande de fusion ; Groq l’examine."
    bad = "Ouvrez une pull request ; GroqCloud l’examine."
    assert flags_of(source, good, glossary=glossary) == {}
    detail = flags_of(source, bad, glossary=glossary)["glossary"]
    assert '"Groq" must stay as is' in detail
    assert '"pull request" must be translated as "demande de fusion"' in detail
    # Simplify mode: nothing is translated, kept terms still count.
    simple = "Open a pull request. Groq checks it."
    assert flags_of(source, simple, "fr", mode="simplify", glossary=glossary) == {}


def test_glossary_term_only_in_code_is_left_to_the_code_check() -> None:
    glossary = Glossary(translate={"fr": {"pull request": "demande de fusion"}})
    source = "Run `gh pull request create`."
    answer = "Lancez `gh pull request create`."
    assert flags_of(source, answer, glossary=glossary) == {}


# --- echo ----------------------------------------------------------------------------------------

ECHO_DOC = """\
---
title: Fastdesk
---

# Fastdesk

Fastdesk translates Markdown **live** with [Groq](https://groq.com) and [Cerebras][c]. Okay, let's
see: it keeps `code`, {placeholders}, %s, :rocket: and <kbd>HTML</kbd> as they are.

Here is the translation memory in one sentence: nothing is sent twice.

Setup
-----

1. Install: `pip install fastdesk`
2. Run:

   ```sh
   fastdesk translate README.md --to fr
   ```

> [!NOTE]
> > Nested quote with a footnote[^1] and https://example.com/a_(b).

| Key | Value |
|-----|-------|
| a \\| b | `c|d` |

<details><summary title="More">More</summary>

Models like Qwen3 print <think> tags.

</details>

    indented code

***

[c]: https://cerebras.ai "Cerebras"
[^1]: The footnote.
"""


def _blocks(doc: str) -> list[str]:
    """Blank-line separated chunks, keeping fenced code whole (a stand-in for blocks.py)."""
    chunks: list[str] = []
    current: list[str] = []
    fenced = False
    for line in doc.split("\n"):
        if line.strip().startswith("```"):
            fenced = not fenced
        if not line.strip() and not fenced:
            if current:
                chunks.append("\n".join(current))
            current = []
        else:
            current.append(line)
    if current:
        chunks.append("\n".join(current))
    return chunks


@pytest.mark.parametrize("mode", ["translate", "simplify"])
def test_echo_passes_every_check(mode: str) -> None:
    glossary = Glossary(keep=("Fastdesk",), translate={"fr": {"translation memory": "mémoire"}})
    blocks = _blocks(ECHO_DOC)
    assert len(blocks) > 10
    for block in blocks:
        assert check_block(block, block, target_lang="fr", mode=mode, glossary=glossary) == []
        assert check_block(block, block + "\n", target_lang="fr", mode=mode) == []
        # Each check on its own, too: only accents (English is no French) may object to an echo,
        # and check_block accepts a verbatim answer before asking it.
        pair = Pair(block, block, facts(block), facts(block), "fr", mode, glossary)
        for name, check in CHECKS.items():
            if name not in ("accents", "glossary"):
                assert check(pair) is None, (name, block)


def test_registry_names_match_the_report() -> None:
    assert list(CHECKS) == [
        "thinking", "code", "inline_code", "links", "html", "placeholders", "structure",
        "glossary", "accents", "admonition", "readability", "numbers", "omission",
    ]  # fmt: skip


def test_checks_pass_a_run_of_typical_paragraphs() -> None:
    """The engine checks every answer: a run of typical paragraphs and their translations passes
    clean, each on its own. Its speed (budget ~0.2 ms per paragraph) is a figure, printed by
    benchmarks/bench_checks.py on these same pairs, not a timed assertion here."""
    pairs = [(EN + f" {i}", FR + f" {i}") for i in range(200)]
    for source, answer in pairs:
        assert check_block(source, answer, target_lang="fr", mode="translate") == []
