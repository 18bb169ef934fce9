"""A reader's answer as a number in the exercise's unit, and an answer as text.

The scales come from the library's one unit table,
:data:`infra_calc.units.UNIT_SCALES` (unit -> the SI value of one of it).  A
unit's kind (time, bytes, work, compute rate, bandwidth) is read off its name:
an SI or binary prefix in front of a base unit (``ms`` = m + s, ``GiB/s`` =
Gi + B/s).  Two units convert into each other only when they are of one kind;
count-like units (``requests``, ``rows``, ``×``, ``FLOP/byte`` ...) accept only
their own spellings (singular or plural, ``x`` for ``×``).

>>> parse_answer("0.01458 s", "ms")
14.58
>>> parse_answer("5.6x", "×")
5.6
"""
from __future__ import annotations

import math
import re

from infra_calc.display import plain_number, with_unit
from infra_calc.units import UNIT_SCALES

__all__ = ["parse_answer", "unit_kind", "answer_text"]

# base unit -> kind; a unit of a kind is an optional prefix + a base
_BASE_KIND = {"FLOP/s": "compute rate", "FLOPs": "work", "FLOP": "work", "bytes": "bytes",
              "B/s": "bandwidth", "B": "bytes", "s": "time"}
_PREFIXES = ("", "k", "M", "G", "T", "P", "Ki", "Mi", "Gi", "Ti", "m", "µ", "u", "n")
# spellings of a second that are not unit symbols
_SECOND_WORDS = ("sec", "secs", "second", "seconds")
_LOWER = {k.lower(): k for k in UNIT_SCALES}

_NUMBER = re.compile(r"^\s*([-+−]?(?:\d[\d,_ ]*\.?\d*|\.\d+)(?:[eE][-+−]?\d+)?)\s*(.*?)\s*$")


def unit_kind(unit: str) -> str | None:
    """The kind of a unit of :data:`~infra_calc.units.UNIT_SCALES`, or None for counts.

    >>> unit_kind("GiB/s"), unit_kind("ms"), unit_kind("requests")
    ('bandwidth', 'time', None)
    """
    if unit not in UNIT_SCALES:
        return None
    for base in sorted(_BASE_KIND, key=len, reverse=True):
        if unit.endswith(base) and unit[: len(unit) - len(base)] in _PREFIXES:
            return _BASE_KIND[base]
    return None


def _count_word(unit: str) -> str:
    """One spelling per count unit: lower case, ``x`` for ``×``, each word singular."""
    words = unit.lower().replace("×", "x").split("/")
    words = [{"byte": "b", "bytes": "b", "flops": "flop", "tok": "token", "req": "request"}
             .get(w, w) for w in words]
    return "/".join(w[:-1] if len(w) > 2 and w.endswith("s") else w for w in words)


def _scale_of(given: str) -> tuple[str, float] | None:
    if given in UNIT_SCALES:
        return given, UNIT_SCALES[given]
    if given.lower() in _SECOND_WORDS:
        return "s", UNIT_SCALES["s"]
    key = _LOWER.get(given.lower())
    return (key, UNIT_SCALES[key]) if key is not None else None


def parse_answer(text, unit: str) -> float:
    """A reader's answer as a number in ``unit``.

    ``text`` may be a number or a string with an optional unit:
    ``"34.3"``, ``"34.3 ms"``, ``"0.0343 s"``, ``"4,096 rows"``, ``"3.5e-2 s"``.
    A unit of the same kind is converted:
    ``value · (UNIT_SCALES[given] / UNIT_SCALES[unit])``.

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
    want = unit_kind(unit)
    if not given or given == unit or (want is None and _count_word(given) == _count_word(unit)):
        return value
    found = _scale_of(given)
    got = unit_kind(found[0]) if found else None
    if got is None:
        raise ValueError(f"unknown unit {given!r}: give the answer in {unit}")
    if want is None:
        raise ValueError(f"{given} is a unit of {got}; give the answer in {unit}")
    if got != want:
        raise ValueError(f"{given} is a unit of {got}; the answer is a {want}, in {unit}")
    return value * (found[1] / UNIT_SCALES[unit])


def answer_text(value: float, unit: str) -> str:
    """A value in ``unit`` as the checker shows it: ``'34.33 ms'``, ``'4 requests'``, ``'2.5×'``."""
    num = f"{value:,.0f}" if float(value).is_integer() else str(plain_number(value))
    return with_unit(num, unit)
