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

**Prefill sharing the steps (continuous batching), a model**: with ``continuous=True`` the
TPOT adds the prefills of arriving prompts, ``(B - 1)/O`` of one prompt's per step
(:func:`prefill_share`, which states the model).
"""
from __future__ import annotations

import csv
import math as _math
from dataclasses import dataclass, fields
from typing import NamedTuple

import numpy as np

from ._forecast_result import Band, Forecast, band_of
from .catalog import DATA, Catalog, UnknownNameError
from .generation import GenerationTime, generation_time
from .workload import Workload

__all__ = ["Band", "Knobs", "KnobValues", "Forecast", "forecast", "forecast_engines",
           "pass_time", "knobs", "POOLED", "KNOB_COLUMNS", "prefill_share", "Terms",
           "forecast_terms", "rate_per_card", "Design", "design", "request_time",
           "UnknownEngineError"]

#: The family name of the pooled fit over every engine.
POOLED = "any"
#: Other spellings of engine families a reader may type (the knob catalog's aliases).
_ALIASES = {"TensorRT-LLM": ["trtllm", "trt"], "NVIDIA NIM": ["nim"], POOLED: ["pooled", "all"]}


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


def prefill_share(*, batch, output_tokens) -> float:
    """Prefills of one prompt added to the mean gap between output tokens under continuous
    batching, ``(B - 1) / O``; 0 at ``B = 1`` (no other request's prompt to wait for).

    A server that keeps ``B`` requests decoding while new ones arrive, each of ``P`` prompt and
    ``O`` output tokens, finishes ``B/O`` requests per decode step in steady state and starts
    as many; each new prompt's prefill runs between two steps and lengthens the gap of the
    ``B - 1`` requests already decoding (for the newcomer it is its TTFT).  Over all ``B``
    requests' gaps the mean time between two output tokens is then

    .. math:: TPOT_{cb} = \\overline{T(\\text{step}_j)} + \\frac{B - 1}{O}\\,T(\\text{prefill}_1)

    with ``T(prefill_1)`` the model's prefill of *one* prompt (a model).  A static batch (all
    prompts prefilled together, then decoded together) has no such term.  It only adds time,
    so the TPOT stays above its floor; the total and the output rate already count every
    prompt's prefill once per ``B O`` output tokens.  The fit uses it on a TPOT or ITL row
    measured under a serving load (:attr:`Measurement.continuous
    <infra_calc.measurements.Measurement.continuous>`) at a batch above 1 whose prompt and
    output lengths are stated.
    """
    return max(float(batch) - 1.0, 0.0) / float(output_tokens)


@dataclass(frozen=True)
class Knobs:
    """The fitted knobs of one engine family (SI units) and what they were fitted on."""

    #: Engine family ("TensorRT-LLM", "vLLM", ..., or "any" for the pooled fit).
    engine: str
    #: The five knobs, as :class:`KnobValues` has them (:attr:`fitted`).
    eta_mem: float
    eta_flop: float
    c_layer: float
    c_allreduce: float
    overlap: float
    #: Rows of the fit (faster-than-floor, excluded and held-out rows left out).
    rows: int
    #: Provenance groups those rows come from.
    groups: int
    #: Weight of the prior that pulls the family's knobs toward the pooled fit (a penalty
    #: ``λ Σ (u - u_pooled)^2`` on the knobs' logits and logs; 0 for the pooled fit's own).
    shrinkage: float
    #: 10th and 90th percentile of the cross-validated ``ln(measured / forecast)`` of the
    #: family's rows (times; for a rate, of ``ln(forecast / measured)``): :attr:`band`.
    band_lo: float
    band_hi: float
    #: Cross-validated rows the band was taken from.
    cv_rows: int
    #: Held-out rows of this family (all of them for the pooled fit).
    holdout_rows: int
    #: Of those, how many fall inside their band.
    holdout_inside: int

    @property
    def band(self) -> tuple[float, float]:
        """``(band_lo, band_hi)``."""
        return self.band_lo, self.band_hi

    @property
    def holdout_coverage(self) -> float:
        """Share of the held-out rows inside their band (nan when there are none)."""
        return self.holdout_inside / self.holdout_rows if self.holdout_rows else _math.nan

    @property
    def fitted(self) -> KnobValues:
        """The five knobs, as :func:`pass_time` and :func:`request_time` take them."""
        return KnobValues(self.eta_mem, self.eta_flop, self.c_layer, self.c_allreduce,
                          self.overlap)


#: Columns of ``forecast_knobs.csv``, in order: the fields of :class:`Knobs`.
KNOB_COLUMNS = tuple(f.name for f in fields(Knobs))
_KNOB_TYPES = {f.name: {"str": str, "int": int, "float": float}[f.type] for f in fields(Knobs)}


class UnknownEngineError(UnknownNameError):
    """An engine family without stored knobs (a ``ValueError`` and ``KeyError``)."""


def _read_knobs(path) -> dict:
    """The entries of ``forecast_knobs.csv``: one per family, its cells typed as the fields of
    :class:`Knobs`, the ``engine`` as the entry's name, with its :data:`_ALIASES`."""
    entries = []
    for r in csv.DictReader(path.read_text("utf-8").splitlines()):
        cells = {c: _KNOB_TYPES.get(c, str)(v) for c, v in r.items()}
        name = cells.pop("engine")
        entries.append({"name": name, "aliases": _ALIASES.get(name, []), **cells})
    return {"entries": entries}


