"""bookkit/exercises/spec.py: what an exercise is."""
from dataclasses import fields

import pytest

from bookkit.exercises.spec import Choice, Exercise, yes_no


def make(**kw):
    base = dict(id="t-1", unit="ms", answer=lambda: 10e-3)
    return Exercise(**{**base, **kw})


def test_defaults():
    ex = make()
    assert ex.rel_tol == 0.01 and ex.abs_tol == 0.0
    assert ex.hints == () and ex.parts == () and ex.source_answer is None
    assert ex.side == "both" and ex.numbered and ex.title == ""     # the registry titles it


def test_the_registry_keeps_no_question_or_solution_text():
    """The page poses the question and works the solution; an exercise holds what grading needs."""
    assert {f.name for f in fields(Exercise)} == {
        "id", "unit", "answer", "rel_tol", "abs_tol", "source_answer", "hints", "parts",
        "side", "numbered", "title"}


@pytest.mark.parametrize("unit, si, typed", [("ms", 10e-3, 10.0), ("%", 0.25, 25.0),
                                             ("TB/s", 3.5e12, 3.5), ("GB", 78.56e9, 78.56),
                                             ("requests", 4, 4.0)])
def test_answer_is_si_and_expected_is_in_the_display_unit(unit, si, typed):
    assert make(unit=unit, answer=lambda: si).expected() == pytest.approx(typed, rel=1e-12)


def test_unit_must_be_one_the_checker_can_scale():
    with pytest.raises(ValueError, match="infra_calc.units.UNITS"):
        make(unit="furlongs")


@pytest.mark.parametrize("kw, text", [({}, "±1%"), (dict(rel_tol=0.0), "exact"),
                                      (dict(rel_tol=0.0, abs_tol=0.5), "±0.5 ms"),
                                      (dict(rel_tol=0.02, abs_tol=0.5), "±2% or ±0.5 ms")])
def test_tolerance_text(kw, text):
    assert make(**kw).tolerance_text == text


@pytest.mark.parametrize("kw, text", [
    (dict(unit="tokens", answer=lambda: 129, rel_tol=0.0, abs_tol=1.0),
     "at most 129 tokens, within −1 tokens"),
    (dict(unit="tokens", answer=lambda: 12276, rel_tol=0.002),
     "at most 12,276 tokens, within −0.2%"),
    (dict(unit="requests", answer=lambda: 4, rel_tol=0.0), "exact")])
def test_one_sided_tolerance_text(kw, text):
    assert make(side="at_most", **kw).tolerance_text == text


def test_at_most_accepts_only_below_the_answer():
    ex = make(unit="tokens", answer=lambda: 129, rel_tol=0.0, abs_tol=1.0, side="at_most")
    assert [v for v in (127, 128, 129, 129.5, 130) if ex.within_tolerance(v, 129.0)] == [128, 129]
    both = make(unit="tokens", answer=lambda: 129, rel_tol=0.0, abs_tol=1.0)
    assert both.within_tolerance(130, 129.0)          # the symmetric band would take it


def test_side_must_be_known():
    with pytest.raises(ValueError, match="side must be one of both, at_most"):
        make(side="below")


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

