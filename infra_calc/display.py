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

from .units import BYTE_UNITS, MS, US

__all__ = ["Shown", "shown", "PageValues", "UNIT_SCALES", "check_page_values", "eval_expressions",
           "ZH_UNITS", "ZH_WORDS", "zh_text"]

#: unit -> the SI value of one of it (seconds, bytes, FLOPs, FLOP/s, bytes/s ...)
UNIT_SCALES: dict[str, float] = {
    # time
    "s": 1.0, "ms": MS, "µs": US, "us": US, "ns": 1e-9,
    # bytes, decimal and binary (the same constants as infra_calc.units)
    **{unit: float(scale) for unit, scale in BYTE_UNITS.items()}, "bytes": 1.0,
    # work
    "FLOP": 1.0, "FLOPs": 1.0, "kFLOP": 1e3, "MFLOP": 1e6, "MFLOPs": 1e6, "GFLOP": 1e9,
    "GFLOPs": 1e9, "TFLOP": 1e12, "TFLOPs": 1e12, "PFLOP": 1e15,
    # rates
    "FLOP/s": 1.0, "GFLOP/s": 1e9, "TFLOP/s": 1e12, "PFLOP/s": 1e15,
    "B/s": 1.0, "GB/s": 1e9, "TB/s": 1e12, "GiB/s": 2.0**30,
    "tokens/s": 1.0, "token/s": 1.0, "tok/s": 1.0,
    # intensity, ratios, counts
    "FLOP/byte": 1.0, "FLOP/B": 1.0, "×": 1.0, "x": 1.0,
    "%": 0.01,                       # a fraction shown as a percentage
    "W": 1.0, "mm²": 1.0,
    "tokens": 1.0, "token": 1.0, "requests": 1.0, "request": 1.0, "rows": 1.0,
    "cards": 1.0, "experts": 1.0, "layers": 1.0,
    # counts with a scale word
    "thousand": 1e3, "million": 1e6, "billion": 1e9, "B params": 1e9,
}
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
    "bytes": ("字节", 0), "CPUs": ("个 CPU", 0),
    "thousand": ("", 3), "million": ("万", 2), "billion": ("亿", 1), "B params": ("亿参数", 1),
}
#: Whole words a stored value may hold besides numbers (a yes/no column, "1,024 and 2,048").
ZH_WORDS: dict[str, str] = {"yes": "是", "no": "否", "and": "和"}


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


_EVAL = re.compile(r"\{eval\}`([^`]+)`")


def eval_expressions(markdown: str) -> list[str]:
    """The ``{eval}`` expressions of a markdown cell, in order, without repeats."""
    seen: list[str] = []
    for expr in _EVAL.findall(markdown):
        if expr not in seen:
            seen.append(expr)
    return seen


def _plain(value) -> str:
    try:
        from IPython import get_ipython

        ip = get_ipython()
    except ImportError:  # pragma: no cover - IPython ships with the book's extras
        ip = None
    if ip is not None:
        data, _ = ip.display_formatter.format(value)
        return data.get("text/plain", repr(value))
    return repr(value)


def check_page_values(namespace: dict, notebook: str) -> int:
    """Re-evaluate every stored ``{eval}`` result of ``notebook`` in ``namespace``.

    ``tools/execute.py`` stores each markdown cell's results in its metadata
    (``user_expressions``, the format jupyterlab-myst writes).  This check, run as
    a page's last hidden cell under nbval, fails when a stored result is missing
    or differs from what the code computes now.

    While ``tools/execute.py`` itself runs the page (it sets
    ``INFRA_CALC_STORING=1``), nothing is stored yet: the check then only makes
    sure that every expression evaluates.

    Returns the number of expressions checked (an ``int`` that prints as a
    sentence, since it is the last output of a page in JupyterLab).
    """
    import json
    import os
    import pathlib

    storing = os.environ.get("INFRA_CALC_STORING") == "1"

    nb = json.loads(pathlib.Path(notebook).read_text(encoding="utf-8"))
    problems, count = [], 0
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "markdown":
            continue
        exprs = eval_expressions("".join(cell["source"]))
        if not exprs:
            continue
        stored = {e["expression"]: e.get("result", {})
                  for e in cell.get("metadata", {}).get("user_expressions", [])}
        for expr in exprs:
            count += 1
            if expr not in stored and not storing:
                problems.append(f"cell {i}: {{eval}}`{expr}` has no stored result (run `make execute`)")
                continue
            try:
                got = _plain(eval(expr, namespace))  # the page's own expressions
            except Exception as exc:  # report every failure at once
                problems.append(f"cell {i}: {{eval}}`{expr}` raises {type(exc).__name__}: {exc}")
                continue
            if storing:
                continue
            res = stored[expr]
            want = res.get("data", {}).get("text/plain") if res.get("status") == "ok" else None
            if got != want:
                problems.append(f"cell {i}: {{eval}}`{expr}` is {got!r} now, stored {want!r}")
    if problems:
        raise AssertionError(f"{notebook}: {len(problems)} stored value(s) out of date:\n  "
                             + "\n  ".join(problems))
    return _Checked(count)


class _Checked(int):
    def __repr__(self) -> str:
        return f"all {int(self)} numbers in the prose match what the code computes"

    def _repr_pretty_(self, p, cycle) -> None:
        p.text(repr(self))
