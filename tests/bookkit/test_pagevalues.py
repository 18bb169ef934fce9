"""bookkit/pagevalues.py: the numbers one page shows, each set once."""
import pytest

import infra_calc as ic
from bookkit import PageValues


def test_page_values_refuse_rebinding():
    v = PageValues()
    v.a = ic.shown(1.0)
    with pytest.raises(AttributeError, match="already set"):
        v.a = ic.shown(2.0)


def test_page_values_show_plain_text_without_quotes():
    v = PageValues()
    v.date = "2026-11-29"
    assert repr(v.date) == "2026-11-29" and v.date == "2026-11-29"


def test_from_parts_sets_each_part_in_turn_and_still_refuses_rebinding():
    def first(v):
        v.a = ic.shown(1.0)

    def second(v):
        v.b = ic.shown(2.0, "ms", 1)

    v = PageValues.from_parts(first, second)
    assert list(vars(v)) == ["a", "b"] and str(v.b) == "2,000.0 ms"
    with pytest.raises(AttributeError, match="already set"):
        PageValues.from_parts(first, first)
