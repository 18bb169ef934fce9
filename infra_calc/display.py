"""Numbers as the prose shows them: scale, digits and unit decided in one place.

A page computes a quantity in SI units and turns it into text once, with
:func:`shown`; the prose then refers to it with MyST's ``{eval}`` role, e.g.
``{eval}`v.t_read```.  The unit string picks the scale, so no f-string in the
package scales by hand (no ``f"{t * 1e3:.2f} ms"``, ``f"{n // 1024}K"``,
``f"{x:.1%}"``): text is made from the SI value and its unit.
``tests/lib/test_display.py`` reads every f-string field of the package and fails on
the hand scalings it can see (``hand_scalings`` there says which: a power of ten, a
literal of 1,000 or more, a power of two from 1,024 or a unit constant multiplied or
divided by, a floor division by a number, a ``%`` spec); its allow-list
(``HAND_SCALED``) is empty, and an entry there needs a written reason.  A figure's
axis data are numbers, not text: they are plotted in the axis's unit.

Every form that turns a value in a unit into text has one shape, ``name(value, unit=None,
digits=...)``: the SI value, the unit it is read in (``None``: a plain number), then the
digits, all three by position as the pages write them (``shown(t, "ms", 2)``); anything
further is keyword-only (``bare``, ``sep``, :func:`shown_e`'s ``exponent``).  Every one of
them returns a :class:`Shown`: the text, with the SI value it was made from and the unit it
is read in kept beside it.  :func:`shown_prefixed` takes the units to pick from in the
unit's place, :func:`tokens_k`, whose scale is fixed, the K's spelling, and
:func:`plain_number`, which echoes a reader's number, the number alone.  The family is one exception,
with one reason, to the package's rule that options are keyword-only
(``tests/lib/test_api_convention.py``).

``shown(value, unit, digits)`` renders ``f"{value / scale(unit):,.{digits}f} {unit}"``
(thousands separated by commas; ``bare=True`` drops the unit).

>>> from infra_calc.display import shown
>>> shown(0.020896, "ms", 2)
20.90 ms
>>> shown(73.73e9, "GB", 2, bare=True)
73.73
>>> shown(4096, digits=0)
4,096
>>> shown(0.993, "%", 1)
99.3%
>>> shown(147.66, "×", 1)
147.7×

The other forms a number takes, all here: :func:`shown_up` (a time in a larger unit
once it reaches 10,000 of its own), :func:`shown_prefixed` (the largest of a few
units that keeps the number at least 1), :func:`sig` (fixed significant digits, for
labels and readouts), :func:`round_sig` (a chosen input, no trailing zeros),
:func:`shown_e` (a count as the source writes it, "80e9 B"), :func:`tokens_k` (a
context length in K tokens, "8K") and :func:`plain_number` (a number a reader typed,
echoed back).  One rule for infinity and one minus sign:
every one of them writes ``∞`` (``−∞``), and a negative number, a negative exponent
included, with the minus sign U+2212 ``−``, never an ASCII hyphen.  A figure's axis data go through
:func:`in_unit` (the number in the axis's unit, no text).
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ._validate import unwrap
from .units import K_TOKENS, UNITS

__all__ = ["Shown", "shown", "shown_up", "shown_prefixed", "sig", "round_sig", "plain_number",
           "shown_e", "tokens_k", "in_unit", "with_unit", "TIME_UNITS"]


# no space between the number and these units
_TIGHT = {"%", "×", "x"}

class Shown:
    """A number already formatted for the prose; ``repr`` is the text itself.

    ``value`` keeps the SI number, ``text`` the rendered string and ``unit`` the unit
    it is read in (``None``: a plain number, a count in K tokens, or text with no
    number, whose ``value`` is ``None``), so a page can still compute with what it
    shows.  jupyterlab-myst and the web build both display ``repr(obj)`` (the
    ``text/plain`` of the ``{eval}`` result).
    """

    __slots__ = ("value", "text", "unit")

    def __init__(self, value: float | None, text: str, unit: str | None = None):
        self.value = value
        self.text = text
        self.unit = unit

    def __repr__(self) -> str:
        return self.text

    __str__ = __repr__

    def _repr_pretty_(self, p, cycle) -> None:  # IPython's text/plain
        p.text(self.text)

    def __format__(self, spec: str) -> str:
        return format(self.text, spec)

    def __eq__(self, other) -> bool:
        if isinstance(other, Shown):
            return self.text == other.text
        if isinstance(other, str):
            return self.text == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.text)


def shown(value, unit: str | None = None, digits: int = 2, *, bare: bool = False,
          sep: bool = True) -> Shown:
    """Render an SI ``value`` in ``unit`` with ``digits`` decimals.

    Parameters
    ----------
    value : float
        The quantity in SI units (s, bytes, FLOPs, FLOP/s, bytes/s); a fraction
        for ``"%"``.
    unit : str, optional
        One of :data:`infra_calc.units.UNITS`; ``None`` shows a plain number.
    digits : int
        Decimals after the point.
    bare : bool
        Leave the unit out of the text (for "20.90 / 8" style prose).
    sep : bool
        Separate thousands with commas.

    Returns
    -------
    Shown
        ``text = f"{value / UNITS[unit].scale:,.{digits}f} {unit}"``.
    """
    scale = _scale(unit)
    if not isinstance(digits, numbers.Integral) or isinstance(digits, bool) or digits < 0:
        raise ValueError(f"digits must be a whole number >= 0, got {digits!r}")
    x = _a_number(value, "value", f" (in SI units for {unit or 'a plain number'})")
    scaled = x / scale
    if math.isinf(scaled):
        num = _infinity(scaled)
    else:
        num = _minus(f"{scaled:{',' if sep else ''}.{int(digits)}f}")
    return Shown(x, with_unit(num, None if bare else unit), unit)


def _scale(unit: str | None) -> float:
    """The SI value of one ``unit`` (1 for a plain number): the one check of a unit's name."""
    if unit is None:
        return 1.0
    try:
        return UNITS[unit].scale
    except KeyError:
        raise ValueError(f"unit must be one of {sorted(UNITS)}, got {unit!r}") from None


