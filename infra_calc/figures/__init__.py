"""The book's published figures: one function per figure.

Each function takes its inputs as keyword arguments (defaults = the source's
case) and returns a :class:`matplotlib.figure.Figure`.  The notebooks call the
same functions, so the page and the published file cannot drift apart.
``python -m infra_calc figures --out DIR`` (``make figures``) writes them all.
"""
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

_MODULES = ("j07", "j13", "j13_memory", "catalog", "lab", "ch3")


def _load_all():
    """Import every figure module so that all figures are registered."""
    import importlib

    for name in _MODULES:
        importlib.import_module(f"{__name__}.{name}")


_load_all()

__all__ = ["FIGURES", "FigureSpec", "figure", "render_all", "style", "STYLE",
           "PALETTE", "HATCHES", "MARKERS", "SAVE_KWARGS", "main"]
