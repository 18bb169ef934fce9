"""The book's published figures: one function per figure.

Each function takes its inputs by the package's convention, ``f(subject, hw, *,
sizes...)``: the subject and the card by position where it has them
(``fixes_figure(params, hw)``), every other input keyword-only; each input has a
default (the source's case), and each returns a :class:`matplotlib.figure.Figure`.  The notebooks call the
same functions, so the page and the published file cannot drift apart.
``python -m infra_calc figures --out DIR`` (``make figures``) writes them all.
"""
from . import catalog, ch1, ch2, ch2_memory, ch3, ch4, lab  # noqa: F401  (each registers its figures)
from ._registry import (
    FIGURES,
    HATCHES,
    MARKERS,
    PALETTE,
    SAVE_KWARGS,
    STYLE,
    FigureSpec,
    figure,
    main,
    render_all,
    style,
)

__all__ = ["FIGURES", "FigureSpec", "figure", "render_all", "style", "STYLE",
           "PALETTE", "HATCHES", "MARKERS", "SAVE_KWARGS", "main"]