def _infinity(x: float) -> str:
    return "∞" if x > 0 else "−∞"


def _minus(num: str) -> str:
    """A number's text with every ASCII hyphen as the minus sign ``−`` (U+2212): the one
    minus sign of the family."""
    return num.replace("-", "−")


def _a_number(value, name: str, what: str = "") -> float:
    """``value`` as a float; a bool, a non-number or NaN is refused, naming ``name``
    (``what`` follows "must be a number" for a non-number and NaN: the unit it is read in)."""
    if isinstance(value, bool):
        raise TypeError(f"{name} must be a number, got a bool")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number{what}, got {value!r}") from None
    if math.isnan(x):
        raise ValueError(f"{name} must be a number{what}, got NaN")
    return x


#: a time of 10,000 or more of its unit is shown in the next one (no 19-digit milliseconds)
TIME_UNITS = ("ms", "s", "h", "years")


def shown_up(value, unit: str | None = None, digits: int = 2) -> Shown:
    """:func:`shown`, with a time (a unit of :data:`TIME_UNITS`) moved to the next unit up
    while it would read 10,000 or more (tables of long requests: no 19-digit milliseconds).

    >>> shown_up(0.0209, "ms", 1), shown_up(12.5, "ms", 1), shown_up(7.2e5, "ms", 1)
    (20.9 ms, 12.5 s, 200.0 h)
    """
    while unit in TIME_UNITS[:-1] and math.isfinite(value) and value >= 1e4 * _scale(unit):
        unit = TIME_UNITS[TIME_UNITS.index(unit) + 1]
    return shown(value, unit, digits)


def shown_prefixed(value, units, digits: int = 2) -> Shown:
    """``value`` in the largest of ``units`` (smallest first) that keeps it at least 1.

    >>> shown_prefixed(3.2e12, ("GFLOP", "TFLOP")), shown_prefixed(5e8, ("GFLOP", "TFLOP"))
    (3.20 TFLOP, 0.50 GFLOP)
    """
    pick = units[0]
    for u in units:
        if abs(value) >= _scale(u):
            pick = u
    return shown(value, pick, digits)


def _scaled(value, unit: str | None) -> float:
    """``value`` in ``unit`` (:func:`_scale` checks the unit)."""
    return float(value) / _scale(unit)


def in_unit(value, unit: str):
    """An SI ``value`` (a number or an array) in ``unit``, for a figure's axis data:
    ``value / UNITS[unit].scale``, the one scaling of plotted numbers (text is :func:`shown`'s).
    A unit smaller than its SI base (ms, µs, ns) multiplies by its whole reciprocal instead,
    so a time in ms is exactly ``seconds * 1000``.

    >>> in_unit(989.4e12, "TFLOP/s"), in_unit([80e9, 40e9], "GB"), in_unit(0.0207, "ms")
    (989.4, array([80., 40.]), 20.7)
    """
    scale = _scale(unit)
    x = np.asarray(value, dtype=float)
    return unwrap(x * round(1 / scale) if scale < 1 else x / scale)


def with_unit(num: str, unit: str | None) -> str:
    """A number's text and its unit: no space before %, × and x."""
    if unit is None:
        return num
    return f"{num}{unit}" if unit in _TIGHT else f"{num} {unit}"


