"""fastdesk.document.text_ends: the shared start and end of two texts, also across chunk
boundaries."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from fastdesk.document.text_ends import common_prefix, common_suffix


def plain_prefix(a: str, b: str) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


# Long shared runs (several 4,096-character chunks) with a difference anywhere in them.
texts = st.builds(
    lambda base, cut, other: (base, base[:cut] + other + base[cut:]),
    st.text(alphabet="ab\n😀", min_size=0, max_size=9000).map(lambda t: t * 2),
    st.integers(min_value=0, max_value=18000),
    st.text(alphabet="abc", max_size=3),
)


@given(texts)
def test_the_shared_ends_are_what_a_scan_character_by_character_finds(
    pair: tuple[str, str],
) -> None:
    a, b = pair
    assert common_prefix(a, b) == plain_prefix(a, b)
    assert common_suffix(a, b) == plain_prefix(a[::-1], b[::-1])


def test_limits_bound_both() -> None:
    a, b = "x" * 10_000, "x" * 10_000
    assert common_prefix(a, b) == 10_000 and common_suffix(a, b) == 10_000
    assert common_prefix(a, b, 4_100) == 4_100 and common_suffix(a, b, 5) == 5
    assert common_prefix("abc", "abd") == 2 and common_suffix("xbc", "abc") == 2
