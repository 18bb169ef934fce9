"""Fitting the forecast's knobs on the published measurements (deterministic).

Each usable row of ``measurements.csv`` becomes a :class:`Row`: the terms of its floor
(the prefill pass and the decode steps of :func:`~infra_calc.generation.generation_time`
on the row's workload, :func:`infra_calc.reality.workload_for`), and the measured figure
as the time the model predicts.  The forecast of a row is

.. math:: f(k) = a\\,T(\\text{prefill}; k) + \\sum_s w_s\\,T(\\text{step}_s; k)

with :func:`~infra_calc.forecasting.pass_time` as ``T``, ``a = 1`` and ``w_s`` summing to
``O - 1`` for a whole request (``e2e_latency``; a throughput is ``B O / f`` per copy),
``a = 0`` and ``w_s`` summing to 1 for a TPOT, ``a = 1`` and no steps for a TTFT.  A TPOT
(or ITL) measured under continuous batching adds ``((B - 1)/O) T(prefill_1; k)``, the
prefills of arriving prompts that share the steps
(:func:`~infra_calc.forecasting.prefill_share`, a model).  The regime is read from the row's
fields: a serving load (:attr:`Measurement.continuous
<infra_calc.measurements.Measurement.continuous>`: requests arriving while others decode), a
batch above 1, and the prompt and output lengths stated
(``Row.share`` holds ``(B - 1)/O``; 0 for every other row, a static batch or one request).  A
row's figure is the :func:`~infra_calc.forecasting.design` of its request, the one
:func:`forecast <infra_calc.forecasting.forecast>` evaluates, with the steps sampled at up to
:data:`SAMPLES` evenly spaced contexts; :func:`~infra_calc.forecasting.request_time` computes
it for both.

The knobs ``k = (η_mem, η_flop, c_layer, c_ar, o)`` (``o`` the overlap of
:func:`~infra_calc.forecasting.pass_time`) are fitted on ``u = (logit η_mem, logit η_flop,
ln(c_layer/1 µs), ln(c_ar/1 µs), logit o)`` by bounded least squares
(``scipy.optimize.least_squares``, trust-region reflective), minimising

.. math:: \\sum_i (\\ln f_i(k) - \\ln y_i)^2 + \\lambda \\lVert u - u_0 \\rVert^2

(relative error; a prior keeps unidentified knobs in place): the pooled fit with
:data:`POOLED_PRIOR` toward :data:`U_START`, each engine family with :data:`FAMILY_PRIOR`
toward the pooled fit (shrinkage: a family with few rows stays near it).  Both weights are
fixed here, before any cross-validation, and are not tuned on it.

Rows left out, and why (:func:`prepare`): held-out rows (``sets`` holds ``holdout``),
rows that are not evidence (:func:`~infra_calc.measurements.independent`), rows whose card
is not in the catalog, whose cards per copy or decode batch are not stated, the achieved
bandwidth rows (a derived figure), TTFT under load (queueing, not a bound: counted apart),
throughputs under a set load (:attr:`~infra_calc.measurements.Measurement.offered_load`,
MLPerf's Server and Interactive: the completed rate follows the offered one, and the run's
TPOT row at its Little's-law batch holds the same decode), and **faults**: rows faster than
their own floor, counted and listed.  The figure predicted is the row's
:attr:`~infra_calc.measurements.Measurement.kind`.  A row whose prompt or output length is
not stated takes ``P = 1`` and ``O = 2`` (:meth:`Measurement.lengths
<infra_calc.measurements.Measurement.lengths>` with ``policy="shortest"``, which says why),
allowed only at batch 1, where one request's cache is a
small share of the read; at a larger batch such a row is left out (MLPerf states no mean
prompt length of its data sets).  ``Row.lengths_stated`` says which rows these are.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import least_squares
from scipy.special import expit

from .accelerators import CATALOG
from .display import shown
from .forecasting import POOLED, Design, KnobValues, design, forecast_terms, rate_per_card, request_time
from .measurements import independent
from .reality import workload_for

__all__ = ["Row", "Data", "prepare", "fit_knobs", "predict", "pooled_efficiency", "unpack",
           "FAMILY_PRIOR", "POOLED_PRIOR", "U_START", "SAMPLES"]

#: Prior weight λ pulling a family's knobs toward the pooled fit.
FAMILY_PRIOR = 0.5
#: Prior weight λ pulling the pooled fit toward :data:`U_START` (weak: identification only).
POOLED_PRIOR = 0.01
#: Where every fit starts, and the pooled prior's centre: η_mem 0.7, η_flop 0.5, 1 µs, 1 µs,
#: overlap 0.5.
U_START = np.array([np.log(0.7 / 0.3), 0.0, 0.0, 0.0, 0.0])
#: Decode steps sampled per row.
SAMPLES = 32
_BOUNDS = (np.array([-8.0, -8.0, -12.0, -12.0, -8.0]), np.array([8.0, 8.0, 6.0, 6.0, 8.0]))


def unpack(u) -> KnobValues:
    """The knobs ``(η_mem, η_flop, c_layer, c_ar, o)`` of the fit's coordinates ``u``: the logistic
    ``expit(x) = 1 / (1 + e⁻ˣ)`` of ``u[0]``, ``u[1]`` and ``u[4]``, and ``1 µs · e^u`` of
    ``u[2]`` and ``u[3]``."""
    u = np.asarray(u, dtype=float)
    return KnobValues(float(expit(u[0])), float(expit(u[1])),
                      float(1e-6 * np.exp(u[2])), float(1e-6 * np.exp(u[3])),
                      float(expit(u[4])))


@dataclass(frozen=True)
class Row:
    """One measurement ready to fit (SI units)."""

    #: The measurement.
    m: object
    #: Engine family (the row's ``engine``).
    family: str
    #: What is predicted: "ttft", "tpot", "total" or "rate".
    kind: str
    #: The measured figure as the time the model predicts, seconds (a rate: ``B O / (r n)``).
    y: float
    #: The floor of that time (floor terms only, ``k`` experts), seconds.
    floor: float
    #: The figure as the model's passes (:func:`~infra_calc.forecasting.design`, one request).
    design: Design
    #: ``B O`` of a rate row (to turn a time back into a rate), else 0.
    tokens: float
    #: Whether the source states the prompt and output lengths the row needs.
    lengths_stated: bool

    @property
    def cards(self) -> int:
        """Cards per copy."""
        return int(self.design.cards[0])

    @property
    def share(self) -> float:
        """Prefills of one prompt added to a TPOT under continuous batching, ``(B - 1)/O``
        (0: a static batch, one request, or not a TPOT)."""
        return float(self.design.share[0])

    @property
    def group(self) -> str:
        return self.m.group

    @property
    def publisher(self) -> str:
        return self.m.publisher

    def figure(self, t):
        """A predicted time as the row's own figure (seconds, or tokens/s per card)."""
        return self.tokens / (np.asarray(t) * self.cards) if self.kind == "rate" else t

    @property
    def measured(self) -> float:
        """The figure as measured, in the row's own terms (SI)."""
        return float(self.figure(self.y))

    def rel_error(self, t) -> float:
        """Relative error of a predicted time, in the row's own terms (forecast/measured - 1)."""
        return float(self.figure(t) / self.measured - 1.0)


