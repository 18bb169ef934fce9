"""infra_calc.display: numbers as the prose shows them, and the stored-value check."""
import json

import pytest

import infra_calc as ic
from infra_calc.display import eval_expressions


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


def test_eval_expressions_in_order_without_repeats():
    assert eval_expressions("{eval}`v.a` and {eval}`v.b`, again {eval}`v.a`") == ["v.a", "v.b"]


def _notebook(tmp_path, stored):
    cell = {"cell_type": "markdown", "source": "T = {eval}`v.t`", "metadata": {}}
    if stored is not None:
        cell["metadata"]["user_expressions"] = [
            {"expression": "v.t", "result": {"status": "ok", "data": {"text/plain": stored}}}]
    path = tmp_path / "page.ipynb"
    path.write_text(json.dumps({"cells": [cell]}))
    return str(path)


def test_check_page_values_passes_when_stored_matches(tmp_path, monkeypatch):
    monkeypatch.delenv("INFRA_CALC_STORING", raising=False)
    v = ic.PageValues()
    v.t = ic.shown(0.0209, "ms", 2)
    assert ic.check_page_values({"v": v}, _notebook(tmp_path, "20.90 ms")) == 1


@pytest.mark.parametrize("stored", ["20.91 ms", None])
def test_check_page_values_fails_on_stale_or_missing(tmp_path, monkeypatch, stored):
    monkeypatch.delenv("INFRA_CALC_STORING", raising=False)
    v = ic.PageValues()
    v.t = ic.shown(0.0209, "ms", 2)
    with pytest.raises(AssertionError, match="out of date"):
        ic.check_page_values({"v": v}, _notebook(tmp_path, stored))


def test_page_values_show_plain_text_without_quotes():
    v = ic.PageValues()
    v.date = "2026-11-29"
    assert repr(v.date) == "2026-11-29" and v.date == "2026-11-29"
