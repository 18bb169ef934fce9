"""A forecast: the book's floor made realistic by a few knobs fitted on published measurements.

The floor of a step is :math:`\\max(R/\\beta, F/\\Pi_m)` (:mod:`infra_calc.bound`, with
:math:`\\Pi_m` the dense peak of the math precision ``m``).  A forecast reads at a fitted
fraction :math:`\\eta_{mem} \\le 1` of the bandwidth, computes at a fitted fraction
:math:`\\eta_{flop} \\le 1` of the peak, and adds a fitted fixed cost per step,
:math:`c_{layer} \\ge 0` per layer and :math:`c_{ar} \\ge 0` per all-reduce (two per layer)
when the model is split over ``n > 1`` cards; the floor's read and math overlap perfectly,
the forecast's hide a fitted share :math:`0 \\le o \\le 1` of the shorter under the longer
(its kernels run one after another, each loading before it computes):

.. math:: T = \\max(r, c) + (1 - o)\\min(r, c)
          + T_{comm} + L\\,c_{layer} + [n > 1]\\,2L\\,c_{ar},\\quad
          r = \\frac{R}{\\eta_{mem}\\beta},\\ c = \\frac{F}{\\eta_{flop}\\Pi_m}

for the prefill pass and for every decode step, where ``T_comm`` is the library's ring
all-reduce model (0 on one card) and ``R`` counts, for a mixture of experts, the experts a
batch hits under uniform routing (a model; the floor reads ``k``).  Every term is at least
its floor term (and ``max(r, c) + (1 - o) min(r, c) >= max(r, c)``), so **a forecast is never
faster than the floor it rests on**.  The knobs are
fitted per engine family in relative (log) error by :mod:`infra_calc.fit` and stored in
``infra_calc/data/forecast_knobs.csv``; the interval of each figure is the 10th-90th
percentile of that family's grouped cross-validated ratios measured/forecast.  This is a
**model**, not a bound.

**Prefill sharing the steps (continuous batching), a model.**  A server that keeps ``B``
requests decoding while new ones arrive, each with ``P`` prompt and ``O`` output tokens,
finishes in steady state ``B/O`` requests per decode step and so starts ``B/O`` new ones; each
new prompt's prefill runs between two decode steps and lengthens the gap of the ``B - 1``
requests already decoding (for the newcomer it is its TTFT).  Over all ``B`` requests' gaps the
mean time between two output tokens is then

.. math:: TPOT_{cb} = \\overline{T(\\text{step}_j)} + \\frac{B - 1}{O}\\,T(\\text{prefill}_1)

with ``T(prefill_1)`` the model's prefill of *one* prompt (``forecast(..., continuous=True)``,
:func:`prefill_share`).  The term vanishes at ``B = 1`` (no other request's prompt to wait
for); in a static batch (all prompts prefilled together, then decoded together:
``continuous=False``, the default) it does not exist.  It only adds time, so the TPOT stays
above its floor.  The total and the output rate are unchanged: they already count every
prompt's prefill once per ``B O`` output tokens (a batch-``B`` prefill and ``O - 1`` steps).
The fit uses it on a TPOT or ITL row measured under a serving load
(:attr:`Measurement.continuous <infra_calc.measurements.Measurement.continuous>`) at a batch
above 1 whose prompt and output lengths are stated.
"""
from __future__ import annotations

import csv
import functools
import math as _math
from dataclasses import KW_ONLY, dataclass
from importlib import resources
from typing import NamedTuple

import numpy as np

from .catalog import name_key
from .generation import GenerationTime, generation_time
from .workload import Workload

__all__ = ["Band", "Knobs", "KnobValues", "Forecast", "forecast", "forecast_engines",
           "pass_time", "knobs", "POOLED", "KNOB_COLUMNS", "prefill_share", "Terms",
           "forecast_terms", "rate_per_card"]

