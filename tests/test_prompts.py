from __future__ import annotations

import pytest

from fastdesk.translate.prompts import (
    Markers,
    ThinkStripper,
    build_messages,
    needs_markers,
    pack_text,
    partial_pack,
    split_pack,
    strip_thinking,
    system_prompt,
)

ANSWER = "<think>\nLet me think about accents.\n</think>\n\nBonjour, **monde** !"


@pytest.mark.parametrize("cut", range(len(ANSWER) + 1))
def test_think_stripped_wherever_the_stream_splits(cut: int) -> None:
    s = ThinkStripper()
    out = s.feed(ANSWER[:cut]) + s.feed(ANSWER[cut:]) + s.finish()
    assert out == "Bonjour, **monde** !"


def test_think_stripped_char_by_char() -> None:
    s = ThinkStripper()
    out = "".join(s.feed(c) for c in ANSWER) + s.finish()
    assert out == "Bonjour, **monde** !"


@pytest.mark.parametrize(
    "text", ["Bonjour", "  indented", "<b>bold</b>", "<th", "<thinking is fun", ""]
)
def test_answers_without_think_block_pass_untouched(text: str) -> None:
    s = ThinkStripper()
    out = "".join(s.feed(c) for c in text) + s.finish()
    assert out == text


def test_only_a_leading_think_block_is_removed() -> None:
    assert strip_thinking("Le mot <think> reste.") == "Le mot <think> reste."
    assert strip_thinking("<think>a</think>B <think>c</think>") == "B <think>c</think>"


def test_unclosed_think_hides_everything() -> None:
    assert strip_thinking("<think>still thinking when the stream was cut") == ""


def test_text_is_the_last_user_message_verbatim() -> None:
    text = "# Titre\r\n\r\n- a\n"
    messages = build_messages(system_prompt("translate", "fr"), text)
    assert messages[-1] == {"role": "user", "content": text}
    assert "French" in messages[0]["content"]
    assert "U+00A0" in messages[0]["content"]


def test_simplify_prompt_keeps_language_and_rejects_unknown_modes() -> None:
    assert "SAME language" in system_prompt("simplify", "fr")
    with pytest.raises(ValueError, match="unknown mode"):
        system_prompt("summarise", "fr")


def test_reasoning_models_are_told_not_to_think_in_the_system_message() -> None:
    assert "/no_think" in system_prompt("translate", "de", model="qwen/qwen3-32b")
    assert "/no_think" not in system_prompt("translate", "de", model="llama-3.1-8b-instant")


def test_what_one_request_adds_goes_in_a_second_system_message() -> None:
    from fastdesk.translate.prompts import Context, request_notes

    system = system_prompt("translate", "es", glossary_lines=['keep "fastdesk"'])
    notes = request_notes("translate", context=Context("Guide", "Before."), firmer="numbers")
    messages = build_messages(system, "Hola.", notes)
    assert [m["role"] for m in messages] == ["system", "system", "user"]
    assert 'keep "fastdesk"' in messages[0]["content"]
    assert "Document title: Guide" in notes and "Before." in notes and "rejected" in notes
    assert "Guide" not in system
    assert build_messages(system, "Hola.", request_notes("translate")) == build_messages(
        system, "Hola."
    )  # nothing to add: no empty message


CORES = ["# Title", "Para with `code`\r\nand CRLF", "- a\n- b", "| a | b |\n|---|---|\n| 1 | 2 |"]


M = Markers("a1b2c3")


def test_pack_round_trip_by_echo() -> None:
    assert split_pack(pack_text(CORES, M), len(CORES), M) == CORES
    assert split_pack(pack_text(CORES[:1], None), 1, None) == CORES[:1]


def test_pack_with_missing_or_reordered_marker_is_rejected() -> None:
    text = pack_text(CORES, M)
    assert split_pack(text.replace(M.line(2) + "\n", ""), len(CORES), M) is None
    swapped = text.replace(M.line(2), "<X>").replace(M.line(3), M.line(2))
    assert split_pack(swapped.replace("<X>", M.line(3)), len(CORES), M) is None
    assert split_pack("Preamble.\n" + text, len(CORES), M) is None


def test_markers_in_the_source_cannot_collide_with_the_real_ones() -> None:
    cores = ["- a list item that shows <!--fd:1-->\n\n<!--fd:2-->", "Second."]
    for _ in range(20):
        markers = Markers.fresh("".join(cores))
        assert markers.nonce not in "".join(cores)
        assert split_pack(pack_text(cores, markers), 2, markers) == cores


def test_a_block_that_starts_with_think_is_sent_with_a_marker() -> None:
    assert needs_markers(["<think>the source's own</think> text"])
    assert not needs_markers(["plain"]) and needs_markers(["a", "b"])


def test_partial_pack_shows_blocks_as_their_markers_arrive() -> None:
    text = pack_text(CORES, M)
    cut = text.index(M.line(3)) + len(M.line(3)) + 2
    parts = partial_pack(text[:cut], len(CORES), M)
    assert parts[0] == CORES[0] and parts[1] == CORES[1]
    assert set(parts) == {0, 1, 2}


def test_partial_pack_never_shows_a_marker_still_arriving() -> None:
    text = pack_text(CORES, M)
    for cut in range(len(text) + 1):
        parts = partial_pack(text[:cut], len(CORES), M)
        assert not any("<" in part for part in parts.values()), (cut, parts)
        for n, part in parts.items():
            assert CORES[n].startswith(part)


def test_a_line_that_only_starts_like_a_marker_shows_once_it_is_not_one() -> None:
    text = pack_text(CORES[:2], M) + "\n\n<b>bold</b>"
    held = partial_pack(text[: text.index("<b>") + 1], 2, M)[1]  # "<": maybe a marker
    assert held == CORES[1]
    assert partial_pack(text[: text.index("<b>") + 2], 2, M)[1] == CORES[1] + "\n\n<b"
    assert partial_pack(text, 2, M)[1] == CORES[1] + "\n\n<b>bold</b>"