#: The packaged knobs (``infra_calc/data/forecast_knobs.csv``), a
#: :class:`~infra_calc.catalog.Catalog` of engine family to :class:`Knobs`.
KNOBS = Catalog("engine", DATA.joinpath("forecast_knobs.csv"),
                lambda r: Knobs(engine=r["name"], **{c: r[c] for c in KNOB_COLUMNS[1:]}),
                fields={c: t for c, t in _KNOB_TYPES.items() if c != "engine"},
                required=KNOB_COLUMNS[1:], error=UnknownEngineError,
                hint=" (or None for the pooled fit)", read=_read_knobs)


def stored_knobs() -> Catalog:
    """The packaged knobs by engine family: :data:`KNOBS`."""
    return KNOBS


def forecast_engines() -> list[str]:
    """The engine families with stored knobs, the pooled ``"any"`` first."""
    names = list(stored_knobs())
    return [POOLED] + sorted(n for n in names if n != POOLED)


def knobs(engine=None) -> Knobs:
    """The stored knobs of ``engine`` (None: the pooled fit), found as a catalog name is
    (:class:`~infra_calc.catalog.Catalog`: case, spaces, dashes, underscores and dots do not
    matter, and ``"trt"``, ``"nim"``, ``"all"`` are aliases).

    Raises
    ------
    UnknownEngineError
        (a :class:`ValueError`) for an engine without stored knobs; the message lists the
        known names.
    """
    if engine is not None and not isinstance(engine, str):
        raise TypeError(f"engine must be an engine family name (str) or None, got "
                        f"{type(engine).__name__}")
    return stored_knobs()[POOLED if engine is None else engine]


@dataclass(frozen=True)
class Terms:
    """A request's floor and the model's passes as ``(t_read, t_compute, t_comm)``, seconds:
    what :func:`design` makes a figure of, for :func:`forecast` and the fit
    (:func:`infra_calc.fit.prepare`)."""

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
    #: Layers ``L`` and cards per copy ``n`` (what :func:`pass_time` takes beside the terms).
    layers: int
    cards: int


def forecast_terms(w, *, prompt_tokens, output_tokens, continuous=False) -> Terms:
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
    share = (prefill_share(batch=w.batch, output_tokens=floor.output_tokens)
             if continuous and mdl.steps.t_read.size else 0.0)

    def parts(x, kind=float):
        return tuple(kind(getattr(x, t)) for t in ("t_read", "t_compute", "t_comm"))
    one = parts(generation_time(model_w.with_(batch=1), prompt_tokens=prompt_tokens,
                                output_tokens=1).prefill) if share else (0.0, 0.0, 0.0)
    return Terms(floor, parts(mdl.prefill), parts(mdl.steps, np.asarray), share, one,
                 w.model.layers, w.cards)


class Design(NamedTuple):
    """Figures of ``N`` requests as weighted passes of the model (SI units), what
    :func:`request_time` evaluates: request ``i`` takes

    .. math:: a_i\\,T(\\text{prefill}_i) + \\sum_{s \\in i} w_s\\,T(\\text{step}_s)
              + share_i\\,T(\\text{prefill}_{1,i})

    with :func:`pass_time` as ``T``.  ``prefill`` and ``prefill_one`` (one prompt at batch 1)
    hold ``(N, 3)`` rows of read, compute and comm times, ``steps`` the ``(M, 3)`` of the decode
    steps kept, with their ``step_weights`` (the :math:`w_s`) and request index ``of``
    (``(M,)``); ``a``, ``share``, ``layers`` and ``cards`` are ``(N,)``.  :func:`design` makes
    one; :meth:`stack` joins them.
    """

    prefill: np.ndarray
    a: np.ndarray
    steps: np.ndarray
    step_weights: np.ndarray
    of: np.ndarray
    share: np.ndarray
    prefill_one: np.ndarray
    layers: np.ndarray
    cards: np.ndarray

    @classmethod
    def stack(cls, designs) -> Design:
        """One design of every request of ``designs`` (at least one), in order."""
        ds = list(designs)
        start = np.cumsum([0] + [d.a.size for d in ds[:-1]])
        return cls(*(np.concatenate([d.of + s if f == "of" else getattr(d, f)
                                     for d, s in zip(ds, start, strict=True)])
                     for f in cls._fields))