#: The family name of the pooled fit over every engine.
POOLED = "any"
#: Columns of ``forecast_knobs.csv``, in order.
KNOB_COLUMNS = ("engine", "eta_mem", "eta_flop", "c_layer", "c_allreduce", "overlap", "rows",
                "groups",
                "shrinkage", "band_lo", "band_hi", "cv_rows", "holdout_rows", "holdout_inside")
#: Other spellings of engine families a reader may type.
_ALIASES = {"trtllm": "TensorRT-LLM", "trt": "TensorRT-LLM", "nim": "NVIDIA NIM",
            "pooled": POOLED, "all": POOLED}


class KnobValues(NamedTuple):
    """The five knobs of :func:`pass_time` (SI units): what :attr:`Knobs.fitted` holds for a
    family, and what :func:`infra_calc.fit.unpack` makes of the fit's coordinates."""

    #: Fraction of the memory bandwidth reached, ``0 < η_mem <= 1``.
    eta_mem: float
    #: Fraction of the math precision's dense peak reached, ``0 < η_flop <= 1``.
    eta_flop: float
    #: Fixed cost per layer per pass, seconds (>= 0).
    c_layer: float
    #: Fixed cost per all-reduce (two per layer and pass) on ``n > 1`` cards, seconds (>= 0).
    c_allreduce: float
    #: Share ``o`` of the shorter of the read and math terms hidden under the longer, in
    #: [0, 1] (1: the floor's perfect overlap).
    overlap: float = 1.0


def pass_time(k, *, read, compute, comm, layers, cards):
    """The model's time of one pass (prefill or decode step), seconds; arrays broadcast.

    .. math:: T = \\max(r, c) + (1 - o)\\min(r, c) + T_{comm}
              + L\\,c_{layer} + [n > 1]\\,2L\\,c_{ar},\\quad
              r = T_{read}/\\eta_{mem},\\ c = T_{compute}/\\eta_{flop}

    with ``o`` the share of the shorter of the two terms hidden under the longer (1: the
    floor's perfect overlap, the default; 0: the read and the math one after the other).

    Parameters
    ----------
    k : KnobValues
        ``(η_mem, η_flop, c_layer, c_ar, o)``: fractions in (0, 1], costs in seconds >= 0.
    read, compute, comm : float or array_like
        The floor terms ``R/β`` and ``F/Π_m`` and the all-reduce model's time, seconds.
    layers, cards : int or array_like
        ``L`` and ``n``.
    """
    layers = np.asarray(layers, dtype=float)
    fixed = layers * k.c_layer + np.where(np.asarray(cards) > 1, 2.0 * layers * k.c_allreduce,
                                          0.0)
    r = np.asarray(read, dtype=float) / k.eta_mem
    c = np.asarray(compute, dtype=float) / k.eta_flop
    return (np.maximum(r, c) + (1.0 - k.overlap) * np.minimum(r, c)
            + np.asarray(comm, dtype=float) + fixed)


def rate_per_card(t, *, batch, output_tokens, cards):
    """Output tokens/s per card of ``B`` requests making ``O`` tokens each in ``T`` seconds on
    ``n`` cards, :math:`B O / (T n)`; arrays broadcast.

    The relation is its own inverse: given a rate per card as ``t``, it returns the time
    ``T`` of the ``B O`` tokens that rate implies (the fit's reading of a measured rate).

    >>> rate_per_card(2.0, batch=8, output_tokens=100, cards=4)
    100.0
    """
    return batch * output_tokens / (t * cards)