class Skip(Exception):
    """A row that cannot be fitted, with the reason (and its :class:`Row` where one was built:
    its floor still holds, so a measurement faster than it is still a fault)."""

    def __init__(self, reason, row=None):
        super().__init__(reason)
        self.row = row


def prepare(m) -> Row:
    """The :class:`Row` of a measurement, or :class:`Skip` with the reason it is left out."""
    kind = m.kind
    if not kind:
        raise Skip(f"metric {m.metric!r} is not a forecast figure")
    if m.accelerator not in CATALOG:
        raise Skip("card not in the catalog")
    if kind == "ttft" and (m.offered_load or m.batch is None):
        raise Skip("TTFT under load (queueing)")
    if not m.cards:
        raise Skip("cards per copy not stated")
    if kind != "ttft" and not m.batch:
        raise Skip("decode batch not stated")
    p, o = m.lengths(policy="shortest")
    stated = m.lengths_stated
    continuous = kind == "tpot" and stated and m.continuous
    try:
        w = workload_for(m, routing="floor")
        t = forecast_terms(w, prompt_tokens=p, output_tokens=o, continuous=continuous)
    except (ValueError, TypeError) as exc:
        raise Skip(str(exc)) from None
    floor = t.floor
    if kind == "ttft":
        y, fl = m.value_si, floor.prefill.t_floor
    elif kind == "tpot":
        y, fl = m.value_si, floor.floor_tpot
    else:
        fl = floor.floor_total
        y = m.value_si if kind == "total" else rate_per_card(
            m.output_rate_per_card, batch=w.batch, output_tokens=o, cards=w.cards)
    row = Row(m=m, family=m.engine, kind=kind, y=float(y), floor=float(fl),
              design=design(t, kind, samples=SAMPLES),
              tokens=float(w.batch * o) if kind == "rate" else 0.0, lengths_stated=stated)
    if kind == "rate" and m.offered_load:
        raise Skip("throughput under a set load (the offered rate, not a capacity; the run's "
                   "TPOT row holds its decode)", row)
    if not stated and m.batch != 1:
        raise Skip("prompt or output length not stated at a batch above 1 (the cache read "
                   "it sets is not negligible)", row)
    return row