def sig(value: float, unit: str | None = None, digits: int = 4) -> Shown:
    """An SI ``value`` in ``unit`` with ``digits`` significant digits, thousands separated
    (the unit left out when ``unit`` is None).

    The bar labels and the explorers' readouts both use it, so one number shows
    the same digits in both.

    >>> sig(0.020896, "ms"), sig(0.14146), sig(34.3306), sig(1234.6), sig(0.0), sig(math.inf)
    (20.90 ms, 0.1415, 34.33, 1,235, 0, ∞)
    """
    x = _scaled(value, unit)
    if math.isinf(x):
        num = _infinity(x)
    elif x == 0 or not math.isfinite(x):
        num = f"{x:g}"
    else:
        num = f"{x:,.{max(0, digits - 1 - math.floor(math.log10(abs(x))))}f}"
    return Shown(float(value), with_unit(_minus(num), unit), unit)


def round_sig(value: float, unit: str | None = None, digits: int = 3) -> Shown:
    """An SI ``value`` in ``unit`` rounded to ``digits`` significant figures, no trailing
    zeros, no exponent.

    For an input a reader chose (a parameter count), where ``70`` should read
    ``70``, not ``70.0``; a computed number uses :func:`sig` (fixed digits).

    >>> round_sig(3.46737e9, "billion"), round_sig(70.0), round_sig(405.3), round_sig(1000.0)
    (3.47 billion, 70, 405, 1,000)
    """
    x = _scaled(value, unit)
    num = _infinity(x) if math.isinf(x) else _minus(f"{float(f'{x:.{digits}g}'):,g}")
    return Shown(float(value), with_unit(num, unit), unit)


def shown_e(value, unit: str | None = None, digits: int | None = None, *, exponent: int = 9) -> Shown:
    """``value`` as a number times a power of ten, written the source's way ("80e9 B"):
    ``digits`` decimals, or as few as it needs when ``digits`` is None.

    An infinite value is ``∞`` (no power of ten); NaN is refused.

    >>> shown_e(80e9, "B"), shown_e(85.899e9, "B", 1), shown_e(70e9), shown_e(4e5, exponent=3)
    (80e9 B, 85.9e9 B, 70e9, 400e3)
    >>> shown_e(math.inf, "B")
    ∞ B
    """
    si = _a_number(value, "value")
    x = si / 10.0 ** exponent
    if math.isinf(x):
        return Shown(si, with_unit(_infinity(x), unit), unit)
    num = f"{x:g}" if digits is None else f"{x:.{digits}f}"
    return Shown(si, with_unit(_minus(f"{num}e{exponent}"), unit), unit)


def tokens_k(tokens, suffix: str = "K") -> Shown:
    """A token count in K (:data:`~infra_calc.units.K_TOKENS` = 2¹⁰ tokens), as the source
    writes a context length: as few digits as it needs to be exact (the shortest text that
    reads back as the same number), no space before the K (``suffix``: J07's printout
    writes ``"k"``; ``""`` for prose that writes the K itself, "{eval}`v.ctx_k`K tokens").
    An infinite count is ``∞``; NaN is refused; a negative count has the minus sign ``−``,
    as :func:`shown` writes it.

    >>> tokens_k(8192), tokens_k(131072), tokens_k(1448), tokens_k(8192, "k"), tokens_k(12288, "")
    (8K, 128K, 1.4140625K, 8k, 12)
    >>> tokens_k(math.inf)
    ∞K
    """
    n = _a_number(tokens, "tokens")
    k = n / K_TOKENS
    if math.isinf(k):
        return Shown(n, f"{_infinity(k)}{suffix}")
    num = _minus(repr(k))
    return Shown(n, f"{num[:-2] if num.endswith('.0') else num}{suffix}")


def plain_number(x: float) -> Shown:
    """A number a reader gave, or an answer the checker shows, as text.  A whole number
    below 10¹⁵: every digit, thousands separated.  Otherwise, in [1, 10⁶): about four
    significant digits, every digit before the point kept, thousands separated, trailing
    zeros dropped; and elsewhere four significant digits in ``g`` form: plain for a
    magnitude in [10⁻⁴, 1), an exponent below 10⁻⁴ and from 10⁶ on.  NaN (no answer to
    echo) is refused, naming ``x``.

    >>> plain_number(34.3306), plain_number(4096), plain_number(12_300_000), plain_number(math.inf)
    (34.33, 4,096, 12,300,000, ∞)
    >>> plain_number(0.5), plain_number(0.00123), plain_number(1.23e-5), plain_number(-2.5e7 + 0.5)
    (0.5, 0.00123, 1.23e−05, −2.5e+07)
    """
    x = _a_number(x, "x")
    return Shown(x, _minus(_plain_text(x)))


def _plain_text(x: float) -> str:
    if x == 0:
        return "0"
    if math.isinf(x):
        return _infinity(x)
    ax = abs(x)
    if x.is_integer() and ax < 1e15:
        return f"{x:,.0f}"
    if ax >= 1e6 or ax < 1:
        return f"{x:.4g}"
    digits = max(0, 4 - len(str(int(ax))))
    text = f"{x:,.{digits}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text

