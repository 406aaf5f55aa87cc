"""Text colours readable on their background: WCAG 2's contrast ratio, and a colour moved
toward black or white until it reaches a ratio (AA asks 4.5:1 for text).

The states' and checks' colours (fastdesk.review) are one set for both themes and the HTML
export; drawn as text in the window they go through :func:`readable` against the background
they are drawn on, so the same amber is darker on white and lighter on the dark theme's grey.
Source: WCAG 2.2, "contrast ratio" and "relative luminance" (w3.org/TR/WCAG22/#dfn-contrast-ratio).
"""

from __future__ import annotations

__all__ = ["AA", "contrast_ratio", "luminance", "readable"]

AA = 4.5  # WCAG 2 level AA, normal text


def _rgb(colour: str) -> tuple[int, int, int]:
    text = colour.lstrip("#")
    if len(text) == 3:
        text = "".join(c * 2 for c in text)
    if len(text) != 6 or not all(c in "0123456789abcdefABCDEF" for c in text):
        raise ValueError(f"not a #rrggbb colour: {colour!r}")
    return int(text[0:2], 16), int(text[2:4], 16), int(text[4:6], 16)


def _linear(channel: int) -> float:
    c = channel / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def luminance(colour: str) -> float:
    """WCAG's relative luminance of ``#rrggbb`` (0 black … 1 white)."""
    r, g, b = (_linear(c) for c in _rgb(colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(foreground: str, background: str) -> float:
    """1 (the same) … 21 (black on white)."""
    a, b = sorted((luminance(foreground), luminance(background)), reverse=True)
    return (a + 0.05) / (b + 0.05)


def readable(colour: str, *backgrounds: str, ratio: float = AA) -> str:
    """``colour`` if it reaches ``ratio`` on each of ``backgrounds`` (a list's rows, plain and
    alternate), else the nearest mix of it with black (on a light first background) or white
    (on a dark one) that does."""
    if not backgrounds:
        raise ValueError("readable: no background given")

    def enough(candidate: str) -> bool:
        return all(contrast_ratio(candidate, back) >= ratio for back in backgrounds)

    if enough(colour):
        return colour
    toward = (0, 0, 0) if luminance(backgrounds[0]) > 0.18 else (255, 255, 255)
    start = _rgb(colour)
    for step in range(1, 101):
        t = step / 100
        mixed = "#" + "".join(
            f"{round(c + (e - c) * t):02x}" for c, e in zip(start, toward, strict=True)
        )
        if enough(mixed):
            return mixed
    return "#000000" if toward == (0, 0, 0) else "#ffffff"
