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
import re

from .units import UNIT_SCALES

__all__ = ["Shown", "shown", "PageValues", "UNIT_SCALES", "ZH_UNITS", "ZH_WORDS", "zh_text"]


def __getattr__(name):
    # the notebook check moved to infra_calc.pagecheck; old imports keep working
    if name in ("check_page_values", "eval_expressions"):
        from . import pagecheck

        return getattr(pagecheck, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# no space between the number and these units
_TIGHT = {"%", "×", "x"}

#: The Chinese edition's words for the units of :data:`UNIT_SCALES` that are English
#: words: unit -> (Chinese, power of ten).  :func:`zh_text` writes a number followed by
#: one of them as the number times ``10**power`` (its decimal point moved: no digit is
#: added or lost) followed by the Chinese, e.g. "8.03 billion" -> "80.3 亿".
#: Units written as symbols (ms, GB, TFLOP/s, FLOP/byte, ×, %) are not listed: they
#: stay as they are.  ``tools/stored_eval.py`` applies this to every stored ``{eval}``
#: value when the book is built with ``language: zh_CN``; ``tests/test_display.py``
#: fails when a unit word of UNIT_SCALES has no entry here.
ZH_UNITS: dict[str, tuple[str, int]] = {
    "tokens": ("个 token", 0), "token": ("个 token", 0),
    "tokens/s": ("token/s", 0), "token/s": ("token/s", 0), "tok/s": ("token/s", 0),
    "requests": ("个请求", 0), "request": ("个请求", 0),
    "rows": ("行", 0), "cards": ("张卡", 0), "experts": ("个专家", 0), "layers": ("层", 0),
    "bytes": ("字节", 0), "CPUs": ("个 CPU", 0), "years": ("年", 0),
    "thousand": ("", 3), "million": ("万", 2), "billion": ("亿", 1), "B params": ("亿参数", 1),
}
#: Whole words a stored value may hold besides numbers (a yes/no column, "1,024 and 2,048").
ZH_WORDS: dict[str, str] = {
    # phrases first (the pattern tries them in this order): the options of exercise j07-n3
    "4-bit weights": "4 比特权重", "twice the bandwidth": "带宽翻倍",
    # where a measured bend lies against the two models (the lab page)
    "beyond both": "超出两者", "between the two": "介于两者之间", "before both": "早于两者",
    "yes": "是", "no": "否", "and": "和", "Exercise": "练习",
    # counts the English prose spells out ("the six notes"): digits in Chinese
    **{w: str(i) for i, w in enumerate("zero one two three four five six seven eight nine "
                                        "ten".split())},
}


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


_ZH_NUMBER_UNIT = re.compile(
    r"(?P<num>[−-]?\d[\d,]*(?:\.\d+)?) (?P<unit>"
    + "|".join(re.escape(u) for u in sorted(ZH_UNITS, key=len, reverse=True))
    + r")(?![\w/])")
_ZH_WORD = re.compile(r"\b(" + "|".join(ZH_WORDS) + r")\b")


def _shift(num: str, power: int) -> str:
    """``num`` (as :func:`shown` writes it) times ``10**power``, written the same way."""
    from decimal import Decimal

    sign = "−" if num[:1] in "−-" else ""
    digits = num.lstrip("−-")
    whole = digits.split(".")[0]
    sep = "," in whole or len(whole) < 4
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    value = Decimal(digits.replace(",", "")).scaleb(power)
    return sign + f"{value:{',' if sep else ''}.{max(decimals - power, 0)}f}"


def zh_text(text: str) -> str:
    """A stored value as the Chinese edition shows it: unit words in Chinese.

    A number followed by a unit of :data:`ZH_UNITS` becomes the rescaled number and
    its Chinese unit; a word of :data:`ZH_WORDS` becomes its Chinese.  Everything else
    (symbols such as ms, GB, ×, %; names such as H100 SXM) is left as it is.

    >>> zh_text("295.3 requests"), zh_text("1,458 tokens"), zh_text("8 cards")
    ('295.3 个请求', '1,458 个 token', '8 张卡')
    >>> zh_text("8.03 billion"), zh_text("2.50 million"), zh_text("12.5 thousand")
    ('80.3 亿', '250 万', '12,500')
    >>> zh_text("20.90 ms"), zh_text("1,024 and 2,048"), zh_text("yes")
    ('20.90 ms', '1,024 和 2,048', '是')
    """
    def unit(m: re.Match) -> str:
        chinese, power = ZH_UNITS[m["unit"]]
        number = _shift(m["num"], power) if power else m["num"]
        return f"{number} {chinese}" if chinese else number

    return _ZH_WORD.sub(lambda m: ZH_WORDS[m[1]], _ZH_NUMBER_UNIT.sub(unit, text))


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
