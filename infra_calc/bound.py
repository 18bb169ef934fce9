"""The two-bound calculation, written once: ``max(R/β, F/Π)`` and which bound decides.

Every time estimate in the book rests on the same two floors.  A step must
move ``R`` bytes through a memory system of bandwidth ``β`` and do ``F``
FLOPs on matrix units of peak ``Π``, so it takes at least

.. math:: T = \\max\\left(\\frac{R}{\\beta}, \\frac{F}{\\Pi}\\right)

when reads and math overlap.  The label says which floor decides.  **A tie is
"compute"**: a step is compute-bound when :math:`F/\\Pi \\ge R/\\beta`, that
is when its intensity :math:`I = F/R` reaches the ridge point
:math:`I^* = \\Pi/\\beta` (the roofline convention: at the ridge the math units
are exactly saturated).

Communication between cards is *not* one of these floors: it rests on a
model of the collective (see :mod:`infra_calc.comm`), so results keep it as a
separate term, and :func:`bound_with_comm` names it only when it is the
largest part.
"""
from __future__ import annotations

import numpy as np

from ._validate import unwrap

__all__ = ["BOUNDS", "floor_time", "bound_label", "bound_with_comm", "two_bounds"]

#: the labels :func:`bound_label` returns, and ``"communication"`` from :func:`bound_with_comm`
BOUNDS = ("memory", "compute", "communication")


def floor_time(t_read, t_compute):
    """The floor :math:`\\max(T_{read}, T_{compute})`, seconds (arrays broadcast)."""
    return unwrap(np.maximum(t_read, t_compute))


def bound_label(t_read, t_compute):
    """``"compute"`` where :math:`T_{compute} \\ge T_{read}` (a tie is compute), else ``"memory"``.

    >>> bound_label(1.0, 1.0), bound_label(2.0, 1.0)
    ('compute', 'memory')
    """
    return unwrap(np.where(np.asarray(t_compute) >= np.asarray(t_read), "compute", "memory"), str)


def two_bounds(nbytes, flops, acc):
    """``(t_read, t_compute, t_floor, bound)`` of ``nbytes`` and ``flops`` on accelerator ``acc``.

    :math:`T_{read} = R/\\beta`, :math:`T_{compute} = F/\\Pi`, their maximum, and
    :func:`bound_label`.  ``acc`` is an :class:`~infra_calc.hardware.Accelerator`
    (already resolved); inputs are already checked.
    """
    tr = np.asarray(nbytes, dtype=float) / acc.mem_bandwidth
    tc = np.asarray(flops, dtype=float) / acc.peak_flops
    tr, tc = np.broadcast_arrays(tr, tc)
    return unwrap(tr), unwrap(tc), floor_time(tr, tc), bound_label(tr, tc)


def bound_with_comm(t_read, t_compute, t_comm):
    """``"communication"`` where :math:`T_{comm} > \\max(T_{read}, T_{compute})`, else :func:`bound_label`.

    The communication term comes from a model (a ring, an in-switch
    reduction), not a floor; this label only says which part is largest.
    """
    tr, tc, tm = np.broadcast_arrays(np.asarray(t_read, dtype=float),
                                     np.asarray(t_compute, dtype=float),
                                     np.asarray(t_comm, dtype=float))
    out = np.where(tm > np.maximum(tr, tc), "communication",
                   np.where(tc >= tr, "compute", "memory"))
    return unwrap(out, str)
