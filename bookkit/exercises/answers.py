"""A reader's answer as a number in the exercise's unit, and an answer as text.

A unit's kind and scale come from the library's one unit table,
:data:`infra_calc.units.UNITS`.  Two units convert into each other only when they are
of one kind (a count's kind is the thing counted: "4 rows" is not an answer in
requests).  A unit the reader types is looked up as written, then by its plain
spelling (:func:`_spelling`: case, singular or plural, ``x`` for ``×``, ``sec`` for
``s``), so ``4 req`` is 4 requests and ``62.1 flops/byte`` is 62.1 FLOP/byte.

>>> parse_answer("0.01458 s", "ms")
14.58
>>> parse_answer("5.6x", "×")
5.6
"""
from __future__ import annotations

import math
import re

from infra_calc.display import plain_number, with_unit
from infra_calc.units import UNITS

__all__ = ["parse_answer", "unit_kind", "answer_text"]

_NUMBER = re.compile(r"^\s*([-+−]?(?:\d[\d,_ ]*\.?\d*|\.\d+)(?:[eE][-+−]?\d+)?)\s*(.*?)\s*$")
#: words a reader may write for a unit, by their plain spelling
_WORDS = {"byte": "b", "bytes": "b", "flops": "flop", "tok": "token", "req": "request",
          "sec": "s", "second": "s"}


def unit_kind(unit: str) -> str | None:
    """The kind of a unit of :data:`~infra_calc.units.UNITS` (``UNITS[unit].kind``), or
    None for a unit not in it.

    >>> unit_kind("GiB/s"), unit_kind("ms"), unit_kind("requests"), unit_kind("furlongs")
    ('bandwidth', 'time', 'requests', None)
    """
    return UNITS[unit].kind if unit in UNITS else None


def _spelling(unit: str) -> str:
    """One spelling per unit: lower case, ``x`` for ``×``, each word singular (``sec`` and
    ``second`` are ``s``)."""
    words = unit.lower().replace("×", "x").split("/")
    words = [w[:-1] if len(w) > 2 and w.endswith("s") and w not in _WORDS else w for w in words]
    return "/".join(_WORDS.get(w, w) for w in words)


#: plain spelling -> its unit in UNITS (units of one spelling are one Unit: a test holds it)
_BY_SPELLING = {_spelling(u): u for u in UNITS}


def _unit_named(given: str) -> str | None:
    """The key of :data:`~infra_calc.units.UNITS` a reader's unit names, or None."""
    return given if given in UNITS else _BY_SPELLING.get(_spelling(given))


def parse_answer(text, unit: str) -> float:
    """A reader's answer as a number in ``unit``.

    ``text`` may be a number or a string with an optional unit:
    ``"34.3"``, ``"34.3 ms"``, ``"0.0343 s"``, ``"4,096 rows"``, ``"3.5e-2 s"``.
    A unit of the same kind is converted:
    ``value · (UNITS[given].scale / UNITS[unit].scale)``.

    Raises
    ------
    ValueError
        Empty text, no number, an unknown unit, or a unit of another kind; the
        message says what was expected.
    """
    if isinstance(text, bool):
        raise ValueError(f"give a number in {unit}, not {text!r}")
    if isinstance(text, (int, float)):
        value, given = float(text), ""
    else:
        text = str(text).strip()
        if not text:
            raise ValueError(f"type a number, in {unit}")
        m = _NUMBER.match(text.replace("\u00a0", " "))
        if not m:
            raise ValueError(f"{text!r} is not a number; type e.g. 12.5 or 12.5 {unit}")
        num = m.group(1).replace(",", "").replace("_", "").replace(" ", "").replace("−", "-")
        try:
            value = float(num)
        except ValueError:
            raise ValueError(f"{text!r} is not a number; type e.g. 12.5 or 12.5 {unit}") from None
        given = m.group(2)
    if not math.isfinite(value):
        raise ValueError(f"give a finite number, in {unit}")
    if not given or given == unit:
        return value
    name = _unit_named(given)
    if name is None:
        raise ValueError(f"unknown unit {given!r}: give the answer in {unit}")
    got, want = UNITS[name], UNITS[unit]
    if got.kind != want.kind:
        raise ValueError(f"{given} is a unit of {got.kind}, not {want.kind}: "
                         f"give the answer in {unit}")
    return value * (got.scale / want.scale)


def answer_text(value: float, unit: str) -> str:
    """A value in ``unit`` as the checker shows it, :func:`~infra_calc.display.plain_number`
    and the unit: ``'34.33 ms'``, ``'4 requests'``, ``'2.5×'``."""
    return with_unit(str(plain_number(value)), unit)
