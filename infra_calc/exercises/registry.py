"""The registry: every exercise by id, and the chapters that register them.

A chapter module (``j07``, ``j13``, ``ch3``) calls :func:`register` for each of
its exercises when it is imported; the look-ups below import the chapters of
:data:`CHAPTERS` the first time they are needed (by name, so that this module
imports none of them).
"""
from __future__ import annotations

import importlib

from .spec import Exercise

__all__ = ["EXERCISES", "CHAPTERS", "register", "get", "expected", "exercise_ids"]

#: id -> Exercise, in registration order
EXERCISES: dict[str, Exercise] = {}
#: the chapter modules of this package that register exercises, in book order
CHAPTERS = ("j07", "j13", "ch3", "ch4")
_loaded = False


def register(ex: Exercise) -> Exercise:
    """Add an exercise to the registry (ids must be unique); returns it."""
    if not isinstance(ex, Exercise):
        raise TypeError(f"ex must be an Exercise, got {type(ex).__name__}")
    if ex.id in EXERCISES:
        raise ValueError(f"exercise id {ex.id!r} is already registered")
    EXERCISES[ex.id] = ex
    return ex


def _load_chapters() -> None:
    global _loaded
    if not _loaded:
        for name in CHAPTERS:
            importlib.import_module(f"{__package__}.{name}")
        _loaded = True


def exercise_ids(chapter: str | None = None) -> list[str]:
    """Registered ids, optionally only one chapter's (``"j07"``, ``"j13"``, ``"ch3"``)."""
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
    """The computed answer of an exercise, in its unit: ``float(get(exercise_id).answer())``."""
    return float(get(exercise_id).answer())
