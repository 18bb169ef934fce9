"""Grading a reader's answer: right within the tolerance, or a hint.

``check(id, value)`` grades a number in the exercise's unit; ``check_text``
grades what a reader typed (a unit is optional and converted);
``check_choice`` grades a yes/no (pick-one) part.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from infra_calc.display import plain_number

from .answers import answer_text, parse_answer
from .hints import hint_for
from .registry import get

__all__ = ["CheckResult", "check", "check_text", "check_choice"]


@dataclass(frozen=True)
class CheckResult:
    """Outcome of :func:`check`.

    ``value`` and ``expected`` are in ``unit``.  ``message`` never contains the
    expected value when the answer is wrong: ``hint`` coaches instead, and
    ``answer_text`` is there for a reader who asks for it (the worked solution is
    on the exercise's page).
    """

    exercise_id: str
    value: float
    expected: float
    unit: str
    correct: bool
    tolerance: str
    hint: str = ""
    answer_text: str = ""
    side: str = "both"
    band: str = ""

    @property
    def message(self) -> str:
        """``"Right: ..."`` with the answer, or ``"Not yet: you gave ... <hint>"``."""
        if self.correct:
            if self.tolerance == "exact":
                return f"Right: {self.answer_text}."
            if self.side == "at_most":
                return (f"Right: you gave {plain_number(self.value)} {self.unit}, within "
                        f"{self.band} of the answer ({self.answer_text}, the most that fits).")
            return (f"Right: you gave {plain_number(self.value)} {self.unit}, within "
                    f"{self.tolerance} of the answer ({self.answer_text}).")
        return f"Not yet: you gave {plain_number(self.value)} {self.unit}. {self.hint}".rstrip()

    def __str__(self) -> str:
        return self.message


def check(exercise_id: str, value, attempt: int = 1) -> CheckResult:
    """Check a reader's answer.

    Parameters
    ----------
    exercise_id : str
    value : float
        The reader's answer, in the exercise's unit.
    attempt : int
        1 for the first try; each further attempt adds one of the exercise's hints.

    Returns
    -------
    CheckResult
        ``correct`` when ``|value - expected| <= max(rel_tol·|expected|, abs_tol)``
        (and, for ``side="at_most"``, ``value <= expected``: one more does not fit);
        the expected value (in the exercise's unit) and the tolerance.
    """
    ex = get(exercise_id)
    if isinstance(value, bool) or not isinstance(value, (int, float)) and \
            type(value).__module__ != "numpy":
        raise TypeError(f"value ({ex.unit}) must be a number, got {type(value).__name__}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"value ({ex.unit}) must be a finite number, got {value}")
    exp = ex.expected()
    ok = ex.within_tolerance(value, exp)
    return CheckResult(ex.id, value, exp, ex.unit, ok, ex.tolerance_text,
                       "" if ok else hint_for(ex, value, attempt), answer_text(exp, ex.unit),
                       ex.side, ex.band_text)


def check_text(exercise_id: str, text, attempt: int = 1) -> CheckResult:
    """Like :func:`check`, for what a reader typed: ``"34.3"``, ``"34.3 ms"``, ``"0.0343 s"``.

    Raises ``ValueError`` (with a message meant for the reader) when the text is
    not a number or carries a unit of another kind.
    """
    ex = get(exercise_id)
    return check(ex.id, parse_answer(text, ex.unit), attempt=attempt)


def check_choice(exercise_id: str, part: int, picked: str) -> tuple[bool, str]:
    """Grade a yes/no (pick-one) part: ``(correct, message)``; a wrong pick gets no reason."""
    ex = get(exercise_id)
    ch = ex.parts[part]
    if picked not in ch.options:
        raise ValueError(f"pick one of {', '.join(ch.options)}, got {picked!r}")
    right = ch.answer()
    if picked == right:
        return True, f"Right: {picked}." + (f" {ch.why}" if ch.why else "")
    return False, f"Not {picked}: compare the numbers again (work out the number part first)."
