"""The turning points at another math precision: the lever of lower-precision math.

:func:`precision_point`: the ridge, ``B*``, ``S_max`` and ``P*`` when the math runs at
another precision's dense peak (:meth:`~infra_calc.hardware.Accelerator.peak`) and the
weights are stored in ``b_W`` bytes.  Every function that bounds with a peak takes the
precision itself (``math=``, or a :class:`~infra_calc.workload.Workload`'s ``math``): the
ridge :meth:`~infra_calc.hardware.Accelerator.ridge`, the roofline
(:func:`~infra_calc.roofline.attainable_flops`, :func:`~infra_calc.roofline.gemm_roofline`,
:func:`~infra_calc.roofline.critical_rows`), chapter 1's :func:`~infra_calc.step.compute_time`,
:func:`~infra_calc.step.step_time`, :func:`~infra_calc.step.decode_step` and
:func:`~infra_calc.step.batch_turning_point`, and the turning points of :mod:`infra_calc.kv`.

>>> import infra_calc as ic
>>> h = ic.accelerator("H100 SXM")
>>> ic.critical_rows(8192, 8192, h, math="fp8") > ic.critical_rows(8192, 8192, h)
True
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .capacity import CapacityCheck, HoldsMemory
from .decode import step_parts
from .kv import turning_batch_of, turning_points
from .step import batch_turning_point
from .workload import Workload

__all__ = ["PrecisionPoint", "precision_point"]


@dataclass(frozen=True)
class PrecisionPoint(HoldsMemory):
    """Result of :func:`precision_point`: where the turning points sit at one precision."""

    #: Math precision whose dense peak bounds the math.
    math: str
    #: Stored bytes per weight, ``b_W``.
    bytes_per_param: float
    #: Bytes per cached element.
    kv_bytes_per_element: float
    #: The dense peak :math:`\\Pi_m`, FLOP/s.
    peak: float
    #: The ridge :math:`\\Pi_m/\\beta`, FLOP/byte.
    ridge: float
    #: :math:`B^* = b_W\\Pi_m/(2\\beta)` with no KV cache read (chapter 1's,
    #: :func:`~infra_calc.step.batch_turning_point`), requests; also the prefill turning
    #: point :math:`P^*` in prompt tokens.
    b_star_no_kv: float
    #: The model's :math:`B^*(S)` at ``context`` (:func:`~infra_calc.kv.turning_batch`), requests.
    b_star: float | np.ndarray
    #: The model's :math:`S_{max}` (:func:`~infra_calc.kv.critical_context`), tokens.
    s_max: float
    #: The floor of one decode step at batch 1 and ``context``, per card, seconds.
    t_step_1: float | np.ndarray
    #: The workload's memory at ``context`` (:meth:`Workload.memory_at`: weights of
    #: ``b_W`` bytes, its batch's cache, workspace), per card; nothing is refused.
    memory: CapacityCheck

    @property
    def weight_bytes(self) -> float:
        """Resident weights per card, bytes (``memory.weights``)."""
        return float(self.memory.weights)


def precision_point(model, hw=None, *, context=None, bytes_per_param=None,
                    kv_bytes_per_element=None, math=None) -> PrecisionPoint:
    """The ridge, ``B*``, ``P*`` and ``S_max`` with weights of ``b_W`` bytes and math at ``Π_m``.

    Every turning point balances math against bytes, so it scales as
    :math:`b_W\\Pi_m/\\beta`: :math:`B^* \\approx P^* = b_W\\Pi_m/(2\\beta)`
    (:func:`~infra_calc.step.batch_turning_point`), the model's
    :math:`B^*(S)` and :math:`S_{max}` (:mod:`infra_calc.kv`, at the workload's
    ``math``).  Lowering the math and the weights together
    (FP8 weights and FP8 math, ``b_W = 1``, :math:`\\Pi_m = 2\\Pi`) leaves
    :math:`B^*` where it was and halves both floors; weight-only quantisation
    (``b_W`` falls, math at BF16) shrinks the read but not the math, so
    :math:`B^*` falls with ``b_W`` and past it nothing is gained; the ridge
    :math:`\\Pi_m/\\beta` moves only with the math.

    Parameters
    ----------
    model : ModelSpec, str or Workload
        A Workload keeps its own routing, cards and math.
    hw : Accelerator, str or None
        Required with a model; with a Workload, None (its card) or the same card
        (:meth:`Workload.of <infra_calc.workload.Workload.of>`).
    context : int or array_like, keyword-only
        ``S`` for ``B*(S)`` and the batch-1 step (left at None, the
        :class:`~infra_calc.workload.Workload`'s default).
    bytes_per_param, kv_bytes_per_element : float, keyword-only
        ``b_W`` and cache bytes per element (left at None, the Workload's defaults).
    math : str, keyword-only
        ``"bf16"``, ``"fp8"`` or ``"fp4"`` where the card has it (left at None, the
        Workload's default).
    """
    w = Workload.of(model, hw, context=context, bytes_per_param=bytes_per_param,
                    kv_bytes_per_element=kv_bytes_per_element, math=math)
    acc, bw = w.hw, w.bytes_per_param
    return PrecisionPoint(
        math=w.math, bytes_per_param=bw, kv_bytes_per_element=w.kv_bytes_per_element,
        peak=acc.peak(w.math), ridge=acc.ridge(w.math),
        b_star_no_kv=float(batch_turning_point(acc, bytes_per_param=bw, math=w.math)),
        b_star=turning_batch_of(w), s_max=float(turning_points(w)[1]),
        t_step_1=step_parts(w.with_(batch=1)).t_floor,
        memory=w.memory_at(like=np.asarray(w.context, dtype=float)))
