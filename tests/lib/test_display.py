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
