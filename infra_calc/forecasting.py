"""A forecast: the book's floor made realistic by a few knobs fitted on published measurements.

The floor of a step is :math:`\\max(R/\\beta, F/\\Pi_m)` (:mod:`infra_calc.bound`, with
:math:`\\Pi_m` the dense peak of the math precision ``m``).  A forecast reads at a fitted
fraction :math:`\\eta_{mem} \\le 1` of the bandwidth, computes at a fitted fraction
:math:`\\eta_{flop} \\le 1` of the peak, and adds a fitted fixed cost per step,
:math:`c_{layer} \\ge 0` per layer and :math:`c_{ar} \\ge 0` per all-reduce when the model is
split over ``n > 1`` cards:

.. math:: T = \\max\\left(\\frac{R}{\\eta_{mem}\\beta}, \\frac{F}{\\eta_{flop}\\Pi_m}\\right)
          + L\\,c_{layer} + [n > 1]\\,2L\\,c_{ar} + T_{comm}

where ``T_comm`` is the library's ring all-reduce model (0 on one card).  Every term is at
least its floor, so a forecast is never faster than the floor it rests on.  The knobs are
fitted per engine family in relative (log) error (:mod:`infra_calc.fit`); the interval of
each figure is the 10th-90th percentile of that family's grouped cross-validated residuals.
This is a **model**, not a bound.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .generation import GenerationTime

__all__ = ["Band", "Knobs", "Forecast", "forecast", "forecast_engines"]


@dataclass(frozen=True)
class Band:
    """A forecast figure with its interval (SI units: seconds, or tokens/s).

    ``low <= value <= high``; ``low``/``high`` are ``value`` scaled by the 10th and 90th
    percentiles of the family's cross-validated ratios measured/forecast (for a time;
    inverted for a rate), so about 80 % of unseen measurements should fall inside.
    """

    #: The forecast.
    value: float
    #: Lower end of the interval.
    low: float
    #: Upper end of the interval.
    high: float


@dataclass(frozen=True)
class Knobs:
    """The fitted knobs of one engine family (SI units) and what they were fitted on."""

    #: Engine family ("TensorRT-LLM", "vLLM", ..., or "any" for the pooled fit).
    engine: str
    #: Fraction of the memory bandwidth reached, ``0 < η_mem <= 1``.
    eta_mem: float
    #: Fraction of the math precision's dense peak reached, ``0 < η_flop <= 1``.
    eta_flop: float
    #: Fixed cost per layer per step, seconds (>= 0).
    c_layer: float
    #: Fixed cost per all-reduce per step on ``n > 1`` cards, seconds (>= 0).
    c_allreduce: float
    #: Rows of the fit (faster-than-floor, excluded and held-out rows left out).
    rows: int
    #: Provenance groups those rows come from.
    groups: int
    #: Weight of the family's own fit against the pooled one, ``rows / (rows + k)`` (1 pooled).
    shrinkage: float
    #: 10th and 90th percentile of the cross-validated log ratios measured/forecast, per metric
    #: ``{"tpot": (lo, hi), "ttft": (lo, hi), "output_throughput_per_gpu": (lo, hi)}``.
    bands: dict
    #: Share of the held-out rows of this family (or all, pooled) inside their band
    #: (nan when there are none).
    holdout_coverage: float


@dataclass(frozen=True)
class Forecast:
    """Result of :func:`forecast` (SI units).  A model, resting on the floor ``floor``."""

    #: Time to first token (the prefill pass), seconds.
    ttft: Band
    #: Mean time per output token over the decode steps, seconds.
    tpot: Band
    #: Whole request: ``ttft + (O - 1) tpot``, seconds.
    total: Band
    #: Output tokens per second of the whole batch, ``B O / total`` (per model copy).
    output_tokens_per_s: Band
    #: The floor it rests on (:func:`~infra_calc.generation.generation_time`, same inputs).
    floor: GenerationTime
    #: The engine family whose knobs were used ("any" for the pooled fit).
    engine: str
    #: The knobs, with the rows and groups they came from and the band coverage.
    knobs: Knobs
    #: The math precision whose peak the compute term uses.
    math: str

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
        """Share of held-out rows inside their band."""
        return self.knobs.holdout_coverage


def forecast_engines() -> list[str]:
    """The engine families with stored knobs, pooled ``"any"`` first."""
    raise NotImplementedError


def forecast(model, hw=None, *, prompt_tokens, output_tokens, batch=1, cards=1,
             bytes_per_param=2, kv_bytes_per_element=2, math="bf16", engine=None) -> Forecast:
    """Forecast one request's TTFT, TPOT, total time and output rate, with intervals.

    Parameters
    ----------
    model : ModelSpec, str, path or Workload
    hw : Accelerator or str
    prompt_tokens, output_tokens : int
        ``P`` and ``O`` (>= 1).
    batch, cards : int
        Requests decoded together and tensor-parallel cards.
    bytes_per_param, kv_bytes_per_element : float
    math : str
        Math precision (``"bf16"``, ``"fp8"``, ``"fp4"``): its dense peak sets the compute term.
    engine : str, optional
        Engine family (:func:`forecast_engines`); None uses the pooled fit.

    Raises
    ------
    ValueError
        Unknown engine (the message lists the known ones), a card without ``math``, or a
        bad size (named, with its unit).
    """
    raise NotImplementedError
