"""WCAG 2's contrast ratio and the readable variant of a colour (fastdesk.ui.panes.contrast)."""

from __future__ import annotations

import pytest

from fastdesk.ui.panes.contrast import AA, contrast_ratio, readable


def test_contrast_ratio_matches_wcag_examples() -> None:
    assert contrast_ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast_ratio("#ffffff", "#ffffff") == pytest.approx(1.0)
    assert contrast_ratio("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)  # the AA grey
    assert contrast_ratio("#fff", "#000") == contrast_ratio("#000000", "#ffffff")


@pytest.mark.parametrize("background", ["#ffffff", "#f6f8fa", "#16181d", "#1f2227"])
@pytest.mark.parametrize("colour", ["#d4a72c", "#8c959f", "#cf222e", "#1a7f37", "#0303e4"])
def test_readable_reaches_aa_and_keeps_colours_that_already_do(colour, background) -> None:
    out = readable(colour, background)
    assert contrast_ratio(out, background) >= AA
    if contrast_ratio(colour, background) >= AA:
        assert out == colour


def test_bad_colour_is_one_clear_error() -> None:
    with pytest.raises(ValueError, match="not a #rrggbb colour"):
        contrast_ratio("red", "#ffffff")
