"""The registry: every exercise by id, in book order, with its title from its place.

Each chapter module lists its exercises in its ``EXERCISES``, in the order its
self-test page poses them; :data:`CHAPTERS` lists the chapter modules in book order.
The registry reads those lists, in that order, the first time a look-up needs them
(the chapters import most of :mod:`infra_calc`), so the book order does not depend on
which module some caller imported first.  Titles are numbered as sphinx-exercise
numbers the page (:func:`with_titles`), so none is typed by hand.  The chapters import
``spec``, never this module: the import graph has no cycle.
"""
from __future__ import annotations

import importlib
from collections.abc import Iterable
from dataclasses import replace
from functools import cache

from .spec import Exercise

__all__ = ["CHAPTERS", "with_titles", "get", "expected", "exercise_ids"]

#: the chapter modules of this package, in book order: the k-th is the book's chapter k
CHAPTERS = ("ch1", "ch2", "ch3", "ch4")


def with_titles(exercises: Iterable[Exercise], chapter: int) -> tuple[Exercise, ...]:
    """A chapter's exercises, in page order, with the titles its page shows.

    The ``k``-th numbered exercise of chapter ``chapter`` is ``"Exercise {chapter}.{k}"``
    and one with ``numbered=False`` (``:nonumber:`` on the page) is ``"Exercise"``, as
    sphinx-exercise numbers them when a chapter's exercises stand on one page in this
    order, before any it poses without a checker.  An exercise that already has a title
    is refused: the title is written here only.
    """
    out, k = [], 0
    for ex in exercises:
        if ex.title:
            raise ValueError(f"{ex.id}: the registry gives the title; got {ex.title!r}")
        k += ex.numbered
        out.append(replace(ex, title=f"Exercise {chapter}.{k}" if ex.numbered else "Exercise"))
    return tuple(out)


@cache
def _chapters() -> dict[str, tuple[Exercise, ...]]:
    """``{chapter module name: its exercises with their titles}``, in book order."""
    chapters = {name: with_titles(importlib.import_module(f"{__package__}.{name}").EXERCISES, number)
                for number, name in enumerate(CHAPTERS, start=1)}
    ids = [ex.id for exs in chapters.values() for ex in exs]
    if len(ids) != len(set(ids)):
        raise ValueError(f"exercise ids listed twice: {sorted({i for i in ids if ids.count(i) > 1})}")
    return chapters


@cache
def _by_id() -> dict[str, Exercise]:
    return {ex.id: ex for exs in _chapters().values() for ex in exs}


def exercise_ids(chapter: str | None = None) -> list[str]:
    """Registered ids in book order, optionally only one chapter's (a name in
    :data:`CHAPTERS`: ``"ch1"`` … ``"ch4"``)."""
    if chapter is None:
        return list(_by_id())
    if chapter not in CHAPTERS:
        raise ValueError(f"unknown chapter {chapter!r}; known: {', '.join(CHAPTERS)}")
    return [ex.id for ex in _chapters()[chapter]]


def get(exercise_id: str) -> Exercise:
    """Look up an exercise by id (case and surrounding blanks ignored); the error lists the ids."""
    if not isinstance(exercise_id, str):
        raise TypeError(f"exercise_id must be a string such as 'ch1-1', got {exercise_id!r}")
    try:
        return _by_id()[exercise_id.strip().lower()]
    except KeyError:
        raise ValueError(f"unknown exercise {exercise_id!r}; known: {', '.join(_by_id())}") from None


def expected(exercise_id: str) -> float:
    """The computed answer as a reader types it, in the exercise's unit (``answer()`` is SI)."""
    return get(exercise_id).expected()
