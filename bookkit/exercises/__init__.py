"""Self-test exercises and an answer checker.

The self-test pages pose the exercises and work their solutions; this package keeps
what grading needs: each exercise's id (its ``:label:`` on the page), title, display
unit, computed answer (SI, never a typed literal), tolerance, hints and pick-one parts.
``check(exercise_id, value)`` says whether a reader's number, in the exercise's unit,
is right within the stated tolerance.

>>> from bookkit import exercises
>>> exercises.check("ch1-1", 34.3).correct
True

A reader's text may carry a unit; it is converted to the exercise's unit
(:data:`infra_calc.units.UNITS`), and a wrong answer gets a hint, not
the answer:

>>> exercises.check_text("ch1-1", "0.0343 s").correct
True
>>> print(exercises.check_text("ch1-1", "34300").hint)
Check your units: your number is 1,000× the answer's. The answer is in ms.

The package, one job per module:

* :mod:`~bookkit.exercises.spec`: what an exercise is (``Exercise``, ``Choice``,
  ``yes_no``);
* :mod:`~bookkit.exercises.registry`: every exercise by id, in book order, titled from
  its place (``get``, ``expected``, ``exercise_ids``);
* :mod:`~bookkit.exercises.answers`: a reader's text as a number (``parse_answer``);
* :mod:`~bookkit.exercises.hints`: hints that coach without telling (``hint_for``);
* :mod:`~bookkit.exercises.grading`: right or a hint (``check``, ``check_text``,
  ``check_choice``);
* ``ch1`` … ``ch4``: each chapter's exercises (``EXERCISES``, in page order) and, in
  ``selftest_values``, the numbers its self-test page shows, from the same functions;
* :mod:`~bookkit.exercises.checker`: the answer checker a page shows in JupyterLab
  (``answer_checker``; it imports ipywidgets and anywidget, so this package does not
  import it).
"""
from __future__ import annotations

from .answers import parse_answer
from .grading import CheckResult, check, check_choice, check_text
from .hints import hint_for
from .registry import exercise_ids, expected, get
from .spec import Choice, Exercise, yes_no

__all__ = ["Exercise", "Choice", "yes_no", "CheckResult", "get", "expected", "check",
           "check_text", "check_choice", "parse_answer", "hint_for", "exercise_ids"]