def prefill_share(batch, output_tokens) -> float:
    """Prefills of one prompt added to the mean gap between output tokens under continuous
    batching, ``(B - 1) / O`` (a model of the steady state: ``B`` requests decoding, each
    leaving after ``O`` tokens and replaced by a new one, ``B/O`` prefills per step, each
    lengthening the gaps of the ``B - 1`` requests already decoding); 0 at ``B = 1``."""
    return max(float(batch) - 1.0, 0.0) / float(output_tokens)


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
class Knobs:
    """The fitted knobs of one engine family (SI units) and what they were fitted on."""

    #: Engine family ("TensorRT-LLM", "vLLM", ..., or "any" for the pooled fit).
    engine: str
    #: Fraction of the memory bandwidth reached, ``0 < η_mem <= 1``.
    eta_mem: float
    #: Fraction of the math precision's dense peak reached, ``0 < η_flop <= 1``.
    eta_flop: float
    #: Fixed cost per layer per pass, seconds (>= 0).
    c_layer: float
    #: Fixed cost per all-reduce (two per layer and pass) on ``n > 1`` cards, seconds (>= 0).
    c_allreduce: float
    #: Share of the shorter of a pass's read and math terms hidden under the longer,
    #: ``0 <= o <= 1`` (1: the floor's perfect overlap).
    overlap: float
    #: Rows of the fit (faster-than-floor, excluded and held-out rows left out).
    rows: int
    #: Provenance groups those rows come from.
    groups: int
    #: Weight of the prior that pulls the family's knobs toward the pooled fit (a penalty
    #: ``λ Σ (u - u_pooled)^2`` on the knobs' logits and logs; 0 for the pooled fit's own).
    shrinkage: float
    #: 10th and 90th percentile of the cross-validated ``ln(measured / forecast)`` of the
    #: family's rows (times; for a rate, of ``ln(forecast / measured)``).
    band: tuple[float, float]
    #: Cross-validated rows the band was taken from.
    cv_rows: int
    #: Held-out rows of this family (all of them for the pooled fit).
    holdout_rows: int
    #: Of those, how many fall inside their band.
    holdout_inside: int

    @property
    def holdout_coverage(self) -> float:
        """Share of the held-out rows inside their band (nan when there are none)."""
        return self.holdout_inside / self.holdout_rows if self.holdout_rows else _math.nan

    @property
    def fitted(self) -> KnobValues:
        """The five knobs, as :func:`pass_time` and :func:`infra_calc.fit.predict` take them."""
        return KnobValues(self.eta_mem, self.eta_flop, self.c_layer, self.c_allreduce,
                          self.overlap)


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
    #: The knobs, with the rows and groups they came from and the band's held-out coverage.
    knobs: Knobs
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


def parse_knobs(text: str) -> dict[str, Knobs]:
    """The knobs of a ``forecast_knobs.csv`` text, by engine family."""
    out = {}
    for r in csv.DictReader(text.splitlines()):
        out[r["engine"]] = Knobs(
            engine=r["engine"], eta_mem=float(r["eta_mem"]), eta_flop=float(r["eta_flop"]),
            c_layer=float(r["c_layer"]), c_allreduce=float(r["c_allreduce"]),
            overlap=float(r["overlap"]),
            rows=int(r["rows"]), groups=int(r["groups"]), shrinkage=float(r["shrinkage"]),
            band=(float(r["band_lo"]), float(r["band_hi"])), cv_rows=int(r["cv_rows"]),
            holdout_rows=int(r["holdout_rows"]), holdout_inside=int(r["holdout_inside"]))
    return out


@functools.lru_cache(maxsize=1)
def stored_knobs() -> dict[str, Knobs]:
    """The packaged knobs (``infra_calc/data/forecast_knobs.csv``), by engine family."""
    pkg = __name__.rpartition(".")[0] or "infra_calc"
    return parse_knobs(resources.files(pkg).joinpath("data", "forecast_knobs.csv")
                       .read_text("utf-8"))


def forecast_engines() -> list[str]:
    """The engine families with stored knobs, the pooled ``"any"`` first."""
    names = list(stored_knobs())
    return [POOLED] + sorted(n for n in names if n != POOLED)


