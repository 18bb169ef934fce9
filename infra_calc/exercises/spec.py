"""What an exercise is: a question, a computed answer, its tolerance and hints.

The chapter modules (``j07``, ``j13``, ``ch3``, ``ch4``) build :class:`Exercise` values
and hand them to :func:`register`, which keeps them in :data:`EXERCISES`
(:mod:`infra_calc.exercises.registry` loads the chapters and puts them in book order).  Question text
quotes catalog numbers through :func:`tflops` and :func:`tbs`, so that a
catalog change reaches the question too.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..hardware import accelerator

__all__ = ["Choice", "yes_no", "Exercise", "tflops", "tbs", "EXERCISES", "register"]


@dataclass(frozen=True)
class Choice:
    """A part of an exercise answered by picking one option (yes/no, compute/bandwidth ...).

    Parameters
    ----------
    prompt : str
        The part's question, e.g. ``"Is 10 ms per token reachable?"``.
    answer : callable
        ``answer() -> str``: the right option, computed.
    options : tuple of str
        What the reader picks from; ``("yes", "no")`` by default.
    why : str
        One sentence shown with a right or a revealed answer.
    """

    prompt: str
    answer: Callable[[], str]
    options: tuple = ("yes", "no")
    why: str = ""


def yes_no(prompt: str, answer: Callable[[], bool], why: str = "") -> Choice:
    """A yes/no part whose answer is computed as a bool: ``"yes" if answer() else "no"``."""
    return Choice(prompt, lambda: "yes" if answer() else "no", ("yes", "no"), why)


@dataclass(frozen=True)
class Exercise:
    """One exercise.

    Parameters
    ----------
    id : str
        ``"<chapter>-<n>"``, e.g. ``"j07-1"``; new (non-source) ones ``"j07-n1"``.
        The registry's key: pages and tests refer to an exercise by it.
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
    hints : tuple of str
        Hints about the method, one more per wrong attempt after the generic
        one (direction and a coarse size, or a unit slip); never the answer.
    parts : tuple of Choice
        Yes/no (or pick-one) parts of the question, each with its own control.
    digits : int
        Decimals the answer is shown with once the reader asks for it.
    title : str, optional
        What a reader sees as the exercise's name (``"Exercise 3.1"``); the
        checker shows it instead of ``id``.  Pages set it; ``id`` by default.
    """

    id: str
    question: str
    unit: str
    answer: Callable[[], float]
    solution: Callable[[], str]
    rel_tol: float = 0.01
    abs_tol: float = 0.0
    source_answer: float | None = None
    hints: tuple = field(default=())
    parts: tuple = field(default=())
    digits: int | None = None
    title: str | None = None

    @property
    def chapter(self) -> str:
        """The id's chapter part: ``"j07"`` for ``"j07-n1"``."""
        return self.id.split("-")[0]

    @property
    def display_title(self) -> str:
        """``title`` when a page gave one, else ``id``."""
        return self.title or self.id

    @property
    def tolerance_text(self) -> str:
        """The tolerance as a reader reads it: ``"±1%"``, ``"±0.5 ms"``, ``"exact"``."""
        parts = []
        if self.rel_tol:
            parts.append(f"±{self.rel_tol * 100:g}%")
        if self.abs_tol:
            parts.append(f"±{self.abs_tol:g} {self.unit}")
        return " or ".join(parts) if parts else "exact"

    def within_tolerance(self, value: float, expected: float) -> bool:
        """``|value - expected| <= max(rel_tol·|expected|, abs_tol)``."""
        return abs(value - expected) <= max(self.rel_tol * abs(expected), self.abs_tol)


def tflops(hw) -> str:
    """Dense peak of a catalog accelerator as question text, e.g. ``'989.4'`` (TFLOP/s).

    ``f"{Π / 1e12:,g}"`` with Π the accelerator's dense peak in FLOP/s.
    """
    return f"{accelerator(hw).peak_flops / 1e12:,g}"


def tbs(hw) -> str:
    """Memory bandwidth of a catalog accelerator as question text, e.g. ``'3.35'`` (TB/s).

    ``f"{β / 1e12:g}"`` with β the memory bandwidth in bytes/s.
    """
    return f"{accelerator(hw).mem_bandwidth / 1e12:g}"


#: id -> Exercise; in book order once :mod:`~infra_calc.exercises.registry` has loaded the chapters
EXERCISES: dict[str, Exercise] = {}


def register(ex: Exercise) -> Exercise:
    """Add an exercise to :data:`EXERCISES` (ids must be unique); returns it."""
    if not isinstance(ex, Exercise):
        raise TypeError(f"ex must be an Exercise, got {type(ex).__name__}")
    if ex.id in EXERCISES:
        raise ValueError(f"exercise id {ex.id!r} is already registered")
    EXERCISES[ex.id] = ex
    return ex
