"""infra_calc/exercises/spec.py: what an exercise is."""
import pytest

from infra_calc import accelerator
from infra_calc.exercises.spec import Choice, Exercise, tbs, tflops, yes_no


def make(**kw):
    base = dict(id="t-1", question="How long?", unit="ms", answer=lambda: 10.0,
                solution=lambda: "10 ms.")
    return Exercise(**{**base, **kw})


def test_defaults_and_chapter():
    ex = make()
    assert ex.chapter == "t" and ex.rel_tol == 0.01 and ex.abs_tol == 0.0
    assert ex.hints == () and ex.parts == () and ex.title is None and ex.digits is None


def test_title_is_what_a_reader_sees_id_by_default():
    assert make().display_title == "t-1"
    assert make(title="Exercise 3.1").display_title == "Exercise 3.1"


@pytest.mark.parametrize("kw, text", [({}, "±1%"), (dict(rel_tol=0.0), "exact"),
                                      (dict(rel_tol=0.0, abs_tol=0.5), "±0.5 ms"),
                                      (dict(rel_tol=0.02, abs_tol=0.5), "±2% or ±0.5 ms")])
def test_tolerance_text(kw, text):
    assert make(**kw).tolerance_text == text


def test_within_tolerance_is_the_larger_of_relative_and_absolute():
    ex = make(rel_tol=0.01, abs_tol=0.05)
    assert ex.within_tolerance(10.1, 10.0) and not ex.within_tolerance(10.11, 10.0)
    assert make(rel_tol=0.0, abs_tol=0.0).within_tolerance(4, 4.0)
    assert not make(rel_tol=0.0).within_tolerance(5, 4.0)
    assert ex.within_tolerance(0.05, 0.0)


def test_yes_no_and_choice():
    ch = yes_no("Reachable?", lambda: 3 < 2, "It is not.")
    assert isinstance(ch, Choice) and ch.options == ("yes", "no") and ch.answer() == "no"
    assert yes_no("Reachable?", lambda: True).answer() == "yes"


def test_question_text_quotes_the_catalog():
    h100 = accelerator("H100 SXM")
    assert tflops("H100 SXM") == f"{h100.peak_flops / 1e12:,g}"
    assert tbs(h100) == f"{h100.mem_bandwidth / 1e12:g}"
