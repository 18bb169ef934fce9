"""Amdahl's law: speeding up part of a job.

If a fraction ``f`` of the time is sped up ``s`` times, the whole job speeds up
:math:`S = 1 / ((1 - f) + f/s)`, and never beyond :math:`1/(1 - f)`.
"""
from __future__ import annotations

import numpy as np

from ._validate import check_number, unwrap

__all__ = ["amdahl_speedup", "amdahl_time", "amdahl_limit"]


def _f(f):
    return check_number(f, "f", "fraction of time sped up, 0..1", allow_zero=True, maximum=1.0)


def _s(s):
    return check_number(s, "s", "speed-up factor of that part", allow_inf=True)


def amdahl_speedup(f, *, s):
    """Overall speed-up :math:`S = 1/((1-f) + f/s)`.

    Parameters
    ----------
    f : float or array_like
        Fraction of the original time that is accelerated, in [0, 1].
    s : float or array_like, keyword-only
        Speed-up of that fraction, > 0; ``numpy.inf`` gives the limit
        :math:`1/(1-f)`.
    """
    f, s = _f(f), _s(s)
    denom = (1.0 - np.asarray(f, dtype=float)) + np.asarray(f, dtype=float) / s
    with np.errstate(divide="ignore"):
        out = np.divide(1.0, denom)
    return unwrap(out)


def amdahl_time(t_total, *, f, s):
    """New time :math:`T' = T\\,((1 - f) + f/s)`, same unit as ``t_total``; ``f`` and ``s``
    as for :func:`amdahl_speedup` (keyword-only: two numbers that could trade places)."""
    t = check_number(t_total, "t_total", "s", allow_zero=True)
    f, s = _f(f), _s(s)
    out = t * ((1.0 - f) + f / s)
    return unwrap(out)


def amdahl_limit(f):
    """Ceiling :math:`\\lim_{s\\to\\infty} S = 1/(1-f)` (``inf`` when ``f = 1``)."""
    return amdahl_speedup(f, s=np.inf)
