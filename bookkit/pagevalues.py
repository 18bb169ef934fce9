"""The numbers one page shows, each set once: ``v = PageValues()``, then
``v.t_read = ic.shown(step.t_read, "ms", 2)``; the prose writes {eval}`v.t_read`.

The values themselves are :class:`infra_calc.display.Shown` (the library formats the
numbers); this namespace is the page's bookkeeping.

>>> import infra_calc as ic
>>> v = PageValues()
>>> v.t_read = ic.shown(0.020896, "ms", 2)
>>> v.card = "H100 SXM"
>>> v.t_read, v.card, v
(20.90 ms, H100 SXM, PageValues(card, t_read))
"""
from __future__ import annotations

from collections.abc import Callable

from infra_calc.display import Shown

__all__ = ["PageValues"]


class PageValues:
    """A namespace for the numbers one page shows (``v.t_read = shown(...)``).

    A name is set once: rebinding it raises, since the prose that refers to it
    has been rendered with the first value.  A number reaches it already a
    :class:`~infra_calc.display.Shown` (every form of :mod:`infra_calc.display`
    returns one, value and unit kept); a ``str`` is text with no number (a date, a
    machine's name, a word: many pages show such text), kept as a ``Shown`` whose
    ``value`` is ``None``, so the prose shows it without quotes.
    """

    def __setattr__(self, name: str, value) -> None:
        if name in self.__dict__:
            raise AttributeError(f"page value {name!r} is already set; use a new name")
        if isinstance(value, str):
            value = Shown(None, value)
        object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        return f"PageValues({', '.join(sorted(self.__dict__))})"

    @classmethod
    def from_parts(cls, *parts: Callable[[PageValues], None]) -> PageValues:
        """The values of a page written one part at a time: a new ``v``, then
        ``part(v)`` for each part in turn (a self-test page: one part per exercise)."""
        v = cls()
        for part in parts:
            part(v)
        return v
