"""Numbers as the prose shows them: scale, digits and unit decided in one place.

A page computes a quantity in SI units and turns it into text once, with
:func:`shown`; the prose then refers to it with MyST's ``{eval}`` role, e.g.
``{eval}`v.t_read```.  The unit string picks the scale, so the code never writes
``t * 1e3`` next to prose that types "ms".

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
"""
from __future__ import annotations

import math
import numbers

from .units import UNIT_SCALES

__all__ = ["Shown", "shown", "PageValues", "UNIT_SCALES"]


# no space between the number and these units
_TIGHT = {"%", "×", "x"}

class Shown:
    """A number already formatted for the prose; ``repr`` is the text itself.

    ``value`` keeps the SI number and ``text`` the rendered string, so a page can
    still compute with what it shows.  jupyterlab-myst and the web build both
    display ``repr(obj)`` (the ``text/plain`` of the ``{eval}`` result).
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
        One of :data:`UNIT_SCALES`; ``None`` shows a plain number.
    digits : int
        Decimals after the point.
    bare : bool
        Leave the unit out of the text (for "20.90 / 8" style prose).
    sep : bool
        Separate thousands with commas.

    Returns
    -------
    Shown
        ``text = f"{value / UNIT_SCALES[unit]:,.{digits}f} {unit}"``.
    """
    if unit is not None and unit not in UNIT_SCALES:
        raise ValueError(f"unit must be one of {sorted(UNIT_SCALES)}, got {unit!r}")
    if not isinstance(digits, numbers.Integral) or isinstance(digits, bool) or digits < 0:
        raise ValueError(f"digits must be a whole number >= 0, got {digits!r}")
    if isinstance(value, bool):
        raise TypeError("value must be a number, got a bool")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"value must be a number (in SI units for {unit or 'a plain number'}), "
                        f"got {value!r}") from None
    if math.isnan(x):
        raise ValueError(f"value must be a number (in SI units for {unit or 'a plain number'}), got NaN")
    scaled = x / UNIT_SCALES[unit] if unit is not None else x
    if math.isinf(scaled):
        num = "∞" if scaled > 0 else "−∞"
    else:
        num = f"{scaled:{',' if sep else ''}.{int(digits)}f}"
        if num.startswith("-"):
            num = "−" + num[1:]
    if unit is None or bare:
        text = num
    elif unit in _TIGHT:
        text = f"{num}{unit}"
    else:
        text = f"{num} {unit}"
    return Shown(x, text, unit)


class PageValues:
    """A namespace for the numbers one page shows (``v.t_read = shown(...)``).

    A name is set once: rebinding it raises, since the prose that refers to it
    has been rendered with the first value.  Plain text (a date, a machine's
    name) is kept as a :class:`Shown` too, so the prose shows it without quotes.
    """

    def __setattr__(self, name: str, value) -> None:
        if name in self.__dict__:
            raise AttributeError(f"page value {name!r} is already set; use a new name")
        if isinstance(value, str):
            value = Shown(None, value)
        object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        return f"PageValues({', '.join(sorted(self.__dict__))})"
