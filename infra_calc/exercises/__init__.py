"""Self-test exercises and an answer checker.

Each exercise computes its expected answer with the library (never a typed
literal) and a worked solution.  ``check(exercise_id, value)`` says whether a
reader's number is right within the exercise's stated tolerance.

>>> from infra_calc import exercises
>>> exercises.check("j07-1", 34.3).correct
True
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

__all__ = ["Exercise", "CheckResult", "EXERCISES", "register", "get", "expected", "check",
           "exercise_ids"]

EXERCISES: dict = {}


@dataclass(frozen=True)
class Exercise:
    """One exercise.

    Parameters
    ----------
    id : str
        ``"<chapter>-<n>"``, e.g. ``"j07-1"``; new (non-source) ones ``"j07-n1"``.
    question : str
        The question as the book states it.
    unit : str
        Unit the answer is given in (``"ms"``, ``"FLOP/byte"``, ``"requests"`` ...).
    answer : callable
        ``answer() -> float``: the expected value, in ``unit``, computed.
    solution : callable
        ``solution() -> str``: the worked steps, with computed numbers.
    rel_tol, abs_tol : float
        A reply is right when ``|value - expected| <= max(rel_tol·|expected|, abs_tol)``.
    source_answer : float, optional
        The answer the source chapter states (rounded), for source questions.
    """

    id: str
    question: str
    unit: str
    answer: Callable[[], float]
    solution: Callable[[], str]
    rel_tol: float = 0.01
    abs_tol: float = 0.0
    source_answer: float | None = None
    tags: tuple = field(default=())

    @property
    def chapter(self) -> str:
        return self.id.split("-")[0]

    @property
    def tolerance_text(self) -> str:
        parts = []
        if self.rel_tol:
            parts.append(f"±{self.rel_tol * 100:g}%")
        if self.abs_tol:
            parts.append(f"±{self.abs_tol:g} {self.unit}")
        return " or ".join(parts) if parts else "exact"


@dataclass(frozen=True)
class CheckResult:
    """Outcome of :func:`check`."""

    exercise_id: str
    value: float
    expected: float
    unit: str
    correct: bool
    tolerance: str
    solution: str

    @property
    def message(self) -> str:
        verdict = "Right" if self.correct else "Not yet"
        return (f"{verdict}: you gave {self.value:g} {self.unit}; expected {self.expected:.4g} "
                f"{self.unit} (tolerance {self.tolerance}).")

    def __str__(self) -> str:
        return self.message


def tflops(hw) -> str:
    """Dense peak of a catalog accelerator as question text, e.g. ``'989.4'`` (TFLOP/s)."""
    from ..hardware import resolve_hw

    return f"{resolve_hw(hw).peak_flops / 1e12:,g}"


def tbs(hw) -> str:
    """Memory bandwidth of a catalog accelerator as question text, e.g. ``'3.35'`` (TB/s)."""
    from ..hardware import resolve_hw

    return f"{resolve_hw(hw).mem_bandwidth / 1e12:g}"


def register(ex: Exercise) -> Exercise:
    """Add an exercise to the registry (ids must be unique)."""
    if ex.id in EXERCISES:
        raise ValueError(f"exercise id {ex.id!r} is already registered")
    EXERCISES[ex.id] = ex
    return ex


def _load():
    from . import j07, j13, ch3  # noqa: F401  (modules register on import)


def exercise_ids(chapter: str | None = None) -> list[str]:
    """Registered ids, optionally only one chapter's (``"j07"``, ``"j13"``)."""
    _load()
    return [k for k, ex in EXERCISES.items() if chapter is None or ex.chapter == chapter]


def get(exercise_id: str) -> Exercise:
    """Look up an exercise; the error lists the known ids."""
    _load()
    if not isinstance(exercise_id, str):
        raise TypeError(f"exercise_id must be a string such as 'j07-1', got {exercise_id!r}")
    try:
        return EXERCISES[exercise_id.strip().lower()]
    except KeyError:
        raise ValueError(f"unknown exercise {exercise_id!r}; known: {', '.join(EXERCISES)}") from None


def expected(exercise_id: str) -> float:
    """The computed answer of an exercise, in its unit."""
    return float(get(exercise_id).answer())


def check(exercise_id: str, value) -> CheckResult:
    """Check a reader's answer.

    Parameters
    ----------
    exercise_id : str
    value : float
        The reader's answer, in the exercise's unit.

    Returns
    -------
    CheckResult
        ``correct``, the expected value, the tolerance and the worked solution.
    """
    ex = get(exercise_id)
    if isinstance(value, bool) or not isinstance(value, (int, float)) and \
            type(value).__module__ != "numpy":
        raise TypeError(f"value ({ex.unit}) must be a number, got {type(value).__name__}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"value ({ex.unit}) must be a finite number, got {value}")
    exp = float(ex.answer())
    ok = abs(value - exp) <= max(ex.rel_tol * abs(exp), ex.abs_tol)
    return CheckResult(ex.id, value, exp, ex.unit, ok, ex.tolerance_text, ex.solution())
