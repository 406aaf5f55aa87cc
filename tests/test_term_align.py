"""Which words of a translation render a source term: the glossary's one-click fix and Add to
Glossary's guess (fastdesk.translate.term_align)."""

from __future__ import annotations

from fastdesk.translate.glossary import Glossary
from fastdesk.translate.term_align import follow_glossary, guess_rendering

PULL = Glossary(translate={"fr": {"pull": "extraire"}})
OTHERS = [
    ("Pull the main branch.", "Tirez la branche principale."),
    ("You can pull often.", "Vous pouvez tirer souvent."),  # another form: the same stem
    ("The cat sleeps.", "Le chat dort."),
    ("Read the branch docs.", "Lisez la doc de la branche."),  # "la branche": not the term's
]


def test_the_wrong_rendering_the_other_blocks_share_is_replaced() -> None:
    fixed = follow_glossary(
        "Pull the feature branch.", "Tirez la branche de fonctionnalité.", PULL, "fr", OTHERS
    )
    assert fixed == "Extraire la branche de fonctionnalité."  # capital kept, the rest as it was
    assert not PULL.check("Pull the feature branch.", fixed, "fr")


def test_a_term_left_untranslated_is_replaced() -> None:
    assert follow_glossary("Please pull it.", "Merci de pull ça.", PULL, "fr") == (
        "Merci de extraire ça."
    )


def test_no_fix_without_certainty_or_without_a_problem() -> None:
    alone = follow_glossary("Pull the branch.", "Tirez la branche.", PULL, "fr")
    assert alone is None  # nothing tells which words render "pull": not guessed
    assert follow_glossary("Pull the branch.", "Extrayez la branche.", PULL, "fr", OTHERS) is None
    followed = [("Pull the main branch.", "Extraire la branche principale.")]
    assert follow_glossary("Pull it.", "Tirez-le.", PULL, "fr", followed) is None


def test_a_kept_term_the_model_translated_is_put_back() -> None:
    keep = Glossary(keep=("Docker",))
    others = [("Docker runs here.", "Le Docker tourne ici."), ("Start Docker.", "Lancez Dockeur.")]
    others += [("Use docker now.", "Utilisez Dockeur maintenant.")]
    assert follow_glossary("Install Docker.", "Installez Dockeur.", keep, "fr", others) == (
        "Installez Docker."
    )


def test_the_guess_for_add_to_glossary() -> None:
    target = "Tirez la branche de fonctionnalité."
    assert guess_rendering("Pull the feature branch.", target, "Pull", OTHERS) == "Tirez"
    # nothing else tells: the words where the term stands, as many as it has
    assert guess_rendering("The cat sleeps.", "Le chat dort.", "cat") == "chat"
    assert guess_rendering("The big cat sleeps.", "Le gros chat dort.", "big cat") == "gros chat"
    assert guess_rendering("The cat sleeps.", "Le chat dort.", "dog") == ""
    # deterministic: the same answer every time
    assert {guess_rendering("Pull the feature branch.", target, "feature") for _ in range(5)} == {
        guess_rendering("Pull the feature branch.", target, "feature")
    }
