"""bookkit/exercises/grading.py: right within the tolerance, or a hint."""
import math
import re

import pytest

from bookkit import exercises


@pytest.mark.parametrize("ex_id", exercises.exercise_ids())
def test_checker_right_and_wrong(ex_id):
    exp = exercises.expected(ex_id)
    assert math.isfinite(exp) and exp > 0, ex_id
    right = exercises.check(ex_id, exp)
    assert right.correct and right.message.startswith("Right")
    wrong = exercises.check(ex_id, exp * 1.5 + 1)
    assert not wrong.correct and wrong.message.startswith("Not yet")
    assert not re.search(r"(?<![\d.,])" + re.escape(wrong.answer_text), wrong.message)


def test_messages():
    right = exercises.check("ch1-1", 34.3)
    assert right.message == "Right: you gave 34.3 ms, within ±1% of the answer (34.33 ms)."
    assert str(right) == right.message
    assert exercises.check("ch2-4", 4).message == "Right: 4 requests."
    wrong = exercises.check("ch2-4", 7)
    assert wrong.message.startswith("Not yet: you gave 7 requests. Far too high.")


def test_tolerance_edges():
    exp = exercises.expected("ch1-1")
    assert exercises.check("ch1-1", exp * 1.0099).correct
    assert not exercises.check("ch1-1", exp * 1.0101).correct
    assert exercises.check("ch2-4", 4.0).correct and not exercises.check("ch2-4", 4.0001).correct


#: the answers that are the largest whole number that fits: one more does not fit
LARGEST_THAT_FITS = ("ch1-4", "ch2-4", "ch2-n3")


@pytest.mark.parametrize("ex_id", LARGEST_THAT_FITS)
def test_largest_that_fits_is_graded_from_below(ex_id):
    """Physics review 11: a reply above a capacity's floor does not fit, however close."""
    ex, exp = exercises.get(ex_id), exercises.expected(ex_id)
    assert ex.side == "at_most" and exp == int(exp)
    assert exercises.check(ex_id, exp).correct
    over = exercises.check(ex_id, exp + 1)
    assert not over.correct and "do not fit" in over.hint
    assert "do not fit" not in exercises.check(ex_id, exp * 0.5).hint


def test_exercise_1_4_refuses_a_context_that_does_not_fit():
    from bookkit.exercises import ch1
    from infra_calc import source as S
    from infra_calc.scenarios import j07_kv_bytes_per_token, j07_left_after_weights

    assert exercises.expected("ch1-4") == 129
    assert not exercises.check("ch1-4", 130).correct
    assert exercises.check("ch1-4", 129).correct and exercises.check("ch1-4", 128).correct
    assert not exercises.check("ch1-4", 127).correct
    # 130 tokens each for B* requests really exceed the bytes left, 129 do not
    per_token = ch1.bstar_requests() * j07_kv_bytes_per_token()
    assert 130 * per_token > j07_left_after_weights() >= 129 * per_token
    assert S.J07_WEIGHTS_8BIT + 129 * per_token <= S.j07_h100().mem_capacity
    msg = exercises.check("ch1-4", 128).message
    assert msg == ("Right: you gave 128 tokens, within −1 tokens of the answer "
                   "(129 tokens, the most that fits).")


def test_exercise_2_7_refuses_one_token_more():
    exp = exercises.expected("ch2-n3")
    assert not exercises.check("ch2-n3", exp + 1).correct
    assert exercises.check("ch2-n3", exp - 24).correct       # −0.2% of 12,276 is −24.6
    assert not exercises.check("ch2-n3", exp - 25).correct
    assert exercises.get("ch2-n3").tolerance_text == "at most 12,276 tokens, within −0.2%"


def test_no_other_exercise_is_a_largest_that_fits():
    assert sorted(i for i in exercises.exercise_ids()
                  if exercises.get(i).side == "at_most") == sorted(LARGEST_THAT_FITS)


def test_check_text_converts_units():
    assert exercises.check_text("ch1-n1", "0.01415 s").correct
    assert exercises.check_text("ch3-n5", "2.98x").correct
    with pytest.raises(ValueError, match="unit of bytes"):
        exercises.check_text("ch1-1", "34 GB")


def test_check_choice():
    assert exercises.check_choice("ch1-1", 0, "no") == (
        True, "Right: no. The read bound alone is above the target.")
    ok, msg = exercises.check_choice("ch1-1", 0, "yes")
    assert not ok and msg.startswith("Not yes")
    with pytest.raises(ValueError, match="pick one of yes, no"):
        exercises.check_choice("ch1-1", 0, "maybe")


def test_checker_errors():
    with pytest.raises(ValueError, match="unknown exercise"):
        exercises.check("j99-1", 1.0)
    with pytest.raises(TypeError, match=r"value \(ms\) must be a number"):
        exercises.check("ch1-1", "34.3")
    with pytest.raises(ValueError, match="finite"):
        exercises.check("ch1-1", float("nan"))
