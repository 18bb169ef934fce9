"""The result of :func:`infra_calc.forecasting.forecast`: figures with their intervals.

:class:`Forecast` holds a request's TTFT, TPOT, total and output rate, each a
:class:`Band` (the forecast and its interval, never faster than the floor), beside the floor
and the knobs they rest on.
"""
from __future__ import annotations

import math as _math
from dataclasses import KW_ONLY, dataclass

from .generation import GenerationTime

__all__ = ["Band", "Forecast", "band_of"]

@dataclass(frozen=True)
class Band:
    """A forecast figure with its interval (SI units: seconds, or tokens/s).

    ``low <= value <= high``.  For a time, ``low``/``high`` are ``value`` times
    ``exp(band_lo)`` and ``exp(band_hi)``, the 10th and 90th percentiles of the family's
    cross-validated ratios measured/forecast (inverted for a rate), so about 80 % of unseen
    measurements should fall inside; no end is faster than the floor.
    """

    #: The forecast.
    value: float
    #: Lower end of the interval.
    low: float
    #: Upper end of the interval.
    high: float


@dataclass(frozen=True)
class Forecast:
    """Result of :func:`forecast` (SI units).  A model, resting on the floor ``floor``."""

    #: Time to first token (the prefill pass), seconds.
    ttft: Band
    #: Mean time per output token over the decode steps, seconds (0 when ``O = 1``); with
    #: ``continuous=True`` plus the prefills of arriving requests, ``(B - 1)/O`` per token.
    tpot: Band
    #: Whole request: the prefill plus every decode step, seconds.
    total: Band
    #: Output tokens per second of the whole batch, ``B O / total`` (one model copy).
    output_tokens_per_s: Band
    #: The floor it rests on (:func:`~infra_calc.generation.generation_time`, same inputs).
    floor: GenerationTime
    #: The engine family whose knobs were used ("any" for the pooled fit).
    engine: str
    #: The knobs (:class:`~infra_calc.forecasting.Knobs`), with the rows and groups they came
    #: from and the band's held-out coverage.
    knobs: object
    #: The math precision whose peak the compute term uses.
    math: str
    _: KW_ONLY
    #: Whether the TPOT counts prefills sharing the steps (continuous batching, a model).
    continuous: bool = False

    @property
    def rows(self) -> int:
        """Rows the knobs were fitted on."""
        return self.knobs.rows

    @property
    def groups(self) -> int:
        """Provenance groups the knobs were fitted on."""
        return self.knobs.groups

    @property
    def holdout_coverage(self) -> float:
        """Share of the family's held-out rows inside their band."""
        return self.knobs.holdout_coverage


def band_of(value, floor_value, band, rate=False) -> Band:
    """The :class:`Band` of a forecast ``value`` whose floor is ``floor_value``, from the
    family's ``band = (lo, hi)`` of log ratios measured/forecast: ``value`` times ``exp(lo)``
    and ``exp(hi)`` for a time, never below the floor; for a rate (``rate=True``) the time
    band inverted, never above the floor's rate."""
    lo, hi = band
    if rate:      # a rate is B O / time: the time band inverted, never above the floor's rate
        return Band(float(value), float(min(value * _math.exp(-hi), floor_value)),
                    float(min(value * _math.exp(-lo), floor_value)))
    return Band(float(value), float(max(value * _math.exp(lo), floor_value)),
                float(max(value * _math.exp(hi), floor_value)))