def design(t: Terms, figure: str, *, samples=None) -> Design:
    """The :class:`Design` of one figure of a request of terms ``t``.

    ``"ttft"``: the prefill (``a = 1``, no step); ``"tpot"``: the mean step (``a = 0``,
    weights summing to 1), plus :attr:`Terms.share` prefills of one prompt; ``"total"`` or
    ``"rate"`` (``B O`` over the total): the prefill and every step (``a = 1``, weights summing
    to ``O - 1``).  ``samples`` keeps at most that many steps, at evenly spaced contexts (each
    step's terms are linear in its context, so their mean is the steps' mean up to the one kink
    of the max); None keeps every step.
    """
    if figure not in ("ttft", "tpot", "total", "rate"):
        raise ValueError(f"figure must be 'ttft', 'tpot', 'total' or 'rate', got {figure!r}")
    n = t.steps[0].size if figure != "ttft" else 0
    idx = np.unique(np.linspace(0, n - 1, n if samples is None else min(samples, n))
                    .round().astype(int)) if n else np.zeros(0, dtype=int)
    tpot = figure == "tpot"
    w = np.full(idx.size, (1.0 if tpot else n) / idx.size) if idx.size else np.zeros(0)
    share = t.share if tpot else 0.0

    def one(x):
        return np.array([x], dtype=float)
    return Design(np.array([t.prefill], dtype=float), one(0.0 if tpot else 1.0),
                  np.stack([x[idx] for x in t.steps], axis=-1).reshape(-1, 3), w,
                  np.zeros(idx.size, dtype=int), one(share),
                  np.array([t.prefill_one if share else (0.0, 0.0, 0.0)], dtype=float),
                  one(t.layers), np.array([t.cards]))


def request_time(k, d: Design) -> np.ndarray:
    """The model's time of each request of ``d`` with knobs ``k`` (:class:`KnobValues`),
    seconds: the formula of :class:`Design`; what :func:`forecast` and the fit
    (:func:`infra_calc.fit.predict`) both compute."""
    def timed(terms, layers, cards):
        return pass_time(k, read=terms[:, 0], compute=terms[:, 1], comm=terms[:, 2],
                         layers=layers, cards=cards)
    steps = timed(d.steps, d.layers[d.of], d.cards[d.of])
    out = d.a * timed(d.prefill, d.layers, d.cards) + np.bincount(
        d.of, weights=d.step_weights * steps, minlength=d.a.size)
    if d.share.any():
        out = out + d.share * timed(d.prefill_one, d.layers, d.cards)
    return out


def forecast(model, hw=None, *, batch=None, prompt_tokens, output_tokens, cards=None,
             bytes_per_param=None, kv_bytes_per_element=None, math=None, engine=None,
             continuous=False) -> Forecast:
    """Forecast one request's TTFT, TPOT, total time and output rate, with intervals.

    The floor is :func:`~infra_calc.generation.generation_time` of the same inputs (``k``
    experts per MoE layer, no all-reduce model); the forecast runs each of its passes
    (:func:`forecast_terms`, :func:`design`) through :func:`request_time` with the family's
    fitted knobs, on the same terms except that a mixture of experts reads the experts uniform
    routing is expected to hit:

    .. math:: TTFT = T(\\text{prefill}),\\quad total = TTFT + \\sum_{j=1}^{O-1} T(\\text{step}_j),
              \\quad TPOT = \\frac{1}{O-1}\\sum_j T(\\text{step}_j),\\quad
              \\text{tokens/s} = B\\,O / total

    Parameters
    ----------
    model : ModelSpec, str, path or Workload
        A catalog name, a spec, a Hugging Face ``config.json`` path, or a whole workload
        (its batch, cards, byte widths and math are used; a size given here as well replaces
        the workload's, as in :meth:`Workload.of <infra_calc.workload.Workload.of>`).
    hw : Accelerator, str or None
        Required with a model; with a Workload, None (its card) or the same card
        (:meth:`Workload.of <infra_calc.workload.Workload.of>`).
    batch : int
        Requests decoded together, ``B``.
    prompt_tokens, output_tokens : int
        ``P`` and ``O`` (>= 1), tokens per request.
    cards : int
        Tensor-parallel cards per model copy.
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
    >>> f.tpot.value > f.floor.tpot and f.tpot.low <= f.tpot.value <= f.tpot.high
    True
    """
    kn = knobs(engine)
    sizes = dict(bytes_per_param=bytes_per_param, batch=batch,
                 kv_bytes_per_element=kv_bytes_per_element, cards=cards, math=math)
    w = Workload.of(model, hw, **sizes)
    t = forecast_terms(w, prompt_tokens=prompt_tokens, output_tokens=output_tokens,
                       continuous=continuous)
    floor = t.floor
    ttft, tpot, total = map(float, request_time(kn.fitted, Design.stack(
        design(t, figure) for figure in ("ttft", "tpot", "total"))))
    floor_tpot = floor.floor_tpot
    tokens = w.batch * floor.output_tokens
    return Forecast(
        ttft=band_of(ttft, floor.prefill.t_floor, kn.band),
        tpot=band_of(tpot, floor_tpot, kn.band),
        total=band_of(total, floor.floor_total, kn.band),
        output_tokens_per_s=band_of(tokens / total, tokens / floor.floor_total, kn.band, rate=True),
        floor=floor, engine=kn.engine, knobs=kn, math=w.math, continuous=continuous)
