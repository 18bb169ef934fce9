"""A reality check: published measurements against the book's lower bounds.

``infra_calc/data/measurements.csv`` (read by :mod:`infra_calc.measurements`)
holds one published measurement per row, copied as the source prints it
(model, hardware, engine, batch, prompt and output lengths, the figure and its
unit, the URL and, where the source gives one, the date); a field the source
does not state is left empty.  The ``model`` and ``accelerator`` columns map
the printed names onto the catalog.

:func:`lower_bound` computes the book's bound for a row:

======================  ===================================================
metric                  bound
======================  ===================================================
``ttft``                :func:`~infra_calc.prefill.prefill_step` ``t_floor``
``itl``, ``tpot``       mean ``floor_step_times`` of :func:`~infra_calc.generation.generation_time`
``e2e_latency``         ``generation_time(...).floor_total``
``output_throughput_
per_gpu``               ``B·O / floor_total / cards`` (an upper bound on a static batch's rate)
======================  ===================================================

and the fraction of the bound the measurement reaches
(``bound / measured`` for a time, ``measured / bound`` for a rate), which is
the implied MBU when the bound is the memory read and the implied MFU when it
is the math.  The bound holds the floor terms only: the all-reduces of a
multi-card row are a model, reported apart (``comm_share``), and an MoE step
reads ``k`` experts per layer (the floor; ``uniform_fraction`` is the same
share under the uniform-routing model).  Assumptions where the source is silent: weights in 2 bytes
(BF16) when no precision is printed, 1 byte for FP8; the KV cache in the
weights' byte width when the row states no ``kv_precision`` (else at that
precision); a missing prompt or output length counts as 0 tokens of
cache (:meth:`Measurement.lengths` with ``policy="zero"``, which says why the fit reads
them otherwise); decode weights are the bytes really touched
(:meth:`ModelSpec.decode_weight_bytes`); the math runs at the dense peak of
the row's math precision (:attr:`Measurement.math`: FP8 and FP4 rows at the catalog's
FP8 and FP4 peaks, :meth:`Accelerator.peak`).  The metric's figure is
:attr:`Measurement.kind`.  :func:`workload_for` is the
one place a row becomes a :class:`~infra_calc.workload.Workload`.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

from .accelerators import accelerator
from .decode import model_decode_step
from .forecasting import rate_per_card
from .generation import generation_time
from .hardware import Accelerator
from .measurements import PRECISION_BYTES, Measurement, load
from .prefill import prefill_step
from .workload import Workload

__all__ = ["Measurement", "RealityRow", "measurements", "lower_bound", "reality_check",
           "accelerator_for", "workload_for", "mean_step"]


@functools.lru_cache(maxsize=1)
def measurements() -> tuple[Measurement, ...]:
    """The rows of the packaged ``measurements.csv`` in the reality-check set, in file order.

    The table is read by :func:`infra_calc.measurements.load`; this page's rows are those
    whose ``sets`` column holds ``reality``.
    """
    return tuple(m for m in load() if "reality" in m.sets.split())


#: A whole-request bound whose prefill pass is at least this share of it is "mixed": its
#: fraction is neither an implied MBU nor an implied MFU (the figure of section 3.5 draws
#: such rows apart at the same share).
MIXED_PREFILL_SHARE = 0.05


@dataclass(frozen=True)
class RealityRow:
    """A measurement next to the book's bound (SI units)."""

    #: The published measurement.
    measurement: Measurement
    #: The book's bound on the same figure, from the floor terms alone (no all-reduce model):
    #: a lower bound on a time (seconds), an upper bound on a rate (tokens/s per card).
    bound: float
    #: Which floor term sets the bound: "memory" or "compute".
    bound_kind: str
    #: Fraction of the bound reached: ``bound / measured`` (time), ``measured / bound`` (rate).
    fraction: float
    #: Read lower bound of the step behind the bound, seconds.
    t_read: float
    #: Compute lower bound of that step, seconds.
    t_compute: float
    #: All-reduce time of that step under the ring model (a model, not in ``bound``), seconds.
    t_comm: float
    #: Share of the bound that is the prefill pass (compute-bound), for the metrics whose
    #: bound is a whole request (``e2e_latency``, ``output_throughput_per_gpu``); 0 otherwise.
    #: Only where it is small is ``fraction`` an implied MBU.
    prefill_share: float = 0.0
    #: Share of the bound plus the all-reduce model that the model is (0 on one card).
    comm_share: float = 0.0
    #: ``fraction`` against the uniform-routing model's expert read (a model; MoE rows
    #: differ, a dense row equals ``fraction``).
    uniform_fraction: float = 0.0

    @property
    def regime(self) -> str:
        """What ``fraction`` is: ``"memory-bound"`` (an implied MBU), ``"compute-bound"``
        (an implied MFU), or ``"mixed"`` where the bound is a whole request whose prefill
        is at least :data:`MIXED_PREFILL_SHARE` of it (neither)."""
        if self.prefill_share >= MIXED_PREFILL_SHARE:
            return "mixed"
        return f"{self.bound_kind}-bound"

    @property
    def gap(self) -> float:
        """How many times the measurement is off the bound (``1/fraction``)."""
        return 1.0 / self.fraction