@dataclass(frozen=True)
class Data:
    """The measurements sorted for the fit."""

    #: Rows the fit and the cross-validation use.
    rows: tuple
    #: Held-out rows (``sets`` holds ``holdout``): never fitted, never used to choose anything.
    holdout: tuple
    #: Rows faster than their own floor: ``(row, "faster than its floor by x %")``, among
    #: every row whose floor could be computed (also those left out for their lengths).
    faults: tuple
    #: Measurements left out: ``(measurement, reason)``.
    skipped: tuple


def load_data(rows=None) -> Data:
    """Every independent measurement, prepared (:func:`prepare`) and sorted."""
    fit, hold, faults, skipped = [], [], [], []
    for m in independent(rows):
        try:
            r, usable = prepare(m), True
        except Skip as exc:
            r, usable = exc.row, False
            if r is None or r.y >= r.floor * (1 - 1e-9):
                skipped.append((m, str(exc)))
                continue
        if r.y < r.floor * (1 - 1e-9):
            faults.append((r, f"faster than its floor by {shown(1 - r.y / r.floor, '%', 1)}"))
        elif not usable:
            continue
        elif "holdout" in m.sets.split():
            hold.append(r)
        else:
            fit.append(r)
    return Data(tuple(fit), tuple(hold), tuple(faults), tuple(skipped))


def predict(rows, k: KnobValues) -> np.ndarray:
    """The model's time for each row with knobs ``k = (η_mem, η_flop, c_layer, c_ar, o)``
    (:class:`~infra_calc.forecasting.KnobValues`), seconds: the
    :func:`~infra_calc.forecasting.request_time` of their designs."""
    return request_time(k, Design.stack(r.design for r in rows))


def _fit(rows, centre, lam) -> np.ndarray:
    rows = list(rows)
    d = Design.stack(r.design for r in rows)
    logy = np.log([r.y for r in rows])
    root = np.sqrt(lam)

    def fun(u):
        return np.concatenate([np.log(request_time(unpack(u), d)) - logy, root * (u - centre)])

    return least_squares(fun, np.clip(centre, *_BOUNDS), bounds=_BOUNDS, method="trf",
                         xtol=1e-12, ftol=1e-12, gtol=1e-12, max_nfev=2000).x


def fit_knobs(rows) -> dict[str, np.ndarray]:
    """The fit coordinates ``u`` of the pooled fit (``"any"``) and of each engine family."""
    rows = list(rows)
    out = {POOLED: _fit(rows, U_START, POOLED_PRIOR)}
    for fam in sorted({r.family for r in rows}):
        out[fam] = _fit([r for r in rows if r.family == fam], out[POOLED], FAMILY_PRIOR)
    return out


def pooled_efficiency(rows) -> float:
    """The one-knob baseline: ``floor / η`` with ``ln η = mean(ln floor - ln y)``, ``η <= 1``."""
    rows = list(rows)
    return float(min(1.0, np.exp(np.mean([np.log(r.floor / r.y) for r in rows]))))
