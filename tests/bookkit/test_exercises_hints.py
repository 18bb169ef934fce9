"""bookkit/exercises/hints.py: hints coach, they never tell (issue 18 §2).

For every numeric exercise and a spread of wrong answers, no hint lets a reader
recover the answer within its tolerance: no number in the hint, combined with the
typed value (×, ÷, +, −, as a percentage up or down), lands on the answer.  Unit
slips are the one exception: there the digits typed are already the answer's.
"""
import re

import pytest

from bookkit import exercises
from bookkit.exercises.hints import SIZE_WORDS, UNIT_SLIPS, hint_for

IDS = exercises.exercise_ids()
# typed / answer: near and far, both sides, around powers of ten, a unit slip
SPREAD = (0.0009, 0.011, 0.05, 0.0999, 0.1, 0.2, 0.31, 0.5, 0.61, 0.8, 0.87, 0.93, 0.97, 0.985,
          1.015, 1.03, 1.07, 1.2, 1.39, 1.5, 2.0, 3.3, 7.0, 9.97, 10.0, 13.0, 31.0, 100.0, 970.0,
          1000.0, 1e6)
SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")
NUMBER = re.compile(r"(\d[\d,]*(?:\.\d+)?)([⁰¹²³⁴⁵⁶⁷⁸⁹]+)?\s*(×|%)?")


def numbers(text: str) -> list[tuple[float, str]]:
    """The numbers of a text with what follows them: ``(10.0, "×")``, ``(39.0, "%")``, ``(8.0, "")``."""
    out = []
    for base, sup, after in NUMBER.findall(text):
        x = float(base.replace(",", ""))
        out.append((x ** int(sup.translate(SUPERSCRIPT)) if sup else x, after))
    return out


def backs_out(ex, value: float, exp: float, number: tuple[float, str]) -> bool:
    """Does the number, used as a reader would with the typed ``value``, give the answer?

    A factor ("10×") multiplies or divides; a percentage moves the value up or down by
    it; any other number is tried every way (itself, ×, ÷, +, −)."""
    n, kind = number
    tries = [value * n, value / n] if n else []
    if kind == "%":
        tries = [value * (1 + n / 100), value * (1 - n / 100), value / (1 + n / 100)]
        tries += [value / (1 - n / 100)] if n != 100 else []
    elif kind != "×":
        tries += [n, value + n, value - n, n - value] + ([n / value] if value else [])
    return any(ex.within_tolerance(t, exp) for t in tries)


def wrong_values(ex, exp: float) -> list[float]:
    vals = [exp * r for r in SPREAD]
    if ex.rel_tol == 0 and ex.abs_tol == 0:     # whole-number answers: off by one, two, ten
        vals += [exp + d for d in (-10, -2, -1, 1, 2, 10) if exp + d > 0]
    return [v for v in vals if not ex.within_tolerance(v, exp)]


@pytest.mark.parametrize("eid", IDS)
def test_no_hint_backs_out_the_answer(eid):
    ex = exercises.get(eid)
    exp = exercises.expected(eid)
    leaks = []
    for value in wrong_values(ex, exp):
        for attempt in (1, 2, 3):
            res = exercises.check(eid, value, attempt=attempt)
            assert not res.correct and res.hint
            if res.hint.startswith("Check your units"):   # a unit slip: the digits are right
                continue
            own = " ".join(ex.hints)
            coach = res.hint.replace(own, "") if own else res.hint
            for h in ex.hints:
                coach = coach.replace(h, "")
            # "%" as the answer's unit ("the answer is in %") is not a size
            assert "%" not in coach.replace(f"in {ex.unit}", ""), res.hint
            leaks += [(value, n, res.hint) for n in numbers(coach) if backs_out(ex, value, exp, n)]
    assert not leaks, f"{eid}: hints that give the answer away: {leaks[:3]}"


@pytest.mark.parametrize("eid", IDS)
def test_the_exercises_own_hints_do_not_state_the_answer(eid):
    ex = exercises.get(eid)
    exp = exercises.expected(eid)
    answer = exercises.check(eid, exp).answer_text
    for h in ex.hints:
        assert answer not in h
        assert not any(ex.within_tolerance(n, exp) for n, _ in numbers(h)), (h, exp)


def test_direction_and_coarse_size_in_words():
    ex = exercises.get("ch1-1")
    exp = exercises.expected("ch1-1")
    for ratio, words in ((1.05, "A little too high"), (0.95, "A little too low"),
                         (1.3, "Clearly too high"), (0.7, "Clearly too low"),
                         (2.0, "Far too high"), (0.4, "Far too low"),
                         (13.0, "About 10× too high"), (0.013, "About 100× too low"),
                         (10.0, "Off by a power of ten (too high)"),
                         (0.1, "Off by a power of ten (too low)")):
        assert hint_for(ex, exp * ratio).startswith(words), (ratio, hint_for(ex, exp * ratio))
    assert [w for _, w in SIZE_WORDS] == ["a little", "clearly", "far"]


def test_unit_slips_are_named():
    ex = exercises.get("ch1-1")
    exp = exercises.expected("ch1-1")
    assert hint_for(ex, exp * 1000).startswith("Check your units: your number is 1,000× the answer's")
    assert hint_for(ex, exp / 1e6).startswith("Check your units: the answer is 1,000,000× yours")
    gb = exercises.get("ch3-n6")                      # GB: a GiB slip is named with its reason
    g = exercises.expected("ch3-n6")
    assert "GiB" in hint_for(gb, g * 2**30 / 1e9) and "GiB" not in hint_for(ex, exp * 2**30 / 1e9)
    assert {f for f, _ in UNIT_SLIPS} >= {1e3, 1e6, 1e9}


def test_the_exercises_own_hints_come_one_per_attempt():
    ex = exercises.get("ch1-1")
    assert len(ex.hints) == 2
    h1, h2, h3 = (hint_for(ex, 20.0, attempt=a) for a in (1, 2, 3))
    assert ex.hints[0] in h1 and ex.hints[1] not in h1
    assert ex.hints[0] in h2 and ex.hints[1] in h2 and h3 == h2


def test_sign_and_zero():
    ex = exercises.get("ch1-1")
    assert hint_for(ex, 0.0).startswith("Check the sign and the size: the answer is positive.")
    assert hint_for(ex, -34.3).startswith("Check the sign")