def knobs(engine=None) -> Knobs:
    """The stored knobs of ``engine`` (None: the pooled fit), matched as a catalog name is
    (:func:`~infra_calc.catalog.name_key`: case, spaces, dashes, underscores and dots do not matter).

    Raises
    ------
    ValueError
        For an engine without stored knobs; the message lists the known names.
    """
    table = stored_knobs()
    if engine is None:
        return table[POOLED]
    if not isinstance(engine, str):
        raise TypeError(f"engine must be an engine family name (str) or None, got "
                        f"{type(engine).__name__}")
    wanted = name_key(_ALIASES.get(name_key(engine), engine))
    for name, kn in table.items():
        if name_key(name) == wanted:
            return kn
    raise ValueError(f"engine={engine!r} has no fitted knobs; known engines: "
                     f"{', '.join(forecast_engines())} (or None for the pooled fit)")


@dataclass(frozen=True)
class Terms:
    """A request's floor and the model's passes as ``(t_read, t_compute, t_comm)``, seconds:
    what :func:`forecast` and the fit (:func:`infra_calc.fit.prepare`) run through :func:`pass_time`."""

    #: The floor (:func:`~infra_calc.generation.generation_time`, ``k`` experts per MoE layer).
    floor: GenerationTime
    #: The prefill pass and the ``O - 1`` decode steps (arrays) under the model (uniform
    #: routing for a mixture of experts).
    prefill: tuple
    steps: tuple
    #: :func:`prefill_share` under continuous batching (else 0), and one prompt's prefill
    #: (batch 1) under the model (zeros when the share is 0).
    share: float
    prefill_one: tuple


def forecast_terms(w, prompt_tokens, output_tokens, *, continuous=False) -> Terms:
    """The :class:`Terms` of a request of ``P`` and ``O`` tokens per request on workload ``w``.

    The floor reads ``k`` experts per MoE layer (``routing="floor"``); the model reads those
    uniform routing is expected to hit (``"uniform"``, a model); ``continuous`` adds one
    prompt's prefill for :func:`prefill_share` (0 at ``B = 1`` or ``O = 1``).
    """
    if not isinstance(continuous, bool):
        raise TypeError(f"continuous must be True or False, got {continuous!r}")
    w = w.with_(routing="floor")
    floor = generation_time(w, prompt_tokens=prompt_tokens, output_tokens=output_tokens)
    model_w = w.with_(routing="uniform") if w.model.is_moe else w
    mdl = floor if model_w is w else generation_time(
        model_w, prompt_tokens=prompt_tokens, output_tokens=output_tokens)
    share = prefill_share(w.batch, floor.output_tokens) if continuous and mdl.steps.t_read.size \
        else 0.0

    def parts(x, kind=float):
        return tuple(kind(getattr(x, t)) for t in ("t_read", "t_compute", "t_comm"))
    one = parts(generation_time(model_w.with_(batch=1), prompt_tokens=prompt_tokens,
                                output_tokens=1).prefill) if share else (0.0, 0.0, 0.0)
    return Terms(floor, parts(mdl.prefill), parts(mdl.steps, np.asarray), share, one)


def _band(value, floor_value, band, rate=False) -> Band:
    lo, hi = band
    if rate:      # a rate is B O / time: the time band inverted, never above the floor's rate
        return Band(float(value), float(min(value * _math.exp(-hi), floor_value)),
                    float(min(value * _math.exp(-lo), floor_value)))
    return Band(float(value), float(max(value * _math.exp(lo), floor_value)),
                float(max(value * _math.exp(hi), floor_value)))


