"""Arithmetic intensity and the roofline of one GEMM.

A GEMM ``Y[M, N] = X[M, K] @ W[K, N]`` performs ``F = 2·M·K·N`` FLOPs (one
multiply and one add per weight per row) and, when every operand crosses the
memory bus exactly once, moves ``V = b·(M·K + K·N + M·N)`` bytes, ``b`` bytes
per element.  Its arithmetic intensity is ``I = F / V`` FLOP/byte; an
accelerator with peak ``Π`` FLOP/s and bandwidth ``β`` bytes/s is compute-bound
when ``I`` exceeds its ridge point ``I* = Π/β``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import check_number, unwrap
from .accelerators import accelerator
from .bound import attainable, bounds, crossover
from .units import BF16_BYTES

__all__ = [
    "gemm_flops", "gemm_bytes", "arithmetic_intensity", "intensity_limit",
    "critical_rows", "fewest_compute_rows", "attainable_flops", "RooflinePoint", "gemm_roofline",
    "BYTES_PER_ELEMENT",
]

#: Bytes per element of a GEMM's operands when a call names none: BF16's
#: (:data:`infra_calc.units.BF16_BYTES`), the default of the roofline, the padded GEMM of
#: :mod:`infra_calc.shape` and the lab's arithmetic.
BYTES_PER_ELEMENT = BF16_BYTES


def _dims(m, k, n):
    return (check_number(m, "m", "rows"), check_number(k, "k", "elements"),
            check_number(n, "n", "columns"))


def _bpe(bytes_per_element):
    return check_number(bytes_per_element, "bytes_per_element", "bytes")


def gemm_flops(m, k, n):
    """FLOPs of ``[m, k] @ [k, n]``: :math:`F = 2mkn`.

    Parameters
    ----------
    m, k, n : float or array_like
        Rows of the input, shared (reduction) dimension, output columns.

    Returns
    -------
    float or numpy.ndarray
        FLOPs.
    """
    m, k, n = _dims(m, k, n)
    return 2.0 * m * k * n


def gemm_bytes(m, k, n, *, bytes_per_element=BYTES_PER_ELEMENT):
    """Bytes moved by ``[m, k] @ [k, n]`` when each operand crosses memory once.

    :math:`V = b\\,(mk + kn + mn)`: read the input and the weight once, write
    the output once.  ``bytes_per_element`` = 2 for BF16.
    """
    m, k, n = _dims(m, k, n)
    return _bpe(bytes_per_element) * (m * k + k * n + m * n)


def arithmetic_intensity(m, k, n, *, bytes_per_element=BYTES_PER_ELEMENT):
    """Arithmetic intensity :math:`I = F/V = 2mkn / (b(mk + kn + mn))`, FLOP/byte."""
    return gemm_flops(m, k, n) / gemm_bytes(m, k, n, bytes_per_element=bytes_per_element)


def intensity_limit(k, n, *, bytes_per_element=BYTES_PER_ELEMENT):
    """The intensity as ``m → ∞``: :math:`\\lim I = 2kn / (b(k + n))`, FLOP/byte."""
    k = check_number(k, "k", "elements")
    n = check_number(n, "n", "columns")
    return 2.0 * k * n / (_bpe(bytes_per_element) * (k + n))


def critical_rows(k, n, hw, *, bytes_per_element=BYTES_PER_ELEMENT, math="bf16"):
    """Rows ``M*`` at which the GEMM's intensity reaches the ridge point.

    Solving :math:`2MKN / (b(MK + KN + MN)) = I^*` for ``M`` gives

    .. math:: M^* = \\frac{I^* b K N}{2KN - I^* b (K + N)}

    a real (not rounded) number of rows; round up for the smallest whole
    batch that reaches the ridge.  Returns ``inf`` where the denominator is
    not positive: then even ``M → ∞`` cannot reach the ridge.  ``math``
    (keyword-only, default ``"bf16"``) picks the dense peak of the ridge
    (:meth:`~infra_calc.hardware.Accelerator.ridge`).
    """
    k = check_number(k, "k", "elements")
    n = check_number(n, "n", "columns")
    b = _bpe(bytes_per_element)       # each row adds 2kn FLOPs and b(k + n) bytes to the b kn weight
    return crossover(0.0, b * k * n, accelerator(hw), flops_slope=2.0 * k * n, bytes_slope=b * (k + n),
                     math=math)


def fewest_compute_rows(hw, *, bytes_per_element=BYTES_PER_ELEMENT, math="bf16"):
    """Rows below which no GEMM reaches the ridge, whatever its ``K`` and ``N``: :math:`bI^*/2`.

    A GEMM's intensity is below :math:`2M/b` (its FLOPs :math:`2MKN` over the weight alone,
    :math:`bKN`), so it is compute-bound only with more than :math:`bI^*/2` rows: the limit of
    :func:`critical_rows` as ``K`` and ``N`` grow, a real number of rows.
    """
    return _bpe(bytes_per_element) * accelerator(hw).ridge(math) / 2.0


def attainable_flops(intensity, hw, *, math="bf16"):
    """Roofline: :math:`\\Pi_{att}(I) = \\min(\\Pi_m, I\\,\\beta)`, in FLOP/s.

    The rate the two floors allow (:func:`infra_calc.bound.attainable`), for a card given
    by name too.

    Parameters
    ----------
    intensity : float or array_like
        Arithmetic intensity in FLOP/byte (> 0).
    hw : Accelerator or str
    math : str, keyword-only
        Math precision whose dense peak :math:`\\Pi_m` is the flat roof
        (default ``"bf16"``; :meth:`~infra_calc.hardware.Accelerator.peak`).
    """
    intensity = check_number(intensity, "intensity", "FLOP/byte", allow_inf=True)
    acc = accelerator(hw)
    return attainable(intensity, acc, math=math)


@dataclass(frozen=True)
class RooflinePoint:
    """Where one GEMM sits on one accelerator's roofline (all SI units).

    Each value is a scalar for scalar inputs and an array for array inputs.
    """

    #: FLOPs of the GEMM, ``F = 2mkn``.
    flops: float | np.ndarray
    #: Bytes moved when each operand crosses memory once, ``V``.
    bytes_read: float | np.ndarray
    #: Arithmetic intensity ``I = F / V``, FLOP/byte.
    intensity: float | np.ndarray
    #: The accelerator's ridge point ``I* = Π / β``, FLOP/byte.
    ridge: float
    #: Roofline throughput ``Π · T_compute / t_floor = min(Π, I β)``, FLOP/s.
    attainable: float | np.ndarray
    #: Lower bound ``max(F / Π, V / β)``, seconds.
    t_floor: float | np.ndarray
    #: ``"memory"`` below the ridge, ``"compute"`` at or above it
    #: (:func:`infra_calc.bound.bounds`: a tie is compute).
    bound: str | np.ndarray
    #: ``attainable / Π = T_compute / t_floor``, in (0, 1].
    fraction_of_peak: float | np.ndarray


def gemm_roofline(m, k, n, hw, *, bytes_per_element=BYTES_PER_ELEMENT, math="bf16") -> RooflinePoint:
    """Place ``[m, k] @ [k, n]`` on the roofline of ``hw``.

    ``t_floor = max(F/Π, V/β)`` seconds; ``bound`` is ``"compute"`` when
    ``F/Π >= V/β`` (``I >= I*``) and ``"memory"`` otherwise
    (:func:`infra_calc.bound.bounds`); ``fraction_of_peak = T_compute/t_floor``
    and ``attainable = Π · fraction_of_peak = Π_att(I)``.
    ``math`` (keyword-only, default ``"bf16"``) picks the dense peak ``Π``
    (:meth:`~infra_calc.hardware.Accelerator.peak`).
    """
    acc = accelerator(hw)
    f = gemm_flops(m, k, n)
    v = gemm_bytes(m, k, n, bytes_per_element=bytes_per_element)
    t = bounds(f, v, acc, math=math)
    fraction = unwrap(np.asarray(t.t_compute) / t.t_floor)
    return RooflinePoint(unwrap(f), unwrap(v), unwrap(f / v), acc.ridge(math), acc.peak(math) * fraction,
                         t.t_floor, t.floor_bound, fraction)
