"""Roofline arithmetic of the lab: the prediction, the measured ``M*`` and the two models.

Pure functions of numbers (no timing): what the roofline predicts for each
``M`` of a sweep, where measured throughput first reaches a fraction of its
plateau, and where the overlap (roofline) and no-overlap models reach a
fraction of the peak.
"""
from __future__ import annotations

import numpy as np

from .._validate import check_int, check_number, unwrap
from ..accelerators import accelerator
from ..bound import bounds
from ..roofline import (
    BYTES_PER_ELEMENT,
    arithmetic_intensity,
    attainable_flops,
    critical_rows,
    gemm_bytes,
    gemm_flops,
)

__all__ = ["check_m_values", "achieved_flops", "roofline_prediction", "measured_critical_rows",
           "no_overlap_flops", "model_rows_at_fraction"]


def check_m_values(m_values) -> tuple[int, ...]:
    """The sweep's rows as a tuple of whole numbers >= 1, strictly increasing."""
    m = check_int(m_values, "m_values", "rows", minimum=1)
    m = np.atleast_1d(m)
    if m.ndim != 1 or (np.diff(m) <= 0).any():
        raise ValueError("m_values (rows) must be a strictly increasing sequence of whole numbers")
    return tuple(int(x) for x in m)


def achieved_flops(m_values, seconds, k, n) -> np.ndarray:
    """Measured throughput ``2·M·k·n / seconds`` of each GEMM, FLOP/s."""
    seconds = np.atleast_1d(check_number(seconds, "seconds", "s"))
    return gemm_flops(np.array(check_m_values(m_values), float), k, n) / seconds


def roofline_prediction(m_values, k, n, hw, *,
                        bytes_per_element=BYTES_PER_ELEMENT) -> tuple[np.ndarray, float]:
    """The roofline's ``min(Π, I(M)·β)`` for each ``M`` (FLOP/s) and its ``M*`` (rows).

    ``M*`` is :func:`infra_calc.critical_rows` on ``hw``: the rows at which the
    GEMM's intensity reaches the ridge point.
    """
    m = np.array(check_m_values(m_values), float)
    predicted = attainable_flops(arithmetic_intensity(m, k, n, bytes_per_element=bytes_per_element), hw)
    return np.atleast_1d(predicted), critical_rows(k, n, hw, bytes_per_element=bytes_per_element)


def measured_critical_rows(m, flops_per_second, *, fraction=0.9) -> float:
    """The measured ``M*``: first ``M`` whose throughput reaches ``fraction`` of the plateau.

    The plateau is the highest throughput measured.  Between the two grid
    points that bracket the first crossing, ``M`` is interpolated linearly in
    log-log coordinates, so the answer is a real number of rows like
    :func:`infra_calc.critical_rows`.  If the first point already reaches it,
    that point's ``M`` is returned.
    """
    m = np.asarray(check_m_values(m), dtype=float)
    f = np.atleast_1d(check_number(flops_per_second, "flops_per_second", "FLOP/s"))
    if f.shape != m.shape:
        raise ValueError(f"flops_per_second (FLOP/s) must have one value per M: {f.size} values "
                         f"for {m.size} rows")
    fraction = check_number(fraction, "fraction", "of the plateau", maximum=1.0)
    target = fraction * f.max()
    i = int(np.argmax(f >= target))
    if i == 0:
        return float(m[0])
    lm0, lm1, lf0, lf1 = np.log(m[i - 1]), np.log(m[i]), np.log(f[i - 1]), np.log(f[i])
    return float(np.exp(lm0 + (np.log(target) - lf0) / (lf1 - lf0) * (lm1 - lm0)))


def no_overlap_flops(m, k, n, hw, *, bytes_per_element=BYTES_PER_ELEMENT):
    """Throughput if moving and computing do not overlap: ``F / (F/Π + V/β)``, FLOP/s.

    The roofline assumes the two overlap perfectly, ``t = max(F/Π, V/β)``;
    this is the other bound, ``t = F/Π + V/β`` (J07's max-versus-sum).
    """
    f = gemm_flops(m, k, n)
    t = bounds(f, gemm_bytes(m, k, n, bytes_per_element=bytes_per_element), accelerator(hw), overlap=False)
    return unwrap(f / t.t_floor)


def model_rows_at_fraction(k, n, hw, *, bytes_per_element=BYTES_PER_ELEMENT, fraction=0.9, overlap=True):
    """Rows ``M`` at which a model's throughput first reaches ``fraction · Π``.

    With overlap (the roofline, ``min(Π, Iβ)``) that happens at ``I = f·I*``;
    without overlap (``F/(F/Π + V/β)``) at ``I = f/(1 − f) · I*``, nine times
    the ridge for ``f = 0.9``.  Both reuse :func:`infra_calc.critical_rows`
    with the peak scaled so that its ridge is the required intensity.
    """
    acc = accelerator(hw)
    fraction = check_number(fraction, "fraction", "of the peak", maximum=1.0,
                            inclusive_max=overlap)
    scale = fraction if overlap else fraction / (1.0 - fraction)
    return critical_rows(k, n, acc.with_(peak_flops=acc.peak_flops * scale),
                         bytes_per_element=bytes_per_element)
