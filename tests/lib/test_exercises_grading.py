"""infra_calc/exercises/grading.py: right within the tolerance, or a hint."""
import re

import pytest

from infra_calc import exercises


@pytest.mark.parametrize("ex_id", exercises.exercise_ids())
def test_checker_right_and_wrong(ex_id):
    exp = exercises.expected(ex_id)
    right = exercises.check(ex_id, exp)
    assert right.correct and right.message.startswith("Right")
    wrong = exercises.check(ex_id, exp * 1.5 + 1)
    assert not wrong.correct and wrong.message.startswith("Not yet")
    assert not re.search(r"(?<![\d.,])" + re.escape(wrong.answer_text), wrong.message)


def test_messages():
    right = exercises.check("j07-1", 34.3)
    assert right.message == "Right: you gave 34.3 ms, within ±1% of the answer (34.33 ms)."
    assert str(right) == right.message
    assert exercises.check("j13-4", 4).message == "Right: 4 requests."
    wrong = exercises.check("j13-4", 7)
    assert wrong.message.startswith("Not yet: you gave 7 requests. Far too high.")


def test_tolerance_edges():
    exp = exercises.expected("j07-1")
    assert exercises.check("j07-1", exp * 1.0099).correct
    assert not exercises.check("j07-1", exp * 1.0101).correct
    assert exercises.check("j13-4", 4.0).correct and not exercises.check("j13-4", 4.0001).correct


def test_check_text_converts_units():
    assert exercises.check_text("j07-n1", "0.01415 s").correct
    assert exercises.check_text("ch3-n5", "2.98x").correct
    with pytest.raises(ValueError, match="unit of bytes"):
        exercises.check_text("j07-1", "34 GB")


def test_check_choice():
    assert exercises.check_choice("j07-1", 0, "no") == (
        True, "Right: no. The read bound alone is above the target.")
    ok, msg = exercises.check_choice("j07-1", 0, "yes")
    assert not ok and msg.startswith("Not yes")
    with pytest.raises(ValueError, match="pick one of yes, no"):
        exercises.check_choice("j07-1", 0, "maybe")


def test_checker_errors():
    with pytest.raises(ValueError, match="unknown exercise"):
        exercises.check("j99-1", 1.0)
    with pytest.raises(TypeError, match=r"value \(ms\) must be a number"):
        exercises.check("j07-1", "34.3")
    with pytest.raises(ValueError, match="finite"):
        exercises.check("j07-1", float("nan"))