def forecast(model, hw=None, *, prompt_tokens, output_tokens, batch=None, cards=None,
             bytes_per_param=None, kv_bytes_per_element=None, math=None, engine=None,
             continuous=False) -> Forecast:
    """Forecast one request's TTFT, TPOT, total time and output rate, with intervals.

    The floor is :func:`~infra_calc.generation.generation_time` of the same inputs (``k``
    experts per MoE layer, no all-reduce model); the forecast runs each of its passes
    (:func:`forecast_terms`) through :func:`pass_time` with the family's fitted knobs, on the
    same terms except that a mixture of experts reads the experts uniform routing is expected
    to hit:

    .. math:: TTFT = T(\\text{prefill}),\\quad total = TTFT + \\sum_{j=1}^{O-1} T(\\text{step}_j),
              \\quad TPOT = \\frac{1}{O-1}\\sum_j T(\\text{step}_j),\\quad
              \\text{tokens/s} = B\\,O / total

    Parameters
    ----------
    model : ModelSpec, str, path or Workload
        A catalog name, a spec, a Hugging Face ``config.json`` path, or a whole workload
        (its batch, cards, byte widths and math are used; a size given here as well replaces
        the workload's, as in :meth:`Workload.of <infra_calc.workload.Workload.of>`).
    hw : Accelerator or str
    prompt_tokens, output_tokens : int
        ``P`` and ``O`` (>= 1), tokens per request.
    batch, cards : int
        Requests decoded together, ``B``, and tensor-parallel cards per model copy.
    bytes_per_param, kv_bytes_per_element : float
        Bytes per weight and per cached element.
    math : str
        Math precision (``"bf16"``, ``"fp8"``, ``"fp4"``): its dense peak sets the compute term.
        Each size left at None takes the :class:`~infra_calc.workload.Workload` default.
    engine : str, optional
        Engine family (:func:`forecast_engines`); None uses the pooled fit.
    continuous : bool
        Continuous batching under load (default False: a static batch, or one request): the
        TPOT adds ``(B - 1)/O`` prefills of one prompt per step (:func:`prefill_share`, a model);
        the TTFT, total and rate are the same either way.

    There is no ``routing`` (as :func:`~infra_calc.decode.model_decode_step` takes): the
    knobs were fitted (:func:`infra_calc.fit.prepare`, through :func:`forecast_terms`) on the
    floor at ``k`` experts per MoE layer and the model at uniform routing, so the forecast
    fixes both; a Workload's own ``routing`` is not read.

    Returns
    -------
    Forecast

    Raises
    ------
    ValueError
        Unknown engine (the message lists the known ones), a card without ``math``, or a
        bad size (named, with its unit).

    >>> import infra_calc as ic
    >>> f = ic.forecast("llama-2-7b", "A100 80GB", prompt_tokens=128, output_tokens=128)
    >>> f.tpot.value > f.floor.tpot_mean and f.tpot.low <= f.tpot.value <= f.tpot.high
    True
    """
    kn = knobs(engine)
    sizes = dict(bytes_per_param=bytes_per_param, batch=batch,
                 kv_bytes_per_element=kv_bytes_per_element, cards=cards, math=math)
    w = Workload.of(model, hw, **sizes)
    t = forecast_terms(w, prompt_tokens, output_tokens, continuous=continuous)
    floor, layers, n = t.floor, w.model.layers, w.cards

    def timed(terms):
        read, compute, comm = terms
        return pass_time(kn.fitted, read=read, compute=compute, comm=comm, layers=layers,
                         cards=n)
    ttft = float(timed(t.prefill))
    steps = timed(t.steps)
    total = ttft + float(np.sum(steps))
    tpot = float(np.mean(steps)) if np.size(steps) else 0.0
    if t.share:
        tpot += t.share * float(timed(t.prefill_one))
    floor_tpot = floor.floor_tpot_mean
    tokens = w.batch * floor.output_tokens
    return Forecast(
        ttft=_band(ttft, floor.prefill.t_floor, kn.band),
        tpot=_band(tpot, floor_tpot, kn.band),
        total=_band(total, floor.floor_total, kn.band),
        output_tokens_per_s=_band(tokens / total, tokens / floor.floor_total, kn.band, rate=True),
        floor=floor, engine=kn.engine, knobs=kn, math=w.math, continuous=continuous)
