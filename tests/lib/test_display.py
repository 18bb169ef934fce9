"""infra_calc.display: numbers as the prose shows them."""

import pytest

import infra_calc as ic


@pytest.mark.parametrize("value, unit, digits, text", [
    (0.020896, "ms", 2, "20.90 ms"),
    (0.0001415, "ms", 4, "0.1415 ms"),
    (73.73e9, "GB", 2, "73.73 GB"),
    (24 * 2**30, "GiB", 0, "24 GiB"),
    (989.4e12, "TFLOP/s", 1, "989.4 TFLOP/s"),
    (4096, None, 0, "4,096"),
    (0.993, "%", 1, "99.3%"),
    (147.66, "×", 1, "147.7×"),
    (-2.5, None, 1, "−2.5"),
    (float("inf"), None, 1, "∞"),
])
def test_shown_scales_and_formats(value, unit, digits, text):
    s = ic.shown(value, unit, digits)
    assert repr(s) == str(s) == text and s.value == pytest.approx(float(value))


def test_bare_drops_the_unit():
    assert repr(ic.shown(70e9, "GB", 0, bare=True)) == "70"


@pytest.mark.parametrize("kwargs, match", [
    ({"value": 1.0, "unit": "furlongs"}, "unit must be one of"),
    ({"value": 1.0, "digits": -1}, "digits"),
    ({"value": float("nan")}, "NaN"),
])
def test_bad_input_names_the_parameter(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ic.shown(**kwargs)


def test_not_a_number():
    with pytest.raises(TypeError, match="value must be a number"):
        ic.shown("twenty", "ms")


def test_page_values_refuse_rebinding():
    v = ic.PageValues()
    v.a = ic.shown(1.0)
    with pytest.raises(AttributeError, match="already set"):
        v.a = ic.shown(2.0)


def test_page_values_show_plain_text_without_quotes():
    v = ic.PageValues()
    v.date = "2026-11-29"
    assert repr(v.date) == "2026-11-29" and v.date == "2026-11-29"


def test_every_number_form_writes_infinity_the_same_way():
    """One rule for ∞: the prose, the tables, the labels and the checker's echo agree."""
    from infra_calc.display import plain_number, round_sig, shown, shown_up, sig

    inf = float("inf")
    forms = [str(shown(inf)), str(shown_up(inf, "ms")), sig(inf), round_sig(inf), plain_number(inf)]
    assert forms == ["∞", "∞ ms", "∞", "∞", "∞"]
    assert [str(shown(-inf)), sig(-inf), round_sig(-inf), plain_number(-inf)] == ["−∞"] * 4


def test_long_times_move_up_a_unit_and_the_unit_is_written_once():
    from infra_calc.display import TIME_UNITS, shown_up, sig

    assert [str(shown_up(t, "ms", 1)) for t in (9.9999, 10.0, 3.599e7, 4e13)] == [
        "9,999.9 ms", "10.0 s", "9,997.2 h", "1,267,523.5 years"]
    assert TIME_UNITS == ("ms", "s", "h", "years")
    assert sig(0.0209, "ms") == "20.90 ms" and sig(0.5, "%") == "50.00%"