def accelerator_for(m: Measurement) -> Accelerator:
    """The catalog accelerator of a row (its peaks per precision: :meth:`Accelerator.peak`)."""
    return accelerator(m.accelerator)


def workload_for(m: Measurement, *, routing: str = "floor") -> Workload:
    """The :class:`~infra_calc.workload.Workload` a row was measured on.

    The catalog card at the row's math precision (:attr:`Measurement.math`), its weight
    precision's bytes for the weights (2 when not stated), its KV-cache
    precision's bytes for the cache (the weights' bytes when the row states no
    cache precision), its decode batch (1 when not stated) and its cards per
    model copy (1 when not stated), and ``routing`` for a mixture of experts.
    """
    kv = PRECISION_BYTES.get(m.kv_precision, m.bytes_per_param)
    return Workload(m.model, accelerator_for(m), bytes_per_param=m.bytes_per_param,
                    kv_bytes_per_element=kv, batch=m.batch or 1,
                    cards=m.cards or 1, routing=routing, math=m.math)


def mean_step(m: Measurement, w: Workload):
    """The decode step of row ``m`` on ``w`` at its mean context ``P + O//2``, an unstated
    length counted as 0 tokens (:meth:`Measurement.lengths`, ``policy="zero"``, where the
    fit's other reading is explained).  It describes every decode row (``t_read``,
    ``bound_kind``), and alone bounds a TPOT or ITL whose lengths are not both stated.
    """
    p, o = m.lengths(policy="zero")
    return model_decode_step(w, context=p + o // 2, weight_read="touched")


def _bound(m: Measurement, routing: str):
    """``(floor, with_comm, step, prefill_share)`` of a row under ``routing``.

    ``floor`` holds the floor terms alone (``max(T_read, T_compute)`` of each
    pass); ``with_comm`` adds the all-reduce model as the library's ``t_step``
    does.  For a rate both are the rate they allow.
    """
    w = workload_for(m, routing=routing)
    p, o = m.lengths(policy="zero")
    share = 0.0
    if m.kind == "ttft":
        st = prefill_step(w, prompt_tokens=p)
        return st.t_floor, st.t_step, st, share
    st = mean_step(m, w)
    if m.kind == "tpot" and not (p and o > 1):
        return st.t_floor, st.t_step, st, share
    g = generation_time(w, prompt_tokens=p, output_tokens=o, weight_read="touched")
    if m.kind == "tpot":
        return g.floor_tpot, g.tpot, st, share
    share = g.prefill.t_floor / g.floor_total
    if m.kind == "total":
        return g.floor_total, g.total, st, share
    return (rate_per_card(g.floor_total, batch=m.batch, output_tokens=o, cards=m.cards),
            rate_per_card(g.total, batch=m.batch, output_tokens=o, cards=m.cards), st, share)


def _reached(m: Measurement, bound: float) -> float:
    """``bound / measured`` for a time, ``measured / bound`` for a rate (per card)."""
    return m.output_rate_per_card / bound if m.kind == "rate" else bound / m.value_si


def lower_bound(m: Measurement) -> RealityRow:
    """The book's bound for one measurement and the fraction of it reached.

    The bound holds the floor terms alone: the read and the math of each
    pass, with ``k`` experts per MoE layer (``routing="floor"``).  The
    all-reduces of a multi-card row are a model (a ring, an assumed cost per
    step), so they stay out of the bound and out of ``fraction``:
    ``comm_share`` says how much of the bound plus that model they would be.

    ``bound_kind`` says which floor term sets the bound: ``"memory"`` (so the
    fraction is an implied MBU) or ``"compute"`` (an implied MFU).  For a
    decode metric it is the kind of the step at the mean context; where the
    bound is a whole request, ``prefill_share`` says how much of it is the
    (compute-bound) prefill pass, so a row with a large share is neither an
    MBU nor an MFU.  ``uniform_fraction`` is the fraction reached against the
    uniform-routing model's read for a mixture of experts (a model, not a
    floor; the same as ``fraction`` for a dense model).
    """
    floor, with_comm, st, share = _bound(m, "floor")
    if m.kind == "rate":
        comm_share = 1.0 - with_comm / floor
    else:
        comm_share = 1.0 - floor / with_comm
    uniform = _reached(m, _bound(m, "uniform")[0]) if st.model.is_moe else _reached(m, floor)
    return RealityRow(m, float(floor), str(st.floor_bound),
                      float(_reached(m, floor)), float(st.t_read), float(st.t_compute),
                      float(st.t_comm), float(share), float(comm_share), float(uniform))


def reality_check() -> list[RealityRow]:
    """:func:`lower_bound` of every packaged measurement, in file order."""
    return [lower_bound(m) for m in measurements()]
