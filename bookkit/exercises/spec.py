"""What an exercise is, for the checker: a computed answer, its unit, tolerance and hints.

The page poses each exercise and works its solution (MyST ``{exercise}`` and
``{solution}``, numbers through ``{eval}``); the registry keeps only what grading
needs.  Each chapter module (``ch1`` … ``ch4``) lists its :class:`Exercise` values in
its ``EXERCISES``, in page order; :mod:`bookkit.exercises.registry` reads those lists
in book order and gives each exercise its title from its place.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from infra_calc.display import round_sig, with_unit
from infra_calc.units import UNITS

from .answers import answer_text

__all__ = ["Choice", "yes_no", "Exercise", "SIDES"]

#: how a tolerance applies: on both sides of the answer, or only below it
#: (``"at_most"``: the answer is the largest whole number that fits, and one more does not)
SIDES = ("both", "at_most")


@dataclass(frozen=True)
class Choice:
    """A part of an exercise answered by picking one option (yes/no, compute/bandwidth ...).

    Parameters
    ----------
    prompt : str
        The part's label beside its buttons, e.g. ``"Is the target reachable?"``.
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
    """One exercise as the checker grades it; its question and solution are on its page.

    Parameters
    ----------
    id : str
        The ``:label:`` of the exercise on its page: pages and tests refer to it by it.
        ``"ch<chapter>-<k>"``, the book chapter's: ``"ch1-1"`` (a question of the source's
        self-test), ``"ch1-n1"`` (a new one), ``"ch1-e1"`` (worked), ``"ch1-c1"`` (argued).
    unit : str
        The unit a reader answers in and the checker shows (``"ms"``, ``"%"``,
        ``"requests"`` ...), a key of :data:`infra_calc.units.UNITS`.
    answer : callable
        ``answer() -> float``: the expected value, computed, in SI units (seconds,
        bytes, FLOP/s, a fraction for ``"%"``).
    rel_tol, abs_tol : float
        The band ``tol = max(rel_tol·|expected|, abs_tol)``, ``abs_tol`` in ``unit``.
        A reply ``v`` (in ``unit``) is right when ``|v - expected| <= tol``, or, with
        ``side="at_most"``, when ``expected - tol <= v <= expected``.
    side : str
        ``"both"`` (default) or ``"at_most"``: for an answer that is the largest whole
        number that fits (a batch, a context, tokens that fit), whose next integer up
        does not fit, so no reply above it is right.
    source_answer : float, optional
        The answer the source chapter states (rounded, in ``unit``), for source questions.
    hints : tuple of str
        Hints about the method, one more per wrong attempt after the generic
        one (direction and a coarse size, or a unit slip); never the answer.
    parts : tuple of Choice
        Yes/no (or pick-one) parts of the question, each with its own control.
    numbered : bool
        ``False`` for a worked example, which its page marks ``:nonumber:``.
    title : str
        The exercise's name on its page, which the checker shows: ``"Exercise 3.1"``, or
        ``"Exercise"`` when not ``numbered``.  A chapter leaves it out: the registry gives
        it from the exercise's place (:func:`~bookkit.exercises.registry.with_titles`).
    """

    id: str
    unit: str
    answer: Callable[[], float]
    rel_tol: float = 0.01
    abs_tol: float = 0.0
    source_answer: float | None = None
    hints: tuple = field(default=())
    parts: tuple = field(default=())
    side: str = "both"
    numbered: bool = True
    title: str = ""

    def __post_init__(self):
        if self.unit not in UNITS:
            raise ValueError(f"unit must be one of infra_calc.units.UNITS, got {self.unit!r}")
        if self.side not in SIDES:
            raise ValueError(f"side must be one of {', '.join(SIDES)}, got {self.side!r}")

    def expected(self) -> float:
        """The computed answer as a reader types it, in ``unit``: ``answer() / UNITS[unit].scale``."""
        return float(self.answer()) / UNITS[self.unit].scale

    @property
    def band_text(self) -> str:
        """The band alone: ``"±1%"``, ``"±0.5 ms"``, ``"−1 tokens"`` (one-sided), ``"exact"``."""
        sign = "±" if self.side == "both" else "−"
        parts = []
        if self.rel_tol:
            parts.append(f"{sign}{round_sig(self.rel_tol, '%')}")
        if self.abs_tol:
            parts.append(f"{sign}{with_unit(str(round_sig(self.abs_tol, None, 6)), self.unit)}")
        return " or ".join(parts) if parts else "exact"

    @property
    def tolerance_text(self) -> str:
        """The tolerance as a reader reads it: ``"±1%"``, ``"±0.5 ms"``, ``"exact"``, and
        for ``side="at_most"`` ``"at most 129 tokens, within −1 tokens"``."""
        band = self.band_text
        if self.side == "both" or band == "exact":
            return band
        return f"at most {answer_text(self.expected(), self.unit)}, within {band}"

    def within_tolerance(self, value: float, expected: float) -> bool:
        """``|value - expected| <= max(rel_tol·|expected|, abs_tol)``, both in ``unit``;
        with ``side="at_most"`` also ``value <= expected`` (to rounding in the last digits)."""
        if self.side == "at_most" and value > expected + 1e-12 * max(abs(expected), 1.0):
            return False
        return abs(value - expected) <= max(self.rel_tol * abs(expected), self.abs_tol)
