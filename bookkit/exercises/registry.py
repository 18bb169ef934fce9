"""The registry: every exercise by id, in book order.

The chapter modules (:data:`CHAPTERS`) each register their exercises
(:func:`bookkit.exercises.spec.register`) when imported; the look-ups below import
them the first time they are needed and order :data:`~bookkit.exercises.spec.EXERCISES`
by chapter, whichever chapter some caller imported first.  The chapters import
``spec``, never this module: the import graph has no cycle.
"""
from __future__ import annotations

import importlib

from .spec import EXERCISES, Exercise

__all__ = ["CHAPTERS", "get", "expected", "exercise_ids"]

#: the chapter modules of this package that register exercises, in book order
CHAPTERS = ("j07", "j13", "ch3", "ch4")
_loaded = False


def _load_chapters() -> None:
    global _loaded
    if not _loaded:
        for name in CHAPTERS:                   # each registers its exercises on import
            importlib.import_module(f"{__package__}.{name}")
        rank = {name: i for i, name in enumerate(CHAPTERS)}
        ordered = sorted(EXERCISES.values(), key=lambda ex: rank.get(ex.chapter, len(rank)))
        EXERCISES.clear()
        EXERCISES.update((ex.id, ex) for ex in ordered)
        _loaded = True


def exercise_ids(chapter: str | None = None) -> list[str]:
    """Registered ids, optionally only one chapter's (a name in :data:`CHAPTERS`:
    ``"j07"``, ``"j13"``, ``"ch3"`` or ``"ch4"``)."""
    _load_chapters()
    return [k for k, ex in EXERCISES.items() if chapter is None or ex.chapter == chapter]


def get(exercise_id: str) -> Exercise:
    """Look up an exercise by id (case and surrounding blanks ignored); the error lists the ids."""
    _load_chapters()
    if not isinstance(exercise_id, str):
        raise TypeError(f"exercise_id must be a string such as 'j07-1', got {exercise_id!r}")
    try:
        return EXERCISES[exercise_id.strip().lower()]
    except KeyError:
        raise ValueError(f"unknown exercise {exercise_id!r}; known: {', '.join(EXERCISES)}") from None


def expected(exercise_id: str) -> float:
    """The computed answer as a reader types it, in the exercise's unit (``answer()`` is SI)."""
    return get(exercise_id).expected()
