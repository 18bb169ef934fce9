"""The two-bound calculation, written once: ``max(R/β, F/Π)`` and which bound decides.

Every time estimate in the book rests on the same two floors.  A step must
move ``R`` bytes through a memory system of bandwidth ``β`` and do ``F``
FLOPs on matrix units of peak ``Π``, so it takes at least

.. math:: T = \\max\\left(\\frac{R}{\\beta}, \\frac{F}{\\Pi}\\right)

when reads and math overlap, and :math:`R/\\beta + F/\\Pi` when they run one
after the other.  The label says which floor decides.  **A tie is
"compute"**: a step is compute-bound when :math:`F/\\Pi \\ge R/\\beta`, that
is when its intensity :math:`I = F/R` reaches the ridge point
:math:`I^* = \\Pi/\\beta` (the roofline convention: at the ridge the math units
are exactly saturated).

Communication between cards is *not* one of these floors: it rests on a
model of the collective (see :mod:`infra_calc.comm`), so :class:`Bounds`
keeps it as a separate term and labels a step ``"communication"`` only when
that term is the largest part.

Every step result (:class:`~infra_calc.step.DecodeStep`,
:class:`~infra_calc.decode.ModelDecodeStep`, :class:`~infra_calc.prefill.PrefillStep`)
*is* a :class:`Bounds` with its counts, so each carries these seven fields with one
meaning (``t_step = t_floor + t_comm``, ``t_comm = 0`` on one card);
:class:`~infra_calc.roofline.RooflinePoint` and :class:`~infra_calc.shape.PaddedGemm`
take their times and labels from :func:`bounds`; every turning point (``B*``,
``S_max``, ``M*``) is the :func:`crossover` of the two floors, and the roofline's rate
at an intensity :math:`I = F/R` is :func:`attainable`, :math:`F/T = \\min(\\Pi, I\\beta)`.
The forecast's :func:`~infra_calc.forecasting.pass_time` takes the same max of the two
terms divided by fitted efficiencies: a model, not a floor, so it is written there.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import unwrap

__all__ = ["BOUNDS", "Bounds", "attainable", "bounds", "crossover", "tokens_per_s"]

#: the labels a :class:`Bounds` carries
BOUNDS = ("memory", "compute", "communication")


@dataclass(frozen=True)
class Bounds:
    """The times of one step and which part decides (seconds; arrays broadcast)."""

    #: Read floor ``R / β``.
    t_read: float | np.ndarray
    #: Compute floor ``F / Π``.
    t_compute: float | np.ndarray
    #: The floor: ``max(t_read, t_compute)``, or their sum when reads and math are serial.
    t_floor: float | np.ndarray
    #: Communication between cards, a model (0 on one card).
    t_comm: float | np.ndarray
    #: ``t_floor + t_comm``, or ``max(t_floor, t_comm)`` when communication overlaps.
    t_step: float | np.ndarray
    #: ``"compute"`` where ``t_compute >= t_read`` (a tie is compute), else ``"memory"``.
    floor_bound: str | np.ndarray
    #: ``"communication"`` where ``t_comm`` exceeds the floor, else :attr:`floor_bound`.
    bound: str | np.ndarray


def bounds(flops, nbytes, hw, *, t_comm=0.0, overlap=True, overlap_comm=False,
           math="bf16") -> Bounds:
    """The two floors of ``flops`` done and ``nbytes`` read on ``hw``, and the step time.

    .. math:: T_{read} = R/\\beta,\\quad T_{compute} = F/\\Pi_m,\\quad
              T_{floor} = \\max(T_{read}, T_{compute})\\ \\text{(or the sum)},\\quad
              T_{step} = T_{floor} + T_{comm}\\ \\text{(or the max)}

    Parameters
    ----------
    flops, nbytes : float or array_like
        FLOPs ``F`` and bytes read ``R`` (already checked: >= 0), in the order of
        :func:`~infra_calc.step.step_time`.
    hw : Accelerator
        Already resolved: bandwidth ``β`` (bytes/s) and dense peaks (FLOP/s).
    t_comm : float or array_like, keyword-only
        Seconds of communication from a collective model (default 0).
    overlap : bool, keyword-only
        Reads and math overlap (``max``, default) or run one after the other (sum).
    overlap_comm : bool, keyword-only
        Communication overlaps the floor (``max``) instead of adding to it (default).
    math : str, keyword-only
        Math precision whose dense peak ``Π_m`` bounds the math (default ``"bf16"``:
        ``hw.peak_flops``; see :meth:`~infra_calc.hardware.Accelerator.peak`).

    >>> from infra_calc.hardware import Accelerator
    >>> b = bounds(2e12, 1e9, Accelerator("tie", 2e12, 1e12, 1e12))
    >>> b.t_read, b.t_compute, b.bound
    (0.001, 1.0, 'compute')
    """
    for name, flag in (("overlap", overlap), ("overlap_comm", overlap_comm)):
        if not isinstance(flag, (bool, np.bool_)):
            raise TypeError(f"{name} must be True or False, got {flag!r}")
    tr, tc, tm = np.broadcast_arrays(np.asarray(nbytes, dtype=float) / hw.mem_bandwidth,
                                     np.asarray(flops, dtype=float) / hw.peak(math),
                                     np.asarray(t_comm, dtype=float))
    floor = np.maximum(tr, tc) if overlap else tr + tc
    step = np.maximum(floor, tm) if overlap_comm else floor + tm
    floor_bound = np.where(tc >= tr, "compute", "memory")
    bound = np.where(tm > floor, "communication", floor_bound)
    return Bounds(t_read=unwrap(tr), t_compute=unwrap(tc), t_floor=unwrap(floor),
                  t_comm=unwrap(tm), t_step=unwrap(step), floor_bound=unwrap(floor_bound, str),
                  bound=unwrap(bound, str))


def attainable(intensity, hw, *, math="bf16"):
    """The rate the two floors allow at arithmetic intensity ``I = F/R`` (FLOP/byte), in FLOP/s.

    .. math:: \\Pi_{att}(I) = \\frac{F}{\\max(F/\\Pi_m,\\ R/\\beta)} = \\min(\\Pi_m,\\ I\\beta)

    ``intensity`` is already checked (> 0; ``inf`` is the flat roof) and ``hw`` already
    resolved; ``math`` (keyword-only, default ``"bf16"``) picks the dense peak ``Π_m``.

    >>> from infra_calc.hardware import Accelerator
    >>> card = Accelerator("x", 300e12, 1e12, 1e12)              # ridge I* = 300 FLOP/byte
    >>> float(attainable(10.0, card)), float(attainable(1e3, card))
    (10000000000000.0, 300000000000000.0)
    """
    return unwrap(np.minimum(hw.peak(math), np.asarray(intensity, dtype=float) * hw.mem_bandwidth))


def tokens_per_s(batch, t_step):
    """Throughput of a step, ``B / T_step`` tokens per second: ``batch`` requests each
    produce one token in ``t_step`` seconds (the one place it is computed).

    >>> tokens_per_s(8, 0.04)
    200.0
    """
    return unwrap(np.asarray(batch) / np.asarray(t_step, dtype=float))


def crossover(flops, nbytes, hw, *, flops_slope, bytes_slope, math="bf16"):
    """Where the floors of ``F0 + x F1`` FLOPs and ``R0 + x R1`` bytes meet (``x``: requests, rows...).

    .. math:: x^* = \\frac{R_0/\\beta - F_0/\\Pi_m}{F_1/\\Pi_m - R_1/\\beta}

    ``flops, nbytes`` are ``F0, R0``; the slopes ``F1, R1`` are keyword-only (four numbers
    of two units by position would trade places).  ``inf`` where the denominator is not
    positive (the math never catches up); not rounded.  Every term negated: where the
    *read* catches up (``S_max``).

    >>> from infra_calc.hardware import Accelerator
    >>> card = Accelerator("x", 300e12, 1e12, 1e12)
    >>> crossover(0.0, 1.0, card, flops_slope=2.0, bytes_slope=0.0)   # J07's B*
    150.0
    """
    lead, per = bounds(flops, nbytes, hw, math=math), bounds(flops_slope, bytes_slope, hw, math=math)
    rate = np.asarray(per.t_compute) - per.t_read
    ok = rate > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        return unwrap(np.where(ok, (np.asarray(lead.t_read) - lead.t_compute) / np.where(ok, rate, 1.0),
                               np.inf))
